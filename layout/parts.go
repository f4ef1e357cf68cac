package layout

import (
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// This file lends the pieces of an annotation workbook to other workbooks
// made from a template (the adjudication's): reading an answer cell as
// pull does, finding a span in its field, sizing rows, and writing an
// Instructions sheet in the same look.

// CellProblem is what reading one answer cell found: Severity is Error
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
		if issue != nil && issue.severity == Error {
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
		if issue != nil && issue.severity == Error {
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

// RowHeight is the height, in points, of a row whose tallest wrapped text
// is s in a column width characters wide; 0 leaves one line to the
// application.
func RowHeight(s string, width float64) float64 {
	return lineHeight(countLines(s, width, maxLines))
}

// Sheet looks shared with annotation workbooks.
var (
	// StyleHeader is a header row's cell.
	StyleHeader = styleHeader
	// FillContext is a read-only context cell's fill.
	FillContext = fillContext
)

// Instructions builds an Instructions sheet in the look of an annotation
// workbook's: prose some 80 characters wide, headings, and tables of four
// columns.
type Instructions struct{ in instr }

// Title adds the sheet's title.
func (s *Instructions) Title(text string) { s.in.prose(text, styleTitle) }

// Hint adds a line of small print.
func (s *Instructions) Hint(text string) { s.in.prose(text, styleHint) }

// Heading starts a section.
func (s *Instructions) Heading(text string) { s.in.blank(); s.in.prose(text, styleHeading) }

// Subheading starts a part of a section.
func (s *Instructions) Subheading(text string) { s.in.blank(); s.in.prose(text, styleSub) }

// Prose adds the paragraphs of a text (split at blank lines, lines of
// each unwrapped).
func (s *Instructions) Prose(text string) {
	for _, p := range paragraphs(text) {
		s.in.prose(p, styleProse)
	}
}

// Bullet adds a paragraph with a bullet.
func (s *Instructions) Bullet(text string) { s.in.prose("• "+text, styleProse) }

// TableHead adds a table's header row of up to four cells.
func (s *Instructions) TableHead(cells ...string) { s.in.table(styleTHead, cells...) }

// TableRow adds a table row of up to four cells.
func (s *Instructions) TableRow(cells ...string) { s.in.table(styleTCell, cells...) }

// Categories adds, under one heading, a table of each choice and multi
// question's labels, codes and meanings, as the annotators' Instructions
// sheet has.
func (s *Instructions) Categories(t *templates.Template) { s.in.categories(t) }

// Sheet is the Instructions sheet, locked.
func (s *Instructions) Sheet() *backend.Sheet { return s.in.sheet() }
