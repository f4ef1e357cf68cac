package agreement

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Bootstrap is a percentile confidence interval for stat on t (Efron, B.
// and Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch.
// 13): it draws resamples tables of as many units as t has, with
// replacement, from a PCG generator seeded with seed (math/rand/v2),
// computes stat on each, and returns the (1 − level)/2 and
// (1 + level)/2 quantiles of the values, interpolated between order
// statistics (type 7 of Hyndman and Fan, 1996). Resamples on which stat
// has no value are left out. ok is false when none has one, when level is
// not strictly between 0 and 1, when resamples < 1 or when t has no unit.
// The same arguments give the same interval bit for bit. It stops with
// ctx's error when ctx is done, between one resample and the next.
func Bootstrap(ctx context.Context, t Table, stat func(Table) (float64, bool), level float64, resamples int, seed uint64) (lo, hi float64, ok bool, err error) {
	return resampleUnits(ctx, t.Units, func(units []Unit) (float64, bool) {
		return stat(Table{Coders: t.Coders, Units: units})
	}, level, resamples, seed)
}

// BootstrapSpans is Bootstrap on span data: the units of t drawn with
// replacement, as Bootstrap draws a table's, the same draws for the same
// seed and number of units. Each resample's units are handed to stat in
// the order of t (sorted by ID, as a SpanTable is), which is the order
// Spans would put them in: Spans then has nothing to sort, and gives the
// value it gives on the draws in any order.
func BootstrapSpans(ctx context.Context, t SpanTable, stat func(SpanTable) (float64, bool), level float64, resamples int, seed uint64) (lo, hi float64, ok bool, err error) {
	sample := make([]SpanUnit, len(t.Units))
	order := make([]int, len(t.Units))
	return bootstrap(ctx, len(t.Units), func(draw []int) (float64, bool) {
		copy(order, draw)
		slices.Sort(order)
		for i, u := range order {
			sample[i] = t.Units[u]
		}
		return stat(SpanTable{Coders: t.Coders, Units: sample})
	}, level, resamples, seed)
}

// resampleUnits is bootstrap over a list of units: each resample is as
// many units drawn with replacement, handed to stat in one reused slice.
func resampleUnits[U any](ctx context.Context, units []U, stat func([]U) (float64, bool), level float64, resamples int, seed uint64) (lo, hi float64, ok bool, err error) {
	sample := make([]U, len(units))
	return bootstrap(ctx, len(units), func(draw []int) (float64, bool) {
		for i, u := range draw {
			sample[i] = units[u]
		}
		return stat(sample)
	}, level, resamples, seed)
}

// BootstrapRatings is Bootstrap on data already coded, which spares
// coding every resample: it draws the same units as Bootstrap does on the
// table r was coded from, so both give the same interval for the same
// statistic.
func BootstrapRatings(ctx context.Context, r Ratings, stat func(Ratings) (float64, bool), level float64, resamples int, seed uint64) (lo, hi float64, ok bool, err error) {
	sample := r
	sample.start, sample.coder, sample.cat = make([]int, 1, len(r.start)), nil, nil
	return bootstrap(ctx, r.Units(), func(draw []int) (float64, bool) {
		sample.start, sample.coder, sample.cat = sample.start[:1], sample.coder[:0], sample.cat[:0]
		for _, u := range draw {
			coders, cats := r.Row(u)
			sample.coder = append(sample.coder, coders...)
			sample.cat = append(sample.cat, cats...)
			sample.start = append(sample.start, len(sample.cat))
		}
		return stat(sample)
	}, level, resamples, seed)
}

// bootstrap draws the resamples of n units and computes the interval of
// the values stat gives on them.
func bootstrap(ctx context.Context, n int, stat func(draw []int) (float64, bool), level float64, resamples int, seed uint64) (lo, hi float64, ok bool, err error) {
	if n == 0 || resamples < 1 || !(level > 0 && level < 1) {
		return 0, 0, false, nil
	}
	src := NewDraws(seed)
	draw := make([]int, n)
	var values []float64
	for range resamples {
		if err := ctx.Err(); err != nil {
			return 0, 0, false, err
		}
		for i := range draw {
			draw[i] = src.Below(n)
		}
		if v, ok := stat(draw); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		return 0, 0, false, nil
	}
	slices.Sort(values)
	return Quantile(values, (1-level)/2), Quantile(values, (1+level)/2), true, nil
}

// Draws is the stream of random draws every bootstrap of annosheet makes
// (agreement's here, and the results of a study): a PCG generator
// (math/rand/v2) seeded with one word, whose draws depend on the stream
// alone, never on a library's choice of method. The same seed gives the
// same draws on every machine.
type Draws struct{ src *rand.PCG }

// NewDraws starts the stream of seed.
func NewDraws(seed uint64) *Draws {
	// The second word of the seed is fixed: one seed, one stream.
	return &Draws{src: rand.NewPCG(seed, 0x9e3779b97f4a7c15)}
}

// NewDrawsOf starts stream n (from 1) of seed, another than NewDraws'
// and every other n's: computations drawn side by side, each from a
// stream of its own, give the same numbers in any order.
func NewDrawsOf(seed, n uint64) *Draws {
	return &Draws{src: rand.NewPCG(seed, 0x9e3779b97f4a7c15+n*0x632be59bd9b4e019)}
}

// Below is a uniform integer in [0, n), n > 0.
func (d *Draws) Below(n int) int { return int(below(d.src, uint64(n))) }

// Coin is true or false with probability one half each.
func (d *Draws) Coin() bool { return d.src.Uint64()>>63 == 1 }

// Coins are 64 coins at once, one a bit.
func (d *Draws) Coins() uint64 { return d.src.Uint64() }

// below is a uniform integer in [0, n), by Lemire's multiply-and-reject
// method (Lemire, D. (2019). "Fast random integer generation in an
// interval", ACM TOMACS 29(1)), written here so that the draws depend on
// the PCG stream alone and not on a library's choice of method.
func below(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// Quantile is the p-quantile of sorted values, interpolated linearly
// between the order statistics at (len − 1)·p (type 7 of Hyndman, R. J.
// and Fan, Y. (1996). "Sample quantiles in statistical packages", The
// American Statistician 50(4), numpy's default).
func Quantile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
