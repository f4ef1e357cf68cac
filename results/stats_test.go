package results

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/annosheet/annosheet/agreement"
)

func obs(group string, items []string, vals ...float64) []Obs {
	out := make([]Obs, len(vals))
	for i, v := range vals {
		it := group + string(rune('a'+i))
		if items != nil {
			it = items[i]
		}
		out[i] = Obs{Item: it, Group: group, Value: v}
	}
	return out
}

var testOpt = Options{Level: 0.95, Resamples: 2000, Permutations: 5000, Seed: 1}

func TestMedianAndMean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		xs        []float64
		mean, med float64
	}{
		{[]float64{1, 3, 2}, 2, 2},
		{[]float64{4, 1, 3, 2}, 2.5, 2.5},
		{[]float64{5}, 5, 5},
		{[]float64{0, 0, 0, 10}, 2.5, 0},
	} {
		if got := mean(tc.xs); got != tc.mean {
			t.Errorf("mean(%v) = %v, want %v", tc.xs, got, tc.mean)
		}
		if got := medianOf(append([]float64{}, tc.xs...)); got != tc.med {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.med)
		}
	}
	if !math.IsNaN(mean(nil)) || !math.IsNaN(medianOf(nil)) {
		t.Error("the mean or median of nothing is a number")
	}
}

// TestHolm: step-down adjustment, made monotone, capped at 1, in the
// order of the raw p-values.
func TestHolm(t *testing.T) {
	t.Parallel()
	comps := []Comparison{{P: 0.01}, {P: 0.04}, {P: 0.03}, {P: 0.5}}
	holm(comps)
	want := []float64{0.04, 0.09, 0.09, 0.5}
	for i, c := range comps {
		if math.Abs(c.PHolm-want[i]) > 1e-15 {
			t.Errorf("p %v: Holm %v, want %v", c.P, c.PHolm, want[i])
		}
	}
	one := []Comparison{{P: 0.6}, {P: 0.7}}
	holm(one)
	if one[0].PHolm != 1 || one[1].PHolm != 1 {
		t.Errorf("Holm over 1: %v, %v, want 1, 1", one[0].PHolm, one[1].PHolm)
	}
}

// TestUnpaired: estimates per group, the difference, an interval around
// it, and a permutation p-value; the same options, the same numbers.
func TestUnpaired(t *testing.T) {
	t.Parallel()
	s := Series{Statistic: "share", Groups: []string{"a", "b"},
		Obs: append(obs("a", nil, 1, 0, 1, 1, 1, 1, 0, 1), obs("b", nil, 0, 0, 1, 0, 0, 0, 1, 0)...)}
	ests, comps, unpaired, err := Analyze(context.Background(), s, testOpt)
	if err != nil {
		t.Fatal(err)
	}
	if unpaired != 0 || len(ests) != 2 || len(comps) != 1 {
		t.Fatalf("unpaired %d, %d estimates, %d comparisons", unpaired, len(ests), len(comps))
	}
	if ests[0].Value != 0.75 || ests[1].Value != 0.25 || ests[0].Units != 8 || *ests[0].Group != "a" {
		t.Errorf("estimates %+v %+v", ests[0], ests[1])
	}
	for _, e := range ests {
		if e.CI == nil || e.CI[0] > e.Value || e.CI[1] < e.Value || e.CI[0] < 0 || e.CI[1] > 1 {
			t.Errorf("%s: interval %v around %v", *e.Group, e.CI, e.Value)
		}
	}
	c := comps[0]
	if c.A != "a" || c.B != "b" || c.Difference != 0.5 || c.CI == nil || c.CI[0] > 0.5 || c.CI[1] < 0.5 {
		t.Errorf("comparison %+v", c)
	}
	// Fisher's exact two-sided p for 6/8 against 2/8 is 0.1319; the
	// permutation test estimates it.
	if c.P < 0.10 || c.P > 0.17 || c.PHolm != c.P {
		t.Errorf("p %v (Holm %v), want about 0.13", c.P, c.PHolm)
	}
	again, comps2, _, _ := Analyze(context.Background(), s, testOpt)
	if !reflect.DeepEqual(ests, again) || !reflect.DeepEqual(comps, comps2) {
		t.Error("one seed, two results")
	}
}

// TestPaired: items keep their groups together; an item without one of
// the groups counts in the other's estimate and is unpaired; the
// permutation test swaps within items.
func TestPaired(t *testing.T) {
	t.Parallel()
	items := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}
	s := Series{Statistic: "mean", Groups: []string{"x", "y"}, Paired: true,
		Obs: append(obs("x", append(items, "11"), 3, 4, 5, 3, 4, 5, 3, 4, 5, 3, 9), obs("y", items, 2, 3, 4, 2, 3, 4, 2, 3, 4, 2)...)}
	ests, comps, unpaired, err := Analyze(context.Background(), s, Options{Level: 0.9, Resamples: 1000, Permutations: 20000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if unpaired != 1 {
		t.Errorf("unpaired %d, want 1 (item 11)", unpaired)
	}
	if ests[0].Value != 48.0/11 || ests[0].Units != 11 || ests[1].Value != 2.9 {
		t.Errorf("estimates %v, %v", ests[0].Value, ests[1].Value)
	}
	// Over the ten items both have, x is y + 1 everywhere: every resample
	// gives 1, and only the two permutations that swap all or none are as
	// extreme: p is about 2/1024.
	c := comps[0]
	if c.Difference != 1 || c.CI == nil || math.Abs(c.CI[0]-1) > 1e-12 || math.Abs(c.CI[1]-1) > 1e-12 {
		t.Errorf("difference %v, interval %v; want 1, [1, 1]", c.Difference, c.CI)
	}
	if want := 2.0 / 1024; math.Abs(c.P-want) > 4*math.Sqrt(want/20000)+1.0/20001 {
		t.Errorf("p %v, want about %v", c.P, want)
	}
}

// TestMedianComparison: a median's difference is the median of A minus
// the median of B over the items both have.
func TestMedianComparison(t *testing.T) {
	t.Parallel()
	items := []string{"1", "2", "3", "4"}
	s := Series{Statistic: "median", Groups: []string{"x", "y"}, Paired: true,
		Obs: append(obs("x", items, 1, 5, 2, 9), obs("y", []string{"1", "2", "3", "5"}, 1, 1, 4, 7)...)}
	ests, comps, _, err := Analyze(context.Background(), s, testOpt)
	if err != nil {
		t.Fatal(err)
	}
	// x: median(1,5,2,9) = 3.5; y: median(1,1,4,7) = 2.5; over items 1-3:
	// median(1,5,2) - median(1,1,4) = 2 - 1.
	if ests[0].Value != 3.5 || ests[1].Value != 2.5 || comps[0].Difference != 1 {
		t.Errorf("medians %v, %v, difference %v", ests[0].Value, ests[1].Value, comps[0].Difference)
	}
}

// TestDegenerate: a group of one unit has no interval, and says so; a
// group with no unit has no estimate and no comparison; the group ""
// is reported with none.
func TestDegenerate(t *testing.T) {
	t.Parallel()
	s := Series{Statistic: "share", Groups: []string{"a", "b", "c"}, Obs: append(obs("a", nil, 1), obs("b", nil, 0, 1, 1)...)}
	ests, comps, _, err := Analyze(context.Background(), s, testOpt)
	if err != nil {
		t.Fatal(err)
	}
	if len(ests) != 2 || ests[0].CI != nil || ests[0].Note == "" || ests[1].CI == nil {
		t.Errorf("estimates %+v", ests)
	}
	if len(comps) != 1 || comps[0].CI != nil || comps[0].Note == "" {
		t.Errorf("comparisons %+v", comps)
	}
	none, _, _, _ := Analyze(context.Background(), Series{Statistic: "share", Groups: []string{""}, Obs: obs("", nil, 1, 0)}, testOpt)
	if len(none) != 1 || none[0].Group != nil || none[0].Value != 0.5 {
		t.Errorf("no group: %+v", none)
	}
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := Series{Statistic: "share", Groups: []string{"a", "b"}, Obs: append(obs("a", nil, 1, 0), obs("b", nil, 0, 1)...)}
	if _, _, _, err := Analyze(ctx, s, testOpt); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// TestMeansAsGeneric: the means' shared draws give what the general
// computation gives for each series alone: the same estimates and
// differences, and intervals and p-values within Monte Carlo error.
func TestMeansAsGeneric(t *testing.T) {
	t.Parallel()
	d := agreement.NewDraws(9)
	for _, paired := range []bool{true, false} {
		var series []Series
		for k := range 3 {
			s := Series{Statistic: "share", Option: ptrTo(string(rune('a' + k))), Groups: []string{"x", "y", "z"}, Paired: paired}
			for i := range 60 {
				for gi, g := range s.Groups {
					if i%7 == gi { // some items lack a group
						continue
					}
					v := 0.0
					if d.Below(100) < 30+15*gi+5*k {
						v = 1
					}
					s.Obs = append(s.Obs, Obs{Item: fmt.Sprint(i), Group: g, Value: v})
				}
			}
			series = append(series, s)
		}
		// Every series over the same units: their values differ, their
		// units do not.
		for k := 1; k < len(series); k++ {
			for u := range series[k].Obs {
				series[k].Obs[u].Item, series[k].Obs[u].Group = series[0].Obs[u].Item, series[0].Obs[u].Group
			}
		}
		opt := Options{Level: 0.9, Resamples: 4000, Permutations: 4000, Seed: 2}
		all, err := AnalyzeAll(context.Background(), series, opt)
		if err != nil {
			t.Fatal(err)
		}
		for k, s := range series {
			ests, comps, unpaired, err := analyzeOne(context.Background(), s, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := all[k]
			if len(got.Estimates) != len(ests) || len(got.Comparisons) != len(comps) || got.Unpaired != unpaired {
				t.Fatalf("paired %v, series %d: %d estimates, %d comparisons, %d unpaired; want %d, %d, %d", paired, k, len(got.Estimates), len(got.Comparisons), got.Unpaired, len(ests), len(comps), unpaired)
			}
			for i, e := range ests {
				g := got.Estimates[i]
				if math.Abs(g.Value-e.Value) > 1e-12 || g.Units != e.Units || math.Abs(g.CI[0]-e.CI[0]) > 0.05 || math.Abs(g.CI[1]-e.CI[1]) > 0.05 {
					t.Errorf("paired %v, series %d, %s: %v %v, want %v %v", paired, k, *e.Group, g.Value, *g.CI, e.Value, *e.CI)
				}
			}
			for i, c := range comps {
				g := got.Comparisons[i]
				if math.Abs(g.Difference-c.Difference) > 1e-12 || math.Abs(g.CI[0]-c.CI[0]) > 0.06 || math.Abs(g.CI[1]-c.CI[1]) > 0.06 || math.Abs(g.P-c.P) > 0.04 {
					t.Errorf("paired %v, series %d, %s-%s: %v %v p %v, want %v %v p %v", paired, k, c.A, c.B, g.Difference, *g.CI, g.P, c.Difference, *c.CI, c.P)
				}
			}
		}
	}
}

func ptrTo(s string) *string { return &s }

// TestMedianAsGeneric: the median from counts gives what sorting gives:
// the same estimates and differences, and intervals and p-values within
// Monte Carlo error, paired and not, with an even number of units.
func TestMedianAsGeneric(t *testing.T) {
	t.Parallel()
	d := agreement.NewDraws(4)
	for _, paired := range []bool{true, false} {
		s := Series{Statistic: "median", Groups: []string{"x", "y"}, Paired: paired}
		for i := range 80 {
			for gi, g := range s.Groups {
				if i%9 == gi {
					continue
				}
				// Means of three ratings from 1 to 5, y a little higher.
				v := float64(3+d.Below(5)+d.Below(5)+d.Below(5)+gi*d.Below(2)) / 3
				s.Obs = append(s.Obs, Obs{Item: fmt.Sprint(i), Group: g, Value: v})
			}
		}
		opt := Options{Level: 0.9, Resamples: 3000, Permutations: 3000, Seed: 5}
		fast, err := analyzeMedian(context.Background(), s, opt)
		if err != nil {
			t.Fatal(err)
		}
		ests, comps, unpaired, err := analyzeOne(context.Background(), s, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(fast.Estimates) != 2 || len(ests) != 2 || fast.Unpaired != unpaired || len(fast.Comparisons) != 1 {
			t.Fatalf("paired %v: %+v", paired, fast)
		}
		for i, e := range ests {
			g := fast.Estimates[i]
			if g.Value != e.Value || g.Units != e.Units || math.Abs(g.CI[0]-e.CI[0]) > 0.34 || math.Abs(g.CI[1]-e.CI[1]) > 0.34 {
				t.Errorf("paired %v, %s: %v %v over %d, want %v %v over %d", paired, *e.Group, g.Value, *g.CI, g.Units, e.Value, *e.CI, e.Units)
			}
		}
		g, c := fast.Comparisons[0], comps[0]
		if g.Difference != c.Difference || math.Abs(g.P-c.P) > 0.05 || math.Abs(g.CI[0]-c.CI[0]) > 0.34 || math.Abs(g.CI[1]-c.CI[1]) > 0.34 {
			t.Errorf("paired %v: %v %v p %v, want %v %v p %v", paired, g.Difference, *g.CI, g.P, c.Difference, *c.CI, c.P)
		}
	}
	var c counts = []int{0, 2, 0, 1, 1}
	vals := []float64{1, 2, 3, 4, 5}
	if got := c.median(vals, 4); got != 3 {
		t.Errorf("median of 2, 2, 4, 5 = %v, want 3", got)
	}
	c[4] = 0
	if got := c.median(vals, 3); got != 2 {
		t.Errorf("median of 2, 2, 4 = %v, want 2", got)
	}
}
