package agreement

import (
	"math"
	"math/big"
)

// spanPearsonSums are the sums Pearson's r needs over the (unit, label)
// counts of one label and one pair: x is A's count of spans, y is B's. The
// sums are of integers and kept exact, so they do not depend on the order
// in which units are added; the count of pairs is the pair's units.
type spanPearsonSums struct {
	sx, sy, sxx, syy, sxy int64
}

func (p *spanPearsonSums) add(o spanPearsonSums) {
	p.sx += o.sx
	p.sy += o.sy
	p.sxx += o.sxx
	p.syy += o.syy
	p.sxy += o.sxy
}

// spanCountPairs adds one unit's counts per label to acc.pearson. Labels
// that neither list holds add a (0, 0) pair, which changes no sum: their
// zeros count through the number of units alone.
func spanCountPairs(a, b []spanItem, acc *spanPairAcc, s *spanScratch) {
	n := len(acc.perLabel)
	if len(s.cntA) < n {
		s.cntA = make([]int64, n)
		s.cntB = make([]int64, n)
	}
	for _, x := range a {
		s.cntA[x.label]++
	}
	for _, y := range b {
		s.cntB[y.label]++
	}
	flush := func(label int) {
		x, y := s.cntA[label], s.cntB[label]
		if x == 0 && y == 0 {
			return // already added, or nothing to add
		}
		p := &acc.pearson[label]
		p.sx += x
		p.sy += y
		p.sxx += x * x
		p.syy += y * y
		p.sxy += x * y
		s.cntA[label], s.cntB[label] = 0, 0
	}
	for _, x := range a {
		flush(x.label)
	}
	for _, y := range b {
		flush(y.label)
	}
}

// spanPearsonR is Pearson's product-moment r of n pairs given by their
// sums: r = (n Σxy − Σx Σy) / √((n Σx² − (Σx)²)(n Σy² − (Σy)²)). The
// numerator and both terms under the root are computed exactly, so a
// variable with no variation is found exactly (ok false) rather than as a
// rounding residue; r is then clamped to [−1, 1] against rounding.
func spanPearsonR(n int64, p spanPearsonSums) (r float64, ok bool) {
	if n < 2 {
		return 0, false
	}
	if small := int64(1) << 31; n < small && p.sx < small && p.sy < small && p.sxx < small && p.syy < small && p.sxy < small {
		// Every product fits in 62 bits: the same exact terms, without
		// big numbers.
		cov, vx, vy := n*p.sxy-p.sx*p.sy, n*p.sxx-p.sx*p.sx, n*p.syy-p.sy*p.sy
		if vx <= 0 || vy <= 0 {
			return 0, false
		}
		r = float64(cov) / (math.Sqrt(float64(vx)) * math.Sqrt(float64(vy)))
		return max(-1, min(1, r)), true
	}
	return spanPearsonRBig(n, p)
}

// spanPearsonRBig is spanPearsonR with its terms in big numbers, whatever
// the sums.
func spanPearsonRBig(n int64, p spanPearsonSums) (r float64, ok bool) {
	if n < 2 {
		return 0, false
	}
	bn := big.NewInt(n)
	term := func(sxy, sx, sy int64) *big.Int {
		t := new(big.Int).Mul(bn, big.NewInt(sxy))
		return t.Sub(t, new(big.Int).Mul(big.NewInt(sx), big.NewInt(sy)))
	}
	cov := term(p.sxy, p.sx, p.sy)
	vx := term(p.sxx, p.sx, p.sx)
	vy := term(p.syy, p.sy, p.sy)
	if vx.Sign() <= 0 || vy.Sign() <= 0 {
		return 0, false
	}
	c, _ := new(big.Float).SetInt(cov).Float64()
	x, _ := new(big.Float).SetInt(vx).Float64()
	y, _ := new(big.Float).SetInt(vy).Float64()
	r = c / (math.Sqrt(x) * math.Sqrt(y))
	return max(-1, min(1, r)), true
}

// spanPearsonValue is span_count_pearson for one pair: r over every
// (unit, label) count pooled (micro), and the mean of r per label (macro),
// leaving out labels whose counts do not vary for both annotators, as r is
// undefined there. It has no value, with a note, when either is
// undefined, since a Pearson holds both.
func spanPearsonValue(units int64, sums []spanPearsonSums) spanValue {
	if len(sums) == 0 {
		return spanValue{note: "no label to count spans of"}
	}
	var pooled spanPearsonSums
	var macro float64
	var defined int
	for _, p := range sums {
		pooled.add(p)
		if r, ok := spanPearsonR(units, p); ok {
			macro += r
			defined++
		}
	}
	micro, ok := spanPearsonR(units*int64(len(sums)), pooled)
	switch {
	case units < 2:
		return spanValue{note: "fewer than two units both annotators completed"}
	case !ok:
		return spanValue{note: "no variation: an annotator's count of spans is the same for every (unit, label)"}
	case defined == 0:
		return spanValue{note: "no variation within any label: for every label, an annotator's count of spans is the same on every unit"}
	}
	return spanValue{ok: true, r: Pearson{Micro: micro, Macro: macro / float64(defined)}}
}

// spanLabelPearsonValue is span_count_pearson for one pair and one
// label: r over the two annotators' counts of spans of that label on each
// unit both completed, zeros included. Its value has the shape of the
// question's, micro and macro both the label's r.
func spanLabelPearsonValue(units int64, sums spanPearsonSums, none string) spanValue {
	r, ok := spanPearsonR(units, sums)
	switch {
	case none != "":
		return spanValue{note: none}
	case units < 2:
		return spanValue{note: "fewer than two units both annotators completed"}
	case !ok:
		return spanValue{note: "no variation: an annotator's count of spans of this label is the same on every unit"}
	}
	return spanValue{ok: true, r: Pearson{Micro: r, Macro: r}}
}
