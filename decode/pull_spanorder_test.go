package decode_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
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

// sortBody sorts the rows below the header by one column as a spreadsheet
// does: stable, empty cells last.
func sortBody(m *memBook, key string, desc bool) {
	c := m.col(key)
	cell := func(r []string) string {
		if c < len(r) {
			return r[c]
		}
		return ""
	}
	rows := body(m)
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := cell(rows[i]), cell(rows[j])
		switch {
		case a == "" || b == "":
			return a != "" && b == ""
		case desc:
			return a > b
		}
		return a < b
	})
}

// copyRow inserts a copy of row from (hidden unit cell and all) above row
// before, as an annotator copies a row and inserts the copied cells.
func copyRow(m *memBook, from, before int) {
	insertRow(m, before, slices.Clone(m.annotate()[from-1]))
}

// withoutPlaces turns the workbook into one made before the places of
// blocks' rows were recorded: its metadata has no places rows.
func withoutPlaces(m *memBook) {
	meta := m.sheets[backend.SheetMeta]
	m.sheets[backend.SheetMeta] = slices.DeleteFunc(meta, func(r []string) bool { return len(r) > 0 && r[0] == "places" })
	m.places = nil
}

// oldFormat turns the workbook into one made before block rows were
// numbered: every row of a block holds the bare unit ID, and the metadata
// has no row mark, and no places.
func oldFormat(t *testing.T, m *memBook) {
	t.Helper()
	withoutPlaces(m)
	uc := m.col("unit")
	for _, r := range body(m) {
		if uc < len(r) {
			r[uc], _, _ = strings.Cut(r[uc], "#")
		}
	}
	meta := m.sheets[backend.SheetMeta][0]
	var wb map[string]any
	if err := json.Unmarshal([]byte(strings.Join(meta[1:], "")), &wb); err != nil {
		t.Fatal(err)
	}
	if _, ok := wb["row_mark"]; !ok {
		t.Fatalf("the metadata has no row_mark: %v", wb)
	}
	delete(wb, "row_mark")
	j, err := json.Marshal(wb)
	if err != nil {
		t.Fatal(err)
	}
	m.sheets[backend.SheetMeta][0] = []string{meta[0], string(j)}
}

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

// TestPullSpanOrder sorts and edits the rows of a filled block: its spans
// come back in the order they were written, wherever its rows now are, and
// rows inserted in the block keep their place among its rows however the
// sheet was sorted since. Only the Row fields and Source.Rows, which say
// where rows are now, change.
func TestPullSpanOrder(t *testing.T) {
	qaSpan := func(start, end int, text, label, code string) records.SpanAnswer {
		return records.SpanAnswer{Question: "errors", Field: "prediction", Start: ptr(start), End: ptr(end), Text: text, Label: label, Code: code}
	}
	paris := qaSpan(0, 12, "Paris is big", "Irrelevant", "Irrelevant")
	rains := qaSpan(14, 22, "It rains", "Unverifiable Fact", "Unverifiable")
	cats := qaSpan(24, 32, "Cats fly", "Incoherent", "Incoherent")
	wet := qaSpan(17, 22, "rains", "Unverifiable Fact", "Unverifiable")
	fly := qaSpan(29, 32, "fly", "Incoherent", "Incoherent")
	deleted := records.UnitProblem{Severity: "error", Cell: "Annotate!2:9", Message: `block "q0000" had 8 rows when generated (rows 2-9); 1 is not in the sheet: deleted, with any answers it held; the block is now on rows 2, 3, 4, 5, 6, 7, 8, 9`}
	// unknown is the warning about an inserted row on a given row of a
	// sorted sheet whose places are not known.
	unknown := func(row int) records.UnitProblem {
		return records.UnitProblem{Severity: "warning", Cell: fmt.Sprintf("Annotate!%d:%d", row, row), Message: `the row was inserted in block "q0000", and the sheet has been sorted since: where in the block it was cannot be known (the workbook does not record where its rows were), so it is read where the sheet has it now`}
	}
	// unsure is the warning about an inserted row that could have been in
	// more than one place of its block.
	unsure := func(row int) records.UnitProblem {
		return records.UnitProblem{Severity: "warning", Cell: fmt.Sprintf("Annotate!%d:%d", row, row), Message: `the row was inserted in block "q0000", and the sheet has been sorted since: where in the block it was cannot be known, so it is read after the block's other rows`}
	}
	insertWet := func(m *memBook) { insertRow(m, 4, blockRowQA(m, "rains", "Unverifiable Fact")) }
	insertWetAndFly := func(m *memBook) {
		insertWet(m)
		insertRow(m, 6, blockRowQA(m, "fly", "Incoherent"))
	}
	by := func(key string, desc bool) func(m *memBook) { return func(m *memBook) { sortBody(m, key, desc) } }
	reverse := func(m *memBook) { slices.Reverse(body(m)) }
	cases := []struct {
		name string
		old  bool // a workbook made before rows were numbered
		// noPlaces: a workbook made before the places of rows were
		// recorded (or whose formulas no application computed).
		noPlaces bool
		// edit changes the sheet before the application computes the
		// places (inserted, moved, copied rows); sort after.
		edit, sort func(m *memBook)
		spans      []records.SpanAnswer
		probs      []records.UnitProblem
	}{
		{name: "as filled", spans: []records.SpanAnswer{paris, rains, cats}},
		{name: "the sheet reversed", sort: reverse, spans: []records.SpanAnswer{paris, rains, cats}},
		{name: "sorted by error type, blocks interleaved", sort: by("q:error_type", false), spans: []records.SpanAnswer{paris, rains, cats}},
		{name: "sorted by error type, descending", sort: by("q:error_type", true), spans: []records.SpanAnswer{paris, rains, cats}},
		{name: "sorted by the span column", sort: by("q:span", false), spans: []records.SpanAnswer{paris, rains, cats}},
		{name: "the third span's row moved to the top", edit: func(m *memBook) {
			moveRows(m, 4, 4, 2)
		}, spans: []records.SpanAnswer{paris, rains, cats}},
		{name: "the first span's row moved below the other block", edit: func(m *memBook) {
			moveRows(m, 2, 2, 18)
		}, spans: []records.SpanAnswer{paris, rains, cats}},
		{name: "a row inserted after the second", edit: insertWet, spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted after the second, both moved to the top", edit: func(m *memBook) {
			insertWet(m)
			moveRows(m, 3, 4, 2)
		}, spans: []records.SpanAnswer{paris, rains, wet, cats}},
		// A row inserted between the second and the third, then the sheet
		// sorted by any column: the row goes back to its place.
		{name: "a row inserted after the second, then sorted by ID", edit: insertWet, sort: by("id", false), spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted after the second, then sorted by ID, descending", edit: insertWet, sort: by("id", true), spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted after the second, then sorted by error type", edit: insertWet, sort: by("q:error_type", false), spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted after the second, then sorted by error type, descending", edit: insertWet, sort: by("q:error_type", true), spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted after the second, then sorted by span", edit: insertWet, sort: by("q:span", false), spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted after the second, then sorted by annotator, descending", edit: insertWet, sort: by("annotator", true), spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted after the second, then the sheet reversed", edit: insertWet, sort: reverse, spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted after the second, then sorted twice", edit: insertWet, sort: func(m *memBook) {
			sortBody(m, "q:error_type", false)
			sortBody(m, "id", true)
		}, spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row inserted with the block's ID typed in, then sorted by ID", edit: func(m *memBook) {
			insertWet(m)
			m.setRow(4, "id", "q0000")
		}, sort: by("id", true), spans: []records.SpanAnswer{paris, rains, wet, cats}},
		// Two rows of one block in two places: after a sort, which was
		// where is not known (their order in the sorted sheet is the
		// sort's): each is read last, and said.
		{name: "rows inserted after the second and the third, the sheet reversed", edit: insertWetAndFly, sort: reverse,
			spans: []records.SpanAnswer{paris, rains, cats, fly, wet}, probs: []records.UnitProblem{unsure(15), unsure(17)}},
		{name: "rows inserted after the second and the third, sorted by ID", edit: insertWetAndFly, sort: by("id", false),
			spans: []records.SpanAnswer{paris, rains, cats, wet, fly}, probs: []records.UnitProblem{unsure(18), unsure(19)}},
		{name: "rows inserted after the second and the third, sorted by annotator", edit: insertWetAndFly, sort: by("annotator", false),
			spans: []records.SpanAnswer{paris, rains, cats, wet, fly}, probs: []records.UnitProblem{unsure(4), unsure(6)}},
		{name: "a row copied below itself", edit: func(m *memBook) {
			copyRow(m, 3, 4)
			m.setRow(4, "q:span", "rains")
		}, spans: []records.SpanAnswer{paris, rains, wet, cats}},
		// Sorted, a row and its copy cannot be told apart: the first is
		// read as the row, with a warning.
		{name: "a row copied below itself, then the sheet sorted by span", edit: func(m *memBook) {
			copyRow(m, 3, 4)
			m.setRow(4, "q:span", "rains")
		}, sort: by("q:span", true), spans: []records.SpanAnswer{paris, wet, rains, cats}, probs: []records.UnitProblem{
			{Severity: "warning", Cell: "Annotate!2:2", Message: `rows 2, 4 are row 2 of block "q0000" and copies of it, and the sheet has been sorted since: which of them is the copy cannot be known, so row 2 is read as the row generated there`},
		}},
		{name: "a row copied below the next one", edit: func(m *memBook) {
			copyRow(m, 3, 5)
			m.setRow(5, "q:span", "rains")
		}, spans: []records.SpanAnswer{paris, rains, cats, wet}},
		{name: "a row copied below itself, then moved to the top with it", edit: func(m *memBook) {
			copyRow(m, 3, 4)
			m.setRow(4, "q:span", "rains")
			moveRows(m, 3, 4, 2)
		}, spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "a row copied, another deleted", edit: func(m *memBook) {
			copyRow(m, 3, 4)
			m.setRow(4, "q:span", "rains")
			m.sheets[backend.SheetAnnotate] = slices.Delete(m.annotate(), 5, 6) // q0000#4, empty
		}, spans: []records.SpanAnswer{paris, rains, wet, cats}, probs: []records.UnitProblem{deleted}},
		// Made before places were recorded: a sort that moved an inserted
		// row away from its block's rows is said, and it is read where it
		// is; one that did not is not.
		{name: "no places: a row inserted after the second, then sorted by error type", noPlaces: true, edit: insertWet, sort: by("q:error_type", false),
			spans: []records.SpanAnswer{paris, rains, wet, cats}, probs: []records.UnitProblem{unknown(6)}},
		{name: "no places: a row inserted with its block's ID, then sorted by ID", noPlaces: true, edit: func(m *memBook) {
			insertWet(m)
			m.setRow(4, "id", "q0000")
		}, sort: by("id", true), spans: []records.SpanAnswer{paris, rains, wet, cats}},
		{name: "no places: rows inserted after the second and the third, the sheet reversed", noPlaces: true, edit: insertWetAndFly, sort: reverse,
			spans: []records.SpanAnswer{paris, rains, cats, wet, fly}, probs: []records.UnitProblem{unknown(15), unknown(17)}},
		{name: "old workbook, as filled", old: true, spans: []records.SpanAnswer{paris, rains, cats}},
		{name: "old workbook, the sheet reversed: sheet order", old: true, sort: reverse, spans: []records.SpanAnswer{cats, rains, paris}},
		{name: "old workbook, a row moved to the top: sheet order", old: true, edit: func(m *memBook) {
			moveRows(m, 4, 4, 2)
		}, spans: []records.SpanAnswer{cats, paris, rains}},
		{name: "old workbook, a row copied, another deleted: not seen", old: true, edit: func(m *memBook) {
			copyRow(m, 3, 4)
			m.setRow(4, "q:span", "rains")
			m.sheets[backend.SheetAnnotate] = slices.Delete(m.annotate(), 5, 6)
		}, spans: []records.SpanAnswer{paris, rains, wet, cats}},
	}
	ignoreRows := cmp.Options{
		cmpopts.IgnoreFields(records.SpanAnswer{}, "Row"),
		cmpopts.IgnoreFields(records.RecordSource{}, "Rows"),
		cmpopts.EquateEmpty(),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			base := filledQA(t)
			if c.old {
				oldFormat(t, base)
			}
			base.recalc()
			want := record(pullMem(t, base, decode.PullOptions{}), "q0000")
			want.Spans, want.Problems = c.spans, c.probs
			if slices.ContainsFunc(c.probs, func(p records.UnitProblem) bool { return p.Severity == records.Error }) {
				want.Status = records.StatusPartial
			}
			m := filledQA(t)
			switch {
			case c.old:
				oldFormat(t, m)
			case c.noPlaces:
				withoutPlaces(m)
			}
			if c.edit != nil {
				c.edit(m)
			}
			m.recalc()
			if c.sort != nil {
				c.sort(m)
			}
			p := pullMem(t, m, decode.PullOptions{})
			got := record(p, "q0000")
			if diff := cmp.Diff(want, got, ignoreRows); diff != "" {
				t.Errorf("q0000 (-want +got):\n%s", diff)
			}
			if q1 := record(p, "q0001"); q1.Status != records.StatusComplete || len(q1.Spans) != 1 {
				t.Errorf("q0001: %s, spans %+v, problems %+v", q1.Status, q1.Spans, q1.Problems)
			}
			// Row and Source.Rows still say where the rows are now.
			rows := m.annotate()
			for _, s := range got.Spans {
				if cell := rows[s.Row-1][m.col("q:span")]; cell != s.Text {
					t.Errorf("span %q says row %d, which holds %q", s.Text, s.Row, cell)
				}
			}
			var now []int
			for i, r := range rows[1:] {
				if strings.HasPrefix(r[m.col("unit")], "q0000") || slices.ContainsFunc(got.Spans, func(s records.SpanAnswer) bool { return s.Row == i+2 }) {
					now = append(now, i+2)
				}
			}
			slices.Sort(got.Source.Rows)
			if diff := cmp.Diff(now, got.Source.Rows); diff != "" {
				t.Errorf("source rows (-now +got):\n%s", diff)
			}
		})
	}
}

// blockRowQA is a row an annotator inserts in a qa-span-errors block:
// empty but for a span, its error type and the annotator.
func blockRowQA(m *memBook, span, errType string) []string {
	row := make([]string, len(m.annotate()[0]))
	row[m.col("q:span")], row[m.col("q:error_type")], row[m.col("annotator")] = span, errType, "AK"
	return row
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
	slices.Reverse(body(m))
	p := pullMem(t, m, decode.PullOptions{})
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
