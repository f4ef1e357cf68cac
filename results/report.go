package results

import (
	"strings"

	"github.com/annosheet/annosheet/internal/words"
)

// Schema tags the JSON of a study's results.
const Schema = "annosheet.results/1"

// Report is what a study found, question by question: an estimate per
// group with its interval, and every comparison of two groups. Its JSON
// is annosheet.results/1.
type Report struct {
	Schema    string     `json:"schema"`
	Template  Template   `json:"template"`
	Basis     string     `json:"basis"`
	Params    Params     `json:"params"`
	Questions []Question `json:"questions"`
}

// Template names the template of the records.
type Template struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
}

// Params are the options the numbers were computed with.
type Params struct {
	Level        float64 `json:"level"`
	Resamples    int     `json:"resamples"`
	Permutations int     `json:"permutations"`
	Seed         uint64  `json:"seed"`
}

// The bases of a report: the annotators' records, or a gold set.
const (
	BasisAnnotators = "annotators"
	BasisGold       = "gold"
)

// Question is the results of one question: one entry per question, or,
// for a template that shuffles candidates, one per candidate question,
// named by the first candidate's question, with Questions listing them
// in candidate order.
type Question struct {
	Question    string       `json:"question"`
	Questions   []string     `json:"questions,omitempty"`
	Type        string       `json:"type"`
	By          string       `json:"by"`
	Paired      bool         `json:"paired"`
	Estimates   []Estimate   `json:"estimates"`
	Comparisons []Comparison `json:"comparisons"`
	LeftOut     LeftOut      `json:"left_out"`
}

// LeftOut counts what a question's numbers leave out: records partial
// (unless included) and empty, gold values nobody decided, units without
// a gold record when the basis is gold, and items of a paired design
// that lack one of the groups compared.
type LeftOut struct {
	Partial    int `json:"partial"`
	Empty      int `json:"empty"`
	Unresolved int `json:"unresolved"`
	NoGold     int `json:"no_gold"`
	Unpaired   int `json:"unpaired"`
}

// String says what the numbers leave out, "" for nothing: "1 partial
// record, 2 unpaired items".
func (l LeftOut) String() string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{l.Partial, "partial record"}, {l.Empty, "empty record"}, {l.Unresolved, "unresolved gold value"}, {l.NoGold, "unit without gold"}, {l.Unpaired, "unpaired item"}} {
		if c.n > 0 {
			parts = append(parts, words.Count(c.n, c.what))
		}
	}
	return strings.Join(parts, ", ")
}

// Statistics, by question type.
const (
	Share         = "share"           // choice, bool, multi: the share of units per option
	Mean          = "mean"            // scale
	Median        = median            // scale
	WinRate       = "win_rate"        // a choice among candidates
	SpansPerUnit  = "spans_per_unit"  // span: per label, and overall
	UnitsWithSpan = "units_with_span" // span: the share of units with one
	Answered      = "answered"        // text: the share of units answered
)

// The defaults of the options: what annosheet results computes with
// unless told otherwise, and the study report with.
const (
	DefaultLevel        = 0.95
	DefaultResamples    = 2000
	DefaultPermutations = 10000
	DefaultSeed         = 1
)

// DefaultOptions are the options at their defaults.
func DefaultOptions() Options {
	return Options{Level: DefaultLevel, Resamples: DefaultResamples, Permutations: DefaultPermutations, Seed: DefaultSeed}
}
