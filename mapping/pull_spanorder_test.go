package mapping_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
)

// qaRecords are two questions for the built-in qa-span-errors template:
// q0000's block is rows 2-9, q0001's rows 10-17.
const qaRecords = `[
{"question": "Q one?", "passages": [["T1", "S one."]], "gold": "G", "prediction 1": "Paris is big. It rains. Cats fly."},
{"question": "Q two?", "passages": [["T2", "S two."]], "gold": "G", "prediction 1": "Dogs bark."}
]`

// filledQA is qa-span-errors' workbook with q0000's first three answer
// rows filled with one error each, and one error in q0001.
func filledQA(t *testing.T) *memBook {
	t.Helper()
	tp, err := templates.Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	m := newMemBook(t, tp, qaRecords)
	for _, c := range []struct {
		row             int
		checked, span   string
		errType, annots string
	}{
		{2, "TRUE", "Paris is big", "Irrelevant", "AK"},
		{3, "", "It rains", "Unverifiable Fact", "AK"},
		{4, "", "Cats fly", "Incoherent", "AK"},
		{10, "TRUE", "Dogs bark", "Irrelevant", "AK"},
	} {
		m.setRow(c.row, "q:checked", c.checked)
		m.setRow(c.row, "q:span", c.span)
		m.setRow(c.row, "q:error_type", c.errType)
		m.setRow(c.row, "annotator", c.annots)
	}
	return m
}

// body returns the Annotate sheet's rows below the header, for sorting in
// place.
func body(m *memBook) [][]string { return m.annotate()[1:] }

// TestBlockRowsNumbered checks the hidden unit cells of a block: the bare
// unit ID on its first row, the ID and the row's place on the others.
func TestBlockRowsNumbered(t *testing.T) {
	m := filledQA(t)
	var got []string
	for _, r := range body(m) {
		got = append(got, r[m.col("unit")])
	}
	want := []string{"q0000", "q0000#2", "q0000#3", "q0000#4", "q0000#5", "q0000#6", "q0000#7", "q0000#8",
		"q0001", "q0001#2", "q0001#3", "q0001#4", "q0001#5", "q0001#6", "q0001#7", "q0001#8"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unit cells (-want +got):\n%s", diff)
	}
}

// TestPullRowMarkClash reads blocks whose unit IDs contain the mark: "q"
// and "q#2" are both units, so rows are numbered with "##" and every cell
// still names one unit and one row.
func TestPullRowMarkClash(t *testing.T) {
	tp, err := templates.Load("blocks.yaml", []byte(blockTemplate))
	if err != nil {
		t.Fatal(err)
	}
	m := newMemBook(t, tp, `{"id": "q", "text": "one two three"}
{"id": "q#2", "text": "four five six"}
`)
	var cells []string
	for _, r := range body(m) {
		cells = append(cells, r[m.col("unit")])
	}
	if diff := cmp.Diff([]string{"q", "q##2", "q##3", "q#2", "q#2##2", "q#2##3"}, cells); diff != "" {
		t.Errorf("unit cells (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		row        int
		span, kind string
	}{{2, "one", "Bad"}, {3, "two", "Odd"}, {4, "three", "Bad"}, {5, "four", "Bad"}, {6, "five", "Odd"}} {
		m.setRow(c.row, "q:span", c.span)
		m.setRow(c.row, "q:kind", c.kind)
		m.setRow(c.row, "annotator", "AK")
	}
	m.setRow(2, "q:done", "TRUE")
	m.setRow(5, "q:done", "TRUE")
	p := pullMem(t, m, mapping.PullOptions{})
	if len(p.Problems) != 0 {
		t.Errorf("problems: %v", p.Problems)
	}
	got := map[string][]string{}
	for _, r := range p.Records {
		for _, s := range r.Spans {
			got[r.Unit] = append(got[r.Unit], s.Text)
		}
	}
	if diff := cmp.Diff(map[string][]string{"q": {"one", "two", "three"}, "q#2": {"four", "five"}}, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}
