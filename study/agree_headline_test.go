package study

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// TestHeadlineInterval checks the short way the interval is computed: for
// every kind that has one, the headline statistic on the coded ratings is
// the headline metric agree reports, and the interval from resampling the
// coded ratings is the one from resampling the table and computing every
// metric of each resample, as agree did before.
func TestHeadlineInterval(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	pref, legal, qa := builtin.Template(t, "preference-likert"), builtin.Template(t, "legal-gaps"), builtin.Template(t, "qa-span-errors")
	codes := optionCodes(pref.QuestionByName("best_prediction_reference"))
	var prefRecs, legalRecs, qaRecs []*records.Annotation
	for u := range 60 {
		unit := fmt.Sprintf("u%03d", u)
		base := r.IntN(5) + 1
		for _, who := range []string{"ak", "bt", "cm"} {
			if u%7 == 0 && who == "cm" {
				continue // a unit of two
			}
			v := func() int { return min(5, max(1, base+r.IntN(3)-1)) }
			prefRecs = append(prefRecs, arec(pref, unit, who, records.StatusComplete, map[string]any{
				"best_prediction_reference": codes[(base+r.IntN(2))%3], "best_prediction_topic": codes[r.IntN(3)],
				"first_prediction_likert": v(), "second_prediction_likert": v(), "third_prediction_likert": v(),
			}))
			gaps := []string{fmt.Sprint(base % 4)}
			if r.IntN(3) == 0 {
				gaps = append(gaps, fmt.Sprint((base+1)%4))
			}
			legalRecs = append(legalRecs, arec(legal, unit, who, records.StatusComplete, map[string]any{
				"gaps": gaps, "note": []string{"fine", "Fine ", "wrong case"}[r.IntN(3)],
			}))
			ev := &records.Evidence{Passage: 1 + base%2, Sentences: []int{r.IntN(3)}}
			start, end := base*10, base*10+5+r.IntN(2)
			qaRecs = append(qaRecs, arec(qa, unit, who, records.StatusComplete, map[string]any{"checked": r.IntN(4) > 0},
				records.SpanAnswer{Question: qa.Rows.Spans, Code: []string{"Wrong-Grounding", "Missing-Answer"}[base%2], Evidence: ev},
				records.SpanAnswer{Question: qa.Rows.Spans, Start: &start, End: &end, Code: []string{"Irrelevant", "Incoherent"}[r.IntN(2)]}))
		}
	}
	for _, c := range []struct {
		t    *templates.Template
		recs []*records.Annotation
	}{{pref, prefRecs}, {legal, legalRecs}, {qa, qaRecs}} {
		a, err := Agree(context.Background(), c.t, c.recs, AgreeOptions{CI: 0.9, Resamples: 150, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range a.Questions {
			td := a.compared[i].data(a.set)
			first := func(r agreement.Result, err error) (float64, bool) {
				if err != nil {
					return 0, false
				}
				v, ok := r.Metrics[0].Value.(float64)
				return v, ok
			}
			var lo, hi float64
			var ok bool
			if td.kind == templates.TypeSpan {
				lo, hi, ok, _ = agreement.BootstrapSpans(context.Background(), td.spans, func(s agreement.SpanTable) (float64, bool) {
					t := td
					t.spans = s
					return first(t.result(context.Background(), t.table, AgreeOptions{}))
				}, 0.9, 150, 3)
			} else {
				ratings, stat, coded := td.headline()
				if !coded {
					t.Errorf("%s %s: no headline statistic for a %s", c.t.Name, q.Name, td.kind)
					continue
				}
				whole, err := td.result(context.Background(), td.table, AgreeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if v, ok := stat(ratings); whole.Metrics[0].Value != nil && (!ok || v != whole.Metrics[0].Value) {
					t.Errorf("%s %s: the headline on the coded ratings is %v (%v), agree reports %v", c.t.Name, q.Name, v, ok, whole.Metrics[0].Value)
				}
				lo, hi, ok, _ = agreement.Bootstrap(context.Background(), td.table, func(tb agreement.Table) (float64, bool) {
					return first(td.result(context.Background(), tb, AgreeOptions{}))
				}, 0.9, 150, 3)
			}
			ci := q.Metrics[0].CI
			if !ok {
				if ci != nil {
					t.Errorf("%s %s: interval %v, want none", c.t.Name, q.Name, ci)
				}
				continue
			}
			if len(ci) != 2 || ci[0] != lo || ci[1] != hi {
				t.Errorf("%s %s: interval %v, resampling the table gives [%v, %v]", c.t.Name, q.Name, ci, lo, hi)
			}
			t.Logf("%s %s (%s): %v", c.t.Name, q.Name, q.Type, ci)
		}
	}
}
