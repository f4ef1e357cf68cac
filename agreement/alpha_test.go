package agreement

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestKrippendorffAlpha(t *testing.T) {
	t.Parallel()
	two := []string{"A", "B"}
	runStatCases(t, []statCase{
		{
			// Krippendorff (2011), section A: binary data, two observers,
			// n = 20, n_0 = 14, n_1 = 6, four units in disagreement:
			// α = 1 − 19·4/(14·6) = 2/21.
			name: "Krippendorff 2011 binary example",
			r: ChoiceRatings(codeTable(two,
				[]string{"0", "1"}, []string{"1", "1"}, []string{"0", "1"}, []string{"0", "0"}, []string{"0", "0"},
				[]string{"0", "1"}, []string{"0", "0"}, []string{"0", "0"}, []string{"1", "0"}, []string{"0", "0"},
			), []string{"0", "1"}),
			stat: alphaAt(Nominal),
			want: 2.0 / 21,
		},
		{
			name: "identical annotators",
			r:    ScaleRatings(numTable(two, []float64{1, 1}, []float64{2, 2}, []float64{5, 5}, []float64{3, missingNum}), levels1to(5)),
			stat: alphaAt(Ordinal),
			want: 1,
		},
		{
			// Units (1,2), (3,3), (3,3): marginals n_1 = 1, n_2 = 1,
			// n_3 = 4. Ordinal δ²: (1,2) = (2 − 1)² = 1, (1,3) =
			// (6 − 2.5)² = 12.25, (2,3) = (5 − 2.5)² = 6.25. Observed Σ
			// = 1, expected Σ = 1 + 4·12.25 + 4·6.25 = 75: α = 1 − 5/75.
			// (At the interval level it would be 1 − 5/21.)
			name: "ordinal from the marginals",
			r:    ScaleRatings(numTable(two, []float64{1, 2}, []float64{3, 3}, []float64{3, 3}), levels1to(3)),
			stat: alphaAt(Ordinal),
			want: 14.0 / 15,
		},
		{
			name:    "no variation",
			r:       ChoiceRatings(codeTable(two, []string{"a", "a"}, []string{"a", "a"}), []string{"a", "b"}),
			stat:    alphaAt(Nominal),
			wantErr: ErrNoVariation,
		},
		{
			name:    "no pairable unit",
			r:       ChoiceRatings(codeTable(two, []string{"a", ""}, []string{"", "b"}), []string{"a", "b"}),
			stat:    alphaAt(Nominal),
			wantErr: ErrNoPairable,
		},
		{
			name:    "ratio of a negative value",
			r:       ScaleRatings(numTable(two, []float64{-1, 1}, []float64{1, 1}), nil),
			stat:    alphaAt(Ratio),
			wantErr: ErrNegative,
		},
		{
			name:    "interval without numbers",
			r:       ChoiceRatings(codeTable(two, []string{"a", "b"}, []string{"a", "a"}), nil),
			stat:    alphaAt(Interval),
			wantErr: ErrNotNumeric,
		},
		{
			name:    "MASI without sets",
			r:       ChoiceRatings(codeTable(two, []string{"a", "b"}, []string{"a", "a"}), nil),
			stat:    alphaAt(MASI),
			wantErr: ErrNotSets,
		},
		{
			// Two units: {a} against {a,b} (MASI distance 1 − ½·⅔ = ⅔), and
			// {} against {} (0). n = 4; observed Σ = ⅔; expected Σ over
			// the pairs of distinct sets: {}–{a} 2·1·1, {}–{a,b} 2·1·1,
			// {a}–{a,b} 1·1·⅔ = 4⅔; α = 1 − 3·⅔/(14/3) = 1 − 3/7.
			name: "MASI",
			r:    SetRatings(setTable(two, [][]string{{"a"}, {"a", "b"}}, [][]string{{}, {}})),
			stat: alphaAt(MASI),
			want: 4.0 / 7,
		},
	})
}

// alphaAt is KrippendorffAlpha with the difference d.
func alphaAt(d Difference) func(Ratings) (float64, error) {
	return func(r Ratings) (float64, error) { return KrippendorffAlpha(r, d) }
}

// naiveAlpha is α from its definition (Krippendorff 2011, section E): the
// mean difference within units over every ordered pair of values, against
// the mean difference over every ordered pair of pairable values of the
// whole data, n² of them.
func naiveAlpha(t Table, delta func(a, b *Value, marg map[string]int) float64, key func(*Value) string) float64 {
	var units [][]*Value
	var pairable []*Value
	for _, u := range t.Units {
		var vs []*Value
		for _, v := range u.Values {
			if v != nil {
				vs = append(vs, v)
			}
		}
		if len(vs) >= 2 {
			units = append(units, vs)
			pairable = append(pairable, vs...)
		}
	}
	marg := map[string]int{}
	for _, v := range pairable {
		marg[key(v)]++
	}
	var withinSum float64
	for _, vs := range units {
		for i := range vs {
			for j := range vs {
				if i != j {
					withinSum += delta(vs[i], vs[j], marg) / float64(len(vs)-1)
				}
			}
		}
	}
	n := float64(len(pairable))
	var all float64
	for i := range pairable {
		for j := range pairable {
			if i != j {
				all += delta(pairable[i], pairable[j], marg)
			}
		}
	}
	do := withinSum / n
	de := all / (n * (n - 1))
	return 1 - do/de
}

// TestAlphaMatchesDefinition compares α from the coincidences of distinct
// values with α from every pair of values, on random data with missing
// values, at every level and distance.
func TestAlphaMatchesDefinition(t *testing.T) {
	t.Parallel()
	num := func(v *Value) string { return string(rune('0' + int(v.Num))) }
	tests := []struct {
		name  string
		table Table
		r     func(Table) Ratings
		d     Difference
		delta func(a, b *Value, marg map[string]int) float64
		key   func(*Value) string
	}{
		{"nominal", randomTable(rand.New(rand.NewPCG(1, 2)), 60, 4, 5, 0.2, letterValue),
			func(t Table) Ratings { return ChoiceRatings(t, letters(5)) }, Nominal,
			func(a, b *Value, _ map[string]int) float64 {
				if a.Code == b.Code {
					return 0
				}
				return 1
			}, func(v *Value) string { return v.Code }},
		{"ordinal", randomTable(rand.New(rand.NewPCG(3, 4)), 60, 3, 7, 0.2, levelValue),
			func(t Table) Ratings { return ScaleRatings(t, levels1to(7)) }, Ordinal,
			func(a, b *Value, marg map[string]int) float64 {
				lo, hi := min(a.Num, b.Num), max(a.Num, b.Num)
				var s float64
				for g := lo; g <= hi; g++ {
					s += float64(marg[num(&Value{Num: g})])
				}
				s -= float64(marg[num(a)]+marg[num(b)]) / 2
				return s * s
			}, num},
		{"interval", randomTable(rand.New(rand.NewPCG(5, 6)), 60, 3, 7, 0.2, levelValue),
			func(t Table) Ratings { return ScaleRatings(t, levels1to(7)) }, Interval,
			func(a, b *Value, _ map[string]int) float64 { return (a.Num - b.Num) * (a.Num - b.Num) }, num},
		{"ratio", randomTable(rand.New(rand.NewPCG(7, 8)), 60, 5, 7, 0.3, levelValue),
			func(t Table) Ratings { return ScaleRatings(t, levels1to(7)) }, Ratio,
			func(a, b *Value, _ map[string]int) float64 {
				x := (a.Num - b.Num) / (a.Num + b.Num)
				return x * x
			}, num},
		{"masi", randomTable(rand.New(rand.NewPCG(9, 10)), 60, 3, 16, 0.2, subsetValue),
			SetRatings, MASI,
			func(a, b *Value, _ map[string]int) float64 { return MASIDistance(a.Set, b.Set) },
			func(v *Value) string { return setKey(v.Set) }},
		{"masi, sets mostly disjoint", randomTable(rand.New(rand.NewPCG(13, 14)), 60, 3, 27_000, 0.2, sentencesValue),
			SetRatings, MASI,
			func(a, b *Value, _ map[string]int) float64 { return MASIDistance(a.Set, b.Set) },
			func(v *Value) string { return setKey(v.Set) }},
		{"jaccard", randomTable(rand.New(rand.NewPCG(11, 12)), 60, 3, 16, 0.2, subsetValue),
			SetRatings, Jaccard,
			func(a, b *Value, _ map[string]int) float64 { return JaccardDistance(a.Set, b.Set) },
			func(v *Value) string { return setKey(v.Set) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := KrippendorffAlpha(tt.r(tt.table), tt.d)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveAlpha(tt.table, tt.delta, tt.key)
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("α = %.15g, from every pair of values %.15g", got, want)
			}
		})
	}
}

func TestSetDistances(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		a, b          []string
		masi, jaccard float64
	}{
		{"equal", []string{"a", "b"}, []string{"a", "b"}, 0, 0},
		{"subset", []string{"a"}, []string{"a", "b"}, 1 - 0.5*2/3, 0.5},
		{"overlap", []string{"1", "2", "3", "4"}, []string{"3", "4", "5"}, 1 - 0.4/3, 0.6},
		{"disjoint", []string{"a"}, []string{"b"}, 1, 1},
		{"both empty", []string{}, nil, 0, 0},
		{"one empty", []string{}, []string{"a"}, 1, 1},
		{"unsorted, repeated", []string{"b", "a", "b"}, []string{"a", "b"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, ab := range [][2][]string{{tt.a, tt.b}, {tt.b, tt.a}} {
				if got := MASIDistance(ab[0], ab[1]); math.Abs(got-tt.masi) > 1e-15 {
					t.Errorf("MASIDistance(%q, %q) = %v, want %v", ab[0], ab[1], got, tt.masi)
				}
				if got := JaccardDistance(ab[0], ab[1]); math.Abs(got-tt.jaccard) > 1e-15 {
					t.Errorf("JaccardDistance(%q, %q) = %v, want %v", ab[0], ab[1], got, tt.jaccard)
				}
			}
		})
	}
}
