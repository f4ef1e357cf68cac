package backend

import "strconv"

// Sheet names of a generated workbook. SheetMeta holds the workbook's
// record of itself, which pull reads before the answers.
const (
	SheetAnnotate     = "Annotate"
	SheetInstructions = "Instructions"
	SheetLists        = "Lists"
	SheetMeta         = "_annosheet"
)

// ColumnLetter is the A1 name of a 0-based column: 0 is A, 26 is AA.
func ColumnLetter(col int) string {
	s := ""
	for n := col + 1; n > 0; n = (n - 1) / 26 {
		s = string(rune('A'+(n-1)%26)) + s
	}
	return s
}

// CellName is the A1 name of a 0-based column and 1-based row.
func CellName(col, row int) string { return ColumnLetter(col) + strconv.Itoa(row) }
