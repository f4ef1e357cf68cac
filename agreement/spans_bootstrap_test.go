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
		v, ok := must(Spans(bg, st, []string{"x"}, "", Options{})).Metrics[0].Value.(float64)
		return v, ok
	}
	lo, hi, ok, _ := BootstrapSpans(bg, noisy, f1, 0.95, 200, 7)
	lo2, hi2, ok2, _ := BootstrapSpans(bg, noisy, f1, 0.95, 200, 7)
	if !ok || !ok2 || lo != lo2 || hi != hi2 {
		t.Fatalf("the same seed gives [%v, %v] and [%v, %v]", lo, hi, lo2, hi2)
	}
	if lo3, hi3, _, _ := BootstrapSpans(bg, noisy, f1, 0.95, 200, 8); lo3 == lo && hi3 == hi {
		t.Errorf("another seed gives the same interval [%v, %v]", lo, hi)
	}
	// A resample's units come in the table's order; in the order drawn,
	// Spans sorts them itself, to the same interval.
	drawn := func(units []SpanUnit) (float64, bool) { return f1(SpanTable{Coders: noisy.Coders, Units: units}) }
	if lo4, hi4, _, _ := resampleUnits(bg, noisy.Units, drawn, 0.95, 200, 7); lo4 != lo || hi4 != hi {
		t.Errorf("in the order drawn [%v, %v], in the table's order [%v, %v]", lo4, hi4, lo, hi)
	}
	whole, _ := f1(noisy)
	if !(lo <= whole && whole <= hi && lo < hi) {
		t.Errorf("interval [%v, %v] does not hold F1 %v on the whole data", lo, hi, whole)
	}
	if lo, hi, ok, _ := BootstrapSpans(bg, same, f1, 0.95, 100, 1); !ok || lo != 1 || hi != 1 {
		t.Errorf("agreeing annotators: [%v, %v] (%v), want [1, 1]", lo, hi, ok)
	}
}

// TestBootstrapSpanF1 checks the short way to the headline's interval:
// on tables of two to four annotators (named out of order), with units
// some annotators did not complete, complete units without spans, spans
// repeated, and labels, it gives the interval BootstrapSpans gives the
// headline of Spans, bit for bit, and none where that has none.
func TestBootstrapSpanF1(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for _, coders := range [][]string{{"b", "a"}, {"cm", "ak", "bt"}, {"d", "c", "b", "a"}, {"solo"}} {
		tb := SpanTable{Coders: coders}
		for u := range 80 {
			unit := SpanUnit{ID: string(rune('A'+u/26)) + string(rune('a'+u%26)), Spans: make([][]Span, len(coders))}
			for c := range coders {
				switch r.IntN(6) {
				case 0:
					continue // not completed
				case 1:
					unit.Spans[c] = []Span{} // completed, no span
					continue
				}
				for range 1 + r.IntN(3) {
					s := Span{Start: r.IntN(4) * 10, Label: []string{"x", "y"}[r.IntN(2)]}
					s.End = s.Start + 5 + r.IntN(2)
					unit.Spans[c] = append(unit.Spans[c], s)
				}
			}
			tb.Units = append(tb.Units, unit)
		}
		headline := func(st SpanTable) (float64, bool) {
			v, ok := must(Spans(bg, st, []string{"x", "y"}, "", Options{})).Metrics[0].Value.(float64)
			return v, ok
		}
		lo, hi, ok, _ := BootstrapSpans(bg, tb, headline, 0.9, 120, 11)
		lo2, hi2, ok2, _ := BootstrapSpanF1(bg, tb, 0.9, 120, 11)
		if lo != lo2 || hi != hi2 || ok != ok2 {
			t.Errorf("%v: [%v, %v] (%v), BootstrapSpans gives [%v, %v] (%v)", coders, lo2, hi2, ok2, lo, hi, ok)
		}
		t.Logf("%v: [%v, %v] (%v)", coders, lo2, hi2, ok2)
	}
}
