package backend

// Grid is a filled workbook as a backend read it: the text of its cells,
// sheet by sheet. Rows are streamed, so a large sheet is never held whole.
type Grid struct {
	Kind   string   // KindXLSX or KindGSheets
	Name   string   // the file or spreadsheet, as named in messages and source
	Sheets []string // sheet names in tab order
	// Rows calls fn for the rows of a sheet in order, with each row's
	// 1-based number and its cells from column A. Cells hold what is
	// stored, unformatted: numbers as "4" or "4.5", booleans as "TRUE" and
	// "FALSE" (or "1" and "0"), and a formula's last computed value (a
	// formula is never evaluated). Rows with no cells may be skipped.
	Rows func(sheet string, fn func(row int, cells []string) error) error
}
