package agreement

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// questionKind is a question type for the property tests: how to make its random
// values and how to compute its Result.
type questionKind struct {
	name   string
	value  func(*rand.Rand, int) *Value
	values int
	run    func(Table) Result
}

var questionKinds = []questionKind{
	{"choice", letterValue, 4, func(t Table) Result { return must(Choice(bg, t, letters(4), Options{})) }},
	{"scale", levelValue, 5, func(t Table) Result { return must(Scale(bg, t, levels1to(5), Options{})) }},
	{"multi", subsetValue, 16, func(t Table) Result { return must(Multi(bg, t, letters(4), Options{})) }},
	{"evidence", subsetValue, 16, func(t Table) Result { return must(Evidence(bg, t, Options{})) }},
	{"text", textValue, 4, func(t Table) Result { return must(Text(bg, t, Options{})) }},
}

// eachKind runs f as a parallel subtest for every question type.
func eachKind(t *testing.T, f func(t *testing.T, k questionKind)) {
	t.Helper()
	for _, k := range questionKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			f(t, k)
		})
	}
}

// unanimousTable is a table whose annotators all give each unit the same
// value, when they give one.
func unanimousTable(rng *rand.Rand, units, coders, values int, missing float64, value func(*rand.Rand, int) *Value) Table {
	t := Table{Coders: coderNames(coders)}
	for i := range units {
		truth := rng.IntN(values)
		u := Unit{ID: unitID(i), Values: make([]*Value, coders)}
		for c := range coders {
			if rng.Float64() >= missing {
				u.Values[c] = value(rng, truth)
			}
		}
		t.Units = append(t.Units, u)
	}
	return t
}

// allMetrics lists every metric of a Result, where it stands.
func allMetrics(res Result) map[string][]Metric {
	out := map[string][]Metric{"question": res.Metrics}
	for _, p := range res.Pairs {
		out["pair "+p.A+"–"+p.B] = p.Metrics
	}
	for _, o := range res.Options {
		out["option "+o.Code] = o.Metrics
	}
	return out
}

// TestIdenticalAnnotators: when every annotator gives every unit the same
// value, every metric that has a value is 1 (α, κ, AC1, …), and the
// headline has one.
func TestIdenticalAnnotators(t *testing.T) {
	t.Parallel()
	for _, k := range questionKinds {
		for _, coders := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/%d annotators", k.name, coders), func(t *testing.T) {
				t.Parallel()
				table := unanimousTable(rand.New(rand.NewPCG(41, uint64(coders))), 40, coders, k.values, 0.2, k.value)
				res := k.run(table)
				if _, ok := res.Metrics[0].Value.(float64); !ok {
					t.Errorf("%d annotators: headline %v (%s)", coders, res.Metrics[0].Value, res.Metrics[0].Note)
				}
				for where, ms := range allMetrics(res) {
					for _, m := range ms {
						if v, ok := m.Value.(float64); ok && v != 1 {
							t.Errorf("%d annotators, %s: %s %v = %v, want 1", coders, where, m.Metric, m.Params, v)
						}
					}
				}
				for _, d := range res.UnitsDetail {
					if !d.Agree {
						t.Errorf("unit %s: annotators disagree", d.Unit)
					}
				}
			})
		}
	}
}

// renamed is t with coder i renamed to names[i], columns in the new
// names' sorted order.
func renamed(t Table, names []string) Table {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	out := Table{}
	for _, i := range order {
		out.Coders = append(out.Coders, names[i])
	}
	for _, u := range t.Units {
		nu := Unit{ID: u.ID}
		for _, i := range order {
			nu.Values = append(nu.Values, u.Values[i])
		}
		out.Units = append(out.Units, nu)
	}
	return out
}

// TestRenamingAnnotators: renaming the annotators, which reorders the
// table's columns, changes no value, not even in the last bit.
func TestRenamingAnnotators(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k questionKind) {
		table := randomTable(rand.New(rand.NewPCG(43, 44)), 80, 4, k.values, 0.2, k.value)
		names := []string{"zoe", "yan", "xia", "wil"}
		before, after := k.run(table), k.run(renamed(table, names))
		if diff := cmp.Diff(before.Metrics, after.Metrics); diff != "" {
			t.Errorf("metrics (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(before.Options, after.Options); diff != "" {
			t.Errorf("options (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(before.UnitsDetail, after.UnitsDetail); diff != "" {
			t.Errorf("units (-before +after):\n%s", diff)
		}
		// The pair of coders i and j is the pair of their new names.
		rename := map[string]string{}
		for i, c := range table.Coders {
			rename[c] = names[i]
		}
		pairs := map[[2]string][]Metric{}
		for _, p := range after.Pairs {
			pairs[[2]string{p.A, p.B}] = p.Metrics
		}
		for _, p := range before.Pairs {
			a, b := rename[p.A], rename[p.B]
			if b < a {
				a, b = b, a
			}
			if diff := cmp.Diff(p.Metrics, pairs[[2]string{a, b}]); diff != "" {
				t.Errorf("pair %s–%s, renamed %s–%s (-before +after):\n%s", p.A, p.B, a, b, diff)
			}
		}
	})
}

// TestUnitOrder: a table whose units came in another order, once sorted
// by ID as a Table's are, gives the same bytes.
func TestUnitOrder(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k questionKind) {
		rng := rand.New(rand.NewPCG(45, 46))
		table := randomTable(rng, 80, 3, k.values, 0.2, k.value)
		shuffled := Table{Coders: table.Coders, Units: slices.Clone(table.Units)}
		rng.Shuffle(len(shuffled.Units), func(i, j int) {
			shuffled.Units[i], shuffled.Units[j] = shuffled.Units[j], shuffled.Units[i]
		})
		slices.SortFunc(shuffled.Units, func(a, b Unit) int { return strings.Compare(a.ID, b.ID) })
		if a, b := jsonOf(t, k.run(table)), jsonOf(t, k.run(shuffled)); a != b {
			t.Errorf("another unit order gives other bytes:\n%s\n%s", a, b)
		}
	})
}

func jsonOf(t *testing.T, res Result) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUnusedOption: declaring an option nobody used changes neither α nor
// κ (Gwet's AC1 and Brennan and Prediger's coefficient, whose chance term
// counts the declared categories, do change).
func TestUnusedOption(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(47, 48))
	choice := randomTable(rng, 80, 3, 4, 0.2, letterValue)
	scale := randomTable(rng, 80, 3, 5, 0.2, levelValue)
	sets := randomTable(rng, 80, 3, 16, 0.2, subsetValue)
	tests := []struct {
		name          string
		before, after Result
		same          []string
	}{
		{"choice", must(Choice(bg, choice, letters(4), Options{})), must(Choice(bg, choice, []string{"a", "b", "b2", "c", "d", "zz"}, Options{})),
			[]string{"krippendorff_alpha", "percent_agreement", "fleiss_kappa", "cohen_kappa", "scott_pi"}},
		{"scale", must(Scale(bg, scale, levels1to(5), Options{})), must(Scale(bg, scale, []float64{0, 1, 2, 3, 4, 5, 6}, Options{})),
			[]string{"krippendorff_alpha", "percent_agreement"}},
		{"multi", must(Multi(bg, sets, letters(4), Options{})), must(Multi(bg, sets, []string{"a", "b", "c", "d", "zz"}, Options{})),
			[]string{"krippendorff_alpha", "mean_jaccard", "percent_agreement"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for where, before := range allMetrics(tt.before) {
				after := allMetrics(tt.after)[where]
				for i, m := range before {
					if !slices.Contains(tt.same, m.Metric) {
						continue
					}
					if diff := cmp.Diff(m, after[i]); diff != "" {
						t.Errorf("%s (-before +after):\n%s", where, diff)
					}
				}
			}
		})
	}
}

// TestPairSymmetry: a pair's statistics are the same, bit for bit,
// whichever annotator comes first.
func TestPairSymmetry(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(49, 50))
	choice := ChoiceRatings(randomTable(rng, 60, 2, 4, 0.2, letterValue), letters(4))
	scale := ScaleRatings(randomTable(rng, 60, 2, 5, 0.2, levelValue), levels1to(5))
	sets := SetRatings(randomTable(rng, 60, 2, 16, 0.2, subsetValue))
	texts := TextRatings(randomTable(rng, 60, 2, 4, 0.2, textValue))
	weighted := func(f func(Ratings, Weighting) (float64, error), w Weighting) func(Ratings) (float64, error) {
		return func(r Ratings) (float64, error) { return f(r, w) }
	}
	specific := func(r Ratings) (float64, error) { return SpecificAgreement(r, 1) }
	tests := []struct {
		name  string
		r     Ratings
		stats []func(Ratings) (float64, error)
	}{
		{"choice", choice, []func(Ratings) (float64, error){
			alphaAt(Nominal), PercentAgreement, weighted(CohenKappa, Unweighted), ScottPi, BennettS,
			weighted(FleissKappa, Unweighted), GwetAC1, BrennanPrediger, specific,
		}},
		{"scale", scale, []func(Ratings) (float64, error){
			alphaAt(Ordinal), alphaAt(Interval), alphaAt(Ratio), weighted(CohenKappa, Linear), weighted(CohenKappa, Quadratic),
			weighted(GwetAC2, Linear), weighted(GwetAC2, Quadratic), weighted(FleissKappa, Linear), weighted(FleissKappa, Quadratic),
		}},
		{"sets", sets, []func(Ratings) (float64, error){alphaAt(MASI), alphaAt(Jaccard), MeanJaccard, PercentAgreement}},
		{"text", texts, []func(Ratings) (float64, error){PercentAgreement, MeanEditSimilarity}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i, f := range tt.stats {
				ab, err1 := f(tt.r.Columns(0, 1))
				ba, err2 := f(tt.r.Columns(1, 0))
				if err1 != nil || err2 != nil || ab != ba {
					t.Errorf("statistic %d: A–B %v (%v), B–A %v (%v)", i, ab, err1, ba, err2)
				}
			}
		})
	}
}

// TestSameBytes: two runs on the same data, and on a copy of it, give the
// same JSON, byte for byte.
func TestSameBytes(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k questionKind) {
		table := randomTable(rand.New(rand.NewPCG(51, 52)), 200, 5, k.values, 0.3, k.value)
		again := randomTable(rand.New(rand.NewPCG(51, 52)), 200, 5, k.values, 0.3, k.value)
		first := jsonOf(t, k.run(table))
		if second := jsonOf(t, k.run(table)); second != first {
			t.Errorf("second run differs:\n%s\n%s", first, second)
		}
		if copied := jsonOf(t, k.run(again)); copied != first {
			t.Errorf("a copy of the data differs:\n%s\n%s", first, copied)
		}
	})
}

// TestSparseData: on small, sparse data (a single annotator, units with
// one value, nothing at all) every metric has a finite value or a note.
func TestSparseData(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k questionKind) {
		rng := rand.New(rand.NewPCG(53, 54))
		for range 200 {
			units, coders := rng.IntN(5), 1+rng.IntN(4)
			table := randomTable(rng, units, coders, 1+rng.IntN(k.values), rng.Float64(), k.value)
			res := k.run(table)
			checkFinite(t, res)
			if len(res.Metrics) == 0 || len(res.UnitsDetail) > len(table.Units) {
				t.Errorf("%d units × %d annotators: %+v", units, coders, res)
			}
		}
	})
}

// sparse is t with every unit in the sparse form: the form a table of
// many annotators takes.
func sparse(t Table) Table {
	out := Table{Coders: t.Coders}
	for _, u := range t.Units {
		nu := Unit{ID: u.ID, Coders: []int{}}
		for c, v := range u.All() {
			nu.Coders, nu.Values = append(nu.Coders, c), append(nu.Values, v)
		}
		out.Units = append(out.Units, nu)
	}
	return out
}

// TestSparseRows: a table whose units list only the annotators who
// answered gives the very Result of the same table dense, and the same
// interval.
func TestSparseRows(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k questionKind) {
		table := randomTable(rand.New(rand.NewPCG(47, 48)), 80, 5, k.values, 0.4, k.value)
		if diff := cmp.Diff(k.run(table), k.run(sparse(table))); diff != "" {
			t.Errorf("(-dense +sparse):\n%s", diff)
		}
		for c := range table.Coders {
			for _, u := range table.Units {
				if got, want := sparse(Table{Units: []Unit{u}}).Units[0].Value(c), u.Value(c); got != want {
					t.Fatalf("unit %s, coder %d: sparse Value %v, dense %v", u.ID, c, got, want)
				}
			}
		}
	})
}
