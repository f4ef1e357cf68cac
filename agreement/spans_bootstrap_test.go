package agreement

import (
	"math/rand/v2"
	"testing"
)

// TestBootstrapSpans checks the interval of a span statistic: the same
// seed gives the same interval, bit for bit; another seed another one;
// annotators who always agree give [1, 1]; and the interval of span F1
// holds its value on the whole data.
func TestBootstrapSpans(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var noisy, same SpanTable
	noisy.Coders, same.Coders = []string{"a", "b"}, []string{"a", "b"}
	for u := range 200 {
		id := string(rune('A'+u/26)) + string(rune('a'+u%26))
		s := Span{Start: r.IntN(50), Label: "x"}
		s.End = s.Start + 1 + r.IntN(10)
		other := s
		if r.IntN(3) == 0 {
			other.End++
		}
		noisy.Units = append(noisy.Units, SpanUnit{ID: id, Spans: [][]Span{{s}, {other}}})
		same.Units = append(same.Units, SpanUnit{ID: id, Spans: [][]Span{{s}, {s}}})
	}
	f1 := func(st SpanTable) (float64, bool) {
		v, ok := Spans(st, []string{"x"}, "").Metrics[0].Value.(float64)
		return v, ok
	}
	lo, hi, ok := BootstrapSpans(noisy, f1, 0.95, 200, 7)
	lo2, hi2, ok2 := BootstrapSpans(noisy, f1, 0.95, 200, 7)
	if !ok || !ok2 || lo != lo2 || hi != hi2 {
		t.Fatalf("the same seed gives [%v, %v] and [%v, %v]", lo, hi, lo2, hi2)
	}
	if lo3, hi3, _ := BootstrapSpans(noisy, f1, 0.95, 200, 8); lo3 == lo && hi3 == hi {
		t.Errorf("another seed gives the same interval [%v, %v]", lo, hi)
	}
	whole, _ := f1(noisy)
	if !(lo <= whole && whole <= hi && lo < hi) {
		t.Errorf("interval [%v, %v] does not hold F1 %v on the whole data", lo, hi, whole)
	}
	if lo, hi, ok := BootstrapSpans(same, f1, 0.95, 100, 1); !ok || lo != 1 || hi != 1 {
		t.Errorf("agreeing annotators: [%v, %v] (%v), want [1, 1]", lo, hi, ok)
	}
}
