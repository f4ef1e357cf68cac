package agreement

import "fmt"

// Weighting names the agreement weights w_kl of weighted κ, AC2 and
// Fleiss' κ: how much two different categories count as agreeing.
type Weighting string

// The weightings of Gwet, K. L. (2014), Handbook of Inter-Rater
// Reliability (4th ed.), chapter 3, over x_k, the number of category k
// (Ratings.Values) or, for categories without numbers, its position in
// the declared order.
const (
	// Unweighted: 1 for the same category, 0 otherwise.
	Unweighted Weighting = "none"
	// Linear: 1 − |x_k − x_l| / (x_max − x_min).
	Linear Weighting = "linear"
	// Quadratic: 1 − (x_k − x_l)² / (x_max − x_min)².
	Quadratic Weighting = "quadratic"
)

// weights returns w_kl at k*q+l for the q categories of r, or nil for
// Unweighted (the identity, which every statistic handles without a
// matrix, as q may be large). The range is that of every category,
// declared or seen, used or not.
func (r Ratings) weights(w Weighting) ([]float64, error) {
	if w == Unweighted {
		return nil, nil
	}
	if w != Linear && w != Quadratic {
		return nil, fmt.Errorf("unknown weights %q", string(w))
	}
	if m, ok := r.scratch.weightsOf(w); ok {
		return m, nil
	}
	q := r.Categories
	x := make([]float64, q)
	for k := range x {
		x[k] = float64(k)
		if len(r.Values) == q {
			x[k] = r.Values[k]
		}
	}
	lo, hi := 0.0, 0.0
	for k, v := range x {
		if k == 0 || v < lo {
			lo = v
		}
		if k == 0 || v > hi {
			hi = v
		}
	}
	out := make([]float64, q*q)
	for k := range q {
		for l := range q {
			switch {
			case k == l:
				out[k*q+l] = 1
			case hi == lo:
				out[k*q+l] = 0
			case w == Linear:
				d := x[k] - x[l]
				if d < 0 {
					d = -d
				}
				out[k*q+l] = 1 - d/(hi-lo)
			default:
				d := (x[k] - x[l]) / (hi - lo)
				out[k*q+l] = 1 - d*d
			}
		}
	}
	if s := r.scratch; s != nil {
		if s.weights == nil {
			s.weights = map[Weighting][]float64{}
		}
		s.weights[w] = out
	}
	return out, nil
}

// weightsOf is the matrix of w made before, when s holds one.
func (s *statScratch) weightsOf(w Weighting) ([]float64, bool) {
	if s == nil {
		return nil, false
	}
	m, ok := s.weights[w]
	return m, ok
}

// weight is w_kl, the identity when w is nil.
func weight(w []float64, q, k, l int) float64 {
	if w != nil {
		return w[k*q+l]
	}
	if k == l {
		return 1
	}
	return 0
}

// weightSum is T_w, the sum of all weights.
func weightSum(w []float64, q int) float64 {
	if w == nil {
		return float64(q)
	}
	var t float64
	for _, x := range w {
		t += x
	}
	return t
}

// chanceCorrected is (p_a − p_e)/(1 − p_e), the form of every
// chance-corrected coefficient; it has no value when p_e is 1.
func chanceCorrected(pa, pe float64) (float64, error) {
	if 1-pe <= 1e-12 {
		return 0, ErrChanceIsOne
	}
	return (pa - pe) / (1 - pe), nil
}
