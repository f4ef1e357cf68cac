package study

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

func arec(t *templates.Template, unit, annotator, status string, values map[string]any, spans ...records.SpanAnswer) *records.Annotation {
	return &records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: t.Name, Version: t.Version},
		Unit: unit, Item: unit, Annotator: annotator, Status: status, Values: values, Spans: spans}
}

// cells renders a table as unit -> one string per coder ("-" for no
// value), for comparing.
func cells(tb agreement.Table) map[string][]string {
	out := map[string][]string{}
	for _, u := range tb.Units {
		var row []string
		for c := range tb.Coders {
			switch v := u.Value(c); {
			case v == nil:
				row = append(row, "-")
			case v.Set != nil:
				row = append(row, "{"+strings.Join(v.Set, ",")+"}")
			case v.Code != "":
				row = append(row, v.Code)
			case v.Text != "":
				row = append(row, "t:"+v.Text)
			default:
				row = append(row, "n:"+strconv.FormatFloat(v.Num, 'g', -1, 64))
			}
		}
		out[u.ID] = row
	}
	return out
}

// TestAgreeTables checks what each question is compared on: values paired
// by unit and annotator whatever the records' order; a scale's "not yet
// answered" value is no value; an empty selection is one; partial units
// only with IncludePartial; annotators narrowed by Annotators.
func TestAgreeTables(t *testing.T) {
	t.Parallel()
	pref := builtin.Template(t, "preference-likert")
	legal := builtin.Template(t, "legal-gaps")
	fg := builtin.Template(t, "factgenie-meta-eval")
	cases := []struct {
		name     string
		tp       *templates.Template
		recs     func(tp *templates.Template) []*records.Annotation
		opt      AgreeOptions
		question string
		want     map[string][]string
		coders   []string
	}{
		{
			name: "paired by unit, in any order; likert 0 is no rating", tp: pref, question: "first_prediction_likert",
			recs: func(tp *templates.Template) []*records.Annotation {
				return []*records.Annotation{
					arec(tp, "t2", "bt", "complete", map[string]any{"first_prediction_likert": 4}),
					arec(tp, "t1", "ak", "complete", map[string]any{"first_prediction_likert": 5}),
					arec(tp, "t2", "ak", "complete", map[string]any{"first_prediction_likert": 0}),
					arec(tp, "t1", "bt", "complete", map[string]any{"first_prediction_likert": 5}),
				}
			},
			coders: []string{"ak", "bt"},
			want:   map[string][]string{"t1": {"n:5", "n:5"}, "t2": {"-", "n:4"}},
		},
		{
			name: "an empty selection is an answer; partial units are left out", tp: legal, question: "gaps",
			recs: func(tp *templates.Template) []*records.Annotation {
				return []*records.Annotation{
					arec(tp, "g1", "ak", "complete", map[string]any{"gaps": []string{}}),
					arec(tp, "g1", "bt", "complete", map[string]any{"gaps": []string{"2", "3"}}),
					arec(tp, "g2", "ak", "partial", map[string]any{"gaps": []string{"1"}}),
					arec(tp, "g2", "bt", "complete", map[string]any{"gaps": []string{"1"}}),
					arec(tp, "g3", "ak", "empty", nil),
				}
			},
			coders: []string{"ak", "bt"},
			want:   map[string][]string{"g1": {"{}", "{2,3}"}, "g2": {"-", "{1}"}},
		},
		{
			name: "partial units with --include-partial", tp: legal, question: "gaps", opt: AgreeOptions{IncludePartial: true},
			recs: func(tp *templates.Template) []*records.Annotation {
				return []*records.Annotation{
					arec(tp, "g2", "ak", "partial", map[string]any{"gaps": []string{"1"}}),
					arec(tp, "g2", "bt", "complete", map[string]any{"gaps": []string{"1"}}),
				}
			},
			coders: []string{"ak", "bt"},
			want:   map[string][]string{"g2": {"{1}", "{1}"}},
		},
		{
			name: "boxes left blank on a complete unit select nothing; on a partial one they are no answer", tp: fg, question: "flags", opt: AgreeOptions{IncludePartial: true},
			recs: func(tp *templates.Template) []*records.Annotation {
				judged := map[string]any{"span_ok": "Error", "explanation_ok": "Correct"}
				return []*records.Annotation{
					arec(tp, "s1", "ak", "complete", judged),
					arec(tp, "s1", "bt", "complete", map[string]any{"span_ok": "Error", "explanation_ok": "Correct", "flags": []string{"Too strict"}}),
					arec(tp, "s2", "ak", "partial", map[string]any{"span_ok": "Error"}),
					arec(tp, "s2", "bt", "complete", judged),
				}
			},
			coders: []string{"ak", "bt"},
			want:   map[string][]string{"s1": {"{}", "{Too strict}"}, "s2": {"-", "{}"}},
		},
		{
			name: "annotators narrowed", tp: legal, question: "gaps", opt: AgreeOptions{Annotators: []string{"ak", "cm"}},
			recs: func(tp *templates.Template) []*records.Annotation {
				return []*records.Annotation{
					arec(tp, "g1", "ak", "complete", map[string]any{"gaps": []string{"0"}}),
					arec(tp, "g1", "bt", "complete", map[string]any{"gaps": []string{"1"}}),
					arec(tp, "g1", "cm", "complete", map[string]any{"gaps": []string{"0"}}),
				}
			},
			coders: []string{"ak", "cm"},
			want:   map[string][]string{"g1": {"{0}", "{0}"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var n AgreeRecords
			set, err := agreeRecords(c.tp, c.recs(c.tp), c.opt, &n)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.coders, n.Annotators); d != "" {
				t.Errorf("annotators (-want +got):\n%s", d)
			}
			td := unitTable(c.tp.QuestionByName(c.question), set)
			if d := cmp.Diff(c.want, cells(td.table)); d != "" {
				t.Errorf("table (-want +got):\n%s", d)
			}
		})
	}
}

// TestAgreeRefuses checks the records agree will not compare: candidates
// still in the order shown, and two different records of one unit by one
// annotator.
func TestAgreeRefuses(t *testing.T) {
	t.Parallel()
	pref := builtin.Template(t, "preference-likert")
	shuffled := arec(pref, "t1", "ak", "complete", map[string]any{"first_prediction_likert": 3})
	shuffled.Shuffled = true
	twice := []*records.Annotation{
		arec(pref, "t1", "ak", "complete", map[string]any{"first_prediction_likert": 3}),
		arec(pref, "t1", "ak", "complete", map[string]any{"first_prediction_likert": 4}),
	}
	for name, recs := range map[string][]*records.Annotation{"shuffled": {shuffled}, "twice": twice} {
		var n AgreeRecords
		if _, err := agreeRecords(pref, recs, AgreeOptions{}, &n); !errors.Is(err, ErrAgree) {
			t.Errorf("%s: %v, want ErrAgree", name, err)
		}
	}
	// The same record twice is one.
	var n AgreeRecords
	same := []*records.Annotation{twice[0], arec(pref, "t1", "ak", "complete", map[string]any{"first_prediction_likert": 3})}
	if set, err := agreeRecords(pref, same, AgreeOptions{}, &n); err != nil || len(set.recs) != 1 {
		t.Errorf("the same record twice: %v", err)
	}
}

// TestAgreeBlockTables checks a block layout's tables (qa-span-errors):
// spans labelled by their error type, a complete unit without spans an
// empty list (an answer), a partial one none; the set of error types a
// unit's rows give; evidence per (unit, error type).
func TestAgreeBlockTables(t *testing.T) {
	t.Parallel()
	qa := builtin.Template(t, "qa-span-errors")
	span := func(start, end int, code string, ev *records.Evidence) records.SpanAnswer {
		return records.SpanAnswer{Question: qa.Rows.Spans, Start: intPtr(start), End: intPtr(end), Code: code, Evidence: ev}
	}
	missing := func(code string, ev *records.Evidence) records.SpanAnswer {
		return records.SpanAnswer{Question: qa.Rows.Spans, Code: code, Evidence: ev}
	}
	recs := []*records.Annotation{
		arec(qa, "q1", "ak", "complete", nil, span(0, 5, "Irrelevant", nil), missing("Missing-Answer", &records.Evidence{Passage: 1, Sentences: []int{2, 1}})),
		arec(qa, "q1", "bt", "complete", nil, span(3, 8, "Irrelevant", nil), missing("Missing-Answer", &records.Evidence{Passage: 1, Sentences: []int{1}})),
		arec(qa, "q2", "ak", "complete", nil),
		arec(qa, "q2", "bt", "complete", nil, span(1, 2, "Redundant", nil)),
		arec(qa, "q3", "ak", "partial", nil),
		arec(qa, "q3", "bt", "complete", nil),
	}
	var n AgreeRecords
	set, err := agreeRecords(qa, recs, AgreeOptions{IncludePartial: true}, &n)
	if err != nil {
		t.Fatal(err)
	}
	st := blockSpans(qa.Rows.Spans, set.recs, n.Annotators)
	got := map[string][][]agreement.Span{}
	for _, u := range st.Units {
		for c := range st.Coders {
			got[u.ID] = append(got[u.ID], u.List(c))
		}
	}
	want := map[string][][]agreement.Span{
		"q1": {{{Start: 0, End: 5, Label: "Irrelevant"}}, {{Start: 3, End: 8, Label: "Irrelevant"}}},
		"q2": {{}, {{Start: 1, End: 2, Label: "Redundant"}}},
		"q3": {nil, {}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("spans (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string][]string{
		"q1": {"{Irrelevant,Missing-Answer}", "{Irrelevant,Missing-Answer}"},
		"q2": {"{}", "{Redundant}"},
		"q3": {"-", "{}"},
	}, cells(labelSets(qa.Rows.Spans, set.recs, n.Annotators))); d != "" {
		t.Errorf("error types (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string][]string{
		"q1 / Missing-Answer": {"{1:1,1:2}", "{1:1}"},
	}, cells(evidenceByLabel(set.recs, n.Annotators))); d != "" {
		t.Errorf("evidence (-want +got):\n%s", d)
	}
}
func intPtr(n int) *int { return &n }

// TestAgreeIntervals checks that --ci gives every headline an interval
// that holds its value, spans included, the same for the same seed.
func TestAgreeIntervals(t *testing.T) {
	t.Parallel()
	qa := builtin.Template(t, "qa-span-errors")
	span := func(start, end int, code string) records.SpanAnswer {
		return records.SpanAnswer{Question: qa.Rows.Spans, Start: intPtr(start), End: intPtr(end), Code: code}
	}
	var recs []*records.Annotation
	for u := range 30 {
		unit := "q" + strconv.Itoa(100+u)
		recs = append(recs, arec(qa, unit, "ak", "complete", map[string]any{"checked": true}, span(u%7, u%7+5, "Irrelevant")))
		end := u%7 + 5
		if u%4 == 0 {
			end++ // a disagreement on one unit in four
		}
		recs = append(recs, arec(qa, unit, "bt", "complete", map[string]any{"checked": true}, span(u%7, end, "Irrelevant")))
	}
	opt := AgreeOptions{CI: 0.9, Resamples: 200, Seed: 5}
	a, err := Agree(context.Background(), qa, recs, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Agree(context.Background(), qa, recs, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range a.Questions {
		if len(q.Metrics) == 0 {
			continue
		}
		h := q.Metrics[0]
		v, defined := h.Value.(float64)
		if !defined {
			continue
		}
		if len(h.CI) != 2 || h.CI[0] > v || v > h.CI[1] {
			t.Errorf("%s: %s %v, interval %v", q.Name, h.Metric, v, h.CI)
		}
		if fmt.Sprint(h.CI) != fmt.Sprint(b.Questions[i].Metrics[0].CI) {
			t.Errorf("%s: the same seed gives %v and %v", q.Name, h.CI, b.Questions[i].Metrics[0].CI)
		}
	}
	if q := a.Questions[slices.IndexFunc(a.Questions, func(q QuestionAgreement) bool { return q.Name == qa.Rows.Spans })]; len(q.Metrics[0].CI) != 2 {
		t.Errorf("the spans' headline has no interval: %+v", q.Metrics[0])
	}
}

// TestAgreeOptionErrors: a question the template lacks and an annotator
// with no record are said as the option that named them, with no flag
// of the command line in the message.
func TestAgreeOptionErrors(t *testing.T) {
	t.Parallel()
	pref := builtin.Template(t, "preference-likert")
	recs := []*records.Annotation{
		arec(pref, "t1", "ak", "complete", map[string]any{"first_prediction_likert": 3}),
		arec(pref, "t1", "bt", "complete", map[string]any{"first_prediction_likert": 4}),
	}
	for _, c := range []struct {
		opt  AgreeOptions
		want OptionError
	}{
		{AgreeOptions{Questions: []string{"nosuch"}}, OptionError{Option: "question", Value: "nosuch"}},
		{AgreeOptions{Annotators: []string{"ak", "akk"}}, OptionError{Option: "annotators", Value: "akk"}},
	} {
		_, err := Agree(context.Background(), pref, recs, c.opt)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.want.Option || oe.Value != c.want.Value || !errors.Is(err, ErrAgree) {
			t.Errorf("%+v: error %v, want an OptionError of %s %s wrapping ErrAgree", c.opt, err, c.want.Option, c.want.Value)
			continue
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: %q names a flag", c.opt, err)
		}
	}
}
