package decode

import (
	"errors"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrContextEdited: the text of a context column that spans are copied
// from was changed in the sheet. Pull finds spans in the text as
// generated, so the change is ignored; the warning says where it was.
var ErrContextEdited = errors.New("context edited")

// readSpanSources keeps the text of a row's span-source cells, which
// checkSpanSources compares with the text generated there. Other context
// is not read, to keep long texts out of memory.
func (p *puller) readSpanSources(row *sheetRow, cells []backend.ReadCell) {
	for i, j := range p.at {
		if j >= 0 && j < len(cells) && p.cols[i].Role == templates.RoleContext && p.t.SpanSource(p.cols[i].Context) {
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
		if c.Role != templates.RoleContext || !p.t.SpanSource(c.Context) {
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
			want, _ = layout.Clean(orig, 0)
		default: // not known: only text that is there is compared
			want, _ = layout.Clean(orig, 0)
			sure = false
		}
		if !sure && !hasText(got) || sameText(got, want) || layout.ShowsPart(normLines(got), want, c.Context.Show == templates.ShowTail) {
			continue
		}
		what := "was changed"
		if !hasText(got) {
			what = "was deleted"
		}
		p.problem(records.Warning, ErrContextEdited, u.ID, row.n, p.at[i], "the text of %q %s here; the change is ignored: spans are found in the text as it was generated", c.Header, what)
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
