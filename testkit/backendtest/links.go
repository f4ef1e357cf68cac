package backendtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
)

// readInFull starts the last line of a context cell that shows its text
// in part, and says where the Read sheet has it whole.
const readInFull = "\n→ read in full: sheet " + backend.SheetRead + ", row "

// checkLinks checks that every link of the offer points at a cell the
// workbook has, with text in it; that a row with a context cell shown in
// part has its ID cell linked to the Read sheet; and, where the backend
// links parts of texts, that such a cell links to the Read row it names.
func checkLinks(t *testing.T, o *Offer, cells [][]string) {
	t.Helper()
	text := map[string]string{} // "Sheet!A1" -> text, as read back
	for _, row := range cells {
		sheet, n, _ := strings.Cut(row[0], "!")
		for i, c := range row[1:] {
			text[sheet+"!"+backend.ColumnLetter(i)+n] = c
		}
	}
	for _, links := range []map[string]string{o.Links, o.TextLinks} {
		for from, to := range links {
			if text[from] == "" {
				t.Errorf("link from %s, a cell without text", from)
			}
			if text[to] == "" {
				t.Errorf("%s links to %s, which holds nothing", from, to)
			}
		}
	}
	for cell, s := range text {
		_, label, ok := strings.Cut(s, readInFull)
		if !ok || !strings.HasPrefix(cell, backend.SheetAnnotate+"!") {
			continue
		}
		_, at := splitCell(t, cell)
		id := fmt.Sprintf("%s!A%d", backend.SheetAnnotate, at)
		if !strings.HasPrefix(o.Links[id], backend.SheetRead+"!") {
			t.Errorf("%s is shown in part, but its row's ID cell links to %q, not to the %s sheet", cell, o.Links[id], backend.SheetRead)
		}
		row, _, _ := strings.Cut(label, ",")
		if want := backend.SheetRead + "!A" + row; len(o.TextLinks) > 0 && o.TextLinks[cell] != want {
			t.Errorf("%s names row %s of the %s sheet, but its text links to %q", cell, row, backend.SheetRead, o.TextLinks[cell])
		}
	}
}

// splitCell splits "Sheet!B12" into its cell's column and row.
func splitCell(t *testing.T, ref string) (col, row int) {
	_, cell, _ := strings.Cut(ref, "!")
	return split(t, cell)
}

// linkLines are the offer's links, one a line, by sheet then cell.
func linkLines(t *testing.T, links map[string]string) []string {
	type link struct{ sheet, cell, to string }
	var all []link
	for from, to := range links {
		sheet, cell, _ := strings.Cut(from, "!")
		all = append(all, link{sheet, cell, to})
	}
	slices.SortFunc(all, func(a, b link) int {
		if a.sheet != b.sheet {
			return strings.Compare(a.sheet, b.sheet)
		}
		return cellCompare(t, a.cell, b.cell)
	})
	out := make([]string, len(all))
	for i, l := range all {
		out[i] = fmt.Sprintf("link %s!%s -> %s", l.sheet, l.cell, l.to)
	}
	return out
}
