package layout

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// The live checks: the Annotate sheet's Check column, a formula on every
// row that names what the row still misses or breaks, and conditional
// formats that colour the cells concerned. The formulas are the
// template's own checks, compiled by package templates; this file only
// says where the cells are. They are a help to annotators: pull never
// reads them (a returned workbook may have lost them) and checks every
// cell itself.

// Fills of the live checks' conditional formats.
const (
	fillCheckError   = "FFC7CE" // an error pull would report
	fillCheckWarning = "FFEB9C" // a warning: a required answer missing, a rule to look at
)

// styleCheck is the Check column's: computed, locked, in a dark red that
// stands out from the answers.
var styleCheck = backend.Style{Wrap: true, Color: "9C0006"}

// checkNote explains the Check column on its header.
var checkNote = "Filled in by the sheet as you work: what the row still misses or breaks, in a few words; empty when the row is fine. " +
	"Cells concerned turn " + colourName(fillCheckError) + " (an error) or " + colourName(fillCheckWarning) + " (missing, or worth a second look). " +
	"It is a help only: every answer is checked again when the sheets are collected."

// liveChecks gives the Annotate sheet its Check column's style and note
// and the conditional formats; annotateRows writes the column's cells.
func (b *builder) liveChecks(sh *backend.Sheet) {
	col := b.checkColumn()
	if col < 0 {
		return
	}
	sh.Columns[col].Style = styleCheck
	sh.Notes = append(sh.Notes, backend.Note{Row: 1, Col: col, Text: checkNote})
	if b.rows < 2 {
		return
	}
	sh.ConditionalFormats = b.conditionalFormats()
	if sh.Facts != nil {
		// Every row below the header gets a Check formula.
		sh.Facts.Note(backend.Row{Cells: []backend.Cell{{Value: backend.Formula{}, Style: styleCheck}}})
	}
}

// checkColumn is the 0-based column of the Check cells, or -1.
func (b *builder) checkColumn() int {
	col := -1
	for i, c := range b.cols {
		if c.Role == templates.RoleCheck {
			col = i
		}
	}
	return col
}

// at is the 0-based column of each key.
func (b *builder) at() map[string]int {
	out := make(map[string]int, len(b.cols))
	for i, c := range b.cols {
		out[c.Key] = i
	}
	return out
}

// onEveryRow reports whether a column's cell is on every row of its
// record: answers asked on each row, and context shown on each row.
// Otherwise the cell is on the record's first row only.
func (b *builder) onEveryRow(c templates.ColumnSpec) bool {
	switch {
	case c.Role == templates.RoleContext:
		return b.t.Rows.Per == templates.PerRecord || b.t.Rows.Per == templates.PerElement && !c.Context.FirstRowOnly
	case c.Question != nil:
		return b.t.Rows.Per != templates.PerBlock || c.Question.Scope != "block"
	}
	return true
}

// Markers in the compiled Check formula, replaced on each row by its
// number, its record's first row, and its block's last row. The compiler
// turns control characters of the template's words into spaces, so they
// occur nowhere else.
const (
	markRow   = "\x00r"
	markFirst = "\x00f"
	markLast  = "\x00l"
)

// withCheckCells wraps the emit of the Annotate sheet's rows: it numbers
// them and writes each row's Check cell. A record's first row is where
// the ID changes.
func (b *builder) withCheckCells(col int, emit func(backend.Row) error) func(backend.Row) error {
	at := b.at()
	refs := templates.CheckRefs{
		Cell: func(key string) string {
			i := at[key]
			if b.onEveryRow(b.cols[i]) {
				return backend.ColumnLetter(i) + markRow
			}
			return "$" + backend.ColumnLetter(i) + "$" + markFirst
		},
		Block: func(key string) string {
			l := backend.ColumnLetter(at[key])
			return "$" + l + "$" + markFirst + ":$" + l + "$" + markLast
		},
	}
	checks := b.t.LiveChecks(refs)
	all := compileCheck(templates.CheckText(checks))
	rowOnly := all
	if b.t.Rows.Per == templates.PerBlock {
		var own []templates.LiveCheck
		for _, lc := range checks {
			if !lc.Block {
				own = append(own, lc)
			}
		}
		rowOnly = compileCheck(templates.CheckText(own))
	}
	idCol := -1
	for i, c := range b.cols {
		if c.Role == templates.RoleID {
			idCol = i
		}
	}
	n, first, lastID := 0, 0, "\x00"
	return func(r backend.Row) error {
		n++
		if n == 1 || col >= len(r.Cells) {
			return emit(r) // the header
		}
		id, ok := r.Cells[idCol].Value.(string)
		if !ok {
			id = fmt.Sprint(r.Cells[idCol].Value)
		}
		if id != lastID {
			first, lastID = n, id
		}
		text := rowOnly
		if n == first {
			text = all
		}
		last := first + b.t.Rows.AnswerRows - 1
		cells := append([]backend.Cell(nil), r.Cells...)
		cells[col] = backend.Cell{Value: backend.Formula{Text: text.render(n, first, last)}, Style: styleCheck}
		r.Cells = cells
		return emit(r)
	}
}

// checkText is a compiled Check formula: its text cut at the markers,
// each part followed by the marker's letter (0 after the last), so that
// each row's formula is written out in one piece.
type checkText struct {
	parts []string
	marks []byte
	size  int // of the parts together
}

func compileCheck(text string) checkText {
	var c checkText
	for {
		i := strings.IndexByte(text, 0)
		if i < 0 || i+1 == len(text) {
			break
		}
		switch m := text[i : i+2]; m {
		case markRow, markFirst, markLast:
			c.parts = append(c.parts, text[:i])
			c.marks = append(c.marks, m[1])
			c.size += i
			text = text[i+2:]
			continue
		}
		// Not a marker (the compiler makes none): kept as it is.
		c.parts = append(c.parts, text[:i+1])
		c.marks = append(c.marks, 0)
		c.size += i + 1
		text = text[i+1:]
	}
	c.parts = append(c.parts, text)
	c.marks = append(c.marks, 0)
	c.size += len(text)
	return c
}

// render is the formula of row n, whose record's first row is first and
// whose block's last row is last.
func (c checkText) render(n, first, last int) string {
	var nums [3][20]byte
	row, firstRow, lastRow := strconv.AppendInt(nums[0][:0], int64(n), 10), strconv.AppendInt(nums[1][:0], int64(first), 10), strconv.AppendInt(nums[2][:0], int64(last), 10)
	var b strings.Builder
	b.Grow(c.size + len(c.marks)*len(lastRow))
	for i, p := range c.parts {
		b.WriteString(p)
		switch c.marks[i] {
		case markRow[1]:
			b.Write(row)
		case markFirst[1]:
			b.Write(firstRow)
		case markLast[1]:
			b.Write(lastRow)
		}
	}
	return b.String()
}

// conditionalFormats colour the cells each live check is about while it
// fails, over every row of the sheet: errors first, so that their red
// wins over a warning's yellow. The formulas are written for row 2 and
// move down with each row; a cell shown once per record is found by the
// record's ID, and a check made once per block holds on a block's first
// row, where the ID changes.
func (b *builder) conditionalFormats() []backend.ConditionalFormat {
	at := b.at()
	last := b.rows
	id := backend.ColumnLetter(0)
	for i, c := range b.cols {
		if c.Role == templates.RoleID {
			id = backend.ColumnLetter(i)
		}
	}
	refs := templates.CheckRefs{
		Cell: func(key string) string {
			i := at[key]
			l := backend.ColumnLetter(i)
			if b.onEveryRow(b.cols[i]) {
				return "$" + l + "2"
			}
			return fmt.Sprintf("INDEX($%s$2:$%s$%d,MATCH($%s2,$%s$2:$%s$%d,0))", l, l, last, id, id, id, last)
		},
		Block: func(key string) string {
			l := backend.ColumnLetter(at[key])
			return fmt.Sprintf("$%s2:$%s%d", l, l, 1+max(1, b.t.Rows.AnswerRows))
		},
	}
	var errs, warns []backend.ConditionalFormat
	for _, lc := range b.t.LiveChecks(refs) {
		f := lc.Formula()
		if lc.Block {
			f = fmt.Sprintf("AND($%s2<>$%s1,%s)", id, id, f)
		}
		fill, list := fillCheckError, &errs
		if lc.Severity == templates.SeverityWarning {
			fill, list = fillCheckWarning, &warns
		}
		for _, run := range columnRuns(lc.Keys, at) {
			*list = append(*list, backend.ConditionalFormat{FirstRow: 2, LastRow: last, FirstCol: run[0], LastCol: run[1], Formula: f, Fill: fill})
		}
	}
	return append(errs, warns...)
}

// columnRuns gathers the columns of keys into runs of adjacent columns,
// first and last.
func columnRuns(keys []string, at map[string]int) [][2]int {
	var runs [][2]int
	for _, k := range keys {
		i, ok := at[k]
		if !ok {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1][1]+1 == i {
			runs[n-1][1] = i
			continue
		}
		runs = append(runs, [2]int{i, i})
	}
	return runs
}
