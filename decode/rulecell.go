package decode

import (
	"slices"

	"github.com/annosheet/annosheet/templates"
)

// ruleCol is the sheet column a broken rule is reported on: the cell of
// the question its then names first (else its when). When that question
// is a multi shown as checkboxes, it is the checkbox of the option the
// rule is about, so that the annotator finds the tick to look at: a
// ticked option the then forbids, else a ticked option that made the
// when hold, else an option the then asks for that is not ticked. -1 when
// the question has no column.
func (p *puller) ruleCol(r *templates.Rule, a *answers) int {
	name := firstQuestion(r.Then, r.When)
	q := p.t.QuestionByName(name)
	col := p.questionCol(q)
	if c, ok := a.cells[name]; ok && c >= 0 {
		col = c
	}
	if q == nil || q.Type != templates.TypeMulti || q.Render != "checkboxes" {
		return col
	}
	v, _ := a.get(name)
	ticked, _ := v.([]string)
	for _, about := range [][]string{
		condCodes(r.Then, name, func(c *templates.Cond) []string {
			switch {
			case c.NoneOf != nil:
				return intersect(ticked, c.NoneOf)
			case c.Only != nil:
				return slices.DeleteFunc(slices.Clone(ticked), func(code string) bool { return slices.Contains(c.Only, code) })
			}
			return nil
		}),
		condCodes(r.When, name, func(c *templates.Cond) []string {
			return intersect(ticked, append(slices.Clone(c.AnyOf), c.AllOf...))
		}),
		condCodes(r.Then, name, func(c *templates.Cond) []string {
			return slices.DeleteFunc(append(slices.Clone(c.AnyOf), c.AllOf...), func(code string) bool { return slices.Contains(ticked, code) })
		}),
	} {
		// The first such option in the order the sheet shows them.
		for _, o := range q.Options {
			if !slices.Contains(about, o.Code) {
				continue
			}
			if i, ok := p.colByKey["q:"+name+"="+o.Code]; ok && p.at[i] >= 0 {
				return p.at[i]
			}
		}
	}
	return col
}

// condCodes gathers the codes fn picks from the tests of a condition on
// one question, through all and any; a not is passed over, since it turns
// what its tests are about around.
func condCodes(c *templates.Cond, question string, fn func(*templates.Cond) []string) []string {
	if c == nil || c.Not != nil {
		return nil
	}
	var out []string
	for _, s := range append(slices.Clone(c.All), c.Any...) {
		out = append(out, condCodes(s, question, fn)...)
	}
	if c.Question == question {
		out = append(out, fn(c)...)
	}
	return out
}

// intersect is the codes of a that are in b.
func intersect(a, b []string) []string {
	var out []string
	for _, code := range a {
		if slices.Contains(b, code) {
			out = append(out, code)
		}
	}
	return out
}
