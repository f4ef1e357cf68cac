package backend

// Formula is a cell that the spreadsheet application computes: a Cell
// whose Value is a Formula is written as a formula, where a string never
// is, whatever it starts with. Only the live checks that package
// templates compiles from a template are formulas (layout puts them in
// the sheet's Check column), and the places of blocks' rows that layout
// records on the metadata sheet: text from inputs or annotators never
// becomes one. The layers test keeps it so.
//
// A formula is written without a saved value: the application computes
// it on opening (LibreOffice and Google Sheets at once, Excel when it
// recalculates). What annosheet reads of a value (the places) it does
// without when there is none.
type Formula struct {
	// Text is the formula without its leading "=": English function
	// names, commas between arguments, as XLSX files store formulas and
	// the Sheets API takes them.
	Text string
}

// ConditionalFormat fills the cells of a range while a formula holds
// (the live checks' highlights). The formula is written for the range's
// top-left cell: references without $ move with each cell of the range,
// as in every spreadsheet application.
type ConditionalFormat struct {
	FirstRow, LastRow int // 1-based, inclusive
	FirstCol, LastCol int // 0-based, inclusive
	// Formula is without its leading "=".
	Formula string
	// Fill is the background colour, RRGGBB; "" for none.
	Fill string
	// Color is the font's colour, RRGGBB, and Italic its slant; "" and
	// false leave the cell's own.
	Color  string
	Italic bool
}
