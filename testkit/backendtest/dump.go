package backendtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/pin"
)

// The sections of a golden dump.
const (
	sectionOffer   = "# offer"
	sectionCells   = "# cells"
	sectionRecords = "# records"
)

// longCell is the length from which a cell's text is dumped as a prefix
// and a hash of the whole: the dump stays readable, and still pins every
// character.
const longCell = 60

// dump is the golden text of what a backend gave: the offer, with cells
// that share a rule, a fill or a note gathered into ranges; the cells as
// read before filling, one row a line; the records pulled after filling,
// one a line.
func dump(t *testing.T, o *Offer, cells [][]string, recs []*records.Annotation) []byte {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintln(&b, sectionOffer)
	fmt.Fprintf(&b, "tabs: %q\n", o.Tabs)
	fmt.Fprintf(&b, "frozen rows, columns: %d, %d\n", o.Frozen[0], o.Frozen[1])
	fmt.Fprintf(&b, "hidden columns: %s\n", letters(o.Hidden))
	fmt.Fprintf(&b, "open columns: %s\n", letters(o.Open))
	for _, l := range byValue(t, o.Validations) {
		fmt.Fprintf(&b, "validation %s\n", l)
	}
	for _, l := range byValue(t, o.Fills) {
		fmt.Fprintf(&b, "fill %s\n", l)
	}
	dumpComputed(&b, t, o)
	notes := make([]string, 0, len(o.Notes))
	for cell, text := range o.Notes {
		notes = append(notes, fmt.Sprintf("note %s: %s", cell, short(text)))
	}
	slices.SortFunc(notes, func(a, b string) int { return cellCompare(t, cellOf(a), cellOf(b)) })
	for _, n := range notes {
		fmt.Fprintln(&b, n)
	}
	for _, l := range linkLines(t, o.Links) {
		fmt.Fprintln(&b, l)
	}
	fmt.Fprintln(&b, sectionCells)
	for _, row := range cells {
		fmt.Fprint(&b, row[0])
		for _, c := range row[1:] {
			fmt.Fprintf(&b, " | %s", short(c))
		}
		fmt.Fprintln(&b)
	}
	fmt.Fprintln(&b, sectionRecords)
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// sections splits a dump into its sections' lines.
func sections(s string) map[string][]string {
	out := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(s, "\n") {
		switch line {
		case sectionOffer, sectionCells, sectionRecords:
			cur = line
			continue
		}
		out[cur] = append(out[cur], line)
	}
	return out
}

// short quotes a text, pinned by a prefix and a hash of the whole when
// long.
func short(s string) string { return pin.Text(s, longCell) }

func letters(cols []int) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = backend.ColumnLetter(c)
	}
	return strings.Join(out, " ")
}

// byValue gathers the cells of m by value: one line per value, in order
// of the value's first cell, with its cells as ranges of rows in a
// column ("A2:A30 C2").
func byValue(t *testing.T, m map[string]string) []string {
	cells := map[string][]string{}
	for cell, v := range m {
		cells[v] = append(cells[v], cell)
	}
	type line struct {
		first string
		text  string
	}
	var lines []line
	for v, cs := range cells {
		slices.SortFunc(cs, func(a, b string) int { return cellCompare(t, a, b) })
		var rngs []string
		for i := 0; i < len(cs); {
			col, row := split(t, cs[i])
			j := i + 1
			for j < len(cs) {
				c, r := split(t, cs[j])
				if c != col || r != row+(j-i) {
					break
				}
				j++
			}
			if j-i == 1 {
				rngs = append(rngs, cs[i])
			} else {
				rngs = append(rngs, cs[i]+":"+cs[j-1])
			}
			i = j
		}
		lines = append(lines, line{cs[0], fmt.Sprintf("%s: %s", short(v), strings.Join(rngs, " "))})
	}
	slices.SortFunc(lines, func(a, b line) int { return cellCompare(t, a.first, b.first) })
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out
}

// cellOf is the cell a "note A1: ..." line is about.
func cellOf(line string) string {
	cell, _, _ := strings.Cut(strings.TrimPrefix(line, "note "), ":")
	return cell
}

// cellCompare orders A1 cells by column, then row.
func cellCompare(t *testing.T, a, b string) int {
	ca, ra := split(t, a)
	cb, rb := split(t, b)
	if ca != cb {
		return ca - cb
	}
	return ra - rb
}

// split parses an A1 cell into its 0-based column and 1-based row.
func split(t *testing.T, cell string) (col, row int) {
	i := strings.IndexFunc(cell, func(r rune) bool { return r >= '0' && r <= '9' })
	if i <= 0 {
		t.Fatalf("not a cell: %q", cell)
	}
	for _, r := range cell[:i] {
		col = col*26 + int(r-'A'+1)
	}
	row, err := strconv.Atoi(cell[i:])
	if err != nil {
		t.Fatalf("not a cell: %q", cell)
	}
	return col - 1, row
}
