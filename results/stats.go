package results

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/annosheet/annosheet/agreement"
)

// Obs is one unit's value of one statistic: the group the unit is of,
// the item it belongs to (in a paired design the item every group sees,
// otherwise the unit itself), and the value: the mean over its
// annotators' complete records, or the gold value.
type Obs struct {
	Item, Group string
	Value       float64
}

// Series is what one statistic of one question (and option) is computed
// over: every unit's value, and how units make items.
type Series struct {
	Statistic string
	Option    *string
	// Groups are the groups in the order their estimates are given; a
	// comparison is made of each pair, the earlier as A. A group "" is
	// reported with no group (null).
	Groups []string
	// Paired: units of one item, in different groups, are one item seen
	// by every group; the bootstrap draws items, keeping each item's
	// groups together, and comparisons use the items that have both
	// groups. Otherwise units are drawn within each group.
	Paired bool
	Obs    []Obs
}

// Options are the numbers of draws and the level of the intervals.
type Options struct {
	Level        float64
	Resamples    int
	Permutations int
	Seed         uint64
}

// Estimate is a group's value of a statistic, with its interval.
type Estimate struct {
	Group     *string     `json:"group"`
	Statistic string      `json:"statistic"`
	Option    *string     `json:"option"`
	Value     float64     `json:"value"`
	Units     int         `json:"units"`
	CI        *[2]float64 `json:"ci"`
	Note      string      `json:"note,omitempty"`
}

// Comparison is the difference A − B of a statistic between two groups,
// its interval, and a permutation test of no difference.
type Comparison struct {
	A          string      `json:"a"`
	B          string      `json:"b"`
	Statistic  string      `json:"statistic"`
	Option     *string     `json:"option"`
	Difference float64     `json:"difference"`
	CI         *[2]float64 `json:"ci"`
	P          float64     `json:"p"`
	PHolm      float64     `json:"p_holm"`
	Note       string      `json:"note,omitempty"`
}

// median is the statistic whose value is the median of the units'
// values; every other is their mean.
const median = "median"

// Analyze estimates s's statistic in each group with a percentile
// bootstrap interval (Efron, B. and Tibshirani, R. J. (1993). An
// Introduction to the Bootstrap, ch. 13; bounds interpolated as
// agreement.Quantile does), and compares every pair of groups: the
// difference A − B with its bootstrap interval, and a two-sided
// permutation p-value, (k + 1) / (permutations + 1) (Phipson, B. and
// Smyth, G. K. (2010). "Permutation p-values should never be zero",
// Statistical Applications in Genetics and Molecular Biology 9(1)),
// Holm-adjusted over the pairs (Holm, S. (1979). "A simple sequentially
// rejective multiple test procedure", Scandinavian Journal of Statistics
// 6(2)). In a paired design the bootstrap draws items, each with all its
// units: for a group's interval the items that have the group, for a
// comparison those that have both; the permutation swaps the two groups' values
// within each item, with probability one half; otherwise it shuffles the
// group labels of the pooled units. Unpaired counts the items of a paired
// design that lack a group another has. The draws come from one stream
// of opt.Seed, in a fixed order: the same series and options give the
// same numbers, bit for bit.
func Analyze(ctx context.Context, s Series, opt Options) (ests []Estimate, comps []Comparison, unpaired int, err error) {
	res, err := AnalyzeAll(ctx, []Series{s}, opt)
	if err != nil {
		return nil, nil, 0, err
	}
	return res[0].Estimates, res[0].Comparisons, res[0].Unpaired, nil
}

// analyzeOne is Analyze over one series of any statistic, its values
// computed anew from the values drawn, by sorting for the median: the
// plain computation the fast ones (analyzeMeans, analyzeMedian) are
// tested against.
func analyzeOne(ctx context.Context, s Series, opt Options) (ests []Estimate, comps []Comparison, unpaired int, err error) {
	stat := mean
	if s.Statistic == median {
		stat = medianOf
	}
	draws := agreement.NewDraws(opt.Seed)
	byGroup := map[string][]Obs{}
	for _, o := range s.Obs {
		byGroup[o.Group] = append(byGroup[o.Group], o)
	}
	var items []string // a paired design's items, sorted
	if s.Paired {
		items, unpaired = pairedItems(s)
	}
	for _, g := range s.Groups {
		obs := byGroup[g]
		if len(obs) == 0 {
			continue
		}
		e := Estimate{Group: groupRef(g), Statistic: s.Statistic, Option: s.Option, Value: stat(values(obs)), Units: len(obs)}
		ests = append(ests, e)
	}
	var cis map[string]*[2]float64
	if s.Paired {
		cis, err = pairedIntervals(ctx, s, items, stat, draws, opt)
	} else {
		cis, err = groupIntervals(ctx, s, byGroup, stat, draws, opt)
	}
	if err != nil {
		return nil, nil, 0, err
	}
	for i := range ests {
		g := ""
		if ests[i].Group != nil {
			g = *ests[i].Group
		}
		if ests[i].CI = cis[g]; ests[i].CI == nil {
			ests[i].Note = "no interval: fewer than two units"
		}
	}
	for i, a := range s.Groups {
		for _, b := range s.Groups[i+1:] {
			if a == "" || b == "" {
				continue
			}
			var c *Comparison
			if s.Paired {
				c, err = comparePaired(ctx, s, a, b, stat, draws, opt)
			} else {
				c, err = compareUnpaired(ctx, byGroup[a], byGroup[b], stat, draws, opt)
			}
			if err != nil {
				return nil, nil, 0, err
			}
			if c == nil {
				continue // no unit, or no item both groups have: nothing to compare
			}
			c.A, c.B, c.Statistic, c.Option = a, b, s.Statistic, s.Option
			comps = append(comps, *c)
		}
	}
	holm(comps)
	return ests, comps, unpaired, nil
}

func groupRef(g string) *string {
	if g == "" {
		return nil
	}
	return &g
}

func values(obs []Obs) []float64 {
	out := make([]float64, len(obs))
	for i, o := range obs {
		out[i] = o.Value
	}
	return out
}

// mean is the mean of xs, summed in their order.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// medianOf is the median of xs: the middle value, or the mean of the two
// middle ones. It sorts xs.
func medianOf(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// pairedItems lists the items of a paired design, sorted, and counts
// those that lack a group another item has.
func pairedItems(s Series) ([]string, int) {
	has := map[string]map[string]bool{}
	for _, o := range s.Obs {
		if has[o.Item] == nil {
			has[o.Item] = map[string]bool{}
		}
		has[o.Item][o.Group] = true
	}
	present := map[string]bool{}
	for _, gs := range has {
		for g := range gs {
			present[g] = true
		}
	}
	items := make([]string, 0, len(has))
	lacking := 0
	for it, gs := range has {
		items = append(items, it)
		if len(gs) < len(present) {
			lacking++
		}
	}
	sort.Strings(items)
	return items, lacking
}

// interval is the percentile interval of the values drawn, nil when
// there are none.
func interval(vals []float64, level float64) *[2]float64 {
	if len(vals) == 0 {
		return nil
	}
	slices.Sort(vals)
	return &[2]float64{agreement.Quantile(vals, (1-level)/2), agreement.Quantile(vals, (1+level)/2)}
}

// pairedIntervals gives each group's interval from the items that have
// it, drawn with replacement, each with all its units of the group (a
// cluster bootstrap: units of one item are not independent); a group
// with fewer than two units gets none.
func pairedIntervals(ctx context.Context, s Series, items []string, stat func([]float64) float64, draws *agreement.Draws, opt Options) (map[string]*[2]float64, error) {
	out := map[string]*[2]float64{}
	for _, g := range s.Groups {
		// The group's values by item, items in sorted order.
		byItem := map[string][]float64{}
		units := 0
		for _, o := range s.Obs {
			if o.Group == g {
				byItem[o.Item] = append(byItem[o.Item], o.Value)
				units++
			}
		}
		if units < 2 {
			continue
		}
		var cells [][]float64
		for _, it := range items {
			if vs, ok := byItem[it]; ok {
				cells = append(cells, vs)
			}
		}
		dist := make([]float64, 0, opt.Resamples)
		var drawn []float64
		for range opt.Resamples {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			drawn = drawn[:0]
			for range cells {
				drawn = append(drawn, cells[draws.Below(len(cells))]...)
			}
			dist = append(dist, stat(drawn))
		}
		out[g] = interval(dist, opt.Level)
	}
	return out, nil
}

// groupIntervals draws each group's units with replacement, within the
// group, and gives its interval.
func groupIntervals(ctx context.Context, s Series, byGroup map[string][]Obs, stat func([]float64) float64, draws *agreement.Draws, opt Options) (map[string]*[2]float64, error) {
	out := map[string]*[2]float64{}
	for _, g := range s.Groups {
		vals := values(byGroup[g])
		if len(vals) < 2 {
			continue
		}
		dist, err := resample(ctx, vals, stat, draws, opt.Resamples)
		if err != nil {
			return nil, err
		}
		out[g] = interval(dist, opt.Level)
	}
	return out, nil
}

// resample is the statistic on resamples draws of as many of vals, with
// replacement.
func resample(ctx context.Context, vals []float64, stat func([]float64) float64, draws *agreement.Draws, resamples int) ([]float64, error) {
	dist := make([]float64, 0, resamples)
	sample := make([]float64, len(vals))
	for range resamples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range sample {
			sample[i] = vals[draws.Below(len(vals))]
		}
		dist = append(dist, stat(sample))
	}
	return dist, nil
}

// comparePaired compares a and b over the items that have both: the
// difference, a bootstrap of the items, and the permutation test that
// swaps their values within items. nil when no item has both.
func comparePaired(ctx context.Context, s Series, a, b string, stat func([]float64) float64, draws *agreement.Draws, opt Options) (*Comparison, error) {
	type pair struct{ a, b []float64 }
	byItem := map[string]*pair{}
	for _, o := range s.Obs {
		if o.Group != a && o.Group != b {
			continue
		}
		p := byItem[o.Item]
		if p == nil {
			p = &pair{}
			byItem[o.Item] = p
		}
		if o.Group == a {
			p.a = append(p.a, o.Value)
		} else {
			p.b = append(p.b, o.Value)
		}
	}
	var items []string
	for it, p := range byItem {
		if len(p.a) > 0 && len(p.b) > 0 {
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return nil, nil
	}
	sort.Strings(items)
	pairs := make([]*pair, len(items))
	for i, it := range items {
		pairs[i] = byItem[it]
	}
	var va, vb []float64
	diff := func(swap func(i int) bool, pick func(i int) int) float64 {
		va, vb = va[:0], vb[:0]
		for i := range pairs {
			p := pairs[pick(i)]
			if swap(i) {
				va, vb = append(va, p.b...), append(vb, p.a...)
			} else {
				va, vb = append(va, p.a...), append(vb, p.b...)
			}
		}
		return stat(va) - stat(vb)
	}
	identity := func(i int) int { return i }
	never := func(int) bool { return false }
	c := &Comparison{Difference: diff(never, identity)}
	boot := make([]float64, 0, opt.Resamples)
	drawn := make([]int, len(pairs))
	for range opt.Resamples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range drawn {
			drawn[i] = draws.Below(len(pairs))
		}
		boot = append(boot, diff(never, func(i int) int { return drawn[i] }))
	}
	if len(pairs) >= 2 {
		c.CI = interval(boot, opt.Level)
	} else {
		c.Note = "no interval: fewer than two items"
	}
	flips := make([]bool, len(pairs))
	k := 0
	for range opt.Permutations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range flips {
			flips[i] = draws.Coin()
		}
		if extreme(diff(func(i int) bool { return flips[i] }, identity), c.Difference) {
			k++
		}
	}
	c.P = float64(k+1) / float64(opt.Permutations+1)
	return c, nil
}

// compareUnpaired compares two groups' units: the difference, a
// bootstrap within each group, and the permutation test that shuffles
// the group labels of the pooled units. nil when a group has no unit.
func compareUnpaired(ctx context.Context, a, b []Obs, stat func([]float64) float64, draws *agreement.Draws, opt Options) (*Comparison, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, nil
	}
	va, vb := values(a), values(b)
	c := &Comparison{Difference: stat(slices.Clone(va)) - stat(slices.Clone(vb))}
	sa, sb := make([]float64, len(va)), make([]float64, len(vb))
	boot := make([]float64, 0, opt.Resamples)
	for range opt.Resamples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range sa {
			sa[i] = va[draws.Below(len(va))]
		}
		for i := range sb {
			sb[i] = vb[draws.Below(len(vb))]
		}
		boot = append(boot, stat(sa)-stat(sb))
	}
	if len(va) >= 2 && len(vb) >= 2 {
		c.CI = interval(boot, opt.Level)
	} else {
		c.Note = "no interval: a group has fewer than two units"
	}
	pool := append(slices.Clone(va), vb...)
	k := 0
	for range opt.Permutations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Fisher–Yates: the first len(va) of the shuffled pool are A.
		for i := len(pool) - 1; i > 0; i-- {
			j := draws.Below(i + 1)
			pool[i], pool[j] = pool[j], pool[i]
		}
		copy(sa, pool[:len(va)])
		copy(sb, pool[len(va):])
		if extreme(stat(sa)-stat(sb), c.Difference) {
			k++
		}
	}
	c.P = float64(k+1) / float64(opt.Permutations+1)
	return c, nil
}

// extreme reports whether a permuted difference is at least as far from
// zero as the observed one; sums of the same values in another order may
// differ in their last bits, which is not a difference.
func extreme(d, observed float64) bool {
	return math.Abs(d) >= math.Abs(observed)-1e-9*math.Max(1, math.Abs(observed))
}

// holm adjusts the p-values of comparisons for their number, step down,
// and keeps the adjusted values in the order of the raw ones, at most 1.
func holm(comps []Comparison) {
	m := len(comps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return comps[order[x]].P < comps[order[y]].P })
	prev := 0.0
	for rank, i := range order {
		adj := math.Min(1, float64(m-rank)*comps[i].P)
		adj = math.Max(adj, prev)
		comps[i].PHolm = adj
		prev = adj
	}
}
