package report

import (
	"cmp"
	"slices"

	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// Suggestions is one table of the page's "Suggestions kept": what each
// annotator did with the answers their units started from (generate
// --prefill) when those came from one source, as status counts them (see
// study.PrefillTally).
type Suggestions struct {
	// Study is the units' study, given when the sources hold several.
	Study string `json:"study,omitempty"`
	// From names the source of the suggestions, as the workbooks do.
	From       string   `json:"from"`
	Annotators []KeptBy `json:"annotators"`
}

// KeptBy is what one annotator did with the suggestions: a row per
// question suggested, in the template's order, then the block's spans.
type KeptBy struct {
	Annotator string `json:"annotator"`
	// Units counts the annotator's prefilled units answered (complete or
	// partial).
	Units int       `json:"units"`
	Rows  []KeptRow `json:"rows"`
}

// KeptRow counts the suggested answers to one question that an annotator
// kept, changed or cleared; or, for a block's spans, those kept, changed
// or removed, and the spans the annotator added besides.
type KeptRow struct {
	// Question is the question's name; for a block's spans (Spans), the
	// name their records give them.
	Question string `json:"question"`
	Header   string `json:"header"`
	Spans    bool   `json:"spans,omitempty"`
	Kept     int    `json:"kept"`
	Changed  int    `json:"changed"`
	// Cleared counts the answers cleared; for spans, those removed.
	Cleared int `json:"cleared"`
	// Added counts the spans added, which were not suggested.
	Added int `json:"added,omitempty"`
}

// Rate is the share of the suggestions kept, as a percentage: of those
// kept, changed and cleared (removed); "—" when nothing was suggested.
func (r KeptRow) Rate() string {
	if n := r.Kept + r.Changed + r.Cleared; n > 0 {
		return percentOf(r.Kept, n)
	}
	return "—"
}

// suggestions makes the tables of the suggestions kept from status's
// counts: a table per source (and study), in the order the counts first
// name them, each annotator's rows in the order of the counts. Questions
// come in the order of template t; one it does not have comes after, by
// name.
func suggestions(t *templates.Template, counts []*study.PrefillTally) []Suggestions {
	order := map[string]int{}
	for i, q := range t.Questions {
		order[q.Name] = i
	}
	rank := func(name string) int {
		if i, ok := order[name]; ok {
			return i
		}
		return len(order)
	}
	spans := t.Rows.Spans
	if spans == "" {
		spans = "spans"
	}
	spansHeader := spans
	if q := t.QuestionByName(primarySpan(t)); q != nil {
		spansHeader = q.Header
	}
	var out []Suggestions
	at := map[[2]string]int{}
	for _, c := range counts {
		k := [2]string{c.Study, c.From}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Suggestions{Study: c.Study, From: c.From})
		}
		by := KeptBy{Annotator: c.Annotator, Units: c.Units, Rows: []KeptRow{}}
		for name, n := range c.Questions {
			header := name
			if q := t.QuestionByName(name); q != nil {
				header = q.Header
			}
			by.Rows = append(by.Rows, KeptRow{Question: name, Header: header, Kept: n.Kept, Changed: n.Changed, Cleared: n.Cleared})
		}
		slices.SortFunc(by.Rows, func(a, b KeptRow) int {
			return cmp.Or(cmp.Compare(rank(a.Question), rank(b.Question)), cmp.Compare(a.Question, b.Question))
		})
		if s := c.Spans; s != nil {
			by.Rows = append(by.Rows, KeptRow{Question: spans, Header: spansHeader, Spans: true, Kept: s.Kept, Changed: s.Changed, Cleared: s.Removed, Added: s.Added})
		}
		out[i].Annotators = append(out[i].Annotators, by)
	}
	return out
}
