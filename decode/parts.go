package decode

import (
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// CellProblem is what reading one answer cell found: Severity is records.Error
// (the value cannot be used) or Warning (it was read after trimming, case
// folding or the like), Err the sentinel (ErrInvalidAnswer or
// ErrNormalised).
type CellProblem struct {
	Severity string
	Err      error
	Message  string
}

func (c *cellIssue) exported() *CellProblem {
	if c == nil {
		return nil
	}
	return &CellProblem{Severity: c.severity, Err: c.err, Message: c.msg}
}

// ReadAnswer reads a cell as the answer to a question of type choice,
// scale, bool or text, or a multi's list of codes, as pull reads it; key
// is the column's key (a multi's checkbox column has "question=code"). ok
// is false when the cell gives no answer (empty, or a scale's
// not-answered value).
func ReadAnswer(q *templates.Question, key string, c backend.ReadCell) (v any, ok bool, p *CellProblem) {
	if issue := typeIssue(q, key, c); issue != nil {
		return nil, false, issue.exported()
	}
	text := cellText(c)
	if !hasText(text) {
		return nil, false, nil
	}
	switch q.Type {
	case templates.TypeChoice:
		code, issue := parseChoice(q, text)
		if issue != nil && issue.severity == records.Error {
			return nil, false, issue.exported()
		}
		return code, true, issue.exported()
	case templates.TypeBool:
		b, issue := parseBool(text)
		if issue != nil {
			return nil, false, issue.exported()
		}
		return b, true, nil
	case templates.TypeScale:
		n, answered, issue := parseScale(q, text)
		if issue != nil {
			return nil, false, issue.exported()
		}
		if !answered {
			return nil, false, nil
		}
		return n, true, nil
	case templates.TypeMulti:
		codes, issue := parseCodeList(q, text)
		if issue != nil && issue.severity == records.Error {
			return nil, false, issue.exported()
		}
		return codes, true, issue.exported()
	}
	return text, true, nil
}

// ReadCheckbox reads a checkbox cell: TRUE/FALSE, 1/0, x, yes/no and the
// like. ok is false for an empty cell.
func ReadCheckbox(c backend.ReadCell) (ticked, ok bool, p *CellProblem) {
	text := cellText(c)
	if !hasText(text) {
		return false, false, nil
	}
	b, issue := parseBool(text)
	if issue != nil {
		return false, false, issue.exported()
	}
	return b, true, nil
}

// SpanPlace is where a span's text occurs in its field, in code points,
// end exclusive.
type SpanPlace struct{ Start, End int }

// FindSpan finds every place a span's text occurs in its field: exactly,
// or else after forgiving the slips of copying (white space, curly quotes,
// dashes), as pull finds spans. exact says which.
func FindSpan(field, text string) (places []SpanPlace, exact bool) {
	ms := findExact(field, text)
	exact = len(ms) > 0
	if !exact {
		ms = findNormalised(field, text)
	}
	for _, m := range ms {
		places = append(places, SpanPlace{m.start, m.end})
	}
	return places, exact
}

// Substring is a field's code points [start, end), or "" when they are
// not in it.
func Substring(field string, start, end int) string { return substring(field, start, end) }
