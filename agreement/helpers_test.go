package agreement

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// unitID names the i-th unit of a test table; the names sort as the
// units do.
func unitID(i int) string { return fmt.Sprintf("u%06d", i) }

// codeTable is a table of codes: one row per unit, one code per coder, ""
// for no value.
func codeTable(coders []string, rows ...[]string) Table {
	t := Table{Coders: coders}
	for i, row := range rows {
		u := Unit{ID: unitID(i), Values: make([]*Value, len(coders))}
		for c, code := range row {
			if code != "" {
				u.Values[c] = &Value{Code: code}
			}
		}
		t.Units = append(t.Units, u)
	}
	return t
}

// numTable is a table of numbers, NaN for no value.
func numTable(coders []string, rows ...[]float64) Table {
	t := Table{Coders: coders}
	for i, row := range rows {
		u := Unit{ID: unitID(i), Values: make([]*Value, len(coders))}
		for c, x := range row {
			if !math.IsNaN(x) {
				u.Values[c] = &Value{Num: x}
			}
		}
		t.Units = append(t.Units, u)
	}
	return t
}

// setTable is a table of sets, nil for no value ([]string{} is the empty
// answer).
func setTable(coders []string, rows ...[][]string) Table {
	t := Table{Coders: coders}
	for i, row := range rows {
		u := Unit{ID: unitID(i), Values: make([]*Value, len(coders))}
		for c, s := range row {
			if s != nil {
				u.Values[c] = &Value{Set: s}
			}
		}
		t.Units = append(t.Units, u)
	}
	return t
}

var missingNum = math.NaN()

// coderNames are n sorted coder IDs.
func coderNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%02d", i)
	}
	return out
}

// randomTable is a table of units × coders whose values agree more
// often than chance: each unit has a true value among values, which each
// coder gives with probability 0.6 and otherwise a random one; a cell is
// missing with probability missing. value turns an index among values
// into a Value.
func randomTable(rng *rand.Rand, units, coders, values int, missing float64, value func(rng *rand.Rand, i int) *Value) Table {
	t := Table{Coders: coderNames(coders)}
	for i := range units {
		truth := rng.IntN(values)
		u := Unit{ID: unitID(i), Values: make([]*Value, coders)}
		for c := range coders {
			if rng.Float64() < missing {
				continue
			}
			v := truth
			if rng.Float64() > 0.6 {
				v = rng.IntN(values)
			}
			u.Values[c] = value(rng, v)
		}
		t.Units = append(t.Units, u)
	}
	return t
}

// levelValue is the i-th level of a 1..q scale, as a Value.
func levelValue(_ *rand.Rand, i int) *Value { return &Value{Num: float64(i + 1)} }

// letterValue is the i-th code, as a Value.
func letterValue(_ *rand.Rand, i int) *Value { return &Value{Code: string(rune('a' + i))} }

// subsetValue is the i-th subset of the options a, b, c, d, as a Value.
func subsetValue(_ *rand.Rand, i int) *Value {
	s := []string{}
	for b, o := range []string{"a", "b", "c", "d"} {
		if i&(1<<b) != 0 {
			s = append(s, o)
		}
	}
	return &Value{Set: s}
}

// sentencesValue is the i-th set of one to three sentence numbers among
// 1 to 30 (4,525 sets), as evidence answers cite them.
func sentencesValue(_ *rand.Rand, i int) *Value {
	a, b, c := i%30, (i/30)%30, (i/900)%30
	s := []string{fmt.Sprint(a + 1)}
	if i%3 > 0 {
		s = append(s, fmt.Sprint(b+1))
	}
	if i%3 > 1 {
		s = append(s, fmt.Sprint(c+1))
	}
	slices.Sort(s)
	return &Value{Set: slices.Compact(s)}
}

// textValue is one of a few texts, each written in two ways that compare
// equal.
func textValue(rng *rand.Rand, i int) *Value {
	texts := []string{"The cat sat", "the cat sat ", "A dog ran", "a Dog ran", "Straße", "STRASSE", " x", "X"}
	return &Value{Text: texts[(2*i+rng.IntN(2))%len(texts)]}
}

// levels1to is 1, 2, …, q.
func levels1to(q int) []float64 {
	out := make([]float64, q)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

// letters is a, b, … : the first q codes letterValue gives.
func letters(q int) []string {
	out := make([]string, q)
	for i := range out {
		out[i] = string(rune('a' + i))
	}
	return slices.Clip(out)
}

// statCase is a statistic on ratings and the value, or the error, it
// must give.
type statCase struct {
	name    string
	stat    func(Ratings) (float64, error)
	r       Ratings
	want    float64
	wantErr error
}

// runStatCases runs each case as a parallel subtest; values must match
// within 1e-12.
func runStatCases(t *testing.T, tests []statCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.stat(tt.r)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err == nil && math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("= %.15g, want %.15g", got, tt.want)
			}
		})
	}
}

// findMetric is the value a Result reports for a metric and params, if
// it reports it.
func findMetric(res Result, name string, params map[string]any) (Metric, bool) {
	for _, m := range res.Metrics {
		if m.Metric == name && fmt.Sprint(m.Params) == fmt.Sprint(params) {
			return m, true
		}
	}
	return Metric{}, false
}

// bg is the context of computations that nothing stops.
var bg = context.Background()

// must is the Result of a computation that nothing stops, which has no
// error.
func must(res Result, err error) Result {
	if err != nil {
		panic(err)
	}
	return res
}
