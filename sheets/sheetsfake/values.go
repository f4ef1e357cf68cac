package sheetsfake

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	sheetsapi "google.golang.org/api/sheets/v4"
)

// The values collection: what an annotator's edits look like through the
// API, and what pull reads.

// render options Google accepts.
var (
	valueRenders = map[string]bool{"": true, "FORMATTED_VALUE": true, "UNFORMATTED_VALUE": true, "FORMULA": true}
	dateRenders  = map[string]bool{"": true, "SERIAL_NUMBER": true, "FORMATTED_STRING": true}
	dimensions   = map[string]bool{"": true, "ROWS": true, "COLUMNS": true}
	inputOptions = map[string]bool{"RAW": true, "USER_ENTERED": true}
)

// box is a resolved A1 range on a sheet, end exclusive.
type box struct {
	sh             *sheet
	r0, c0, r1, c1 int64
}

// resolve turns an A1 range into a box on the grid; an open end is the
// grid's edge. A range without a sheet name is on the first visible
// sheet, unless a sheet has that name. A range past the grid is refused,
// as Google refuses it.
func (b *book) resolve(rng string) (box, error) {
	a, err := parseA1(rng)
	if err != nil {
		return box{}, err
	}
	sh := b.sheetByTitle(a.sheet)
	switch {
	case sh != nil && a.bare:
		// The name of a sheet, even one that reads as a cell.
		a.r0, a.c0, a.r1, a.c1 = 0, 0, -1, -1
	case sh == nil && a.bare && a.isBox:
		sh = b.firstVisible()
	}
	if sh == nil {
		return box{}, fmt.Errorf("Unable to parse range: %s", rng)
	}
	x := box{sh: sh, r0: a.r0, c0: a.c0, r1: a.r1, c1: a.c1}
	if x.r1 < 0 {
		x.r1 = sh.rowCount()
	}
	if x.c1 < 0 {
		x.c1 = sh.colCount()
	}
	if x.r1 <= x.r0 || x.c1 <= x.c0 {
		return box{}, fmt.Errorf("Unable to parse range: %s", rng)
	}
	if err := sh.inside(x.r1-1, x.c1-1); err != nil {
		return box{}, err
	}
	return x, nil
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// quoteName writes a sheet name as Google does in ranges it returns.
func quoteName(n string) string {
	if plainName.MatchString(n) && cellRe.FindStringSubmatch(strings.ToUpper(n)) == nil {
		return n
	}
	return "'" + strings.ReplaceAll(n, "'", "''") + "'"
}

// String is the box as Google writes it in answers: one cell as "A1",
// not "A1:A1".
func (x box) String() string {
	if x.cell() {
		return fmt.Sprintf("%s!%s", quoteName(x.sh.props.Title), a1(x.r0, x.c0))
	}
	return fmt.Sprintf("%s!%s:%s", quoteName(x.sh.props.Title), a1(x.r0, x.c0), a1(x.r1-1, x.c1-1))
}

// cell reports whether the box is one cell.
func (x box) cell() bool { return x.r1-x.r0 == 1 && x.c1-x.c0 == 1 }

// read is a box's values as a ValueRange, with trailing empty rows and
// cells left out, as Google leaves them out.
func (x box) read(render, major string) *sheetsapi.ValueRange {
	if major == "" {
		major = "ROWS"
	}
	vr := &sheetsapi.ValueRange{Range: x.String(), MajorDimension: major}
	outer, inner := [2]int64{x.r0, x.r1}, [2]int64{x.c0, x.c1}
	at := func(i, j int64) *cell { return x.sh.peek(i, j) }
	if major == "COLUMNS" {
		outer, inner = inner, outer
		at = func(i, j int64) *cell { return x.sh.peek(j, i) }
	}
	var rows [][]any
	for i := outer[0]; i < outer[1]; i++ {
		var line []any
		last := -1
		for j := inner[0]; j < inner[1]; j++ {
			v := at(i, j).show(render)
			if v == nil {
				line = append(line, "")
				continue
			}
			line = append(line, v)
			last = len(line) - 1
		}
		rows = append(rows, line[:last+1])
	}
	for len(rows) > 0 && len(rows[len(rows)-1]) == 0 {
		rows = rows[:len(rows)-1]
	}
	if len(rows) > 0 {
		vr.Values = rows
	}
	return vr
}

// renderOf is the render option asked for, or Google's default,
// FORMATTED_VALUE.
func renderOf(q url.Values) string {
	if r := q.Get("valueRenderOption"); r != "" {
		return r
	}
	return "FORMATTED_VALUE"
}

func checkRead(q map[string][]string) error {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if v := get("valueRenderOption"); !valueRenders[v] {
		return fmt.Errorf("Invalid value at 'value_render_option' (TYPE_ENUM), %q", v)
	}
	if v := get("dateTimeRenderOption"); !dateRenders[v] {
		return fmt.Errorf("Invalid value at 'date_time_render_option' (TYPE_ENUM), %q", v)
	}
	if v := get("majorDimension"); !dimensions[v] {
		return fmt.Errorf("Invalid value at 'major_dimension' (TYPE_ENUM), %q", v)
	}
	return nil
}

func (s *Server) valuesBatchGet(w http.ResponseWriter, r *http.Request, id string, who principal) {
	q := r.URL.Query()
	if err := checkRead(q); err != nil {
		writeError(w, 400, "%v", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.book(w, id, who)
	if b == nil {
		return
	}
	out := &sheetsapi.BatchGetValuesResponse{SpreadsheetId: id}
	for _, rng := range q["ranges"] {
		x, err := b.resolve(rng)
		if err != nil {
			writeError(w, 400, "%v", err)
			return
		}
		out.ValueRanges = append(out.ValueRanges, x.read(renderOf(q), q.Get("majorDimension")))
	}
	writeJSON(w, out)
}

func (s *Server) valuesGet(w http.ResponseWriter, r *http.Request, id, rng string, who principal) {
	q := r.URL.Query()
	if err := checkRead(q); err != nil {
		writeError(w, 400, "%v", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.book(w, id, who)
	if b == nil {
		return
	}
	x, err := b.resolve(rng)
	if err != nil {
		writeError(w, 400, "%v", err)
		return
	}
	writeJSON(w, x.read(renderOf(q), q.Get("majorDimension")))
}

func (s *Server) valuesUpdate(w http.ResponseWriter, r *http.Request, id, rng string, body []byte, who principal) {
	opt := r.URL.Query().Get("valueInputOption")
	if opt == "" {
		writeError(w, 400, "'valueInputOption' is required but not specified")
		return
	}
	if !inputOptions[opt] {
		writeError(w, 400, "Invalid value at 'value_input_option' (TYPE_ENUM), %q", opt)
		return
	}
	var vr sheetsapi.ValueRange
	if !decode(w, s.opt.Sheets, s.opt.Sheets.RequestSchema("spreadsheets", "values", "update"), body, &vr) {
		return
	}
	if vr.Range != "" && vr.Range != rng {
		writeError(w, 400, "Requested writing within range [%s], but tried writing to [%s]", rng, vr.Range)
		return
	}
	vr.Range = rng
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.book(w, id, who)
	if b == nil {
		return
	}
	t := &tx{}
	defer t.rollbackOnPanic()
	res, _, err := writeValues(t, b, &vr, opt)
	if err != nil {
		t.rollback()
		writeError(w, 400, "%v", err)
		return
	}
	res.SpreadsheetId = id
	s.touch(id)
	writeJSON(w, res)
}

func (s *Server) valuesBatchUpdate(w http.ResponseWriter, id string, body []byte, who principal) {
	var req sheetsapi.BatchUpdateValuesRequest
	if !decode(w, s.opt.Sheets, s.opt.Sheets.RequestSchema("spreadsheets", "values", "batchUpdate"), body, &req) {
		return
	}
	if !inputOptions[req.ValueInputOption] {
		writeError(w, 400, "Invalid valueInputOption: INPUT_VALUE_OPTION_UNSPECIFIED")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.book(w, id, who)
	if b == nil {
		return
	}
	t := &tx{}
	defer t.rollbackOnPanic()
	out := &sheetsapi.BatchUpdateValuesResponse{SpreadsheetId: id}
	sheets := map[*sheet]bool{}
	for i, vr := range req.Data {
		if vr == nil {
			vr = &sheetsapi.ValueRange{}
		}
		res, sh, err := writeValues(t, b, vr, req.ValueInputOption)
		if err != nil {
			t.rollback()
			writeError(w, 400, "Invalid data[%d]: %v", i, err)
			return
		}
		res.SpreadsheetId = id
		out.Responses = append(out.Responses, res)
		out.TotalUpdatedCells += res.UpdatedCells
		out.TotalUpdatedRows += res.UpdatedRows
		out.TotalUpdatedColumns += res.UpdatedColumns
		if res.UpdatedCells > 0 {
			sheets[sh] = true
		}
	}
	// Sheets, not ranges: two ranges on one sheet count once.
	out.TotalUpdatedSheets = int64(len(sheets))
	s.touch(id)
	writeJSON(w, out)
}

// writeValues writes a ValueRange into its range: values fill the range
// from its top-left cell and may not spill out of it, except that one cell
// is an anchor the values may extend right and down from, as far as the
// grid goes. A null leaves a cell as it is and "" clears it. It returns
// the sheet written to.
func writeValues(t *tx, b *book, vr *sheetsapi.ValueRange, input string) (*sheetsapi.UpdateValuesResponse, *sheet, error) {
	x, err := b.resolve(vr.Range)
	if err != nil {
		return nil, nil, err
	}
	rows := vr.Values
	if vr.MajorDimension == "COLUMNS" {
		rows = transpose(rows)
	}
	anchor := x.cell()
	res := &sheetsapi.UpdateValuesResponse{}
	var maxCol int64
	for i, row := range rows {
		r := x.r0 + int64(i)
		if r >= x.r1 && !anchor {
			return nil, nil, fmt.Errorf("Requested writing within range [%s], but tried writing to row [%d]", vr.Range, r+1)
		}
		for j, v := range row {
			c := x.c0 + int64(j)
			if c >= x.c1 && !anchor {
				return nil, nil, fmt.Errorf("Requested writing within range [%s], but tried writing to column [%s]", vr.Range, colName(c))
			}
			if v == nil {
				continue
			}
			if err := x.sh.inside(r, c); err != nil {
				return nil, nil, err
			}
			cl := x.sh.at(r, c)
			how := input
			if f := cl.format; f != nil && f.NumberFormat != nil && f.NumberFormat.Type == "TEXT" {
				// A cell formatted as plain text keeps what is typed as
				// text, as in the Sheets editor.
				how = "RAW"
			}
			ev, err := enteredValue(v, how)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", a1(r, c), err)
			}
			t.keep(cl)
			cl.value, cl.runs = ev, nil
			res.UpdatedCells++
			maxCol = max(maxCol, int64(j)+1)
		}
		if len(row) > 0 {
			res.UpdatedRows++
		}
	}
	res.UpdatedColumns = maxCol
	if res.UpdatedRows > 0 {
		res.UpdatedRange = box{sh: x.sh, r0: x.r0, c0: x.c0, r1: x.r0 + int64(len(rows)), c1: x.c0 + max(1, maxCol)}.String()
	}
	return res, x.sh, nil
}

func transpose(cols [][]any) [][]any {
	var rows [][]any
	for j, col := range cols {
		for i, v := range col {
			for len(rows) <= i {
				rows = append(rows, nil)
			}
			for len(rows[i]) < j {
				rows[i] = append(rows[i], nil)
			}
			rows[i] = append(rows[i], v)
		}
	}
	return rows
}

var numberRe = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?%?$`)

// enteredValue is what a cell holds after a value is written: RAW keeps
// text as text; USER_ENTERED parses it as if typed into the cell (numbers,
// TRUE/FALSE, formulas, a leading ' forcing text).
func enteredValue(v any, input string) (*sheetsapi.ExtendedValue, error) {
	switch v := v.(type) {
	case bool:
		return &sheetsapi.ExtendedValue{BoolValue: &v}, nil
	case float64:
		return &sheetsapi.ExtendedValue{NumberValue: &v}, nil
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return nil, err
		}
		return &sheetsapi.ExtendedValue{NumberValue: &f}, nil
	case string:
		if textLen(v) > MaxCellChars {
			return nil, fmt.Errorf("Your input contains more than the maximum of %d characters in a single cell.", MaxCellChars)
		}
		if v == "" {
			return nil, nil
		}
		if input == "RAW" {
			return &sheetsapi.ExtendedValue{StringValue: &v}, nil
		}
		t := strings.TrimSpace(v)
		switch {
		case strings.HasPrefix(v, "'"):
			s := v[1:]
			return &sheetsapi.ExtendedValue{StringValue: &s}, nil
		case strings.HasPrefix(v, "=") && len(v) > 1:
			return &sheetsapi.ExtendedValue{FormulaValue: &v}, nil
		case strings.EqualFold(t, "TRUE"), strings.EqualFold(t, "FALSE"):
			b := strings.EqualFold(t, "TRUE")
			return &sheetsapi.ExtendedValue{BoolValue: &b}, nil
		case numberRe.MatchString(t):
			pct := strings.HasSuffix(t, "%")
			f, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
			if err == nil && !math.IsInf(f, 0) {
				if pct {
					f /= 100
				}
				return &sheetsapi.ExtendedValue{NumberValue: &f}, nil
			}
		}
		return &sheetsapi.ExtendedValue{StringValue: &v}, nil
	}
	return nil, fmt.Errorf("Invalid values: %v is not a string, number or boolean", v)
}

// rowOf is a formula that gives the row of one cell: ROW(Sheet!$P$5).
var rowOf = regexp.MustCompile(`^ROW\((?:'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_.]*)!\$?[A-Z]{1,3}\$?([0-9]+)\)$`)

// evalFormula is the value of the formulas the fake understands: a
// literal number, string or boolean, as annotators type "=3" or "=TRUE",
// and the row of a cell (the places annosheet records). Any other formula
// reads as Google's #NAME? error text.
func evalFormula(f string) any {
	e := strings.TrimSpace(strings.TrimPrefix(f, "="))
	if m := rowOf.FindStringSubmatch(e); m != nil {
		if n, err := strconv.ParseFloat(m[1], 64); err == nil {
			return n
		}
	}
	switch u := strings.ToUpper(e); u {
	case "TRUE", "TRUE()":
		return true
	case "FALSE", "FALSE()":
		return false
	}
	if n, err := strconv.ParseFloat(e, 64); err == nil {
		return n
	}
	if len(e) >= 2 && e[0] == '"' && e[len(e)-1] == '"' {
		return strings.ReplaceAll(e[1:len(e)-1], `""`, `"`)
	}
	return "#NAME?"
}
