package sheets

import (
	"fmt"
	"strings"
	"unicode/utf16"

	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/backend"
)

// linkRuns makes the end of a cell's text, from the plan's Link.From, a
// link to a cell of the spreadsheet: Google Sheets links a run of text,
// addressed by its sheet's ID (#gid=) and an A1 range. The value stays a
// string, never a HYPERLINK formula, so pull reads it as it reads any
// text. The run lasts to the end of the text, so no run after it needs
// to undo the link.
func (r *renderer) linkRuns(c backend.Cell) ([]*sheetsapi.TextFormatRun, error) {
	l := c.Link
	s, ok := c.Value.(string)
	if !ok || s == "" {
		return nil, fmt.Errorf("links to %s but holds no text", l.Ref())
	}
	if l.From < 0 || l.From >= len(s) {
		return nil, fmt.Errorf("its link to %s starts at byte %d, outside its %d bytes of text", l.Ref(), l.From, len(s))
	}
	gid, ok := r.sheetID(l.Sheet)
	if !ok {
		return nil, fmt.Errorf("links to sheet %q, which the plan does not have", l.Sheet)
	}
	uri := fmt.Sprintf("#gid=%d&range=%s", gid, backend.CellName(l.Col, l.Row))
	start := int64(len(utf16.Encode([]rune(s[:l.From]))))
	return []*sheetsapi.TextFormatRun{{StartIndex: start, Format: &sheetsapi.TextFormat{Link: &sheetsapi.Link{Uri: uri}}}}, nil
}

// sheetID is the ID Write gave the plan's sheet of this name.
func (r *renderer) sheetID(name string) (int64, bool) {
	for i, sh := range r.p.Sheets {
		if sh.Name == name {
			return r.ids[i], true
		}
	}
	return 0, false
}

// withRuns adds the runs to the fields a request of cells writes once a
// row of it has any: the fields of other requests stay as they were.
func withRuns(u *sheetsapi.UpdateCellsRequest, rd *sheetsapi.RowData) {
	if strings.Contains(u.Fields, "textFormatRuns") {
		return
	}
	for _, cd := range rd.Values {
		if cd.TextFormatRuns != nil {
			u.Fields += ",textFormatRuns"
			return
		}
	}
}

// runsSize bounds the JSON of a cell's runs from above.
func runsSize(runs []*sheetsapi.TextFormatRun) int {
	n := 0
	for _, run := range runs {
		n += 96 // {"startIndex":…,"format":{"link":{"uri":…}}} and commas
		if run.Format != nil && run.Format.Link != nil {
			n += escapedLen(run.Format.Link.Uri)
		}
	}
	if n > 0 {
		n += 24 // "textFormatRuns":[]
	}
	return n
}
