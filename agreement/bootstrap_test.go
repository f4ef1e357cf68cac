package agreement

import (
	"math"
	"math/rand/v2"
	"testing"
)

// alphaOf is α nominal of a choice table over letters(4), as Bootstrap
// takes a statistic.
func alphaOf(t Table) (float64, bool) {
	v, err := KrippendorffAlpha(ChoiceRatings(t, letters(4)), Nominal)
	return v, err == nil
}

func TestBootstrap(t *testing.T) {
	t.Parallel()
	table := randomTable(rand.New(rand.NewPCG(31, 32)), 200, 3, 4, 0.1, letterValue)
	point, _ := alphaOf(table)
	lo, hi, ok, _ := Bootstrap(bg, table, alphaOf, 0.95, 500, 7)
	if !ok || !(lo <= point && point <= hi) || hi-lo > 0.3 {
		t.Fatalf("95%% interval [%v, %v] (%v), α = %v", lo, hi, ok, point)
	}
	// Bit for bit: the same arguments, the same interval; pinned, so
	// that a change in the generator or the draws shows.
	lo2, hi2, _, _ := Bootstrap(bg, table, alphaOf, 0.95, 500, 7)
	if lo2 != lo || hi2 != hi {
		t.Errorf("second run [%v, %v], first [%v, %v]", lo2, hi2, lo, hi)
	}
	t.Logf("α = %v, 95%% interval [%.17g, %.17g]", point, lo, hi)
	if wantLo, wantHi := pinnedLo, pinnedHi; lo != wantLo || hi != wantHi {
		t.Errorf("interval [%.17g, %.17g], pinned [%.17g, %.17g]", lo, hi, wantLo, wantHi)
	}
	// Another seed, other draws.
	if lo3, hi3, _, _ := Bootstrap(bg, table, alphaOf, 0.95, 500, 8); lo3 == lo && hi3 == hi {
		t.Errorf("seeds 7 and 8 give the same interval [%v, %v]", lo, hi)
	}
	// On the coded data, the same draws and the same interval.
	r := ChoiceRatings(table, letters(4))
	rlo, rhi, ok, _ := BootstrapRatings(bg, r, func(r Ratings) (float64, bool) {
		v, err := KrippendorffAlpha(r, Nominal)
		return v, err == nil
	}, 0.95, 500, 7)
	if !ok || rlo != lo || rhi != hi {
		t.Errorf("BootstrapRatings [%v, %v] (%v), Bootstrap [%v, %v]", rlo, rhi, ok, lo, hi)
	}
}

// The interval TestBootstrap pins.
const (
	pinnedLo = 0.32251375752228839
	pinnedHi = 0.47766373460806477
)

func TestBootstrapNoInterval(t *testing.T) {
	t.Parallel()
	table := randomTable(rand.New(rand.NewPCG(33, 34)), 20, 2, 3, 0, letterValue)
	never := func(Table) (float64, bool) { return 0, false }
	half := func(Table) (float64, bool) { return 0.5, true }
	tests := []struct {
		name      string
		table     Table
		stat      func(Table) (float64, bool)
		level     float64
		resamples int
	}{
		{"no value ever", table, never, 0.95, 100},
		{"level 0", table, half, 0, 100},
		{"level 1", table, half, 1, 100},
		{"level NaN", table, half, math.NaN(), 100},
		{"no resample", table, half, 0.95, 0},
		{"no unit", Table{}, half, 0.95, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if lo, hi, ok, _ := Bootstrap(bg, tt.table, tt.stat, tt.level, tt.resamples, 1); ok {
				t.Errorf("[%v, %v], want none", lo, hi)
			}
		})
	}
	if lo, hi, ok, _ := Bootstrap(bg, table, half, 0.9, 10, 1); !ok || lo != 0.5 || hi != 0.5 {
		t.Errorf("constant statistic: [%v, %v] (%v)", lo, hi, ok)
	}
}

func TestQuantile(t *testing.T) {
	t.Parallel()
	values := []float64{1, 2, 3, 4}
	for _, tt := range []struct{ p, want float64 }{{0, 1}, {0.25, 1.75}, {0.5, 2.5}, {0.975, 3.925}, {1, 4}} {
		if got := Quantile(values, tt.p); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("Quantile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

func TestBelow(t *testing.T) {
	t.Parallel()
	src := rand.NewPCG(1, 2)
	counts := make([]int, 3)
	for range 30000 {
		counts[below(src, 3)]++
	}
	for i, c := range counts {
		if c < 9500 || c > 10500 {
			t.Errorf("%d drawn %d times in 30000, want about 10000", i, c)
		}
	}
	for range 10 {
		if x := below(src, 1); x != 0 {
			t.Errorf("below 1: %d", x)
		}
	}
}

// TestDraws: a seed gives the same stream every time; a coin falls
// either way about half the time.
func TestDraws(t *testing.T) {
	t.Parallel()
	a, b := NewDraws(7), NewDraws(7)
	heads := 0
	for range 20000 {
		if x, y := a.Below(1000), b.Below(1000); x != y {
			t.Fatalf("one seed, two streams: %d, %d", x, y)
		}
		if a.Coin() != b.Coin() {
			t.Fatal("one seed, two coins")
		}
	}
	c := NewDraws(8)
	for range 20000 {
		if c.Coin() {
			heads++
		}
	}
	if heads < 9600 || heads > 10400 {
		t.Errorf("%d heads in 20000, want about 10000", heads)
	}
}
