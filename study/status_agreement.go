package study

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/records"
)

// StatusAgreement is the agreement so far of one study's records, as
// status reports it once two or more annotators have completed a unit:
// each question's headline metric over the complete units, as agree
// computes it with its default options. Records of different templates
// are never compared: each study and template has its own.
type StatusAgreement struct {
	// Study is the study, given when the sources hold several.
	Study    string             `json:"study,omitempty"`
	Template records.TemplateID `json:"template"`
	// Annotators lists the annotators whose complete units are compared,
	// sorted.
	Annotators []string `json:"annotators"`
	// Overlap counts the units that two or more annotators have
	// completed.
	Overlap   int              `json:"overlap_units"`
	Questions []StatusQuestion `json:"questions"`
	// Skipped are the questions agree says nothing about, with why.
	Skipped []SkippedQuestion `json:"skipped,omitempty"`
	// Note says why there is no agreement (Questions is empty): the
	// template is not known, shuffled candidates are not back in their
	// places (the study's manifest has the orders), or the records cannot
	// be compared as they are.
	Note string `json:"note,omitempty"`
}

// StatusQuestion is one question's headline metric so far: its name,
// parameters and value (nil, with a note, where the records do not
// define it yet), the units two or more annotators gave a value, and who
// answered it.
type StatusQuestion struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Compared says what a value is, where it is not the question's
	// answer as such (see QuestionAgreement).
	Compared string `json:"compared,omitempty"`
	agreement.Metric
	PairableUnits int      `json:"pairable_units"`
	Annotators    []string `json:"annotators"`
}

// agreementSoFar computes, for each study and template whose complete
// records overlap (a unit completed by two or more annotators), the
// headline agreement of every question, in the order the records come.
// Units whose copies conflict are partial, so they count for none. It
// stops with ctx's error when ctx is done.
func agreementSoFar(ctx context.Context, res *Result) ([]StatusAgreement, error) {
	type group struct {
		key  templateKey
		recs []*records.Annotation
		by   map[string]map[string]bool // unit -> annotators who completed it
	}
	var groups []*group
	at := map[templateKey]*group{}
	studies := map[string]bool{}
	for _, r := range res.Records {
		if r.Control {
			// The study's agreement is of its own units, as agree's.
			continue
		}
		k := templateKey{res.studyOf[r], r.Template}
		studies[k.study] = true
		g := at[k]
		if g == nil {
			g = &group{key: k, by: map[string]map[string]bool{}}
			at[k] = g
			groups = append(groups, g)
		}
		g.recs = append(g.recs, r)
		if r.Status == records.StatusComplete && r.Annotator != "" {
			if g.by[r.Unit] == nil {
				g.by[r.Unit] = map[string]bool{}
			}
			g.by[r.Unit][r.Annotator] = true
		}
	}
	var out []StatusAgreement
	for _, g := range groups {
		overlap := 0
		coders := map[string]bool{}
		for _, who := range g.by {
			if len(who) >= 2 {
				overlap++
			}
			for a := range who {
				coders[a] = true
			}
		}
		if overlap == 0 {
			continue
		}
		sa := StatusAgreement{Template: g.key.id, Annotators: sortedKeys(coders), Overlap: overlap, Questions: []StatusQuestion{}}
		if len(studies) > 1 {
			sa.Study = g.key.study
		}
		t := res.templateOf[g.key]
		switch {
		case t == nil:
			sa.Note = "the template " + g.key.id.Name + " of these records is not known"
		case slices.ContainsFunc(g.recs, func(r *records.Annotation) bool { return r.Shuffled }):
			sa.Note = "the answers are still on the candidates in the order shown; give the study's folder or manifest, which has the orders"
		}
		if sa.Note != "" {
			out = append(out, sa)
			continue
		}
		rep, err := Agree(ctx, t, g.recs, AgreeOptions{})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			sa.Note = err.Error()
			if errors.Is(err, ErrAgree) {
				sa.Note = strings.TrimPrefix(sa.Note, ErrAgree.Error()+": ")
			}
			out = append(out, sa)
			continue
		}
		sa.Annotators = rep.Records.Annotators
		for _, q := range rep.Questions {
			sq := StatusQuestion{Name: q.Name, Type: q.Type, Compared: q.Compared, PairableUnits: len(q.UnitsDetail), Annotators: q.Annotators}
			if len(q.Metrics) > 0 {
				sq.Metric = q.Metrics[0]
			} else {
				sq.Note = "no metric for this question"
			}
			if sq.Annotators == nil {
				sq.Annotators = []string{}
			}
			sa.Questions = append(sa.Questions, sq)
		}
		sa.Skipped = rep.Skipped
		out = append(out, sa)
	}
	return out, nil
}
