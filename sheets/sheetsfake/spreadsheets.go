package sheetsfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	sheetsapi "google.golang.org/api/sheets/v4"
)

// newID makes an ID that looks like Google's.
func (s *Server) newID() string {
	s.seq++
	return fmt.Sprintf("fake%040d", s.seq)
}

func (s *Server) url(id string) string {
	return s.base + "/spreadsheets/d/" + id + "/edit"
}

// newBook makes a spreadsheet with the given sheets, or Sheet1. idGiven
// says which sheets set their sheetId, which the typed request cannot
// tell from 0; the others get one, as Google gives them: the first 0 if
// it is free.
func (s *Server) newBook(id, title string, props []*sheetsapi.SheetProperties, idGiven []bool) (*book, error) {
	b := &book{id: id, title: title}
	if len(props) == 0 {
		props = []*sheetsapi.SheetProperties{{Title: "Sheet1"}}
	}
	given := func(i int) bool { return props[i].SheetId != 0 || i < len(idGiven) && idGiven[i] }
	taken := map[int64]bool{}
	for i, p := range props {
		if given(i) {
			taken[p.SheetId] = true
		}
	}
	zeroFree := !taken[0]
	for i, p := range props {
		c := *p
		if !given(i) {
			if zeroFree {
				c.SheetId, zeroFree = 0, false
			} else {
				c.SheetId = s.freeSheetID(b, taken)
			}
			taken[c.SheetId] = true
		}
		if err := b.addSheet(&c, i); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// freeSheetID is a sheet ID neither the book nor the request uses.
func (s *Server) freeSheetID(b *book, taken map[int64]bool) int64 {
	for {
		s.seq++
		if id := int64(s.seq); b.sheetByID(id) == nil && !taken[id] {
			return id
		}
	}
}

// reindex numbers the sheets in tab order.
func (b *book) reindex() {
	for i, sh := range b.sheets {
		sh.props.Index = int64(i)
	}
}

// addSheet adds a sheet last, filling Google's defaults. Its errors do
// not say where the sheet came from: the caller does (a batch says which
// request).
func (b *book) addSheet(p *sheetsapi.SheetProperties, index int) error {
	c := *p
	if c.Title == "" {
		c.Title = "Sheet" + strconv.Itoa(len(b.sheets)+1)
	}
	if b.sheetByTitle(c.Title) != nil {
		return fmt.Errorf("A sheet with the name %q already exists. Please enter another name.", c.Title)
	}
	if b.sheetByID(c.SheetId) != nil {
		return fmt.Errorf("Sheet with id %d already exists.", c.SheetId)
	}
	gp := &sheetsapi.GridProperties{RowCount: 1000, ColumnCount: 26}
	if c.GridProperties != nil {
		g := *c.GridProperties
		if g.RowCount == 0 {
			g.RowCount = 1000
		}
		if g.ColumnCount == 0 {
			g.ColumnCount = 26
		}
		gp = &g
	}
	if err := checkFrozen(gp); err != nil {
		return err
	}
	if gp.RowCount*gp.ColumnCount > 10_000_000 {
		return fmt.Errorf("This action would increase the number of cells in the workbook above the limit of 10000000 cells.")
	}
	c.GridProperties = gp
	c.SheetType = "GRID"
	c.Index = int64(index)
	b.sheets = append(b.sheets, &sheet{props: &c, cols: map[int64]*sheetsapi.DimensionProperties{}, rows: map[int64]*sheetsapi.DimensionProperties{}})
	return nil
}

// copyProps is a sheet's properties as a reply gives them: a copy, not the
// live state a later request would change.
func copyProps(p *sheetsapi.SheetProperties) *sheetsapi.SheetProperties {
	c := *p
	if p.GridProperties != nil {
		g := *p.GridProperties
		c.GridProperties = &g
	}
	return &c
}

func (s *Server) createSpreadsheet(w http.ResponseWriter, body []byte, who principal) {
	var req sheetsapi.Spreadsheet
	if !decode(w, s.opt.Sheets, s.opt.Sheets.RequestSchema("spreadsheets", "create"), body, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if who.serviceAccount {
		writeReason(w, 403, "storageQuotaExceeded", "%s", errNoQuota)
		return
	}
	// Which sheets set their sheetId, which the typed request cannot tell
	// from 0.
	var raw struct {
		Sheets []struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"sheets"`
	}
	json.Unmarshal(body, &raw)
	var props []*sheetsapi.SheetProperties
	var idGiven []bool
	for i, sh := range req.Sheets {
		p := &sheetsapi.SheetProperties{} // a sheet without properties gets the defaults
		if sh != nil && sh.Properties != nil {
			p = sh.Properties
		}
		given := false
		if i < len(raw.Sheets) {
			_, given = raw.Sheets[i].Properties["sheetId"]
		}
		props, idGiven = append(props, p), append(idGiven, given)
	}
	title := "Untitled spreadsheet"
	if req.Properties != nil && req.Properties.Title != "" {
		title = req.Properties.Title
	}
	id := s.newID()
	b, err := s.newBook(id, title, props, idGiven)
	if err != nil {
		writeError(w, 400, "%v", err)
		return
	}
	s.books[id] = b
	s.files[id] = &file{ID: id, Name: title, MimeType: mimeSheet, Parents: []string{"root"}, Owner: who.email, Version: 1}
	writeJSON(w, s.spreadsheetJSON(b, false))
}

// spreadsheetJSON is a spreadsheet as spreadsheets.get returns it.
func (s *Server) spreadsheetJSON(b *book, grid bool) *sheetsapi.Spreadsheet {
	out := &sheetsapi.Spreadsheet{SpreadsheetId: b.id, SpreadsheetUrl: s.url(b.id), Properties: &sheetsapi.SpreadsheetProperties{Title: b.title}}
	for _, sh := range b.sheets {
		gs := &sheetsapi.Sheet{Properties: sh.props, Merges: sh.merges, BasicFilter: sh.filter, ConditionalFormats: sh.conditional}
		for _, pr := range b.protected {
			if pr.Range.SheetId == sh.props.SheetId {
				gs.ProtectedRanges = append(gs.ProtectedRanges, pr)
			}
		}
		if grid {
			gs.Data = []*sheetsapi.GridData{sh.gridData()}
		}
		out.Sheets = append(out.Sheets, gs)
	}
	return out
}

// Default sizes of a row and a column, in pixels.
const (
	rowPixels = 21
	colPixels = 100
)

// gridData is a sheet's cells and dimensions as includeGridData gives
// them: rows and cells that hold nothing are left out at the end of the
// sheet and of a row, and are {} before something that is not.
func (sh *sheet) gridData() *sheetsapi.GridData {
	gd := &sheetsapi.GridData{}
	lastRow := -1
	for r, row := range sh.cells {
		if slices.ContainsFunc(row, func(c *cell) bool { return !c.empty() }) {
			lastRow = r
		}
	}
	for _, row := range sh.cells[:lastRow+1] {
		rd := &sheetsapi.RowData{}
		last := -1
		for i, c := range row {
			if !c.empty() {
				last = i
			}
		}
		for _, c := range row[:last+1] {
			cd := &sheetsapi.CellData{}
			if c != nil {
				cd.UserEnteredValue, cd.UserEnteredFormat, cd.DataValidation, cd.Note = c.value, c.format, c.validation, c.note
				cd.TextFormatRuns = c.runs
			}
			rd.Values = append(rd.Values, cd)
		}
		gd.RowData = append(gd.RowData, rd)
	}
	for i := int64(0); i < sh.rowCount(); i++ {
		gd.RowMetadata = append(gd.RowMetadata, dimension(sh.rows[i], rowPixels))
	}
	for i := int64(0); i < sh.colCount(); i++ {
		gd.ColumnMetadata = append(gd.ColumnMetadata, dimension(sh.cols[i], colPixels))
	}
	return gd
}

// dimension is a row's or column's properties, or the defaults.
func dimension(dp *sheetsapi.DimensionProperties, pixels int64) *sheetsapi.DimensionProperties {
	if dp == nil {
		return &sheetsapi.DimensionProperties{PixelSize: pixels}
	}
	return dp
}

// book finds a spreadsheet the caller may use.
func (s *Server) book(w http.ResponseWriter, id string, who principal) *book {
	b := s.books[id]
	if f := s.files[id]; b == nil || f == nil || !s.canUse(f, who) {
		b = nil
		writeError(w, 404, "Requested entity was not found.")
	}
	return b
}

func (s *Server) getSpreadsheet(w http.ResponseWriter, r *http.Request, id string, who principal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.book(w, id, who)
	if b == nil {
		return
	}
	for _, rg := range r.URL.Query()["ranges"] {
		if _, err := b.resolve(rg); err != nil {
			writeError(w, 400, "%v", err)
			return
		}
	}
	writeJSON(w, s.spreadsheetJSON(b, r.URL.Query().Get("includeGridData") == "true"))
}

// tx undoes a failed batchUpdate: Google applies all of a batch or none.
type tx struct{ undo []func() }

func (t *tx) rollback() {
	for i := len(t.undo) - 1; i >= 0; i-- {
		t.undo[i]()
	}
}

// rollbackOnPanic undoes what a write did before it panicked, so that a
// bug of the fake does not leave half a batch applied; ServeHTTP then
// answers 500.
func (t *tx) rollbackOnPanic() {
	if p := recover(); p != nil {
		t.rollback()
		panic(p)
	}
}

// keep saves a cell's state for rollback.
func (t *tx) keep(c *cell) {
	old := *c
	t.undo = append(t.undo, func() { *c = old })
}

// errNoFields is Google's answer to a field mask that names nothing.
var errNoFields = fmt.Errorf("At least one field must be updated, but none specified.")

// fieldList splits a field mask.
func fieldList(mask string) []string {
	var out []string
	for _, f := range strings.Split(mask, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// unset is the error for a request without an object it needs.
func unset(field string) error { return fmt.Errorf("%s must be set", field) }

// rawRequest is what the typed request loses of one request of a batch:
// which properties were sent, since 0 and absent read the same.
type rawRequest struct {
	AddSheet              *rawProps `json:"addSheet"`
	UpdateSheetProperties *rawProps `json:"updateSheetProperties"`
}

type rawProps struct {
	Properties map[string]json.RawMessage `json:"properties"`
}

// sent reports whether a request's properties had this field.
func (r *rawProps) sent(field string) bool {
	if r == nil {
		return false
	}
	_, ok := r.Properties[field]
	return ok
}

func (s *Server) batchUpdate(w http.ResponseWriter, id string, body []byte, who principal) {
	var req sheetsapi.BatchUpdateSpreadsheetRequest
	if !decode(w, s.opt.Sheets, s.opt.Sheets.RequestSchema("spreadsheets", "batchUpdate"), body, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.book(w, id, who)
	if b == nil {
		return
	}
	if len(req.Requests) == 0 {
		writeError(w, 400, "Invalid requests: at least one request is required.")
		return
	}
	t := &tx{}
	defer t.rollbackOnPanic()
	resp := &sheetsapi.BatchUpdateSpreadsheetResponse{SpreadsheetId: id}
	var raw struct {
		Requests []rawRequest `json:"requests"`
	}
	json.Unmarshal(body, &raw)
	for i, rq := range req.Requests {
		var rr rawRequest
		if i < len(raw.Requests) {
			rr = raw.Requests[i]
		}
		if rq == nil {
			rq = &sheetsapi.Request{}
		}
		reply, err := s.apply(t, b, rq, rr)
		if err != nil {
			t.rollback()
			writeError(w, 400, "Invalid requests[%d]: %v", i, err)
			return
		}
		resp.Replies = append(resp.Replies, reply)
	}
	s.touch(id)
	writeJSON(w, resp)
}

// apply carries out one request of a batch; raw tells which properties
// it sent.
func (s *Server) apply(t *tx, b *book, rq *sheetsapi.Request, raw rawRequest) (*sheetsapi.Response, error) {
	sheetOf := func(id int64) (*sheet, error) {
		sh := b.sheetByID(id)
		if sh == nil {
			return nil, fmt.Errorf("No grid with id: %d", id)
		}
		return sh, nil
	}
	// rangeOf is the sheet and bounds of a grid range a request needs.
	rangeOf := func(g *sheetsapi.GridRange, field string) (sh *sheet, r0, r1, c0, c1 int64, err error) {
		if g == nil {
			return nil, 0, 0, 0, 0, unset(field)
		}
		if sh, err = sheetOf(g.SheetId); err != nil {
			return
		}
		r0, r1, c0, c1, err = sh.bounds(g)
		return
	}
	switch {
	case rq.AddSheet != nil:
		p := rq.AddSheet.Properties
		if p == nil {
			p = &sheetsapi.SheetProperties{}
		}
		if p.SheetId == 0 && !raw.AddSheet.sent("sheetId") {
			p.SheetId = s.freeSheetID(b, nil)
		}
		old := slices.Clone(b.sheets)
		n := len(b.sheets)
		if err := b.addSheet(p, n); err != nil {
			return nil, err
		}
		added := b.sheets[n]
		// Without an index, the sheet goes last.
		if at := int(p.Index); raw.AddSheet.sent("index") && at < n {
			// Inserted where asked; the sheets after it move right.
			b.sheets = slices.Insert(b.sheets[:n], at, added)
		}
		b.reindex()
		t.undo = append(t.undo, func() { b.sheets = old; b.reindex() })
		return &sheetsapi.Response{AddSheet: &sheetsapi.AddSheetResponse{Properties: copyProps(added.props)}}, nil
	case rq.DeleteSheet != nil:
		i := slices.IndexFunc(b.sheets, func(sh *sheet) bool { return sh.props.SheetId == rq.DeleteSheet.SheetId })
		if i < 0 {
			return nil, fmt.Errorf("No grid with id: %d", rq.DeleteSheet.SheetId)
		}
		if len(b.sheets) == 1 {
			return nil, fmt.Errorf("You can't remove all the sheets in a document.")
		}
		old := slices.Clone(b.sheets)
		b.sheets = slices.Delete(b.sheets, i, i+1)
		b.reindex()
		t.undo = append(t.undo, func() { b.sheets = old; b.reindex() })
	case rq.UpdateSheetProperties != nil:
		return nil, updateSheetProperties(t, b, rq.UpdateSheetProperties, raw.UpdateSheetProperties.sent("index"))
	case rq.UpdateCells != nil:
		return nil, updateCells(t, b, rq.UpdateCells)
	case rq.RepeatCell != nil:
		rc := rq.RepeatCell
		sh, r0, r1, c0, c1, err := rangeOf(rc.Range, "range")
		if err != nil {
			return nil, err
		}
		if len(fieldList(rc.Fields)) == 0 {
			return nil, errNoFields
		}
		for r := r0; r < r1; r++ {
			for c := c0; c < c1; c++ {
				if err := setCell(t, sh, r, c, rc.Cell, rc.Fields); err != nil {
					return nil, err
				}
			}
		}
	case rq.SetDataValidation != nil:
		dv := rq.SetDataValidation
		sh, r0, r1, c0, c1, err := rangeOf(dv.Range, "range")
		if err != nil {
			return nil, err
		}
		if err := checkRule(dv.Rule); err != nil {
			return nil, err
		}
		for r := r0; r < r1; r++ {
			for c := c0; c < c1; c++ {
				if dv.Rule == nil && sh.peek(r, c) == nil {
					continue // nothing to clear
				}
				cl := sh.at(r, c)
				t.keep(cl)
				cl.validation = dv.Rule
			}
		}
	case rq.AddProtectedRange != nil:
		if rq.AddProtectedRange.ProtectedRange == nil {
			return nil, unset("protectedRange")
		}
		pr := *rq.AddProtectedRange.ProtectedRange
		if pr.Range == nil {
			if pr.NamedRangeId != "" || pr.TableId != "" {
				return nil, fmt.Errorf("the fake protects ranges only, not named ranges or tables")
			}
			return nil, unset("protectedRange.range")
		}
		if _, _, _, _, _, err := rangeOf(pr.Range, "protectedRange.range"); err != nil {
			return nil, err
		}
		b.nextProt++
		pr.ProtectedRangeId = b.nextProt
		n := len(b.protected)
		b.protected = append(b.protected, &pr)
		t.undo = append(t.undo, func() { b.protected = b.protected[:n] })
		reply := pr
		return &sheetsapi.Response{AddProtectedRange: &sheetsapi.AddProtectedRangeResponse{ProtectedRange: &reply}}, nil
	case rq.MergeCells != nil:
		sh, r0, r1, c0, c1, err := rangeOf(rq.MergeCells.Range, "range")
		if err != nil {
			return nil, err
		}
		for _, m := range sh.merges {
			if m.StartRowIndex < r1 && r0 < m.EndRowIndex && m.StartColumnIndex < c1 && c0 < m.EndColumnIndex {
				return nil, fmt.Errorf("You can't merge cells that are already merged.")
			}
		}
		if f := sh.filter; f != nil && r1-r0 > 1 && overlaps(sh, f.Range, r0, r1, c0, c1) {
			return nil, fmt.Errorf("You can't merge cells vertically in a filtered range.")
		}
		n := len(sh.merges)
		sh.merges = append(sh.merges, &sheetsapi.GridRange{SheetId: sh.props.SheetId, StartRowIndex: r0, EndRowIndex: r1, StartColumnIndex: c0, EndColumnIndex: c1})
		t.undo = append(t.undo, func() { sh.merges = sh.merges[:n] })
	case rq.AddConditionalFormatRule != nil:
		return nil, addConditionalFormatRule(t, b, rq.AddConditionalFormatRule)
	case rq.UpdateDimensionProperties != nil:
		return nil, updateDimensionProperties(t, b, rq.UpdateDimensionProperties)
	case rq.InsertDimension != nil:
		return nil, insertDimension(t, b, rq.InsertDimension)
	case rq.SetBasicFilter != nil:
		f := rq.SetBasicFilter.Filter
		if f == nil {
			return nil, unset("filter")
		}
		if f.Range == nil && f.TableId != "" {
			return nil, fmt.Errorf("the fake filters ranges only, not tables")
		}
		sh, r0, r1, c0, c1, err := rangeOf(f.Range, "filter.range")
		if err != nil {
			return nil, err
		}
		for _, m := range sh.merges {
			if m.EndRowIndex-m.StartRowIndex > 1 && m.StartRowIndex < r1 && r0 < m.EndRowIndex && m.StartColumnIndex < c1 && c0 < m.EndColumnIndex {
				return nil, fmt.Errorf("You can't create a filter over a range containing vertical merges.")
			}
		}
		old := sh.filter
		sh.filter = f
		t.undo = append(t.undo, func() { sh.filter = old })
	case rq.UpdateSpreadsheetProperties != nil:
		u := rq.UpdateSpreadsheetProperties
		p := u.Properties
		if p == nil {
			// An absent message is its defaults, as for any field mask.
			p = &sheetsapi.SpreadsheetProperties{}
		}
		fields := fieldList(u.Fields)
		if len(fields) == 0 {
			return nil, errNoFields
		}
		old := b.title
		t.undo = append(t.undo, func() { b.title = old })
		for _, f := range fields {
			switch f {
			case "title":
				b.title = p.Title
			default:
				return nil, fmt.Errorf("the fake does not update spreadsheet property %q", f)
			}
		}
	default:
		return nil, fmt.Errorf("this request is not supported by the fake")
	}
	return &sheetsapi.Response{}, nil
}

// updateSheetProperties changes the fields of a sheet's properties its
// mask names; an absent message or part reads as its defaults (0,
// false), as in any field mask update. indexGiven says whether the
// request sent an index: without one, the sheet moves last.
func updateSheetProperties(t *tx, b *book, u *sheetsapi.UpdateSheetPropertiesRequest, indexGiven bool) error {
	p := u.Properties
	if p == nil {
		p = &sheetsapi.SheetProperties{}
	}
	gp := p.GridProperties
	if gp == nil {
		gp = &sheetsapi.GridProperties{}
	}
	sh := b.sheetByID(p.SheetId)
	if sh == nil {
		return fmt.Errorf("No grid with id: %d", p.SheetId)
	}
	fields := fieldList(u.Fields)
	if len(fields) == 0 {
		return errNoFields
	}
	// The grid properties are kept by value: the undo must not share
	// the pointer the changes go through.
	old, oldGrid, oldOrder := *sh.props, *sh.props.GridProperties, slices.Clone(b.sheets)
	t.undo = append(t.undo, func() {
		b.sheets = oldOrder
		*sh.props = old
		*sh.props.GridProperties = oldGrid
		b.reindex()
	})
	for _, f := range fields {
		switch f {
		case "title":
			if other := b.sheetByTitle(p.Title); other != nil && other != sh {
				return fmt.Errorf("A sheet with the name %q already exists. Please enter another name.", p.Title)
			}
			sh.props.Title = p.Title
		case "hidden":
			sh.props.Hidden = p.Hidden
		case "index":
			to := int64(len(b.sheets))
			if indexGiven {
				to = p.Index
			}
			if to < 0 {
				return fmt.Errorf("Invalid index %d: it must not be negative.", to)
			}
			b.move(sh, to)
		case "gridProperties.frozenRowCount":
			sh.props.GridProperties.FrozenRowCount = gp.FrozenRowCount
		case "gridProperties.frozenColumnCount":
			sh.props.GridProperties.FrozenColumnCount = gp.FrozenColumnCount
		default:
			return fmt.Errorf("the fake does not update sheet property %q", f)
		}
	}
	return checkFrozen(sh.props.GridProperties)
}

// checkFrozen refuses what Google refuses: freezing every row or column
// of a sheet.
func checkFrozen(g *sheetsapi.GridProperties) error {
	switch {
	case g.FrozenRowCount >= g.RowCount && g.FrozenRowCount > 0:
		return fmt.Errorf("You can't freeze all visible rows on the sheet.")
	case g.FrozenColumnCount >= g.ColumnCount && g.FrozenColumnCount > 0:
		return fmt.Errorf("You can't freeze all visible columns on the sheet.")
	}
	return nil
}

// move puts a sheet at an index counted, as Google counts it, before the
// move: to put the first of three sheets after the second, the index is 2.
// An index equal to the sheet's own or the next is no move.
func (b *book) move(sh *sheet, to int64) {
	from := int64(slices.Index(b.sheets, sh))
	to = min(to, int64(len(b.sheets)))
	if to == from || to == from+1 {
		return
	}
	b.sheets = slices.Delete(b.sheets, int(from), int(from)+1)
	if to > from {
		to-- // one fewer sheet before it now
	}
	b.sheets = slices.Insert(b.sheets, int(to), sh)
	b.reindex()
}

// updateDimensionProperties sizes or hides rows or columns. An absent
// properties message reads as its defaults, as in any field mask update.
func updateDimensionProperties(t *tx, b *book, u *sheetsapi.UpdateDimensionPropertiesRequest) error {
	if u.Range == nil {
		if u.DataSourceSheetRange != nil {
			return fmt.Errorf("the fake has no data source sheets")
		}
		return unset("range")
	}
	props := u.Properties
	if props == nil {
		props = &sheetsapi.DimensionProperties{}
	}
	sh := b.sheetByID(u.Range.SheetId)
	if sh == nil {
		return fmt.Errorf("No grid with id: %d", u.Range.SheetId)
	}
	fields := fieldList(u.Fields)
	if len(fields) == 0 {
		return errNoFields
	}
	dims, limit, pixels := sh.cols, sh.colCount(), int64(colPixels)
	if u.Range.Dimension == "ROWS" {
		dims, limit, pixels = sh.rows, sh.rowCount(), rowPixels
	}
	end := u.Range.EndIndex
	if end == 0 {
		end = limit
	}
	if end > limit {
		return fmt.Errorf("Range exceeds grid limits.")
	}
	for i := u.Range.StartIndex; i < end; i++ {
		old, had := dims[i]
		t.undo = append(t.undo, func() {
			if had {
				dims[i] = old
			} else {
				delete(dims, i)
			}
		})
		// Unchanged fields keep their value, or the default size.
		dp := &sheetsapi.DimensionProperties{PixelSize: pixels}
		if had {
			c := *old
			dp = &c
		}
		for _, f := range fields {
			switch f {
			case "pixelSize":
				dp.PixelSize = props.PixelSize
			case "hiddenByUser":
				dp.HiddenByUser = props.HiddenByUser
			case "*":
				dp.PixelSize, dp.HiddenByUser = props.PixelSize, props.HiddenByUser
			default:
				return fmt.Errorf("the fake does not update dimension property %q", f)
			}
		}
		dims[i] = dp
	}
	return nil
}

// checkRule refuses data validations Google refuses.
func checkRule(r *sheetsapi.DataValidationRule) error {
	if r == nil {
		return nil
	}
	if r.Condition == nil {
		return fmt.Errorf("Invalid DataValidationRule: condition is required")
	}
	values := r.Condition.Values
	first := func() string {
		if values[0] == nil {
			return ""
		}
		return values[0].UserEnteredValue
	}
	switch r.Condition.Type {
	case "ONE_OF_LIST":
		if len(values) == 0 {
			return fmt.Errorf("Invalid ConditionValue: ONE_OF_LIST requires at least one value")
		}
		for _, v := range values {
			// Values are read as typed, and lists take no formulas.
			if strings.HasPrefix(v.UserEnteredValue, "=") || strings.HasPrefix(v.UserEnteredValue, "+") {
				return fmt.Errorf("Invalid ConditionValue.userEnteredValue: formulas are not supported in ONE_OF_LIST values: %q", v.UserEnteredValue)
			}
		}
	case "ONE_OF_RANGE":
		if len(values) != 1 || !strings.HasPrefix(first(), "=") {
			return fmt.Errorf("Invalid ConditionValue: ONE_OF_RANGE requires a single range, starting with =")
		}
		if _, err := parseA1(strings.TrimPrefix(first(), "=")); err != nil {
			return err
		}
	case "CUSTOM_FORMULA":
		if len(values) != 1 || !strings.HasPrefix(first(), "=") {
			return fmt.Errorf("Invalid ConditionValue: CUSTOM_FORMULA requires a single formula, starting with =")
		}
	case "NUMBER_BETWEEN":
		if len(values) != 2 {
			return fmt.Errorf("Invalid ConditionValue: NUMBER_BETWEEN requires exactly two values")
		}
	case "BOOLEAN":
		if len(values) > 2 {
			return fmt.Errorf("Invalid ConditionValue: BOOLEAN takes at most two values")
		}
	}
	return nil
}

// updateCells writes rows of cells, from a start or into a range. Into a
// range, the rows may not go past it, and the cells of the range they do
// not cover have the fields of the mask cleared.
func updateCells(t *tx, b *book, u *sheetsapi.UpdateCellsRequest) error {
	var sh *sheet
	var r0, c0 int64
	switch {
	case u.Start != nil:
		sh = b.sheetByID(u.Start.SheetId)
		r0, c0 = u.Start.RowIndex, u.Start.ColumnIndex
	case u.Range != nil:
		sh = b.sheetByID(u.Range.SheetId)
	default:
		return fmt.Errorf("updateCells needs start or range")
	}
	if sh == nil {
		if u.Start != nil {
			return fmt.Errorf("No grid with id: %d", u.Start.SheetId)
		}
		return fmt.Errorf("No grid with id: %d", u.Range.SheetId)
	}
	if len(fieldList(u.Fields)) == 0 {
		return errNoFields
	}
	values := func(i int) []*sheetsapi.CellData {
		if i >= len(u.Rows) || u.Rows[i] == nil {
			return nil
		}
		return u.Rows[i].Values
	}
	if u.Start == nil {
		var r1, c1 int64
		var err error
		if r0, r1, c0, c1, err = sh.bounds(u.Range); err != nil {
			return err
		}
		// Google's words, with its 0-based indexes.
		if n := int64(len(u.Rows)); n > r1-r0 {
			return fmt.Errorf("Attempting to write row: %d, beyond the last requested row of: %d", r1, r1-1)
		}
		for i := range u.Rows {
			if n := int64(len(values(i))); n > c1-c0 {
				return fmt.Errorf("Attempting to write column: %d, beyond the last requested column of: %d", c1, c1-1)
			}
		}
		// The cells not covered are cleared; only those that exist
		// hold anything to clear.
		for r := r0; r < min(r1, int64(len(sh.cells))); r++ {
			for c := c0; c < min(c1, int64(len(sh.cells[r]))); c++ {
				if c-c0 < int64(len(values(int(r-r0)))) || sh.cells[r][c] == nil {
					continue
				}
				if err := setCell(t, sh, r, c, nil, u.Fields); err != nil {
					return err
				}
			}
		}
	}
	for i := range u.Rows {
		for j, cd := range values(i) {
			if err := setCell(t, sh, r0+int64(i), c0+int64(j), cd, u.Fields); err != nil {
				return err
			}
		}
	}
	return nil
}

// setCell applies the fields of cd to a cell.
func setCell(t *tx, sh *sheet, r, c int64, cd *sheetsapi.CellData, fields string) error {
	if err := sh.inside(r, c); err != nil {
		return err
	}
	if cd == nil {
		cd = &sheetsapi.CellData{}
	}
	if v := cd.UserEnteredValue; v != nil && v.StringValue != nil && textLen(*v.StringValue) > MaxCellChars {
		return fmt.Errorf("Your input contains more than the maximum of %d characters in a single cell.", MaxCellChars)
	}
	cl := sh.at(r, c)
	t.keep(cl)
	runs := false
	for _, f := range fieldList(fields) {
		switch {
		case f == "*":
			cl.value, cl.format, cl.validation, cl.note = cd.UserEnteredValue, cd.UserEnteredFormat, cd.DataValidation, cd.Note
			cl.runs, runs = nil, true
		case f == "userEnteredValue":
			// A new value erases the runs of the old one.
			cl.value, cl.runs = cd.UserEnteredValue, nil
		case f == "textFormatRuns":
			runs = true
		case f == "note":
			cl.note = cd.Note
		case f == "dataValidation":
			cl.validation = cd.DataValidation
		case f == "userEnteredFormat":
			cl.format = cd.UserEnteredFormat
		case strings.HasPrefix(f, "userEnteredFormat."):
			if err := setFormatField(cl, strings.TrimPrefix(f, "userEnteredFormat."), cd.UserEnteredFormat); err != nil {
				return err
			}
		default:
			return fmt.Errorf("the fake does not update cell field %q", f)
		}
	}
	if runs {
		cl.runs = textRuns(cl.value, cd.TextFormatRuns)
	}
	return nil
}

// textRuns is what a cell keeps of the runs of rich text written to it:
// runs apply to a string value only, as Google documents them.
func textRuns(v *sheetsapi.ExtendedValue, runs []*sheetsapi.TextFormatRun) []*sheetsapi.TextFormatRun {
	if v == nil || v.StringValue == nil || len(runs) == 0 {
		return nil
	}
	return runs
}

// setFormatField sets one part of a cell's format, keeping the rest. The
// parts of a format are shared between cells (repeatCell gives every
// cell the request's), so a part is copied before it changes. A field the
// fake does not know is refused, not dropped: a test would otherwise pass
// on a format Google would apply.
func setFormatField(cl *cell, f string, from *sheetsapi.CellFormat) error {
	nf := &sheetsapi.CellFormat{}
	if cl.format != nil {
		c := *cl.format
		nf = &c
	}
	if from == nil {
		from = &sheetsapi.CellFormat{}
	}
	switch f {
	case "backgroundColor":
		nf.BackgroundColor = from.BackgroundColor
	case "backgroundColorStyle":
		nf.BackgroundColorStyle = from.BackgroundColorStyle
	case "borders":
		nf.Borders = from.Borders
	case "horizontalAlignment":
		nf.HorizontalAlignment = from.HorizontalAlignment
	case "verticalAlignment":
		nf.VerticalAlignment = from.VerticalAlignment
	case "wrapStrategy":
		nf.WrapStrategy = from.WrapStrategy
	case "numberFormat":
		nf.NumberFormat = from.NumberFormat
	case "padding":
		nf.Padding = from.Padding
	case "textFormat":
		nf.TextFormat = from.TextFormat
	default:
		var err error
		switch {
		case strings.HasPrefix(f, "textFormat."):
			nf.TextFormat, err = setTextFormatField(nf.TextFormat, strings.TrimPrefix(f, "textFormat."), from.TextFormat)
		case strings.HasPrefix(f, "borders."):
			nf.Borders, err = setBorder(nf.Borders, strings.TrimPrefix(f, "borders."), from.Borders)
		default:
			err = fmt.Errorf("the fake does not update cell field %q", "userEnteredFormat."+f)
		}
		if err != nil {
			return err
		}
	}
	cl.format = nf
	if reflect.ValueOf(*nf).IsZero() {
		cl.format = nil // Google lists no empty format
	}
	return nil
}

// setTextFormatField sets one part of a text format.
func setTextFormatField(tf *sheetsapi.TextFormat, f string, from *sheetsapi.TextFormat) (*sheetsapi.TextFormat, error) {
	nt := &sheetsapi.TextFormat{}
	if tf != nil {
		c := *tf
		nt = &c
	}
	if from == nil {
		from = &sheetsapi.TextFormat{}
	}
	switch f {
	case "bold":
		nt.Bold = from.Bold
	case "italic":
		nt.Italic = from.Italic
	case "strikethrough":
		nt.Strikethrough = from.Strikethrough
	case "underline":
		nt.Underline = from.Underline
	case "fontFamily":
		nt.FontFamily = from.FontFamily
	case "fontSize":
		nt.FontSize = from.FontSize
	case "foregroundColor":
		nt.ForegroundColor = from.ForegroundColor
	case "foregroundColorStyle":
		nt.ForegroundColorStyle = from.ForegroundColorStyle
	default:
		return nil, fmt.Errorf("the fake does not update cell field %q", "userEnteredFormat.textFormat."+f)
	}
	if reflect.ValueOf(*nt).IsZero() {
		return nil, nil
	}
	return nt, nil
}

// setBorder sets one border of a cell.
func setBorder(bs *sheetsapi.Borders, f string, from *sheetsapi.Borders) (*sheetsapi.Borders, error) {
	nb := &sheetsapi.Borders{}
	if bs != nil {
		c := *bs
		nb = &c
	}
	if from == nil {
		from = &sheetsapi.Borders{}
	}
	switch f {
	case "top":
		nb.Top = from.Top
	case "bottom":
		nb.Bottom = from.Bottom
	case "left":
		nb.Left = from.Left
	case "right":
		nb.Right = from.Right
	default:
		return nil, fmt.Errorf("the fake does not update cell field %q", "userEnteredFormat.borders."+f)
	}
	if reflect.ValueOf(*nb).IsZero() {
		return nil, nil
	}
	return nb, nil
}

// insertDimension inserts rows and shifts what follows, as Google does
// when an annotator inserts rows: cells, merges, protected ranges, the
// filter, row sizes, and the references of formulas. The new rows take the format, validation and size of
// the row before them (inheritFromBefore) or after them.
func insertDimension(t *tx, b *book, in *sheetsapi.InsertDimensionRequest) error {
	if in.Range == nil {
		return unset("range")
	}
	sh := b.sheetByID(in.Range.SheetId)
	if sh == nil {
		return fmt.Errorf("No grid with id: %d", in.Range.SheetId)
	}
	n := in.Range.EndIndex - in.Range.StartIndex
	if n <= 0 {
		return fmt.Errorf("Invalid range: the range must not be empty")
	}
	if in.Range.Dimension != "ROWS" {
		return fmt.Errorf("the fake inserts rows only")
	}
	at := in.Range.StartIndex
	switch rows := sh.rowCount(); {
	case at > rows:
		return fmt.Errorf("Range exceeds grid limits.")
	// Google's words: there is no row to inherit from.
	case in.InheritFromBefore && at == 0:
		return fmt.Errorf("range.startIndex must not be 0 if inheritFromBefore is true")
	case !in.InheritFromBefore && at == rows:
		return fmt.Errorf("range.startIndex must be less than the grid size (%d) if inheritFromBefore is false.", rows)
	}
	from := at // the row after, before the insertion
	if in.InheritFromBefore {
		from = at - 1
	}

	oldCells, oldRows, oldSizes := slices.Clone(sh.cells), sh.props.GridProperties.RowCount, sh.rows
	oldMerges, oldProtected, oldFilter := slices.Clone(sh.merges), slices.Clone(b.protected), sh.filter
	t.undo = append(t.undo, func() {
		sh.cells, sh.props.GridProperties.RowCount, sh.rows = oldCells, oldRows, oldSizes
		sh.merges, b.protected, sh.filter = oldMerges, oldProtected, oldFilter
	})

	for int64(len(sh.cells)) < at {
		sh.cells = append(sh.cells, nil)
	}
	blank := make([][]*cell, n)
	if from < int64(len(sh.cells)) {
		var inherited []*cell
		for _, c := range sh.cells[from] {
			if c == nil || c.format == nil && c.validation == nil {
				inherited = append(inherited, nil)
				continue
			}
			inherited = append(inherited, &cell{format: c.format, validation: c.validation})
		}
		for i := range blank {
			for _, c := range inherited {
				if c != nil {
					cc := *c
					c = &cc
				}
				blank[i] = append(blank[i], c)
			}
		}
	}
	sh.cells = slices.Insert(sh.cells, int(at), blank...)
	sh.props.GridProperties.RowCount += n

	// Row sizes move down with their rows; the new rows take the size of
	// the row they inherit from.
	sizes := map[int64]*sheetsapi.DimensionProperties{}
	for i, dp := range sh.rows {
		if i >= at {
			i += n
		}
		sizes[i] = dp
	}
	if dp := sh.rows[from]; dp != nil {
		for i := at; i < at+n; i++ {
			c := *dp
			sizes[i] = &c
		}
	}
	sh.rows = sizes

	// Ranges are replaced, not changed in place: the undo keeps the old.
	id := sh.props.SheetId
	for i, m := range sh.merges {
		sh.merges[i] = shiftRows(m, at, n)
	}
	for i, pr := range b.protected {
		if pr.Range.SheetId != id {
			continue
		}
		c := *pr
		c.Range = shiftRows(pr.Range, at, n)
		c.UnprotectedRanges = nil
		for _, u := range pr.UnprotectedRanges {
			if u != nil {
				u = shiftRows(u, at, n)
			}
			c.UnprotectedRanges = append(c.UnprotectedRanges, u)
		}
		b.protected[i] = &c
	}
	if sh.filter != nil && sh.filter.Range != nil {
		c := *sh.filter
		c.Range = shiftRows(sh.filter.Range, at, n)
		sh.filter = &c
	}
	shiftConditional(t, sh, at, n)
	shiftFormulas(t, b, sh, at, n)
	return nil
}

// shiftRows is a range after n rows were inserted at row at: below, it
// moves down; across, it grows. An unset end is the grid's edge and stays
// unset; a range unbounded both ways (0 to unset, a whole sheet or whole
// columns) does not move.
func shiftRows(g *sheetsapi.GridRange, at, n int64) *sheetsapi.GridRange {
	c := *g
	open := c.EndRowIndex == 0
	switch {
	case c.StartRowIndex >= at && !(open && c.StartRowIndex == 0):
		c.StartRowIndex += n
		if !open {
			c.EndRowIndex += n
		}
	case !open && c.EndRowIndex > at:
		c.EndRowIndex += n
	}
	return &c
}

// overlaps reports whether a grid range (its open ends the sheet's edges)
// meets a box.
func overlaps(sh *sheet, g *sheetsapi.GridRange, r0, r1, c0, c1 int64) bool {
	if g == nil {
		return false
	}
	gr1, gc1 := g.EndRowIndex, g.EndColumnIndex
	if gr1 == 0 {
		gr1 = sh.rowCount()
	}
	if gc1 == 0 {
		gc1 = sh.colCount()
	}
	return g.StartRowIndex < r1 && r0 < gr1 && g.StartColumnIndex < c1 && c0 < gc1
}
