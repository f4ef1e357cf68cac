package sheetsfake

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	sheetsapi "google.golang.org/api/sheets/v4"
)

// MaxCellChars is Google's limit on the text of one cell.
const MaxCellChars = 50000

// book is one spreadsheet's state.
type book struct {
	id        string
	title     string
	sheets    []*sheet
	protected []*sheetsapi.ProtectedRange
	nextProt  int64
}

// sheet is one tab: its properties and its grid.
type sheet struct {
	props  *sheetsapi.SheetProperties
	cells  [][]*cell // [row][col], grown as written
	merges []*sheetsapi.GridRange
	cols   map[int64]*sheetsapi.DimensionProperties
	rows   map[int64]*sheetsapi.DimensionProperties
	filter *sheetsapi.BasicFilter
}

// cell is what a cell holds.
type cell struct {
	value      *sheetsapi.ExtendedValue // as entered
	format     *sheetsapi.CellFormat
	validation *sheetsapi.DataValidationRule
	note       string
	runs       []*sheetsapi.TextFormatRun // rich text of a string value
}

func (b *book) sheetByID(id int64) *sheet {
	for _, s := range b.sheets {
		if s.props.SheetId == id {
			return s
		}
	}
	return nil
}

func (b *book) sheetByTitle(t string) *sheet {
	for _, s := range b.sheets {
		if s.props.Title == t {
			return s
		}
	}
	return nil
}

// firstVisible is the sheet a range without a sheet name refers to: the
// first one in tab order that is not hidden.
func (b *book) firstVisible() *sheet {
	for _, s := range b.sheets {
		if !s.props.Hidden {
			return s
		}
	}
	if len(b.sheets) > 0 {
		return b.sheets[0]
	}
	return nil
}

// empty reports whether a cell holds nothing: Google does not list such
// cells, even once written to and rolled back.
func (c *cell) empty() bool {
	return c == nil || c.value == nil && c.format == nil && c.validation == nil && c.note == "" && c.runs == nil
}

func (s *sheet) rowCount() int64 { return s.props.GridProperties.RowCount }
func (s *sheet) colCount() int64 { return s.props.GridProperties.ColumnCount }

// at returns the cell at (row, col), creating it.
func (s *sheet) at(r, c int64) *cell {
	for int64(len(s.cells)) <= r {
		s.cells = append(s.cells, nil)
	}
	row := s.cells[r]
	for int64(len(row)) <= c {
		row = append(row, nil)
	}
	s.cells[r] = row
	if row[c] == nil {
		row[c] = &cell{}
	}
	return row[c]
}

// peek returns the cell at (row, col), or nil.
func (s *sheet) peek(r, c int64) *cell {
	if r < int64(len(s.cells)) && c < int64(len(s.cells[r])) {
		return s.cells[r][c]
	}
	return nil
}

// bounds resolves a grid range against the sheet: missing ends are the
// grid's edges. A range past the grid is Google's error.
func (s *sheet) bounds(g *sheetsapi.GridRange) (r0, r1, c0, c1 int64, err error) {
	r0, r1, c0, c1 = g.StartRowIndex, g.EndRowIndex, g.StartColumnIndex, g.EndColumnIndex
	if r1 == 0 {
		r1 = s.rowCount()
	}
	if c1 == 0 {
		c1 = s.colCount()
	}
	if err = s.inside(r1-1, c1-1); err != nil {
		return
	}
	if r0 < 0 || c0 < 0 || r0 > r1 || c0 > c1 {
		err = fmt.Errorf("Invalid range: start after end")
	}
	return
}

// inside checks that (row, col) is in the grid.
func (s *sheet) inside(r, c int64) error {
	if r >= s.rowCount() || c >= s.colCount() {
		return fmt.Errorf("Range (%s!%s) exceeds grid limits. Max rows: %d, max columns: %d", s.props.Title, a1(r, c), s.rowCount(), s.colCount())
	}
	return nil
}

func a1(r, c int64) string { return colName(c) + strconv.FormatInt(r+1, 10) }

func colName(c int64) string {
	s := ""
	for n := c + 1; n > 0; n = (n - 1) / 26 {
		s = string(rune('A'+(n-1)%26)) + s
	}
	return s
}

func colIndex(s string) int64 {
	var n int64
	for _, ch := range s {
		n = n*26 + int64(ch-'A'+1)
	}
	return n - 1
}

// a1Range is a parsed A1 range: a sheet and an optional box.
type a1Range struct {
	sheet          string
	r0, c0, r1, c1 int64 // 0-based, end exclusive; -1 for unbounded
	// bare is a range without a sheet part ("A1:B2", "B:B", "F2"): the
	// name of a sheet if one is called so, else a box on the first
	// visible sheet; isBox says it reads as a box (held in r0…c1).
	bare, isBox bool
}

var cellRe = regexp.MustCompile(`^([A-Z]{0,3})([0-9]*)$`)

// parseA1 reads "Sheet1", "'My sheet'!A1:C3", "Sheet1!A:C", "Sheet1!F2",
// or a box without a sheet: "A1:B2", "B:B", "F2".
func parseA1(s string) (a1Range, error) {
	r := a1Range{r0: 0, c0: 0, r1: -1, c1: -1}
	bad := fmt.Errorf("Unable to parse range: %s", s)
	name, box, hasBox := s, "", false
	if strings.HasPrefix(s, "'") {
		end := -1
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					i++
					continue
				}
				end = i
				break
			}
		}
		if end < 0 {
			return r, bad
		}
		name = strings.ReplaceAll(s[1:end], "''", "'")
		rest := s[end+1:]
		switch {
		case rest == "":
		case strings.HasPrefix(rest, "!"):
			box, hasBox = rest[1:], true
		default:
			return r, bad
		}
	} else if i := strings.LastIndexByte(s, '!'); i >= 0 {
		name, box, hasBox = s[:i], s[i+1:], true
	}
	if name == "" {
		return r, bad
	}
	r.sheet = name
	if !hasBox {
		if !strings.HasPrefix(s, "'") {
			r.bare = true
			if b, ok := parseBox(s); ok {
				r.isBox, r.r0, r.c0, r.r1, r.c1 = true, b[0], b[1], b[2], b[3]
			}
		}
		return r, nil
	}
	// "Sheet1!" names no cells: Google cannot parse it.
	b, ok := parseBox(box)
	if !ok {
		return r, bad
	}
	r.r0, r.c0, r.r1, r.c1 = b[0], b[1], b[2], b[3]
	return r, nil
}

// parseBox reads the cells part of a range: "A1:C3", "A:C", "2:3", "E2:F"
// or a lone cell "F2", as r0, c0, r1, c1 (-1 for an open end).
// absolute drops the $ of absolute references, when placed as in A1
// notation: before a column or a row.
var absolute = strings.NewReplacer("$", "")

func parseBox(box string) ([4]int64, bool) {
	out := [4]int64{0, 0, -1, -1}
	// $ marks an absolute reference ($A$2), the same cells in a range.
	from, to, isRange := strings.Cut(strings.ToUpper(absolute.Replace(box)), ":")
	m1 := cellRe.FindStringSubmatch(from)
	if m1 == nil || m1[0] == "" {
		return out, false
	}
	m2 := m1
	if isRange {
		if m2 = cellRe.FindStringSubmatch(to); m2 == nil || m2[0] == "" {
			return out, false
		}
	} else if m1[1] == "" || m1[2] == "" {
		// Alone, a column or a row is not a range: "B" or "2".
		return out, false
	}
	if m1[1] != "" {
		out[1] = colIndex(m1[1])
	}
	if m1[2] != "" {
		n, _ := strconv.ParseInt(m1[2], 10, 64)
		if n < 1 {
			return out, false
		}
		out[0] = n - 1
	}
	if m2[1] != "" {
		out[3] = colIndex(m2[1]) + 1
	}
	if m2[2] != "" {
		n, _ := strconv.ParseInt(m2[2], 10, 64)
		if n < 1 {
			return out, false
		}
		out[2] = n
	}
	if m1[1] == "" && m2[1] != "" || m1[2] == "" && m2[2] != "" && m1[1] == "" {
		return out, false
	}
	// Corners given the other way round (B5:A1, 7:1) are the same cells,
	// as Google reads them.
	if out[2] >= 0 && out[2] <= out[0] {
		out[0], out[2] = out[2]-1, out[0]+1
	}
	if out[3] >= 0 && out[3] <= out[1] {
		out[1], out[3] = out[3]-1, out[1]+1
	}
	return out, true
}

// textLen counts characters as Google does for its cell limit.
func textLen(s string) int { return len([]rune(s)) }

// show is what a cell shows in a values response.
func (c *cell) show(render string) any {
	if c == nil || c.value == nil {
		return nil
	}
	v := c.value
	switch {
	case v.FormulaValue != nil:
		if render == "FORMULA" {
			return *v.FormulaValue
		}
		x := evalFormula(*v.FormulaValue)
		if render == "FORMATTED_VALUE" {
			return formatted(x)
		}
		return x
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		if render == "FORMATTED_VALUE" {
			return formatted(*v.BoolValue)
		}
		return *v.BoolValue
	case v.NumberValue != nil:
		if render == "FORMATTED_VALUE" {
			return formatted(*v.NumberValue)
		}
		return *v.NumberValue
	}
	return nil
}

// formatted is a value as Google shows it in a cell without a number
// format.
func formatted(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
