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

// openSpanSources leaves the span sources' columns unlocked.
func (b *builder) openSpanSources(cols []backend.Column) {
	for i, c := range b.cols {
		if c.Role == templates.RoleContext && b.t.SpanSource(c.Context) {
			cols[i].Style.Unlocked = true
		}
	}
}

// contextStyle is the style of a context cell: unlocked for span sources.
func (b *builder) contextStyle(c templates.ColumnSpec) backend.Style {
	s := styleContext
	s.Unlocked = b.t.SpanSource(c.Context)
	return s
}

// spanSourceNote adds to a context column's header note what annotators
// may do in a span source.
func (b *builder) spanSourceNote(c templates.ColumnSpec, note string) string {
	if c.Role != templates.RoleContext || !b.t.SpanSource(c.Context) {
		return note
	}
	return strings.TrimSpace(note + "\n" + spanSourceNote)
}
