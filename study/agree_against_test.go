package study

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

func grec(t *templates.Template, unit, status string, values map[string]any, spans ...records.SpanAnswer) *records.Annotation {
	return arec(t, unit, records.GoldAnnotator, status, values, spans...)
}

// decided gives a gold record the provenance of each question named.
func decided(r *records.Annotation, kinds map[string]string) *records.Annotation {
	r.Provenance = map[string]*records.Provenance{}
	for q, k := range kinds {
		r.Provenance[q] = &records.Provenance{Kind: k, Agreeing: 1, Annotators: 2}
	}
	return r
}

func f(x float64) *float64 { return &x }

// TestAgainstScores checks each annotator's scores against a gold set
// with values computed by hand: accuracy on the units both give a value,
// Cohen's κ from the two annotators' marginals (for a scale, unweighted
// over the declared levels and linear), the mean Jaccard index of label
// sets, and the character precision, recall and F1 of spans with the
// gold set as the reference; pooled, every (unit, annotator) is a unit.
// Gold values follow their provenance: an undecided question has none, a
// decided one left blank is the empty selection even on a partial
// record, and a block's rows are no answer while one is undecided.
func TestAgainstScores(t *testing.T) {
	t.Parallel()
	pref := builtin.Template(t, "preference-likert")
	legal := builtin.Template(t, "legal-gaps")
	qa := builtin.Template(t, "qa-span-errors")
	span := func(start, end int, code string) records.SpanAnswer {
		return records.SpanAnswer{Question: qa.Rows.Spans, Start: intPtr(start), End: intPtr(end), Code: code}
	}
	choice := func(t *templates.Template, unit, who, v string, likert int) *records.Annotation {
		return arec(t, unit, who, "complete", map[string]any{"best_prediction_reference": v, "first_prediction_likert": likert})
	}
	cases := []struct {
		name     string
		tp       *templates.Template
		recs     []*records.Annotation
		gold     []*records.Annotation
		question string
		opt      AgreeOptions
		want     QuestionAgainst
	}{
		{
			// ak agrees with gold on u1, u2, u4, u6: p_o 4/6; ak's
			// marginals (first, second, third) 4, 1, 1, gold's 3, 2, 1:
			// p_e 15/36, κ 3/7. bt on u1-u4: p_o 3/4, marginals 1, 2, 1
			// and 2, 1, 1: p_e 5/16, κ 7/11. Pooled: 7 of 10, marginals
			// 5, 3, 2 both: p_e 38/100, κ 16/31.
			name: "choice", tp: pref, question: "best_prediction_reference",
			recs: []*records.Annotation{
				choice(pref, "u1", "ak", "first", 5), choice(pref, "u2", "ak", "second", 4), choice(pref, "u3", "ak", "first", 2),
				choice(pref, "u4", "ak", "first", 2), choice(pref, "u5", "ak", "third", 1), choice(pref, "u6", "ak", "first", 3),
				choice(pref, "u1", "bt", "first", 5), choice(pref, "u2", "bt", "second", 5), choice(pref, "u3", "bt", "third", 3),
				choice(pref, "u4", "bt", "second", 2), arec(pref, "u5", "bt", "partial", map[string]any{"best_prediction_reference": "second"}),
			},
			gold: []*records.Annotation{
				choice(pref, "u1", "gold", "first", 5), choice(pref, "u2", "gold", "second", 4), choice(pref, "u3", "gold", "third", 3),
				choice(pref, "u4", "gold", "first", 2), choice(pref, "u5", "gold", "second", 1), choice(pref, "u6", "gold", "first", 0),
			},
			want: QuestionAgainst{Name: "best_prediction_reference", Type: "choice", GoldUnits: 6,
				Annotators: []AnnotatorScore{
					{Annotator: "ak", Units: 6, Accuracy: f(4.0 / 6), Kappa: f(3.0 / 7)},
					{Annotator: "bt", Units: 4, Accuracy: f(3.0 / 4), Kappa: f(7.0 / 11)},
				},
				Pooled: &AnnotatorScore{Annotator: Pooled, Units: 10, Accuracy: f(0.7), Kappa: f(16.0 / 31)}},
		},
		{
			// Gold's u6 is 0, not yet rated: no value. ak on u1-u5 gives
			// 5 4 2 2 1 to gold's 5 4 3 2 1: p_o 4/5; gold uniform over
			// the five levels, so p_e = Σ p_ak 1/5 = 1/5 and κ 3/4.
			// Linear weights 1 − |k−l|/4: p_o (4 + 3/4)/5 = 0.95, p_e
			// 0.59 (each of ak's levels' mean weight over gold's:
			// 0.5, 0.65, 0.65, 0.65, 0.5), κ 0.36/0.41.
			name: "scale", tp: pref, question: "first_prediction_likert", opt: AgreeOptions{Annotators: []string{"ak"}},
			recs: []*records.Annotation{
				choice(pref, "u1", "ak", "first", 5), choice(pref, "u2", "ak", "second", 4), choice(pref, "u3", "ak", "first", 2),
				choice(pref, "u4", "ak", "first", 2), choice(pref, "u5", "ak", "third", 1), choice(pref, "u6", "ak", "first", 3),
			},
			gold: []*records.Annotation{
				choice(pref, "u1", "gold", "first", 5), choice(pref, "u2", "gold", "second", 4), choice(pref, "u3", "gold", "third", 3),
				choice(pref, "u4", "gold", "first", 2), choice(pref, "u5", "gold", "second", 1), choice(pref, "u6", "gold", "first", 0),
			},
			want: QuestionAgainst{Name: "first_prediction_likert", Type: "scale", GoldUnits: 5,
				Annotators: []AnnotatorScore{{Annotator: "ak", Units: 5, Accuracy: f(0.8), Kappa: f(0.75), KappaLinear: f(0.36 / 0.41)}}},
		},
		{
			// g1 the same set (Jaccard 1); g2 {1} against gold's empty
			// selection (0); g3 undecided in gold, whatever the record
			// says: not scored; g4 decided and left blank on a partial
			// gold record: the empty selection, as ak's (1); gx only in
			// gold.
			name: "multi, by provenance", tp: legal, question: "gaps",
			recs: []*records.Annotation{
				arec(legal, "g1", "ak", "complete", map[string]any{"gaps": []string{"2", "3"}}),
				arec(legal, "g2", "ak", "complete", map[string]any{"gaps": []string{"1"}}),
				arec(legal, "g3", "ak", "complete", map[string]any{"gaps": []string{"0"}}),
				arec(legal, "g4", "ak", "complete", map[string]any{"gaps": []string{}}),
			},
			gold: []*records.Annotation{
				grec(legal, "g1", "complete", map[string]any{"gaps": []string{"2", "3"}}),
				grec(legal, "g2", "complete", map[string]any{"note": "none"}),
				decided(grec(legal, "g3", "complete", map[string]any{"gaps": []string{"0"}}), map[string]string{"gaps": records.ProvenanceUnresolved}),
				decided(grec(legal, "g4", "partial", map[string]any{}), map[string]string{"gaps": records.ProvenanceAdjudicated, "note": records.ProvenanceUnresolved}),
				grec(legal, "gx", "complete", map[string]any{"gaps": []string{"1"}}),
			},
			want: QuestionAgainst{Name: "gaps", Type: "multi", GoldUnits: 4,
				Annotators: []AnnotatorScore{{Annotator: "ak", Units: 3, Accuracy: f(2.0 / 3), MeanJaccard: f(2.0 / 3)}}},
		},
		{
			// Characters under the same label: q1 10 (Irrelevant) + 5
			// (Redundant [25, 30)); q2 none, ak's 3 against gold's no
			// span. ak marked 23, gold 20: P 15/23, R 15/20, F1 30/43.
			// Only q3, where both marked nothing, is the same. q4 has a
			// gold row still undecided, and q5's gold record is partial
			// without a row: neither is scored.
			name: "spans, gold the reference", tp: qa, question: qa.Rows.Spans,
			recs: []*records.Annotation{
				arec(qa, "q1", "ak", "complete", nil, span(0, 10, "Irrelevant"), span(25, 35, "Redundant")),
				arec(qa, "q2", "ak", "complete", nil, span(5, 8, "Irrelevant")),
				arec(qa, "q3", "ak", "complete", nil),
				arec(qa, "q4", "ak", "complete", nil, span(0, 4, "Irrelevant")),
				arec(qa, "q5", "ak", "complete", nil),
			},
			gold: []*records.Annotation{
				grec(qa, "q1", "complete", nil, span(0, 10, "Irrelevant"), span(20, 30, "Redundant")),
				grec(qa, "q2", "complete", nil),
				grec(qa, "q3", "complete", map[string]any{"checked": true}),
				grec(qa, "q5", "partial", nil),
				grec(qa, "q4", "partial", nil, span(0, 4, "Irrelevant"), func() records.SpanAnswer {
					s := span(10, 12, "Redundant")
					s.Provenance = &records.Provenance{Kind: records.ProvenanceUnresolved, Annotators: 2}
					return s
				}()),
			},
			want: QuestionAgainst{Name: qa.Rows.Spans, Type: "span", GoldUnits: 3,
				Annotators: []AnnotatorScore{{Annotator: "ak", Units: 3, Accuracy: f(1.0 / 3), Precision: f(15.0 / 23), Recall: f(0.75), F1: f(30.0 / 43)}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opt := c.opt
			opt.Questions = []string{c.question}
			opt.Gold = &Gold{Name: "gold.jsonl", Records: c.gold}
			rep, err := Agree(context.Background(), c.tp, c.recs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Against.Questions) != 1 {
				t.Fatalf("against %+v, want %s alone", rep.Against, c.question)
			}
			got := rep.Against.Questions[0]
			if d := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.IgnoreFields(AnnotatorScore{}, "Metrics", "Options")); d != "" {
				t.Errorf("scores (-want +got):\n%s", d)
			}
			// The copies are the metrics' values, with gold the reference.
			for _, s := range got.Annotators {
				for _, m := range s.Metrics {
					if m.Metric == "span_char_overlap_prf" && (m.Params["reference"] != records.GoldAnnotator || m.Params["hypothesis"] != s.Annotator) {
						t.Errorf("%s: %s params %v, want gold the reference", s.Annotator, m.Metric, m.Params)
					}
					if m.Metric == "cohen_kappa" && m.Params["weights"] == "none" && s.Kappa != nil && m.Value != *s.Kappa {
						t.Errorf("%s: κ %v, metric %v", s.Annotator, *s.Kappa, m.Value)
					}
				}
			}
		})
	}
}

// TestAgainstUnits checks the units counted: those of the gold set, those
// the sources share with it, and those only one side has.
func TestAgainstUnits(t *testing.T) {
	t.Parallel()
	legal := builtin.Template(t, "legal-gaps")
	recs := []*records.Annotation{
		arec(legal, "g1", "ak", "complete", map[string]any{"gaps": []string{"1"}}),
		arec(legal, "g2", "ak", "complete", map[string]any{"gaps": []string{"1"}}),
		arec(legal, "g3", "bt", "empty", nil),
	}
	gold := []*records.Annotation{
		grec(legal, "g1", "complete", map[string]any{"gaps": []string{"1"}}),
		grec(legal, "g8", "complete", map[string]any{"gaps": []string{"1"}}),
		grec(legal, "g9", "empty", nil),
	}
	rep, err := Agree(context.Background(), legal, recs, AgreeOptions{Gold: &Gold{Name: "gold.jsonl", Records: gold}})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Against
	if d := cmp.Diff(Against{Gold: "gold.jsonl", Units: 3, SharedUnits: 1, GoldOnly: 2, SourcesOnly: 2}, *a, cmpopts.IgnoreFields(Against{}, "Questions")); d != "" {
		t.Errorf("units (-want +got):\n%s", d)
	}
	var names []string
	for _, q := range a.Questions {
		names = append(names, fmt.Sprintf("%s %d %s", q.Name, len(q.Annotators), q.Annotators[0].Annotator))
	}
	if d := cmp.Diff([]string{"gaps 1 ak", "note 1 ak"}, names); d != "" {
		t.Errorf("questions (-want +got):\n%s", d)
	}
	if q := a.Questions[0]; q.Pooled != nil || q.Annotators[0].Units != 1 || *q.Annotators[0].Accuracy != 1 {
		t.Errorf("gaps: %+v, want ak's one unit right and nothing pooled", q)
	}
	if q := a.Questions[1]; q.Annotators[0].Units != 0 || q.Annotators[0].Accuracy != nil {
		t.Errorf("note: %+v, want nothing scored", q.Annotators[0])
	}
}

// TestAgainstRefuses checks the gold sets that cannot be scored against,
// each error naming the file or the record's line.
func TestAgainstRefuses(t *testing.T) {
	t.Parallel()
	legal := builtin.Template(t, "legal-gaps")
	pref := builtin.Template(t, "preference-likert")
	recs := []*records.Annotation{arec(legal, "g1", "ak", "complete", map[string]any{"gaps": []string{"1"}})}
	good := grec(legal, "g1", "complete", map[string]any{"gaps": []string{"1"}})
	shuffled := grec(legal, "g1", "complete", map[string]any{"gaps": []string{"1"}})
	shuffled.Shuffled = true
	other := grec(pref, "g1", "complete", map[string]any{"first_prediction_likert": 3})
	cases := []struct {
		name string
		recs []*records.Annotation
		gold []*records.Annotation
		want string
	}{
		{"a record not of annotator gold", recs, []*records.Annotation{good, arec(legal, "g2", "ak", "complete", nil)},
			`gold.jsonl:2: cannot score against the gold set: unit g2 is a record of annotator "ak"; a gold set's records are annotator "gold"'s`},
		{"another template", recs, []*records.Annotation{other},
			"gold.jsonl:1: cannot score against the gold set: unit g1 is a record of template preference-likert version 1; the sources are of legal-gaps version 1"},
		{"candidates in the order shown", recs, []*records.Annotation{shuffled},
			"gold.jsonl:1: cannot score against the gold set: unit g1 still has its candidates in the order shown; pull it through the study's manifest, which puts them back"},
		{"no unit shared", recs, []*records.Annotation{grec(legal, "h1", "complete", map[string]any{"gaps": []string{"1"}}), grec(legal, "h2", "complete", map[string]any{"gaps": []string{"1"}})},
			"gold.jsonl: cannot score against the gold set: it shares no unit with the sources (its units: h1, h2; theirs: g1)"},
		{"nothing decided", recs, []*records.Annotation{grec(legal, "g1", "empty", nil)},
			"gold.jsonl: cannot score against the gold set: none of its records is complete or partial"},
		{"gold in the sources", append([]*records.Annotation{good}, recs...), []*records.Annotation{good},
			`cannot score against the gold set: the sources hold records of annotator "gold" (unit g1); give them as the gold set alone`},
		{"two different records of a unit", recs, []*records.Annotation{good, grec(legal, "g1", "complete", map[string]any{"gaps": []string{"2"}})},
			"gold.jsonl: cannot compute agreement: unit g1 has two different records by gold; keep one (export says which lines)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			origins := map[*records.Annotation]string{}
			for i, r := range c.gold {
				origins[r] = fmt.Sprintf("gold.jsonl:%d", i+1)
			}
			_, err := Agree(context.Background(), legal, c.recs, AgreeOptions{Gold: &Gold{Name: "gold.jsonl", Records: c.gold, Origins: origins}})
			if err == nil || err.Error() != c.want || !errors.Is(err, ErrGold) && !errors.Is(err, ErrAgree) {
				t.Errorf("error\n%v\nwant\n%s", err, c.want)
			}
		})
	}
}

// TestAgainstColumns checks that an annotator is paired with gold on the
// units both give a value, whichever side of "gold" their name sorts,
// and that pooling counts every (unit, annotator).
func TestAgainstColumns(t *testing.T) {
	t.Parallel()
	td := tableData{kind: templates.TypeChoice, options: []string{"a", "b"}, table: agreement.Table{
		Coders: []string{"ak", "gold", "zed"},
		Units: []agreement.Unit{
			{ID: "u1", Values: []*agreement.Value{{Code: "a"}, {Code: "a"}, {Code: "b"}}},
			{ID: "u2", Values: []*agreement.Value{nil, {Code: "b"}, {Code: "b"}}},
			{ID: "u3", Values: []*agreement.Value{{Code: "a"}, nil, {Code: "a"}}},
		},
	}}
	var got []string
	for _, cols := range [][]int{{0}, {2}, {0, 2}} {
		s, err := td.score(context.Background(), td.table.Coders, cols, 1)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range s.Metrics {
			if m.Metric == "percent_agreement" {
				ids = append(ids, fmt.Sprint(m.Value))
			}
		}
		got = append(got, fmt.Sprintf("%s %d %v %s", s.Annotator, s.Units, *s.Accuracy, strings.Join(ids, ",")))
	}
	if d := cmp.Diff([]string{"ak 1 1 1", "zed 2 0.5 0.5", "* 3 0.6666666666666666 0.6666666666666666"}, got); d != "" {
		t.Errorf("scores (-want +got):\n%s", d)
	}
}

// TestAgainstReference: one other annotator's records (a model's labels)
// are scored against as a gold set is, the scores those of the same
// records given as gold's, the set named by its annotator; without
// AnyAnnotator they are refused, and so are a set of two annotators and
// sources that hold the reference's own records.
func TestAgainstReference(t *testing.T) {
	t.Parallel()
	legal := builtin.Template(t, "legal-gaps")
	recs := []*records.Annotation{
		arec(legal, "g1", "ak", "complete", map[string]any{"gaps": []string{"1"}}),
		arec(legal, "g2", "ak", "complete", map[string]any{"gaps": []string{"2"}}),
		arec(legal, "g1", "bt", "complete", map[string]any{"gaps": []string{"1", "3"}}),
	}
	model := []*records.Annotation{
		arec(legal, "g1", "gpt4o", "complete", map[string]any{"gaps": []string{"1"}}),
		arec(legal, "g2", "gpt4o", "complete", map[string]any{"gaps": []string{"3"}}),
	}
	gold := []*records.Annotation{
		grec(legal, "g1", "complete", map[string]any{"gaps": []string{"1"}}),
		grec(legal, "g2", "complete", map[string]any{"gaps": []string{"3"}}),
	}
	byModel, err := Agree(context.Background(), legal, recs, AgreeOptions{Gold: &Gold{Name: "model.jsonl", Records: model, AnyAnnotator: true}})
	if err != nil {
		t.Fatal(err)
	}
	byGold, err := Agree(context.Background(), legal, recs, AgreeOptions{Gold: &Gold{Name: "model.jsonl", Records: gold, AnyAnnotator: true}})
	if err != nil {
		t.Fatal(err)
	}
	if byModel.Against.Reference != "gpt4o" || byGold.Against.Reference != "" {
		t.Errorf("references %q and %q, want gpt4o and none", byModel.Against.Reference, byGold.Against.Reference)
	}
	if d := cmp.Diff(byGold.Against, byModel.Against, cmpopts.IgnoreFields(Against{}, "Reference")); d != "" {
		t.Errorf("scores against the model differ from the same values as gold's (-gold +model):\n%s", d)
	}
	if a := byModel.Against.Questions[0].Annotators[0]; a.Annotator != "ak" || a.Units != 2 || *a.Accuracy != 0.5 {
		t.Errorf("ak against the model: %+v", a)
	}
	for _, c := range []struct {
		name string
		recs []*records.Annotation
		gold *Gold
		want string
	}{
		{"a model's records as a gold set", recs, &Gold{Name: "model.jsonl", Records: model},
			`cannot score against the gold set: unit g1 is a record of annotator "gpt4o"; a gold set's records are annotator "gold"'s`},
		{"two annotators", recs, &Gold{Name: "model.jsonl", Records: append(slices.Clone(model), arec(legal, "g3", "llama", "complete", nil)), AnyAnnotator: true},
			`cannot score against the gold set: unit g3 is a record of annotator "llama"; the set's first is "gpt4o"'s, and a reference is one annotator's records`},
		{"the reference in the sources", append(slices.Clone(recs), model[0]), &Gold{Name: "model.jsonl", Records: model, AnyAnnotator: true},
			`cannot score against the gold set: the sources hold records of annotator "gpt4o" (unit g1); give them as the reference alone`},
	} {
		if _, err := Agree(context.Background(), legal, c.recs, AgreeOptions{Gold: c.gold}); err == nil || !strings.HasSuffix(err.Error(), c.want) || !errors.Is(err, ErrGold) {
			t.Errorf("%s: %v, want ending %q", c.name, err, c.want)
		}
	}
}
