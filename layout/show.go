package layout

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Words shown for no answer.
const (
	NoAnswer = "(no answer)"
	NoSpan   = "(no span)"
	noneSet  = "(none ticked)"
)

// ShowValue is a typed answer in words, as the annotators saw it: a choice's label, a
// multi's option headers, a tick, a number, a text.
func ShowValue(t *templates.Template, q *templates.Question, v any) string {
	if v == nil {
		return NoAnswer
	}
	switch x := v.(type) {
	case string:
		if q != nil && q.Type == templates.TypeChoice {
			if o := q.Option(x); o != nil {
				return o.Label
			}
		}
		return x
	case []string:
		if len(x) == 0 {
			return noneSet
		}
		var out []string
		for _, c := range x {
			out = append(out, OptionName(q, c))
		}
		return strings.Join(out, "; ")
	case bool:
		if x {
			return "ticked"
		}
		return "not ticked"
	case int:
		return strconv.Itoa(x)
	case records.SpanValue:
		return "«" + x.Text + "»"
	case *records.SpanValue:
		return "«" + x.Text + "»"
	case records.Evidence:
		return ShowEvidence(&x)
	case *records.Evidence:
		return ShowEvidence(x)
	}
	return fmt.Sprint(v)
}

// OptionName is an option as its checkbox column or dropdown showed it.
func OptionName(q *templates.Question, code string) string {
	if q == nil {
		return code
	}
	if o := q.Option(code); o != nil {
		if o.Header != "" {
			return o.Header
		}
		return o.Label
	}
	return code
}

// ShowEvidence is evidence in words: "P2 S3, 4".
func ShowEvidence(e *records.Evidence) string {
	var s []string
	for _, n := range e.Sentences {
		s = append(s, strconv.Itoa(n))
	}
	return fmt.Sprintf("P%d S%s", e.Passage, strings.Join(s, ", "))
}

// ShowSpans is one annotator's spans of a cluster, one line each: the
// text, its type, its evidence and any other answer of its row.
func ShowSpans(t *templates.Template, spans []records.SpanAnswer) string {
	if len(spans) == 0 {
		return NoSpan
	}
	var lines []string
	for _, s := range spans {
		var parts []string
		if s.Text != "" {
			parts = append(parts, "«"+s.Text+"»")
		} else {
			parts = append(parts, "no span")
		}
		if s.Label != "" {
			parts = append(parts, s.Label)
		}
		if s.Evidence != nil {
			parts = append(parts, "evidence "+ShowEvidence(s.Evidence))
		}
		var names []string
		for n := range s.Values {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			q := t.QuestionByName(n)
			h := n
			if q != nil {
				h = q.Header
			}
			parts = append(parts, h+": "+ShowValue(t, q, s.Values[n]))
		}
		lines = append(lines, strings.Join(parts, " · "))
	}
	return strings.Join(lines, "\n")
}
