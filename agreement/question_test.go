package agreement

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func wantMetric(name string, params map[string]any, v any, note string) Metric {
	return Metric{Metric: name, Params: params, Value: v, Note: note}
}

func TestChoice(t *testing.T) {
	t.Parallel()
	// The table of small (kappa_test.go) and a unit nobody answered.
	table := codeTable([]string{"A", "B"},
		[]string{"a", "a"}, []string{"a", "b"}, []string{"b", "b"}, []string{"a", ""}, []string{"", ""})
	metrics := []Metric{
		wantMetric("krippendorff_alpha", map[string]any{"level": "nominal"}, 4.0/9, ""),
		wantMetric("percent_agreement", map[string]any{}, 2.0/3, ""),
		wantMetric("fleiss_kappa", map[string]any{"weights": "none"}, 13.0/45, ""),
		wantMetric("gwet_ac1", map[string]any{}, 19.0/51, ""),
		wantMetric("brennan_prediger", map[string]any{}, 1.0/3, ""),
		wantMetric("cohen_kappa", map[string]any{"weights": "none"}, 0.4, ""),
		wantMetric("scott_pi", map[string]any{}, 1.0/3, ""),
		wantMetric("bennett_s", map[string]any{}, 1.0/3, ""),
	}
	want := Result{
		Units:      4,
		Pairable:   6,
		Annotators: []string{"A", "B"},
		Metrics:    metrics,
		Pairs:      []Pair{{A: "A", B: "B", Metrics: metrics}},
		Options: []Option{
			{Code: "a", Metrics: []Metric{wantMetric("specific_agreement", map[string]any{}, 2.0/3, "")}},
			{Code: "b", Metrics: []Metric{wantMetric("specific_agreement", map[string]any{}, 2.0/3, "")}},
		},
		UnitsDetail: []UnitDetail{
			{Unit: unitID(0), Values: 2, Agree: true},
			{Unit: unitID(1), Values: 2, Agree: false},
			{Unit: unitID(2), Values: 2, Agree: true},
		},
	}
	got := must(Choice(bg, table, []string{"a", "b"}, Options{}))
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Choice (-want +got):\n%s", diff)
	}
}

// TestMeanOverPairs: with three annotators, a two-annotator metric is
// the mean over the pairs that have a value, and says so.
func TestMeanOverPairs(t *testing.T) {
	t.Parallel()
	three := []string{"A", "B", "C"}
	tests := []struct {
		name  string
		table Table
		want  Metric
	}{
		{
			// κ: A–B 1, A–C 0.4, B–C 0.4.
			name:  "every pair",
			table: codeTable(three, []string{"a", "a", "b"}, []string{"b", "b", "b"}, []string{"a", "a", "a"}),
			want:  wantMetric("cohen_kappa", map[string]any{"weights": "none"}, 0.6, "mean over the 3 annotator pairs"),
		},
		{
			// C rated one unit, which both others put in a: chance
			// agreement is 1 for A–C and B–C.
			name:  "one pair of three",
			table: codeTable(three, []string{"a", "a", "a"}, []string{"b", "b", ""}, []string{"a", "b", ""}),
			want:  wantMetric("cohen_kappa", map[string]any{"weights": "none"}, 0.4, "mean over 1 of the 3 annotator pairs; the others have no value: "+ErrChanceIsOne.Error()),
		},
		{
			// Every pair's κ is undefined, and the note says why: every
			// value is a, so chance agreement is 1.
			name:  "no pair",
			table: codeTable(three, []string{"a", "a", "a"}, []string{"a", "a", ""}),
			want:  wantMetric("cohen_kappa", map[string]any{"weights": "none"}, nil, "undefined for every annotator pair: "+ErrChanceIsOne.Error()),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := must(Choice(bg, tt.table, []string{"a", "b"}, Options{}))
			got, ok := findMetric(res, "cohen_kappa", map[string]any{"weights": "none"})
			if !ok {
				t.Fatal("no cohen_kappa")
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var pairs []string
			for _, p := range res.Pairs {
				pairs = append(pairs, p.A+"–"+p.B)
			}
			if want := []string{"A–B", "A–C", "B–C"}; !slices.Equal(pairs, want) {
				t.Errorf("pairs %v, want %v", pairs, want)
			}
		})
	}
}

// TestPairMean: the mean over pairs of a two-annotator metric, and its
// note, which says why the pairs without a value have none.
func TestPairMean(t *testing.T) {
	t.Parallel()
	value := func(v float64) Metric { return Metric{Value: v} }
	none := func(err error) Metric { return Metric{Note: err.Error()} }
	tests := []struct {
		name  string
		pairs []Metric
		want  Metric
	}{
		{"every pair", []Metric{value(0.5), value(1), value(0)},
			wantMetric("m", map[string]any{}, 0.5, "mean over the 3 annotator pairs")},
		{"some pairs", []Metric{value(0.5), none(ErrChanceIsOne), value(1)},
			wantMetric("m", map[string]any{}, 0.75, "mean over 2 of the 3 annotator pairs; the others have no value: "+ErrChanceIsOne.Error())},
		{"one reason", []Metric{none(ErrChanceIsOne), none(ErrChanceIsOne)},
			wantMetric("m", map[string]any{}, nil, "undefined for every annotator pair: "+ErrChanceIsOne.Error())},
		{"reasons, the most frequent first", []Metric{none(ErrNoPairable), none(ErrChanceIsOne), none(ErrChanceIsOne)},
			wantMetric("m", map[string]any{}, nil, "undefined for every annotator pair: "+ErrChanceIsOne.Error()+" (2 pairs); "+ErrNoPairable.Error()+" (1 pair)")},
		{"no pair", nil, wantMetric("m", map[string]any{}, nil, ErrNoPairable.Error())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var pm pairMean
			for _, m := range tt.pairs {
				pm.add(m)
			}
			if diff := cmp.Diff(tt.want, pm.metric("m", map[string]any{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// metricIDs names each metric of a list by its name and params.
func metricIDs(ms []Metric) []string {
	var out []string
	for _, m := range ms {
		id := m.Metric
		for _, k := range slices.Sorted(maps.Keys(m.Params)) {
			id += fmt.Sprintf(" %s=%v", k, m.Params[k])
		}
		out = append(out, id)
	}
	return out
}

// TestQuestionMetrics: each question type reports its metrics, the
// headline first, with explicit params, and the same values as the
// statistics themselves.
func TestQuestionMetrics(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	scale := randomTable(rng, 50, 3, 5, 0.1, levelValue)
	sets := randomTable(rng, 50, 3, 16, 0.1, subsetValue)
	texts := randomTable(rng, 50, 3, 4, 0.1, textValue)
	choice := randomTable(rng, 50, 3, 4, 0.1, letterValue)
	tests := []struct {
		name    string
		res     Result
		r       Ratings
		metrics []string
		options []string
		head    func(Ratings) (float64, error)
	}{
		{"choice", must(Choice(bg, choice, letters(4), Options{})), ChoiceRatings(choice, letters(4)), []string{
			"krippendorff_alpha level=nominal", "percent_agreement", "fleiss_kappa weights=none", "gwet_ac1",
			"brennan_prediger", "cohen_kappa weights=none", "scott_pi", "bennett_s",
		}, letters(4), alphaAt(Nominal)},
		{"scale", must(Scale(bg, scale, levels1to(5), Options{})), ScaleRatings(scale, levels1to(5)), []string{
			"krippendorff_alpha level=ordinal", "krippendorff_alpha level=interval", "krippendorff_alpha level=ratio",
			"percent_agreement", "cohen_kappa weights=linear", "cohen_kappa weights=quadratic",
			"gwet_ac2 weights=linear", "gwet_ac2 weights=quadratic", "fleiss_kappa weights=linear", "fleiss_kappa weights=quadratic",
		}, nil, alphaAt(Ordinal)},
		{"multi", must(Multi(bg, sets, []string{"a", "b", "c", "d", "e"}, Options{})), SetRatings(sets), []string{
			"krippendorff_alpha distance=masi", "krippendorff_alpha distance=jaccard", "mean_jaccard", "percent_agreement",
		}, []string{"a", "b", "c", "d", "e"}, alphaAt(MASI)},
		{"evidence", must(Evidence(bg, sets, Options{})), SetRatings(sets), []string{
			"krippendorff_alpha distance=masi", "krippendorff_alpha distance=jaccard", "mean_jaccard", "percent_agreement",
		}, nil, alphaAt(MASI)},
		{"text", must(Text(bg, texts, Options{})), TextRatings(texts), []string{
			"percent_agreement normalize=trim_casefold", "mean_edit_similarity normalize=trim_casefold",
		}, nil, PercentAgreement},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.metrics, metricIDs(tt.res.Metrics)); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
			for _, p := range tt.res.Pairs {
				if diff := cmp.Diff(tt.metrics, metricIDs(p.Metrics)); diff != "" {
					t.Errorf("pair %s–%s metrics (-want +got):\n%s", p.A, p.B, diff)
				}
			}
			var options []string
			for _, o := range tt.res.Options {
				options = append(options, o.Code)
			}
			if !slices.Equal(options, tt.options) {
				t.Errorf("options %v, want %v", options, tt.options)
			}
			want, err := tt.head(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.res.Metrics[0].Value; got != want {
				t.Errorf("headline %v, the statistic %v", got, want)
			}
			if len(tt.res.Pairs) != 3 {
				t.Errorf("%d pairs, want 3", len(tt.res.Pairs))
			}
		})
	}
}

// TestMultiOptions: per option, α and specific agreement on whether each
// annotator selected it; an option nobody selected has neither.
func TestMultiOptions(t *testing.T) {
	t.Parallel()
	table := setTable([]string{"A", "B"},
		[][]string{{"x"}, {"x", "y"}},
		[][]string{{}, {"y"}},
		[][]string{{"x"}, {"x"}},
	)
	// x: yes/yes, no/no, yes/yes: α 1, specific agreement 1.
	// y: no/yes, no/yes, no/no: n = 6 (4 no, 2 yes), observed Σ 2,
	// expected Σ 8: α = 1 − 5·2/8; specific agreement 0.
	want := []Option{
		{Code: "x", Metrics: []Metric{
			wantMetric("krippendorff_alpha", map[string]any{"level": "nominal"}, 1.0, ""),
			wantMetric("specific_agreement", map[string]any{}, 1.0, ""),
		}},
		{Code: "y", Metrics: []Metric{
			wantMetric("krippendorff_alpha", map[string]any{"level": "nominal"}, 1-5.0*2/8, ""),
			wantMetric("specific_agreement", map[string]any{}, 0.0, ""),
		}},
		{Code: "z", Metrics: []Metric{
			wantMetric("krippendorff_alpha", map[string]any{"level": "nominal"}, nil, ErrNoVariation.Error()),
			wantMetric("specific_agreement", map[string]any{}, nil, ErrNeverChosen.Error()),
		}},
	}
	got := must(Multi(bg, table, []string{"x", "y", "z"}, Options{})).Options
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

// TestUndefined: a statistic without a value has a nil value and a note
// saying why, never NaN or Inf, and the Result encodes as JSON.
func TestUndefined(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  Result
		note string
	}{
		{"no variation", must(Choice(bg, codeTable([]string{"A", "B"}, []string{"a", "a"}, []string{"a", "a"}), []string{"a", "b"}, Options{})), ErrNoVariation.Error()},
		{"one annotator", must(Scale(bg, numTable([]string{"A"}, []float64{1}, []float64{2}), levels1to(5), Options{})), ErrNoPairable.Error()},
		{"no unit", must(Evidence(bg, Table{}, Options{})), ErrNoPairable.Error()},
		{"ratio below zero", must(Scale(bg, numTable([]string{"A", "B"}, []float64{-2, -1}, []float64{0, 1}), nil, Options{})), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.note != "" {
				if m := tt.res.Metrics[0]; m.Value != nil || m.Note != tt.note {
					t.Errorf("headline %v (%q), want no value (%q)", m.Value, m.Note, tt.note)
				}
			}
			checkFinite(t, tt.res)
			if _, err := json.Marshal(tt.res); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkFinite checks that every metric of a Result has a finite value or
// none and a note.
func checkFinite(t *testing.T, res Result) {
	t.Helper()
	check := func(where string, ms []Metric) {
		for _, m := range ms {
			switch v := m.Value.(type) {
			case nil:
				if m.Note == "" {
					t.Errorf("%s: %s %v has no value and no note", where, m.Metric, m.Params)
				}
			case float64:
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: %s %v = %v", where, m.Metric, m.Params, v)
				}
			default:
				t.Errorf("%s: %s %v is a %T", where, m.Metric, m.Params, v)
			}
		}
	}
	check("question", res.Metrics)
	for _, p := range res.Pairs {
		check("pair "+p.A+"–"+p.B, p.Metrics)
	}
	for _, o := range res.Options {
		check("option "+o.Code, o.Metrics)
	}
	if strings.Contains(fmt.Sprint(res), "NaN") {
		t.Errorf("NaN in %v", res)
	}
}
