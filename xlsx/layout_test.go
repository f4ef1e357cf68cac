package xlsx_test

import (
	"slices"

	"github.com/annosheet/annosheet/templates"
)

// frozenCols is how many columns of the Annotate sheet a template keeps
// in view: the ID, the annotator's on the left, and with the answers on
// the left every column before the context.
func frozenCols(tmpl *templates.Template) int {
	if tmpl.Rows.Answers == templates.AnswersLeft {
		cols := tmpl.Columns()
		if i := slices.IndexFunc(cols, func(c templates.ColumnSpec) bool { return c.Role == templates.RoleContext }); i > 0 {
			return i
		}
	}
	if tmpl.Annotator.Position == "left" {
		return 2
	}
	return 1
}

// spanSource reports a context column that a span question copies from:
// it is left open, so that part of its text can be selected.
func spanSource(cols []templates.ColumnSpec, c templates.ColumnSpec) bool {
	return c.Role == templates.RoleContext && slices.ContainsFunc(cols, func(q templates.ColumnSpec) bool {
		return q.Question != nil && q.Question.Type == templates.TypeSpan && q.Question.Field == c.Context.Name
	})
}
