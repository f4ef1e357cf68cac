package report

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// rec is a record of template tp.
func rec(tp *templates.Template, unit, who, status string, values map[string]any, spans ...records.SpanAnswer) *records.Annotation {
	if values == nil {
		values = map[string]any{}
	}
	return &records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: tp.Name, Version: tp.Version},
		Batch: who + "-b01", Unit: unit, Item: unit, Annotator: who, Status: status, Values: values, Spans: spans,
		Source: records.RecordSource{Kind: "xlsx", File: "study/" + who + ".xlsx", Sheet: "Annotate"}}
}

func ptr(n int) *int { return &n }

// span is an answer row of qa-span-errors with a span.
func span(start, end int, code, text string) records.SpanAnswer {
	return records.SpanAnswer{Question: "errors", Field: "prediction", Start: ptr(start), End: ptr(end), Text: text, Code: code, Label: code}
}

// chart finds a question's chart by title.
func chart(t *testing.T, as []Answers, question, title string) Chart {
	t.Helper()
	for _, a := range as {
		if a.Name != question {
			continue
		}
		for _, c := range a.Charts {
			if c.Title == title {
				return c
			}
		}
		t.Fatalf("%s has no chart %q: %+v", question, title, a.Charts)
	}
	t.Fatalf("no question %s", question)
	return Chart{}
}

// TestReportAnswers checks what the answers' charts count, type by type: a
// choice's options (declared first, in order, then others), a multi's
// units per option with the empty selection of a complete unit, a scale
// without its "not yet answered" value, text lengths, a block's rows
// (spans by type and length, the label and evidence of every row, a
// block-scoped bool), and that empty, missing and gold records and
// unclaimed units count for nobody.
func TestReportAnswers(t *testing.T) {
	t.Parallel()
	pref, legal, qa := builtin.Template(t, "preference-likert"), builtin.Template(t, "legal-gaps"), builtin.Template(t, "qa-span-errors")
	tests := []struct {
		name     string
		tp       *templates.Template
		recs     []*records.Annotation
		question string
		title    string
		want     Chart
		answered []int
	}{
		{
			name: "choice", tp: pref, question: "best_prediction_reference", title: "answers",
			recs: []*records.Annotation{
				rec(pref, "t1", "ak", "complete", map[string]any{"best_prediction_reference": "second"}),
				rec(pref, "t2", "ak", "partial", map[string]any{"best_prediction_reference": "second"}),
				rec(pref, "t1", "bt", "complete", map[string]any{"best_prediction_reference": "zeroth"}), // not declared
				rec(pref, "t2", "bt", "empty", nil),
				rec(pref, "t1", "gold", "complete", map[string]any{"best_prediction_reference": "first"}),
				rec(pref, "t3", "", "partial", map[string]any{"best_prediction_reference": "first"}),
			},
			want: Chart{Title: "answers", Categories: []Category{
				{Code: "first", Label: "First prediction"}, {Code: "second", Label: "Second prediction"},
				{Code: "third", Label: "Third prediction"}, {Code: "zeroth", Label: "zeroth"},
			}, Counts: [][]int{{0, 0}, {2, 0}, {0, 0}, {0, 1}}, Totals: []int{2, 1}},
			answered: []int{2, 1},
		},
		{
			name: "scale", tp: pref, question: "first_prediction_likert", title: "ratings",
			recs: []*records.Annotation{
				rec(pref, "t1", "ak", "complete", map[string]any{"first_prediction_likert": 5}),
				rec(pref, "t2", "ak", "partial", map[string]any{"first_prediction_likert": 0}), // not yet answered
				rec(pref, "t3", "ak", "complete", map[string]any{"first_prediction_likert": 5}),
			},
			want: Chart{Title: "ratings", Histogram: true, Categories: []Category{
				{Code: "1", Label: "1"}, {Code: "2", Label: "2"}, {Code: "3", Label: "3"}, {Code: "4", Label: "4"}, {Code: "5", Label: "5"},
			}, Counts: [][]int{{0}, {0}, {0}, {0}, {2}}, Totals: []int{2}},
			answered: []int{2},
		},
		{
			name: "multi", tp: legal, question: "gaps", title: "units selecting each option",
			recs: []*records.Annotation{
				rec(legal, "g1", "ak", "complete", map[string]any{"gaps": []string{"1", "3"}}),
				rec(legal, "g2", "ak", "complete", nil), // nothing ticked
				rec(legal, "g3", "ak", "partial", nil),  // no answer
			},
			want: Chart{Title: "units selecting each option", Categories: []Category{
				{Code: "0", Label: "No gap"}, {Code: "1", Label: "Intrinsic error/LLM error"}, {Code: "2", Label: "Target Mismatch"},
				{Code: "3", Label: "Citation Error"}, {Label: "(none selected)"},
			}, Counts: [][]int{{0}, {1}, {0}, {1}, {1}}, Totals: []int{2}},
			answered: []int{2},
		},
		{
			name: "text", tp: legal, question: "note", title: "length of the answer (characters)",
			recs: []*records.Annotation{
				rec(legal, "g1", "ak", "complete", map[string]any{"note": "short"}),
				rec(legal, "g2", "ak", "complete", map[string]any{"note": strings.Repeat("é", 501)}),
			},
			want: Chart{Title: "length of the answer (characters)", Histogram: true, Categories: lengthCategories(),
				Counts: [][]int{{1}, {0}, {0}, {0}, {0}, {0}, {0}, {1}}, Totals: []int{2}},
			answered: []int{2},
		},
		{
			name: "block spans by type", tp: qa, question: "span", title: "spans per Error type",
			recs: []*records.Annotation{
				rec(qa, "q1", "ak", "complete", map[string]any{"checked": true},
					span(0, 4, "Irrelevant", "abcd"), span(5, 9, "Irrelevant", "efgh"),
					records.SpanAnswer{Question: "errors", Code: "Missing-Answer", Evidence: &records.Evidence{Passage: 2, Sentences: []int{1}}}),
			},
			want: Chart{Title: "spans per Error type", Categories: []Category{
				{Code: "Irrelevant", Label: "Irrelevant"}, {Code: "Redundant", Label: "Repetitive"}, {Code: "Incoherent", Label: "Incoherent"},
				{Code: "Wrong-Grounding", Label: "Inconsistent Fact"}, {Code: "Unverifiable", Label: "Unverifiable Fact"},
				{Code: "Missing-Answer", Label: "Missing Answer"}, {Code: "Missing-Major-Auxiliary", Label: "Missing Major Auxiliary Information"},
				{Code: "Missing-Minor-Auxiliary", Label: "Missing Minor Auxiliary Information"},
			}, Counts: [][]int{{2}, {0}, {0}, {0}, {0}, {0}, {0}, {0}}, Totals: []int{2}},
			answered: []int{2},
		},
		{
			name: "block span lengths", tp: qa, question: "span", title: "span length (characters)",
			recs: []*records.Annotation{
				rec(qa, "q1", "ak", "complete", nil, span(0, 4, "Irrelevant", "abcd"), span(10, 40, "Incoherent", "x")),
			},
			want: Chart{Title: "span length (characters)", Histogram: true, Categories: lengthCategories(),
				Counts: [][]int{{1}, {0}, {0}, {1}, {0}, {0}, {0}, {0}}, Totals: []int{2}},
			answered: []int{2},
		},
		{
			name: "block rows' evidence", tp: qa, question: "evidence", title: "passages cited",
			recs: []*records.Annotation{
				rec(qa, "q1", "ak", "complete", nil,
					records.SpanAnswer{Question: "errors", Code: "Missing-Answer", Evidence: &records.Evidence{Passage: 2, Sentences: []int{1}}},
					records.SpanAnswer{Question: "errors", Code: "Missing-Answer", Evidence: &records.Evidence{Passage: 10, Sentences: []int{1}}},
					span(0, 4, "Irrelevant", "abcd")),
			},
			want: Chart{Title: "passages cited", Categories: []Category{{Code: "2", Label: "passage 2"}, {Code: "10", Label: "passage 10"}},
				Counts: [][]int{{1}, {1}}, Totals: []int{2}},
			answered: []int{2},
		},
		{
			name: "block-scoped bool", tp: qa, question: "checked", title: "answers",
			recs: []*records.Annotation{
				rec(qa, "q1", "ak", "complete", map[string]any{"checked": true}),
				rec(qa, "q2", "ak", "partial", map[string]any{"checked": false}),
			},
			want: Chart{Title: "answers", Categories: []Category{{Code: "true", Label: "yes"}, {Code: "false", Label: "no"}},
				Counts: [][]int{{1}, {1}}, Totals: []int{2}},
			answered: []int{2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			who := annotators(tt.recs)
			as := answers(tt.tp, tt.recs, who)
			if d := cmp.Diff(tt.want, chart(t, as, tt.question, tt.title)); d != "" {
				t.Errorf("annotators %v: (-want +got):\n%s", who, d)
			}
			for _, a := range as {
				if a.Name == tt.question && !slices.Equal(a.Answered, tt.answered) {
					t.Errorf("answered %v, want %v", a.Answered, tt.answered)
				}
			}
		})
	}
}

// TestReportMessageClass checks that messages differing only in the values
// they quote and the numbers they give are one kind.
func TestReportMessageClass(t *testing.T) {
	t.Parallel()
	tests := []struct{ msg, want string }{
		{`"maybe" is not one of: Yes, No`, `"…" is not one of: Yes, No`},
		{`"a \"quoted\" word" is not one of: Yes, No`, `"…" is not one of: Yes, No`},
		{`7 is outside the scale 1 to 5`, `N is outside the scale N to N`},
		{`d0012 (Gaps) is unresolved: its Final cell is empty`, `dN (Gaps) is unresolved: its Final cell is empty`},
		{`a required answer is missing`, `a required answer is missing`},
	}
	for _, tt := range tests {
		if got := messageClass(tt.msg); got != tt.want {
			t.Errorf("messageClass(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

// TestReportProblems checks the grouping: by the sentinel a problem wraps (or
// its message's class), then by workbook; kinds with errors first; at
// most the number asked listed per group, the rest counted; and the
// problems of pulled records, cell split from sheet.
func TestReportProblems(t *testing.T) {
	t.Parallel()
	p := func(sev, file, cell string, err error, msg string) *records.Problem {
		return &records.Problem{Severity: sev, File: file, Sheet: "Annotate", Cell: cell, Record: "u1", Err: err, Message: msg}
	}
	ps := records.Problems{
		p(records.Warning, "b.xlsx", "F2", decode.ErrNormalised, `"yes " read as "Yes"`),
		p(records.Error, "b.xlsx", "F3", decode.ErrInvalidAnswer, `"x" is not one of: A, B`),
		p(records.Error, "a.xlsx", "F4", fmt.Errorf("wrapped: %w", decode.ErrInvalidAnswer), `"y" is not one of: A, B`),
		p(records.Error, "a.xlsx", "F5", decode.ErrInvalidAnswer, `"z" is not one of: A, B`),
		p(records.Error, "a.xlsx", "F6", decode.ErrInvalidAnswer, `"w" is not one of: A, B`),
		p(records.Warning, "a.xlsx", "", nil, `unit u7 is not in the manifest`),
		p(records.Warning, "a.xlsx", "", errors.New("some other error"), `unit u8 is not in the manifest`),
	}
	got := problems(ps, 2, 100)
	want := Problems{Errors: 4, Warnings: 3, Kinds: []ProblemKind{
		{Kind: "invalid answer", Errors: 4, Workbooks: []ProblemGroup{
			{Workbook: "a.xlsx", Errors: 3, More: 1, Problems: records.Problems{ps[2], ps[3]}},
			{Workbook: "b.xlsx", Errors: 1, Problems: records.Problems{ps[1]}},
		}},
		{Kind: "unit uN is not in the manifest", Warnings: 2, Workbooks: []ProblemGroup{
			{Workbook: "a.xlsx", Warnings: 2, Problems: records.Problems{ps[5], ps[6]}},
		}},
		{Kind: "answer normalised", Warnings: 1, Workbooks: []ProblemGroup{
			{Workbook: "b.xlsx", Warnings: 1, Problems: records.Problems{ps[0]}},
		}},
	}}
	// At most 4 in all, in pull's order: the last two are counted only.
	if few := problems(ps, 2, 4); few.Kinds[1].Workbooks[0].More != 2 || len(few.Kinds[1].Workbooks[0].Problems) != 0 || few.Warnings != 3 {
		t.Errorf("with 4 listed in all: %+v", few.Kinds[1])
	}
	// The problems listed are pull's own.
	same := cmp.Comparer(func(a, b *records.Problem) bool { return a == b })
	if d := cmp.Diff(want, got, same); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	tp := builtin.Template(t, "legal-gaps")
	r := rec(tp, "u9", "ak", "partial", nil)
	r.Problems = []records.UnitProblem{{Severity: "error", Cell: "Annotate!D7", Message: `"maybe" is not a checkbox value`}, {Severity: "warning", Message: "no cell"}}
	wantPs := records.Problems{
		{Severity: "error", File: "study/ak.xlsx", Sheet: "Annotate", Cell: "D7", Record: "u9", Message: `"maybe" is not a checkbox value`},
		{Severity: "warning", File: "study/ak.xlsx", Record: "u9", Message: "no cell"},
	}
	if d := cmp.Diff(wantPs, RecordProblems([]*records.Annotation{r})); d != "" {
		t.Errorf("RecordProblems (-want +got):\n%s", d)
	}
}

// TestReportProgressIsStatus checks that the progress is status's counts.
func TestReportProgressIsStatus(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	res := &study.Result{Records: []*records.Annotation{
		rec(tp, "g1", "ak", "complete", map[string]any{"gaps": []string{"0"}}),
		rec(tp, "g2", "ak", "partial", map[string]any{"note": "x"}),
		rec(tp, "g1", "bt", "empty", nil),
		rec(tp, "g2", "bt", "missing", nil),
		rec(tp, "g3", "bt", "unreadable", nil),
	}}
	rep, err := Build(context.Background(), tp, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := study.CountStatus(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Progress{Batches: s.Batches, Annotators: s.Annotators, Total: s.Total}, rep.Progress); d != "" {
		t.Errorf("(-status +report):\n%s", d)
	}
	if rep.Progress.Total.Unreadable != 1 || rep.Progress.Total.Missing != 1 {
		t.Errorf("total %+v", rep.Progress.Total)
	}
}

// TestReportResamples checks the bound on the interval's resamples.
func TestReportResamples(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ units, want int }{{0, 1000}, {40, 1000}, {20_000, 1000}, {40_000, 500}, {100_000, 200}, {10_000_000, 200}} {
		if got := resamples(tt.units); got != tt.want {
			t.Errorf("resamples(%d) = %d, want %d", tt.units, got, tt.want)
		}
	}
}

// TestReportConfusion checks a pair's confusion matrix: A's answers down, B's
// across, the units both answered, and the answers' labels; a bool's too.
func TestReportConfusion(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "preference-likert")
	answers := map[string][2]string{"t1": {"first", "first"}, "t2": {"first", "second"}, "t3": {"third", "second"}, "t4": {"second", ""}}
	var recs []*records.Annotation
	for u, a := range answers {
		for i, who := range []string{"bt", "ak"} {
			if a[i] != "" {
				recs = append(recs, rec(tp, u, who, "complete", map[string]any{"best_prediction_reference": a[i], "first_prediction_likert": 3 + i}))
			}
		}
	}
	rep, err := Build(context.Background(), tp, &study.Result{Records: recs}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := rep.Agreement.Questions[0]
	if q.Name != "best_prediction_reference" || len(q.Pairs) != 1 {
		t.Fatalf("question %s, pairs %+v", q.Name, q.Pairs)
	}
	want := &Confusion{
		Categories: []Category{{Code: "first", Label: "First prediction"}, {Code: "second", Label: "Second prediction"}, {Code: "third", Label: "Third prediction"}},
		// ak (rows) gave second where bt gave first, second where bt gave third …
		Counts: [][]int{{1, 0, 0}, {1, 0, 1}, {0, 0, 0}},
		Units:  3, Same: 1,
	}
	if p := q.Pairs[0]; p.A != "ak" || p.B != "bt" {
		t.Errorf("pair %s, %s", p.A, p.B)
	} else if d := cmp.Diff(want, p.Confusion); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	scale := rep.Agreement.Questions[2]
	if c := scale.Pairs[0].Confusion; c == nil || len(c.Categories) != 5 || c.Counts[3][2] != 3 {
		t.Errorf("%s: %+v", scale.Name, c)
	}
}

// TestReportStopped: a report whose context is done is no report, but
// the context's error.
func TestReportStopped(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "preference-likert")
	var recs []*records.Annotation
	for u := range 50 {
		for _, who := range []string{"ak", "bt", "cm"} {
			recs = append(recs, rec(tp, fmt.Sprintf("t%02d", u), who, "complete", map[string]any{"best_prediction_reference": "first", "first_prediction_likert": 1 + u%5}))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := Build(ctx, tp, &study.Result{Records: recs}, Options{}); !errors.Is(err, context.Canceled) || rep != nil {
		t.Errorf("Build: %v, %v; want no report and %v", rep != nil, err, context.Canceled)
	}
}

// TestReportUnitF1 checks the per-unit span F1 that picks the examples against
// agree's own span F1 (exact, with labels) on that unit alone.
func TestReportUnitF1(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 9))
	for range 500 {
		var lists [2][]agreement.Span
		for c := range lists {
			lists[c] = []agreement.Span{}
			for range r.IntN(4) {
				s := agreement.Span{Start: r.IntN(3), Label: []string{"x", "y"}[r.IntN(2)]}
				s.End = s.Start + 1 + r.IntN(2)
				lists[c] = append(lists[c], s)
			}
		}
		res, err := agreement.Spans(context.Background(), agreement.SpanTable{Coders: []string{"a", "b"}, Units: []agreement.SpanUnit{{ID: "u", Spans: lists[:]}}}, nil, "", agreement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Metrics[0]
		got, ok := unitF1(sortedSpans(lists[0]), sortedSpans(lists[1]))
		if m.Metric != "span_f1" || m.Params["match"] != "exact" || m.Params["labels"] != true {
			t.Fatalf("agree's headline is %s %v", m.Metric, m.Params)
		}
		if want, defined := m.Value.(float64); ok != defined || ok && got != want {
			t.Errorf("%v and %v: %v (%v), agree gives %v", lists[0], lists[1], got, ok, m.Value)
		}
	}
}

// TestReportSpanExamples checks the span examples: the units where a pair
// differs most, at most n; each annotator's spans with their text and
// label from the records; the field's text around the spans (AddTexts);
// and its pieces as each annotator's spans mark them.
func TestReportSpanExamples(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "qa-span-errors")
	text := "The cat sat on the mat. " + strings.Repeat("Filler text. ", 40) + "The end."
	var recs []*records.Annotation
	for u := range 6 {
		unit := fmt.Sprintf("q%d", u)
		recs = append(recs, rec(tp, unit, "ak", "complete", map[string]any{"checked": true}, span(4, 7, "Irrelevant", "cat")))
		switch u {
		case 0: // the same
			recs = append(recs, rec(tp, unit, "bt", "complete", map[string]any{"checked": true}, span(4, 7, "Irrelevant", "cat")))
		case 1, 2: // another type
			recs = append(recs, rec(tp, unit, "bt", "complete", map[string]any{"checked": true}, span(4, 7, "Incoherent", "cat")))
		case 3: // one more span
			recs = append(recs, rec(tp, unit, "bt", "complete", map[string]any{"checked": true}, span(4, 7, "Irrelevant", "cat"), span(19, 22, "Irrelevant", "mat")))
		default: // nothing marked
			recs = append(recs, rec(tp, unit, "bt", "complete", map[string]any{"checked": true}))
		}
	}
	rep, err := Build(context.Background(), tp, &study.Result{Records: recs}, Options{Examples: 3})
	if err != nil {
		t.Fatal(err)
	}
	var q *QuestionAgreement
	for i := range rep.Agreement.Questions {
		if rep.Agreement.Questions[i].Name == "errors" {
			q = &rep.Agreement.Questions[i]
		}
	}
	if q == nil || q.Header != "Error span" || q.Differ != 5 {
		t.Fatalf("the spans' agreement: %+v", q)
	}
	var units []string
	for _, ex := range q.Examples {
		if ex.F1 == nil || *ex.F1 != 0 || ex.A != "ak" || ex.B != "bt" || ex.Field != "prediction" {
			t.Errorf("example %s: F1 %v between %s and %s in %q", ex.Unit, ex.F1, ex.A, ex.B, ex.Field)
		}
		units = append(units, ex.Unit)
	}
	// Units 1, 2, 4 and 5 have F1 0: three of them, whichever the
	// sample takes, never unit 0 (the same) nor 3 (F1 2/3).
	if len(units) != 3 || slices.Contains(units, "q0") || slices.Contains(units, "q3") {
		t.Errorf("examples %v", units)
	}
	ex := q.Examples[0]
	if ak := ex.Annotators[0]; ak.Annotator != "ak" || len(ak.Spans) != 1 || ak.Spans[0].Text != "cat" || ak.Spans[0].Label != "Irrelevant" {
		t.Errorf("ak's spans: %+v", ak)
	}
	if want := map[string][]string{ex.Unit: {"prediction"}}; !cmp.Equal(rep.TextsWanted()[ex.Unit], want[ex.Unit]) {
		t.Errorf("texts wanted %v", rep.TextsWanted())
	}
	rep.AddTexts(func(unit, field string) (string, bool) { return text, field == "prediction" })
	ex = rep.Agreement.Questions[slices.IndexFunc(rep.Agreement.Questions, func(q QuestionAgreement) bool { return q.Name == "errors" })].Examples[0]
	// The spans (4 to 7) and 200 characters after them.
	if ex.Offset != 0 || ex.Length != len(text) || ex.Text != text[:207] {
		t.Errorf("text from %d of %d: %q", ex.Offset, ex.Length, ex.Text)
	}
	v := newView(rep)
	segs := v.Segments(ex, ex.Annotators[0])
	if len(segs) != 3 || segs[0].Text != "The " || !segs[1].Marked || segs[1].Text != "cat" || segs[1].Title != "Irrelevant 4–7" || segs[2].Marked {
		t.Errorf("segments %+v", segs)
	}
}

// TestReportGold checks the gold section: records by status, values by
// provenance per question (a block's rows under the spans' name), and
// the scores agree --against gives.
func TestReportGold(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	prov := func(kind string) map[string]*records.Provenance {
		return map[string]*records.Provenance{"gaps": {Kind: kind}}
	}
	var recs, gold []*records.Annotation
	for u, kind := range []string{"unanimous", "majority", "adjudicated", "unresolved"} {
		unit := fmt.Sprintf("g%d", u)
		recs = append(recs, rec(tp, unit, "ak", "complete", map[string]any{"gaps": []string{"1"}}), rec(tp, unit, "bt", "complete", map[string]any{"gaps": []string{"2"}}))
		g := rec(tp, unit, "gold", "complete", map[string]any{"gaps": []string{"1"}})
		if kind == "unresolved" {
			g.Status, g.Values = "partial", map[string]any{}
		}
		g.Provenance = prov(kind)
		gold = append(gold, g)
	}
	rep, err := Build(context.Background(), tp, &study.Result{Records: recs}, Options{Gold: &study.Gold{Name: "gold.jsonl", Records: gold}})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Gold
	if g == nil || g.Name != "gold.jsonl" || g.Records != 4 || g.Complete != 3 || g.Partial != 1 {
		t.Fatalf("gold %+v", g)
	}
	if d := cmp.Diff([]Provenance{{Question: "gaps", Unanimous: 1, Majority: 1, Adjudicated: 1, Unresolved: 1}}, g.Provenance); d != "" {
		t.Errorf("provenance (-want +got):\n%s", d)
	}
	if len(g.Questions) != 2 || g.Questions[0].Name != "gaps" || g.Questions[0].GoldUnits != 3 {
		t.Fatalf("scores %+v", g.Questions)
	}
	ak, bt := g.Questions[0].Annotators[0], g.Questions[0].Annotators[1]
	if ak.Annotator != "ak" || ak.Units != 3 || *ak.Accuracy != 1 || bt.Annotator != "bt" || *bt.Accuracy != 0 || g.Questions[0].Pooled == nil {
		t.Errorf("ak %+v, bt %+v", ak, bt)
	}

	// A gold set that shares no unit with the study (an adjudication
	// begun before any unit was done) is counted, and not scored: the
	// section says why, and the rest of the report is there.
	for _, r := range gold {
		r.Unit = "other-" + r.Unit
	}
	rep, err = Build(context.Background(), tp, &study.Result{Records: recs}, Options{Gold: &study.Gold{Name: "gold.jsonl", Records: gold}})
	if err != nil {
		t.Fatal(err)
	}
	if g := rep.Gold; !strings.Contains(g.Unscored, "it shares no unit with the sources") || len(g.Questions) != 0 || g.Records != 4 || len(g.Provenance) != 1 || len(rep.Agreement.Questions) != 2 {
		t.Errorf("gold %+v, %d questions compared", g, len(rep.Agreement.Questions))
	}
}

// TestReportCharts checks the charts' geometry: a share of 1 fills the plot,
// every annotator has a bar per category, and tooltips say the count.
func TestReportCharts(t *testing.T) {
	t.Parallel()
	rep := &Report{Annotators: []string{"ak", "bt"}}
	v := newView(rep)
	c := Chart{Title: "answers", Categories: []Category{{Code: "a", Label: "A"}, {Code: "b", Label: "B"}}, Counts: [][]int{{2, 0}, {0, 1}}, Totals: []int{2, 1}}
	h := v.Chart(c)
	if len(h.Bars) != 4 || h.Bars[0].W != h.Bars[3].W || h.Bars[1].W != 0 || h.Bars[0].Class != "a0" || h.Bars[1].Class != "a1" {
		t.Errorf("bars %+v", h.Bars)
	}
	if h.Bars[0].Title != "ak, A: 2 of 2 (100%)" {
		t.Errorf("title %q", h.Bars[0].Title)
	}
	c.Histogram = true
	col := v.Chart(c)
	if len(col.Bars) != 4 || col.Bars[0].H != col.Bars[3].H || col.Bars[0].H == 0 || col.Bars[1].H != 0 {
		t.Errorf("columns %+v", col.Bars)
	}
	if v.Colour("ak") != "a0" || v.Colour("nobody") != "ax" {
		t.Errorf("colours %s, %s", v.Colour("ak"), v.Colour("nobody"))
	}
	tally := &study.Tally{Units: 4, Complete: 2, Partial: 1, Missing: 1}
	bar := v.ProgressBar(tally)
	if len(bar.Bars) != 3 || bar.Bars[0].W != 120 || bar.Bars[2].Class != "missing" {
		t.Errorf("progress bar %+v", bar.Bars)
	}
}

// TestReportPairsShown checks that a question of many annotators lists
// at most maxPairRows pairs and draws at most maxHeatmaps confusion
// matrices, those of the pairs with the most units in common, never one
// of a pair with none; the pairs agree left out count among those not
// shown.
func TestReportPairsShown(t *testing.T) {
	t.Parallel()
	q := QuestionAgreement{PairsLeftOut: 7}
	for i := range 10 {
		for j := i + 1; j < 10; j++ {
			units := (i*10 + j) % 17 // some pairs share no unit
			q.Pairs = append(q.Pairs, Pair{A: fmt.Sprint(i), B: fmt.Sprint(j), Confusion: &Confusion{Units: units}})
		}
	}
	v := newView(&Report{})
	if rows := v.PairRows(q); len(rows.Pairs) != maxPairRows || rows.Hidden != 45-maxPairRows+7 {
		t.Errorf("%d pairs listed, %d hidden", len(rows.Pairs), rows.Hidden)
	}
	maps := v.Heatmaps(q)
	if len(maps.Pairs) != maxHeatmaps || maps.Pairs[0].Confusion.Units != 16 {
		t.Fatalf("%d matrices, the first of %d units", len(maps.Pairs), maps.Pairs[0].Confusion.Units)
	}
	shared := 0
	for _, p := range q.Pairs {
		if p.Confusion.Units > 0 {
			shared++
		}
	}
	if maps.Hidden != shared-maxHeatmaps+7 {
		t.Errorf("%d hidden, want %d", maps.Hidden, shared-maxHeatmaps+7)
	}
	for k := 1; k < len(maps.Pairs); k++ {
		if maps.Pairs[k].Confusion.Units > maps.Pairs[k-1].Confusion.Units {
			t.Errorf("matrix %d has more units than the one before", k)
		}
	}
}

// TestSummary: the line report prints of the page it wrote, its size
// rounded up to a KB, counts in the singular or plural, the gold set
// named only when there is one.
func TestSummary(t *testing.T) {
	t.Parallel()
	r := &Report{
		Annotators: []string{"ak"},
		Progress:   Progress{Total: &study.Tally{Units: 5, Complete: 3}},
		Problems:   Problems{Errors: 1, Warnings: 2},
	}
	r.Agreement.Questions = make([]QuestionAgreement, 2)
	if got, want := r.Summary("r.html", 1025), "wrote r.html (2 KB): 3 of 5 units done by 1 annotator; 2 questions compared; 1 error, 2 warnings"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	r.Gold = &Gold{Name: "gold.jsonl"}
	if got, want := r.Summary("r.html", 0), "wrote r.html (0 KB): 3 of 5 units done by 1 annotator; 2 questions compared; 1 error, 2 warnings, and the gold set gold.jsonl"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
