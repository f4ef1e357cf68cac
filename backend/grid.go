package backend

// Grid is a filled workbook as a backend read it: the cells of its
// sheets, typed. Rows are streamed, so a large sheet is never held whole.
type Grid struct {
	Kind   string   // KindXLSX or KindGSheets
	Name   string   // the file or spreadsheet, as named in messages and source
	Sheets []string // sheet names in tab order
	// Rows calls fn for the rows of a sheet in order, with each row's
	// 1-based number and its cells from column A (a cell not in the file
	// is the zero ReadCell). Rows with no cells may be skipped. Damage to
	// the sheet is an error from Rows, never an early end of it; the error
	// says where in the grid (a part, a row, a cell), and its caller names
	// the grid.
	Rows func(sheet string, fn func(row int, cells []ReadCell) error) error
	// Skim, when set, reads a sheet as Rows does but may pass over the
	// cells of the columns keep turns down without decoding their text,
	// giving them as the zero ReadCell: a sheet's long texts cost a
	// caller that never reads them little. keep is first asked once fn
	// has had the sheet's first row (a header, which it may depend on),
	// and must answer the same for a column each time. A backend that
	// reads every cell anyway leaves it nil. Call it through RowsKeeping.
	Skim func(sheet string, keep func(col int) bool, fn func(row int, cells []ReadCell) error) error
}

// RowsKeeping reads the rows of a sheet with Skim when the grid has it,
// and with Rows otherwise: the cells of the columns keep turns down, after
// the first row, may or may not be there.
func (g *Grid) RowsKeeping(sheet string, keep func(col int) bool, fn func(row int, cells []ReadCell) error) error {
	if g.Skim != nil {
		return g.Skim(sheet, keep, fn)
	}
	return g.Rows(sheet, fn)
}

// CellType is the kind of value a read cell holds.
type CellType uint8

// The kinds of value a cell holds.
const (
	// CellString is text: typed, pasted, or a formula's text result. An
	// empty cell is an empty CellString.
	CellString CellType = iota
	// CellNumber is a number, its Value unformatted ("4", "4.5").
	CellNumber
	// CellBool is TRUE or FALSE; its Value is "TRUE" or "FALSE".
	CellBool
	// CellDate is a number the sheet shows as a date or a time: Value is
	// the serial number, Shown the date as displayed.
	CellDate
	// CellError is a formula's error value, such as "#N/A" or "#DIV/0!".
	CellError
	// CellNoValue is a formula with no saved value, written by a program
	// that does not compute formulas: Value is empty, Formula holds it.
	CellNoValue
)

// ReadCell is one cell as read back: what is stored, never evaluated.
type ReadCell struct {
	Value string
	Type  CellType
	// Shown is what the sheet displays where it differs from Value (a
	// date); empty otherwise.
	Shown string
	// Formula is the formula of a CellNoValue cell, without its "=".
	Formula string
}

// Text is the text the annotator sees in the cell: Shown when set,
// otherwise Value.
func (c ReadCell) Text() string {
	if c.Shown != "" {
		return c.Shown
	}
	return c.Value
}

// StringCells makes a row of text cells: for grids whose backend stores
// only text, and for tests.
func StringCells(values ...string) []ReadCell {
	out := make([]ReadCell, len(values))
	for i, v := range values {
		out[i] = ReadCell{Value: v}
	}
	return out
}

// Texts is the text of each cell of a row, as the annotator sees it.
func Texts(cells []ReadCell) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.Text()
	}
	return out
}
