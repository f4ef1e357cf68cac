package agreement

import (
	"strings"

	"golang.org/x/text/cases"

	"github.com/annosheet/annosheet/internal/editdistance"
)

// NormalizeText is how free-text answers are compared: without the white
// space around them, and case-folded (Unicode full case folding, so
// "Straße" and "STRASSE" are the same answer).
func NormalizeText(s string) string {
	return cases.Fold().String(strings.TrimSpace(s))
}

// TextRatings codes the Text of every value after NormalizeText: each
// distinct normalised text is a category, in sorted order.
func TextRatings(t Table) Ratings {
	r, cats := codeCells(t, nil, func(v *Value) (string, bool) { return NormalizeText(v.Text), true }, strings.Compare)
	r.Categories, r.Labels = len(cats), cats
	return r
}

// EditSimilarity is 1 − Levenshtein(a, b) / max(len a, len b), lengths and
// edits counted in code points. Two empty texts are equal: 1.
func EditSimilarity(a, b string) float64 {
	return editSimilarity([]rune(a), []rune(b))
}

func editSimilarity(a, b []rune) float64 {
	longest := max(len(a), len(b))
	if longest == 0 {
		return 1
	}
	return 1 - float64(editdistance.Levenshtein(a, b))/float64(longest)
}

// MeanEditSimilarity is the mean EditSimilarity over every pair of
// answers within a unit, all units' pairs pooled, between the categories'
// labels (for TextRatings, the normalised texts).
func MeanEditSimilarity(r Ratings) (float64, error) {
	if len(r.Labels) != r.Categories {
		return 0, ErrNotLabelled
	}
	texts := make([][]rune, len(r.Labels))
	for i, l := range r.Labels {
		texts[i] = []rune(l)
	}
	return meanPairSimilarity(r, func(c, k int) float64 { return editSimilarity(texts[c], texts[k]) })
}
