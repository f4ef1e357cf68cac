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

// difference is a difference function ready for one set of ratings:
// δ²(c,k) between categories, and, for the set distances, a faster way
// to the expected sum Σ_{c<k} n_c n_k δ²(c,k) over the categories in use
// (nil: over every pair of them).
type difference struct {
	delta    func(c, k int) float64
	expected func(n, used []int) float64
}

// differences returns the difference d between the categories of r. n
// holds the marginals of the pairable values by category, which the
// ordinal metric is made of and which say the categories in use.
func differences(r Ratings, d Difference, n []int) (difference, error) {
	switch d {
	case Nominal:
		return difference{delta: func(c, k int) float64 {
			if c == k {
				return 0
			}
			return 1
		}}, nil
	case Ordinal:
		// cum[g] is the number of pairable values below category g.
		cum := make([]float64, len(n)+1)
		for g, ng := range n {
			cum[g+1] = cum[g] + float64(ng)
		}
		return difference{delta: func(c, k int) float64 {
			if c > k {
				c, k = k, c
			}
			x := cum[k+1] - cum[c] - float64(n[c]+n[k])/2
			return x * x
		}}, nil
	case Interval, Ratio:
		if len(r.Values) != r.Categories {
			return difference{}, fmt.Errorf("the %s level %w", d, ErrNotNumeric)
		}
		v := r.Values
		if d == Interval {
			return difference{delta: func(c, k int) float64 {
				x := v[c] - v[k]
				return x * x
			}}, nil
		}
		for c, nc := range n {
			if nc > 0 && v[c] < 0 {
				return difference{}, ErrNegative
			}
		}
		return difference{delta: func(c, k int) float64 {
			if v[c] == v[k] {
				return 0
			}
			x := (v[c] - v[k]) / (v[c] + v[k])
			return x * x
		}}, nil
	case MASI, Jaccard:
		if len(r.Sets) != r.Categories {
			return difference{}, fmt.Errorf("the %s distance %w", d, ErrNotSets)
		}
		sets := numberSets(r.Sets)
		return difference{
			delta: func(c, k int) float64 {
				a, b := sets[c], sets[k]
				return 1 - setSimilarity(d, len(a), len(b), setOverlap(a, b))
			},
			expected: func(n, used []int) float64 { return setExpected(sets, d, n, used) },
		}, nil
	}
	return difference{}, fmt.Errorf("unknown difference %q", string(d))
}

// setExpected is Σ_{c<k} n_c n_k δ²(c,k) between the sets in use. Two sets
// that share no element are at distance 1, so the sum is that of n_c n_k
// over all pairs, less n_c n_k (1 − δ²(c,k)) over the pairs that share an
// element, which are found through the sets each element is in: with
// many distinct sets, few pairs overlap.
func setExpected(sets [][]int, d Difference, n, used []int) float64 {
	var total, squares int
	holders := map[int][]int{} // element → the sets in use that hold it, ascending
	for _, c := range used {
		total += n[c]
		squares += n[c] * n[c]
		for _, e := range sets[c] {
			holders[e] = append(holders[e], c)
		}
	}
	seen := make([]int, len(sets)) // seen[k] == c+1: pair (c, k) done
	var near float64
	for _, c := range used {
		a := sets[c]
		for _, e := range a {
			h := holders[e]
			i, _ := slices.BinarySearch(h, c+1)
			for _, k := range h[i:] {
				if seen[k] == c+1 {
					continue
				}
				seen[k] = c + 1
				b := sets[k]
				near += float64(n[c]*n[k]) * setSimilarity(d, len(a), len(b), setOverlap(a, b))
			}
		}
	}
	return float64((total*total-squares)/2) - near
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

// setOverlap is the size of the intersection of two sorted sets.
func setOverlap[T cmp.Ordered](a, b []T) int {
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

// setSimilarity is 1 minus the MASI or Jaccard distance between sets of
// sizes la and lb that share both elements: J·M, or J. Two empty sets are
// equal: 1.
func setSimilarity(d Difference, la, lb, both int) float64 {
	union := la + lb - both
	if union == 0 {
		return 1
	}
	j := float64(both) / float64(union)
	if d == Jaccard {
		return j
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
	return j * m
}

// MASIDistance is 1 − J·M between two sets (Passonneau, R. (2006).
// "Measuring agreement on set-valued items (MASI) for semantic and
// pragmatic annotation", LREC): J is their Jaccard index, M is 1 when
// they are equal, 2/3 when one is a subset of the other, 1/3 when they
// overlap otherwise and 0 when they are disjoint. Two empty sets are at
// distance 0, an empty set and another at distance 1.
func MASIDistance(a, b []string) float64 {
	a, b = normalSet(a), normalSet(b)
	return 1 - setSimilarity(MASI, len(a), len(b), setOverlap(a, b))
}

// JaccardDistance is 1 − |a∩b|/|a∪b|, and 0 between two empty sets.
func JaccardDistance(a, b []string) float64 {
	a, b = normalSet(a), normalSet(b)
	return 1 - setSimilarity(Jaccard, len(a), len(b), setOverlap(a, b))
}
