package templates

import "github.com/annosheet/annosheet/internal/suggest"

// A value that is none of a question's options is most often one of them
// mistyped ("Irrelevent"): the message that refuses it names the options
// closest to it.

// SuggestLabel is "; did you mean "X"?" naming the options closest to
// value as the dropdown shows them (by label), each compared with its
// label and its code; "" when none is close (see suggest.Closest).
func (q *Question) SuggestLabel(value string) string {
	out := make([]suggest.Candidate, len(q.Options))
	for i, o := range q.Options {
		out[i] = suggest.Candidate{Show: o.Label, Spellings: []string{o.Label, o.Code}}
	}
	return suggest.Closest(value, out)
}

// SuggestCode is SuggestLabel for cells and records that hold codes: the
// options named by their codes, each compared with its code and its label.
func (q *Question) SuggestCode(value string) string {
	out := make([]suggest.Candidate, len(q.Options))
	for i, o := range q.Options {
		out[i] = suggest.Candidate{Show: o.Code, Spellings: []string{o.Code, o.Label}}
	}
	return suggest.Closest(value, out)
}
