package agreement

import (
	"context"
	"slices"
)

// BootstrapSpanF1 is the interval that BootstrapSpans gives the headline
// of Spans — span_f1 with exact matching and labels: for two annotators
// their pair's, for more the mean over the pairs where it is defined —
// from the same draws, to the same value bit for bit. Where
// BootstrapSpans compares every span of every resample again, it pairs
// each unit's spans once: a resample only adds up each pair's counts
// (units both annotators completed, spans each marked, spans paired), so
// that a study of many units gets its interval in seconds. ok is false
// as for Bootstrap, and when fewer than two annotators are compared; it
// stops with ctx's error as Bootstrap does.
func BootstrapSpanF1(ctx context.Context, t SpanTable, level float64, resamples int, seed uint64) (lo, hi float64, ok bool, err error) {
	coders, order := spanSortedCoders(t.Coders)
	if len(coders) < 2 {
		return 0, 0, false, nil
	}
	// Labels are numbered as seen: the pairing compares them, nothing
	// else.
	labels := map[string]int{}
	for _, u := range t.Units {
		for _, l := range u.All() {
			for _, sp := range l {
				if _, ok := labels[sp.Label]; !ok {
					labels[sp.Label] = len(labels)
				}
			}
		}
	}
	d := newSpanRows(t.Units, order)
	// Each unit's counts for each pair of annotators that completed it,
	// made once: pairs numbered in sorted order, in which the mean sums
	// them. Pairs that share no unit have no value in any resample.
	type counts struct{ pair, paired, nA, nB int64 }
	scan := newPairScan(len(coders), d.rowStart, d.rowCoder)
	perUnit := make([]int, len(t.Units)+1)
	pairs := 0
	stop := every(ctx)
	err = scan.each(func(a, b, _ int) error {
		scan.merge(a, b, false, func(u, _, _ int) { perUnit[u+1]++ })
		pairs++
		return stop()
	})
	if err != nil {
		return 0, 0, false, err
	}
	for u := range t.Units {
		perUnit[u+1] += perUnit[u]
	}
	cells := make([]counts, perUnit[len(t.Units)])
	next := slices.Clone(perUnit[:len(t.Units)])
	pair := int64(0)
	var bufA, bufB spanListBuf
	err = scan.each(func(a, b, _ int) error {
		scan.merge(a, b, false, func(u, ea, eb int) {
			bufA.reset()
			bufB.reset()
			x, y := bufA.list(d.spans[ea], labels).items, bufB.list(d.spans[eb], labels).items
			cells[next[u]] = counts{pair: pair, paired: spanExact(x, y, true, nil), nA: int64(len(x)), nB: int64(len(y))}
			next[u]++
		})
		pair++
		return stop()
	})
	if err != nil {
		return 0, 0, false, err
	}
	sums := make([]counts, pairs) // pair is 1 when the pair shares a unit drawn
	return bootstrap(ctx, len(t.Units), func(draw []int) (float64, bool) {
		clear(sums)
		for _, u := range draw {
			for _, c := range cells[perUnit[u]:perUnit[u+1]] {
				s := &sums[c.pair]
				s.pair = 1
				s.paired += c.paired
				s.nA += c.nA
				s.nB += c.nB
			}
		}
		// The mean over the pairs where span F1 is defined, summed in
		// their order, as Spans makes it.
		var f float64
		n := 0
		for _, s := range sums {
			if s.pair == 0 || s.nA+s.nB == 0 {
				continue
			}
			f += 2 * float64(s.paired) / float64(s.nA+s.nB)
			n++
		}
		return f / float64(n), n > 0
	}, level, resamples, seed)
}
