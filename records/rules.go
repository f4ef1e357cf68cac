package records

import (
	"maps"

	"github.com/annosheet/annosheet/templates"
)

// RowAnswers is a block's span entry as the answers of its row, by
// question: the span question's SpanValue, the label question's code,
// the evidence question's Evidence and the rest of the row's values. It
// is the inverse of what pull makes of a row, for whatever reads a
// record's spans as rows: a rule, an export's expression, a prefilled
// sheet.
func RowAnswers(t *templates.Template, s SpanAnswer) map[string]any {
	out := maps.Clone(s.Values)
	if out == nil {
		out = map[string]any{}
	}
	if p := t.PrimarySpan(); p != "" && (s.Text != "" || s.Start != nil) {
		out[p] = SpanValue{Field: s.Field, Start: s.Start, End: s.End, Text: s.Text}
	}
	if t.Rows.Label != "" && s.Code != "" {
		out[t.Rows.Label] = s.Code
	}
	if e := t.RowEvidence(); e != "" && s.Evidence != nil {
		out[e] = *s.Evidence
	}
	return out
}

// RuleBreak is a rule of the template that a record does not keep: on
// its own values (Span -1), or on the row of its span Span.
type RuleBreak struct {
	Rule *templates.Rule
	Span int
}

// RuleBreaks are the template's rules a record breaks, as pull would
// report them on a sheet holding its answers: a rule about questions
// asked once is tested on the record's values, one about a block's rows
// on each span's row, with the record's values beside it. Rules of every
// severity are given; the caller decides what an error means.
func RuleBreaks(t *templates.Template, rec *Annotation) []RuleBreak {
	whole := func(q string) (any, bool) { v, ok := rec.Values[q]; return v, ok }
	var out []RuleBreak
	for i := range t.Rules {
		r := &t.Rules[i]
		if !rowRule(t, r) {
			if r.When.Holds(whole) && !r.Then.Holds(whole) {
				out = append(out, RuleBreak{Rule: r, Span: -1})
			}
			continue
		}
		for k, s := range rec.Spans {
			row := RowAnswers(t, s)
			get := func(q string) (any, bool) {
				if v, ok := row[q]; ok {
					return v, true
				}
				return whole(q)
			}
			if r.When.Holds(get) && !r.Then.Holds(get) {
				out = append(out, RuleBreak{Rule: r, Span: k})
			}
		}
	}
	return out
}

// rowRule says a rule names a question asked on every row of a block.
func rowRule(t *templates.Template, r *templates.Rule) bool {
	if t.Rows.Per != templates.PerBlock {
		return false
	}
	for _, q := range RuleQuestions(r) {
		if qq := t.QuestionByName(q); qq != nil && qq.Scope != "block" {
			return true
		}
	}
	return false
}

// RuleQuestions are the questions a rule's conditions name, its Then's
// first.
func RuleQuestions(r *templates.Rule) []string {
	var out []string
	var walk func(c *templates.Cond)
	walk = func(c *templates.Cond) {
		if c == nil {
			return
		}
		if c.Question != "" {
			out = append(out, c.Question)
		}
		for _, s := range c.All {
			walk(s)
		}
		for _, s := range c.Any {
			walk(s)
		}
		walk(c.Not)
	}
	walk(r.Then)
	walk(r.When)
	return out
}
