package agreement

import (
	"cmp"
	"fmt"
	"slices"
)

// Difference names the difference function δ² of Krippendorff's α: a
// level of measurement for single values, or a distance between sets.
type Difference string

// The difference functions, as Krippendorff (2011, "Computing
// Krippendorff's Alpha-Reliability", section E) and Passonneau (2006)
// define them.
const (
	// Nominal: 0 for equal values, 1 otherwise.
	Nominal Difference = "nominal"
	// Ordinal: Krippendorff's rank metric, from the marginals n_g of the
	// pairable values: δ²(c,k) = (Σ_{g=c..k} n_g − (n_c+n_k)/2)². It
	// needs the categories in their order, not numbers.
	Ordinal Difference = "ordinal"
	// Interval: (c−k)². It needs Ratings.Values.
	Interval Difference = "interval"
	// Ratio: ((c−k)/(c+k))². It needs Ratings.Values, none negative.
	Ratio Difference = "ratio"
	// MASI: MASIDistance between sets. It needs Ratings.Sets.
	MASI Difference = "masi"
	// Jaccard: JaccardDistance between sets. It needs Ratings.Sets.
	Jaccard Difference = "jaccard"
)

// Param is the key and value that name the difference in a report's
// params: {"level": "ordinal"} for a level, {"distance": "masi"} for a
// set distance.
func (d Difference) Param() (key, value string) {
	if d == MASI || d == Jaccard {
		return "distance", string(d)
	}
	return "level", string(d)
}

// differences returns δ²(c,k) between the categories of r. n holds the
// marginals of the pairable values by category, which the ordinal
// metric is made of and which say the categories in use.
func differences(r Ratings, d Difference, n []int) (func(c, k int) float64, error) {
	switch d {
	case Nominal:
		return func(c, k int) float64 {
			if c == k {
				return 0
			}
			return 1
		}, nil
	case Ordinal:
		// cum[g] is the number of pairable values below category g.
		cum := make([]float64, len(n)+1)
		for g, ng := range n {
			cum[g+1] = cum[g] + float64(ng)
		}
		return func(c, k int) float64 {
			if c > k {
				c, k = k, c
			}
			x := cum[k+1] - cum[c] - float64(n[c]+n[k])/2
			return x * x
		}, nil
	case Interval, Ratio:
		if len(r.Values) != r.Categories {
			return nil, fmt.Errorf("the %s level %w", d, ErrNotNumeric)
		}
		v := r.Values
		if d == Interval {
			return func(c, k int) float64 {
				x := v[c] - v[k]
				return x * x
			}, nil
		}
		for c, nc := range n {
			if nc > 0 && v[c] < 0 {
				return nil, ErrNegative
			}
		}
		return func(c, k int) float64 {
			if v[c] == v[k] {
				return 0
			}
			x := (v[c] - v[k]) / (v[c] + v[k])
			return x * x
		}, nil
	case MASI, Jaccard:
		if len(r.Sets) != r.Categories {
			return nil, fmt.Errorf("the %s distance %w", d, ErrNotSets)
		}
		sets := numberSets(r.Sets)
		return func(c, k int) float64 {
			a, b := sets[c], sets[k]
			return setDistance(d, len(a), len(b), overlap(a, b))
		}, nil
	}
	return nil, fmt.Errorf("unknown difference %q", string(d))
}

// numberSets replaces the elements of sorted sets by their rank among all
// elements, so that comparing two sets compares integers.
func numberSets(sets [][]string) [][]int {
	var all []string
	for _, s := range sets {
		all = append(all, s...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	out := make([][]int, len(sets))
	for i, s := range sets {
		out[i] = make([]int, len(s))
		for j, e := range s {
			out[i][j], _ = slices.BinarySearch(all, e)
		}
	}
	return out
}

// overlap is the size of the intersection of two sorted sets.
func overlap[T cmp.Ordered](a, b []T) int {
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// setDistance is the MASI or Jaccard distance between sets of sizes la
// and lb that share both elements. Two empty sets are equal: distance 0.
func setDistance(d Difference, la, lb, both int) float64 {
	union := la + lb - both
	if union == 0 {
		return 0
	}
	j := float64(both) / float64(union)
	if d == Jaccard {
		return 1 - j
	}
	// Passonneau's monotonicity weight M.
	var m float64
	switch {
	case both == la && both == lb:
		m = 1
	case both == la || both == lb:
		m = 2.0 / 3
	case both > 0:
		m = 1.0 / 3
	}
	return 1 - j*m
}

// MASIDistance is 1 − J·M between two sets (Passonneau, R. (2006).
// "Measuring agreement on set-valued items (MASI) for semantic and
// pragmatic annotation", LREC): J is their Jaccard index, M is 1 when
// they are equal, 2/3 when one is a subset of the other, 1/3 when they
// overlap otherwise and 0 when they are disjoint. Two empty sets are at
// distance 0, an empty set and another at distance 1.
func MASIDistance(a, b []string) float64 {
	a, b = normalSet(a), normalSet(b)
	return setDistance(MASI, len(a), len(b), overlap(a, b))
}

// JaccardDistance is 1 − |a∩b|/|a∪b|, and 0 between two empty sets.
func JaccardDistance(a, b []string) float64 {
	a, b = normalSet(a), normalSet(b)
	return setDistance(Jaccard, len(a), len(b), overlap(a, b))
}
