package records_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

const valuesTemplate = `name: vt
version: 1
title: Values
instructions: Answer everything.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: pick, header: Pick, type: choice, options: [{code: y, label: "Yes"}, {code: n, label: "No"}]}
  - {name: tags, header: Tags, type: multi, options: [{code: a, label: Alpha}, {code: b, label: Beta}, {code: c, label: Gamma}]}
  - {name: score, header: Score, type: scale, min: 1, max: 5, unanswered: 0}
  - {name: ok, header: OK, type: bool}
  - {name: note, header: Note, type: text}
  - {name: quote, header: Quote, type: span, field: text}
  - {name: ev, header: records.Evidence, type: evidence, passages: passages}
annotator: {claim: row}
`

func valuesTmpl(t *testing.T) *templates.Template {
	t.Helper()
	tp, err := templates.Load("vt.yaml", []byte(valuesTemplate))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// decoded is a JSON object as ReadRecords decodes it: numbers as
// json.Number.
func decoded(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTypedValues(t *testing.T) {
	tp := valuesTmpl(t)
	n := json.Number("3")
	tests := []struct {
		name string
		in   string // a JSON object of values
		want map[string]any
		err  error
	}{
		{name: "empty", in: `{}`, want: map[string]any{}},
		{
			name: "every type",
			in: `{"pick": "y", "tags": ["c", "a"], "score": 4, "ok": false, "note": "why",
				"quote": {"field": "text", "start": 4, "end": 7, "text": "cat"},
				"ev": {"passage": 2, "sentences": [3, 1]}}`,
			want: map[string]any{
				"pick": "y", "tags": []string{"a", "c"}, "score": 4, "ok": false, "note": "why",
				"quote": records.SpanValue{Field: "text", Start: intp(4), End: intp(7), Text: "cat"},
				"ev":    records.Evidence{Passage: 2, Sentences: []int{1, 3}},
			},
		},
		{name: "no codes ticked", in: `{"tags": []}`, want: map[string]any{"tags": []string{}}},
		{name: "a scale written as a whole float", in: `{"score": 2.0}`, want: map[string]any{"score": 2}},
		{name: "a span not found in its field", in: `{"quote": {"field": "text", "text": "dog"}}`, want: map[string]any{"quote": records.SpanValue{Field: "text", Text: "dog"}}},

		{name: "scale of text", in: `{"score": "abc"}`, err: &records.ValueError{Question: "score", Value: "abc", Reason: "is not a whole number"}},
		{name: "scale of a fraction", in: `{"score": 2.5}`, err: &records.ValueError{Question: "score", Value: json.Number("2.5"), Reason: "is not a whole number"}},
		{name: "scale out of range", in: `{"score": 9}`, err: &records.ValueError{Question: "score", Value: json.Number("9"), Reason: "is outside the scale 1 to 5"}},
		{name: "multi not a list", in: `{"tags": "a"}`, err: &records.ValueError{Question: "tags", Value: "a", Reason: "is not a list of codes"}},
		{name: "multi of a number", in: `{"tags": ["a", 3]}`, err: &records.ValueError{Question: "tags", Value: []any{"a", n}, Reason: "holds 3, which is not a code"}},
		{name: "multi code not an option", in: `{"tags": ["a", "z"]}`, err: &records.ValueError{Question: "tags", Value: []any{"a", "z"}, Reason: `holds "z", which is not one of the codes "a", "b", "c"`}},
		{name: "multi code twice", in: `{"tags": ["a", "a"]}`, err: &records.ValueError{Question: "tags", Value: []any{"a", "a"}, Reason: `holds "a" twice`}},
		{name: "choice code not an option", in: `{"pick": "maybe"}`, err: &records.ValueError{Question: "pick", Value: "maybe", Reason: `is not one of the codes "y", "n"`}},
		{name: "choice of a number", in: `{"pick": 1}`, err: &records.ValueError{Question: "pick", Value: json.Number("1"), Reason: "is not a code"}},
		{name: "bool of text", in: `{"ok": "yes"}`, err: &records.ValueError{Question: "ok", Value: "yes", Reason: "is not true or false"}},
		{name: "text of a list", in: `{"note": ["x"]}`, err: &records.ValueError{Question: "note", Value: []any{"x"}, Reason: "is not a text"}},
		{name: "unknown question", in: `{"mood": "good"}`, err: &records.ValueError{Question: "mood", Value: "good", Reason: "answers no question of template vt"}},
		{name: "span of text", in: `{"quote": "cat"}`, err: &records.ValueError{Question: "quote", Value: "cat", Reason: "is not an object"}},
		{name: "span in another field", in: `{"quote": {"field": "title", "text": "cat"}}`, err: &records.ValueError{Question: "quote", Value: map[string]any{"field": "title", "text": "cat"}, Reason: `is not in the question's field "text"`}},
		{name: "span with start only", in: `{"quote": {"field": "text", "text": "cat", "start": 4}}`, err: &records.ValueError{Question: "quote", Value: map[string]any{"field": "text", "text": "cat", "start": json.Number("4")}, Reason: "has a start without an end, or an end without a start"}},
		{name: "span ending before its start", in: `{"quote": {"field": "text", "text": "cat", "start": 4, "end": 1}}`, err: &records.ValueError{Question: "quote", Value: map[string]any{"field": "text", "text": "cat", "start": json.Number("4"), "end": json.Number("1")}, Reason: "has no offsets 0 <= start <= end"}},
		{name: "span with a stray key", in: `{"quote": {"field": "text", "text": "cat", "line": 1}}`, err: &records.ValueError{Question: "quote", Value: map[string]any{"field": "text", "text": "cat", "line": json.Number("1")}, Reason: `has "line", which a field/text/start/end has not`}},
		{name: "evidence without sentences", in: `{"ev": {"passage": 1}}`, err: &records.ValueError{Question: "ev", Value: map[string]any{"passage": json.Number("1")}, Reason: `has no "sentences"`}},
		{name: "evidence of passage 0", in: `{"ev": {"passage": 0, "sentences": [1]}}`, err: &records.ValueError{Question: "ev", Value: map[string]any{"passage": json.Number("0"), "sentences": []any{json.Number("1")}}, Reason: "has no passage number from 1"}},
		{name: "evidence of a negative sentence", in: `{"ev": {"passage": 1, "sentences": [-1]}}`, err: &records.ValueError{Question: "ev", Value: map[string]any{"passage": json.Number("1"), "sentences": []any{json.Number("-1")}}, Reason: "has sentence -1, which is not a sentence number from 0"}},
		{name: "the first bad answer by name", in: `{"score": "x", "pick": "z"}`, err: &records.ValueError{Question: "pick", Value: "z", Reason: `is not one of the codes "y", "n"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := records.TypedValues(tp, decoded(t, tc.in))
			if diff := cmp.Diff(tc.err, err); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTypedValuesTyped: values already typed, as pull gives them, are
// kept; nil stays nil.
func TestTypedValuesTyped(t *testing.T) {
	tp := valuesTmpl(t)
	in := map[string]any{
		"pick": "n", "tags": []string{"b"}, "score": 1, "ok": true, "note": "",
		"quote": records.SpanValue{Field: "text", Text: "x"},
		"ev":    records.Evidence{Passage: 1, Sentences: []int{0}},
	}
	got, err := records.TypedValues(tp, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, err := records.TypedValues(tp, nil); got != nil || err != nil {
		t.Errorf("records.TypedValues(nil) = %v, %v; want nil, nil", got, err)
	}
}

func TestValueErrorMessage(t *testing.T) {
	err := error(&records.ValueError{Question: "tags", Value: []any{"a", "z"}, Reason: `holds "z", which is not one of the codes "a", "b"`})
	want := `question "tags": ["a","z"] holds "z", which is not one of the codes "a", "b"`
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	var ve *records.ValueError
	if !errors.As(err, &ve) {
		t.Error("errors.As finds no *records.ValueError")
	}
}

// TestTypedRecord types a record's values and its span rows' values, and
// leaves the record it was given as it was.
func TestTypedRecord(t *testing.T) {
	tp, err := templates.Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	in := &records.Annotation{
		Unit:   "r1",
		Values: decoded(t, `{"checked": true}`),
		Spans: []records.SpanAnswer{
			{Question: "errors", Row: 7, Values: decoded(t, `{"repeated": {"field": "prediction", "text": "x", "start": 2, "end": 3}}`)},
			{Question: "errors", Row: 8},
		},
	}
	got, err := records.TypedRecord(tp, in)
	if err != nil {
		t.Fatal(err)
	}
	want := &records.Annotation{
		Unit:   "r1",
		Values: map[string]any{"checked": true},
		Spans: []records.SpanAnswer{
			{Question: "errors", Row: 7, Values: map[string]any{"repeated": records.SpanValue{Field: "prediction", Text: "x", Start: intp(2), End: intp(3)}}},
			{Question: "errors", Row: 8},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, ok := in.Spans[0].Values["repeated"].(map[string]any); !ok {
		t.Errorf("the record given was changed: %v", in.Spans[0].Values)
	}

	in.Spans[1].Values = decoded(t, `{"checked": 1}`)
	_, err = records.TypedRecord(tp, in)
	wantErr := `span row 8: question "checked": 1 is not true or false`
	if err == nil || err.Error() != wantErr {
		t.Errorf("error %v, want %s", err, wantErr)
	}
	var ve *records.ValueError
	if !errors.As(err, &ve) || ve.Question != "checked" {
		t.Errorf("errors.As: %v", ve)
	}
}

// TestTypedRecordSpans: a record's spans are what pull makes of a block's
// answer rows, or the record is refused, saying which span and why.
func TestTypedRecordSpans(t *testing.T) {
	t.Parallel()
	qa, err := templates.Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	legal, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	span := func(start, end int, text string) records.SpanAnswer {
		return records.SpanAnswer{Question: "errors", Row: 5, Field: "prediction", Start: intp(start), End: intp(end), Text: text, Code: "Irrelevant", Label: "Irrelevant"}
	}
	with := func(s records.SpanAnswer, f func(*records.SpanAnswer)) records.SpanAnswer { f(&s); return s }
	for _, c := range []struct {
		name string
		tp   *templates.Template
		span records.SpanAnswer
		want string // "" for a span that is fine
	}{
		{"a span as pull makes it", qa, span(4, 9, "tiger"), ""},
		{"missing information, without offsets", qa, records.SpanAnswer{Question: "errors", Row: 6, Code: "Missing-Answer", Evidence: &records.Evidence{Passage: 1, Sentences: []int{0, 2}}}, ""},
		{"start after end", qa, span(9, 4, ""), "span 1 (row 5) has offsets 9 to 4: they must be 0 <= start <= end"},
		{"a negative start", qa, span(-5, 0, "tiger"), "span 1 (row 5) has offsets -5 to 0: they must be 0 <= start <= end"},
		{"offsets past any text", qa, span(9000000000000000000, 9000000000000000005, "tiger"), "span 1 (row 5) has offsets 9000000000000000000 to 9000000000000000005, past any text"},
		{"offsets of another length than the text", qa, span(4, 12, "tiger"), "span 1 (row 5) has offsets 4 to 12 for a text of 5 characters"},
		{"a start without an end", qa, with(span(4, 9, "tiger"), func(s *records.SpanAnswer) { s.End = nil }), "span 1 (row 5) has a start without an end, or an end without a start"},
		{"another field", qa, with(span(4, 9, "tiger"), func(s *records.SpanAnswer) { s.Field = "question" }), `span 1 (row 5) is in "question", not in the field "prediction" the template's spans are in`},
		{"another question's spans", qa, with(span(4, 9, "tiger"), func(s *records.SpanAnswer) { s.Question = "mistakes" }), `span 1 (row 5) is of "mistakes", not of the template's spans "errors"`},
		{"a label of no option", qa, with(span(4, 9, "tiger"), func(s *records.SpanAnswer) { s.Code = "Irrelevent" }), `span 1 (row 5) has the label "Irrelevent", which is not one of the codes`},
		{"evidence in passage 0", qa, with(span(4, 9, "tiger"), func(s *records.SpanAnswer) { s.Evidence = &records.Evidence{Passage: 0} }), "span 1 (row 5) has evidence in passage 0; passages are numbered from 1"},
		{"a negative sentence", qa, with(span(4, 9, "tiger"), func(s *records.SpanAnswer) { s.Evidence = &records.Evidence{Passage: 2, Sentences: []int{-1}} }), "span 1 (row 5) has evidence in sentence -1; sentences are numbered from 0"},
		{"a span in a template of rows", legal, span(4, 9, "tiger"), "span 1 (row 5) is a span of a block, which template legal-gaps does not have"},
	} {
		rec := &records.Annotation{Unit: "q1", Spans: []records.SpanAnswer{c.span}}
		_, err := records.TypedRecord(c.tp, rec)
		var se *records.SpanError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &se)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func intp(n int) *int { return &n }

// TestSpanTextProblems checks spans against the texts of their fields.
func TestSpanTextProblems(t *testing.T) {
	t.Parallel()
	fields := map[string]string{"prediction": "The tiger is a cat. Ünïcode 🐯 here."}
	sv := func(start, end int, text string) records.SpanValue {
		return records.SpanValue{Field: "prediction", Start: intp(start), End: intp(end), Text: text}
	}
	rec := &records.Annotation{
		Values: map[string]any{"quote": sv(4, 9, "tiger")},
		Spans: []records.SpanAnswer{
			{Question: "errors", Row: 3, Field: "prediction", Start: intp(28), End: intp(29), Text: "🐯"},
			{Question: "errors", Row: 4, Field: "prediction", Start: intp(4), End: intp(9), Text: "tigre"},
			{Question: "errors", Row: 5, Field: "prediction", Start: intp(30), End: intp(40), Text: "0123456789"},
			{Question: "errors", Row: 6, Field: "answer", Start: intp(0), End: intp(1), Text: "T"},
			{Question: "errors", Row: 7, Code: "Missing-Answer"},
			{Question: "errors", Row: 8, Field: "prediction", Start: intp(0), End: intp(3), Text: "The", Values: map[string]any{"repeated": sv(15, 18, "dog")}},
		},
	}
	want := []string{
		`span 2 (row 4) says "tigre", but prediction has "tiger" at 4 to 9`,
		"span 3 (row 5) ends at 40, past the end of prediction (35 characters)",
		`span 4 (row 6) is in "answer", a field the unit's input does not have`,
		`span 6 (row 8): question "repeated" says "dog", but prediction has "cat" at 15 to 18`,
	}
	if diff := cmp.Diff(want, records.SpanTextProblems(rec, fields)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTypedRecordTrace: a record's prefill trace and control score are
// what pull makes, or the record is refused, saying what is wrong.
func TestTypedRecordTrace(t *testing.T) {
	t.Parallel()
	tp := valuesTmpl(t)
	good := func() *records.Annotation {
		return &records.Annotation{
			Unit:         "r1",
			Values:       map[string]any{"pick": "y"},
			Prefill:      &records.PrefillTrace{From: "gpt4o", Questions: map[string]string{"pick": "kept", "tags": "cleared", "score": "changed"}},
			Control:      true,
			ControlScore: map[string]float64{"pick": 1, "tags": 0, "score": 0.5},
		}
	}
	if _, err := records.TypedRecord(tp, good()); err != nil {
		t.Fatalf("a good trace refused: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(r *records.Annotation)
		want string
	}{
		{"no from", func(r *records.Annotation) { r.Prefill.From = "" }, `prefill: no "from": the records the unit started from are not named`},
		{"unknown question", func(r *records.Annotation) { r.Prefill.Questions["gaps"] = "kept" }, `prefill: question "gaps" is no question of template vt`},
		{"unknown state", func(r *records.Annotation) { r.Prefill.Questions["pick"] = "accepted" }, `prefill: question "pick" is "accepted", not kept, changed or cleared`},
		{"negative span count", func(r *records.Annotation) { r.Prefill.Spans = &records.SpanTrace{Kept: 1, Removed: -1} },
			"prefill: a negative count of spans (1 kept, 0 changed, -1 removed, 0 added)"},
		{"score of an unknown question", func(r *records.Annotation) { r.ControlScore["gaps"] = 1 }, `control_score: question "gaps" is no question of template vt`},
		{"score above one", func(r *records.Annotation) { r.ControlScore["score"] = 1.25 }, `control_score: question "score" scores 1.25, not between 0 and 1`},
		{"score below zero", func(r *records.Annotation) { r.ControlScore["pick"] = -0.5 }, `control_score: question "pick" scores -0.5, not between 0 and 1`},
	} {
		r := good()
		c.edit(r)
		_, err := records.TypedRecord(tp, r)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %s", c.name, err, c.want)
		}
	}
}

// TestTypedRecordBlockScore: a block's spans are scored under the name
// the records give them (rows.spans), which no question has.
func TestTypedRecordBlockScore(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	rec := &records.Annotation{Unit: "q1", Control: true, ControlScore: map[string]float64{"errors": 0.4, "checked": 1}}
	if _, err := records.TypedRecord(tp, rec); err != nil {
		t.Errorf("a block's span score refused: %v", err)
	}
	if _, err := records.TypedRecord(valuesTmpl(t), &records.Annotation{Unit: "r1", ControlScore: map[string]float64{"": 1}}); err == nil {
		t.Error("a score of no name accepted by a template without blocks")
	}
}

// TestCodeAsText: a code written as a number is refused, saying how to
// write it.
func TestCodeAsText(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	_, err = records.TypedValues(tp, decoded(t, `{"gaps": [2]}`))
	if want := `question "gaps": [2] holds 2, which is not a code; codes are text: write "2"`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	_, err = records.TypedValues(tp, decoded(t, `{"gaps": [9]}`))
	if want := `question "gaps": [9] holds 9, which is not a code`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
