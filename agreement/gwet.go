package agreement

// The coefficients of this file follow Gwet, K. L. (2014). Handbook of
// Inter-Rater Reliability (4th ed.), chapters 2 and 3, for any number of
// raters per unit, and the irrCAC package that implements them. With r_ik
// the number of raters who put unit i in category k, r_i = Σ_k r_ik and
// r*_ik = Σ_l w_kl r_il:
//
//	p_a = mean over the units with r_i ≥ 2 of Σ_k r_ik (r*_ik − 1) / (r_i (r_i − 1))
//	π_k = mean over the units with r_i ≥ 1 of r_ik / r_i
//
// so a unit with a single rating counts in the chance term but not in the
// agreement. Each coefficient is (p_a − p_e)/(1 − p_e) with its own p_e.

// gwetTerms returns p_a and π_k under the weights w (nil: unweighted).
func gwetTerms(r Ratings, w []float64) (pa float64, pi []float64, err error) {
	q := r.Categories
	pi = make([]float64, q)
	var rated, pairable int
	r.eachUnit(func(_ int, counts []tally, m int) {
		if m == 0 {
			return
		}
		rated++
		for _, c := range counts {
			pi[c.cat] += float64(c.n) / float64(m)
		}
		if m < 2 {
			return
		}
		pairable++
		var s float64
		for _, a := range counts {
			star := float64(a.n)
			if w != nil {
				star = 0
				for _, b := range counts {
					star += w[a.cat*q+b.cat] * float64(b.n)
				}
			}
			s += float64(a.n) * (star - 1)
		}
		pa += s / float64(m*(m-1))
	})
	if pairable == 0 {
		return 0, nil, ErrNoPairable
	}
	for k := range pi {
		pi[k] /= float64(rated)
	}
	return pa / float64(pairable), pi, nil
}

// weightedTerms is gwetTerms under the weighting w, with its matrix.
func weightedTerms(r Ratings, w Weighting) (wm []float64, pa float64, pi []float64, err error) {
	if wm, err = r.weights(w); err != nil {
		return nil, 0, nil, err
	}
	pa, pi, err = gwetTerms(r, wm)
	return wm, pa, pi, err
}

// FleissKappa is Fleiss' κ in Gwet's form for any number of raters per
// unit (Gwet 2014, ch. 2 and 3; Fleiss, J. L. (1971). "Measuring nominal
// scale agreement among many raters", Psychological Bulletin 76(5)), with
// p_e = Σ_k Σ_l w_kl π_k π_l. With every unit rated by the same raters it
// is Fleiss' own κ.
func FleissKappa(r Ratings, w Weighting) (float64, error) {
	wm, pa, pi, err := weightedTerms(r, w)
	if err != nil {
		return 0, err
	}
	q := r.Categories
	var pe float64
	for k, pk := range pi {
		if pk == 0 {
			continue
		}
		for l, pl := range pi {
			if pl != 0 {
				pe += weight(wm, q, k, l) * pk * pl
			}
		}
	}
	return chanceCorrected(pa, pe)
}

// GwetAC1 is Gwet's AC1 (Gwet, K. L. (2008). "Computing inter-rater
// reliability and its variance in the presence of high agreement",
// British Journal of Mathematical and Statistical Psychology 61), with
// p_e = Σ_k π_k (1 − π_k) / (q − 1) over the q declared categories.
func GwetAC1(r Ratings) (float64, error) {
	return GwetAC2(r, Unweighted)
}

// GwetAC2 is Gwet's AC2, AC1 with weights (Gwet 2014, ch. 3): p_e =
// T_w Σ_k π_k (1 − π_k) / (q (q − 1)), where T_w is the sum of the
// weights over the q declared categories.
func GwetAC2(r Ratings, w Weighting) (float64, error) {
	q := r.Categories
	if q < 2 {
		return 0, ErrOneCategory
	}
	wm, pa, pi, err := weightedTerms(r, w)
	if err != nil {
		return 0, err
	}
	var s float64
	for _, pk := range pi {
		s += pk * (1 - pk)
	}
	pe := weightSum(wm, q) * s / float64(q*(q-1))
	return chanceCorrected(pa, pe)
}

// BrennanPrediger is Brennan and Prediger's coefficient (Brennan, R. L.
// and Prediger, D. J. (1981). "Coefficient kappa: some uses, misuses, and
// alternatives", Educational and Psychological Measurement 41), for any
// number of raters as Gwet (2014, ch. 2) gives it: p_e = 1/q over the q
// declared categories. For two raters it is Bennett's S.
func BrennanPrediger(r Ratings) (float64, error) {
	q := r.Categories
	if q < 2 {
		return 0, ErrOneCategory
	}
	pa, _, err := gwetTerms(r, nil)
	if err != nil {
		return 0, err
	}
	return chanceCorrected(pa, 1/float64(q))
}

// PercentAgreement is the mean, over the units with two or more values,
// of the share of the unit's pairs of annotators who agree (Gwet's p_a,
// unweighted).
func PercentAgreement(r Ratings) (float64, error) {
	pa, _, err := gwetTerms(r, nil)
	return pa, err
}

// SpecificAgreement is the positive specific agreement on category k
// (Uebersax, J. S. (1982). "A design-independent method for measuring the
// reliability of psychiatric diagnosis", Journal of Psychiatric Research
// 17(4)): of all the pairs of values within a unit in which one value is
// k, the share in which the other is k too. Summed over the units with
// two or more values, Σ_u r_uk (r_uk − 1) / Σ_u r_uk (m_u − 1); for two
// annotators, 2·n_kk / (n_k· + n_·k).
func SpecificAgreement(r Ratings, k int) (float64, error) {
	if k < 0 || k >= r.Categories {
		return 0, ErrNoSuchCategory
	}
	var agree, all int
	r.eachUnit(func(_ int, counts []tally, m int) {
		if m < 2 {
			return
		}
		for _, c := range counts {
			if c.cat == k {
				agree += c.n * (c.n - 1)
				all += c.n * (m - 1)
			}
		}
	})
	if all == 0 {
		return 0, ErrNeverChosen
	}
	return float64(agree) / float64(all), nil
}
