package templates

import (
	"fmt"
	"strings"
)

// Column roles on the Annotate sheet.
const (
	RoleID        = "id"        // the instance id, leftmost
	RoleContext   = "context"   // read-only context
	RoleAnswer    = "answer"    // an answer cell
	RoleAnnotator = "annotator" // the annotator's ID
	RoleUnit      = "unit"      // the hidden unit id that keeps rows joined to units
	// RoleSuggestion is a hidden copy of an answer column's prefilled
	// value (generate --prefill): the sheet compares the answer with it
	// to show which suggestions are still unchanged. Pull never reads it.
	RoleSuggestion = "suggestion"
)

// Column parts of a question that takes more than one column.
const (
	PartOccurrence = "occurrence"
	PartPassage    = "passage"
	PartSentences  = "sentences"
)

// ColumnSpec is one column of the Annotate sheet as the template defines
// it. Key is stable across header renames and is what a workbook records
// about each column: "id", "unit", "annotator", "context:NAME", "q:NAME",
// "q:NAME=CODE" (a checkbox per option), "q:NAME#PART".
type ColumnSpec struct {
	Key      string
	Header   string
	Role     string
	Width    float64
	Context  *Context
	Question *Question
	Option   *Option // the option of a checkbox column
	Part     string  // PartOccurrence, PartPassage or PartSentences
	// For is, in a suggestion column, the key of the answer column whose
	// suggested value it holds.
	For  string
	line int
}

// ColumnOptions say which columns a workbook adds to the template's.
type ColumnOptions struct {
	// Suggested adds, right after each answer column, a hidden column
	// that holds the answer the unit started from (RoleSuggestion, key
	// "s:" and the answer column's key, For the answer column's key).
	Suggested bool
	// Suggestions adds, right before each question's first answer
	// column, a read-only column that shows the answer suggested for it
	// (RoleSuggestion, key "s:q:" and the question's name, For "q:" and
	// the question's name), the answer cells left empty.
	Suggestions bool
}

// Columns lists the columns of the Annotate sheet in order: the ID, the
// context, the answers (the answers before the context with rows.answers:
// left), the annotator (left after the ID, or rightmost), the Check column
// the sheet computes (last, or right after answers on the left), and the
// hidden unit column.
func (t *Template) Columns() []ColumnSpec { return t.ColumnsWith(ColumnOptions{}) }

// ColumnsWith lists the columns of the Annotate sheet as Columns does,
// with the columns opt adds.
func (t *Template) ColumnsWith(opt ColumnOptions) []ColumnSpec {
	var cols []ColumnSpec
	cols = append(cols, ColumnSpec{Key: RoleID, Header: t.Rows.IDHeader, Role: RoleID, Width: t.Rows.IDWidth, line: t.Rows.Line})
	ann := ColumnSpec{Key: RoleAnnotator, Header: t.Annotator.Header, Role: RoleAnnotator, Width: t.Annotator.Width, line: t.Annotator.Line}
	if t.Annotator.Position == "left" {
		cols = append(cols, ann)
	}
	for i := range t.Context {
		c := &t.Context[i]
		cols = append(cols, ColumnSpec{Key: "context:" + c.Name, Header: c.Header, Role: RoleContext, Width: c.Width, Context: c, line: c.Line})
	}
	for i := range t.Questions {
		q := &t.Questions[i]
		base := ColumnSpec{Key: "q:" + q.Name, Header: q.Header, Role: RoleAnswer, Width: q.Width, Question: q, line: q.Line}
		switch {
		case q.Type == TypeMulti && q.Render == "checkboxes":
			for j := range q.Options {
				o := &q.Options[j]
				c := base
				c.Key, c.Header, c.Option, c.line = base.Key+"="+o.Code, o.Header, o, o.Line
				cols = append(cols, c)
			}
		case q.Type == TypeEvidence:
			p, s := base, base
			p.Key, p.Header, p.Part, p.Width = base.Key+"#"+PartPassage, q.PassageHeader, PartPassage, 12
			s.Key, s.Header, s.Part = base.Key+"#"+PartSentences, q.SentencesHeader, PartSentences
			cols = append(cols, p, s)
		case q.Type == TypeSpan && q.Occurrence:
			o := base
			o.Key, o.Header, o.Part, o.Width = base.Key+"#"+PartOccurrence, q.Header+": occurrence", PartOccurrence, 12
			cols = append(cols, base, o)
		default:
			cols = append(cols, base)
		}
	}
	switch {
	case opt.Suggested:
		cols = suggestionColumns(cols)
	case opt.Suggestions:
		cols = suggestionsShown(cols)
	}
	cols = t.placeAnswers(cols)
	if t.Annotator.Position != "left" {
		cols = append(cols, ann)
	}
	cols = t.placeCheck(cols, t.checkColumn(cols))
	cols = append(cols, ColumnSpec{Key: RoleUnit, Header: UnitHeader, Role: RoleUnit, Width: 12})
	return cols
}

// suggestionColumns puts a suggestion column right after each answer
// column.
func suggestionColumns(cols []ColumnSpec) []ColumnSpec {
	out := make([]ColumnSpec, 0, 2*len(cols))
	for _, c := range cols {
		out = append(out, c)
		if c.Role != RoleAnswer {
			continue
		}
		s := c
		s.Key, s.Header, s.Role, s.For, s.Width = "s:"+c.Key, "Suggested: "+c.Header, RoleSuggestion, c.Key, 12
		out = append(out, s)
	}
	return out
}

// suggestionsShown puts a column that shows a question's suggested
// answer right before the question's first column.
func suggestionsShown(cols []ColumnSpec) []ColumnSpec {
	out := make([]ColumnSpec, 0, 2*len(cols))
	var last *Question
	for _, c := range cols {
		if c.Role == RoleAnswer && c.Question != last {
			q := c.Question
			out = append(out, ColumnSpec{Key: "s:q:" + q.Name, Header: "Suggested: " + q.Header, Role: RoleSuggestion, Width: max(q.Width, 14), Question: q, For: "q:" + q.Name, line: q.Line})
		}
		if c.Role == RoleAnswer {
			last = c.Question
		}
		out = append(out, c)
	}
	return out
}

// Describe renders a condition in words, for default rule messages.
func (c *Cond) Describe(t *Template) string {
	if c == nil {
		return ""
	}
	switch {
	case c.All != nil:
		return joinConds(c.All, t, " and ")
	case c.Any != nil:
		return joinConds(c.Any, t, " or ")
	case c.Not != nil:
		return "not (" + c.Not.Describe(t) + ")"
	}
	name := c.Question
	q := t.QuestionByName(c.Question)
	if q != nil {
		name = q.Header
	}
	labels := func(codes []string) string {
		out := make([]string, len(codes))
		for i, code := range codes {
			out[i] = code
			if q != nil {
				if o := q.Option(code); o != nil && o.Label != code {
					out[i] = fmt.Sprintf("%s (%s)", code, o.Label)
				}
			}
		}
		return strings.Join(out, ", ")
	}
	switch {
	case c.Answered != nil && *c.Answered:
		return fmt.Sprintf("%q is answered", name)
	case c.Answered != nil:
		return fmt.Sprintf("%q is left empty", name)
	case c.AnyOf != nil:
		return fmt.Sprintf("%q is one of %s", name, labels(c.AnyOf))
	case c.AllOf != nil:
		return fmt.Sprintf("%q includes all of %s", name, labels(c.AllOf))
	case c.NoneOf != nil:
		return fmt.Sprintf("%q is none of %s", name, labels(c.NoneOf))
	case c.Only != nil:
		return fmt.Sprintf("%q has nothing but %s", name, labels(c.Only))
	case c.AtLeast != nil || c.AtMost != nil:
		return fmt.Sprintf("%q is %s", name, c.rangeWords())
	}
	return ""
}

// rangeWords says at_least and at_most in words: "3 or more", "at most
// 2", "from 2 to 4".
func (c *Cond) rangeWords() string {
	switch {
	case c.AtLeast != nil && c.AtMost != nil:
		return fmt.Sprintf("from %d to %d", *c.AtLeast, *c.AtMost)
	case c.AtLeast != nil:
		return fmt.Sprintf("%d or more", *c.AtLeast)
	case c.AtMost != nil:
		return fmt.Sprintf("%d or less", *c.AtMost)
	}
	return ""
}

func joinConds(cs []*Cond, t *Template, sep string) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Describe(t)
	}
	return strings.Join(out, sep)
}

// IDFormat is the compiled input id.
func (in *Input) IDFormat() Format { return in.id }

// ListPath is the list whose elements get a row each (per: element).
func (r *Rows) ListPath() Path { return r.path }

// OrderPaths are the compiled order_by paths.
func (r *Rows) OrderPaths() []Path { return r.orderBy }

// UnitFormat is the compiled unit id (per: element).
func (r *Rows) UnitFormat() Format { return r.unit }

// FieldPath is the compiled path of the anonymised field.
func (a *Anonymize) FieldPath() Path { return a.field }

// ValuePath is the compiled path of a context column.
func (c *Context) ValuePath() Path { return c.path }

// ItemFormat is the compiled format of each joined item.
func (j *Join) ItemFormat() Format { return j.item }

// PassagesPath is the compiled path of an evidence question's passages.
func (q *Question) PassagesPath() Path { return q.passages }

// KeyFormats are the compiled band keys.
func (b *Bands) KeyFormats() []Format { return b.key }

// InputPath, ElementPath and ValuePath are the compiled paths of an export
// expression's source.
func (e *Expr) InputPath() Path { return e.input }

// ElementPath is the compiled element path of an export expression.
func (e *Expr) ElementPath() Path { return e.element }

// ValuePath is the compiled answer path of an export expression.
func (e *Expr) ValuePath() Path { return e.value }
