package adjudicate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ResolveMajority resolves the items nobody decided by their suggestion,
// ties staying unresolved; the zero Resolve leaves them all unresolved.
const ResolveMajority = "majority"

// GoldOptions say how Gold resolves what it is given.
type GoldOptions struct {
	Resolve string
	// Adjudicator is who decided an item (its workbook's adjudicator).
	Adjudicator func(it *Item) string
	// Fields gives a unit's span fields, to find an edited span in; nil
	// leaves edited spans unplaced, with a problem.
	Fields func(unit string) map[string]string
	// Source is the records' source.
	Source records.RecordSource
	// File names the workbook an item is in, for problems.
	File func(it *Item) string
}

// Gold makes one gold record per unit from what the annotators agreed on
// and what the adjudicators decided: every value with its provenance, and
// every item nobody decided unresolved, with a problem naming its row.
func Gold(t *templates.Template, units []*Accepted, items []*Item, decided map[string]*Decision, opt GoldOptions) ([]*records.Annotation, records.Problems) {
	g := &golden{t: t, opt: opt, decided: decided, items: map[string]*Item{}}
	byUnit := map[string][]*Item{}
	for _, it := range items {
		byUnit[it.Unit] = append(byUnit[it.Unit], it)
		g.items[it.ID] = it
	}
	var out []*records.Annotation
	for _, u := range units {
		rec := &records.Annotation{
			Schema: records.AnnotationSchema, Template: records.TemplateID{Name: t.Name, Version: t.Version},
			Batch: u.Batch, Unit: u.Unit, Item: u.Item, Annotator: records.GoldAnnotator,
			Values: map[string]any{}, Provenance: map[string]*records.Provenance{}, Source: opt.Source, Problems: []records.UnitProblem{},
		}
		for k, v := range u.Values {
			rec.Values[k] = v
		}
		for k, p := range u.Provenance {
			c := *p
			rec.Provenance[k] = &c
		}
		g.order = g.order[:0]
		for k, s := range u.Spans {
			c := s
			if s.Provenance != nil {
				p := *s.Provenance
				c.Provenance = &p
			}
			rec.Spans = append(rec.Spans, c)
			g.order = append(g.order, at(u.Order, k))
		}
		if len(u.Annotators) == 0 && len(byUnit[u.Unit]) == 0 {
			// Nobody has completed it yet: its gold record says so,
			// rather than the unit being absent from the gold set.
			rec.Status, rec.Provenance = records.StatusEmpty, nil
			rec.Problems = append(rec.Problems, records.UnitProblem{Severity: records.Warning, Message: NoAnswer})
			out = append(out, rec)
			continue
		}
		for _, it := range byUnit[u.Unit] {
			g.resolve(rec, it)
		}
		g.finish(rec)
		out = append(out, rec)
	}
	return out, g.probs
}

// NoAnswer is the problem of the gold record of a unit that no
// annotator has completed.
const NoAnswer = "no annotator has completed this unit yet: its gold record is empty"

type golden struct {
	t       *templates.Template
	opt     GoldOptions
	decided map[string]*Decision
	items   map[string]*Item
	probs   records.Problems
	// order is the place of each span of the record being made, as the
	// annotators wrote it (Answer.Order).
	order []int
}

// at is order[k], or 0 where the order is not known.
func at(order []int, k int) int {
	if k < len(order) {
		return order[k]
	}
	return 0
}

// unresolved marks an item undecided in its record, and names its row in
// a problem unless one was reported already (reported).
func (g *golden) unresolved(rec *records.Annotation, it *Item, d *Decision, why string, reported bool) {
	p := &records.Provenance{Kind: records.ProvenanceUnresolved, Annotators: len(it.Answers), Decision: it.ID}
	if d != nil {
		p.Cell = d.Cell("")
	}
	if it.Kind == KindSpans {
		// The record's provenance of its spans says some are unresolved.
		rec.Provenance[it.Question] = p
	} else {
		rec.Provenance[it.Question] = p
	}
	msg := fmt.Sprintf("%s (%s) is unresolved: %s", it.ID, describe(g.t, it), why)
	rec.Problems = append(rec.Problems, records.UnitProblem{Severity: records.Warning, Cell: p.Cell, Message: msg})
	if d != nil && !reported {
		g.probs = append(g.probs, &records.Problem{Severity: records.Warning, File: g.file(it), Sheet: d.Sheet, Cell: strings.TrimPrefix(p.Cell, quoteSheet(d.Sheet)+"!"), Record: it.Unit, Message: msg, Err: ErrUnresolved})
	}
}

// adjudicated is the provenance of a decision.
func (g *golden) adjudicated(it *Item, d *Decision, agreeing int) *records.Provenance {
	cell := d.Cell("")
	if !d.HasFinal && d.Use != "" {
		cell = d.Cell(colUse) // decided by Or use
	}
	p := &records.Provenance{Kind: records.ProvenanceAdjudicated, Agreeing: agreeing, Annotators: len(it.Answers), Reason: d.Reason, Note: d.Note, Decision: it.ID, Cell: cell}
	if g.opt.Adjudicator != nil {
		p.Adjudicator = g.opt.Adjudicator(it)
	}
	return p
}

// suggested resolves an item by its suggestion, when Resolve allows.
func (g *golden) suggested(it *Item) (*records.Provenance, bool) {
	if g.opt.Resolve != ResolveMajority || it.Suggested < 0 {
		return nil, false
	}
	n := 0
	for _, a := range it.Answers {
		if sameAnswer(it, a, it.Answers[it.Suggested]) {
			n++
		}
	}
	return &records.Provenance{Kind: records.ProvenanceMajority, Agreeing: n, Annotators: len(it.Answers), Decision: it.ID}, true
}

// undecided resolves an item nobody decided by its suggestion, where
// Resolve allows; otherwise it is unresolved (ok false), the empty column
// named.
func (g *golden) undecided(rec *records.Annotation, it *Item, d *Decision, column string) (*records.Provenance, bool) {
	if p, ok := g.suggested(it); ok {
		return p, true
	}
	why := "nobody decided it"
	if d != nil {
		why = "its " + column + " cell is empty"
	}
	g.unresolved(rec, it, d, why, false)
	return nil, false
}

func sameAnswer(it *Item, a, b Answer) bool {
	if it.Kind == KindSpans {
		return key(spanKeys(a.Spans)) == key(spanKeys(b.Spans))
	}
	return key(a.Value) == key(b.Value)
}

// agreeing counts the annotators whose answer is a value.
func agreeing(it *Item, v any) int {
	n := 0
	for _, a := range it.Answers {
		if key(a.Value) == key(v) {
			n++
		}
	}
	return n
}

func (g *golden) resolve(rec *records.Annotation, it *Item) {
	d := g.decided[it.ID]
	if it.Superseded != "" || it.Kept && !d.Decides() {
		return // the item that superseded it, or the agreed answer, stands
	}
	if it.Kind == KindSpans {
		g.resolveSpans(rec, it, d)
		return
	}
	var v any
	var prov *records.Provenance
	switch {
	case d != nil && d.Bad:
		g.unresolved(rec, it, d, "a cell of its row cannot be read (see the problem above)", true)
		return
	case d != nil && d.HasFinal:
		v = d.Final
		prov = g.adjudicated(it, d, agreeing(it, v))
	case d != nil && d.Use != "":
		a, ok := g.use(it, d.Use)
		if !ok {
			g.unresolved(rec, it, d, "Or use says suggested, but the annotators tie and there is no suggestion", false)
			return
		}
		v = a.Value
		prov = g.adjudicated(it, d, agreeing(it, v))
	default:
		p, ok := g.undecided(rec, it, d, "Final")
		if !ok {
			return
		}
		v, prov = it.Answers[it.Suggested].Value, p
	}
	if v != nil {
		rec.Values[it.Question] = v
	} else {
		delete(rec.Values, it.Question)
	}
	rec.Provenance[it.Question] = prov
}

// use is the answer an Or use or Decision cell names.
func (g *golden) use(it *Item, who string) (Answer, bool) {
	if who == UseSuggested || who == DecideKeep {
		if it.Suggested < 0 {
			return Answer{}, false
		}
		return it.Answers[it.Suggested], true
	}
	for _, a := range it.Answers {
		if a.Annotator == who {
			return a, true
		}
	}
	return Answer{}, false
}

func (g *golden) resolveSpans(rec *records.Annotation, it *Item, d *Decision) {
	var spans []records.SpanAnswer
	var order []int
	var prov *records.Provenance
	switch {
	case d != nil && d.Bad:
		g.unresolved(rec, it, d, "a cell of its row cannot be read (see the problem above)", true)
		return
	case d != nil && d.Choice == DecideDrop:
		prov = g.adjudicated(it, d, countSpans(it, nil))
	case d != nil && d.Choice == DecideEdit:
		s, why, bad := g.edited(rec.Unit, it, d)
		if why != "" {
			if bad != nil {
				g.probs = append(g.probs, bad)
			}
			g.unresolved(rec, it, d, why, bad != nil)
			return
		}
		spans, order = []records.SpanAnswer{s}, []int{firstOrder(it)}
		prov = g.adjudicated(it, d, countSpans(it, spans))
	case d != nil && d.Choice != "":
		a, ok := g.use(it, d.Choice)
		if !ok {
			g.unresolved(rec, it, d, "keep takes the suggested version, and the annotators tie: pick an annotator's version, or edit", false)
			return
		}
		spans, order = g.retyped(a.Spans, d.Type), a.Order
		prov = g.adjudicated(it, d, countSpans(it, spans))
	case d != nil && d.Type != "" && it.Suggested >= 0:
		// A Final type alone retypes the suggested version.
		spans, order = g.retyped(it.Answers[it.Suggested].Spans, d.Type), it.Answers[it.Suggested].Order
		prov = g.adjudicated(it, d, countSpans(it, spans))
	default:
		p, ok := g.undecided(rec, it, d, "Decision")
		if !ok {
			return
		}
		spans, order, prov = slices.Clone(it.Answers[it.Suggested].Spans), it.Answers[it.Suggested].Order, p
	}
	if it.Kept {
		// The decision replaces the spans the annotators have come to
		// agree on there.
		g.dropAccepted(rec, it.Cluster)
	}
	for k, s := range spans {
		s.Row = 0
		p := *prov
		s.Provenance = &p
		rec.Spans = append(rec.Spans, s)
		g.order = append(g.order, at(order, k))
	}
}

// dropAccepted removes from a record the accepted spans of a cluster's
// place.
func (g *golden) dropAccepted(rec *records.Annotation, c *Cluster) {
	keep := rec.Spans[:0]
	order := g.order[:0]
	for k, s := range rec.Spans {
		accepted := s.Provenance != nil && (s.Provenance.Kind == records.ProvenanceUnanimous || s.Provenance.Kind == records.ProvenanceMajority)
		var here bool
		if s.Start != nil && s.End != nil && s.Field != "" {
			here = c.Start >= 0 && s.Field == c.Field && *s.Start < c.End && c.Start < *s.End
		} else {
			here = c.Start < 0 && s.Code == c.Code
		}
		if accepted && here {
			continue
		}
		keep = append(keep, s)
		order = append(order, at(g.order, k))
	}
	rec.Spans, g.order = keep, order
}

// firstOrder is the earliest place any annotator gave a span of an item.
func firstOrder(it *Item) int {
	first := -1
	for _, a := range it.Answers {
		for _, o := range a.Order {
			if first < 0 || o < first {
				first = o
			}
		}
	}
	return max(first, 0)
}

// countSpans counts the annotators whose spans of an item are these.
func countSpans(it *Item, spans []records.SpanAnswer) int {
	n := 0
	for _, a := range it.Answers {
		if key(spanKeys(a.Spans)) == key(spanKeys(spans)) {
			n++
		}
	}
	return n
}

// retyped is a copy of spans, with another label when code is set.
func (g *golden) retyped(spans []records.SpanAnswer, code string) []records.SpanAnswer {
	out := slices.Clone(spans)
	if code != "" {
		for k := range out {
			out[k] = g.retype(out[k], code)
		}
	}
	return out
}

// retype gives a span another label.
func (g *golden) retype(s records.SpanAnswer, code string) records.SpanAnswer {
	s.Code = code
	if q := g.t.QuestionByName(g.t.Rows.Label); q != nil {
		if o := q.Option(code); o != nil {
			s.Label = o.Label
		}
	}
	return s
}

// edited is the span an edit decision gives: its text found in the
// cluster's field, the occurrence in or nearest the cluster; evidence and
// other answers from the version it replaces. A Final span not in the
// text is a problem naming its cell (bad).
func (g *golden) edited(unit string, it *Item, d *Decision) (_ records.SpanAnswer, why string, bad *records.Problem) {
	c := it.Cluster
	code := d.Type
	base := g.base(it, code)
	if code == "" {
		code = base.Code
	}
	if code == "" {
		return records.SpanAnswer{}, "edit needs a Final type", nil
	}
	s := g.retype(base, code)
	s.Question, s.Row, s.Provenance = it.Question, 0, nil
	s.Field, s.Start, s.End, s.Text = "", nil, nil, ""
	text := strings.TrimSpace(d.Span)
	if text == "" {
		if c.Start >= 0 {
			return records.SpanAnswer{}, "edit needs the span's text in Final span", nil
		}
		return s, "", nil
	}
	field := c.Field
	if field == "" {
		field = g.spanField()
	}
	var ft string
	switch {
	case c.Text != nil && c.Field == field:
		ft = *c.Text
	case g.opt.Fields != nil && g.opt.Fields(unit) != nil:
		var ok bool
		if ft, ok = g.opt.Fields(unit)[field]; !ok {
			return records.SpanAnswer{}, "the unit has no text " + field + " to find the edited span in", nil
		}
	default:
		return records.SpanAnswer{}, "the study's inputs were not at hand when the adjudication was made, so the edited span cannot be placed (run adjudicate again with the study's manifest)", nil
	}
	places, _ := decode.FindSpan(ft, text)
	if len(places) == 0 {
		msg := fmt.Sprintf("Final span %q is not in the text of %s", text, field)
		return records.SpanAnswer{}, "its Final span is not in the text", g.cellProblem(it, d, colSpan, msg)
	}
	best := places[0]
	dist := func(p decode.SpanPlace) int {
		if c.Start < 0 || p.Start < c.End && c.Start < p.End {
			return 0
		}
		return min(abs(p.Start-c.End), abs(c.Start-p.End))
	}
	for _, p := range places[1:] {
		if dist(p) < dist(best) {
			best = p
		}
	}
	start, end := best.Start, best.End
	s.Field, s.Start, s.End, s.Text = field, &start, &end, decode.Substring(ft, start, end)
	return s, "", nil
}

func abs(n int) int { return max(n, -n) }

// base is the version an edited span takes its other answers from: the
// suggested one, else the first with the same label, else the first.
func (g *golden) base(it *Item, code string) records.SpanAnswer {
	var all []records.SpanAnswer
	if it.Suggested >= 0 {
		all = append(all, it.Answers[it.Suggested].Spans...)
	}
	for _, a := range it.Answers {
		all = append(all, a.Spans...)
	}
	for _, s := range all {
		if code == "" || s.Code == code {
			return s
		}
	}
	if len(all) > 0 {
		s := all[0]
		s.Evidence, s.Values = nil, nil
		return s
	}
	return records.SpanAnswer{Question: it.Question}
}

// spanField is the field of the template's block span question.
func (g *golden) spanField() string {
	for i := range g.t.Questions {
		if q := &g.t.Questions[i]; q.Type == templates.TypeSpan && q.Scope != "block" {
			return q.Field
		}
	}
	return ""
}

func (g *golden) file(it *Item) string {
	if g.opt.File != nil {
		return g.opt.File(it)
	}
	return g.opt.Source.File
}

func (g *golden) cellProblem(it *Item, d *Decision, key, msg string) *records.Problem {
	unit := it.Unit
	return &records.Problem{Severity: records.Error, File: g.file(it), Sheet: d.Sheet, Cell: strings.TrimPrefix(d.Cell(key), quoteSheet(d.Sheet)+"!"), Record: unit, Message: msg, Err: decode.ErrInvalidAnswer}
}

// checkRules checks the template's rules on a gold record, as pull checks
// an annotator's: the record's values, and each span with them. A rule
// that does not hold is a problem at the cell that decided its first
// question (or at the record), and an error-level one leaves the record
// partial.
func (g *golden) checkRules(rec *records.Annotation) (broken bool) {
	t := g.t
	report := func(r *templates.Rule, prov *records.Provenance) {
		p := &records.Problem{Severity: r.Severity, Record: rec.Unit, Message: "the gold answer breaks a rule: " + r.Message, Err: decode.ErrRule}
		if prov != nil && prov.Cell != "" {
			sheet, cell, _ := strings.Cut(prov.Cell, "!")
			p.Sheet, p.Cell = strings.ReplaceAll(strings.Trim(sheet, "'"), "''", "'"), cell
			if it := g.item(prov.Decision); it != nil {
				p.File = g.file(it)
			}
		}
		cell := ""
		if prov != nil {
			cell = prov.Cell
		}
		rec.Problems = append(rec.Problems, records.UnitProblem{Severity: p.Severity, Cell: cell, Message: p.Message})
		g.probs = append(g.probs, p)
		broken = broken || r.Severity == records.Error
	}
	for _, b := range records.RuleBreaks(t, rec) {
		var prov *records.Provenance
		if b.Span >= 0 {
			prov = rec.Spans[b.Span].Provenance
		} else {
			for _, q := range records.RuleQuestions(b.Rule) {
				if p := rec.Provenance[q]; p != nil && prov == nil {
					prov = p
				}
			}
		}
		report(b.Rule, prov)
	}
	return broken
}

// item is the item of an ID, or nil.
func (g *golden) item(id string) *Item { return g.items[id] }

// finish orders a gold record's spans and sets its status: complete when
// nothing is unresolved, every required question has a value and no rule
// of severity error is broken.
func (g *golden) finish(rec *records.Annotation) {
	// In the order annotators wrote them, then by place in the text.
	idx := make([]int, len(rec.Spans))
	for k := range idx {
		idx[k] = k
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		a, b := rec.Spans[i], rec.Spans[j]
		return cmp.Or(cmp.Compare(at(g.order, i), at(g.order, j)), cmp.Compare(a.Field, b.Field), cmp.Compare(pos(a.Start), pos(b.Start)), cmp.Compare(pos(a.End), pos(b.End)), cmp.Compare(a.Code, b.Code))
	})
	sorted := make([]records.SpanAnswer, len(idx))
	for k, i := range idx {
		sorted[k] = rec.Spans[i]
	}
	rec.Spans = sorted
	for k := range rec.Spans {
		rec.Spans[k].Row = 0
	}
	rec.Status = records.StatusComplete
	if g.checkRules(rec) {
		rec.Status = records.StatusPartial
	}
	for _, p := range rec.Provenance {
		if p.Kind == records.ProvenanceUnresolved {
			rec.Status = records.StatusPartial
		}
	}
	for i := range g.t.Questions {
		q := &g.t.Questions[i]
		if q.Required && !rowQuestion(g.t, q) {
			// A question carried has nothing left to decide, but no
			// value either: a required one leaves the record partial.
			if _, ok := rec.Values[q.Name]; !ok {
				rec.Status = records.StatusPartial
			}
		}
	}
	if len(rec.Values) == 0 && len(rec.Spans) == 0 && rec.Status == records.StatusComplete && len(rec.Provenance) == 0 {
		rec.Status = records.StatusEmpty
	}
	if len(rec.Provenance) == 0 {
		rec.Provenance = nil
	}
}

func pos(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// sortedItems are items in ID order.
func sortedItems(m map[string]*Item) []*Item {
	out := make([]*Item, 0, len(m))
	for _, it := range m {
		out = append(out, it)
	}
	slices.SortFunc(out, func(a, b *Item) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func sortedCodes(codes []string) []string {
	out := append([]string{}, codes...)
	slices.Sort(out)
	return out
}
