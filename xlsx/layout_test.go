package xlsx_test

import (
	"slices"

	"github.com/annosheet/annosheet/templates"
)

// spanSource reports a context column that a span question copies from:
// it is left open, so that part of its text can be selected.
func spanSource(cols []templates.ColumnSpec, c templates.ColumnSpec) bool {
	return c.Role == templates.RoleContext && slices.ContainsFunc(cols, func(q templates.ColumnSpec) bool {
		return q.Question != nil && q.Question.Type == templates.TypeSpan && q.Question.Field == c.Context.Name
	})
}
