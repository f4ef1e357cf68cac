package backend

import (
	"strconv"
	"strings"
)

// Sheet names of a generated workbook. SheetMeta holds the workbook's
// record of itself, which pull reads before the answers; SheetRead the
// whole text of every context its cell shows only in part.
const (
	SheetAnnotate     = "Annotate"
	SheetInstructions = "Instructions"
	SheetLists        = "Lists"
	SheetRead         = "Read"
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

// Ref is the A1 reference of a link's cell, its sheet quoted when its name
// needs quotes ("'My sheet'!B2"), as formulas and Excel's hyperlinks write
// it.
func (l *Link) Ref() string {
	name := l.Sheet
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '.')) {
			plain = false
			break
		}
	}
	// A name that reads as a cell (A1, XFD2) or as R1C1 needs quotes too.
	if plain && cellLike(name) {
		plain = false
	}
	if !plain {
		name = "'" + strings.ReplaceAll(name, "'", "''") + "'"
	}
	return name + "!" + CellName(l.Col, l.Row)
}

// cellLike reports whether a sheet name could be read as a cell reference:
// letters then digits (B2), or R and C with digits (R1C1, R, C).
func cellLike(name string) bool {
	u := strings.ToUpper(name)
	i := 0
	for i < len(u) && u[i] >= 'A' && u[i] <= 'Z' {
		i++
	}
	if i > 0 && i <= 3 && i < len(u) && strings.Trim(u[i:], "0123456789") == "" {
		return true
	}
	if u == "R" || u == "C" {
		return true
	}
	if strings.HasPrefix(u, "R") {
		rest := strings.TrimLeft(u[1:], "0123456789")
		if strings.HasPrefix(rest, "C") && strings.Trim(rest[1:], "0123456789") == "" {
			return true
		}
	}
	return false
}
