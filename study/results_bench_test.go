package study

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/testkit/builtin"
)

// BenchmarkResults computes the results of a legal-gaps study held in
// memory: units items, half of them gpt4o's and half llama3's, paired by
// number, three annotators each, with the defaults of the command (2,000
// resamples, 10,000 permutations). It reports the peak heap, and what
// the computation adds to the records held; reading the records is not
// timed (see the records' own benchmarks).
//
//	go test ./study -run '^$' -bench Results -benchtime 1x
func BenchmarkResults(b *testing.B) {
	tp := builtin.Template(b, "legal-gaps")
	for _, units := range []int{10_000, 30_000, 100_000} {
		b.Run(fmt.Sprintf("units=%d", units), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			recs := make([]*records.Annotation, 0, 3*units)
			for u := range units {
				id := fmt.Sprintf("%s-%d", []string{"gpt4o", "llama3"}[u%2], u/2)
				for _, who := range []string{"ak", "bt", "cm"} {
					codes := []string{fmt.Sprint(r.IntN(4))}
					if r.IntN(3) == 0 {
						codes = append(codes, fmt.Sprint(r.IntN(4)))
					}
					recs = append(recs, &records.Annotation{Template: records.TemplateID{Name: tp.Name, Version: tp.Version}, Unit: id, Item: id,
						Annotator: who, Status: records.StatusComplete, Values: map[string]any{"gaps": codes}})
				}
			}
			opt := ResultsOptions{Options: results.Options{Level: 0.95, Resamples: 2000, Permutations: 10000, Seed: 1}}
			b.ResetTimer()
			for range b.N {
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				stop := benchdata.PeakHeap()
				if _, err := Results(context.Background(), tp, recs, opt); err != nil {
					b.Fatal(err)
				}
				peak := stop()
				b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
				b.ReportMetric(float64(peak-min(peak, m.HeapInuse))/(1<<20), "over-records-MB")
			}
		})
	}
}

// BenchmarkResultsPreference is BenchmarkResults for preference-likert:
// three candidates rated on a scale (means and medians), two best-of
// choices, every unit paired by itself.
//
//	go test ./study -run '^$' -bench ResultsPreference -benchtime 1x
func BenchmarkResultsPreference(b *testing.B) {
	tp := builtin.Template(b, "preference-likert")
	for _, units := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("units=%d", units), func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 4))
			recs := make([]*records.Annotation, 0, 3*units)
			cands := []string{"first", "second", "third"}
			for u := range units {
				id := fmt.Sprintf("topic-%d", u)
				for _, who := range []string{"ak", "bt", "cm"} {
					recs = append(recs, &records.Annotation{Template: records.TemplateID{Name: tp.Name, Version: tp.Version}, Unit: id, Item: id,
						Annotator: who, Status: records.StatusComplete, Values: map[string]any{
							"best_prediction_reference": cands[r.IntN(3)], "best_prediction_topic": cands[r.IntN(3)],
							"first_prediction_likert": 1 + r.IntN(5), "second_prediction_likert": 1 + r.IntN(5), "third_prediction_likert": 1 + r.IntN(5)}})
				}
			}
			opt := ResultsOptions{Options: results.Options{Level: 0.95, Resamples: 2000, Permutations: 10000, Seed: 1}}
			b.ResetTimer()
			for range b.N {
				if _, err := Results(context.Background(), tp, recs, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
