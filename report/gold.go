package report

import (
	"slices"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// Gold is the gold set: its records, how each question's values were
// decided, and each annotator's score against it, as agree --against
// scores them (its report's "against").
type Gold struct {
	// Name names the set: its file or folder, as given.
	Name     string `json:"name"`
	Records  int    `json:"records"`
	Complete int    `json:"complete"`
	Partial  int    `json:"partial"`
	// Provenance counts, per question (and per answer row of a block,
	// under the name the records' spans carry), the values by how they
	// were decided.
	Provenance []Provenance `json:"provenance"`
	// Units counts the units the gold set has, SharedUnits those the
	// sources have too; only those are scored.
	Units       int                     `json:"units"`
	SharedUnits int                     `json:"shared_units"`
	GoldOnly    int                     `json:"gold_only_units"`
	SourcesOnly int                     `json:"sources_only_units"`
	Questions   []study.QuestionAgainst `json:"questions"`
	// Unscored says why the annotators are not scored against the gold
	// set, when they cannot be (it shares no unit with the sources, say).
	Unscored string `json:"unscored,omitempty"`
}

// Provenance counts one question's gold values by how they were decided.
type Provenance struct {
	Question    string `json:"question"`
	Unanimous   int    `json:"unanimous"`
	Majority    int    `json:"majority"`
	Adjudicated int    `json:"adjudicated"`
	Unresolved  int    `json:"unresolved"`
	// Carried counts units whose answers to a question not adjudicated
	// differ: the gold set carries each one.
	Carried int `json:"carried"`
}

// gold summarises the gold set g and the scores against it.
func gold(t *templates.Template, g *study.Gold, a *study.Against) *Gold {
	out := &Gold{Name: g.Name, Records: len(g.Records), Provenance: []Provenance{}, Questions: []study.QuestionAgainst{}}
	by := map[string]*Provenance{}
	count := func(name string, p *records.Provenance) {
		if p == nil {
			return
		}
		c := by[name]
		if c == nil {
			c = &Provenance{Question: name}
			by[name] = c
		}
		switch p.Kind {
		case records.ProvenanceUnanimous:
			c.Unanimous++
		case records.ProvenanceMajority:
			c.Majority++
		case records.ProvenanceAdjudicated:
			c.Adjudicated++
		case records.ProvenanceUnresolved:
			c.Unresolved++
		case records.ProvenanceCarried:
			c.Carried++
		}
	}
	for _, r := range g.Records {
		switch r.Status {
		case records.StatusComplete:
			out.Complete++
		case records.StatusPartial:
			out.Partial++
		}
		for name, p := range r.Provenance {
			count(name, p)
		}
		for _, s := range r.Spans {
			count(s.Question, s.Provenance)
		}
	}
	// The template's questions in its order, then the spans' name, then
	// any other, sorted.
	var order []string
	for _, q := range t.Questions {
		order = append(order, q.Name)
	}
	if t.Rows.Spans != "" && !slices.Contains(order, t.Rows.Spans) {
		order = append(order, t.Rows.Spans)
	}
	var rest []string
	for name := range by {
		if !slices.Contains(order, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range append(order, rest...) {
		if c := by[name]; c != nil {
			out.Provenance = append(out.Provenance, *c)
		}
	}
	if a == nil {
		return out
	}
	out.Units, out.SharedUnits, out.GoldOnly, out.SourcesOnly = a.Units, a.SharedUnits, a.GoldOnly, a.SourcesOnly
	out.Questions = a.Questions
	return out
}
