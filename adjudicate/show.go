package adjudicate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Words the sheets show for no answer.
const (
	noAnswer = "(no answer)"
	noSpan   = "(no span)"
	noneSet  = "(none ticked)"
	notAsked = "—" // the annotator had no complete record of the unit
)

// show is a typed value as the annotators saw it: a choice's label, a
// multi's option headers, a tick, a number, a text.
func show(t *templates.Template, q *templates.Question, v any) string {
	if v == nil {
		return noAnswer
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
			out = append(out, optionName(q, c))
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
		return showEvidence(&x)
	case *records.Evidence:
		return showEvidence(x)
	}
	return fmt.Sprint(v)
}

// optionName is an option as its checkbox column or dropdown showed it.
func optionName(q *templates.Question, code string) string {
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

func showEvidence(e *records.Evidence) string {
	var s []string
	for _, n := range e.Sentences {
		s = append(s, strconv.Itoa(n))
	}
	return fmt.Sprintf("P%d S%s", e.Passage, strings.Join(s, ", "))
}

// showSpans is one annotator's spans of a cluster, one line each: the
// text, its type, its evidence and any other answer of its row.
func showSpans(t *templates.Template, spans []records.SpanAnswer) string {
	if len(spans) == 0 {
		return noSpan
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
			parts = append(parts, "evidence "+showEvidence(s.Evidence))
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
			parts = append(parts, h+": "+show(t, q, s.Values[n]))
		}
		lines = append(lines, strings.Join(parts, " · "))
	}
	return strings.Join(lines, "\n")
}

// where says where a cluster is, for the Where column.
func where(t *templates.Template, c *Cluster) string {
	if c.Start < 0 {
		label := c.Code
		if q := t.QuestionByName(t.Rows.Label); q != nil {
			if o := q.Option(c.Code); o != nil {
				label = o.Label
			}
		}
		if label == "" {
			return "rows without a span"
		}
		return "rows without a span: " + label
	}
	h := c.Field
	if cx := t.ContextByName(c.Field); cx != nil {
		h = cx.Header
	}
	return fmt.Sprintf("%s, characters %d–%d", h, c.Start, c.End)
}
