package layout

import (
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// A context column that spans are copied from is left open: in Excel and
// LibreOffice a locked cell of a protected sheet cannot be entered, so its
// text could be copied only whole. Its note says that edits are ignored.
const spanSourceNote = "You may click into this text to select and copy part of it into a span column. Changes made here are ignored: the span is found in the text as it was generated."

// SpanSource reports whether a span question copies from a context column.
func SpanSource(t *templates.Template, cx *templates.Context) bool {
	if cx == nil {
		return false
	}
	for _, q := range t.Questions {
		if q.Type == templates.TypeSpan && q.Field == cx.Name {
			return true
		}
	}
	return false
}

// openSpanSources leaves the span sources' columns unlocked.
func (b *builder) openSpanSources(cols []backend.Column) {
	for i, c := range b.cols {
		if c.Role == templates.RoleContext && SpanSource(b.t, c.Context) {
			cols[i].Style.Unlocked = true
		}
	}
}

// contextStyle is the style of a context cell: unlocked for span sources.
func (b *builder) contextStyle(c templates.ColumnSpec) backend.Style {
	s := styleContext
	s.Unlocked = SpanSource(b.t, c.Context)
	return s
}

// spanSourceNote adds to a context column's header note what annotators
// may do in a span source.
func (b *builder) spanSourceNote(c templates.ColumnSpec, note string) string {
	if c.Role != templates.RoleContext || !SpanSource(b.t, c.Context) {
		return note
	}
	return strings.TrimSpace(note + "\n" + spanSourceNote)
}
