package sheets

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	drive "google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/backend"
)

// Protection modes of the context columns.
const (
	ProtectWarning = "warning" // editing context asks "are you sure?"
	ProtectEditors = "editors" // only the owner can edit context
)

// WriteOptions tune Write.
type WriteOptions struct {
	// Existing is a spreadsheet to write into (one a failed run created,
	// or --force): its sheets are replaced. "" creates a new one.
	// ExistingURL is its link, for messages.
	Existing, ExistingURL string
	// Folder is a Drive folder (shared drives too) to put the spreadsheet
	// in. Service accounts need one: they cannot own files.
	Folder string
	// Share gives these addresses writer access, with Message in the
	// notification mail.
	Share   []string
	Message string
	// Protect is ProtectWarning (default) or ProtectEditors.
	Protect string
	// Tag names what is written, the same in every run that writes it
	// (a study's batch). A new spreadsheet is tagged with it, and when
	// there is no Existing one, a spreadsheet already tagged with it (a
	// run stopped while its creation's answer was lost made it) is
	// written into instead of making another. "" tags a new spreadsheet
	// with a random value, found again only within this Write.
	Tag string
	// Created is called as soon as a new spreadsheet exists, before
	// anything else can fail, so that the caller can record it and a
	// second run reuses it instead of making another; for an existing
	// spreadsheet, once its old sheets are gone.
	Created func(id, url string) error
}

// Written says what Write made.
type Written struct {
	ID, URL string
	// Calls counts the API calls made (a call retried counts once), and
	// Bytes what they sent.
	Calls, Bytes int
}

// ErrServiceAccountFolder: a service account cannot own a new spreadsheet.
var ErrServiceAccountFolder = errors.New("a service account cannot own new spreadsheets")

// IncompleteError says a spreadsheet was created but not finished.
type IncompleteError struct {
	ID, URL string
	Err     error
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("spreadsheet %s is not finished (%v); run the same command again to finish it: the spreadsheet will be reused", e.URL, e.Err)
}

func (e *IncompleteError) Unwrap() error { return e.Err }

const spreadsheetMime = "application/vnd.google-apps.spreadsheet"

// Write renders a plan as a Google spreadsheet: one call to create it (in
// its folder), one to make its sheets with their grids sized, one for the
// layout (widths, formats, validations, protection, merges, filter), the
// cells in calls of at most ChunkBytes each — values always typed (a
// string is never a formula) — and one call per address shared with.
func (c *Client) Write(ctx context.Context, p *backend.Plan, opt WriteOptions) (*Written, error) {
	startCalls, startBytes := c.requests.n()
	if opt.Existing == "" && opt.Tag != "" {
		f, err := c.findRun(ctx, tagRun(opt.Tag))
		if err != nil {
			return nil, fmt.Errorf("look for the spreadsheet a previous run made: %w", err)
		}
		if f != nil {
			opt.Existing, opt.ExistingURL = f.Id, f.WebViewLink
		}
	}
	w := &Written{ID: opt.Existing}
	if opt.Protect == "" {
		opt.Protect = ProtectWarning
	}
	ids, err := c.prepare(ctx, p, opt, w)
	if err != nil {
		if w.ID != "" {
			return w, &IncompleteError{ID: w.ID, URL: w.URL, Err: err}
		}
		return nil, err
	}
	r := &renderer{c: c, p: p, ids: ids, opt: opt, limit: c.ChunkBytes}
	if err := r.render(ctx, w.ID); err != nil {
		return w, &IncompleteError{ID: w.ID, URL: w.URL, Err: err}
	}
	for _, email := range opt.Share {
		perm := &drive.Permission{Type: "user", Role: "writer", EmailAddress: email}
		call := c.Drive.Permissions.Create(w.ID, perm).SupportsAllDrives(true).SendNotificationEmail(true).Context(ctx)
		if opt.Message != "" {
			call = call.EmailMessage(opt.Message)
		}
		if _, err := call.Do(); err != nil {
			return w, &IncompleteError{ID: w.ID, URL: w.URL, Err: fmt.Errorf("share with %s: %w", email, err)}
		}
	}
	calls, bytes := c.requests.n()
	w.Calls, w.Bytes = calls-startCalls, bytes-startBytes
	return w, nil
}

// prepare makes the spreadsheet exist and hold the plan's sheets, sized
// up front and empty, and returns the sheet ids it chose. A new
// spreadsheet is made with Drive, in its folder at once; an existing one
// has its sheets replaced in one batch, which Google applies whole or not
// at all.
func (c *Client) prepare(ctx context.Context, p *backend.Plan, opt WriteOptions, w *Written) ([]int64, error) {
	id := opt.Existing
	var old []int64
	if id == "" {
		if c.ServiceAccount && opt.Folder == "" {
			return nil, ErrServiceAccountFolder
		}
		f, err := c.createFile(ctx, p.Title, opt.Folder, opt.Tag)
		if err != nil {
			return nil, err
		}
		id, w.ID, w.URL = f.Id, f.Id, f.WebViewLink
		old = []int64{0} // the sheet Drive made
	} else {
		w.URL = opt.ExistingURL
		ss, err := c.Sheets.Spreadsheets.Get(id).Fields("spreadsheetId,spreadsheetUrl,sheets.properties.sheetId").Context(ctx).Do()
		if err != nil {
			return nil, fmt.Errorf("open spreadsheet %s: %w", id, err)
		}
		w.URL = ss.SpreadsheetUrl
		for _, s := range ss.Sheets {
			old = append(old, s.Properties.SheetId)
		}
		if opt.Folder != "" {
			if err := c.moveTo(ctx, id, opt.Folder); err != nil {
				return nil, err
			}
		}
	}
	if opt.Created != nil && opt.Existing == "" {
		if err := opt.Created(w.ID, w.URL); err != nil {
			return nil, err
		}
	}
	// The old sheets step aside (their names are taken), the new ones come
	// with their grids sized, the old ones go.
	top := slices.Max(old)
	ids := make([]int64, len(p.Sheets))
	var reqs []*sheetsapi.Request
	for _, sid := range old {
		reqs = append(reqs, &sheetsapi.Request{UpdateSheetProperties: &sheetsapi.UpdateSheetPropertiesRequest{
			Properties: &sheetsapi.SheetProperties{SheetId: sid, Title: fmt.Sprintf("annosheet-old-%d", sid), ForceSendFields: []string{"SheetId"}},
			Fields:     "title",
		}})
	}
	for i, sh := range p.Sheets {
		ids[i] = top + 1 + int64(i)
		reqs = append(reqs, &sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: sheetProps(sh, ids[i], i)}})
	}
	for _, sid := range old {
		reqs = append(reqs, &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: sid, ForceSendFields: []string{"SheetId"}}})
	}
	reqs = append(reqs, &sheetsapi.Request{UpdateSpreadsheetProperties: &sheetsapi.UpdateSpreadsheetPropertiesRequest{
		Properties: &sheetsapi.SpreadsheetProperties{Title: p.Title}, Fields: "title",
	}})
	if err := c.batchOnce(ctx, id, reqs); err != nil {
		return nil, fmt.Errorf("make the sheets: %w", err)
	}
	if opt.Created != nil && opt.Existing != "" {
		// Only now is the old content gone.
		if err := opt.Created(w.ID, w.URL); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// runProperty tags the spreadsheets a Write makes, so that one whose
// creation was answered but the answer lost is found, not made twice.
const runProperty = "annosheetRun"

// createFile makes an empty spreadsheet with Drive, in folder when given,
// tagged for tag (at random when ""). Creating is never blindly repeated:
// when the answer is lost, Drive is asked whether the file was made.
func (c *Client) createFile(ctx context.Context, title, folder, tag string) (*drive.File, error) {
	run := randomRun()
	if tag != "" {
		run = tagRun(tag)
	}
	f := &drive.File{Name: title, MimeType: spreadsheetMime, AppProperties: map[string]string{runProperty: run}}
	if folder != "" {
		f.Parents = []string{folder}
	}
	where := ""
	if folder != "" {
		where = " in folder " + folder
	}
	var err error
	for try := 0; try < 3; try++ {
		var got *drive.File
		got, err = c.Drive.Files.Create(f).SupportsAllDrives(true).Fields("id,webViewLink").Context(noReplay(ctx)).Do()
		if err == nil {
			return got, nil
		}
		if ctx.Err() != nil || !lost(err) {
			break
		}
		// Was it made after all?
		if f, lerr := c.findRun(ctx, run); lerr == nil && f != nil {
			return f, nil
		}
	}
	return nil, fmt.Errorf("create the spreadsheet%s: %w", where, err)
}

// findRun looks in Drive, shared drives too, for a spreadsheet tagged
// with run and not in the trash; nil when there is none.
func (c *Client) findRun(ctx context.Context, run string) (*drive.File, error) {
	list, err := c.Drive.Files.List().
		Q(fmt.Sprintf("appProperties has { key='%s' and value='%s' } and trashed = false", runProperty, run)).
		Corpora("allDrives").IncludeItemsFromAllDrives(true).SupportsAllDrives(true).
		Fields("files(id,webViewLink)").Context(ctx).Do()
	if err != nil || len(list.Files) == 0 {
		return nil, err
	}
	return list.Files[0], nil
}

// tagRun is the runProperty value of a Write's tag: a digest, so that any
// tag fits in a property (at most 124 bytes with its key) and needs no
// quoting in a query.
func tagRun(tag string) string {
	sum := sha256.Sum256([]byte("annosheet tag\x00" + tag))
	return hex.EncodeToString(sum[:12])
}

// lost reports an error after which a request may or may not have been
// carried out: a 5xx, a timeout, a connection cut.
func lost(err error) bool {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code >= 500
	}
	return transient(err)
}

func randomRun() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// moveTo puts a file in folder, and nowhere else.
func (c *Client) moveTo(ctx context.Context, id, folder string) error {
	f, err := c.Drive.Files.Get(id).Fields("parents").SupportsAllDrives(true).Context(ctx).Do()
	if err != nil {
		return fmt.Errorf("move to folder %s: %w", folder, err)
	}
	if len(f.Parents) == 1 && f.Parents[0] == folder {
		return nil
	}
	_, err = c.Drive.Files.Update(id, &drive.File{}).AddParents(folder).
		RemoveParents(strings.Join(f.Parents, ",")).SupportsAllDrives(true).Context(ctx).Do()
	if err != nil {
		return fmt.Errorf("move to folder %s: %w", folder, err)
	}
	return nil
}

// sheetProps sizes a sheet's grid: its rows and columns, and one more than
// those frozen, as Google will not freeze every row or column.
func sheetProps(sh *backend.Sheet, id int64, index int) *sheetsapi.SheetProperties {
	return &sheetsapi.SheetProperties{
		SheetId: id, Title: sh.Name, Index: int64(index), Hidden: sh.Visibility != backend.Visible,
		GridProperties: &sheetsapi.GridProperties{
			RowCount:          int64(max(1, sh.RowCount, sh.FreezeRows+1)),
			ColumnCount:       int64(max(sh.ColCount(), sh.FreezeCols+1)),
			FrozenRowCount:    int64(sh.FreezeRows),
			FrozenColumnCount: int64(sh.FreezeCols),
		},
		ForceSendFields: []string{"Index"},
	}
}

// batchOnce sends requests in one batchUpdate, whatever their size: what
// must happen together.
func (c *Client) batchOnce(ctx context.Context, id string, reqs []*sheetsapi.Request) error {
	_, err := c.Sheets.Spreadsheets.BatchUpdate(id, &sheetsapi.BatchUpdateSpreadsheetRequest{Requests: reqs}).Context(ctx).Do()
	return err
}

// chunker gathers requests into batchUpdate calls of at most limit bytes
// of JSON.
type chunker struct {
	c       *Client
	ctx     context.Context
	id      string
	limit   int
	pending []*sheetsapi.Request
	size    int
}

// add queues a request of about n bytes, sending what is queued first if
// the request would not fit.
func (k *chunker) add(req *sheetsapi.Request, n int) error {
	if k.size+n > k.limit && len(k.pending) > 0 {
		if err := k.flush(); err != nil {
			return err
		}
	}
	k.pending = append(k.pending, req)
	k.size += n
	return nil
}

func (k *chunker) flush() error {
	if len(k.pending) == 0 {
		return nil
	}
	err := k.c.batchOnce(k.ctx, k.id, k.pending)
	k.pending, k.size = nil, 0
	return err
}

// jsonSize is the exact size of a small request.
func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// renderer turns a plan into requests.
type renderer struct {
	c     *Client
	p     *backend.Plan
	ids   []int64
	opt   WriteOptions
	limit int
}

func (r *renderer) render(ctx context.Context, id string) error {
	layout := &chunker{c: r.c, ctx: ctx, id: id, limit: r.limit}
	for i, sh := range r.p.Sheets {
		for _, req := range r.layout(sh, r.ids[i]) {
			if err := layout.add(req, jsonSize(req)); err != nil {
				return fmt.Errorf("lay out the sheets: %w", err)
			}
		}
	}
	if err := layout.flush(); err != nil {
		return fmt.Errorf("lay out the sheets: %w", err)
	}
	// The cells, streamed into requests of bounded size.
	cells := &chunker{c: r.c, ctx: ctx, id: id, limit: r.limit}
	for i, sh := range r.p.Sheets {
		if err := r.cells(sh, r.ids[i], cells.add); err != nil {
			return fmt.Errorf("write the cells of %s: %w", sh.Name, err)
		}
	}
	if err := cells.flush(); err != nil {
		return fmt.Errorf("write the cells: %w", err)
	}
	return nil
}

// layout is everything about a sheet but its cells.
func (r *renderer) layout(sh *backend.Sheet, id int64) []*sheetsapi.Request {
	var reqs []*sheetsapi.Request
	rows := int64(max(1, sh.RowCount))
	for i, c := range sh.Columns {
		col := &sheetsapi.DimensionRange{SheetId: id, Dimension: "COLUMNS", StartIndex: int64(i), EndIndex: int64(i + 1)}
		reqs = append(reqs,
			&sheetsapi.Request{UpdateDimensionProperties: &sheetsapi.UpdateDimensionPropertiesRequest{
				Range:      col,
				Properties: &sheetsapi.DimensionProperties{PixelSize: pixels(c.Width), HiddenByUser: c.Hidden},
				Fields:     "pixelSize,hiddenByUser",
			}},
			// The column's look, for its empty cells and the rows annotators
			// insert.
			&sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{
				Range:  &sheetsapi.GridRange{SheetId: id, StartRowIndex: 0, EndRowIndex: rows, StartColumnIndex: int64(i), EndColumnIndex: int64(i + 1)},
				Cell:   &sheetsapi.CellData{UserEnteredFormat: cellFormat(c.Style)},
				Fields: "userEnteredFormat",
			}})
	}
	for _, v := range sh.Validations {
		if rule := dataValidation(v); rule != nil {
			reqs = append(reqs, &sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{
				Range: &sheetsapi.GridRange{SheetId: id, StartRowIndex: int64(v.FirstRow - 1), EndRowIndex: int64(v.LastRow), StartColumnIndex: int64(v.Col), EndColumnIndex: int64(v.Col + 1)},
				Rule:  rule,
			}})
		}
	}
	if sh.Protect != nil {
		pr := &sheetsapi.ProtectedRange{
			Range:       &sheetsapi.GridRange{SheetId: id},
			Description: "annosheet: what annotators read is protected; answer in the open columns",
			WarningOnly: r.opt.Protect == ProtectWarning,
		}
		for i, c := range sh.Columns {
			if c.Style.Unlocked && sh.RowCount > 1 {
				pr.UnprotectedRanges = append(pr.UnprotectedRanges, &sheetsapi.GridRange{SheetId: id, StartRowIndex: 1, EndRowIndex: rows, StartColumnIndex: int64(i), EndColumnIndex: int64(i + 1)})
			}
		}
		reqs = append(reqs, &sheetsapi.Request{AddProtectedRange: &sheetsapi.AddProtectedRangeRequest{ProtectedRange: pr}})
	}
	for _, m := range sh.Merges {
		reqs = append(reqs, &sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{
			Range:     &sheetsapi.GridRange{SheetId: id, StartRowIndex: int64(m.FirstRow - 1), EndRowIndex: int64(m.LastRow), StartColumnIndex: int64(m.FirstCol), EndColumnIndex: int64(m.LastCol + 1)},
			MergeType: "MERGE_ALL",
		}})
	}
	reqs = append(reqs, conditionalFormats(sh, id)...)
	// Google refuses a filter over vertically merged cells (a block's
	// context); such a sheet goes without filter buttons.
	vertical := slices.ContainsFunc(sh.Merges, func(m backend.Merge) bool { return m.LastRow > m.FirstRow })
	if sh.AutoFilter && sh.RowCount > 0 && !vertical {
		reqs = append(reqs, &sheetsapi.Request{SetBasicFilter: &sheetsapi.SetBasicFilterRequest{Filter: &sheetsapi.BasicFilter{
			Range: &sheetsapi.GridRange{SheetId: id, StartRowIndex: 0, EndRowIndex: rows, StartColumnIndex: 0, EndColumnIndex: int64(len(sh.Columns))},
		}}})
	}
	return reqs
}

// cells streams a sheet's values, band colours and notes; rows whose cells
// look otherwise than their columns (headers, titles) get their whole
// format too. Sizes are estimated from above without encoding, so that
// each cell is encoded once, when sent.
func (r *renderer) cells(sh *backend.Sheet, id int64, add func(*sheetsapi.Request, int) error) error {
	notes := map[[2]int]string{}
	for _, n := range sh.Notes {
		notes[[2]int{n.Row, n.Col}] = n.Text
	}
	var block *sheetsapi.UpdateCellsRequest
	blockSize := 0
	flushBlock := func() error {
		if block == nil {
			return nil
		}
		b, n := block, blockSize
		block, blockSize = nil, 0
		return add(&sheetsapi.Request{UpdateCells: b}, n+requestOverhead)
	}
	n := 0
	err := sh.Rows(func(row backend.Row) error {
		n++
		rd := &sheetsapi.RowData{}
		special := false
		for i, cell := range row.Cells {
			col := backend.Style{}
			if i < len(sh.Columns) {
				col = sh.Columns[i].Style
			}
			cd := &sheetsapi.CellData{UserEnteredFormat: &sheetsapi.CellFormat{BackgroundColor: color(fillOr(cell.Style.Fill, "FFFFFF"))}}
			if v := extendedValue(cell.Value); v != nil {
				cd.UserEnteredValue = v
			}
			if note, ok := notes[[2]int{n, i}]; ok {
				cd.Note = note
			}
			if cell.Link != nil {
				runs, err := r.linkRuns(cell)
				if err != nil {
					return fmt.Errorf("%s: %w", backend.CellName(i, n), err)
				}
				cd.TextFormatRuns = runs
			}
			if withoutFill(cell.Style) != withoutFill(col) {
				special = true
			}
			rd.Values = append(rd.Values, cd)
		}
		if special {
			full := &sheetsapi.RowData{}
			for _, cell := range row.Cells {
				full.Values = append(full.Values, &sheetsapi.CellData{UserEnteredFormat: cellFormat(cell.Style)})
			}
			req := &sheetsapi.Request{UpdateCells: &sheetsapi.UpdateCellsRequest{
				Start:  &sheetsapi.GridCoordinate{SheetId: id, RowIndex: int64(n - 1)},
				Rows:   []*sheetsapi.RowData{full},
				Fields: "userEnteredFormat",
			}}
			if err := add(req, jsonSize(req)); err != nil {
				return err
			}
		}
		size := rowSize(rd)
		if block != nil && blockSize+size > r.limit-requestOverhead {
			if err := flushBlock(); err != nil {
				return err
			}
		}
		if block == nil {
			block = &sheetsapi.UpdateCellsRequest{
				Start:  &sheetsapi.GridCoordinate{SheetId: id, RowIndex: int64(n - 1)},
				Fields: "userEnteredValue,userEnteredFormat.backgroundColor,note",
			}
		}
		block.Rows = append(block.Rows, rd)
		blockSize += size
		withRuns(block, rd)
		return nil
	})
	if err != nil {
		return err
	}
	if n != sh.RowCount {
		return fmt.Errorf("plan produced %d rows, not the %d it declared", n, sh.RowCount)
	}
	return flushBlock()
}

// requestOverhead bounds the JSON of a request around its rows.
const requestOverhead = 256

// rowSize bounds the JSON of a row of cells from above: each cell's
// format and value wrappers, and its text as escaped at worst.
func rowSize(rd *sheetsapi.RowData) int {
	n := 16
	for _, cd := range rd.Values {
		n += 140 // {"userEnteredFormat":{"backgroundColor":{…}}} and commas
		if v := cd.UserEnteredValue; v != nil {
			n += 48 // {"numberValue":-1.2345678901234568e-300} and the like
			if v.StringValue != nil {
				n += escapedLen(*v.StringValue)
			}
			if v.FormulaValue != nil {
				n += escapedLen(*v.FormulaValue)
			}
		}
		if cd.Note != "" {
			n += 12 + escapedLen(cd.Note)
		}
		n += runsSize(cd.TextFormatRuns)
	}
	return n
}

// escapedLen bounds the length of s as a JSON string from above: control
// characters, <, >, &, U+2028, U+2029 and invalid bytes become six bytes,
// quotes and backslashes two.
func escapedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			case c == '"' || c == '\\':
				n += 2
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}

func fillOr(fill, def string) string {
	if fill == "" {
		return def
	}
	return fill
}

func withoutFill(s backend.Style) backend.Style {
	s.Fill = ""
	s.Unlocked = false // protection is by ranges in Sheets
	return s
}

// extendedValue is a typed cell value: strings are always string values,
// never formulas, whatever they start with.
func extendedValue(v any) *sheetsapi.ExtendedValue {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		if v == "" {
			return nil
		}
		return &sheetsapi.ExtendedValue{StringValue: &v}
	case backend.Formula:
		return formulaValue(v)
	case bool:
		return &sheetsapi.ExtendedValue{BoolValue: &v}
	case int:
		f := float64(v)
		return &sheetsapi.ExtendedValue{NumberValue: &f}
	case int64:
		f := float64(v)
		return &sheetsapi.ExtendedValue{NumberValue: &f}
	case float64:
		return &sheetsapi.ExtendedValue{NumberValue: &v}
	default:
		s := fmt.Sprint(v)
		return &sheetsapi.ExtendedValue{StringValue: &s}
	}
}

// cellFormat is the Sheets format of a plan style.
func cellFormat(s backend.Style) *sheetsapi.CellFormat {
	f := &sheetsapi.CellFormat{
		BackgroundColor:   color(fillOr(s.Fill, "FFFFFF")),
		VerticalAlignment: "TOP",
		WrapStrategy:      "OVERFLOW_CELL",
		TextFormat:        &sheetsapi.TextFormat{Bold: s.Bold, Italic: s.Italic, FontSize: int64(s.Size), ForegroundColor: color(fillOr(s.Color, "000000"))},
	}
	if s.Wrap {
		f.WrapStrategy = "WRAP"
	}
	if s.Text {
		f.NumberFormat = &sheetsapi.NumberFormat{Type: "TEXT"}
	}
	return f
}

// color reads RRGGBB.
func color(hex string) *sheetsapi.Color {
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || len(hex) != 6 {
		return &sheetsapi.Color{}
	}
	c := &sheetsapi.Color{Red: float64(v>>16&0xff) / 255, Green: float64(v>>8&0xff) / 255, Blue: float64(v&0xff) / 255}
	c.ForceSendFields = []string{"Red", "Green", "Blue"}
	return c
}

// pixels turns a width in characters into pixels, as spreadsheets do.
func pixels(width float64) int64 {
	if width <= 0 {
		width = 10
	}
	return int64(width*7 + 5)
}

// dataValidation is the Sheets rule of a plan validation.
func dataValidation(v backend.Validation) *sheetsapi.DataValidationRule {
	rule := &sheetsapi.DataValidationRule{Strict: v.Strict, InputMessage: v.Prompt}
	switch v.Kind {
	case backend.ValidList:
		rule.ShowCustomUi = true
		// Google reads list values as typed: one starting with = or + would
		// be a formula, which lists refuse. The range holds them as text.
		formulaLike := slices.ContainsFunc(v.Values, func(s string) bool { return strings.HasPrefix(s, "=") || strings.HasPrefix(s, "+") })
		if v.Inline() && !(formulaLike && v.Source != "") {
			rule.Condition = &sheetsapi.BooleanCondition{Type: "ONE_OF_LIST"}
			for _, s := range v.Values {
				rule.Condition.Values = append(rule.Condition.Values, &sheetsapi.ConditionValue{UserEnteredValue: s})
			}
		} else {
			rule.Condition = &sheetsapi.BooleanCondition{Type: "ONE_OF_RANGE", Values: []*sheetsapi.ConditionValue{{UserEnteredValue: "=" + v.Source}}}
		}
	case backend.ValidCheckbox:
		rule.Condition = &sheetsapi.BooleanCondition{Type: "BOOLEAN"}
	case backend.ValidWhole:
		rule.Condition = &sheetsapi.BooleanCondition{Type: "NUMBER_BETWEEN", Values: []*sheetsapi.ConditionValue{
			{UserEnteredValue: strconv.Itoa(v.Min)}, {UserEnteredValue: strconv.Itoa(v.Max)},
		}}
	default:
		if v.Prompt == "" {
			return nil
		}
		// A prompt alone: Sheets shows help text only with a rule, so the
		// rule accepts everything.
		rule.Condition = &sheetsapi.BooleanCondition{Type: "CUSTOM_FORMULA", Values: []*sheetsapi.ConditionValue{{UserEnteredValue: "=TRUE"}}}
		rule.Strict = false
	}
	return rule
}
