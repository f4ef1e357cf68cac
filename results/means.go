package results

import (
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/annosheet/annosheet/agreement"
)

// Result is what Analyze finds of one series.
type Result struct {
	Estimates   []Estimate
	Comparisons []Comparison
	// Unpaired counts the items of a paired design that lack a group
	// another has.
	Unpaired int
}

// AnalyzeAll analyzes each series as Analyze does. Series of a mean (every
// statistic but the median) over the same units, as the options of one
// question are, share their draws: each resample or permutation is drawn
// once and gives every series its value, which makes a study of 100,000
// units as fast as its number of units, not of units times options.
func AnalyzeAll(ctx context.Context, series []Series, opt Options) ([]Result, error) {
	out := make([]Result, len(series))
	for i := 0; i < len(series); {
		j := i + 1
		if series[i].Statistic != median {
			for j < len(series) && series[j].Statistic != median && sameUnits(series[i], series[j]) {
				j++
			}
			res, err := analyzeMeans(ctx, series[i:j], opt)
			if err != nil {
				return nil, err
			}
			copy(out[i:j], res)
		} else {
			res, err := analyzeMedian(ctx, series[i], opt)
			if err != nil {
				return nil, err
			}
			out[i] = res
		}
		i = j
	}
	return out, nil
}

// sameUnits reports whether two series are over the same units, in the
// same order and groups.
func sameUnits(a, b Series) bool {
	if a.Paired != b.Paired || !slices.Equal(a.Groups, b.Groups) || len(a.Obs) != len(b.Obs) {
		return false
	}
	for i := range a.Obs {
		if a.Obs[i].Item != b.Obs[i].Item || a.Obs[i].Group != b.Obs[i].Group {
			return false
		}
	}
	return true
}

// cells are the clusters a bootstrap draws: in a paired design an item's
// units of one group, otherwise one unit. sum[c*k+s] is cell c's sum of
// series s's values (the series of a cell side by side, which a random
// draw reads at once), n[c] its number of units.
type cells struct {
	k   int
	sum []float64
	n   []float64
}

func newCells(k int) *cells { return &cells{k: k} }

func (c *cells) add(vals []float64, n float64) {
	c.sum = append(c.sum, vals...)
	c.n = append(c.n, n)
}

func (c *cells) len() int { return len(c.n) }

// of is cell j's sums, by series.
func (c *cells) of(j int) []float64 { return c.sum[j*c.k : j*c.k+c.k] }

// total is each series' sum over the cells, and the units.
func (c *cells) total() ([]float64, float64) {
	sums := make([]float64, c.k)
	n := 0.0
	for j := range c.n {
		for s, v := range c.of(j) {
			sums[s] += v
		}
		n += c.n[j]
	}
	return sums, n
}

// analyzeMeans analyzes series of means over the same units, sharing the
// draws (see AnalyzeAll).
func analyzeMeans(ctx context.Context, series []Series, opt Options) ([]Result, error) {
	s0 := series[0]
	K := len(series)
	out := make([]Result, K)
	var items []string
	unpaired := 0
	if s0.Paired {
		items, unpaired = pairedItems(s0)
	}
	itemIndex := map[string]int{}
	for i, it := range items {
		itemIndex[it] = i
	}
	// byGroup[g] are the group's cells; in a paired design cell[g][item]
	// is the index of the item's cell in the group, -1 for none.
	byGroup := map[string]*cells{}
	cellOf := map[string][]int{}
	vals := make([]float64, K)
	for u, o := range s0.Obs {
		for k := range series {
			vals[k] = series[k].Obs[u].Value
		}
		c := byGroup[o.Group]
		if c == nil {
			c = newCells(K)
			byGroup[o.Group] = c
			if s0.Paired {
				cellOf[o.Group] = slices.Repeat([]int{-1}, len(items))
			}
		}
		if !s0.Paired {
			c.add(vals, 1)
			continue
		}
		i := itemIndex[o.Item]
		if j := cellOf[o.Group][i]; j >= 0 {
			for k, v := range vals {
				c.of(j)[k] += v
			}
			c.n[j]++
			continue
		}
		cellOf[o.Group][i] = c.len()
		c.add(vals, 1)
	}
	// Estimates, and their intervals (the group's cells drawn with
	// replacement), then the comparisons: each part from a stream of its
	// own, side by side.
	type pair struct{ a, b string }
	var groups []string
	var pairs []pair
	for i, a := range s0.Groups {
		if byGroup[a] == nil {
			continue
		}
		groups = append(groups, a)
		for _, b := range s0.Groups[i+1:] {
			if a != "" && b != "" && byGroup[b] != nil {
				pairs = append(pairs, pair{a, b})
			}
		}
	}
	ests := make([][]Estimate, len(groups))
	comps := make([][]Comparison, len(pairs))
	err := sideBySide(ctx, len(groups)+len(pairs), func(part int) error {
		draws := agreement.NewDrawsOf(opt.Seed, uint64(part+1))
		if part >= len(groups) {
			p := pairs[part-len(groups)]
			var err error
			if s0.Paired {
				comps[part-len(groups)], err = compareMeansPaired(ctx, byGroup[p.a], byGroup[p.b], cellOf[p.a], cellOf[p.b], K, draws, opt)
			} else {
				comps[part-len(groups)], err = compareMeansUnpaired(ctx, byGroup[p.a], byGroup[p.b], K, draws, opt)
			}
			return err
		}
		g := groups[part]
		c := byGroup[g]
		sums, n := c.total()
		var cis []*[2]float64
		if n >= 2 {
			dist, err := drawMeans(ctx, c, opt.Resamples, draws)
			if err != nil {
				return err
			}
			for k := range dist {
				cis = append(cis, interval(dist[k], opt.Level))
			}
		}
		for k, s := range series {
			e := Estimate{Group: groupRef(g), Statistic: s.Statistic, Option: s.Option, Value: sums[k] / n, Units: int(n)}
			if cis != nil {
				e.CI = cis[k]
			} else {
				e.Note = "no interval: fewer than two units"
			}
			ests[part] = append(ests[part], e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, es := range ests {
		for k, e := range es {
			out[k].Estimates = append(out[k].Estimates, e)
		}
	}
	for i, cs := range comps {
		for k, c := range cs {
			c.A, c.B, c.Statistic, c.Option = pairs[i].a, pairs[i].b, series[k].Statistic, series[k].Option
			out[k].Comparisons = append(out[k].Comparisons, c)
		}
	}
	for k := range out {
		holm(out[k].Comparisons)
		out[k].Unpaired = unpaired
	}
	return out, nil
}

// drawMeans is each series' mean on resamples draws of as many of c's
// cells, with replacement.
func drawMeans(ctx context.Context, c *cells, resamples int, draws *agreement.Draws) ([][]float64, error) {
	K := c.k
	dist := make([][]float64, K)
	sums := make([]float64, K)
	m := c.len()
	for range resamples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(sums)
		n := 0.0
		for range m {
			j := draws.Below(m)
			for k, v := range c.of(j) {
				sums[k] += v
			}
			n += c.n[j]
		}
		for k := range sums {
			dist[k] = append(dist[k], sums[k]/n)
		}
	}
	return dist, nil
}

// compareMeansPaired compares two groups over the items both have: the
// differences, a bootstrap of those items, and the permutation test that
// swaps the groups' cells within each item. None when no item has both.
func compareMeansPaired(ctx context.Context, a, b *cells, cellA, cellB []int, K int, draws *agreement.Draws, opt Options) ([]Comparison, error) {
	// The items both groups have, each as its two cells' sums (by item,
	// then series) and numbers of units.
	var sa, sb, na, nb []float64
	for i := range cellA {
		x, y := cellA[i], cellB[i]
		if x < 0 || y < 0 {
			continue
		}
		sa, sb = append(sa, a.of(x)...), append(sb, b.of(y)...)
		na, nb = append(na, a.n[x]), append(nb, b.n[y])
	}
	m := len(na)
	if m == 0 {
		return nil, nil
	}
	totA, totB := make([]float64, K), make([]float64, K)
	observed := make([]float64, K)
	nA, nB := 0.0, 0.0
	for i := range m {
		nA += na[i]
		nB += nb[i]
		for k := range K {
			totA[k] += sa[i*K+k]
			totB[k] += sb[i*K+k]
		}
	}
	for k := range K {
		observed[k] = totA[k]/nA - totB[k]/nB
	}
	comps := make([]Comparison, K)
	for k := range comps {
		comps[k].Difference = observed[k]
	}
	boot := make([][]float64, K)
	xa, xb := make([]float64, K), make([]float64, K)
	for range opt.Resamples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(xa)
		clear(xb)
		dA, dB := 0.0, 0.0
		for range m {
			j := draws.Below(m)
			dA += na[j]
			dB += nb[j]
			for k, v := range sa[j*K : j*K+K] {
				xa[k] += v
			}
			for k, v := range sb[j*K : j*K+K] {
				xb[k] += v
			}
		}
		for k := range K {
			boot[k] = append(boot[k], xa[k]/dA-xb[k]/dB)
		}
	}
	for k := range comps {
		if m >= 2 {
			comps[k].CI = interval(boot[k], opt.Level)
		} else {
			comps[k].Note = "no interval: fewer than two items"
		}
	}
	// A permutation swaps the cells of the items whose coin falls: A's
	// sum gains what B had there and loses its own, and B's the reverse.
	// Items that would move the same amounts are one kind: how many of a
	// kind are swapped is all the test needs, the number of heads in as
	// many coins, drawn 64 coins at a time.
	type kind struct {
		gainN float64
		gainS []float64
		count int
	}
	var kinds []kind
	byKind := map[string]int{}
	key := make([]byte, 0, 8*(K+1))
	for i := range m {
		gs := make([]float64, K)
		key = binary.LittleEndian.AppendUint64(key[:0], math.Float64bits(nb[i]-na[i]))
		for k := range K {
			gs[k] = sb[i*K+k] - sa[i*K+k]
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(gs[k]))
		}
		if r, ok := byKind[string(key)]; ok {
			kinds[r].count++
			continue
		}
		byKind[string(key)] = len(kinds)
		kinds = append(kinds, kind{gainN: nb[i] - na[i], gainS: gs, count: 1})
	}
	extremes := make([]int, K)
	ds := make([]float64, K)
	for range opt.Permutations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(ds)
		dn := 0.0
		for _, r := range kinds {
			h := float64(heads(draws, r.count))
			dn += h * r.gainN
			for k, g := range r.gainS {
				ds[k] += h * g
			}
		}
		for k := range K {
			if extreme((totA[k]+ds[k])/(nA+dn)-(totB[k]-ds[k])/(nB-dn), observed[k]) {
				extremes[k]++
			}
		}
	}
	for k := range comps {
		comps[k].P = float64(extremes[k]+1) / float64(opt.Permutations+1)
	}
	return comps, nil
}

// compareMeansUnpaired compares two groups' units: the differences, a
// bootstrap within each group, and the permutation test that shuffles
// the group labels of the pooled units.
func compareMeansUnpaired(ctx context.Context, a, b *cells, K int, draws *agreement.Draws, opt Options) ([]Comparison, error) {
	na, nb := a.len(), b.len()
	ta, _ := a.total()
	tb, _ := b.total()
	observed := make([]float64, K)
	comps := make([]Comparison, K)
	for k := range comps {
		observed[k] = ta[k]/float64(na) - tb[k]/float64(nb)
		comps[k].Difference = observed[k]
	}
	boot := make([][]float64, K)
	sa, sb := make([]float64, K), make([]float64, K)
	for range opt.Resamples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(sa)
		clear(sb)
		for range na {
			for k, v := range a.of(draws.Below(na)) {
				sa[k] += v
			}
		}
		for range nb {
			for k, v := range b.of(draws.Below(nb)) {
				sb[k] += v
			}
		}
		for k := range K {
			boot[k] = append(boot[k], sa[k]/float64(na)-sb[k]/float64(nb))
		}
	}
	for k := range comps {
		if na >= 2 && nb >= 2 {
			comps[k].CI = interval(boot[k], opt.Level)
		} else {
			comps[k].Note = "no interval: a group has fewer than two units"
		}
	}
	// The pooled units, A's first; a permutation shuffles them and takes
	// the first na as A (Fisher–Yates, stopped once those are drawn).
	pool := make([]int, na+nb) // index < na: a's unit, else b's
	for i := range pool {
		pool[i] = i
	}
	unit := func(u int) []float64 {
		if u < na {
			return a.of(u)
		}
		return b.of(u - na)
	}
	total := make([]float64, K)
	for k := range K {
		total[k] = ta[k] + tb[k]
	}
	extremes := make([]int, K)
	for range opt.Permutations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(sa)
		for i := range na {
			j := i + draws.Below(len(pool)-i)
			pool[i], pool[j] = pool[j], pool[i]
			for k, v := range unit(pool[i]) {
				sa[k] += v
			}
		}
		for k := range K {
			d := sa[k]/float64(na) - (total[k]-sa[k])/float64(nb)
			if extreme(d, observed[k]) {
				extremes[k]++
			}
		}
	}
	for k := range comps {
		comps[k].P = float64(extremes[k]+1) / float64(opt.Permutations+1)
	}
	return comps, nil
}

// sideBySide runs f on each part from 0 to n, as many at once as there
// are processors, and returns the first error. Each part draws from a
// stream of its own (agreement.NewDrawsOf), so the numbers do not depend
// on the order the parts run in.
func sideBySide(ctx context.Context, n int, f func(part int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for part := range next {
				errs[part] = f(part)
			}
		}()
	}
	for part := range n {
		if ctx.Err() != nil {
			break
		}
		next <- part
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// heads is the number of heads in n coins.
func heads(d *agreement.Draws, n int) int {
	h := 0
	for ; n >= 64; n -= 64 {
		h += bits.OnesCount64(d.Coins())
	}
	if n > 0 {
		h += bits.OnesCount64(d.Coins() & (1<<n - 1))
	}
	return h
}
