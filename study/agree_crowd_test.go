package study

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/templates"
)

// TestAgreeCrowd: agreement of a crowd of 3,000 annotators takes memory
// in proportion to its records, not to the 4.5 million pairs of
// annotators (it took 2.1 GB and died before): each question lists the
// pairs that share the most units, at most agreement.DefaultMaxPairs,
// and counts the others. With every pair sharing a unit, the pairs are
// millions, and still allocate next to nothing.
func TestAgreeCrowd(t *testing.T) {
	if testing.Short() {
		t.Skip("agreement of 3,000 annotators")
	}
	tp := builtin.Template(t, "preference-likert")
	for _, c := range []struct {
		name   string
		common bool
		ci     float64
		// budget bounds the bytes allocated, in all, per record.
		budget uint64
	}{
		{"one or two records each, with intervals", false, 0.95, 40_000},
		{"every pair shares a unit", true, 0, 40_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Not parallel: the allocations counted are this test's.
			recs := crowdRecords(tp, 3000, c.common)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			a, err := Agree(context.Background(), tp, recs, AgreeOptions{CI: c.ci, Resamples: 1000, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d records: %d MB allocated in all", len(recs), allocated>>20)
			if limit := c.budget * uint64(len(recs)); allocated > limit {
				t.Errorf("%d MB allocated for %d records, want at most %d MB", allocated>>20, len(recs), limit>>20)
			}
			if len(a.Questions) != 5 {
				t.Fatalf("%d questions, want 5", len(a.Questions))
			}
			for _, q := range a.Questions {
				if len(q.Annotators) != 3000 {
					t.Errorf("%s: %d annotators, want 3000", q.Name, len(q.Annotators))
				}
				if len(q.Pairs) != agreement.DefaultMaxPairs || q.PairsLeftOut == 0 || q.PairsNote == "" {
					t.Errorf("%s: %d pairs listed, %d left out (%q); want %d listed and the others counted", q.Name, len(q.Pairs), q.PairsLeftOut, q.PairsNote, agreement.DefaultMaxPairs)
				}
				if c.common && len(q.Pairs)+q.PairsLeftOut != 3000*2999/2 {
					t.Errorf("%s: %d pairs share a unit, want every one of the %d", q.Name, len(q.Pairs)+q.PairsLeftOut, 3000*2999/2)
				}
				if v, ok := q.Metrics[0].Value.(float64); !ok || math.IsNaN(v) {
					t.Errorf("%s: headline %v (%s)", q.Name, q.Metrics[0].Value, q.Metrics[0].Note)
				}
				if c.ci > 0 && len(q.Metrics[0].CI) != 2 {
					t.Errorf("%s: no interval", q.Name)
				}
			}
		})
	}
}

// BenchmarkAgreeCrowd is agreement on 3,000 annotators with one or two
// records each (4,500 records, five questions), with its intervals.
func BenchmarkAgreeCrowd(b *testing.B) {
	tp, err := templates.Builtin("preference-likert")
	if err != nil {
		b.Fatal(err)
	}
	recs := crowdRecords(tp, 3000, false)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Agree(context.Background(), tp, recs, AgreeOptions{CI: 0.95, Resamples: 1000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
