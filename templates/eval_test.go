package templates

import (
	"encoding/json"
	"testing"
)

// TestHoldsRange is the table of at_least and at_most: on whole numbers
// as records hold them, never on an unanswered or unreadable answer.
func TestHoldsRange(t *testing.T) {
	n := func(i int) *int { return &i }
	cases := []struct {
		cond Cond
		v    any
		ok   bool
		want bool
	}{
		{Cond{AtLeast: n(3)}, 3, true, true},
		{Cond{AtLeast: n(3)}, 2, true, false},
		{Cond{AtMost: n(2)}, 2, true, true},
		{Cond{AtMost: n(2)}, 3, true, false},
		{Cond{AtLeast: n(2), AtMost: n(4)}, 4, true, true},
		{Cond{AtLeast: n(2), AtMost: n(4)}, 5, true, false},
		{Cond{AtLeast: n(3)}, json.Number("4"), true, true},
		{Cond{AtLeast: n(3)}, 4.0, true, true},
		{Cond{AtLeast: n(3)}, 3.5, true, false},
		{Cond{AtMost: n(2)}, nil, false, false}, // unanswered
		{Cond{AtMost: n(2)}, nil, true, false},  // given but unreadable
		{Cond{AtMost: n(2)}, "1", true, false},  // not a number
		{Cond{Not: &Cond{Question: "s", AtLeast: n(3)}}, nil, false, true},
	}
	for _, c := range cases {
		if c.cond.Not == nil {
			c.cond.Question = "s"
		}
		got := c.cond.Holds(func(string) (any, bool) { return c.v, c.ok })
		if got != c.want {
			j, _ := json.Marshal(c.cond)
			t.Errorf("%s on %#v (answered %v): %v, want %v", j, c.v, c.ok, got, c.want)
		}
	}
}

func TestDescribeRange(t *testing.T) {
	n := func(i int) *int { return &i }
	tp := &Template{Questions: []Question{{Name: "s", Header: "Severity", Type: TypeScale}}}
	for _, c := range []struct {
		cond Cond
		want string
	}{
		{Cond{Question: "s", AtLeast: n(3)}, `"Severity" is 3 or more`},
		{Cond{Question: "s", AtMost: n(2)}, `"Severity" is 2 or less`},
		{Cond{Question: "s", AtLeast: n(2), AtMost: n(4)}, `"Severity" is from 2 to 4`},
	} {
		if got := c.cond.Describe(tp); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
