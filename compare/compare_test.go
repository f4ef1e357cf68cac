package compare_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/compare"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// everyType is a template with a question of every type answered once
// per record.
const everyType = `name: every-type
version: 1
title: Every type
instructions: Answer everything.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: pick, header: Pick, type: choice, options: [{code: y, label: "Yes"}, {code: n, label: "No"}]}
  - {name: tags, header: Tags, type: multi, options: [{code: a, label: Alpha}, {code: b, label: Beta}, {code: c, label: Gamma}]}
  - {name: score, header: Score, type: scale, min: 1, max: 5}
  - {name: ok, header: OK, type: bool}
  - {name: note, header: Note, type: text}
  - {name: quote, header: Quote, type: span, field: text}
  - {name: ev, header: Evidence, type: evidence, passages: passages}
annotator: {claim: row}
`

func load(t *testing.T, name string) *templates.Template {
	t.Helper()
	var tp *templates.Template
	var err error
	if name == "every-type" {
		tp, err = templates.Load("every-type.yaml", []byte(everyType))
	} else {
		tp, err = templates.Builtin(name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func ip(n int) *int { return &n }

// quote is a span of the every-type template's text.
func quote(start, end int, text string) records.SpanValue {
	return records.SpanValue{Field: "text", Start: ip(start), End: ip(end), Text: text}
}

// prediction is the text qa-span-errors' spans are marked in.
var prediction = []rune("Paris is the capital of Germany and has ten million people.")

// row is an answer row of qa-span-errors marking prediction[start:end]
// with an error type.
func row(start, end int, code string) records.SpanAnswer {
	return records.SpanAnswer{Question: "errors", Field: "prediction", Start: ip(start), End: ip(end), Text: string(prediction[start:end]), Code: code}
}

// missing is an answer row of qa-span-errors without a span: missing
// information, with its evidence.
func missing(code string, passage int, sentences ...int) records.SpanAnswer {
	return records.SpanAnswer{Question: "errors", Code: code, Evidence: &records.Evidence{Passage: passage, Sentences: sentences}}
}

// with returns r changed by f: a row like another but for one answer.
func with(r records.SpanAnswer, f func(*records.SpanAnswer)) records.SpanAnswer {
	f(&r)
	return r
}

func TestTraceQuestions(t *testing.T) {
	t.Parallel()
	tp := load(t, "every-type")
	ev := func(p int, s ...int) records.Evidence { return records.Evidence{Passage: p, Sentences: s} }
	tests := []struct {
		name      string
		sugg, got map[string]any
		want      map[string]string
	}{
		{"choice kept", map[string]any{"pick": "y"}, map[string]any{"pick": "y"}, map[string]string{"pick": "kept"}},
		{"choice changed", map[string]any{"pick": "y"}, map[string]any{"pick": "n"}, map[string]string{"pick": "changed"}},
		{"choice cleared", map[string]any{"pick": "y"}, map[string]any{}, map[string]string{"pick": "cleared"}},
		{"multi kept", map[string]any{"tags": []string{"a", "b"}}, map[string]any{"tags": []string{"a", "b"}}, map[string]string{"tags": "kept"}},
		{"multi kept in another order", map[string]any{"tags": []string{"b", "a"}}, map[string]any{"tags": []string{"a", "b"}}, map[string]string{"tags": "kept"}},
		{"multi changed to a subset", map[string]any{"tags": []string{"a", "b"}}, map[string]any{"tags": []string{"a"}}, map[string]string{"tags": "changed"}},
		{"multi changed to none ticked", map[string]any{"tags": []string{"a"}}, map[string]any{"tags": []string{}}, map[string]string{"tags": "changed"}},
		{"multi of none ticked kept", map[string]any{"tags": []string{}}, map[string]any{"tags": []string{}}, map[string]string{"tags": "kept"}},
		{"multi cleared", map[string]any{"tags": []string{"c"}}, nil, map[string]string{"tags": "cleared"}},
		{"scale kept", map[string]any{"score": 3}, map[string]any{"score": 3}, map[string]string{"score": "kept"}},
		{"scale changed", map[string]any{"score": 3}, map[string]any{"score": 4}, map[string]string{"score": "changed"}},
		{"scale cleared", map[string]any{"score": 3}, map[string]any{"pick": "y"}, map[string]string{"score": "cleared"}},
		{"bool kept", map[string]any{"ok": false}, map[string]any{"ok": false}, map[string]string{"ok": "kept"}},
		{"bool changed", map[string]any{"ok": true}, map[string]any{"ok": false}, map[string]string{"ok": "changed"}},
		{"bool false cleared", map[string]any{"ok": false}, map[string]any{}, map[string]string{"ok": "cleared"}},
		{"text kept", map[string]any{"note": "fine"}, map[string]any{"note": "fine"}, map[string]string{"note": "kept"}},
		{"text changed", map[string]any{"note": "fine"}, map[string]any{"note": "Fine"}, map[string]string{"note": "changed"}},
		{"text cleared", map[string]any{"note": "fine"}, map[string]any{}, map[string]string{"note": "cleared"}},
		{"span kept", map[string]any{"quote": quote(4, 9, "quick")}, map[string]any{"quote": quote(4, 9, "quick")}, map[string]string{"quote": "kept"}},
		{"span of another occurrence changed", map[string]any{"quote": quote(4, 9, "quick")}, map[string]any{"quote": quote(30, 35, "quick")}, map[string]string{"quote": "changed"}},
		{"span of another text changed", map[string]any{"quote": quote(4, 9, "quick")}, map[string]any{"quote": quote(4, 10, "quick ")}, map[string]string{"quote": "changed"}},
		{"span without offsets kept", map[string]any{"quote": records.SpanValue{Field: "text", Text: "gone"}}, map[string]any{"quote": records.SpanValue{Field: "text", Text: "gone"}}, map[string]string{"quote": "kept"}},
		{"span found changed", map[string]any{"quote": records.SpanValue{Field: "text", Text: "quick"}}, map[string]any{"quote": quote(4, 9, "quick")}, map[string]string{"quote": "changed"}},
		{"span cleared", map[string]any{"quote": quote(4, 9, "quick")}, map[string]any{}, map[string]string{"quote": "cleared"}},
		{"evidence kept", map[string]any{"ev": ev(1, 2, 3)}, map[string]any{"ev": ev(1, 2, 3)}, map[string]string{"ev": "kept"}},
		{"evidence kept in another order", map[string]any{"ev": ev(1, 3, 2)}, map[string]any{"ev": ev(1, 2, 3)}, map[string]string{"ev": "kept"}},
		{"evidence of another passage changed", map[string]any{"ev": ev(1, 2)}, map[string]any{"ev": ev(2, 2)}, map[string]string{"ev": "changed"}},
		{"evidence of more sentences changed", map[string]any{"ev": ev(1, 2)}, map[string]any{"ev": ev(1, 2, 4)}, map[string]string{"ev": "changed"}},
		{"evidence cleared", map[string]any{"ev": ev(1, 2)}, map[string]any{}, map[string]string{"ev": "cleared"}},
		{"a question only the annotator answered is left out",
			map[string]any{"pick": "y"}, map[string]any{"pick": "y", "score": 2, "note": "mine"},
			map[string]string{"pick": "kept"}},
		{"nothing given", nil, map[string]any{"pick": "y"}, map[string]string{}},
		{"every state at once",
			map[string]any{"pick": "n", "tags": []string{"a"}, "score": 5, "ok": true, "note": "x"},
			map[string]any{"pick": "n", "tags": []string{"a", "c"}, "ok": true},
			map[string]string{"pick": "kept", "tags": "changed", "score": "cleared", "ok": "kept", "note": "cleared"}},
		{"an answer to no question of the template is left out", map[string]any{"nope": "y", "pick": "y"}, map[string]any{"nope": "n", "pick": "y"}, map[string]string{"pick": "kept"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := compare.Trace(tp, &records.Annotation{Values: tt.sugg}, &records.Annotation{Values: tt.got})
			want := &records.PrefillTrace{Questions: tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Trace (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTraceSpans(t *testing.T) {
	t.Parallel()
	tp := load(t, "qa-span-errors")
	// "Germany" is 24:31, "ten million" 40:51, "Paris" 0:5.
	germany, million, paris := row(24, 31, "Wrong-Grounding"), row(40, 51, "Unverifiable"), row(0, 5, "Irrelevant")
	tests := []struct {
		name      string
		sugg, got []records.SpanAnswer
		want      records.SpanTrace
	}{
		{"no rows either side", nil, nil, records.SpanTrace{}},
		{"every row kept", []records.SpanAnswer{germany, million}, []records.SpanAnswer{germany, million}, records.SpanTrace{Kept: 2}},
		{"kept whatever the rows' order", []records.SpanAnswer{germany, million}, []records.SpanAnswer{million, germany}, records.SpanTrace{Kept: 2}},
		{"where a row sits and its label's wording do not count",
			[]records.SpanAnswer{germany},
			[]records.SpanAnswer{with(germany, func(r *records.SpanAnswer) { r.Row, r.Label = 17, "Inconsistent Fact" })},
			records.SpanTrace{Kept: 1}},
		// "capital of Germany" 13:31 overlaps "Germany" by 7 characters.
		{"offsets widened, overlapping, same type: changed",
			[]records.SpanAnswer{germany, million}, []records.SpanAnswer{row(13, 31, "Wrong-Grounding"), million},
			records.SpanTrace{Kept: 1, Changed: 1}},
		{"offsets shifted, overlapping, same type: changed",
			[]records.SpanAnswer{million}, []records.SpanAnswer{row(44, 58, "Unverifiable")},
			records.SpanTrace{Changed: 1}},
		// Spans pair by type: a new type is another span.
		{"type changed: removed and added",
			[]records.SpanAnswer{germany}, []records.SpanAnswer{row(24, 31, "Unverifiable")},
			records.SpanTrace{Removed: 1, Added: 1}},
		{"evidence changed",
			[]records.SpanAnswer{with(germany, func(r *records.SpanAnswer) { r.Evidence = &records.Evidence{Passage: 1, Sentences: []int{2}} })},
			[]records.SpanAnswer{with(germany, func(r *records.SpanAnswer) { r.Evidence = &records.Evidence{Passage: 1, Sentences: []int{2, 3}} })},
			records.SpanTrace{Changed: 1}},
		{"evidence cleared",
			[]records.SpanAnswer{with(germany, func(r *records.SpanAnswer) { r.Evidence = &records.Evidence{Passage: 1, Sentences: []int{2}} })},
			[]records.SpanAnswer{germany},
			records.SpanTrace{Changed: 1}},
		{"another answer of the row changed",
			[]records.SpanAnswer{with(paris, func(r *records.SpanAnswer) {
				r.Values = map[string]any{"repeated": records.SpanValue{Field: "prediction", Start: ip(0), End: ip(5), Text: "Paris"}}
			})},
			[]records.SpanAnswer{paris},
			records.SpanTrace{Changed: 1}},
		{"a given row deleted, one added",
			[]records.SpanAnswer{germany, million}, []records.SpanAnswer{germany, paris},
			records.SpanTrace{Kept: 1, Removed: 1, Added: 1}},
		{"every row removed", []records.SpanAnswer{germany, million}, nil, records.SpanTrace{Removed: 2}},
		{"rows added where none were given", nil, []records.SpanAnswer{germany, paris}, records.SpanTrace{Added: 2}},
		// "capital of Germany and" 13:35 shares 7 characters with both
		// "capital" 13:20 and "Germany" 24:31: it pairs with one only.
		{"one to one",
			[]records.SpanAnswer{row(13, 20, "Wrong-Grounding"), germany}, []records.SpanAnswer{row(13, 35, "Wrong-Grounding")},
			records.SpanTrace{Changed: 1, Removed: 1}},
		// Every candidate shares 7 characters: the tie goes to the given
		// span that starts first, "capital", not the first listed, so that
		// "Germany" is left to pair with itself. Taken in list order,
		// "Germany" would pair with 13:35, and "capital" with nothing.
		{"ties go to the span that starts first",
			[]records.SpanAnswer{germany, row(13, 20, "Wrong-Grounding")}, []records.SpanAnswer{row(13, 35, "Wrong-Grounding"), germany},
			records.SpanTrace{Kept: 1, Changed: 1}},
		{"rows without offsets pair by type, whatever their order",
			[]records.SpanAnswer{missing("Missing-Answer", 1, 2), missing("Missing-Minor-Auxiliary", 3, 0)},
			[]records.SpanAnswer{missing("Missing-Minor-Auxiliary", 3, 0), missing("Missing-Answer", 1, 2)},
			records.SpanTrace{Kept: 2}},
		// Two Missing-Answer rows given; the annotator's one pairs with
		// the first, in row order, though its evidence is the second's.
		{"rows without offsets pair in row order",
			[]records.SpanAnswer{missing("Missing-Answer", 1, 2), missing("Missing-Answer", 2, 5)},
			[]records.SpanAnswer{missing("Missing-Answer", 2, 5)},
			records.SpanTrace{Changed: 1, Removed: 1}},
		{"a row without offsets changes type: removed and added",
			[]records.SpanAnswer{missing("Missing-Answer", 1, 2)}, []records.SpanAnswer{missing("Missing-Major-Auxiliary", 1, 2)},
			records.SpanTrace{Removed: 1, Added: 1}},
		{"a span and a row without offsets never pair",
			[]records.SpanAnswer{million},
			[]records.SpanAnswer{with(million, func(r *records.SpanAnswer) { r.Start, r.End = nil, nil })},
			records.SpanTrace{Removed: 1, Added: 1}},
		{"spans of different fields never pair",
			[]records.SpanAnswer{germany},
			[]records.SpanAnswer{with(germany, func(r *records.SpanAnswer) { r.Field = "reference" })},
			records.SpanTrace{Removed: 1, Added: 1}},
		{"spans and rows without offsets together",
			[]records.SpanAnswer{germany, missing("Missing-Answer", 1, 2), million},
			[]records.SpanAnswer{missing("Missing-Answer", 1, 2), row(41, 47, "Unverifiable"), paris},
			records.SpanTrace{Kept: 1, Changed: 1, Removed: 1, Added: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := compare.Trace(tp, &records.Annotation{Spans: tt.sugg}, &records.Annotation{Spans: tt.got})
			want := &records.PrefillTrace{Questions: map[string]string{}, Spans: &tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Trace (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTraceBlock(t *testing.T) {
	t.Parallel()
	tp := load(t, "qa-span-errors")
	sugg := &records.Annotation{
		Values: map[string]any{"checked": true, "corrected_prediction": "Paris is the capital of France."},
		Spans:  []records.SpanAnswer{row(24, 31, "Wrong-Grounding"), missing("Missing-Answer", 1, 2)},
	}
	tests := []struct {
		name string
		got  *records.Annotation
		want *records.PrefillTrace
	}{
		{"the block's answers and its rows",
			&records.Annotation{Values: map[string]any{"checked": true}, Spans: []records.SpanAnswer{row(24, 31, "Wrong-Grounding")}},
			&records.PrefillTrace{
				Questions: map[string]string{"checked": "kept", "corrected_prediction": "cleared"},
				Spans:     &records.SpanTrace{Kept: 1, Removed: 1},
			}},
		{"no record: everything cleared and removed", nil,
			&records.PrefillTrace{
				Questions: map[string]string{"checked": "cleared", "corrected_prediction": "cleared"},
				Spans:     &records.SpanTrace{Removed: 2},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, compare.Trace(tp, sugg, tt.got)); diff != "" {
				t.Errorf("Trace (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTraceNotBlock checks that a template answered once per record has
// no span counts, even were a record to carry rows.
func TestTraceNotBlock(t *testing.T) {
	t.Parallel()
	tp := load(t, "legal-gaps")
	r := &records.Annotation{Values: map[string]any{"gaps": []string{"2", "3"}}, Spans: []records.SpanAnswer{row(0, 5, "Irrelevant")}}
	got := compare.Trace(tp, r, r)
	want := &records.PrefillTrace{Questions: map[string]string{"gaps": "kept"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Trace (-want +got):\n%s", diff)
	}
}

func TestScore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		template  string
		gold, got *records.Annotation
		want      map[string]float64
	}{
		{"choice, bool and scale: equal or not", "every-type",
			&records.Annotation{Values: map[string]any{"pick": "y", "ok": true, "score": 4}},
			&records.Annotation{Values: map[string]any{"pick": "y", "ok": false, "score": 4}},
			map[string]float64{"pick": 1, "ok": 0, "score": 1}},
		{"a scale one off scores 0", "every-type",
			&records.Annotation{Values: map[string]any{"score": 4}},
			&records.Annotation{Values: map[string]any{"score": 5}},
			map[string]float64{"score": 0}},
		{"bool false matched", "every-type",
			&records.Annotation{Values: map[string]any{"ok": false}},
			&records.Annotation{Values: map[string]any{"ok": false}},
			map[string]float64{"ok": 1}},
		// {2, 3} and {1, 2}: one code in common of three.
		{"multi: Jaccard", "legal-gaps",
			&records.Annotation{Values: map[string]any{"gaps": []string{"2", "3"}}},
			&records.Annotation{Values: map[string]any{"gaps": []string{"1", "2"}}},
			map[string]float64{"gaps": 1.0 / 3}},
		{"multi: the same codes", "legal-gaps",
			&records.Annotation{Values: map[string]any{"gaps": []string{"2", "3"}}},
			&records.Annotation{Values: map[string]any{"gaps": []string{"2", "3"}}},
			map[string]float64{"gaps": 1}},
		{"multi: none ticked, matched", "every-type",
			&records.Annotation{Values: map[string]any{"tags": []string{}}},
			&records.Annotation{Values: map[string]any{"tags": []string{}}},
			map[string]float64{"tags": 1}},
		{"multi: none ticked, missed", "every-type",
			&records.Annotation{Values: map[string]any{"tags": []string{}}},
			&records.Annotation{Values: map[string]any{"tags": []string{"a"}}},
			map[string]float64{"tags": 0}},
		{"span: the same", "every-type",
			&records.Annotation{Values: map[string]any{"quote": quote(4, 9, "quick")}},
			&records.Annotation{Values: map[string]any{"quote": quote(4, 9, "quick")}},
			map[string]float64{"quote": 1}},
		{"span: overlapping is not the same", "every-type",
			&records.Annotation{Values: map[string]any{"quote": quote(4, 9, "quick")}},
			&records.Annotation{Values: map[string]any{"quote": quote(4, 10, "quick ")}},
			map[string]float64{"quote": 0}},
		{"unanswered scores 0", "every-type",
			&records.Annotation{Values: map[string]any{"pick": "n", "tags": []string{"a"}, "score": 2, "ok": true, "quote": quote(0, 3, "The")}},
			&records.Annotation{Values: map[string]any{}},
			map[string]float64{"pick": 0, "tags": 0, "score": 0, "ok": 0, "quote": 0}},
		{"no record scores 0", "legal-gaps",
			&records.Annotation{Values: map[string]any{"gaps": []string{"0"}}},
			nil,
			map[string]float64{"gaps": 0}},
		{"text and evidence are not scored", "every-type",
			&records.Annotation{Values: map[string]any{"note": "x", "ev": records.Evidence{Passage: 1, Sentences: []int{1}}, "pick": "y"}},
			&records.Annotation{Values: map[string]any{"note": "y", "ev": records.Evidence{Passage: 2}, "pick": "y"}},
			map[string]float64{"pick": 1}},
		{"what gold leaves unanswered is not scored", "every-type",
			&records.Annotation{Values: map[string]any{"pick": "y"}},
			&records.Annotation{Values: map[string]any{"pick": "y", "score": 3, "tags": []string{"a"}}},
			map[string]float64{"pick": 1}},
		// Gold's 2 spans, the annotator's 3, one pair (24:31 and 13:31,
		// both Wrong-Grounding; 40:51 is another type): 2·1/5.
		{"block: span F1", "qa-span-errors",
			&records.Annotation{Values: map[string]any{"checked": true}, Spans: []records.SpanAnswer{row(24, 31, "Wrong-Grounding"), row(40, 51, "Unverifiable")}},
			&records.Annotation{Values: map[string]any{"checked": true, "corrected_prediction": "x"},
				Spans: []records.SpanAnswer{row(13, 31, "Wrong-Grounding"), row(40, 51, "Incoherent"), row(0, 5, "Irrelevant")}},
			map[string]float64{"checked": 1, "errors": 0.4}},
		{"block: both without rows agree", "qa-span-errors",
			&records.Annotation{Values: map[string]any{"checked": true}},
			&records.Annotation{Values: map[string]any{"checked": true}},
			map[string]float64{"checked": 1, "errors": 1}},
		{"block: rows where gold has none", "qa-span-errors",
			&records.Annotation{Values: map[string]any{"checked": true}},
			&records.Annotation{Values: map[string]any{"checked": true}, Spans: []records.SpanAnswer{row(0, 5, "Irrelevant")}},
			map[string]float64{"checked": 1, "errors": 0}},
		{"block: no rows where gold has some", "qa-span-errors",
			&records.Annotation{Spans: []records.SpanAnswer{row(0, 5, "Irrelevant")}},
			&records.Annotation{Values: map[string]any{"checked": true}},
			map[string]float64{"errors": 0}},
		// Missing-Answer pairs by type, evidence aside; 0:5 is not
		// marked by gold: 2·1/3.
		{"block: rows without offsets pair by type", "qa-span-errors",
			&records.Annotation{Spans: []records.SpanAnswer{missing("Missing-Answer", 1, 2)}},
			&records.Annotation{Spans: []records.SpanAnswer{missing("Missing-Answer", 2, 4), row(0, 5, "Irrelevant")}},
			map[string]float64{"errors": 2.0 / 3}},
		{"block: the corrected prediction is text", "qa-span-errors",
			&records.Annotation{Values: map[string]any{"corrected_prediction": "Paris is the capital of France."}},
			&records.Annotation{Values: map[string]any{"corrected_prediction": "Paris is the capital of France."}},
			map[string]float64{"errors": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := compare.Score(load(t, tt.template), tt.gold, tt.got)
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-15 })); diff != "" {
				t.Errorf("Score (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScoreSpansAsPairF1 checks that a block's score is agreement's
// PairF1 with labels when every row has offsets.
func TestScoreSpansAsPairF1(t *testing.T) {
	t.Parallel()
	tp := load(t, "qa-span-errors")
	lists := [][]records.SpanAnswer{
		nil,
		{row(24, 31, "Wrong-Grounding")},
		{row(24, 31, "Wrong-Grounding"), row(40, 51, "Unverifiable")},
		{row(13, 31, "Wrong-Grounding"), row(40, 51, "Incoherent"), row(0, 5, "Irrelevant")},
		{row(13, 20, "Wrong-Grounding"), row(13, 35, "Wrong-Grounding"), row(36, 51, "Unverifiable")},
		{row(0, 58, "Irrelevant"), row(0, 5, "Irrelevant"), row(6, 8, "Irrelevant")},
	}
	spans := func(rows []records.SpanAnswer) []agreement.Span {
		var out []agreement.Span
		for _, r := range rows {
			out = append(out, agreement.Span{Start: *r.Start, End: *r.End, Label: r.Code})
		}
		return out
	}
	for i, a := range lists {
		for j, b := range lists {
			got := compare.Score(tp, &records.Annotation{Spans: a}, &records.Annotation{Spans: b})["errors"]
			if want := agreement.PairF1(spans(a), spans(b), true); got != want {
				t.Errorf("lists %d and %d: Score %v, PairF1 %v", i, j, got, want)
			}
		}
	}
}

func TestScoreNoGold(t *testing.T) {
	t.Parallel()
	if got := compare.Score(load(t, "legal-gaps"), nil, &records.Annotation{}); got != nil {
		t.Errorf("Score without gold = %v, want nil", got)
	}
}
