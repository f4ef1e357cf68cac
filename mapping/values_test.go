package mapping_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/mapping"
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
  - {name: ev, header: Evidence, type: evidence, passages: passages}
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
				"quote": mapping.SpanValue{Field: "text", Start: intp(4), End: intp(7), Text: "cat"},
				"ev":    mapping.Evidence{Passage: 2, Sentences: []int{1, 3}},
			},
		},
		{name: "no codes ticked", in: `{"tags": []}`, want: map[string]any{"tags": []string{}}},
		{name: "a scale written as a whole float", in: `{"score": 2.0}`, want: map[string]any{"score": 2}},
		{name: "a span not found in its field", in: `{"quote": {"field": "text", "text": "dog"}}`, want: map[string]any{"quote": mapping.SpanValue{Field: "text", Text: "dog"}}},

		{name: "scale of text", in: `{"score": "abc"}`, err: &mapping.ValueError{Question: "score", Value: "abc", Reason: "is not a whole number"}},
		{name: "scale of a fraction", in: `{"score": 2.5}`, err: &mapping.ValueError{Question: "score", Value: json.Number("2.5"), Reason: "is not a whole number"}},
		{name: "scale out of range", in: `{"score": 9}`, err: &mapping.ValueError{Question: "score", Value: json.Number("9"), Reason: "is outside the scale 1 to 5"}},
		{name: "multi not a list", in: `{"tags": "a"}`, err: &mapping.ValueError{Question: "tags", Value: "a", Reason: "is not a list of codes"}},
		{name: "multi of a number", in: `{"tags": ["a", 3]}`, err: &mapping.ValueError{Question: "tags", Value: []any{"a", n}, Reason: "holds 3, which is not a code"}},
		{name: "multi code not an option", in: `{"tags": ["a", "z"]}`, err: &mapping.ValueError{Question: "tags", Value: []any{"a", "z"}, Reason: `holds "z", which is not one of the codes "a", "b", "c"`}},
		{name: "multi code twice", in: `{"tags": ["a", "a"]}`, err: &mapping.ValueError{Question: "tags", Value: []any{"a", "a"}, Reason: `holds "a" twice`}},
		{name: "choice code not an option", in: `{"pick": "maybe"}`, err: &mapping.ValueError{Question: "pick", Value: "maybe", Reason: `is not one of the codes "y", "n"`}},
		{name: "choice of a number", in: `{"pick": 1}`, err: &mapping.ValueError{Question: "pick", Value: json.Number("1"), Reason: "is not a code"}},
		{name: "bool of text", in: `{"ok": "yes"}`, err: &mapping.ValueError{Question: "ok", Value: "yes", Reason: "is not true or false"}},
		{name: "text of a list", in: `{"note": ["x"]}`, err: &mapping.ValueError{Question: "note", Value: []any{"x"}, Reason: "is not a text"}},
		{name: "unknown question", in: `{"mood": "good"}`, err: &mapping.ValueError{Question: "mood", Value: "good", Reason: "answers no question of template vt"}},
		{name: "span of text", in: `{"quote": "cat"}`, err: &mapping.ValueError{Question: "quote", Value: "cat", Reason: "is not an object"}},
		{name: "span in another field", in: `{"quote": {"field": "title", "text": "cat"}}`, err: &mapping.ValueError{Question: "quote", Value: map[string]any{"field": "title", "text": "cat"}, Reason: `is not in the question's field "text"`}},
		{name: "span with start only", in: `{"quote": {"field": "text", "text": "cat", "start": 4}}`, err: &mapping.ValueError{Question: "quote", Value: map[string]any{"field": "text", "text": "cat", "start": json.Number("4")}, Reason: "has a start without an end, or an end without a start"}},
		{name: "span ending before its start", in: `{"quote": {"field": "text", "text": "cat", "start": 4, "end": 1}}`, err: &mapping.ValueError{Question: "quote", Value: map[string]any{"field": "text", "text": "cat", "start": json.Number("4"), "end": json.Number("1")}, Reason: "has no offsets 0 <= start <= end"}},
		{name: "span with a stray key", in: `{"quote": {"field": "text", "text": "cat", "line": 1}}`, err: &mapping.ValueError{Question: "quote", Value: map[string]any{"field": "text", "text": "cat", "line": json.Number("1")}, Reason: `has "line", which a field/text/start/end has not`}},
		{name: "evidence without sentences", in: `{"ev": {"passage": 1}}`, err: &mapping.ValueError{Question: "ev", Value: map[string]any{"passage": json.Number("1")}, Reason: `has no "sentences"`}},
		{name: "evidence of passage 0", in: `{"ev": {"passage": 0, "sentences": [1]}}`, err: &mapping.ValueError{Question: "ev", Value: map[string]any{"passage": json.Number("0"), "sentences": []any{json.Number("1")}}, Reason: "has no passage number from 1"}},
		{name: "evidence of a negative sentence", in: `{"ev": {"passage": 1, "sentences": [-1]}}`, err: &mapping.ValueError{Question: "ev", Value: map[string]any{"passage": json.Number("1"), "sentences": []any{json.Number("-1")}}, Reason: "has sentence -1, which is not a sentence number from 0"}},
		{name: "the first bad answer by name", in: `{"score": "x", "pick": "z"}`, err: &mapping.ValueError{Question: "pick", Value: "z", Reason: `is not one of the codes "y", "n"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mapping.TypedValues(tp, decoded(t, tc.in))
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
		"quote": mapping.SpanValue{Field: "text", Text: "x"},
		"ev":    mapping.Evidence{Passage: 1, Sentences: []int{0}},
	}
	got, err := mapping.TypedValues(tp, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, err := mapping.TypedValues(tp, nil); got != nil || err != nil {
		t.Errorf("TypedValues(nil) = %v, %v; want nil, nil", got, err)
	}
}

func TestValueErrorMessage(t *testing.T) {
	err := error(&mapping.ValueError{Question: "tags", Value: []any{"a", "z"}, Reason: `holds "z", which is not one of the codes "a", "b"`})
	want := `question "tags": ["a","z"] holds "z", which is not one of the codes "a", "b"`
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	var ve *mapping.ValueError
	if !errors.As(err, &ve) {
		t.Error("errors.As finds no *ValueError")
	}
}

// TestTypedRecord types a record's values and its span rows' values, and
// leaves the record it was given as it was.
func TestTypedRecord(t *testing.T) {
	tp := valuesTmpl(t)
	in := &mapping.Annotation{
		Unit:   "r1",
		Values: decoded(t, `{"score": 2}`),
		Spans:  []mapping.SpanAnswer{{Row: 7, Values: decoded(t, `{"tags": ["b", "a"]}`)}, {Row: 8}},
	}
	got, err := mapping.TypedRecord(tp, in)
	if err != nil {
		t.Fatal(err)
	}
	want := &mapping.Annotation{
		Unit:   "r1",
		Values: map[string]any{"score": 2},
		Spans:  []mapping.SpanAnswer{{Row: 7, Values: map[string]any{"tags": []string{"a", "b"}}}, {Row: 8}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if in.Values["score"] != json.Number("2") {
		t.Errorf("the record given was changed: %v", in.Values)
	}

	in.Spans[1].Values = decoded(t, `{"ok": 1}`)
	_, err = mapping.TypedRecord(tp, in)
	wantErr := `span row 8: question "ok": 1 is not true or false`
	if err == nil || err.Error() != wantErr {
		t.Errorf("error %v, want %s", err, wantErr)
	}
	var ve *mapping.ValueError
	if !errors.As(err, &ve) || ve.Question != "ok" {
		t.Errorf("errors.As: %v", ve)
	}
}

func intp(n int) *int { return &n }
