package sheets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	drive "google.golang.org/api/drive/v3"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/mapping"
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
	Existing string
	// Folder is a Drive folder (shared drives too) to put the spreadsheet
	// in. Service accounts need one: they cannot own files.
	Folder string
	// Share gives these addresses writer access, with Message in the
	// notification mail.
	Share   []string
	Message string
	// Protect is ProtectWarning (default) or ProtectEditors.
	Protect string
	// Created is called as soon as a new spreadsheet exists, before
	// anything else can fail, so that the caller can record it and a
	// second run reuses it instead of making another.
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
var ErrServiceAccountFolder = errors.New("a service account cannot own new spreadsheets: give --folder, the ID of a folder in a shared drive it can write to (or sign in as a user with 'annosheet auth login')")

// IncompleteError says a spreadsheet was created but not finished.
type IncompleteError struct {
	ID, URL string
	Err     error
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("spreadsheet %s was created but not finished (%v); run the same command again to finish it: the spreadsheet will be reused", e.URL, e.Err)
}

func (e *IncompleteError) Unwrap() error { return e.Err }

const spreadsheetMime = "application/vnd.google-apps.spreadsheet"

// Write renders a plan as a Google spreadsheet: one create, one call for
// the layout (sheets, widths, validations, protection, merges, filter) and
// the cells in calls of at most ChunkBytes each, values always as typed
// values (a string is never a formula).
func (c *Client) Write(ctx context.Context, p *mapping.Plan, opt WriteOptions) (*Written, error) {
	startCalls, startBytes := c.requests.n()
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

// prepare makes the spreadsheet exist, with the plan's sheets sized up
// front, and returns the sheet ids it chose.
func (c *Client) prepare(ctx context.Context, p *mapping.Plan, opt WriteOptions, w *Written) ([]int64, error) {
	ids := make([]int64, len(p.Sheets))
	props := func(base int64) []*sheetsapi.SheetProperties {
		var out []*sheetsapi.SheetProperties
		for i, sh := range p.Sheets {
			ids[i] = base + int64(i)
			out = append(out, sheetProps(sh, ids[i], i))
		}
		return out
	}
	created := func(id, url string) error {
		w.ID, w.URL = id, url
		if opt.Created != nil {
			return opt.Created(id, url)
		}
		return nil
	}
	switch {
	case opt.Existing != "":
		ss, err := c.Sheets.Spreadsheets.Get(opt.Existing).Fields("spreadsheetId,spreadsheetUrl,sheets.properties.sheetId").Context(ctx).Do()
		if err != nil {
			return nil, fmt.Errorf("open spreadsheet %s: %w", opt.Existing, err)
		}
		w.URL = ss.SpreadsheetUrl
		var old []int64
		top := int64(0)
		for _, s := range ss.Sheets {
			old = append(old, s.Properties.SheetId)
			top = max(top, s.Properties.SheetId)
		}
		// In one batch, which Google applies whole or not at all: the old
		// sheets step aside (their names are taken), the new ones come,
		// the old ones go.
		var reqs []*sheetsapi.Request
		for _, id := range old {
			reqs = append(reqs, &sheetsapi.Request{UpdateSheetProperties: &sheetsapi.UpdateSheetPropertiesRequest{
				Properties: &sheetsapi.SheetProperties{SheetId: id, Title: fmt.Sprintf("annosheet-old-%d", id)},
				Fields:     "title",
			}})
		}
		for _, pr := range props(top + 1) {
			reqs = append(reqs, &sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: pr}})
		}
		for _, id := range old {
			reqs = append(reqs, &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: id, ForceSendFields: []string{"SheetId"}}})
		}
		return ids, c.batchOnce(ctx, opt.Existing, reqs)
	case c.ServiceAccount:
		if opt.Folder == "" {
			return nil, ErrServiceAccountFolder
		}
		f, err := c.Drive.Files.Create(&drive.File{Name: p.Title, MimeType: spreadsheetMime, Parents: []string{opt.Folder}}).
			SupportsAllDrives(true).Fields("id,webViewLink").Context(ctx).Do()
		if err != nil {
			return nil, fmt.Errorf("create the spreadsheet in folder %s: %w", opt.Folder, err)
		}
		if err := created(f.Id, f.WebViewLink); err != nil {
			return nil, err
		}
		var reqs []*sheetsapi.Request
		for _, pr := range props(1) {
			reqs = append(reqs, &sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: pr}})
		}
		// The first sheet Drive made.
		reqs = append(reqs, &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: 0, ForceSendFields: []string{"SheetId"}}})
		return ids, c.batchOnce(ctx, f.Id, reqs)
	default:
		ss := &sheetsapi.Spreadsheet{Properties: &sheetsapi.SpreadsheetProperties{Title: p.Title}}
		for _, pr := range props(1) {
			ss.Sheets = append(ss.Sheets, &sheetsapi.Sheet{Properties: pr})
		}
		got, err := c.Sheets.Spreadsheets.Create(ss).Fields("spreadsheetId,spreadsheetUrl").Context(ctx).Do()
		if err != nil {
			return nil, fmt.Errorf("create the spreadsheet: %w", err)
		}
		if err := created(got.SpreadsheetId, got.SpreadsheetUrl); err != nil {
			return nil, err
		}
		if opt.Folder != "" {
			f, err := c.Drive.Files.Get(got.SpreadsheetId).Fields("parents").SupportsAllDrives(true).Context(ctx).Do()
			if err != nil {
				return nil, fmt.Errorf("move to folder %s: %w", opt.Folder, err)
			}
			_, err = c.Drive.Files.Update(got.SpreadsheetId, &drive.File{}).AddParents(opt.Folder).
				RemoveParents(strings.Join(f.Parents, ",")).SupportsAllDrives(true).Context(ctx).Do()
			if err != nil {
				return nil, fmt.Errorf("move to folder %s: %w", opt.Folder, err)
			}
		}
		return ids, nil
	}
}

func sheetProps(sh *mapping.Sheet, id int64, index int) *sheetsapi.SheetProperties {
	return &sheetsapi.SheetProperties{
		SheetId: id, Title: sh.Name, Index: int64(index), Hidden: sh.Visibility != mapping.Visible,
		GridProperties: &sheetsapi.GridProperties{
			RowCount:          int64(max(1, sh.RowCount)),
			ColumnCount:       int64(sh.ColCount()),
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
	p     *mapping.Plan
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
func (r *renderer) layout(sh *mapping.Sheet, id int64) []*sheetsapi.Request {
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
	if sh.AutoFilter && sh.RowCount > 0 {
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
func (r *renderer) cells(sh *mapping.Sheet, id int64, add func(*sheetsapi.Request, int) error) error {
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
	err := sh.Rows(func(row mapping.Row) error {
		n++
		rd := &sheetsapi.RowData{}
		special := false
		for i, cell := range row.Cells {
			col := mapping.Style{}
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
			n += 40
			if v.StringValue != nil {
				n += escapedLen(*v.StringValue)
			}
		}
		if cd.Note != "" {
			n += 12 + escapedLen(cd.Note)
		}
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

func withoutFill(s mapping.Style) mapping.Style {
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
func cellFormat(s mapping.Style) *sheetsapi.CellFormat {
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
func dataValidation(v mapping.Validation) *sheetsapi.DataValidationRule {
	rule := &sheetsapi.DataValidationRule{Strict: v.Strict, InputMessage: v.Prompt}
	switch v.Kind {
	case mapping.ValidList:
		rule.ShowCustomUi = true
		if v.Inline() {
			rule.Condition = &sheetsapi.BooleanCondition{Type: "ONE_OF_LIST"}
			for _, s := range v.Values {
				rule.Condition.Values = append(rule.Condition.Values, &sheetsapi.ConditionValue{UserEnteredValue: s})
			}
		} else {
			rule.Condition = &sheetsapi.BooleanCondition{Type: "ONE_OF_RANGE", Values: []*sheetsapi.ConditionValue{{UserEnteredValue: "=" + v.Source}}}
		}
	case mapping.ValidCheckbox:
		rule.Condition = &sheetsapi.BooleanCondition{Type: "BOOLEAN"}
	case mapping.ValidWhole:
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
