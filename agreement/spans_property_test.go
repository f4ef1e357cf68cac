package agreement_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/agreement"
)

// spanRandom is a random table: units × coders, most units complete,
// a few spans each with random labels; seeded, so the same every run.
func spanRandom(seed uint64, units int, coders []string, labels []string) agreement.SpanTable {
	r := rand.New(rand.NewPCG(seed, 1))
	t := agreement.SpanTable{Coders: coders}
	for u := range units {
		su := agreement.SpanUnit{ID: fmt.Sprintf("u%06d", u), Spans: make([][]agreement.Span, len(coders))}
		for c := range coders {
			if r.IntN(10) == 0 {
				continue // not completed
			}
			list := []agreement.Span{}
			for range r.IntN(7) {
				start := r.IntN(200)
				list = append(list, spanL(start, start+1+r.IntN(30), labels[r.IntN(len(labels))]))
			}
			su.Spans[c] = list
		}
		t.Units = append(t.Units, su)
	}
	return t
}

// spanFactgenieChars is a character-by-character rendering of the loop in
// factgenie's compute_f1_scores (factgenie/iaa/f1.py): each character of
// each hypothesis span takes the first reference span that covers it, has
// its label (hard) and is not yet matched at that character. Unlike
// factgenie it counts the lengths in every unit both completed, as Spans
// does. It returns the characters in common, the hypothesis's and the
// reference's.
func spanFactgenieChars(table agreement.SpanTable, ref, hyp int, hard bool) (common, hypLen, refLen int) {
	for _, u := range table.Units {
		rs, hs := u.Spans[ref], u.Spans[hyp]
		if rs == nil || hs == nil {
			continue
		}
		for _, r := range rs {
			refLen += max(0, r.End-r.Start)
		}
		type key struct{ pos, ref int }
		matched := map[key]bool{}
		for _, h := range hs {
			hypLen += max(0, h.End-h.Start)
			for pos := h.Start; pos < h.End; pos++ {
				for i, r := range rs {
					if r.Start <= pos && pos < r.End && (!hard || r.Label == h.Label) && !matched[key{pos, i}] {
						matched[key{pos, i}] = true
						common++
						break
					}
				}
			}
		}
	}
	return common, hypLen, refLen
}

func TestSpansCharOverlapAsFactgenieLoop(t *testing.T) {
	t.Parallel()
	labels := []string{"X", "Y"}
	for seed := range uint64(20) {
		table := spanRandom(100+seed, 40, spanAB, labels)
		res := must(agreement.Spans(bg, table, labels, "B", agreement.Options{}))
		got := spanValues(res.Metrics)
		for _, hard := range []bool{true, false} {
			match := map[bool]string{true: "hard", false: "soft"}[hard]
			common, hypLen, refLen := spanFactgenieChars(table, 1, 0, hard)
			want := agreement.PRF{
				Precision: float64(common) / float64(hypLen),
				Recall:    float64(common) / float64(refLen),
				F1:        2 * float64(common) / float64(hypLen+refLen),
			}
			k := "span_char_overlap_prf hypothesis=A match=" + match + " reference=B"
			if diff := cmp.Diff(want, got[k], spanApprox); diff != "" {
				t.Errorf("seed %d: %s (-want +got):\n%s", seed, k, diff)
			}
		}
	}
}

// spanTwoPassR is Pearson's r by its definition, means first.
func spanTwoPassR(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

func TestSpansPearsonAsDefined(t *testing.T) {
	t.Parallel()
	labels := []string{"X", "Y", "Z"}
	table := spanRandom(21, 200, spanAB, labels)
	var microA, microB []float64
	perA, perB := map[string][]float64{}, map[string][]float64{}
	for _, u := range table.Units {
		if u.Spans[0] == nil || u.Spans[1] == nil {
			continue
		}
		for _, l := range labels {
			var a, b float64
			for _, s := range u.Spans[0] {
				if s.Label == l {
					a++
				}
			}
			for _, s := range u.Spans[1] {
				if s.Label == l {
					b++
				}
			}
			microA, microB = append(microA, a), append(microB, b)
			perA[l], perB[l] = append(perA[l], a), append(perB[l], b)
		}
	}
	var macro float64
	for _, l := range labels {
		macro += spanTwoPassR(perA[l], perB[l])
	}
	want := agreement.Pearson{Micro: spanTwoPassR(microA, microB), Macro: macro / 3}
	got := spanValues(must(agreement.Spans(bg, table, labels, "", agreement.Options{})).Metrics)[spanPearsonK]
	if diff := cmp.Diff(want, got, spanApprox); diff != "" {
		t.Errorf("span_count_pearson (-want +got):\n%s", diff)
	}
}

func TestSpansIdenticalAnnotators(t *testing.T) {
	t.Parallel()
	labels := []string{"X", "Y", "Z"}
	base := spanRandom(7, 300, []string{"A"}, labels)
	table := agreement.SpanTable{Coders: spanAB}
	for _, u := range base.Units {
		if u.Spans[0] == nil {
			continue
		}
		table.Units = append(table.Units, agreement.SpanUnit{ID: u.ID, Spans: [][]agreement.Span{u.Spans[0], slices.Clone(u.Spans[0])}})
	}
	res := must(agreement.Spans(bg, table, labels, "", agreement.Options{}))
	for _, m := range res.Metrics {
		var want any = 1.0
		switch m.Metric {
		case "span_char_overlap_prf":
			want = agreement.PRF{Precision: 1, Recall: 1, F1: 1}
		case "span_count_pearson":
			want = agreement.Pearson{Micro: 1, Macro: 1}
		}
		if diff := cmp.Diff(want, m.Value, spanApprox); diff != "" {
			t.Errorf("%s (-want +got):\n%s", spanKey(m), diff)
		}
	}
	for _, d := range res.UnitsDetail {
		if !d.Agree {
			t.Errorf("unit %s: identical annotators do not agree", d.Unit)
		}
	}
}

// TestSpansInvariance: renaming the annotators consistently (the reference
// with them, their sorted order changed), listing them out of order, and
// reordering units and spans leave the question's values unchanged.
func TestSpansInvariance(t *testing.T) {
	t.Parallel()
	labels := []string{"X", "Y"}
	coders := []string{"ann", "bea", "cy"}
	table := spanRandom(11, 500, coders, labels)
	want := must(agreement.Spans(bg, table, labels, "bea", agreement.Options{}))

	rename := map[string]string{"ann": "zed", "bea": "amy", "cy": "max"}
	r := rand.New(rand.NewPCG(3, 4))
	// Columns in the order max, zed, amy (not sorted): column i of the new
	// table is column perm[i] of the old.
	perm := []int{2, 0, 1}
	moved := agreement.SpanTable{}
	for _, i := range perm {
		moved.Coders = append(moved.Coders, rename[coders[i]])
	}
	for _, u := range table.Units {
		nu := agreement.SpanUnit{ID: u.ID}
		for _, i := range perm {
			list := slices.Clone(u.Spans[i])
			r.Shuffle(len(list), func(a, b int) { list[a], list[b] = list[b], list[a] })
			nu.Spans = append(nu.Spans, list)
		}
		moved.Units = append(moved.Units, nu)
	}
	r.Shuffle(len(moved.Units), func(a, b int) { moved.Units[a], moved.Units[b] = moved.Units[b], moved.Units[a] })
	got := must(agreement.Spans(bg, moved, labels, "amy", agreement.Options{}))

	// Params name annotators: compare the values in metric order.
	values := func(res agreement.Result) []any {
		var v []any
		for _, m := range res.Metrics {
			v = append(v, m.Metric, m.Value)
		}
		for _, o := range res.Options {
			for _, m := range o.Metrics {
				v = append(v, o.Code, m.Metric, m.Value)
			}
		}
		return v
	}
	if diff := cmp.Diff(values(want), values(got), spanApprox); diff != "" {
		t.Errorf("values after renaming and reordering (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.UnitsDetail, got.UnitsDetail); diff != "" {
		t.Errorf("units detail (-want +got):\n%s", diff)
	}
	if want.Units != got.Units || want.Pairable != got.Pairable {
		t.Errorf("units, pairable = %d, %d, want %d, %d", got.Units, got.Pairable, want.Units, want.Pairable)
	}
	if !slices.Equal(got.Annotators, []string{"amy", "max", "zed"}) {
		t.Errorf("annotators %v, want them sorted", got.Annotators)
	}
	// The reference's pairs keep their direction: bea–cy is amy–max.
	hard := func(p agreement.Pair) any { return p.Metrics[4].Value }
	if diff := cmp.Diff(hard(want.Pairs[2]), hard(got.Pairs[0]), spanApprox); diff != "" {
		t.Errorf("reference's pair (-want +got):\n%s", diff)
	}

	// Units merely reordered give the same bytes.
	shuffled := agreement.SpanTable{Coders: table.Coders, Units: slices.Clone(table.Units)}
	r.Shuffle(len(shuffled.Units), func(a, b int) { shuffled.Units[a], shuffled.Units[b] = shuffled.Units[b], shuffled.Units[a] })
	if a, b := spanJSON(t, want), spanJSON(t, must(agreement.Spans(bg, shuffled, labels, "bea", agreement.Options{}))); !bytes.Equal(a, b) {
		t.Errorf("units reordered give other bytes:\n%s\n%s", a, b)
	}
}

func TestSpansByteIdentical(t *testing.T) {
	t.Parallel()
	labels := []string{"X", "Y", "Z"}
	table := spanRandom(5, 2000, []string{"a", "b", "c", "d"}, labels)
	first := spanJSON(t, must(agreement.Spans(bg, table, labels, "", agreement.Options{})))
	for range 3 {
		if again := spanJSON(t, must(agreement.Spans(bg, table, labels, "", agreement.Options{}))); !bytes.Equal(first, again) {
			t.Fatal("two runs give other bytes")
		}
	}
	if bytes.Contains(first, []byte("NaN")) || bytes.Contains(first, []byte("Inf")) {
		t.Error("output holds NaN or Inf")
	}
}

// TestSpansDoesNotModifyInput: the caller's lists keep their order.
func TestSpansDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	list := []agreement.Span{spanL(9, 12, "X"), spanL(0, 3, "Y")}
	table := spanTable(spanAB, spanUnit("u1", list, []agreement.Span{spanL(0, 3, "Y")}))
	must(agreement.Spans(bg, table, []string{"X", "Y"}, "", agreement.Options{}))
	if !slices.Equal(list, []agreement.Span{spanL(9, 12, "X"), spanL(0, 3, "Y")}) {
		t.Errorf("input reordered: %v", list)
	}
}

func BenchmarkSpans100k(b *testing.B) {
	labels := []string{"X", "Y", "Z", "W"}
	// About 3 spans per list on average, the odd list incomplete.
	table := spanRandom(1, 100_000, []string{"a", "b", "c"}, labels)
	b.ReportAllocs()
	for b.Loop() {
		must(agreement.Spans(bg, table, labels, "", agreement.Options{}))
	}
}

// TestSpansSparseRows: a span table whose units list only the annotators
// who completed them gives the very Result of the same table dense, and
// the same interval.
func TestSpansSparseRows(t *testing.T) {
	t.Parallel()
	coders := []string{"ann", "bea", "cy", "dan"}
	labels := []string{"X", "Y"}
	table := spanRandom(9, 60, coders, labels)
	sparse := agreement.SpanTable{Coders: coders}
	for _, u := range table.Units {
		nu := agreement.SpanUnit{ID: u.ID, Coders: []int{}}
		for c, l := range u.All() {
			nu.Coders, nu.Spans = append(nu.Coders, c), append(nu.Spans, l)
		}
		sparse.Units = append(sparse.Units, nu)
	}
	if diff := cmp.Diff(must(agreement.Spans(bg, table, labels, "", agreement.Options{})), must(agreement.Spans(bg, sparse, labels, "", agreement.Options{}))); diff != "" {
		t.Errorf("(-dense +sparse):\n%s", diff)
	}
	dlo, dhi, dok, _ := agreement.BootstrapSpanF1(bg, table, 0.9, 200, 7)
	slo, shi, sok, _ := agreement.BootstrapSpanF1(bg, sparse, 0.9, 200, 7)
	if dlo != slo || dhi != shi || dok != sok {
		t.Errorf("BootstrapSpanF1: dense [%v, %v] %v, sparse [%v, %v] %v", dlo, dhi, dok, slo, shi, sok)
	}
}

// TestSpansPairsShareAUnit: a span question lists the pairs of
// annotators that share a unit, at most MaxPairs of them, those that
// share the most units first; its metrics, means over every such pair,
// do not depend on how many are listed.
func TestSpansPairsShareAUnit(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(53, 54))
	var coders []string
	for i := range 30 {
		coders = append(coders, fmt.Sprintf("c%02d", i))
	}
	table := agreement.SpanTable{Coders: coders}
	shared := map[[2]string]int{}
	for u := range 200 {
		who := r.Perm(len(coders))[:2+r.IntN(3)]
		slices.Sort(who)
		su := agreement.SpanUnit{ID: fmt.Sprintf("u%04d", u), Coders: who}
		for i, c := range who {
			list := []agreement.Span{}
			for range r.IntN(3) {
				start := r.IntN(50)
				list = append(list, spanL(start, start+1+r.IntN(9), []string{"X", "Y"}[r.IntN(2)]))
			}
			su.Spans = append(su.Spans, list)
			for _, d := range who[i+1:] {
				shared[[2]string{coders[c], coders[d]}]++
			}
		}
		table.Units = append(table.Units, su)
	}
	all := must(agreement.Spans(bg, table, []string{"X", "Y"}, "", agreement.Options{MaxPairs: len(shared)}))
	if len(all.Pairs) != len(shared) || all.PairsLeftOut != 0 {
		t.Fatalf("%d pairs listed, %d left out; want the %d that share a unit", len(all.Pairs), all.PairsLeftOut, len(shared))
	}
	for _, p := range all.Pairs {
		if shared[[2]string{p.A, p.B}] == 0 {
			t.Errorf("pair %s–%s shares no unit", p.A, p.B)
		}
	}
	few := must(agreement.Spans(bg, table, []string{"X", "Y"}, "", agreement.Options{MaxPairs: 10}))
	if len(few.Pairs) != 10 || few.PairsLeftOut != len(shared)-10 {
		t.Errorf("%d pairs listed, %d left out; want 10 and %d", len(few.Pairs), few.PairsLeftOut, len(shared)-10)
	}
	least := len(table.Units)
	for _, p := range few.Pairs {
		least = min(least, shared[[2]string{p.A, p.B}])
	}
	more := 0
	for _, n := range shared {
		if n > least {
			more++
		}
	}
	if more > 10 {
		t.Errorf("the pairs listed share at least %d units each, but %d pairs share more", least, more)
	}
	if diff := cmp.Diff(all.Metrics, few.Metrics); diff != "" {
		t.Errorf("metrics (-all listed +10 listed):\n%s", diff)
	}
	if diff := cmp.Diff(all.Options, few.Options); diff != "" {
		t.Errorf("options (-all listed +10 listed):\n%s", diff)
	}
}
