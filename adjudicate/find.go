package adjudicate

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrAdjudicate is wrapped by errors of records that cannot be adjudicated
// (another template's, candidates still shuffled, two versions of one
// annotator's unit).
var ErrAdjudicate = errors.New("cannot adjudicate")

// Options tune Find.
type Options struct {
	// MinAgreement is how many annotators must give the same answer for
	// it to be accepted without a row; 0 means all who answered the unit
	// (one, where only one did). An answer is accepted only when it also
	// has more votes than any other; a unit with fewer answers than
	// MinAgreement has every question to decide.
	MinAgreement int
}

// Kinds of item.
const (
	KindValue = "value" // a question's answer
	KindSpans = "spans" // a cluster of overlapping spans
)

// Answer is what one annotator answered: a typed value (nil when they left
// an optional question blank), or, for a span cluster, their spans in it
// (none when they marked nothing there).
type Answer struct {
	Annotator string               `json:"annotator"`
	Value     any                  `json:"value,omitempty"`
	Spans     []records.SpanAnswer `json:"spans,omitempty"`
	// Order is each span's place among the spans of the annotator's
	// record: the gold set keeps the order in which annotators wrote them.
	Order []int `json:"order,omitempty"`
}

// Cluster is where a span cluster is: spans of one field that overlap,
// directly or through others; or, for answer rows with no span (missing
// information), those of one label.
type Cluster struct {
	Field string `json:"field,omitempty"`
	Start int    `json:"start"` // code points, end exclusive; -1 without a span
	End   int    `json:"end"`
	Code  string `json:"code,omitempty"` // the label of a cluster without spans
	// Text is the field's whole text, which an edited span is found in;
	// set by the caller when the study's inputs are at hand.
	Text *string `json:"text,omitempty"`
}

// Item is one thing an adjudicator decides: the answers to a question of a
// unit, or the spans of a cluster, that the annotators disagree on.
type Item struct {
	ID       string   `json:"id"` // d0001 …, kept across runs
	Unit     string   `json:"unit"`
	Item     string   `json:"item"`
	Batch    string   `json:"batch,omitempty"`
	Kind     string   `json:"kind"`
	Question string   `json:"question"` // a question's name, or the spans' (rows.spans)
	Cluster  *Cluster `json:"cluster,omitempty"`
	// Answers has one entry per annotator with a complete record of the
	// unit, in the order of the study's annotators.
	Answers []Answer `json:"answers"`
	// Suggested is the index in Answers of an answer that has more votes
	// than any other; -1 on a tie.
	Suggested int `json:"suggested"`
	// Workbook is the adjudication workbook the item is in (its index in
	// the manifest's list).
	Workbook int `json:"workbook"`
	// Kept says the item is no longer a disagreement, and stays for the
	// cells filled on its row: a decision there still counts, and
	// without one the answer the annotators agree on stands.
	Kept bool `json:"kept,omitempty"`
	// Superseded names the item whose cluster swallowed this one's; the
	// row stays, and decides nothing.
	Superseded string `json:"superseded,omitempty"`
}

// Accepted is a unit's answers that the annotators agreed on: values by
// question and spans, each with its provenance.
type Accepted struct {
	Unit       string                         `json:"unit"`
	Item       string                         `json:"item"`
	Batch      string                         `json:"batch,omitempty"`
	Annotators []string                       `json:"annotators"`
	Values     map[string]any                 `json:"values,omitempty"`
	Spans      []records.SpanAnswer           `json:"spans,omitempty"`
	Order      []int                          `json:"order,omitempty"` // of Spans, as Answer.Order
	Provenance map[string]*records.Provenance `json:"provenance,omitempty"`
}

// Found is what Find sorted the records into.
type Found struct {
	Annotators []string    // every annotator with a complete record, sorted
	Units      []*Accepted // every unit with a complete record, in the records' order
	Items      []*Item     // the disagreements, in unit order, questions in the template's order
	// Unanswered are the units seen only in records that are not
	// complete, in the records' order: with no annotators, nothing to
	// accept or decide, and a gold record of their own all the same.
	Unanswered []*Accepted
	// Left counts the records not used: partial, empty, missing or
	// unreadable ones.
	Left int
}

// Find sorts complete records into accepted answers and items to decide.
// Records must be typed (as pull and records.Read give them), with
// their candidates in place. Item IDs are left empty for the caller to
// number (see Number).
func Find(t *templates.Template, recs []*records.Annotation, opt Options) (*Found, error) {
	f := &Found{}
	byUnit := map[string][]*records.Annotation{}
	var order []string
	coders := map[string]bool{}
	// Every unit seen, complete or not, with a record of it.
	var seen []*records.Annotation
	seenUnit := map[string]bool{}
	for _, r := range recs {
		if r.Template.Name != t.Name || r.Template.Version != t.Version {
			return nil, fmt.Errorf("%w: unit %s by %s is a record of template %s version %d, not %s version %d", ErrAdjudicate, r.Unit, r.Annotator, r.Template.Name, r.Template.Version, t.Name, t.Version)
		}
		if r.Shuffled {
			return nil, fmt.Errorf("%w: unit %s by %s still has its candidates in the order shown; pull through the study's manifest, which puts them back", ErrAdjudicate, r.Unit, r.Annotator)
		}
		if r.Annotator != records.GoldAnnotator && !seenUnit[r.Unit] {
			seenUnit[r.Unit] = true
			seen = append(seen, r)
		}
		if r.Status != records.StatusComplete || r.Annotator == "" || r.Annotator == records.GoldAnnotator {
			f.Left++
			continue
		}
		prev, seen := byUnit[r.Unit]
		if !seen {
			order = append(order, r.Unit)
		}
		dup := false
		for _, p := range prev {
			if p.Annotator == r.Annotator {
				if key(p.Values) != key(r.Values) || key(spanKeys(p.Spans)) != key(spanKeys(r.Spans)) {
					return nil, fmt.Errorf("%w: unit %s has two different records by %s; keep one", ErrAdjudicate, r.Unit, r.Annotator)
				}
				dup = true
			}
		}
		if !dup {
			byUnit[r.Unit] = append(prev, r)
			coders[r.Annotator] = true
		}
	}
	for c := range coders {
		f.Annotators = append(f.Annotators, c)
	}
	slices.Sort(f.Annotators)
	need := opt.MinAgreement
	for _, u := range order {
		rs := byUnit[u]
		slices.SortFunc(rs, func(a, b *records.Annotation) int { return strings.Compare(a.Annotator, b.Annotator) })
		acc := &Accepted{Unit: u, Item: rs[0].Item, Batch: rs[0].Batch, Values: map[string]any{}, Provenance: map[string]*records.Provenance{}}
		for _, r := range rs {
			acc.Annotators = append(acc.Annotators, r.Annotator)
		}
		for i := range t.Questions {
			q := &t.Questions[i]
			if rowQuestion(t, q) {
				continue
			}
			answers := make([]Answer, len(rs))
			for k, r := range rs {
				answers[k] = Answer{Annotator: r.Annotator, Value: value(q, r.Values[q.Name])}
			}
			votes := tally(answers, func(a Answer) string { return key(a.Value) })
			if len(votes.groups) == 1 && answers[0].Value == nil && !q.Required {
				continue // nobody answered an optional question: nothing to decide
			}
			win, ok := votes.accepted(need)
			if !q.Adjudicated() && (!ok || len(votes.groups) > 1) {
				// Not for an adjudicator to decide: unless every
				// annotator gave the same answer, the gold set carries
				// what each one wrote.
				acc.Provenance[q.Name] = carriedAnswers(answers)
				continue
			}
			if ok {
				if v := answers[win.first].Value; v != nil {
					acc.Values[q.Name] = v
				}
				if answers[win.first].Value != nil || q.Required {
					acc.Provenance[q.Name] = votes.provenance(win)
				}
				continue
			}
			f.Items = append(f.Items, &Item{Unit: u, Item: acc.Item, Batch: acc.Batch, Kind: KindValue, Question: q.Name, Answers: answers, Suggested: votes.suggested()})
		}
		if t.Rows.Spans != "" {
			for _, c := range clusters(rs) {
				answers := c.answers
				votes := tally(answers, func(a Answer) string { return key(spanKeys(a.Spans)) })
				if win, ok := votes.accepted(need); ok {
					a := answers[win.first]
					for k, s := range a.Spans {
						s.Provenance = votes.provenance(win)
						s.Row = 0
						acc.Spans = append(acc.Spans, s)
						acc.Order = append(acc.Order, a.Order[k])
					}
					continue
				}
				cl := c.cluster
				f.Items = append(f.Items, &Item{Unit: u, Item: acc.Item, Batch: acc.Batch, Kind: KindSpans, Question: t.Rows.Spans, Cluster: &cl, Answers: answers, Suggested: votes.suggested()})
			}
		}
		if len(acc.Values) == 0 {
			acc.Values = nil
		}
		if len(acc.Provenance) == 0 {
			acc.Provenance = nil
		}
		f.Units = append(f.Units, acc)
	}
	for _, r := range seen {
		if _, ok := byUnit[r.Unit]; !ok {
			f.Unanswered = append(f.Unanswered, &Accepted{Unit: r.Unit, Item: r.Item, Batch: r.Batch, Annotators: []string{}})
		}
	}
	return f, nil
}

// carriedAnswers is the provenance of a question that is not adjudicated, on
// which the annotators differ: each one's answer, none kept.
func carriedAnswers(answers []Answer) *records.Provenance {
	p := &records.Provenance{Kind: records.ProvenanceCarried, Annotators: len(answers)}
	for _, a := range answers {
		if a.Value != nil {
			p.Answers = append(p.Answers, records.CarriedAnswer{Annotator: a.Annotator, Value: a.Value})
		}
	}
	return p
}

// rowQuestion reports whether q is asked on each answer row of a block,
// so that its answers are the records' spans.
func rowQuestion(t *templates.Template, q *templates.Question) bool {
	return t.Rows.Per == templates.PerBlock && q.Scope != "block"
}

// value is a record's typed value as items compare it: a multi question
// left blank on a complete record is the empty set.
func value(q *templates.Question, v any) any {
	if v == nil && q.Type == templates.TypeMulti {
		return []string{}
	}
	return v
}

// key is a value's canonical JSON text: equal answers have equal keys.
func key(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// spanKeys is what a list of spans says, without where the rows were
// or how they were decided: equal lists are the same answer.
func spanKeys(spans []records.SpanAnswer) []string {
	out := make([]string, 0, len(spans))
	for _, s := range spans {
		s.Row, s.Provenance = 0, nil
		out = append(out, key(s))
	}
	slices.Sort(out)
	return out
}

// votes counts the annotators behind each distinct answer.
type votes struct {
	n      int
	groups []group // in the order of their first answer
}

type group struct {
	key   string
	first int // index of its first answer
	count int
}

func tally(answers []Answer, keyOf func(Answer) string) votes {
	v := votes{n: len(answers)}
	at := map[string]int{}
	for i, a := range answers {
		k := keyOf(a)
		if g, ok := at[k]; ok {
			v.groups[g].count++
			continue
		}
		at[k] = len(v.groups)
		v.groups = append(v.groups, group{key: k, first: i, count: 1})
	}
	return v
}

// top is the answer with more votes than any other; ok is false on a tie.
func (v votes) top() (group, bool) {
	var best group
	tie := false
	for _, g := range v.groups {
		switch {
		case g.count > best.count:
			best, tie = g, false
		case g.count == best.count:
			tie = true
		}
	}
	return best, !tie && best.count > 0
}

// accepted is the answer taken without an adjudicator: every annotator's
// (need 0), or one with at least need votes and more than any other.
func (v votes) accepted(need int) (group, bool) {
	g, ok := v.top()
	if !ok {
		return g, false
	}
	if need <= 0 {
		need = v.n // all who answered
	}
	return g, g.count >= need
}

func (v votes) suggested() int {
	if g, ok := v.top(); ok {
		return g.first
	}
	return -1
}

func (v votes) provenance(g group) *records.Provenance {
	kind := records.ProvenanceMajority
	if g.count == v.n {
		kind = records.ProvenanceUnanimous
	}
	return &records.Provenance{Kind: kind, Agreeing: g.count, Annotators: v.n}
}

// Accepted counts the answers Find accepted without a decision, by how:
// every annotator agreeing (ProvenanceUnanimous), or a majority reaching
// Options.MinAgreement (ProvenanceMajority); a block's spans each count.
func (f *Found) Accepted() (unanimous, majority int) {
	count := func(kind string) {
		switch kind {
		case records.ProvenanceUnanimous:
			unanimous++
		case records.ProvenanceMajority:
			majority++
		}
	}
	for _, u := range f.Units {
		for _, p := range u.Provenance {
			count(p.Kind)
		}
		for _, s := range u.Spans {
			count(s.Provenance.Kind)
		}
	}
	return unanimous, majority
}
