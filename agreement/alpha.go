package agreement

// KrippendorffAlpha is Krippendorff's α = 1 − D_o/D_e with the difference
// function d, computed as Krippendorff, K. (2011). "Computing
// Krippendorff's Alpha-Reliability", Annenberg School for Communication
// Departmental Papers 43, sections A to C, does: only the values of units
// with two or more values count (n of them); a unit of m_u values adds
// n_uc·n_uk/(m_u − 1) to the coincidence of every pair of its values
// (c, k); and
//
//	α = 1 − (n − 1) · Σ_{c≠k} o_ck δ²(c,k) / Σ_{c≠k} n_c n_k δ²(c,k).
//
// The coincidences are summed unit by unit over the distinct values of
// each unit, and the expected disagreement over the pairs of distinct
// values in use (for sets, only the pairs that share an element), so the
// cost grows with the number of values plus the square of the number of
// distinct values, never with the square of the number of values.
func KrippendorffAlpha(r Ratings, d Difference) (float64, error) {
	n, total := r.marginals()
	if total == 0 {
		return 0, ErrNoPairable
	}
	diff, err := differences(r, d, n)
	if err != nil {
		return 0, err
	}
	delta := diff.delta
	var used []int
	for c, nc := range n {
		if nc > 0 {
			used = append(used, c)
		}
	}
	// Both sums run over pairs c < k: the δ² are symmetric and zero on
	// the diagonal, so the factor 2 of the sums over c ≠ k cancels.
	var expected float64
	if diff.expected != nil {
		expected = diff.expected(n, used)
	} else {
		for i, c := range used {
			for _, k := range used[i+1:] {
				expected += float64(n[c]*n[k]) * delta(c, k)
			}
		}
	}
	if expected <= 0 {
		return 0, ErrNoVariation
	}
	var observed float64
	r.eachUnit(func(_ int, counts []tally, m int) {
		if m < 2 || len(counts) < 2 {
			return
		}
		var s float64
		for i, a := range counts {
			for _, b := range counts[i+1:] {
				s += float64(a.n*b.n) * delta(a.cat, b.cat)
			}
		}
		observed += s / float64(m-1)
	})
	return 1 - float64(total-1)*observed/expected, nil
}
