package mapping

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/annosheet/annosheet/internal/editdistance"
	"github.com/annosheet/annosheet/templates"
)

// A value that is none of a question's options is most often one of them
// mistyped ("Irrelevent"): the message that refuses it names the options
// closest to it.

// candidate is one option as a suggestion shows it (show), and the
// spellings of it a typed value is compared with.
type candidate struct {
	show      string
	spellings []string
}

// labelCandidates are a question's options as the dropdown shows them:
// each by its label, compared with its label and its code.
func labelCandidates(q *templates.Question) []candidate {
	out := make([]candidate, len(q.Options))
	for i, o := range q.Options {
		out[i] = candidate{show: o.Label, spellings: []string{o.Label, o.Code}}
	}
	return out
}

// codeCandidates are a question's options by their codes, for cells and
// records that hold codes: each compared with its code and its label.
func codeCandidates(q *templates.Question) []candidate {
	out := make([]candidate, len(q.Options))
	for i, o := range q.Options {
		out[i] = candidate{show: o.Code, spellings: []string{o.Code, o.Label}}
	}
	return out
}

// didYouMean is "; did you mean "X"?" naming the candidates closest to
// value, or "" when none is close. Values are compared as fold compares
// them (without case or surrounding and repeated spaces), by Levenshtein
// distance over code points; a candidate is close when at most a third of
// the longer text's characters must change, and it has the same digits as
// the value ("Model 3" is not a slip for "Model 2"). Candidates equally
// close are all named, in their order.
func didYouMean(value string, cands []candidate) string {
	v := []rune(fold(value))
	if len(v) == 0 {
		return ""
	}
	vd := digits(string(v))
	best := -1
	var names []string
	for _, c := range cands {
		d := -1
		for _, s := range c.spellings {
			f := []rune(fold(s))
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
		switch {
		case d < 0:
		case best < 0 || d < best:
			best, names = d, []string{strconv.Quote(c.show)}
		case d == best && !slices.Contains(names, strconv.Quote(c.show)):
			names = append(names, strconv.Quote(c.show))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(names, " or ") + "?"
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

// DidYouMean is didYouMean for values checked against a list of words
// other than a question's options (the adjudication's decisions): "; did
// you mean "X"?", or "".
func DidYouMean(value string, words []string) string {
	cands := make([]candidate, len(words))
	for i, w := range words {
		cands[i] = candidate{show: w, spellings: []string{w}}
	}
	return didYouMean(value, cands)
}
