package backendtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// The prefilled cases start every unit from the data set's own gold
// answers, given as a model's canonical records (generate --prefill):
// the annotator confirms them, and pull must read the same answers as
// from the workbook filled without them, with a trace that says what
// became of each suggestion.

// prefillFrom is the annotator of the given records: a model's name.
const prefillFrom = "model"

// legalChanged is the legal-gaps unit whose given labels the model gets
// wrong (code 3 left out), so that the annotator, writing the gold ones,
// changes them.
const legalChanged = "llama3-11"

// legalGold is the gold labels of each legal-gaps record, by ID, as a
// record's codes.
func legalGold(t *testing.T, data string) (ids []string, gold map[string][]string) {
	t.Helper()
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](filepath.Join(data, "legal-gaps/examples.sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	gold = map[string][]string{}
	for _, r := range recs {
		codes := make([]string, len(r.GoldLabels))
		for i, l := range r.GoldLabels {
			codes[i] = strconv.Itoa(l)
		}
		slices.Sort(codes)
		ids = append(ids, r.ID)
		gold[r.ID] = codes
	}
	return ids, gold
}

// legalPrefill is the model's records for legal-gaps: the gold labels,
// but for legalChanged, whose code 3 is left out.
func legalPrefill(t *testing.T, tp *templates.Template, data string) *records.Given {
	t.Helper()
	ids, gold := legalGold(t, data)
	var recs []*records.Annotation
	for _, id := range ids {
		codes := gold[id]
		if id == legalChanged {
			codes = slices.DeleteFunc(slices.Clone(codes), func(c string) bool { return c == "3" })
			if len(codes) == len(gold[id]) || len(codes) == 0 {
				t.Fatalf("the gold labels of %s are %v: the case needs 3 and another code", id, gold[id])
			}
		}
		recs = append(recs, modelRecord(tp, id, map[string]any{"gaps": codes}, nil))
	}
	return given(t, tp, recs)
}

// checkLegalPrefill checks that the prefilled legal-gaps workbook, the
// gold labels written over the model's and every row signed, pulls to
// the gold labels, with every unit's labels kept but those of
// legalChanged, changed.
func checkLegalPrefill(t *testing.T, recs []*records.Annotation, _ *templates.Template, data string) {
	t.Helper()
	ids, gold := legalGold(t, data)
	if len(recs) != len(ids) {
		t.Fatalf("%d records, want one for each of the %d units", len(recs), len(ids))
	}
	for _, r := range recs {
		state := records.PrefillKept
		if r.Unit == legalChanged {
			state = records.PrefillChanged
		}
		want := &records.PrefillTrace{From: prefillFrom, Questions: map[string]string{"gaps": state}}
		if r.Status != records.StatusComplete {
			t.Errorf("%s: status %q, want %q", r.Unit, r.Status, records.StatusComplete)
		}
		if diff := cmp.Diff(map[string]any{"gaps": gold[r.Unit]}, r.Values); diff != "" {
			t.Errorf("%s: the values are not the gold labels (-gold +pulled):\n%s", r.Unit, diff)
		}
		if diff := cmp.Diff(want, r.Prefill); diff != "" {
			t.Errorf("%s: prefill trace (-want +got):\n%s", r.Unit, diff)
		}
	}
}

// qaGold is the gold record of each QA-Feedback question, by unit, as
// pull reads the workbook FillQA filled: the block checked, the corrected
// prediction where there is one, and a span per error, then one per piece
// of missing information. Rows are left 0.
func qaGold(t *testing.T, tp *templates.Template, data string) (units []string, gold map[string]*records.Annotation) {
	t.Helper()
	recs, err := goldtest.ReadQA(filepath.Join(data, "qa-feedback/dev_feedback.sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	types := tp.QuestionByName(tp.Rows.Label)
	label := func(code string) string {
		o := types.Option(code)
		if o == nil {
			t.Fatalf("no error type %q", code)
		}
		return o.Label
	}
	field := tp.QuestionByName("span").Field
	gold = map[string]*records.Annotation{}
	for i, r := range recs {
		unit := fmt.Sprintf("q%04d", i)
		pred := r.Prediction1
		runes := []rune(pred)
		values := map[string]any{"checked": true}
		if c := r.Feedback.CorrectedPrediction; c != "" {
			values["corrected_prediction"] = c
		}
		var spans []records.SpanAnswer
		for _, e := range r.Feedback.Errors {
			start, end := e.Start, e.End
			s := records.SpanAnswer{Question: tp.Rows.Spans, Field: field, Start: &start, End: &end,
				Text: string(runes[start:end]), Code: e.Type, Label: label(e.Type)}
			switch e.Type {
			case "Wrong-Grounding":
				var ev struct {
					Passage   int   `json:"passage_id"`
					Sentences []int `json:"sentence_id"`
				}
				if err := json.Unmarshal([]byte(e.Explanation), &ev); err != nil {
					t.Fatal(err)
				}
				s.Evidence = &records.Evidence{Passage: ev.Passage, Sentences: ev.Sentences}
			case "Redundant":
				s.Values = map[string]any{"repeated": repeatedSpan(t, field, pred, e.Explanation, start)}
			}
			spans = append(spans, s)
		}
		for _, m := range r.Feedback.MissingInfo {
			spans = append(spans, records.SpanAnswer{Question: tp.Rows.Spans, Code: m.Type, Label: label(m.Type),
				Evidence: &records.Evidence{Passage: m.PassageID, Sentences: m.Sentences}})
		}
		units = append(units, unit)
		gold[unit] = &records.Annotation{Values: values, Spans: spans}
	}
	return units, gold
}

// repeatedSpan is the repeated text of a Repetitive error, where pull
// finds it: its occurrence nearest before the error span, at anchor.
func repeatedSpan(t *testing.T, field, pred, text string, anchor int) records.SpanValue {
	t.Helper()
	n := utf8.RuneCountInString(text)
	found := -1
	for _, at := range records.Occurrences(pred, text) {
		if at+n <= anchor {
			found = at
		}
	}
	if found < 0 {
		t.Fatalf("the repeated text %q does not occur before %d", text, anchor)
	}
	end := found + n
	return records.SpanValue{Field: field, Start: &found, End: &end, Text: text}
}

// qaPrefill is the model's records for qa-span-errors: the gold ones,
// with no more spans than a block has answer rows (a block's first rows
// hold the suggestions; the annotator inserts rows for the rest).
func qaPrefill(t *testing.T, tp *templates.Template, data string) *records.Given {
	t.Helper()
	units, gold := qaGold(t, tp, data)
	var recs []*records.Annotation
	for _, u := range units {
		spans := slices.Clone(gold[u].Spans[:min(len(gold[u].Spans), tp.Rows.AnswerRows)])
		for k := range spans {
			spans[k].Row = k + 1
		}
		recs = append(recs, modelRecord(tp, u, gold[u].Values, spans))
	}
	return given(t, tp, recs)
}

// checkQASuggestions checks that the workbook with the gold answers as
// suggestions, filled with them by FillQA, pulls to the gold answers,
// and that each block's trace says every suggestion was kept, and the
// spans past the block's rows added.
func checkQASuggestions(t *testing.T, recs []*records.Annotation, tp *templates.Template, data string) {
	t.Helper()
	units, gold := qaGold(t, tp, data)
	if len(recs) != len(units) {
		t.Fatalf("%d records, want one for each of the %d units", len(recs), len(units))
	}
	added := 0
	for _, r := range recs {
		g := gold[r.Unit]
		if g == nil {
			t.Errorf("a record of unit %q, which the data set does not have", r.Unit)
			continue
		}
		if r.Status != records.StatusComplete {
			t.Errorf("%s: status %q, want %q", r.Unit, r.Status, records.StatusComplete)
		}
		spans := slices.Clone(r.Spans)
		for k := range spans {
			spans[k].Row = 0
		}
		if diff := cmp.Diff(g.Values, r.Values); diff != "" {
			t.Errorf("%s: the values are not the gold ones (-gold +pulled):\n%s", r.Unit, diff)
		}
		if diff := cmp.Diff(g.Spans, spans); diff != "" {
			t.Errorf("%s: the spans are not the gold ones (-gold +pulled):\n%s", r.Unit, diff)
		}
		shown := min(len(g.Spans), tp.Rows.AnswerRows)
		added += len(g.Spans) - shown
		want := &records.PrefillTrace{From: prefillFrom, Questions: map[string]string{},
			Spans: &records.SpanTrace{Kept: shown, Added: len(g.Spans) - shown}}
		for q := range g.Values {
			want.Questions[q] = records.PrefillKept
		}
		if diff := cmp.Diff(want, r.Prefill); diff != "" {
			t.Errorf("%s: prefill trace (-want +got):\n%s", r.Unit, diff)
		}
	}
	if added == 0 {
		t.Errorf("no block has more gold spans than answer rows: the case no longer shows spans added to suggestions")
	}
}

// modelRecord is the model's canonical record of a unit.
func modelRecord(tp *templates.Template, unit string, values map[string]any, spans []records.SpanAnswer) *records.Annotation {
	return &records.Annotation{
		Schema: records.AnnotationSchema, Template: records.TemplateID{Name: tp.Name, Version: tp.Version},
		Batch: prefillFrom, Unit: unit, Item: unit, Annotator: prefillFrom, Status: records.StatusComplete,
		Values: maps.Clone(values), Spans: spans,
		Source: records.RecordSource{Kind: prefillFrom, Rows: []int{}}, Problems: []records.UnitProblem{},
	}
}

// given reads the model's records as generate --prefill does: from their
// JSON Lines.
func given(t *testing.T, tp *templates.Template, recs []*records.Annotation) *records.Given {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	g, bad := records.ReadGivenFrom(&b, prefillFrom+".jsonl", tp, "")
	if len(bad) > 0 {
		t.Fatal(bad)
	}
	if g.Len() != len(recs) {
		t.Fatalf("%d of the model's %d records read", g.Len(), len(recs))
	}
	return g
}
