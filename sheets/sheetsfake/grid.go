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
}

var cellRe = regexp.MustCompile(`^([A-Z]{0,3})([0-9]*)$`)

// parseA1 reads "Sheet1", "'My sheet'!A1:C3", "Sheet1!A:C" or "Sheet1!F2".
func parseA1(s string) (a1Range, error) {
	r := a1Range{r0: 0, c0: 0, r1: -1, c1: -1}
	bad := fmt.Errorf("Unable to parse range: %s", s)
	name, box := s, ""
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
			box = rest[1:]
		default:
			return r, bad
		}
	} else if i := strings.LastIndexByte(s, '!'); i >= 0 {
		name, box = s[:i], s[i+1:]
	}
	if name == "" {
		return r, bad
	}
	r.sheet = name
	if box == "" {
		return r, nil
	}
	from, to, isRange := strings.Cut(strings.ToUpper(box), ":")
	if !isRange {
		to = from
	}
	m1, m2 := cellRe.FindStringSubmatch(from), cellRe.FindStringSubmatch(to)
	if m1 == nil || m2 == nil || m1[0] == "" || m2[0] == "" {
		return r, bad
	}
	if m1[1] != "" {
		r.c0 = colIndex(m1[1])
	}
	if m1[2] != "" {
		n, _ := strconv.ParseInt(m1[2], 10, 64)
		if n < 1 {
			return r, bad
		}
		r.r0 = n - 1
	}
	if m2[1] != "" {
		r.c1 = colIndex(m2[1]) + 1
	}
	if m2[2] != "" {
		n, _ := strconv.ParseInt(m2[2], 10, 64)
		if n < 1 {
			return r, bad
		}
		r.r1 = n
	}
	if m1[1] == "" && m2[1] != "" || m1[2] == "" && m2[2] != "" && m1[1] == "" {
		return r, bad
	}
	return r, nil
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
