package decode_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/templates"
)

// rangeTemplate asks for a severity and a rationale, which a severity of
// 3 or more needs; a severity from 1 to 2 allows no escalation.
const rangeTemplate = `name: ranges
version: 1
title: Ranges
instructions: Rate each answer.
input: {id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: severity, header: Severity, type: scale, min: 1, max: 5, unanswered: 0}
  - {name: rationale, header: Rationale, type: text}
  - {name: escalate, header: Escalate, type: bool}
rules:
  - require: rationale
    when: {question: severity, at_least: 3}
    message: a severity of 3 or more needs a rationale
  - allow: escalate
    only_when: {question: severity, at_least: 3, at_most: 5}
    severity: warning
    message: escalate only severe errors
`

// TestPullScaleRange checks rules that compare a scale's answer: at_least
// and at_most hold on answers in their range only, never on an unanswered
// or unreadable one.
func TestPullScaleRange(t *testing.T) {
	tp, err := templates.Load("ranges.yaml", []byte(rangeTemplate))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		cells map[string]string
		probs []prob
	}{
		{"below the bound", map[string]string{"q:severity": "2"}, nil},
		{"on the bound, without a rationale", map[string]string{"q:severity": "3"},
			[]prob{{"error", "D2", "r1", "a severity of 3 or more needs a rationale", decode.ErrRule}}},
		{"above it, as text, with a rationale", map[string]string{"q:severity": " 5.0 ", "q:rationale": "wrong date"}, nil},
		{"not yet answered", map[string]string{"q:severity": "0", "q:rationale": "x", "q:escalate": "TRUE"},
			[]prob{{"warning", "C2", "r1", "escalate only severe errors", decode.ErrRule}}},
		{"unreadable", map[string]string{"q:severity": "high", "q:escalate": "TRUE"}, []prob{
			{"error", "C2", "r1", `"high" is not a whole number from 1 to 5`, decode.ErrInvalidAnswer},
			{"warning", "C2", "r1", "escalate only severe errors", decode.ErrRule},
		}},
		{"in the range", map[string]string{"q:severity": "4", "q:rationale": "x", "q:escalate": "yes"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMemBook(t, tp, `{"id": "r1", "text": "t"}`+"\n")
			c.cells["annotator"] = "AK"
			for k, v := range c.cells {
				m.set("r1", k, v)
			}
			p := pullMem(t, m, decode.PullOptions{})
			if diff := cmp.Diff(c.probs, probs(p.Problems), cmpErr, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
