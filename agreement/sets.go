package agreement

// meanPairSimilarity pools every pair of values within the units with two
// or more values and returns their mean similarity, where sim(c, k) is
// that of two different categories and equal values count 1.
func meanPairSimilarity(r Ratings, sim func(c, k int) float64) (float64, error) {
	var sum float64
	var pairs int
	r.eachUnit(func(_ int, counts []tally, m int) {
		if m < 2 {
			return
		}
		pairs += m * (m - 1) / 2
		var s float64
		for i, a := range counts {
			s += float64(a.n * (a.n - 1) / 2)
			for _, b := range counts[i+1:] {
				s += float64(a.n*b.n) * sim(a.cat, b.cat)
			}
		}
		sum += s
	})
	if pairs == 0 {
		return 0, ErrNoPairable
	}
	return sum / float64(pairs), nil
}

// MeanJaccard is the mean Jaccard index |a∩b|/|a∪b| over every pair of
// answers within a unit, all units' pairs pooled (two empty sets agree:
// index 1). It needs Ratings.Sets.
func MeanJaccard(r Ratings) (float64, error) {
	if len(r.Sets) != r.Categories {
		return 0, ErrNotSets
	}
	sets := numberSets(r.Sets)
	return meanPairSimilarity(r, func(c, k int) float64 {
		a, b := sets[c], sets[k]
		return setSimilarity(Jaccard, len(a), len(b), setOverlap(a, b))
	})
}
