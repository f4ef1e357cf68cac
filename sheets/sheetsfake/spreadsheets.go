package sheetsfake

import (
	"encoding/json"
	"fmt"
	"net/http"
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

// newBook makes a spreadsheet with the given sheets, or Sheet1.
func (s *Server) newBook(id, title string, props []*sheetsapi.SheetProperties) (*book, error) {
	b := &book{id: id, title: title}
	if len(props) == 0 {
		props = []*sheetsapi.SheetProperties{{Title: "Sheet1"}}
	}
	for i, p := range props {
		if err := b.addSheet(p, i); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// reindex numbers the sheets in tab order.
func (b *book) reindex() {
	for i, sh := range b.sheets {
		sh.props.Index = int64(i)
	}
}

// addSheet adds a sheet last, filling Google's defaults.
func (b *book) addSheet(p *sheetsapi.SheetProperties, index int) error {
	c := *p
	if c.Title == "" {
		c.Title = "Sheet" + strconv.Itoa(len(b.sheets)+1)
	}
	if b.sheetByTitle(c.Title) != nil {
		return fmt.Errorf("A sheet with the name %q already exists. Please enter another name.", c.Title)
	}
	for _, s := range b.sheets {
		if s.props.SheetId == c.SheetId {
			return fmt.Errorf("Invalid requests[0].addSheet: Sheet with id %d already exists.", c.SheetId)
		}
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
	if gp.RowCount*gp.ColumnCount > 10_000_000 {
		return fmt.Errorf("This action would increase the number of cells in the workbook above the limit of 10000000 cells.")
	}
	c.GridProperties = gp
	c.SheetType = "GRID"
	c.Index = int64(index)
	b.sheets = append(b.sheets, &sheet{props: &c, cols: map[int64]*sheetsapi.DimensionProperties{}, rows: map[int64]*sheetsapi.DimensionProperties{}})
	return nil
}

func (s *Server) createSpreadsheet(w http.ResponseWriter, body []byte, who principal) {
	var req sheetsapi.Spreadsheet
	if !decode(w, s.opt.Sheets, s.opt.Sheets.RequestSchema("spreadsheets", "create"), body, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if who.serviceAccount {
		writeError(w, 403, "%s", errNoQuota)
		return
	}
	var props []*sheetsapi.SheetProperties
	for _, sh := range req.Sheets {
		if sh.Properties != nil {
			props = append(props, sh.Properties)
		}
	}
	title := "Untitled spreadsheet"
	if req.Properties != nil && req.Properties.Title != "" {
		title = req.Properties.Title
	}
	id := s.newID()
	b, err := s.newBook(id, title, props)
	if err != nil {
		writeError(w, 400, "%v", err)
		return
	}
	s.books[id] = b
	s.files[id] = &file{ID: id, Name: title, MimeType: mimeSheet, Parents: []string{"root"}, Owner: who.email}
	writeJSON(w, s.spreadsheetJSON(b, false))
}

// spreadsheetJSON is a spreadsheet as spreadsheets.get returns it.
func (s *Server) spreadsheetJSON(b *book, grid bool) *sheetsapi.Spreadsheet {
	out := &sheetsapi.Spreadsheet{SpreadsheetId: b.id, SpreadsheetUrl: s.url(b.id), Properties: &sheetsapi.SpreadsheetProperties{Title: b.title}}
	for _, sh := range b.sheets {
		gs := &sheetsapi.Sheet{Properties: sh.props, Merges: sh.merges, BasicFilter: sh.filter}
		for _, pr := range b.protected {
			if pr.Range.SheetId == sh.props.SheetId {
				gs.ProtectedRanges = append(gs.ProtectedRanges, pr)
			}
		}
		if grid {
			gd := &sheetsapi.GridData{}
			for _, row := range sh.cells {
				rd := &sheetsapi.RowData{}
				for _, c := range row {
					cd := &sheetsapi.CellData{}
					if c != nil {
						cd.UserEnteredValue, cd.UserEnteredFormat, cd.DataValidation, cd.Note = c.value, c.format, c.validation, c.note
					}
					rd.Values = append(rd.Values, cd)
				}
				gd.RowData = append(gd.RowData, rd)
			}
			for i := int64(0); i < sh.colCount(); i++ {
				dp := sh.cols[i]
				if dp == nil {
					dp = &sheetsapi.DimensionProperties{PixelSize: 100}
				}
				gd.ColumnMetadata = append(gd.ColumnMetadata, dp)
			}
			gs.Data = []*sheetsapi.GridData{gd}
		}
		out.Sheets = append(out.Sheets, gs)
	}
	return out
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
		if _, err := parseA1(rg); err != nil {
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

// keep saves a cell's state for rollback.
func (t *tx) keep(c *cell) {
	old := *c
	t.undo = append(t.undo, func() { *c = old })
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
	resp := &sheetsapi.BatchUpdateSpreadsheetResponse{SpreadsheetId: id}
	// Whether each addSheet gave an index, which the typed request cannot
	// tell from index 0.
	var raw struct {
		Requests []struct {
			AddSheet *struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"addSheet"`
		} `json:"requests"`
	}
	json.Unmarshal(body, &raw)
	for i, rq := range req.Requests {
		indexGiven := false
		if i < len(raw.Requests) && raw.Requests[i].AddSheet != nil {
			_, indexGiven = raw.Requests[i].AddSheet.Properties["index"]
		}
		reply, err := s.apply(t, b, rq, indexGiven)
		if err != nil {
			t.rollback()
			writeError(w, 400, "Invalid requests[%d]: %v", i, err)
			return
		}
		resp.Replies = append(resp.Replies, reply)
	}
	writeJSON(w, resp)
}

// apply carries out one request of a batch.
// indexGiven says whether an addSheet request set its index: absent, the
// sheet goes last.
func (s *Server) apply(t *tx, b *book, rq *sheetsapi.Request, indexGiven bool) (*sheetsapi.Response, error) {
	sheetOf := func(id int64) (*sheet, error) {
		sh := b.sheetByID(id)
		if sh == nil {
			return nil, fmt.Errorf("No grid with id: %d", id)
		}
		return sh, nil
	}
	switch {
	case rq.AddSheet != nil:
		p := rq.AddSheet.Properties
		if p == nil {
			p = &sheetsapi.SheetProperties{}
		}
		if p.SheetId == 0 {
			s.seq++
			p.SheetId = int64(s.seq)
		}
		old := slices.Clone(b.sheets)
		n := len(b.sheets)
		if err := b.addSheet(p, n); err != nil {
			return nil, err
		}
		added := b.sheets[n]
		if at := int(p.Index); indexGiven && at < n {
			// Inserted where asked; the sheets after it move right.
			b.sheets = slices.Insert(b.sheets[:n], at, added)
		}
		b.reindex()
		t.undo = append(t.undo, func() { b.sheets = old; b.reindex() })
		return &sheetsapi.Response{AddSheet: &sheetsapi.AddSheetResponse{Properties: added.props}}, nil
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
		p := rq.UpdateSheetProperties.Properties
		sh, err := sheetOf(p.SheetId)
		if err != nil {
			return nil, err
		}
		old := *sh.props
		t.undo = append(t.undo, func() { *sh.props = old })
		for _, f := range strings.Split(rq.UpdateSheetProperties.Fields, ",") {
			switch strings.TrimSpace(f) {
			case "title":
				sh.props.Title = p.Title
			case "hidden":
				sh.props.Hidden = p.Hidden
			case "index":
				sh.props.Index = p.Index
			case "gridProperties.frozenRowCount":
				sh.props.GridProperties.FrozenRowCount = p.GridProperties.FrozenRowCount
			case "gridProperties.frozenColumnCount":
				sh.props.GridProperties.FrozenColumnCount = p.GridProperties.FrozenColumnCount
			default:
				return nil, fmt.Errorf("the fake does not update sheet property %q", f)
			}
		}
	case rq.UpdateCells != nil:
		return nil, s.updateCells(t, b, rq.UpdateCells)
	case rq.RepeatCell != nil:
		rc := rq.RepeatCell
		sh, err := sheetOf(rc.Range.SheetId)
		if err != nil {
			return nil, err
		}
		r0, r1, c0, c1, err := sh.bounds(rc.Range)
		if err != nil {
			return nil, err
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
		sh, err := sheetOf(dv.Range.SheetId)
		if err != nil {
			return nil, err
		}
		if err := checkRule(dv.Rule); err != nil {
			return nil, err
		}
		r0, r1, c0, c1, err := sh.bounds(dv.Range)
		if err != nil {
			return nil, err
		}
		for r := r0; r < r1; r++ {
			for c := c0; c < c1; c++ {
				cl := sh.at(r, c)
				t.keep(cl)
				cl.validation = dv.Rule
			}
		}
	case rq.AddProtectedRange != nil:
		pr := *rq.AddProtectedRange.ProtectedRange
		if _, err := sheetOf(pr.Range.SheetId); err != nil {
			return nil, err
		}
		b.nextProt++
		pr.ProtectedRangeId = b.nextProt
		n := len(b.protected)
		b.protected = append(b.protected, &pr)
		t.undo = append(t.undo, func() { b.protected = b.protected[:n] })
		return &sheetsapi.Response{AddProtectedRange: &sheetsapi.AddProtectedRangeResponse{ProtectedRange: &pr}}, nil
	case rq.MergeCells != nil:
		sh, err := sheetOf(rq.MergeCells.Range.SheetId)
		if err != nil {
			return nil, err
		}
		r0, r1, c0, c1, err := sh.bounds(rq.MergeCells.Range)
		if err != nil {
			return nil, err
		}
		for _, m := range sh.merges {
			if m.StartRowIndex < r1 && r0 < m.EndRowIndex && m.StartColumnIndex < c1 && c0 < m.EndColumnIndex {
				return nil, fmt.Errorf("You can't merge cells that are already merged.")
			}
		}
		n := len(sh.merges)
		sh.merges = append(sh.merges, &sheetsapi.GridRange{SheetId: sh.props.SheetId, StartRowIndex: r0, EndRowIndex: r1, StartColumnIndex: c0, EndColumnIndex: c1})
		t.undo = append(t.undo, func() { sh.merges = sh.merges[:n] })
	case rq.UpdateDimensionProperties != nil:
		u := rq.UpdateDimensionProperties
		if u.Range == nil {
			return nil, fmt.Errorf("the fake needs range in updateDimensionProperties")
		}
		sh, err := sheetOf(u.Range.SheetId)
		if err != nil {
			return nil, err
		}
		dims, limit := sh.cols, sh.colCount()
		if u.Range.Dimension == "ROWS" {
			dims, limit = sh.rows, sh.rowCount()
		}
		end := u.Range.EndIndex
		if end == 0 {
			end = limit
		}
		if end > limit {
			return nil, fmt.Errorf("Range exceeds grid limits.")
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
			dp := &sheetsapi.DimensionProperties{}
			if had {
				c := *old
				dp = &c
			}
			for _, f := range strings.Split(u.Fields, ",") {
				switch strings.TrimSpace(f) {
				case "pixelSize":
					dp.PixelSize = u.Properties.PixelSize
				case "hiddenByUser":
					dp.HiddenByUser = u.Properties.HiddenByUser
				default:
					return nil, fmt.Errorf("the fake does not update dimension property %q", f)
				}
			}
			dims[i] = dp
		}
	case rq.InsertDimension != nil:
		return nil, insertDimension(t, b, rq.InsertDimension)
	case rq.SetBasicFilter != nil:
		sh, err := sheetOf(rq.SetBasicFilter.Filter.Range.SheetId)
		if err != nil {
			return nil, err
		}
		if _, _, _, _, err := sh.bounds(rq.SetBasicFilter.Filter.Range); err != nil {
			return nil, err
		}
		old := sh.filter
		sh.filter = rq.SetBasicFilter.Filter
		t.undo = append(t.undo, func() { sh.filter = old })
	case rq.UpdateSpreadsheetProperties != nil:
		old := b.title
		if strings.Contains(rq.UpdateSpreadsheetProperties.Fields, "title") {
			b.title = rq.UpdateSpreadsheetProperties.Properties.Title
		}
		t.undo = append(t.undo, func() { b.title = old })
	default:
		return nil, fmt.Errorf("this request is not supported by the fake")
	}
	return &sheetsapi.Response{}, nil
}

// checkRule refuses data validations Google refuses.
func checkRule(r *sheetsapi.DataValidationRule) error {
	if r == nil {
		return nil
	}
	if r.Condition == nil {
		return fmt.Errorf("Invalid DataValidationRule: condition is required")
	}
	switch r.Condition.Type {
	case "ONE_OF_LIST":
		if len(r.Condition.Values) == 0 {
			return fmt.Errorf("Invalid ConditionValue: ONE_OF_LIST requires at least one value")
		}
	case "ONE_OF_RANGE":
		if len(r.Condition.Values) != 1 || !strings.HasPrefix(r.Condition.Values[0].UserEnteredValue, "=") {
			return fmt.Errorf("Invalid ConditionValue: ONE_OF_RANGE requires a single range, starting with =")
		}
		if _, err := parseA1(strings.TrimPrefix(r.Condition.Values[0].UserEnteredValue, "=")); err != nil {
			return err
		}
	case "CUSTOM_FORMULA":
		if len(r.Condition.Values) != 1 || !strings.HasPrefix(r.Condition.Values[0].UserEnteredValue, "=") {
			return fmt.Errorf("Invalid ConditionValue: CUSTOM_FORMULA requires a single formula, starting with =")
		}
	case "NUMBER_BETWEEN":
		if len(r.Condition.Values) != 2 {
			return fmt.Errorf("Invalid ConditionValue: NUMBER_BETWEEN requires exactly two values")
		}
	case "BOOLEAN":
		if len(r.Condition.Values) > 2 {
			return fmt.Errorf("Invalid ConditionValue: BOOLEAN takes at most two values")
		}
	}
	return nil
}

// updateCells writes rows of cells, from a start or into a range.
func (s *Server) updateCells(t *tx, b *book, u *sheetsapi.UpdateCellsRequest) error {
	var sh *sheet
	var r0, c0 int64
	switch {
	case u.Start != nil:
		sh = b.sheetByID(u.Start.SheetId)
		r0, c0 = u.Start.RowIndex, u.Start.ColumnIndex
	case u.Range != nil:
		sh = b.sheetByID(u.Range.SheetId)
		r0, c0 = u.Range.StartRowIndex, u.Range.StartColumnIndex
	default:
		return fmt.Errorf("updateCells needs start or range")
	}
	if sh == nil {
		return fmt.Errorf("No grid with id")
	}
	if u.Fields == "" {
		return fmt.Errorf("At least one field must be updated, but none specified.")
	}
	for i, rd := range u.Rows {
		for j, cd := range rd.Values {
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
	for _, f := range strings.Split(fields, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "*":
			cl.value, cl.format, cl.validation, cl.note = cd.UserEnteredValue, cd.UserEnteredFormat, cd.DataValidation, cd.Note
		case f == "userEnteredValue":
			cl.value = cd.UserEnteredValue
		case f == "note":
			cl.note = cd.Note
		case f == "dataValidation":
			cl.validation = cd.DataValidation
		case f == "userEnteredFormat":
			cl.format = cd.UserEnteredFormat
		case strings.HasPrefix(f, "userEnteredFormat."):
			setFormatField(cl, strings.TrimPrefix(f, "userEnteredFormat."), cd.UserEnteredFormat)
		default:
			return fmt.Errorf("the fake does not update cell field %q", f)
		}
	}
	return nil
}

// setFormatField sets one part of a cell's format, keeping the rest.
func setFormatField(cl *cell, f string, from *sheetsapi.CellFormat) {
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
	case "textFormat":
		nf.TextFormat = from.TextFormat
	case "wrapStrategy":
		nf.WrapStrategy = from.WrapStrategy
	case "numberFormat":
		nf.NumberFormat = from.NumberFormat
	case "verticalAlignment":
		nf.VerticalAlignment = from.VerticalAlignment
	}
	cl.format = nf
}

// insertDimension inserts rows (or columns) and shifts what follows, as
// Google does when an annotator inserts rows.
func insertDimension(t *tx, b *book, in *sheetsapi.InsertDimensionRequest) error {
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
	if at > sh.rowCount() {
		return fmt.Errorf("Range exceeds grid limits.")
	}
	oldCells := slices.Clone(sh.cells)
	oldRows := sh.props.GridProperties.RowCount
	oldMerges := make([]sheetsapi.GridRange, len(sh.merges))
	for i, m := range sh.merges {
		oldMerges[i] = *m
	}
	t.undo = append(t.undo, func() {
		sh.cells, sh.props.GridProperties.RowCount = oldCells, oldRows
		for i, m := range sh.merges {
			*m = oldMerges[i]
		}
	})
	for int64(len(sh.cells)) < at {
		sh.cells = append(sh.cells, nil)
	}
	blank := make([][]*cell, n)
	if in.InheritFromBefore && at > 0 && at-1 < int64(len(sh.cells)) {
		// New rows take the format and validation of the row above.
		for i := range blank {
			for _, c := range sh.cells[at-1] {
				if c == nil {
					blank[i] = append(blank[i], nil)
					continue
				}
				blank[i] = append(blank[i], &cell{format: c.format, validation: c.validation})
			}
		}
	}
	sh.cells = slices.Insert(sh.cells, int(at), blank...)
	sh.props.GridProperties.RowCount += n
	for _, m := range sh.merges {
		switch {
		case m.StartRowIndex >= at:
			m.StartRowIndex += n
			m.EndRowIndex += n
		case m.EndRowIndex > at:
			m.EndRowIndex += n
		}
	}
	return nil
}
