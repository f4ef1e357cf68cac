package agreement

import (
	"math"
	"math/rand/v2"
	"testing"
)

// smallChoice is two annotators on four units: (a,a), (a,b), (b,b), (a,–).
// Three units are pairable, two agree. Cohen: rows a 2, b 1; columns a 1,
// b 2; p_e = 4/9. Gwet's π over the four rated units: a 5/8, b 3/8.
var smallChoice = ChoiceRatings(codeTable([]string{"A", "B"},
	[]string{"a", "a"}, []string{"a", "b"}, []string{"b", "b"}, []string{"a", ""},
), []string{"a", "b"})

// smallScale is two annotators on a three-level scale: (1,1), (1,2), (2,3),
// (3,3). Linear weights: p_o = 3/4, p_e = 8/16. Quadratic weights: p_o
// = 7/8, p_e = 9.5/16.
var smallScale = ScaleRatings(numTable([]string{"A", "B"},
	[]float64{1, 1}, []float64{1, 2}, []float64{2, 3}, []float64{3, 3},
), levels1to(3))

func TestCoefficients(t *testing.T) {
	t.Parallel()
	three := ChoiceRatings(codeTable([]string{"A", "B", "C"}, []string{"a", "b", "a"}), []string{"a", "b"})
	same := ChoiceRatings(codeTable([]string{"A", "B"}, []string{"a", "a"}, []string{"a", "a"}), []string{"a", "b"})
	one := ChoiceRatings(codeTable([]string{"A", "B"}, []string{"a", "a"}, []string{"a", "a"}), []string{"a"})
	lonely := ChoiceRatings(codeTable([]string{"A", "B"}, []string{"a", ""}, []string{"", "b"}), []string{"a", "b"})
	runStatCases(t, []statCase{
		{"percent agreement", PercentAgreement, smallChoice, 2.0 / 3, nil},
		{"Cohen's κ", func(r Ratings) (float64, error) { return CohenKappa(r, Unweighted) }, smallChoice, (2.0/3 - 4.0/9) / (5.0 / 9), nil},
		{"Scott's π", ScottPi, smallChoice, 1.0 / 3, nil},
		{"Bennett's S", BennettS, smallChoice, 1.0 / 3, nil},
		{"Brennan-Prediger", BrennanPrediger, smallChoice, 1.0 / 3, nil},
		// p_e = (5/8)² + (3/8)² = 17/32: (2/3 − 17/32)/(15/32) = 13/45.
		{"Fleiss' κ, a unit with one rating", func(r Ratings) (float64, error) { return FleissKappa(r, Unweighted) }, smallChoice, 13.0 / 45, nil},
		// p_e = 2·(5/8)(3/8)/(2−1) = 15/32: (2/3 − 15/32)/(17/32) = 19/51.
		{"Gwet's AC1, a unit with one rating", GwetAC1, smallChoice, 19.0 / 51, nil},
		{"specific agreement on a", func(r Ratings) (float64, error) { return SpecificAgreement(r, 0) }, smallChoice, 2.0 / 3, nil},
		{"Cohen's κ, linear", func(r Ratings) (float64, error) { return CohenKappa(r, Linear) }, smallScale, 0.5, nil},
		{"Cohen's κ, quadratic", func(r Ratings) (float64, error) { return CohenKappa(r, Quadratic) }, smallScale, 9.0 / 13, nil},
		{"AC1 when all agree on one of two", GwetAC1, same, 1, nil},

		{"Cohen's κ of three", func(r Ratings) (float64, error) { return CohenKappa(r, Unweighted) }, three, 0, ErrNotTwo},
		{"Cohen's κ on one category", func(r Ratings) (float64, error) { return CohenKappa(r, Unweighted) }, same, 0, ErrChanceIsOne},
		{"Scott's π on one category", ScottPi, same, 0, ErrChanceIsOne},
		{"Fleiss' κ on one category", func(r Ratings) (float64, error) { return FleissKappa(r, Unweighted) }, same, 0, ErrChanceIsOne},
		{"AC1 of one declared category", GwetAC1, one, 0, ErrOneCategory},
		{"Bennett's S of one declared category", BennettS, one, 0, ErrOneCategory},
		{"percent agreement without a pairable unit", PercentAgreement, lonely, 0, ErrNoPairable},
		{"Cohen's κ without a unit both rated", func(r Ratings) (float64, error) { return CohenKappa(r, Unweighted) }, lonely, 0, ErrNoPairable},
		{"specific agreement on a category never chosen", func(r Ratings) (float64, error) { return SpecificAgreement(r, 1) }, same, 0, ErrNeverChosen},
		{"specific agreement on no category", func(r Ratings) (float64, error) { return SpecificAgreement(r, 2) }, same, 0, ErrNoSuchCategory},
	})
	if _, err := CohenKappa(smallChoice, "cubic"); err == nil {
		t.Error("CohenKappa with unknown weights: no error")
	}
}

// TestSpecificAgreementCohen is the specific agreement of the Wikipedia
// example of Cohen's κ (Yes/Yes 20, Yes/No 5, No/Yes 10, No/No 15):
// 2·20/(25+30) for Yes, 2·15/(25+20) for No.
func TestSpecificAgreementCohen(t *testing.T) {
	t.Parallel()
	var rows [][]string
	for _, c := range []struct {
		a, b string
		n    int
	}{{"Yes", "Yes", 20}, {"Yes", "No", 5}, {"No", "Yes", 10}, {"No", "No", 15}} {
		for range c.n {
			rows = append(rows, []string{c.a, c.b})
		}
	}
	r := ChoiceRatings(codeTable([]string{"A", "B"}, rows...), []string{"Yes", "No"})
	for k, want := range []float64{40.0 / 55, 30.0 / 45} {
		got, err := SpecificAgreement(r, k)
		if err != nil || math.Abs(got-want) > 1e-15 {
			t.Errorf("%s: %v, %v; want %v", r.Labels[k], got, err, want)
		}
	}
}

// TestFleissClassic compares Fleiss' κ in Gwet's form, on complete data,
// with Fleiss' (1971) own formula: P̄ the mean of P_i = Σ_j n_ij(n_ij − 1)
// / (n(n − 1)), P̄_e = Σ_j p_j², p_j the share of all assignments in j.
// With two annotators it is Scott's π, and Brennan and Prediger's
// coefficient is Bennett's S.
func TestFleissClassic(t *testing.T) {
	t.Parallel()
	for _, coders := range []int{2, 3, 7} {
		table := randomTable(rand.New(rand.NewPCG(uint64(coders), 1)), 80, coders, 4, 0, letterValue)
		r := ChoiceRatings(table, letters(4))
		var pbar float64
		p := make([]float64, 4)
		for u := range r.Units() {
			nij := make([]float64, 4)
			_, cats := r.Row(u)
			if len(cats) != coders {
				t.Fatalf("unit %d has %d values, want %d", u, len(cats), coders)
			}
			for _, c := range cats {
				nij[c]++
				p[c]++
			}
			var s float64
			for _, x := range nij {
				s += x * (x - 1)
			}
			pbar += s / float64(coders*(coders-1))
		}
		pbar /= float64(r.Units())
		var pe float64
		for _, x := range p {
			x /= float64(r.Units() * coders)
			pe += x * x
		}
		want := (pbar - pe) / (1 - pe)
		got, err := FleissKappa(r, Unweighted)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("%d annotators: Fleiss' κ %v, %v; by Fleiss' formula %v", coders, got, err, want)
		}
		if coders != 2 {
			continue
		}
		if pi, err := ScottPi(r); err != nil || math.Abs(pi-got) > 1e-12 {
			t.Errorf("Scott's π %v, %v; Fleiss' κ %v", pi, err, got)
		}
		s, err1 := BennettS(r)
		bp, err2 := BrennanPrediger(r)
		if err1 != nil || err2 != nil || math.Abs(s-bp) > 1e-12 {
			t.Errorf("Bennett's S %v, %v; Brennan-Prediger %v, %v", s, err1, bp, err2)
		}
	}
}
