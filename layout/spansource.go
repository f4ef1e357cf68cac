package layout

import (
	"errors"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// ErrContextEdited: the text of a context column that spans are copied
// from was changed in the sheet. Pull finds spans in the text as
// generated, so the change is ignored; the warning says where it was.
var ErrContextEdited = errors.New("context edited")

// A context column that spans are copied from is left open: in Excel and
// LibreOffice a locked cell of a protected sheet cannot be entered, so its
// text could be copied only whole. Its note says that edits are ignored.
const spanSourceNote = "You may click into this text to select and copy part of it into a span column. Changes made here are ignored: the span is found in the text as it was generated."

// spanSource reports whether a span question copies from a context column.
func spanSource(t *templates.Template, cx *templates.Context) bool {
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
		if c.Role == templates.RoleContext && spanSource(b.t, c.Context) {
			cols[i].Style.Unlocked = true
		}
	}
}

// contextStyle is the style of a context cell: unlocked for span sources.
func (b *builder) contextStyle(c templates.ColumnSpec) backend.Style {
	s := styleContext
	s.Unlocked = spanSource(b.t, c.Context)
	return s
}

// spanSourceNote adds to a context column's header note what annotators
// may do in a span source.
func (b *builder) spanSourceNote(c templates.ColumnSpec, note string) string {
	if c.Role != templates.RoleContext || !spanSource(b.t, c.Context) {
		return note
	}
	return strings.TrimSpace(note + "\n" + spanSourceNote)
}

// readSpanSources keeps the text of a row's span-source cells, which
// checkSpanSources compares with the text generated there. Other context
// is not read, to keep long texts out of memory.
func (p *puller) readSpanSources(row *sheetRow, cells []backend.ReadCell) {
	for i, j := range p.at {
		if j >= 0 && j < len(cells) && p.cols[i].Role == templates.RoleContext && spanSource(p.t, p.cols[i].Context) {
			row.cells[i] = cellText(cells[j])
		}
	}
}

// checkSpanSources warns, naming the cell, where the text of a span
// source differs from what the workbook showed there, for a row of unit k
// (-1 when not known yet: such rows are not compared). The text is then
// dropped from the row.
func (p *puller) checkSpanSources(k int, row *sheetRow) {
	for i, c := range p.cols {
		if c.Role != templates.RoleContext || !spanSource(p.t, c.Context) {
			continue
		}
		got := row.cells[i]
		row.cells[i] = ""
		if k < 0 || p.at[i] < 0 {
			continue
		}
		u := p.unit(k)
		orig, ok := u.fields[c.Context.Name]
		if !ok {
			continue // nothing to compare with
		}
		want, sure := "", true
		switch shown := p.showsContext(k, *row, c.Context); {
		case shown == showNo:
		case shown == showYes:
			want, _ = Clean(orig, 0)
		default: // not known: only text that is there is compared
			want, _ = Clean(orig, 0)
			sure = false
		}
		if !sure && !hasText(got) || sameText(got, want) || showsPart(normLines(got), want, c.Context.Show == templates.ShowTail) {
			continue
		}
		what := "was changed"
		if !hasText(got) {
			what = "was deleted"
		}
		p.problem(Warning, ErrContextEdited, u.ID, row.n, p.at[i], "the text of %q %s here; the change is ignored: spans are found in the text as it was generated", c.Header, what)
	}
}

// Whether a row showed a context column's text when generated.
const (
	showNo = iota
	showYes
	showUnknown
)

// showsContext says whether a row of unit k was generated with the text
// of a context column: every row of a row per record; the rows of a row
// per element, or only the first of an instance's rows for a column shown
// on the first row only; the first row of a block. A block's rows can be
// told apart only where the workbook numbers them.
func (p *puller) showsContext(k int, row sheetRow, cx *templates.Context) int {
	u := p.units[k]
	switch p.t.Rows.Per {
	case templates.PerElement:
		if cx.FirstRowOnly && k > 0 && p.units[k-1].Item == u.Item {
			return showNo
		}
		return showYes
	case templates.PerBlock:
		switch {
		case row.pos == 1 || u.Rows == 1:
			return showYes
		case row.pos > 1:
			return showNo
		}
		return showUnknown
	}
	return showYes
}

// cellLimit is the cell limit of the workbook's backend, which cut long
// text when it was generated; 0 when not known.
func (p *puller) cellLimit() int {
	l, _ := backend.LimitsOf(p.g.Kind)
	return l.CellChars
}

// sameText compares a cell's text with the text generated there, line
// endings evened out: spreadsheets store a line break as they like.
func sameText(got, want string) bool {
	if got == want {
		return true
	}
	return normLines(got) == normLines(want)
}

// normLines makes every line break "\n", as applications may save "\r\n".
func normLines(s string) string {
	return strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
}
