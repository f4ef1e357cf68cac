package agreement

import (
	"math"
	"testing"
)

func TestSetStatistics(t *testing.T) {
	t.Parallel()
	// Pairs: {a}–{a,b} ½; {}–{} 1 (an empty selection is an answer);
	// {a}–{a} 1, {a}–{b} 0 twice. The unit with one answer is not
	// pairable.
	sets := SetRatings(setTable([]string{"A", "B", "C"},
		[][]string{{"a"}, {"b", "a"}, nil},
		[][]string{{}, {}, nil},
		[][]string{{"a"}, {"a"}, {"b"}},
		[][]string{{"c"}, nil, nil},
	))
	texts := TextRatings(Table{Coders: []string{"A", "B"}, Units: []Unit{
		{ID: "1", Values: []*Value{{Text: "The cat"}, {Text: " the CAT "}}},
		{ID: "2", Values: []*Value{{Text: "abc"}, {Text: "abd"}}},
	}})
	runStatCases(t, []statCase{
		{"mean Jaccard pools every pair", MeanJaccard, sets, (0.5 + 1 + 1 + 0 + 0) / 5, nil},
		{"exact-set agreement", PercentAgreement, sets, (0 + 1 + 1.0/3) / 3, nil},
		{"mean Jaccard of codes", MeanJaccard, smallChoice, 0, ErrNotSets},
		{"normalised texts agree", PercentAgreement, texts, 0.5, nil},
		{"mean edit similarity", MeanEditSimilarity, texts, (1 + 2.0/3) / 2, nil},
		{"mean edit similarity of sets", MeanEditSimilarity, sets, 0, ErrNotLabelled},
	})
}

func TestTextComparison(t *testing.T) {
	t.Parallel()
	same := [][2]string{
		{"  Yes\n", "yes"},
		{"Straße", "STRASSE"},
		{"ΣΊΣΥΦΟΣ", "σίσυφος"},
	}
	for _, p := range same {
		if NormalizeText(p[0]) != NormalizeText(p[1]) {
			t.Errorf("%q and %q differ: %q, %q", p[0], p[1], NormalizeText(p[0]), NormalizeText(p[1]))
		}
	}
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"", "abc", 0},
		{"kitten", "sitting", 1 - 3.0/7},
		{"héllo", "hello", 1 - 1.0/5},
		{"日本語", "日本", 1 - 1.0/3},
	}
	for _, tt := range tests {
		if got := EditSimilarity(tt.a, tt.b); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("EditSimilarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
