package agreement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/testkit/stopping"
)

// crowdTable is a sparse table of units answered by two to four of many
// annotators each, most of whom share no unit.
func crowdTable(rng *rand.Rand, units, coders int) Table {
	t := Table{Coders: coderNames(coders)}
	for i := range units {
		u := Unit{ID: unitID(i)}
		who := rng.Perm(coders)[:2+rng.IntN(3)]
		slices.Sort(who)
		for _, c := range who {
			u.Coders = append(u.Coders, c)
			u.Values = append(u.Values, letterValue(rng, rng.IntN(3)))
		}
		t.Units = append(t.Units, u)
	}
	return t
}

// sharedUnits counts, by brute force, the units each pair of annotators
// (named in sorted order) both answered.
func sharedUnits(t Table) map[[2]string]int {
	out := map[[2]string]int{}
	for _, u := range t.Units {
		var who []int
		for c := range u.All() {
			who = append(who, c)
		}
		for i, a := range who {
			for _, b := range who[i+1:] {
				x, y := t.Coders[a], t.Coders[b]
				if y < x {
					x, y = y, x
				}
				out[[2]string{x, y}]++
			}
		}
	}
	return out
}

// TestPairsShareAUnit: a Result lists the pairs of annotators that share
// a unit, and no other; past MaxPairs, those that share the most units
// (ties to the first names), counting the others; and the question's
// metrics, means over every such pair, do not depend on how many are
// listed.
func TestPairsShareAUnit(t *testing.T) {
	t.Parallel()
	table := crowdTable(rand.New(rand.NewPCG(51, 52)), 300, 40)
	shared := sharedUnits(table)
	ranked := make([][2]string, 0, len(shared))
	for p := range shared {
		ranked = append(ranked, p)
	}
	slices.SortFunc(ranked, func(x, y [2]string) int {
		return cmp.Or(cmp.Compare(shared[y], shared[x]), cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	names := func(ps []Pair) [][2]string {
		var out [][2]string
		for _, p := range ps {
			out = append(out, [2]string{p.A, p.B})
		}
		return out
	}
	byName := func(ps [][2]string) [][2]string {
		ps = slices.Clone(ps)
		slices.SortFunc(ps, func(x, y [2]string) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
		return ps
	}
	all := must(Choice(bg, table, letters(3), Options{MaxPairs: len(shared)}))
	if diff := gocmp.Diff(byName(ranked), names(all.Pairs)); diff != "" {
		t.Errorf("pairs listed (-want +got):\n%s", diff)
	}
	if all.PairsLeftOut != 0 || all.PairsNote != "" {
		t.Errorf("every pair listed, yet %d left out (%q)", all.PairsLeftOut, all.PairsNote)
	}
	for _, n := range []int{1, 7, 50} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			some := must(Choice(bg, table, letters(3), Options{MaxPairs: n}))
			if diff := gocmp.Diff(byName(ranked[:n]), names(some.Pairs)); diff != "" {
				t.Errorf("pairs listed (-want +got):\n%s", diff)
			}
			if want := len(shared) - n; some.PairsLeftOut != want {
				t.Errorf("%d pairs left out, want %d", some.PairsLeftOut, want)
			}
			want := fmt.Sprintf("the %d pairs of annotators that share the most units, of the %d that share a unit; pairs that share none are not listed", n, len(shared))
			if some.PairsNote != want {
				t.Errorf("note %q, want %q", some.PairsNote, want)
			}
			// Each pair listed has the metrics it has when all are.
			for _, p := range some.Pairs {
				i := slices.IndexFunc(all.Pairs, func(q Pair) bool { return q.A == p.A && q.B == p.B })
				if diff := gocmp.Diff(all.Pairs[i], p); diff != "" {
					t.Errorf("pair %s–%s (-all listed +some listed):\n%s", p.A, p.B, diff)
				}
			}
			if diff := gocmp.Diff(all.Metrics, some.Metrics); diff != "" {
				t.Errorf("metrics (-all listed +some listed):\n%s", diff)
			}
		})
	}
	// Means over the pairs that share a unit: say so, as some share none.
	m, _ := findMetric(all, "cohen_kappa", map[string]any{"weights": "none"})
	if want := fmt.Sprintf(" of the %d annotator pairs that share a unit;", len(shared)); !strings.Contains(m.Note, want) {
		t.Errorf("cohen_kappa note %q, want it to say %q", m.Note, want)
	}
}

// TestSpansByPair: adding up each pair's counts pair by pair, as Spans
// does when pairs are too many to hold all their sums at once, gives the
// very Result of adding them up unit by unit.
func TestSpansByPair(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(55, 56))
	coders := coderNames(12)
	table := SpanTable{Coders: coders}
	for u := range 150 {
		who := r.Perm(len(coders))[:1+r.IntN(5)]
		slices.Sort(who)
		su := SpanUnit{ID: unitID(u), Coders: who}
		for range who {
			list := []Span{}
			for range r.IntN(4) {
				start := r.IntN(40)
				list = append(list, Span{Start: start, End: start + 1 + r.IntN(9), Label: []string{"X", "Y", "Z"}[r.IntN(3)]})
			}
			su.Spans = append(su.Spans, list)
		}
		table.Units = append(table.Units, su)
	}
	for _, ref := range []string{"", "c03"} {
		opt := Options{MaxPairs: 20}
		byUnit := must(spans(bg, table, []string{"X", "Y"}, ref, opt, spanUnitMajorSums))
		byPair := must(spans(bg, table, []string{"X", "Y"}, ref, opt, 0))
		if diff := gocmp.Diff(byUnit, byPair); diff != "" {
			t.Errorf("reference %q (-by unit +by pair):\n%s", ref, diff)
		}
	}
}

// TestSpanPearsonRExact: r from sums small enough for exact 64-bit terms
// is r from the same sums in big numbers, bit for bit.
func TestSpanPearsonRExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(57, 58))
	for range 2000 {
		n := int64(2 + rng.IntN(1000))
		var p spanPearsonSums
		for range n {
			x, y := int64(rng.IntN(20)), int64(rng.IntN(20))
			p.add(spanPearsonSums{x, y, x * x, y * y, x * y})
		}
		got, gotOK := spanPearsonR(n, p)
		want, wantOK := spanPearsonRBig(n, p)
		if got != want || gotOK != wantOK {
			t.Fatalf("n %d, sums %+v: r %v %v, in big numbers %v %v", n, p, got, gotOK, want, wantOK)
		}
	}
}

// TestStopped: a computation whose context is done while it runs stops
// with the context's error, between pairs, units or resamples: a crowd's
// thousands of pairs, or a bootstrap's resamples, are not all gone
// through.
func TestStopped(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(59, 60))
	table := crowdTable(rng, 3000, 400)
	coders := coderNames(400)
	spanTable := SpanTable{Coders: coders}
	for _, u := range table.Units {
		su := SpanUnit{ID: u.ID, Coders: u.Coders}
		for range u.Coders {
			start := rng.IntN(20)
			su.Spans = append(su.Spans, []Span{{Start: start, End: start + 3, Label: "X"}})
		}
		spanTable.Units = append(spanTable.Units, su)
	}
	r := ChoiceRatings(table, letters(3))
	alpha := func(r Ratings) (float64, bool) {
		v, err := KrippendorffAlpha(r, Nominal)
		return v, err == nil
	}
	resamples := 0
	tests := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"choice", func(ctx context.Context) error {
			_, err := Choice(ctx, table, letters(3), Options{})
			return err
		}},
		{"spans", func(ctx context.Context) error {
			_, err := Spans(ctx, spanTable, []string{"X"}, "", Options{})
			return err
		}},
		{"spans, pair by pair", func(ctx context.Context) error {
			_, err := spans(ctx, spanTable, []string{"X"}, "", Options{}, 0)
			return err
		}},
		{"bootstrap", func(ctx context.Context) error {
			_, _, _, err := BootstrapRatings(ctx, r, func(r Ratings) (float64, bool) {
				resamples++
				return alpha(r)
			}, 0.95, 1_000_000, 1)
			return err
		}},
		{"span bootstrap", func(ctx context.Context) error {
			_, _, _, err := BootstrapSpanF1(ctx, spanTable, 0.95, 1_000_000, 1)
			return err
		}},
	}
	for _, tt := range tests {
		// Not parallel: the bootstrap case counts its resamples.
		if err := tt.run(stopping.After(context.Background(), 3)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want %v", tt.name, err, context.Canceled)
		}
	}
	if resamples > 3 {
		t.Errorf("the bootstrap drew %d resamples after its context was done", resamples-3)
	}
}
