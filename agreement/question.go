package agreement

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// metricSpec is one metric a question reports: its name and params as the
// schema spells them, whether it compares exactly two annotators (then a
// question with more reports the mean over its pairs), and its
// statistic.
type metricSpec struct {
	name   string
	params map[string]any
	two    bool
	stat   func(Ratings) (float64, error)
}

func alphaSpec(d Difference) metricSpec {
	k, v := d.Param()
	return metricSpec{name: "krippendorff_alpha", params: map[string]any{k: v},
		stat: func(r Ratings) (float64, error) { return KrippendorffAlpha(r, d) }}
}

func weightedSpec(name string, w Weighting, two bool, f func(Ratings, Weighting) (float64, error)) metricSpec {
	return metricSpec{name: name, params: map[string]any{"weights": string(w)}, two: two,
		stat: func(r Ratings) (float64, error) { return f(r, w) }}
}

func plainSpec(name string, two bool, f func(Ratings) (float64, error)) metricSpec {
	return metricSpec{name: name, params: map[string]any{}, two: two, stat: f}
}

// metric computes s on r. An undefined statistic has no value and a note
// that says why; so has a value that is not a finite number, which JSON
// cannot hold.
func (s metricSpec) metric(r Ratings) Metric {
	v, err := s.stat(r)
	return MetricOf(s.name, s.params, v, err)
}

// MetricOf is the Metric name with params (a copy) of a statistic's
// value, or, where err says why it has none or the value is not a finite
// number, of the reason it has none.
func MetricOf(name string, params map[string]any, v float64, err error) Metric {
	m := Metric{Metric: name, Params: maps.Clone(params)}
	switch {
	case err != nil:
		m.Note = err.Error()
	case math.IsNaN(v) || math.IsInf(v, 0):
		m.Note = "not a finite number"
	default:
		m.Value = v
	}
	return m
}

// pairMean gathers a two-annotator metric over pairs of annotators: the
// values of the pairs that have one, for their mean, and the reasons of
// those that have none, so that a mean without a value says why.
type pairMean struct {
	// values counts the pairs of each value: few distinct ones where
	// pairs are many (pairs that share a unit or two).
	values map[float64]int
	n      int // pairs with a value
	pairs  int
	why    map[string]int // a pair's note -> how many pairs have none for it
	// all is the number of pairs of annotators, when more than those
	// added: the others share no unit.
	all int
}

// add counts one pair's metric.
func (pm *pairMean) add(m Metric) {
	pm.pairs++
	if v, ok := m.Value.(float64); ok {
		pm.value(v)
		return
	}
	if pm.why == nil {
		pm.why = map[string]int{}
	}
	pm.why[m.Note]++
}

// addStat counts one pair's statistic as MetricOf makes it a metric.
func (pm *pairMean) addStat(v float64, err error) {
	if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		pm.pairs++
		pm.value(v)
		return
	}
	pm.add(MetricOf("", nil, v, err))
}

func (pm *pairMean) value(v float64) {
	if pm.values == nil {
		pm.values = map[float64]int{}
	}
	pm.values[v]++
	pm.n++
}

// metric is the mean as a Metric, its note saying over how many pairs,
// and why the others have no value.
func (pm *pairMean) metric(name string, params map[string]any) Metric {
	// Summed in ascending order, value after value, so that renaming the
	// annotators, which reorders the pairs, gives the same bits.
	var sum float64
	for _, v := range slices.Sorted(maps.Keys(pm.values)) {
		for range pm.values[v] {
			sum += v
		}
	}
	n := pm.n
	m := MetricOf(name, params, sum/float64(max(n, 1)), nil)
	pairs, sharing := "annotator pairs", ""
	if pm.all > pm.pairs {
		pairs, sharing = "annotator pairs that share a unit", " that shares a unit"
	}
	switch {
	case pm.pairs == 0:
		m.Value, m.Note = nil, ErrNoPairable.Error()
	case n == 0:
		m.Value, m.Note = nil, "undefined for every annotator pair"+sharing+": "+pm.reasons()
	case n == pm.pairs:
		m.Note = fmt.Sprintf("mean over the %d %s", n, pairs)
	default:
		m.Note = fmt.Sprintf("mean over %d of the %d %s; the others have no value: %s", n, pm.pairs, pairs, pm.reasons())
	}
	return m
}

// reasons says why pairs have no value: the one reason, or each with how
// many pairs it is of, the most frequent first.
func (pm *pairMean) reasons() string {
	if len(pm.why) == 1 {
		for why := range pm.why {
			return why
		}
	}
	whys := slices.SortedFunc(maps.Keys(pm.why), func(a, b string) int {
		return cmp.Or(cmp.Compare(pm.why[b], pm.why[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = fmt.Sprintf("%s (%s)", why, pairsText(pm.why[why]))
	}
	return strings.Join(parts, "; ")
}

// pairsText is "1 pair" or "n pairs".
func pairsText(n int) string {
	if n == 1 {
		return "1 pair"
	}
	return fmt.Sprintf("%d pairs", n)
}

// questionResult computes a question's Result from its table, the table
// coded, and the metrics of its type, headline first. Each pair of
// annotators that shares a unit gets the metrics computed on the two
// alone; the pairs listed get them all, the others only those whose
// question-level value is the mean over pairs.
func questionResult(ctx context.Context, t Table, r Ratings, specs []metricSpec, opt Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res := Result{
		Annotators:  slices.Clone(t.Coders),
		Metrics:     []Metric{},
		Pairs:       []Pair{},
		UnitsDetail: []UnitDetail{},
	}
	if res.Annotators == nil {
		res.Annotators = []string{}
	}
	r.eachUnit(func(u int, counts []tally, m int) {
		if m == 0 {
			return
		}
		res.Units++
		if m < 2 {
			return
		}
		res.Pairable += m
		res.UnitsDetail = append(res.UnitsDetail, UnitDetail{Unit: t.Units[u].ID, Values: m, Agree: len(counts) == 1})
	})

	means := len(t.Coders) > 2
	var two []int // the specs whose question-level value is a mean over pairs
	for k, s := range specs {
		if s.two && means {
			two = append(two, k)
		}
	}
	mean := make([]pairMean, len(specs))
	for k := range mean {
		mean[k].all = len(t.Coders) * (len(t.Coders) - 1) / 2
	}
	// The pairs listed are those that share the most units: known once
	// every pair is seen.
	scan := newPairScan(r.Coders, r.start, r.coder)
	pick := newPairPick(opt.maxPairs(), t.Coders)
	stop := every(ctx)
	err := scan.each(func(a, b, shared int) error {
		pick.offer(a, b, shared)
		return stop()
	})
	if err != nil {
		return Result{}, err
	}
	listed := map[[2]int]int{}
	for _, x := range pick.picked() {
		a, b := x.a, x.b
		if t.Coders[b] < t.Coders[a] {
			a, b = b, a
		}
		listed[[2]int{x.a, x.b}] = len(res.Pairs)
		res.Pairs = append(res.Pairs, Pair{A: t.Coders[a], B: t.Coders[b], Metrics: make([]Metric, len(specs))})
	}
	var pr Ratings
	err = scan.each(func(a, b, _ int) error {
		if err := stop(); err != nil {
			return err
		}
		k, ok := listed[[2]int{a, b}]
		if !ok && len(two) == 0 {
			return nil
		}
		if t.Coders[b] < t.Coders[a] {
			a, b = b, a
		}
		if !ok {
			// A two-annotator statistic counts the units both rated.
			r.pairRatings(scan, a, b, false, &pr)
			for _, i := range two {
				v, err := specs[i].stat(pr)
				mean[i].addStat(v, err)
			}
			return nil
		}
		r.pairRatings(scan, a, b, true, &pr)
		p := res.Pairs[k]
		for i, s := range specs {
			p.Metrics[i] = s.metric(pr)
		}
		for _, i := range two {
			mean[i].add(p.Metrics[i])
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	res.PairsLeftOut = pick.leftOut()
	res.PairsNote = pairsNote(len(res.Pairs), res.PairsLeftOut)
	for k, s := range specs {
		if s.two && means {
			res.Metrics = append(res.Metrics, mean[k].metric(s.name, s.params))
		} else {
			res.Metrics = append(res.Metrics, s.metric(r))
		}
	}
	return res, nil
}

// Choice is the agreement on a choice or bool question: values in
// Value.Code, categories the declared codes in order (a bool's two
// values). It reports Krippendorff's α at the nominal level (the
// headline), percent agreement, Fleiss' κ, Gwet's AC1 and Brennan and
// Prediger's coefficient for all annotators, Cohen's κ, Scott's π and
// Bennett's S for two (the mean over pairs for more), and per declared
// category the specific agreement.
func Choice(ctx context.Context, t Table, categories []string, opt Options) (Result, error) {
	r := ChoiceRatings(t, categories)
	res, err := questionResult(ctx, t, r, []metricSpec{
		alphaSpec(Nominal),
		plainSpec("percent_agreement", false, PercentAgreement),
		weightedSpec("fleiss_kappa", Unweighted, false, FleissKappa),
		plainSpec("gwet_ac1", false, GwetAC1),
		plainSpec("brennan_prediger", false, BrennanPrediger),
		weightedSpec("cohen_kappa", Unweighted, true, CohenKappa),
		plainSpec("scott_pi", true, ScottPi),
		plainSpec("bennett_s", true, BennettS),
	}, opt)
	if err != nil {
		return Result{}, err
	}
	for _, code := range declaredCodes(categories) {
		k := slices.Index(r.Labels, code)
		v, err := SpecificAgreement(r, k)
		res.Options = append(res.Options, Option{Code: code, Metrics: []Metric{MetricOf("specific_agreement", map[string]any{}, v, err)}})
	}
	return res, nil
}

// Scale is the agreement on a scale question: values in Value.Num, the
// declared levels in ascending order. It reports Krippendorff's α at the
// ordinal level (the headline), then at the interval and ratio levels,
// percent agreement, Cohen's κ with linear and quadratic weights (two
// annotators; the mean over pairs for more), Gwet's AC2 and Fleiss' κ
// with linear and quadratic weights. Weights are over the levels'
// numbers.
func Scale(ctx context.Context, t Table, levels []float64, opt Options) (Result, error) {
	r := ScaleRatings(t, levels)
	return questionResult(ctx, t, r, []metricSpec{
		alphaSpec(Ordinal),
		alphaSpec(Interval),
		alphaSpec(Ratio),
		plainSpec("percent_agreement", false, PercentAgreement),
		weightedSpec("cohen_kappa", Linear, true, CohenKappa),
		weightedSpec("cohen_kappa", Quadratic, true, CohenKappa),
		weightedSpec("gwet_ac2", Linear, false, GwetAC2),
		weightedSpec("gwet_ac2", Quadratic, false, GwetAC2),
		weightedSpec("fleiss_kappa", Linear, false, FleissKappa),
		weightedSpec("fleiss_kappa", Quadratic, false, FleissKappa),
	}, opt)
}

// setSpecs are the metrics of set-valued answers: α with the MASI
// distance (the headline) and the Jaccard distance, the mean Jaccard
// index, and percent agreement on the exact set.
func setSpecs() []metricSpec {
	return []metricSpec{
		alphaSpec(MASI),
		alphaSpec(Jaccard),
		plainSpec("mean_jaccard", false, MeanJaccard),
		plainSpec("percent_agreement", false, PercentAgreement),
	}
}

// Multi is the agreement on a multi-label question: values in Value.Set
// (an empty set is an answer), options the declared codes. It reports
// the set metrics (α with the MASI distance first) and, per declared
// option, α at the nominal level and the specific agreement on whether
// each annotator selected it.
func Multi(ctx context.Context, t Table, options []string, opt Options) (Result, error) {
	res, err := questionResult(ctx, t, SetRatings(t), setSpecs(), opt)
	if err != nil {
		return Result{}, err
	}
	for _, o := range declaredCodes(options) {
		r := OptionRatings(t, o)
		a, aerr := KrippendorffAlpha(r, Nominal)
		k, v := Nominal.Param()
		s, serr := SpecificAgreement(r, 1)
		res.Options = append(res.Options, Option{Code: o, Metrics: []Metric{
			MetricOf("krippendorff_alpha", map[string]any{k: v}, a, aerr),
			MetricOf("specific_agreement", map[string]any{}, s, serr),
		}})
	}
	return res, nil
}

// Evidence is the agreement on evidence answers (sets of sentences, in
// Value.Set): the set metrics, α with the MASI distance first.
func Evidence(ctx context.Context, t Table, opt Options) (Result, error) {
	return questionResult(ctx, t, SetRatings(t), setSpecs(), opt)
}

// Text is the agreement on a free-text question (Value.Text), nothing
// chance-corrected: percent agreement on the texts compared by
// NormalizeText (the headline), and their mean edit similarity.
func Text(ctx context.Context, t Table, opt Options) (Result, error) {
	params := map[string]any{"normalize": "trim_casefold"}
	return questionResult(ctx, t, TextRatings(t), []metricSpec{
		{name: "percent_agreement", params: params, stat: PercentAgreement},
		{name: "mean_edit_similarity", params: params, stat: MeanEditSimilarity},
	}, opt)
}

// declaredCodes is the declared codes without repeats, in order.
func declaredCodes(codes []string) []string {
	out := make([]string, 0, len(codes))
	for _, c := range codes {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
