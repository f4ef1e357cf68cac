package study

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrGold: the annotators cannot be scored against the gold set as it is.
var ErrGold = errors.New("cannot score against the gold set")

// ErrNoSharedUnit is ErrGold for a gold set with no unit of the sources'.
var ErrNoSharedUnit = fmt.Errorf("%w", ErrGold)

// Pooled names, in a score, every annotator at once.
const Pooled = "*"

// Gold is a gold set to score each annotator against: records of
// annotator "gold" (records.GoldAnnotator), one per unit, as the pull of
// an adjudication writes them. A gold record counts when it is complete
// or partial; a question whose provenance says it is still undecided
// (unresolved) has no gold value, nor do a block's rows while one of
// them is undecided. Provenance is otherwise not scored.
type Gold struct {
	// Name names the set in the report and in errors: its file, as given.
	Name    string
	Records []*records.Annotation
	// Origins, when set, say where each record was read
	// ("gold.jsonl:3"), for errors.
	Origins map[*records.Annotation]string
	// Problems are those of the adjudication's pull, when the set was
	// pulled from one.
	Problems records.Problems
	// AnyAnnotator lets the set be the records of one annotator other
	// than gold (a model's labels, say): each annotator is scored against
	// theirs, under that annotator's name.
	AnyAnnotator bool
}

// where names a gold record in errors.
func (g *Gold) where(r *records.Annotation) string {
	if w, ok := g.Origins[r]; ok {
		return w
	}
	return g.Name
}

// Against is how each annotator's answers compare with a gold set's,
// question by question: the questions and annotators of the agreement
// report, on the units both the annotator and the gold set give a value.
type Against struct {
	// Gold names the gold set: its file, as given.
	Gold string `json:"gold"`
	// Reference is the annotator whose records the set holds when it is
	// not the gold set of an adjudication (a model's labels, say).
	Reference string `json:"reference,omitempty"`
	// Units counts the units the gold set has a record of, SharedUnits
	// those of them the sources have too. Units only one side has are
	// not scored: GoldOnly and SourcesOnly count them.
	Units       int               `json:"units"`
	SharedUnits int               `json:"shared_units"`
	GoldOnly    int               `json:"gold_only_units"`
	SourcesOnly int               `json:"sources_only_units"`
	Questions   []QuestionAgainst `json:"questions"`
}

// QuestionAgainst is one question's scores: each annotator's against
// the gold set, and, with two or more annotators, theirs pooled.
type QuestionAgainst struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Compared string `json:"compared,omitempty"`
	// GoldUnits counts the units the gold set gives a value.
	GoldUnits  int              `json:"gold_units"`
	Annotators []AnnotatorScore `json:"annotators"`
	// Pooled scores every (unit, annotator) value as a unit of its own,
	// against the unit's gold value.
	Pooled *AnnotatorScore `json:"pooled,omitempty"`
}

// AnnotatorScore is one annotator's values scored against the gold set's
// (Annotator is Pooled for every annotator's at once), on the units both
// give a value. Accuracy is the share of those units where the value is
// the gold one (for a multi, the same set; for text, the same after
// agreement.NormalizeText; for spans, the same spans with the same
// labels); it is nil when no unit is scored. Metrics are those of the
// question's type computed on the annotator and the gold set alone (the
// gold set the reference of directional span metrics), and Options those
// per option or label; for a scale, unweighted Cohen's κ over the
// declared levels is among them. The other fields copy a value of
// Metrics, for the types that have it, when it is defined: Kappa is
// Cohen's κ unweighted (choice, bool, scale), KappaLinear with linear
// weights (scale), MeanJaccard the mean Jaccard index (multi, evidence),
// and Precision, Recall and F1 are of the characters the annotator
// marked under the gold set's labels (span_char_overlap_prf, match hard).
type AnnotatorScore struct {
	Annotator   string             `json:"annotator"`
	Units       int                `json:"units"`
	Accuracy    *float64           `json:"accuracy"`
	Kappa       *float64           `json:"kappa,omitempty"`
	KappaLinear *float64           `json:"kappa_linear,omitempty"`
	MeanJaccard *float64           `json:"mean_jaccard,omitempty"`
	Precision   *float64           `json:"precision,omitempty"`
	Recall      *float64           `json:"recall,omitempty"`
	F1          *float64           `json:"f1,omitempty"`
	Metrics     []agreement.Metric `json:"metrics"`
	Options     []agreement.Option `json:"options,omitempty"`
}

// against scores the annotators of set (the records agreement compares,
// out of recs) against the gold set, question by question.
func against(ctx context.Context, t *templates.Template, recs []*records.Annotation, set *recordSet, questions []agreeQuestion, g *Gold) (*Against, error) {
	ref := records.GoldAnnotator
	if g.AnyAnnotator && len(g.Records) > 0 && g.Records[0].Annotator != records.GoldAnnotator {
		ref = g.Records[0].Annotator
	}
	sources := map[string]bool{}
	for _, r := range recs {
		if r.Annotator == ref {
			return nil, fmt.Errorf("%w: the sources hold records of annotator %q (unit %s); give them as the %s alone", ErrGold, ref, r.Unit, setName(ref))
		}
		sources[r.Unit] = true
	}
	units := map[string]bool{}
	var used []*records.Annotation
	for _, r := range g.Records {
		switch {
		case r.Annotator != ref && ref == records.GoldAnnotator:
			return nil, fmt.Errorf("%s: %w: unit %s is a record of annotator %q; a gold set's records are annotator %q's", g.where(r), ErrGold, r.Unit, r.Annotator, records.GoldAnnotator)
		case r.Annotator != ref:
			return nil, fmt.Errorf("%s: %w: unit %s is a record of annotator %q; the set's first is %q's, and a reference is one annotator's records", g.where(r), ErrGold, r.Unit, r.Annotator, ref)
		case r.Template.Name != t.Name || r.Template.Version != t.Version:
			return nil, fmt.Errorf("%s: %w: unit %s is a record of template %s version %d; the sources are of %s version %d", g.where(r), ErrGold, r.Unit, r.Template.Name, r.Template.Version, t.Name, t.Version)
		case r.Shuffled:
			return nil, fmt.Errorf("%s: %w: unit %s still has its candidates in the order shown; pull it through the study's manifest, which puts them back", g.where(r), ErrGold, r.Unit)
		}
		units[r.Unit] = true
		if r.Status == records.StatusComplete || r.Status == records.StatusPartial {
			if ref != records.GoldAnnotator {
				// Scored as the gold set is: under gold's name here,
				// under ref's in the report.
				c := *r
				c.Annotator = records.GoldAnnotator
				r = &c
			}
			used = append(used, r)
		}
	}
	out := &Against{Gold: g.Name, Units: len(units), Questions: []QuestionAgainst{}}
	if ref != records.GoldAnnotator {
		out.Reference = ref
	}
	for u := range units {
		if sources[u] {
			out.SharedUnits++
		}
	}
	out.GoldOnly, out.SourcesOnly = out.Units-out.SharedUnits, len(sources)-out.SharedUnits
	switch {
	case out.SharedUnits == 0:
		return nil, fmt.Errorf("%s: %w: it shares no unit with the sources (its units: %s; theirs: %s)", g.Name, ErrNoSharedUnit, someUnits(units), someUnits(sources))
	case len(used) == 0:
		return nil, fmt.Errorf("%s: %w: none of its records is complete or partial", g.Name, ErrGold)
	}
	all, err := newRecordSet(append(slices.Clone(set.recs), used...))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.Name, err)
	}
	gold := slices.Index(all.coders, records.GoldAnnotator)
	var cols []int
	for _, c := range set.coders {
		cols = append(cols, slices.Index(all.coders, c))
	}
	out.Questions = make([]QuestionAgainst, len(questions))
	err = parallel(ctx, len(questions), func(i int) error {
		q := questions[i]
		td := q.data(all)
		qa := QuestionAgainst{Name: q.name, Type: q.kind, Compared: q.compared, GoldUnits: td.valued(gold), Annotators: []AnnotatorScore{}}
		// Each annotator is scored on their own units with gold's: found
		// in one pass, so that many annotators cost no more than their
		// records.
		own := td.withGoldByCoder(gold)
		for _, c := range cols {
			s, err := td.subset(own[c]).score(ctx, all.coders, []int{c}, gold)
			if err != nil {
				return err
			}
			qa.Annotators = append(qa.Annotators, s)
		}
		if len(cols) > 1 {
			pooled, err := td.score(ctx, all.coders, cols, gold)
			if err != nil {
				return err
			}
			qa.Pooled = &pooled
		}
		out.Questions[i] = qa
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// someUnits names up to three units, sorted, and how many there are.
func someUnits(units map[string]bool) string {
	ids := sortedKeys(units)
	if len(ids) == 0 {
		return "none"
	}
	return words.Some(ids, 3)
}

// valued counts the units where coder c gives a value.
func (td tableData) valued(c int) int {
	n := 0
	if td.kind == templates.TypeSpan {
		for _, u := range td.spans.Units {
			if u.List(c) != nil {
				n++
			}
		}
		return n
	}
	for _, u := range td.table.Units {
		if u.Value(c) != nil {
			n++
		}
	}
	return n
}

// withGoldByCoder lists, for each coder, the units (indices into td's
// table or spans) where both that coder and coder gold give a value.
func (td tableData) withGoldByCoder(gold int) map[int][]int {
	out := map[int][]int{}
	if td.kind == templates.TypeSpan {
		for u, unit := range td.spans.Units {
			if unit.List(gold) != nil {
				for c := range unit.All() {
					out[c] = append(out[c], u)
				}
			}
		}
		return out
	}
	for u, unit := range td.table.Units {
		if unit.Value(gold) != nil {
			for c := range unit.All() {
				out[c] = append(out[c], u)
			}
		}
	}
	return out
}

// subset is td with only the units at the indices given.
func (td tableData) subset(units []int) tableData {
	out := td
	if td.kind == templates.TypeSpan {
		out.spans.Units = make([]agreement.SpanUnit, len(units))
		for i, u := range units {
			out.spans.Units[i] = td.spans.Units[u]
		}
		return out
	}
	out.table.Units = make([]agreement.Unit, len(units))
	for i, u := range units {
		out.table.Units[i] = td.table.Units[u]
	}
	return out
}

// score scores the coders in columns cols of td against coder gold, on
// the units where both give a value: one annotator under their name;
// several pooled, as Pooled, each (unit, annotator) a unit of its own.
func (td tableData) score(ctx context.Context, coders []string, cols []int, gold int) (AnnotatorScore, error) {
	name := coders[cols[0]]
	if len(cols) > 1 {
		name = Pooled
	}
	// The two coders in sorted order, as a table has them.
	pair, hyp := []string{name, records.GoldAnnotator}, 0
	if records.GoldAnnotator < name {
		pair, hyp = []string{records.GoldAnnotator, name}, 1
	}
	id := func(unit string, c int) string {
		if len(cols) > 1 {
			return unit + " / " + coders[c]
		}
		return unit
	}
	two := td
	if td.kind == templates.TypeSpan {
		two.spans = agreement.SpanTable{Coders: pair, Units: withGold(td.spans.Units,
			func(u agreement.SpanUnit) string { return u.ID },
			agreement.SpanUnit.List,
			func(s []agreement.Span) bool { return s != nil },
			func(id string, s [][]agreement.Span) agreement.SpanUnit { return agreement.SpanUnit{ID: id, Spans: s} },
			cols, gold, hyp, id)}
	} else {
		two.table = agreement.Table{Coders: pair, Units: withGold(td.table.Units,
			func(u agreement.Unit) string { return u.ID },
			agreement.Unit.Value,
			func(v *agreement.Value) bool { return v != nil },
			func(id string, v []*agreement.Value) agreement.Unit { return agreement.Unit{ID: id, Values: v} },
			cols, gold, hyp, id)}
	}
	res, err := two.result(ctx, two.table, AgreeOptions{Reference: records.GoldAnnotator})
	if err != nil {
		return AnnotatorScore{}, err
	}
	if td.kind == templates.TypeScale {
		// Unweighted κ, beside the weighted ones a scale reports, before
		// them.
		k, err := agreement.CohenKappa(agreement.ScaleRatings(two.table, td.levels), agreement.Unweighted)
		at := max(0, slices.IndexFunc(res.Metrics, func(m agreement.Metric) bool { return m.Metric == "cohen_kappa" }))
		res.Metrics = slices.Insert(res.Metrics, at, agreement.MetricOf("cohen_kappa", map[string]any{"weights": string(agreement.Unweighted)}, k, err))
	}
	s := AnnotatorScore{Annotator: name, Units: len(res.UnitsDetail), Metrics: res.Metrics, Options: res.Options}
	if s.Units > 0 {
		right := 0
		for _, u := range res.UnitsDetail {
			if u.Agree {
				right++
			}
		}
		s.Accuracy = ptr(float64(right) / float64(s.Units))
	}
	for _, m := range res.Metrics {
		switch v := m.Value.(type) {
		case float64:
			switch {
			case m.Metric == "cohen_kappa" && m.Params["weights"] == string(agreement.Unweighted):
				s.Kappa = ptr(v)
			case m.Metric == "cohen_kappa" && m.Params["weights"] == string(agreement.Linear):
				s.KappaLinear = ptr(v)
			case m.Metric == "mean_jaccard":
				s.MeanJaccard = ptr(v)
			}
		case agreement.PRF:
			if m.Metric == "span_char_overlap_prf" && m.Params["match"] == "hard" {
				s.Precision, s.Recall, s.F1 = ptr(v.Precision), ptr(v.Recall), ptr(v.F1)
			}
		}
	}
	return s, nil
}

// Scores are the question's scores: each annotator's, then theirs pooled
// when there is such a score.
func (q QuestionAgainst) Scores() []AnnotatorScore {
	if q.Pooled == nil {
		return q.Annotators
	}
	return append(slices.Clip(q.Annotators), *q.Pooled)
}

func ptr(f float64) *float64 { return &f }

// withGold pairs the values of the coders in columns cols with coder
// gold's: for each unit where gold and one of them give a value, a unit
// of the two values, the coder's at hyp (0 or 1) and gold's at the
// other, under the ID id gives it; sorted by that ID.
func withGold[U, V any](units []U, uid func(U) string, cell func(U, int) V, has func(V) bool, unit func(string, []V) U, cols []int, gold, hyp int, id func(string, int) string) []U {
	var out []U
	for _, u := range units {
		g := cell(u, gold)
		if !has(g) {
			continue
		}
		for _, c := range cols {
			v := cell(u, c)
			if !has(v) {
				continue
			}
			two := make([]V, 2)
			two[hyp], two[1-hyp] = v, g
			out = append(out, unit(id(uid(u), c), two))
		}
	}
	slices.SortStableFunc(out, func(a, b U) int { return strings.Compare(uid(a), uid(b)) })
	return out
}

// setName is what the set of annotator ref's records is called in errors.
func setName(ref string) string {
	if ref == records.GoldAnnotator {
		return "gold set"
	}
	return "reference"
}
