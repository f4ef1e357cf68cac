package adjudicate

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// SheetCorrections is the name of a feedback workbook's sheet of rows.
const SheetCorrections = "Corrections"

// Correction is one answer of an annotator that the gold set corrects:
// an adjudicator decided otherwise, or a majority of the other
// annotators outvoted it.
type Correction struct {
	Unit     string
	Kind     string // KindValue or KindSpans
	Question string
	Cluster  *Cluster // of a span cluster
	// Yours is the annotator's answer, Gold the gold set's (a value, or
	// the spans of the cluster).
	Yours, Gold Answer
	// Provenance is how the gold answer was decided: adjudicated, with
	// its reason and note, or majority.
	Provenance *records.Provenance
}

// Corrections finds, for each annotator, the answers the gold set
// corrects: every item an adjudicator decided where the annotator's
// answer is not the decision and, given the annotators' records, every
// answer accepted by a majority (--min-agreement) that the annotator did
// not give. Items nobody decided are left out. The corrections come in
// the units' order, questions in the template's, span clusters last.
func Corrections(t *templates.Template, m *Manifest, decided map[string]*Decision, recs []*records.Annotation) map[string][]*Correction {
	out := map[string][]*Correction{}
	add := func(a, gold Answer, c *Correction) {
		c.Yours, c.Gold = a, gold
		out[a.Annotator] = append(out[a.Annotator], c)
	}
	g := &golden{t: t, decided: decided}
	for _, it := range m.Items {
		gold, prov, ok := g.decidedAnswer(it)
		if !ok {
			continue
		}
		for _, a := range it.Answers {
			if !sameAnswer(it, a, gold) {
				add(a, gold, &Correction{Unit: it.Unit, Kind: it.Kind, Question: it.Question, Cluster: it.Cluster, Provenance: prov})
			}
		}
	}
	for _, c := range outvoted(t, m, recs) {
		add(c.Yours, c.Gold, c)
	}
	order := map[string]int{}
	for i, u := range m.Units {
		order[u.Unit] = i
	}
	qorder := func(c *Correction) int {
		if c.Kind == KindSpans {
			return len(t.Questions)
		}
		return slices.IndexFunc(t.Questions, func(q templates.Question) bool { return q.Name == c.Question })
	}
	for _, cs := range out {
		slices.SortStableFunc(cs, func(a, b *Correction) int {
			return cmp.Or(cmp.Compare(order[a.Unit], order[b.Unit]), cmp.Compare(qorder(a), qorder(b)), cmp.Compare(clusterStart(a), clusterStart(b)))
		})
	}
	return out
}

func clusterStart(c *Correction) int {
	if c.Cluster == nil {
		return 0
	}
	return c.Cluster.Start
}

// decidedAnswer is what an adjudicator's decision of an item makes the
// gold answer, resolved as Gold resolves it; ok is false when the item is
// unresolved.
func (g *golden) decidedAnswer(it *Item) (Answer, *records.Provenance, bool) {
	d := g.decided[it.ID]
	if d == nil || d.Bad {
		return Answer{}, nil, false
	}
	rec := &records.Annotation{Unit: it.Unit, Values: map[string]any{}, Provenance: map[string]*records.Provenance{}}
	g.resolve(rec, it)
	p := rec.Provenance[it.Question]
	if it.Kind == KindValue {
		if p == nil || p.Kind != records.ProvenanceAdjudicated {
			return Answer{}, nil, false
		}
		return Answer{Annotator: records.GoldAnnotator, Value: rec.Values[it.Question]}, p, true
	}
	if p != nil || d.Bad { // an unresolved cluster marks the question
		return Answer{}, nil, false
	}
	if len(rec.Spans) > 0 {
		p = rec.Spans[0].Provenance
	} else { // dropped
		p = g.adjudicated(it, d, countSpans(it, nil))
	}
	return Answer{Annotator: records.GoldAnnotator, Spans: rec.Spans}, p, true
}

// outvoted are the answers a majority outvoted: for each unit the
// annotators accepted by --min-agreement, the records' answers that differ
// from the one accepted.
func outvoted(t *templates.Template, m *Manifest, recs []*records.Annotation) []*Correction {
	byUnit := map[string][]*records.Annotation{}
	for _, r := range recs {
		if r.Status == records.StatusComplete && r.Annotator != "" && r.Annotator != records.GoldAnnotator {
			byUnit[r.Unit] = append(byUnit[r.Unit], r)
		}
	}
	var out []*Correction
	for _, u := range m.Units {
		var rs []*records.Annotation
		for _, r := range byUnit[u.Unit] {
			if slices.Contains(u.Annotators, r.Annotator) && !slices.ContainsFunc(rs, func(p *records.Annotation) bool { return p.Annotator == r.Annotator }) {
				rs = append(rs, r)
			}
		}
		if len(rs) != len(u.Annotators) {
			continue // the records are not those the adjudication compared
		}
		slices.SortFunc(rs, func(a, b *records.Annotation) int { return strings.Compare(a.Annotator, b.Annotator) })
		for i := range t.Questions {
			q := &t.Questions[i]
			p := u.Provenance[q.Name]
			if p == nil || p.Kind != records.ProvenanceMajority {
				continue
			}
			gold := Answer{Annotator: records.GoldAnnotator, Value: u.Values[q.Name]}
			for _, r := range rs {
				if key(value(q, r.Values[q.Name])) != key(value(q, gold.Value)) {
					out = append(out, &Correction{Unit: u.Unit, Kind: KindValue, Question: q.Name, Yours: Answer{Annotator: r.Annotator, Value: r.Values[q.Name]}, Gold: gold, Provenance: p})
				}
			}
		}
		if !slices.ContainsFunc(u.Spans, func(s records.SpanAnswer) bool {
			return s.Provenance != nil && s.Provenance.Kind == records.ProvenanceMajority
		}) {
			continue
		}
		accepted := map[string]bool{}
		for _, k := range spanKeys(u.Spans) {
			accepted[k] = true
		}
		for _, c := range clusters(rs) {
			votes := tally(c.answers, func(a Answer) string { return key(spanKeys(a.Spans)) })
			win, ok := votes.accepted(m.MinAgreement)
			if !ok || win.count == votes.n {
				continue
			}
			gold := Answer{Annotator: records.GoldAnnotator, Spans: c.answers[win.first].Spans}
			if !allIn(spanKeys(gold.Spans), accepted) {
				continue
			}
			cl := c.cluster
			for _, a := range c.answers {
				if !sameSpans(a, gold) {
					out = append(out, &Correction{Unit: u.Unit, Kind: KindSpans, Question: t.Rows.Spans, Cluster: &cl, Yours: a, Gold: gold, Provenance: votes.provenance(win)})
				}
			}
		}
	}
	return out
}

func sameSpans(a, b Answer) bool { return key(spanKeys(a.Spans)) == key(spanKeys(b.Spans)) }

func allIn(keys []string, set map[string]bool) bool {
	for _, k := range keys {
		if !set[k] {
			return false
		}
	}
	return true
}

// Feedback is one annotator's feedback workbook: their corrected answers.
type Feedback struct {
	Template  *templates.Template
	Annotator string
	// Others are the other annotators' IDs: an adjudicator's note that
	// names one says "another annotator" instead.
	Others      []string
	Corrections []*Correction
	// Context gives a unit's context texts by context name; nil shows
	// no context. Shown is the unit ID the annotator saw; nil shows the
	// unit's own.
	Context func(unit string) map[string]string
	Shown   func(unit string) string
	Limits  backend.Limits
}

// FeedbackPlan lays out an annotator's feedback workbook: a locked sheet
// of their corrected answers beside the gold ones, and Instructions.
func FeedbackPlan(f *Feedback) *backend.Plan {
	t := f.Template
	rs := layout.NewReadSheet(f.Limits.CellChars)
	sheets := []*backend.Sheet{f.sheet(rs), f.instructions()}
	if r := rs.Sheet(); r != nil {
		sheets = append(sheets, r)
	}
	return &backend.Plan{Title: fmt.Sprintf("%s feedback · %s", t.Name, f.Annotator), Sheets: sheets}
}

// feedbackColumn is a column of the Corrections sheet and its cell of a
// correction.
type feedbackColumn struct {
	header string
	width  float64
	text   func(c *Correction) string
	fill   string
	tail   bool // a long text shows its end (a context shown so)
}

func (f *Feedback) columns() []feedbackColumn {
	t := f.Template
	cols := []feedbackColumn{
		{header: unitHeader(t), width: 14, text: func(c *Correction) string {
			if f.Shown != nil {
				return f.Shown(c.Unit)
			}
			return c.Unit
		}},
		{header: "Question", width: 20, text: func(c *Correction) string {
			if c.Kind == KindSpans {
				return "Spans: " + where(t, c.Cluster)
			}
			return describe(t, &Item{Kind: c.Kind, Question: c.Question})
		}},
	}
	if f.Context != nil {
		for i := range t.Context {
			cx := &t.Context[i]
			cols = append(cols, feedbackColumn{header: cx.Header, width: contextWidth(cx), fill: layout.FillContext, tail: cx.Show == templates.ShowTail,
				text: func(c *Correction) string { return f.Context(c.Unit)[cx.Name] }})
		}
	}
	answer := func(c *Correction, a Answer) string {
		if c.Kind == KindSpans {
			return layout.ShowSpans(t, a.Spans)
		}
		return layout.ShowValue(t, t.QuestionByName(c.Question), a.Value)
	}
	return append(cols,
		feedbackColumn{header: "Your answer", width: 30, text: func(c *Correction) string { return answer(c, c.Yours) }},
		feedbackColumn{header: "Gold answer", width: 30, text: func(c *Correction) string { return answer(c, c.Gold) }},
		feedbackColumn{header: "Decided by", width: 16, text: decidedBy},
		feedbackColumn{header: "Reason", width: 18, text: func(c *Correction) string { return f.redact(c.Provenance.Reason) }},
		feedbackColumn{header: "Note", width: 30, text: func(c *Correction) string { return f.redact(c.Provenance.Note) }},
	)
}

// decidedBy says how the gold answer was decided, without naming anyone.
func decidedBy(c *Correction) string {
	p := c.Provenance
	if p.Kind == records.ProvenanceMajority {
		return fmt.Sprintf("majority (%d of %d)", p.Agreeing, p.Annotators)
	}
	return "adjudicator"
}

// redact puts "another annotator" where a note names another annotator
// (an adjudicator who saw their IDs may write one), as a word of its own
// in any case.
func (f *Feedback) redact(note string) string {
	for _, o := range f.Others {
		if o == "" || o == f.Annotator {
			continue
		}
		var b strings.Builder
		last := 0
		for _, m := range regexp.MustCompile(`(?i)`+regexp.QuoteMeta(o)).FindAllStringIndex(note, -1) {
			if m[0] < last || wordRune(note[:m[0]], true) || wordRune(note[m[1]:], false) {
				continue
			}
			b.WriteString(note[last:m[0]])
			b.WriteString("another annotator")
			last = m[1]
		}
		note = b.String() + note[last:]
	}
	return note
}

// wordRune reports whether the rune at the end (or the start) of s is a
// letter or digit: a name next to one is part of another word.
func wordRune(s string, end bool) bool {
	var r rune
	if end {
		r, _ = utf8.DecodeLastRuneInString(s)
	} else {
		r, _ = utf8.DecodeRuneInString(s)
	}
	return s != "" && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// sheet is the Corrections sheet. A text over what the tallest row shows
// is shown in part, whole on the Read sheet, which the row's ID links to.
func (f *Feedback) sheet(rs *layout.ReadSheet) *backend.Sheet {
	cols := f.columns()
	bc := make([]backend.Column, len(cols))
	headers := make([]string, len(cols))
	for i, c := range cols {
		bc[i] = backend.Column{Width: c.width, Style: backend.Style{Wrap: true}}
		headers[i] = c.header
	}
	texts := make([][]string, len(f.Corrections))
	read := make([]int, len(f.Corrections))
	for k, corr := range f.Corrections {
		texts[k] = make([]string, len(cols))
		for i, c := range cols {
			text := c.text(corr)
			if i >= 2 && text != "" {
				var at int
				text, at = rs.Fit(SheetCorrections, k+2, i, c.width, text, cols[0].text(corr), c.header, c.tail)
				if at > 0 && read[k] == 0 {
					read[k] = at
				}
			}
			texts[k][i] = text
		}
	}
	return &backend.Sheet{
		Name: SheetCorrections, Columns: bc, FreezeRows: 1, FreezeCols: 2, AutoFilter: true, FitWidth: true,
		Protect:  &backend.Protection{Sort: true, AutoFilter: true, FormatColumns: true, FormatRows: true},
		RowCount: len(f.Corrections) + 1,
		Rows: bandedRows(headers, f.Template.Bands.Palette, len(f.Corrections), func(i int) string { return f.Corrections[i].Unit }, func(k int, fill string) backend.Row {
			var r backend.Row
			for i, c := range cols {
				text, _ := layout.Clean(texts[k][i], f.Limits.CellChars)
				st := backend.Style{Wrap: true, Fill: fill}
				if c.fill != "" {
					st.Fill = c.fill
				}
				cell := backend.Cell{Style: st}
				if text != "" {
					cell.Value = text
					r.Height = max(r.Height, layout.RowHeight(text, c.width))
				}
				if i == 0 && read[k] > 0 {
					cell.Link = &backend.Link{Sheet: backend.SheetRead, Row: read[k]}
				}
				r.Cells = append(r.Cells, cell)
			}
			return r
		}),
	}
}

// instructions says what the feedback is and how to read it, with the
// guideline the annotator worked to.
func (f *Feedback) instructions() *backend.Sheet {
	t := f.Template
	in := &layout.Instructions{}
	in.Title("Feedback: " + t.Title)
	in.Hint(fmt.Sprintf("Template %s, version %d · annotator %s · %d corrected answers", t.Name, t.Version, f.Annotator, len(f.Corrections)))
	in.Heading("What this is")
	in.Prose(`Several annotators answered the same units. Where they disagreed, an adjudicator decided the answer that goes into the gold set, or, where enough annotators agreed, the majority's answer was taken. Each row of the Corrections sheet is one of your answers that the gold set does not keep: your answer beside the gold answer, so that you can see where your reading of the guideline differs from the one the study settled on. Answers of yours that the gold set keeps are not shown, nor are disagreements nobody has decided yet.`)
	in.Prose("Nothing here needs an answer: the workbook is read-only, and nobody pulls it. Sort and filter it as you like.")
	in.Heading("The Corrections sheet")
	in.Bullet("The unit's ID, as your workbook showed it, and the question; for spans, where the cluster of overlapping spans is.")
	if f.Context != nil {
		in.Bullet("The unit's context, as your workbook showed it.")
	}
	in.Bullet("Your answer and the gold answer, in the labels you saw. For spans, each line is one span: the text, its type and its evidence.")
	in.Bullet("Decided by: adjudicator, or majority (how many of the annotators gave the gold answer).")
	in.Bullet("Reason and Note: the adjudicator's, when they gave one: " + strings.Join(Reasons, ", ") + ".")
	if strings.TrimSpace(t.Instructions) != "" {
		in.Heading("The guideline")
		in.Prose(t.Instructions)
	}
	in.Categories(t)
	return in.Sheet()
}
