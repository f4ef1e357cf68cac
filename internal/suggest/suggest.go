// Package suggest finds, for a value that is none of a list of words, the
// words it is most likely a slip for ("Irrelevent" for "Irrelevant"), so
// that the message refusing it can name them:
//
//	suggest.Words("Irrelevent", []string{"Irrelevant", "Redundant"}) // `; did you mean "Irrelevant"?`
package suggest

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/annosheet/annosheet/internal/editdistance"
)

// Fold normalises text for lenient matching: NFC, trimmed, inner white
// space collapsed, case folded.
func Fold(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(norm.NFC.String(s)), " "))
}

// A Candidate is one word as a suggestion shows it (Show), and the
// spellings of it a typed value is compared with (an option's label and
// its code, say).
type Candidate struct {
	Show      string
	Spellings []string
}

// Closest is "; did you mean "X"?" naming the candidates closest to
// value, or "" when none is close. Values are compared as Fold gives
// them, by Levenshtein distance over code points; a candidate is close
// when at most a third of the longer text's characters must change, and
// it has the same digits as the value ("Model 3" is not a slip for
// "Model 2"). Candidates equally close are all named, in their order.
func Closest(value string, cands []Candidate) string {
	v := []rune(Fold(value))
	if len(v) == 0 {
		return ""
	}
	vd := digits(string(v))
	best := -1
	var names []string
	for _, c := range cands {
		d := -1
		for _, s := range c.Spellings {
			f := []rune(Fold(s))
			if len(f) == 0 || digits(string(f)) != vd {
				continue
			}
			dd := editdistance.Levenshtein(v, f)
			if dd == 0 || 3*dd > max(len(v), len(f)) {
				continue
			}
			if d < 0 || dd < d {
				d = dd
			}
		}
		show := strconv.Quote(c.Show)
		switch {
		case d < 0:
		case best < 0 || d < best:
			best, names = d, []string{show}
		case d == best && !slices.Contains(names, show):
			names = append(names, show)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(names, " or ") + "?"
}

// Words is Closest for a plain list of words, each spelled one way.
func Words(value string, words []string) string {
	cands := make([]Candidate, len(words))
	for i, w := range words {
		cands[i] = Candidate{Show: w, Spellings: []string{w}}
	}
	return Closest(value, cands)
}

// digits is the digits of s, in order.
func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}
