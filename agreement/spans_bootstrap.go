package agreement

import "slices"

// BootstrapSpanF1 is the interval that BootstrapSpans gives the headline
// of Spans — span_f1 with exact matching and labels: for two annotators
// their pair's, for more the mean over the pairs where it is defined —
// from the same draws, to the same value bit for bit. Where
// BootstrapSpans compares every span of every resample again, it pairs
// each unit's spans once: a resample only adds up each pair's counts
// (units both annotators completed, spans each marked, spans paired), so
// that a study of many units gets its interval in seconds. ok is false
// as for Bootstrap, and when fewer than two annotators are compared.
func BootstrapSpanF1(t SpanTable, level float64, resamples int, seed uint64) (lo, hi float64, ok bool) {
	coders, order := spanSortedCoders(t.Coders)
	if len(coders) < 2 {
		return 0, 0, false
	}
	type pair struct{ i, j int }
	var pairs []pair
	var names []string
	for i := range coders {
		for j := i + 1; j < len(coders); j++ {
			pairs = append(pairs, pair{i, j})
			names = append(names, coders[i]+"–"+coders[j])
		}
	}
	// Each unit's counts per pair, made once: done is 1 when both
	// annotators completed the unit.
	type counts struct{ done, paired, nA, nB int64 }
	np := len(pairs)
	cells := make([]counts, len(t.Units)*np)
	labels := map[string]int{}
	lists := make([][]spanItem, len(coders))
	done := make([]bool, len(coders))
	for u, unit := range t.Units {
		for c, from := range order {
			list := unit.List(from)
			done[c] = list != nil
			lists[c] = lists[c][:0]
			if !done[c] {
				continue
			}
			for _, sp := range list {
				l, ok := labels[sp.Label]
				if !ok {
					l = len(labels)
					labels[sp.Label] = l
				}
				lists[c] = append(lists[c], spanItem{sp.Start, sp.End, l})
			}
			slices.SortFunc(lists[c], spanItemCompare)
		}
		for k, p := range pairs {
			if done[p.i] && done[p.j] {
				a, b := lists[p.i], lists[p.j]
				cells[u*np+k] = counts{done: 1, paired: spanExact(a, b, true, nil), nA: int64(len(a)), nB: int64(len(b))}
			}
		}
	}
	sums := make([]counts, np)
	ms := make([]Metric, np)
	return bootstrap(len(t.Units), func(draw []int) (float64, bool) {
		clear(sums)
		for _, u := range draw {
			row := cells[u*np : (u+1)*np]
			for k := range sums {
				s, c := &sums[k], row[k]
				s.done += c.done
				s.paired += c.paired
				s.nA += c.nA
				s.nB += c.nB
			}
		}
		for k, s := range sums {
			none := ""
			if s.done == 0 {
				none = "no unit that both annotators completed"
			}
			ms[k] = spanF1Metric("exact", true, s.paired, spanCounts{nA: s.nA, nB: s.nB}, none)
		}
		m := ms[0]
		if np > 1 {
			m = spanMean(ms[0].Metric, ms[0].Params, ms, names)
		}
		v, ok := m.Value.(float64)
		return v, ok
	}, level, resamples, seed)
}
