package adjudicate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

func record(tp *templates.Template, unit, annotator string, values map[string]any, spans ...records.SpanAnswer) *records.Annotation {
	return &records.Annotation{Template: records.TemplateID{Name: tp.Name, Version: tp.Version}, Unit: unit, Item: unit, Annotator: annotator, Status: records.StatusComplete, Values: values, Spans: spans}
}

// adjudication finds the items of records and numbers them, as a run of
// adjudicate would.
func adjudication(t *testing.T, tp *templates.Template, recs []*records.Annotation, minAgreement int) *Manifest {
	t.Helper()
	f, err := Find(tp, recs, Options{MinAgreement: minAgreement})
	if err != nil {
		t.Fatal(err)
	}
	for k, it := range f.Items {
		it.ID = fmt.Sprintf("d%04d", k+1)
	}
	return &Manifest{Annotators: f.Annotators, MinAgreement: minAgreement, Units: f.Units, Items: f.Items}
}

// row is a correction as the test reads it.
type row struct {
	Unit, Yours, Gold, Kind, Reason, Note string
}

// corrections are Corrections by annotator as rows.
func corrections(tp *templates.Template, m *Manifest, decided map[string]*Decision, recs []*records.Annotation) map[string][]row {
	out := map[string][]row{}
	for a, cs := range Corrections(tp, m, decided, recs) {
		out[a] = rows(tp, cs)
	}
	return out
}

func rows(tp *templates.Template, cs []*Correction) []row {
	var out []row
	for _, c := range cs {
		r := row{Unit: c.Unit, Kind: c.Provenance.Kind, Reason: c.Provenance.Reason, Note: c.Provenance.Note}
		if c.Kind == KindSpans {
			r.Yours, r.Gold = layout.ShowSpans(tp, c.Yours.Spans), layout.ShowSpans(tp, c.Gold.Spans)
		} else {
			q := tp.QuestionByName(c.Question)
			r.Yours, r.Gold = layout.ShowValue(tp, q, c.Yours.Value), layout.ShowValue(tp, q, c.Gold.Value)
		}
		out = append(out, r)
	}
	return out
}

func TestCorrectionsOfValues(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	gaps := func(codes ...string) map[string]any { return map[string]any{"gaps": codes} }
	var recs []*records.Annotation
	for _, u := range []struct {
		unit    string
		a, b, c []string
	}{
		{"u1", []string{"2"}, []string{"2"}, []string{"3"}}, // a majority of 2 outvotes c
		{"u2", []string{"1"}, []string{"2"}, []string{"0"}}, // decided: Final 1
		{"u3", []string{"0"}, []string{"1"}, []string{"2"}}, // decided: b's answer
		{"u4", []string{"3"}, []string{"2"}, []string{"1"}}, // nobody decided
		{"u5", []string{"0"}, []string{"0"}, []string{"0"}}, // unanimous
		{"u6", []string{"1"}, []string{"2"}, []string{"3"}}, // Or use suggested on a tie: unresolved
		{"u7", []string{"2"}, []string{"3"}, []string{"1"}}, // a cell of the row unreadable
	} {
		recs = append(recs, record(tp, u.unit, "a", gaps(u.a...)), record(tp, u.unit, "b", gaps(u.b...)), record(tp, u.unit, "c", gaps(u.c...)))
	}
	m := adjudication(t, tp, recs, 2)
	id := map[string]string{}
	for _, it := range m.Items {
		id[it.Unit] = it.ID
	}
	decided := map[string]*Decision{
		id["u2"]: {Final: []string{"1"}, HasFinal: true, Reason: "annotator error", Note: "1 ends the row"},
		id["u3"]: {Use: "b", Reason: "guideline unclear"},
		id["u4"]: {},
		id["u6"]: {Use: UseSuggested},
		id["u7"]: {Final: []string{"0"}, HasFinal: true, Bad: true},
	}
	adjudicated := func(unit, yours, gold, reason, note string) row {
		return row{Unit: unit, Yours: yours, Gold: gold, Kind: records.ProvenanceAdjudicated, Reason: reason, Note: note}
	}
	want := map[string][]row{
		"a": {adjudicated("u3", "0 No gap", "1 Intrinsic error/LLM error", "guideline unclear", "")},
		"b": {adjudicated("u2", "2 Target Mismatch", "1 Intrinsic error/LLM error", "annotator error", "1 ends the row")},
		"c": {
			{Unit: "u1", Yours: "3 Citation Error", Gold: "2 Target Mismatch", Kind: records.ProvenanceMajority},
			adjudicated("u2", "0 No gap", "1 Intrinsic error/LLM error", "annotator error", "1 ends the row"),
			adjudicated("u3", "2 Target Mismatch", "1 Intrinsic error/LLM error", "guideline unclear", ""),
		},
	}
	if diff := cmp.Diff(want, corrections(tp, m, decided, recs)); diff != "" {
		t.Errorf("corrections with the records (-want +got):\n%s", diff)
	}

	// Without the records, the answer a majority outvoted is not known.
	want["c"] = want["c"][1:]
	if diff := cmp.Diff(want, corrections(tp, m, decided, nil)); diff != "" {
		t.Errorf("corrections without the records (-want +got):\n%s", diff)
	}
}

func TestCorrectionsOfSpans(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "qa-span-errors")
	span := func(start, end int, code string) records.SpanAnswer {
		text := strings.Repeat("x", end-start)
		return records.SpanAnswer{Question: "errors", Field: "prediction", Start: &start, End: &end, Text: text, Code: code, Label: tp.QuestionByName("error_type").Option(code).Label}
	}
	checked := map[string]any{"checked": true}
	recs := []*records.Annotation{
		record(tp, "s1", "a", checked, span(0, 5, "Irrelevant")),
		record(tp, "s1", "b", checked, span(2, 7, "Redundant")),
		record(tp, "s2", "a", checked, span(0, 4, "Irrelevant")),
		record(tp, "s2", "b", checked),
		record(tp, "s3", "a", checked, span(1, 3, "Incoherent")),
		record(tp, "s3", "b", checked),
	}
	m := adjudication(t, tp, recs, 0)
	if len(m.Items) != 3 {
		t.Fatalf("%d items, want 3", len(m.Items))
	}
	decided := map[string]*Decision{
		m.Items[0].ID: {Choice: "a", Reason: "annotator error"},   // s1: a's span
		m.Items[1].ID: {Choice: DecideDrop, Note: "not an error"}, // s2: no span
		m.Items[2].ID: {Choice: DecideKeep},                       // s3: keep on a tie: unresolved
	}
	want := map[string][]row{
		"a": {{Unit: "s2", Yours: "«xxxx» · Irrelevant", Gold: layout.NoSpan, Kind: records.ProvenanceAdjudicated, Note: "not an error"}},
		"b": {{Unit: "s1", Yours: "«xxxxx» · Repetitive", Gold: "«xxxxx» · Irrelevant", Kind: records.ProvenanceAdjudicated, Reason: "annotator error"}},
	}
	if diff := cmp.Diff(want, corrections(tp, m, decided, recs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFeedbackRedactsOthers(t *testing.T) {
	t.Parallel()
	f := &Feedback{Annotator: "ann1", Others: []string{"ann1", "ann2", "Bo"}}
	for _, tc := range []struct{ note, want string }{
		{"ann2 was right", "another annotator was right"},
		{"as ANN2 and bo said; ann1 missed it", "as another annotator and another annotator said; ann1 missed it"},
		{"ann23 and bob are other words", "ann23 and bob are other words"},
		{"(ann2)", "(another annotator)"},
		{"", ""},
	} {
		if got := f.redact(tc.note); got != tc.want {
			t.Errorf("redact(%q) = %q, want %q", tc.note, got, tc.want)
		}
	}
}

func TestFeedbackPlan(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	c := &Correction{Unit: "gpt4o-11", Kind: KindValue, Question: "gaps",
		Yours: Answer{Annotator: "ann1", Value: []string{"0"}}, Gold: Answer{Annotator: records.GoldAnnotator, Value: []string{"2", "3"}},
		Provenance: &records.Provenance{Kind: records.ProvenanceAdjudicated, Reason: "annotator error", Note: "ann2 saw it", Adjudicator: "lead"}}
	p := FeedbackPlan(&Feedback{Template: tp, Annotator: "ann1", Others: []string{"ann1", "ann2"}, Corrections: []*Correction{c},
		Shown:   func(string) string { return "item-0001" },
		Context: func(string) map[string]string { return map[string]string{"generation": "The generation."} },
		Limits:  backend.XLSX})
	var names []string
	for _, s := range p.Sheets {
		names = append(names, s.Name)
		if s.Protect == nil {
			t.Errorf("sheet %s is not protected", s.Name)
		}
	}
	if diff := cmp.Diff([]string{SheetCorrections, backend.SheetInstructions}, names); diff != "" {
		t.Errorf("sheets (-want +got):\n%s", diff)
	}
	var got [][]string
	if err := p.Sheets[0].Rows(func(r backend.Row) error {
		var texts []string
		for _, cell := range r.Cells {
			if cell.Style.Unlocked {
				t.Errorf("an unlocked cell: %v", cell.Value)
			}
			text := ""
			if cell.Value != nil {
				text = fmt.Sprint(cell.Value)
			}
			texts = append(texts, text)
		}
		got = append(got, texts)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"ID", "Question", "Previous context", "Cited paragraphs", "Generation", "Target", "Your answer", "Gold answer", "Decided by", "Reason", "Note"},
		{"item-0001", "Gaps", "", "", "The generation.", "", "0 No gap", "2 Target Mismatch; 3 Citation Error", "adjudicator", "annotator error", "another annotator saw it"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if p.Sheets[0].RowCount != len(got) {
		t.Errorf("RowCount %d, rows %d", p.Sheets[0].RowCount, len(got))
	}
}
