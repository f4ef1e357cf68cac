package backend

import (
	"strings"
	"unicode/utf8"
)

// A Plan is one workbook described as plain data: its sheets, their
// columns, rows, validations, colours, locks and notes. A backend renders a
// plan without knowing anything about templates.
type Plan struct {
	Title  string
	Sheets []*Sheet // in tab order
	Active int      // index of the sheet shown on opening
}

// Visibility of a sheet.
type Visibility int

// Sheet visibilities. VeryHidden sheets cannot be unhidden from the
// spreadsheet's menus (where the format supports it).
const (
	Visible Visibility = iota
	Hidden
	VeryHidden
)

// Sheet is one tab of a plan.
type Sheet struct {
	Name       string
	Visibility Visibility
	Columns    []Column
	FreezeRows int // rows kept in view at the top
	FreezeCols int // columns kept in view at the left
	Protect    *Protection
	AutoFilter bool // filter buttons on row 1 over every column
	// Validations apply to ranges of cells.
	Validations []Validation
	// Notes are comments attached to cells (header explanations).
	Notes []Note
	// Merges join ranges of cells into one.
	Merges []Merge
	// ConditionalFormats fill cells while a formula holds, in order of
	// precedence: where two fill a cell, the first wins.
	ConditionalFormats []ConditionalFormat
	// FitWidth prints the sheet landscape, scaled to one page wide.
	FitWidth bool
	// RowCount is how many rows Rows produces, header included. Backends
	// need it up front: XLSX to declare the sheet's dimension, Google
	// Sheets to size the grid.
	RowCount int
	// Width is the number of cells of the widest row when rows are wider
	// than Columns (the metadata sheet's chunked records); 0 otherwise.
	Width int
	// Rows produces rows 1..RowCount in order.
	Rows func(emit func(Row) error) error
	// Facts, when set, says what Rows will produce before it runs: a
	// backend that needs to know (XLSX registers every style before it
	// writes rows straight into the file) then reads the rows once. When
	// nil, such a backend reads Rows twice, so a sheet whose rows are
	// costly to produce declares them.
	Facts *RowFacts
}

// RowFacts are facts about a sheet's rows known before they are produced.
type RowFacts struct {
	// Styles lists every style of a cell of the rows, each once, in the
	// order of first use.
	Styles []Style
	// Formulas is set when some cell holds a formula.
	Formulas bool

	seen map[Style]bool
}

// Note adds what row r shows to f: the rows noted in order give their
// facts.
func (f *RowFacts) Note(r Row) {
	if f.seen == nil {
		f.seen = make(map[Style]bool, len(f.Styles))
		for _, s := range f.Styles {
			f.seen[s] = true
		}
	}
	for _, c := range r.Cells {
		if !f.seen[c.Style] {
			f.seen[c.Style] = true
			f.Styles = append(f.Styles, c.Style)
		}
		if _, ok := c.Value.(Formula); ok {
			f.Formulas = true
		}
	}
}

// ColCount is how many columns the sheet needs: its columns, or its widest
// row when wider.
func (s *Sheet) ColCount() int { return max(1, len(s.Columns), s.Width) }

// Protection locks a sheet's locked cells. The fields say what annotators
// may still do.
type Protection struct {
	Sort          bool
	AutoFilter    bool
	FormatColumns bool // resize columns
	FormatRows    bool // resize rows
	InsertRows    bool
}

// Column is the width and default look of a column. Style applies to the
// column's empty cells too, including rows an annotator inserts.
type Column struct {
	Width  float64 // in characters
	Hidden bool
	Style  Style
}

// Style is how a cell looks and whether it is locked. The zero Style is a
// plain, locked cell, as in every spreadsheet.
type Style struct {
	Bold     bool
	Italic   bool
	Size     float64 // font size in points; 0 for the default
	Color    string  // font colour RRGGBB; "" for the default
	Fill     string  // background RRGGBB; "" for none
	Wrap     bool
	Unlocked bool
	Text     bool // the "@" number format: entries stay text
}

// Cell is one cell's value and style. Value is nil (empty), a string,
// int, int64, float64 or bool, or a Formula. Strings are always written
// as text, never as a formula, whatever they start with.
type Cell struct {
	Value any
	Style Style
	// Link, when set, makes the cell a hyperlink to a cell of the same
	// workbook. Value must then be a string.
	Link *Link
}

// Link is a hyperlink to a cell of a sheet of the same workbook, from
// the text of a cell from byte From of its value to its end. Google
// Sheets links that part of the text. An XLSX file links whole cells, and
// LibreOffice turns a linked text into one field that does not wrap, so
// the XLSX backend links a cell only when From is 0: a plan that wants a
// link every backend shows puts it on a short text, whole.
type Link struct {
	Sheet string
	Row   int // 1-based
	Col   int // 0-based
	From  int // byte offset in the cell's value where the link's text starts
}

// Row is one row of cells, from column A. Height is in points; 0 leaves
// the height to the application.
type Row struct {
	Cells  []Cell
	Height float64
}

// ValidationKind is the kind of data validation.
type ValidationKind int

// Kinds of data validation.
const (
	ValidAny      ValidationKind = iota // anything; carries a prompt only
	ValidList                           // one of Values (a dropdown)
	ValidWhole                          // a whole number between Min and Max
	ValidCheckbox                       // TRUE or FALSE (a checkbox where the backend has one)
)

// Validation restricts what a range of cells accepts.
type Validation struct {
	Col      int // 0-based column
	FirstRow int // 1-based, inclusive
	LastRow  int
	Kind     ValidationKind
	Values   []string // ValidList
	// Source is a range holding Values, such as "Lists!$A$2:$A$9", for
	// backends whose inline lists are too short.
	Source   string
	Min, Max int  // ValidWhole
	Strict   bool // reject other entries (otherwise only warn)
	// Prompt is shown when the cell is selected; Error when an entry is
	// rejected. Backends shorten them to their limits.
	PromptTitle, Prompt string
	ErrorTitle, Error   string
}

// Inline reports whether a list validation can carry its values inline:
// at most MaxInlineList characters, and no value with a comma or a quote
// (the inline list's separators). Otherwise backends point at Source, so
// that every backend offers the same list the same way.
func (v Validation) Inline() bool {
	n := 0
	for _, s := range v.Values {
		if strings.ContainsAny(s, `,"`) {
			return false
		}
		n += utf8.RuneCountInString(s) + 1
	}
	return n-1 <= MaxInlineList || v.Source == ""
}

// Note is a comment on a cell.
type Note struct {
	Row, Col int // 1-based row, 0-based column
	Text     string
}

// Merge is a range of cells shown as one: rows and columns inclusive, rows
// 1-based, columns 0-based.
type Merge struct {
	FirstRow, LastRow int
	FirstCol, LastCol int
}
