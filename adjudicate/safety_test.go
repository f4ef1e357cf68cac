package adjudicate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// unplaced are the problems that stop a workbook being made anew, as
// "Sheet!Cell".
func unplaced(ps records.Problems) []string {
	var out []string
	for _, p := range ps {
		if errors.Is(p.Err, ErrUnplaced) {
			out = append(out, p.Sheet+"!"+p.Cell)
		}
	}
	return out
}

// TestReadUnplaced: every row whose answers belong to no decision is a
// problem wrapping ErrUnplaced, named by its cell: two rows of one ID
// that disagree, answers on a row without an ID, answers on a row whose
// ID is of no item of the sheet, a sheet adjudicate did not make (one of
// its own renamed, or one added) with anything on it, a column added. A
// row pasted twice with the same decision, a row of a foreign ID with
// nothing filled, and an empty sheet added, are not. A
// Final or Note holding a formula without a saved value, or a formula's
// error, is Unwritable.
func TestReadUnplaced(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	f := find(t, tp, Options{},
		rec(tp, "u1", "a", map[string]any{"verdict": "good", "score": 3}), rec(tp, "u1", "b", map[string]any{"verdict": "bad", "score": 3}),
		rec(tp, "u2", "a", map[string]any{"verdict": "good", "score": 1}), rec(tp, "u2", "b", map[string]any{"verdict": "meh", "score": 1}),
	)
	// d0001 verdict of u1, d0002 verdict of u2.
	for _, c := range []struct {
		name string
		edit func(t *testing.T, m *memGrid)
		want []string
	}{
		{"nothing", func(*testing.T, *memGrid) {}, nil},
		{"a row pasted twice with the same decision", func(t *testing.T, m *memGrid) {
			m.sheets["Verdict"] = append(m.sheets["Verdict"], slices.Clone(m.sheets["Verdict"][1]))
		}, nil},
		{"a row pasted with another decision", func(t *testing.T, m *memGrid) {
			r := slices.Clone(m.sheets["Verdict"][1])
			r[m.col(t, "Verdict", "Or use")] = backend.ReadCell{Value: "Annotator 2"}
			m.sheets["Verdict"] = append(m.sheets["Verdict"], r)
		}, []string{"Verdict!A4"}},
		{"a note without an ID", func(t *testing.T, m *memGrid) {
			r := make([]backend.ReadCell, len(m.sheets["Verdict"][0]))
			r[m.col(t, "Verdict", "Note")] = backend.ReadCell{Value: "a second look"}
			m.sheets["Verdict"] = append(m.sheets["Verdict"], r)
		}, []string{"Verdict!A4"}},
		{"an ID of no item, filled and not", func(t *testing.T, m *memGrid) {
			r := make([]backend.ReadCell, len(m.sheets["Verdict"][0]))
			r[0], r[m.col(t, "Verdict", "Reason")] = backend.ReadCell{Value: "d0099"}, backend.ReadCell{Value: "other"}
			empty := make([]backend.ReadCell, len(r))
			empty[0] = backend.ReadCell{Value: "d0098"}
			m.sheets["Verdict"] = append(m.sheets["Verdict"], r, empty)
		}, []string{"Verdict!A4"}},
		{"a sheet renamed", func(t *testing.T, m *memGrid) {
			m.sheets["Verdict (done)"] = m.sheets["Verdict"]
			delete(m.sheets, "Verdict")
			m.order[slices.Index(m.order, "Verdict")] = "Verdict (done)"
		}, []string{"Verdict (done)!"}},
		{"a sheet added, filled and not", func(t *testing.T, m *memGrid) {
			m.sheets["Scratch"] = [][]backend.ReadCell{{}, {{}, {Value: "ask about u2"}}}
			m.sheets["Empty"] = [][]backend.ReadCell{{{Value: " "}}}
			m.order = append(m.order, "Scratch", "Empty")
		}, []string{"Scratch!"}},
		{"a column added", func(t *testing.T, m *memGrid) {
			for k := range m.sheets["Verdict"] {
				m.sheets["Verdict"][k] = append(m.sheets["Verdict"][k], backend.ReadCell{Value: "my thoughts"})
			}
		}, []string{"Verdict!J1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, rd := book(t, tp, f)
			m.setText(t, "Verdict", "d0001", "Or use", "Annotator 1")
			c.edit(t, m)
			d, ps := read(t, m, rd)
			if diff := cmp.Diff(c.want, unplaced(ps)); diff != "" {
				t.Errorf("unplaced rows (-want +got):\n%s\n%s", diff, strings.Join(problemsOf(ps), "\n"))
			}
			if c.want == nil && (d["d0001"] == nil || d["d0001"].Use != "a") || c.name == "a column added" && d["d0001"].Use != "a" {
				t.Errorf("d0001 read as %+v, want Or use a", d["d0001"])
			}
		})
	}
	for _, c := range []backend.ReadCell{{Type: backend.CellNoValue, Formula: "1/0"}, {Type: backend.CellError, Value: "#DIV/0!"}} {
		for _, header := range []string{"Final", "Note"} {
			m, rd := book(t, tp, f)
			m.set(t, "Verdict", "d0002", header, c)
			d, _ := read(t, m, rd)
			key, ok := d["d0002"].Unwritable()
			if !ok || d["d0002"].Cell(key) != "Verdict!"+m.cellOf(t, "Verdict", "d0002", header) {
				t.Errorf("%s holding %+v: Unwritable %q %v", header, c, key, ok)
			}
			if len(d["d0001"].Cells) != 0 {
				t.Errorf("d0001, never filled, has cells %v", d["d0001"].Cells)
			}
		}
	}
	m, rd := book(t, tp, f)
	m.setText(t, "Verdict", "d0002", "Final", "Good")
	d, _ := read(t, m, rd)
	if key, ok := d["d0002"].Unwritable(); ok {
		t.Errorf("a typed Final is unwritable (%s)", key)
	}
}

// reread lays items out in a workbook with filled cells, as a run of
// adjudicate does, and reads the decisions back.
func reread(t *testing.T, tp *templates.Template, annotators []string, items []*Item, filled map[string]map[string]backend.ReadCell) (*memGrid, map[string]*Decision) {
	t.Helper()
	names := make([]string, len(annotators))
	byID := map[string]*Item{}
	for k := range names {
		names[k] = fmt.Sprintf("Annotator %d", k+1)
	}
	for _, it := range items {
		it.Workbook = 0
		byID[it.ID] = it
		if it.Cluster != nil && it.Cluster.Start >= 0 {
			text := blockText
			it.Cluster.Text = &text
		}
	}
	p, err := Plan(&Book{Template: tp, Adjudication: "adj1", Adjudicator: "lead", Items: items, Annotators: annotators, Names: names, Filled: filled, Limits: backend.XLSX})
	if err != nil {
		t.Fatal(err)
	}
	m := render(t, p)
	d, ps := read(t, m, &Reading{Template: tp, Items: byID, Annotators: annotators, Names: names, File: "adj.xlsx"})
	if len(ps) != 0 {
		t.Fatalf("problems reading the workbook again:\n%s", strings.Join(problemsOf(ps), "\n"))
	}
	return m, d
}

// TestGoldKeptValue: a decided row the annotators no longer disagree on
// is Kept. With only a note (or a reason) on it, the answer they agree on
// stands, not unresolved; a real decision there wins.
func TestGoldKeptValue(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	prev := firstRun(t, find(t, tp, Options{},
		rec(tp, "u1", "a", map[string]any{"verdict": "good"}), rec(tp, "u1", "b", map[string]any{"verdict": "bad"})).Items)
	now := find(t, tp, Options{}, rec(tp, "u1", "a", map[string]any{"verdict": "good"}), rec(tp, "u1", "b", map[string]any{"verdict": "good"}))
	for _, c := range []struct {
		name  string
		cells map[string]backend.ReadCell
		want  any
		kind  string
	}{
		{"a note", map[string]backend.ReadCell{colNote: {Value: "look again"}}, "good", records.ProvenanceUnanimous},
		{"a reason", map[string]backend.ReadCell{colReason: {Value: "other"}}, "good", records.ProvenanceUnanimous},
		{"a Final", map[string]backend.ReadCell{colFinal: {Value: "Meh"}, colNote: {Value: "neither"}}, "meh", records.ProvenanceAdjudicated},
		{"an Or use", map[string]backend.ReadCell{colUse: {Value: "Annotator 2"}}, "bad", records.ProvenanceAdjudicated},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			items := []*Item{{}}
			*items[0] = *prev[0]
			items[0].Workbook = 0
			f := find(t, tp, Options{}, rec(tp, "u1", "a", map[string]any{"verdict": "good"}), rec(tp, "u1", "b", map[string]any{"verdict": "good"}))
			carried := Merge(items, map[string]*Decision{"d0001": {Cells: c.cells}}, f.Items, units("u1"))
			if len(carried.Items) != 1 || !carried.Items[0].Kept {
				t.Fatalf("items %v, want d0001 kept", itemsOf(carried.Items))
			}
			_, d := reread(t, tp, []string{"a", "b"}, carried.Items, carried.Filled)
			recs, _ := Gold(tp, now.Units, carried.Items, d, GoldOptions{})
			r := recs[0]
			if got, p := r.Values["verdict"], r.Provenance["verdict"]; got != c.want || p == nil || p.Kind != c.kind {
				t.Errorf("verdict %v (%+v), want %v %s", got, p, c.want, c.kind)
			}
			if r.Status != records.StatusComplete || len(r.Problems) != 0 {
				t.Errorf("status %s, problems %v", r.Status, r.Problems)
			}
		})
	}
}

// spanKeysOf lists a record's spans as "start-end code provenance".
func spanKeysOf(r *records.Annotation) []string {
	var out []string
	for _, s := range r.Spans {
		k := fmt.Sprintf("%d-%d %s", pos(s.Start), pos(s.End), s.Code)
		if s.Provenance != nil {
			k += " " + s.Provenance.Kind
		}
		out = append(out, k)
	}
	return out
}

// TestGoldKeptSpans: a decided cluster the annotators now agree on gives
// each span once: the agreed span when its row decides nothing, the
// decision's version (in place of the agreed one) when it does.
func TestGoldKeptSpans(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, blockTemplate)
	done := map[string]any{"done": true}
	prev := firstRun(t, find(t, tp, Options{},
		rec(tp, "u1", "a", done, sp(0, 3, "bad"), sp(14, 17, "odd")),
		rec(tp, "u1", "b", done, sp(0, 3, "odd"), sp(14, 17, "odd"))).Items)
	if diff := cmp.Diff([]string{"d0001 w0 u1 errors 0-3"}, itemsOf(prev)); diff != "" {
		t.Fatalf("first run (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		name  string
		cells map[string]backend.ReadCell
		want  []string
	}{
		{"a note", map[string]backend.ReadCell{colNote: {Value: "b saw it too"}}, []string{"0-3 bad unanimous", "14-17 odd unanimous"}},
		{"an annotator's version", map[string]backend.ReadCell{colDecision: {Value: "Annotator 1"}}, []string{"0-3 bad adjudicated", "14-17 odd unanimous"}},
		{"a retype", map[string]backend.ReadCell{colDecision: {Value: "Annotator 2"}, colType: {Value: "Bad"}}, []string{"0-3 bad adjudicated", "14-17 odd unanimous"}},
		{"drop", map[string]backend.ReadCell{colDecision: {Value: "drop"}}, []string{"14-17 odd unanimous"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			items := []*Item{{}}
			*items[0] = *prev[0]
			items[0].Workbook = 0
			// b comes round to a's span.
			now := find(t, tp, Options{}, rec(tp, "u1", "a", done, sp(0, 3, "bad"), sp(14, 17, "odd")), rec(tp, "u1", "b", done, sp(0, 3, "bad"), sp(14, 17, "odd")))
			carried := Merge(items, map[string]*Decision{"d0001": {Cells: c.cells}}, now.Items, units("u1"))
			if len(carried.Items) != 1 || !carried.Items[0].Kept {
				t.Fatalf("items %v, want d0001 kept", itemsOf(carried.Items))
			}
			_, d := reread(t, tp, []string{"a", "b"}, carried.Items, carried.Filled)
			recs, _ := Gold(tp, now.Units, carried.Items, d, GoldOptions{})
			if diff := cmp.Diff(c.want, spanKeysOf(recs[0])); diff != "" {
				t.Errorf("gold spans (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeBridge: a new span bridges two decided clusters. The merged
// cluster carries the first one's decision; the second is superseded by
// it, its row still in the manifest and the workbook with its cells; the
// gold set has each span of the carried decision once, and nothing of
// the superseded row.
func TestMergeBridge(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, blockTemplate)
	done := map[string]any{"done": true}
	prev := firstRun(t, find(t, tp, Options{},
		rec(tp, "u1", "a", done, sp(0, 3, "bad"), sp(8, 13, "odd")),
		rec(tp, "u1", "b", done, sp(0, 3, "odd"), sp(8, 13, "bad"))).Items)
	if diff := cmp.Diff([]string{"d0001 w0 u1 errors 0-3", "d0002 w1 u1 errors 8-13"}, itemsOf(prev)); diff != "" {
		t.Fatalf("first run (-want +got):\n%s", diff)
	}
	for _, it := range prev {
		it.Workbook = 0
	}
	first := map[string]backend.ReadCell{colDecision: {Value: "Annotator 1"}, colReason: {Value: "annotator error"}}
	second := map[string]backend.ReadCell{colDecision: {Value: "Annotator 2"}, colNote: {Value: "b's type"}}
	// a marks 2-10, which overlaps both.
	now := find(t, tp, Options{},
		rec(tp, "u1", "a", done, sp(0, 3, "bad"), sp(2, 10, "bad"), sp(8, 13, "odd")),
		rec(tp, "u1", "b", done, sp(0, 3, "odd"), sp(8, 13, "bad")))
	carried := Merge(prev, map[string]*Decision{"d0001": {Cells: first}, "d0002": {Cells: second}}, now.Items, units("u1"))
	if diff := cmp.Diff([]string{"d0003 w-1 u1 errors 0-13", "d0002 w0 u1 errors 8-13"}, itemsOf(carried.Items)); diff != "" {
		t.Fatalf("items (-want +got):\n%s", diff)
	}
	if got := carried.Items[1].Superseded; got != "d0003" {
		t.Errorf("d0002 superseded by %q, want d0003", got)
	}
	if diff := cmp.Diff(map[string]map[string]backend.ReadCell{"d0003": first, "d0002": second}, carried.Filled); diff != "" {
		t.Errorf("filled (-want +got):\n%s", diff)
	}
	if len(carried.Notes) != 2 || !strings.Contains(carried.Notes[1], "d0002 (unit u1): its cluster is now part of d0003") {
		t.Errorf("notes %q", carried.Notes)
	}
	m, d := reread(t, tp, []string{"a", "b"}, carried.Items, carried.Filled)
	if got := m.sheets["Spans"][m.row(t, "Spans", "d0002")-1][m.col(t, "Spans", "Note")].Value; got != "b's type" {
		t.Errorf("the superseded row's note in the workbook: %q", got)
	}
	recs, probs := Gold(tp, now.Units, carried.Items, d, GoldOptions{})
	if diff := cmp.Diff([]string{"0-3 bad adjudicated", "2-10 bad adjudicated", "8-13 odd adjudicated"}, spanKeysOf(recs[0])); diff != "" {
		t.Errorf("gold spans (-want +got):\n%s", diff)
	}
	for _, s := range recs[0].Spans {
		if s.Provenance.Decision != "d0003" || s.Provenance.Reason != "annotator error" {
			t.Errorf("span %d-%d decided by %s (%q), want d0003's carried decision", pos(s.Start), pos(s.End), s.Provenance.Decision, s.Provenance.Reason)
		}
	}
	if len(probs) != 0 || recs[0].Status != records.StatusComplete {
		t.Errorf("status %s, problems %v", recs[0].Status, problemsOf(probs))
	}
	// The next run on the same records keeps both rows as they are.
	for _, it := range carried.Items {
		it.Workbook = 0
	}
	again := Merge(carried.Items, d, find(t, tp, Options{},
		rec(tp, "u1", "a", done, sp(0, 3, "bad"), sp(2, 10, "bad"), sp(8, 13, "odd")),
		rec(tp, "u1", "b", done, sp(0, 3, "odd"), sp(8, 13, "bad"))).Items, units("u1"))
	if diff := cmp.Diff([]string{"d0003 w0 u1 errors 0-13", "d0002 w0 u1 errors 8-13"}, itemsOf(again.Items)); diff != "" || again.Items[1].Superseded != "d0003" || len(again.Notes) != 0 {
		t.Errorf("the next run: items (-want +got):\n%s superseded %q, notes %q", diff, again.Items[1].Superseded, again.Notes)
	}
}

// TestRename: carried Or use and Decision cells naming an annotator by
// the names of the last run take the names of this one; other cells and
// other values stay.
func TestRename(t *testing.T) {
	t.Parallel()
	filled := map[string]map[string]backend.ReadCell{
		"d0001": {colUse: {Value: "annotator 2"}, colNote: {Value: "Annotator 2"}},
		"d0002": {colDecision: {Value: "Annotator 1"}},
		"d0003": {colDecision: {Value: "keep"}, colUse: {Value: "suggested"}},
	}
	Rename(filled, []string{"Annotator 1", "Annotator 2"}, []string{"ann1", "ann2"})
	want := map[string]map[string]backend.ReadCell{
		"d0001": {colUse: {Value: "ann2"}, colNote: {Value: "Annotator 2"}},
		"d0002": {colDecision: {Value: "ann1"}},
		"d0003": {colDecision: {Value: "keep"}, colUse: {Value: "suggested"}},
	}
	if diff := cmp.Diff(want, filled); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	Rename(filled, []string{"ann1", "ann2"}, []string{"Annotator 1", "Annotator 2"})
	if got := filled["d0001"][colUse].Value; got != "Annotator 2" {
		t.Errorf("back: %q", got)
	}
}

// TestFeedbackRedactsReason: a reason typed by hand that names another
// annotator is redacted in the feedback workbook, as a note is.
func TestFeedbackRedactsReason(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	c := &Correction{Unit: "u1", Kind: KindValue, Question: "gaps",
		Yours: Answer{Annotator: "ann1", Value: []string{"0"}}, Gold: Answer{Annotator: records.GoldAnnotator, Value: []string{"2"}},
		Provenance: &records.Provenance{Kind: records.ProvenanceAdjudicated, Reason: "ann2 was right", Note: "so did ANN3"}}
	p := FeedbackPlan(&Feedback{Template: tp, Annotator: "ann1", Others: []string{"ann1", "ann2", "ann3"}, Corrections: []*Correction{c}, Limits: backend.XLSX})
	var rows [][]string
	if err := p.Sheets[0].Rows(func(r backend.Row) error {
		var texts []string
		for _, cell := range r.Cells {
			texts = append(texts, fmt.Sprint(cell.Value))
		}
		rows = append(rows, texts)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	at := func(h string) string { return rows[1][slices.Index(rows[0], h)] }
	if at("Reason") != "another annotator was right" || at("Note") != "so did another annotator" {
		t.Errorf("reason %q, note %q", at("Reason"), at("Note"))
	}
}
