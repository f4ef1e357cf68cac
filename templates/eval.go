package templates

import (
	"encoding/json"
	"math"
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
	if c.AtLeast != nil || c.AtMost != nil {
		return c.inRange(v, ok)
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

// inRange tests a scale's answer against at_least and at_most.
func (c *Cond) inRange(v any, ok bool) bool {
	n, isNum := wholeNumber(v)
	if !ok || !isNum {
		return false
	}
	return (c.AtLeast == nil || n >= *c.AtLeast) && (c.AtMost == nil || n <= *c.AtMost)
}

// wholeNumber reads a scale's answer: an int in canonical records, a
// json.Number or float64 in records read back from JSON.
func wholeNumber(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return int(v), true
		}
	case json.Number:
		if n, err := strconv.Atoi(string(v)); err == nil {
			return n, true
		}
	}
	return 0, false
}
