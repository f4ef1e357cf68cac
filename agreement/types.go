package agreement

import (
	"iter"
	"slices"
)

// Value is one annotator's answer to one question on one unit. Which
// field holds it depends on the question: Code for choice and bool
// questions, Num for scales, Set for multi-label and evidence answers
// (sorted, without repeats; empty is an answer), Text for text.
type Value struct {
	Code string
	Num  float64
	Set  []string
	Text string
}

// Unit is one unit's row of a Table, in one of two forms. Dense, when
// Coders is nil: Values[i] is the answer of the table's Coders[i], nil
// when that annotator gave none. Sparse: Values[k] is the answer of the
// table's Coders[Coders[k]], each annotator listed at most once, in
// ascending order; an annotator not listed gave none. A table of many
// annotators who each answered a few units takes the sparse form, whose
// size follows the answers rather than units × annotators.
type Unit struct {
	ID     string
	Values []*Value
	Coders []int
}

// All yields the answers of the unit with the index of their annotator
// in the table's Coders, in the order the row holds them.
func (u Unit) All() iter.Seq2[int, *Value] {
	return func(yield func(int, *Value) bool) {
		for k, v := range u.Values {
			c := k
			if u.Coders != nil {
				if k >= len(u.Coders) {
					return
				}
				c = u.Coders[k]
			}
			if v != nil && !yield(c, v) {
				return
			}
		}
	}
}

// Value is the answer of the table's Coders[c], nil when none.
func (u Unit) Value(c int) *Value {
	if u.Coders == nil {
		if c >= 0 && c < len(u.Values) {
			return u.Values[c]
		}
		return nil
	}
	if k, ok := slices.BinarySearch(u.Coders, c); ok && k < len(u.Values) {
		return u.Values[k]
	}
	return nil
}

// Table is reliability data for one question: Coders sorted, Units sorted
// by ID, each unit with its annotators' answers.
type Table struct {
	Coders []string
	Units  []Unit
}

// Span is one marked span: code-point offsets, End exclusive, and its
// label's code ("" when the question has no labels).
type Span struct {
	Start, End int
	Label      string
}

// SpanUnit is one unit's spans by coder, dense or sparse as a Unit's
// values are. Dense, when Coders is nil: Spans[i] is the list of the
// table's Coders[i]. Sparse: Spans[k] is the list of the table's
// Coders[Coders[k]], each annotator listed at most once, in ascending
// order. A list is nil when its annotator did not complete the unit (an
// annotator a sparse unit does not list did not either), and empty (not
// nil) when the annotator completed it and marked nothing, which is an
// answer.
type SpanUnit struct {
	ID     string
	Spans  [][]Span
	Coders []int
}

// All yields the lists of the annotators who completed the unit, with
// the index of each in the table's Coders, in the order the row holds
// them.
func (u SpanUnit) All() iter.Seq2[int, []Span] {
	return func(yield func(int, []Span) bool) {
		for k, l := range u.Spans {
			c := k
			if u.Coders != nil {
				if k >= len(u.Coders) {
					return
				}
				c = u.Coders[k]
			}
			if l != nil && !yield(c, l) {
				return
			}
		}
	}
}

// List is the list of the table's Coders[c], nil when that annotator did
// not complete the unit.
func (u SpanUnit) List(c int) []Span {
	if u.Coders == nil {
		if c >= 0 && c < len(u.Spans) {
			return u.Spans[c]
		}
		return nil
	}
	if k, ok := slices.BinarySearch(u.Coders, c); ok && k < len(u.Spans) {
		return u.Spans[k]
	}
	return nil
}

// SpanTable is span data for one question: Coders sorted, Units sorted by
// ID.
type SpanTable struct {
	Coders []string
	Units  []SpanUnit
}

// Metric is one statistic as reported: its name and parameters as the
// JSON schema annosheet.agreement/1 spells them (Params always explicit,
// never left to a default), and its value: a float64, a PRF, a Pearson,
// or nil when the statistic is undefined on the data (Note says why, for
// example "no variation: every value is the same").
type Metric struct {
	Metric string         `json:"metric"`
	Params map[string]any `json:"params"`
	Value  any            `json:"value"`
	// CI is the bootstrap confidence interval, for the headline metric
	// when asked for.
	CI   []float64 `json:"ci,omitempty"`
	Note string    `json:"note,omitempty"`
}

// PRF is a value of precision, recall and F1.
type PRF struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Pearson is span_count_pearson's value: r over every (unit, label)
// count pooled (Micro), and the mean of r per label (Macro).
type Pearson struct {
	Micro float64 `json:"micro"`
	Macro float64 `json:"macro"`
}

// Pair is the metrics of one pair of annotators, A before B in sorted
// order.
type Pair struct {
	A       string   `json:"a"`
	B       string   `json:"b"`
	Metrics []Metric `json:"metrics"`
}

// Option is the metrics of one declared option (or span label), by code.
type Option struct {
	Code    string   `json:"code"`
	Metrics []Metric `json:"metrics"`
}

// UnitDetail says whether the annotators of a pairable unit agree
// (every value the same), and how many values it has.
type UnitDetail struct {
	Unit   string `json:"unit"`
	Values int    `json:"values"`
	Agree  bool   `json:"agree"`
}

// Result is a question's agreement. Units counts units with at least one
// value, Pairable the values in units with two or more. Metrics lists the
// headline metric first. Two-annotator metrics appear in Metrics when
// there are exactly two annotators, and otherwise as the mean over the
// pairs of annotators that share a unit.
type Result struct {
	Units      int      `json:"units"`
	Pairable   int      `json:"pairable"`
	Annotators []string `json:"annotators"`
	Metrics    []Metric `json:"metrics"`
	// Pairs lists the pairs of annotators that share a unit (a pair that
	// shares none has nothing to compare), sorted: all of them, or, past
	// Options.MaxPairs, those that share the most units. PairsLeftOut
	// counts the others, and PairsNote then says which are listed.
	Pairs        []Pair       `json:"pairs"`
	PairsLeftOut int          `json:"pairs_left_out,omitempty"`
	PairsNote    string       `json:"pairs_note,omitempty"`
	Options      []Option     `json:"options,omitempty"`
	UnitsDetail  []UnitDetail `json:"units_detail"`
}
