package agreement

// The coefficients of this file compare exactly two annotators on the
// units both of them rated.

// crossTable counts the units both annotators of r rated: by category of
// the first (row) and of the second (col), and the weighted agreement
// p_o = Σ_u w(a_u, b_u) / n.
func crossTable(r Ratings, w []float64) (po float64, row, col []int, n int, err error) {
	if r.Coders != 2 {
		return 0, nil, nil, 0, ErrNotTwo
	}
	q := r.Categories
	row, col = r.margins(q)
	var agree float64
	for u := range r.Units() {
		// A row of two values holds the first annotator's, then the
		// second's.
		_, cats := r.Row(u)
		if len(cats) != 2 {
			continue
		}
		a, b := cats[0], cats[1]
		row[a]++
		col[b]++
		n++
		agree += weight(w, q, a, b)
	}
	if n == 0 {
		return 0, nil, nil, 0, ErrNoPairable
	}
	return agree / float64(n), row, col, n, nil
}

// CohenKappa is Cohen's κ (Cohen, J. (1960). "A coefficient of agreement
// for nominal scales", Educational and Psychological Measurement 20(1);
// weighted: Cohen, J. (1968), Psychological Bulletin 70(4)): p_e =
// Σ_k Σ_l w_kl p_k· p_·l, each annotator's own distribution over the
// declared categories.
func CohenKappa(r Ratings, w Weighting) (float64, error) {
	wm, err := r.weights(w)
	if err != nil {
		return 0, err
	}
	po, row, col, n, err := crossTable(r, wm)
	if err != nil {
		return 0, err
	}
	q := r.Categories
	// Summed as (p_k· p_·l + p_l· p_·k)/2, which is the same sum for
	// symmetric weights and the same bits whichever annotator comes
	// first.
	var pe float64
	for k := range q {
		for l := range q {
			if x := row[k]*col[l] + row[l]*col[k]; x != 0 {
				pe += weight(wm, q, k, l) * float64(x)
			}
		}
	}
	pe /= 2 * float64(n) * float64(n)
	return chanceCorrected(po, pe)
}

// ScottPi is Scott's π (Scott, W. A. (1955). "Reliability of content
// analysis: the case of nominal scale coding", Public Opinion Quarterly
// 19(3)): p_e = Σ_k π_k², π_k the share of category k among both
// annotators' values.
func ScottPi(r Ratings) (float64, error) {
	po, row, col, n, err := crossTable(r, nil)
	if err != nil {
		return 0, err
	}
	var pe float64
	for k := range row {
		if x := row[k] + col[k]; x != 0 {
			pe += float64(x * x)
		}
	}
	pe /= 4 * float64(n) * float64(n)
	return chanceCorrected(po, pe)
}

// BennettS is Bennett, Alpert and Goldstein's S (1954, "Communications
// through limited-response questioning", Public Opinion Quarterly 18(3)):
// p_e = 1/q over the q declared categories.
func BennettS(r Ratings) (float64, error) {
	q := r.Categories
	if q < 2 {
		return 0, ErrOneCategory
	}
	po, _, _, _, err := crossTable(r, nil)
	if err != nil {
		return 0, err
	}
	return chanceCorrected(po, 1/float64(q))
}
