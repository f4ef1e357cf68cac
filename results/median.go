package results

import (
	"context"
	"fmt"
	"slices"

	"github.com/annosheet/annosheet/agreement"
)

// A median is computed from counts, never by sorting: the units' values
// of a scale take few distinct values (a mean of a few ratings), so each
// draw counts how often each value is drawn, and the median is read off
// the counts. A draw costs its units plus the distinct values, whatever
// their number.

// counts are how often each distinct value was drawn.
type counts []int

// add counts the values of a cell, and says how many.
func (c counts) add(cell []int) int {
	for _, v := range cell {
		c[v]++
	}
	return len(cell)
}

// median is the median of the values counted (n of them), vals the
// distinct values in order.
func (c counts) median(vals []float64, n int) float64 {
	// The values of ranks lo and hi (0-based), the middle ones.
	lo, hi := (n-1)/2, n/2
	seen := 0
	var a float64
	for v, k := range c {
		if k == 0 {
			continue
		}
		if seen <= lo && lo < seen+k {
			a = vals[v]
		}
		if seen <= hi && hi < seen+k {
			return (a + vals[v]) / 2
		}
		seen += k
	}
	return a
}

// analyzeMedian is Analyze for the median (see AnalyzeAll), from counts.
func analyzeMedian(ctx context.Context, s Series, opt Options) (Result, error) {
	var res Result
	vals := make([]float64, 0, len(s.Obs))
	for _, o := range s.Obs {
		vals = append(vals, o.Value)
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	index := func(v float64) int { i, _ := slices.BinarySearch(vals, v); return i }
	var items []string
	if s.Paired {
		items, res.Unpaired = pairedItems(s)
	}
	itemIndex := map[string]int{}
	for i, it := range items {
		itemIndex[it] = i
	}
	// cellsOf[g] are the group's cells (an item's values in the group, or
	// one unit's), as indexes of vals; at[g][item] the item's cell, -1
	// for none.
	cellsOf := map[string][][]int{}
	at := map[string][]int{}
	for _, o := range s.Obs {
		v := index(o.Value)
		if !s.Paired {
			cellsOf[o.Group] = append(cellsOf[o.Group], []int{v})
			continue
		}
		if at[o.Group] == nil {
			at[o.Group] = slices.Repeat([]int{-1}, len(items))
		}
		i := itemIndex[o.Item]
		if j := at[o.Group][i]; j >= 0 {
			cellsOf[o.Group][j] = append(cellsOf[o.Group][j], v)
			continue
		}
		at[o.Group][i] = len(cellsOf[o.Group])
		cellsOf[o.Group] = append(cellsOf[o.Group], []int{v})
	}
	countCells := func(c counts, cs [][]int, pick func(int) int, m int) int {
		clear(c)
		n := 0
		for i := range m {
			for _, v := range cs[pick(i)] {
				c[v]++
				n++
			}
		}
		return n
	}
	identity := func(i int) int { return i }
	type pair struct{ a, b string }
	var groups []string
	var pairs []pair
	for i, a := range s.Groups {
		if cellsOf[a] == nil {
			continue
		}
		groups = append(groups, a)
		for _, b := range s.Groups[i+1:] {
			if a != "" && b != "" && cellsOf[b] != nil {
				pairs = append(pairs, pair{a, b})
			}
		}
	}
	ests := make([]Estimate, len(groups))
	comps := make([]*Comparison, len(pairs))
	err := sideBySide(ctx, len(groups)+len(pairs), func(part int) error {
		draws := agreement.NewDrawsOf(opt.Seed, uint64(part+1))
		if part >= len(groups) {
			p := pairs[part-len(groups)]
			var err error
			if s.Paired {
				comps[part-len(groups)], err = compareMedianPaired(ctx, cellsOf[p.a], cellsOf[p.b], at[p.a], at[p.b], vals, draws, opt)
			} else {
				comps[part-len(groups)], err = compareMedianUnpaired(ctx, cellsOf[p.a], cellsOf[p.b], vals, draws, opt)
			}
			return err
		}
		g := groups[part]
		cs := cellsOf[g]
		c := make(counts, len(vals))
		n := countCells(c, cs, identity, len(cs))
		e := Estimate{Group: groupRef(g), Statistic: s.Statistic, Option: s.Option, Value: c.median(vals, n), Units: n}
		if n < 2 {
			e.Note = "no interval: fewer than two units"
			ests[part] = e
			return nil
		}
		dist := make([]float64, 0, opt.Resamples)
		for range opt.Resamples {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := countCells(c, cs, func(int) int { return draws.Below(len(cs)) }, len(cs))
			dist = append(dist, c.median(vals, n))
		}
		e.CI = interval(dist, opt.Level)
		ests[part] = e
		return nil
	})
	if err != nil {
		return res, err
	}
	res.Estimates = ests
	for i, c := range comps {
		if c != nil {
			c.A, c.B, c.Statistic, c.Option = pairs[i].a, pairs[i].b, s.Statistic, s.Option
			res.Comparisons = append(res.Comparisons, *c)
		}
	}
	holm(res.Comparisons)
	return res, nil
}

// compareMedianPaired compares two groups' medians over the items both
// have (see comparePaired), from counts: a permutation moves the swapped
// items' values from one group's counts to the other's.
func compareMedianPaired(ctx context.Context, a, b [][]int, atA, atB []int, vals []float64, draws *agreement.Draws, opt Options) (*Comparison, error) {
	var ca, cb [][]int // the two cells of each item both groups have
	for i := range atA {
		if atA[i] >= 0 && atB[i] >= 0 {
			ca, cb = append(ca, a[atA[i]]), append(cb, b[atB[i]])
		}
	}
	m := len(ca)
	if m == 0 {
		return nil, nil
	}
	totA, totB := make(counts, len(vals)), make(counts, len(vals))
	nA, nB := 0, 0
	for i := range m {
		nA += totA.add(ca[i])
		nB += totB.add(cb[i])
	}
	c := &Comparison{Difference: totA.median(vals, nA) - totB.median(vals, nB)}
	xa, xb := make(counts, len(vals)), make(counts, len(vals))
	if m >= 2 {
		boot := make([]float64, 0, opt.Resamples)
		for range opt.Resamples {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			clear(xa)
			clear(xb)
			na, nb := 0, 0
			for range m {
				j := draws.Below(m)
				na += xa.add(ca[j])
				nb += xb.add(cb[j])
			}
			boot = append(boot, xa.median(vals, na)-xb.median(vals, nb))
		}
		c.CI = interval(boot, opt.Level)
	} else {
		c.Note = "no interval: fewer than two items"
	}
	// Items whose cells hold the same values are one kind: how many of a
	// kind are swapped is all the test needs (see compareMeansPaired).
	type kind struct {
		a, b  []int
		count int
	}
	var kinds []kind
	byKind := map[string]int{}
	for i := range m {
		key := fmt.Sprint(ca[i], cb[i])
		if r, ok := byKind[key]; ok {
			kinds[r].count++
			continue
		}
		byKind[key] = len(kinds)
		kinds = append(kinds, kind{a: ca[i], b: cb[i], count: 1})
	}
	k := 0
	for range opt.Permutations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		copy(xa, totA)
		copy(xb, totB)
		na, nb := nA, nB
		for _, r := range kinds {
			h := heads(draws, r.count)
			if h == 0 {
				continue
			}
			for _, v := range r.a {
				xa[v] -= h
				xb[v] += h
			}
			for _, v := range r.b {
				xb[v] -= h
				xa[v] += h
			}
			na += h * (len(r.b) - len(r.a))
			nb += h * (len(r.a) - len(r.b))
		}
		if extreme(xa.median(vals, na)-xb.median(vals, nb), c.Difference) {
			k++
		}
	}
	c.P = float64(k+1) / float64(opt.Permutations+1)
	return c, nil
}

// compareMedianUnpaired compares two groups' medians over their units
// (see compareUnpaired), from counts.
func compareMedianUnpaired(ctx context.Context, a, b [][]int, vals []float64, draws *agreement.Draws, opt Options) (*Comparison, error) {
	flat := func(cs [][]int) []int {
		var out []int
		for _, c := range cs {
			out = append(out, c...)
		}
		return out
	}
	ua, ub := flat(a), flat(b)
	na, nb := len(ua), len(ub)
	if na == 0 || nb == 0 {
		return nil, nil
	}
	xa, xb := make(counts, len(vals)), make(counts, len(vals))
	tally := func(dst counts, vs []int) {
		clear(dst)
		for _, v := range vs {
			dst[v]++
		}
	}
	tally(xa, ua)
	tally(xb, ub)
	c := &Comparison{Difference: xa.median(vals, na) - xb.median(vals, nb)}
	if na >= 2 && nb >= 2 {
		boot := make([]float64, 0, opt.Resamples)
		for range opt.Resamples {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			clear(xa)
			clear(xb)
			for range na {
				xa[ua[draws.Below(na)]]++
			}
			for range nb {
				xb[ub[draws.Below(nb)]]++
			}
			boot = append(boot, xa.median(vals, na)-xb.median(vals, nb))
		}
		c.CI = interval(boot, opt.Level)
	} else {
		c.Note = "no interval: a group has fewer than two units"
	}
	pool := append(slices.Clone(ua), ub...)
	total := make(counts, len(vals))
	tally(total, pool)
	k := 0
	for range opt.Permutations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(xa)
		for i := range na {
			j := i + draws.Below(len(pool)-i)
			pool[i], pool[j] = pool[j], pool[i]
			xa[pool[i]]++
		}
		for v := range xb {
			xb[v] = total[v] - xa[v]
		}
		if extreme(xa.median(vals, na)-xb.median(vals, nb), c.Difference) {
			k++
		}
	}
	c.P = float64(k+1) / float64(opt.Permutations+1)
	return c, nil
}
