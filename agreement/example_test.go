package agreement_test

import (
	"context"
	"fmt"

	"github.com/annosheet/annosheet/agreement"
)

// The Wikipedia example of Cohen's κ: two readers, 50 grant proposals,
// Yes/Yes 20, Yes/No 5, No/Yes 10, No/No 15.
func ExampleChoice() {
	t := agreement.Table{Coders: []string{"readerA", "readerB"}}
	for _, c := range []struct {
		a, b string
		n    int
	}{{"Yes", "Yes", 20}, {"Yes", "No", 5}, {"No", "Yes", 10}, {"No", "No", 15}} {
		for range c.n {
			t.Units = append(t.Units, agreement.Unit{
				ID:     fmt.Sprintf("p%02d", len(t.Units)+1),
				Values: []*agreement.Value{{Code: c.a}, {Code: c.b}},
			})
		}
	}
	res, err := agreement.Choice(context.Background(), t, []string{"Yes", "No"}, agreement.Options{})
	if err != nil {
		panic(err) // only a context that is done stops it
	}
	fmt.Println(res.Units, "units,", res.Pairable, "pairable values")
	for _, m := range res.Metrics {
		fmt.Printf("%s %v: %.4f\n", m.Metric, m.Params, m.Value)
	}
	for _, o := range res.Options {
		fmt.Printf("%s: %s %.4f\n", o.Code, o.Metrics[0].Metric, o.Metrics[0].Value)
	}
	// Output:
	// 50 units, 100 pairable values
	// krippendorff_alpha map[level:nominal]: 0.4000
	// percent_agreement map[]: 0.7000
	// fleiss_kappa map[weights:none]: 0.3939
	// gwet_ac1 map[]: 0.4059
	// brennan_prediger map[]: 0.4000
	// cohen_kappa map[weights:none]: 0.4000
	// scott_pi map[]: 0.3939
	// bennett_s map[]: 0.4000
	// Yes: specific_agreement 0.7273
	// No: specific_agreement 0.6667
}

// Krippendorff's (2011) worked example: 4 observers, 12 units, missing
// values; α at each level of measurement.
func ExampleKrippendorffAlpha() {
	const x = -1 // no value
	data := [][]float64{
		{1, 1, x, 1}, {2, 2, 3, 2}, {3, 3, 3, 3}, {3, 3, 3, 3}, {2, 2, 2, 2}, {1, 2, 3, 4},
		{4, 4, 4, 4}, {1, 1, 2, 1}, {2, 2, 2, 2}, {x, 5, 5, 5}, {x, x, 1, 1}, {x, 3, x, x},
	}
	t := agreement.Table{Coders: []string{"A", "B", "C", "D"}}
	for i, row := range data {
		u := agreement.Unit{ID: fmt.Sprintf("u%02d", i+1), Values: make([]*agreement.Value, 4)}
		for c, v := range row {
			if v != x {
				u.Values[c] = &agreement.Value{Num: v}
			}
		}
		t.Units = append(t.Units, u)
	}
	r := agreement.ScaleRatings(t, []float64{1, 2, 3, 4, 5})
	for _, d := range []agreement.Difference{agreement.Nominal, agreement.Ordinal, agreement.Interval, agreement.Ratio} {
		alpha, err := agreement.KrippendorffAlpha(r, d)
		fmt.Printf("%s %.3f %v\n", d, alpha, err)
	}
	// Output:
	// nominal 0.743 <nil>
	// ordinal 0.815 <nil>
	// interval 0.849 <nil>
	// ratio 0.797 <nil>
}

// A 95% bootstrap interval for a question's headline, on the answers
// coded once.
func ExampleBootstrapRatings() {
	t := agreement.Table{Coders: []string{"ak", "bt"}}
	answers := []string{"a", "a", "b", "b", "a", "b", "a", "a", "b", "a"}
	for i, a := range answers {
		b := a
		if i%4 == 3 {
			b = "c"
		}
		t.Units = append(t.Units, agreement.Unit{
			ID:     fmt.Sprintf("u%02d", i),
			Values: []*agreement.Value{{Code: a}, {Code: b}},
		})
	}
	r := agreement.ChoiceRatings(t, []string{"a", "b", "c"})
	alpha := func(r agreement.Ratings) (float64, bool) {
		v, err := agreement.KrippendorffAlpha(r, agreement.Nominal)
		return v, err == nil
	}
	point, _ := alpha(r)
	lo, hi, ok, err := agreement.BootstrapRatings(context.Background(), r, alpha, 0.95, 1000, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("α %.3f, 95%% interval [%.3f, %.3f] %v\n", point, lo, hi, ok)
	// Output:
	// α 0.664, 95% interval [0.238, 1.000] true
}
