package templates

import (
	"slices"
	"strconv"
)

// AnswerFunc gives a condition the answer to a question: ok is false when
// the question is unanswered. Answers are in canonical form: a choice's
// code (string), a multi's codes ([]string), a bool, a scale's int, a text
// (string), or another value (spans, evidence) whose presence is all a
// condition can test.
type AnswerFunc func(question string) (v any, ok bool)

// Holds evaluates the condition on one unit's (or one answer row's)
// answers. Tests of codes on an unanswered question: any_of and all_of do
// not hold; none_of and only hold (nothing was given that they forbid).
func (c *Cond) Holds(answer AnswerFunc) bool {
	switch {
	case c == nil:
		return true
	case c.All != nil:
		for _, s := range c.All {
			if !s.Holds(answer) {
				return false
			}
		}
		return true
	case c.Any != nil:
		for _, s := range c.Any {
			if s.Holds(answer) {
				return true
			}
		}
		return false
	case c.Not != nil:
		return !c.Not.Holds(answer)
	}
	v, ok := answer(c.Question)
	if c.Answered != nil {
		return ok == *c.Answered
	}
	codes := answerCodes(v, ok)
	has := func(code string) bool { return slices.Contains(codes, code) }
	switch {
	case c.AnyOf != nil:
		return slices.ContainsFunc(c.AnyOf, has)
	case c.AllOf != nil:
		return ok && !slices.ContainsFunc(c.AllOf, func(code string) bool { return !has(code) })
	case c.NoneOf != nil:
		return !slices.ContainsFunc(c.NoneOf, has)
	case c.Only != nil:
		return !slices.ContainsFunc(codes, func(code string) bool { return !slices.Contains(c.Only, code) })
	}
	return false
}

// answerCodes lists the codes an answer consists of.
func answerCodes(v any, ok bool) []string {
	if !ok {
		return nil
	}
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case bool:
		return []string{strconv.FormatBool(v)}
	case int:
		return []string{strconv.Itoa(v)}
	}
	return nil
}
