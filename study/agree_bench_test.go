package study

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// BenchmarkAgree100k is agreement on 100,000 units × 3 annotators × the
// five questions of preference-likert (two choices, three 1–5 scales),
// from records to every question's result. The README quotes it.
func BenchmarkAgree100k(b *testing.B) {
	tp, err := templates.Builtin("preference-likert")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	codes := optionCodes(tp.QuestionByName("best_prediction_reference"))
	var recs []*records.Annotation
	for u := range 100_000 {
		unit := fmt.Sprintf("u%06d", u)
		base := r.IntN(5) + 1
		for _, who := range []string{"ak", "bt", "cm"} {
			v := func() int { return min(5, max(1, base+r.IntN(3)-1)) }
			recs = append(recs, arec(tp, unit, who, records.StatusComplete, map[string]any{
				"best_prediction_reference": codes[r.IntN(len(codes))], "best_prediction_topic": codes[r.IntN(len(codes))],
				"first_prediction_likert": v(), "second_prediction_likert": v(), "third_prediction_likert": v(),
			}))
		}
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a, err := Agree(context.Background(), tp, recs, AgreeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(a.Questions) != 5 {
			b.Fatalf("%d questions", len(a.Questions))
		}
	}
}
