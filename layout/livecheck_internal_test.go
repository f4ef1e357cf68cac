package layout

import (
	"strconv"
	"strings"
	"testing"
)

// TestCheckRender: a compiled Check formula is the formula with its
// markers replaced, as strings.Replacer replaces them.
func TestCheckRender(t *testing.T) {
	for _, text := range []string{
		"", "A" + markRow, markRow, markRow + markFirst + markLast, "IF($A$" + markFirst + "=\"\",B" + markRow + ",$C$" + markFirst + ":$C$" + markLast + ")",
		"a\x00", "\x00", "a\x00b" + markRow + "\x00\x00r", "x" + markLast + "y" + markLast,
	} {
		for _, rows := range [][3]int{{2, 2, 9}, {12345, 12340, 12347}, {1048576, 1048570, 1048577}} {
			want := strings.NewReplacer(markRow, strconv.Itoa(rows[0]), markFirst, strconv.Itoa(rows[1]), markLast, strconv.Itoa(rows[2])).Replace(text)
			if got := compileCheck(text).render(rows[0], rows[1], rows[2]); got != want {
				t.Errorf("%q at %v: %q, want %q", text, rows, got, want)
			}
		}
	}
}
