package sheets_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/sheets"
)

// TestWriteLinks checks that a linked cell keeps its text as a string and
// links the end of it, from the plan's byte offset counted in UTF-16 as
// Google counts, to the named cell of the named sheet by its ID; and
// that cells without a link get no runs.
func TestWriteLinks(t *testing.T) {
	_, c, _ := start(t, sheets.Retry{})
	from := "Some “text” 𝄞 … "
	p := &backend.Plan{Title: "t", Sheets: []*backend.Sheet{
		{
			Name: "From", Columns: []backend.Column{{Width: 10}, {Width: 10}}, RowCount: 2,
			Rows: func(emit func(backend.Row) error) error {
				if err := emit(backend.Row{Cells: []backend.Cell{{Value: "plain"}, {Value: 3}}}); err != nil {
					return err
				}
				return emit(backend.Row{Cells: []backend.Cell{{Value: "id"}, {Value: from + "→ read in full", Link: &backend.Link{Sheet: "Full text", Row: 3, Col: 0, From: len(from)}}}})
			},
		},
		{
			Name: "Full text", Columns: []backend.Column{{Width: 80}, {Width: 20}}, RowCount: 3,
			Rows: func(emit func(backend.Row) error) error {
				for _, r := range []backend.Row{{Cells: []backend.Cell{{Value: "title"}}}, {}, {Cells: []backend.Cell{{Value: "all of it"}, {Value: "back", Link: &backend.Link{Sheet: "From", Row: 2, Col: 1}}}}} {
					if err := emit(r); err != nil {
						return err
					}
				}
				return nil
			},
		},
	}}
	w, err := c.Write(context.Background(), p, sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := c.Sheets.Spreadsheets.Get(w.ID).IncludeGridData(true).Do()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]string{}
	for _, s := range ss.Sheets {
		ids[s.Properties.SheetId] = s.Properties.Title
	}
	got := map[string]string{}
	for _, s := range ss.Sheets {
		for r, rd := range s.Data[0].RowData {
			for col, cd := range rd.Values {
				for _, run := range cd.TextFormatRuns {
					cell := s.Properties.Title + "!" + backend.CellName(col, r+1)
					if cd.UserEnteredValue == nil || cd.UserEnteredValue.StringValue == nil {
						t.Errorf("%s: runs on a value that is not a string", cell)
					}
					got[cell] = fmtRun(run.StartIndex, run.Format.Link.Uri, ids)
				}
			}
		}
	}
	// "Some “text” 𝄞 … " is 16 characters, 17 UTF-16 units: the clef takes two.
	want := map[string]string{"From!B2": "from 17: Full text!A3", "Full text!B3": "from 0: From!B2"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("links (-want +got):\n%s", d)
	}
}

// fmtRun spells a link run as "from N: Sheet!A1", naming the sheet its
// #gid= points at.
func fmtRun(start int64, uri string, ids map[int64]string) string {
	rest, ok := strings.CutPrefix(uri, "#gid=")
	if !ok {
		return "not a link within the spreadsheet: " + uri
	}
	id, cell, _ := strings.Cut(rest, "&range=")
	gid, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return "not a sheet ID: " + uri
	}
	return fmt.Sprintf("from %d: %s!%s", start, ids[gid], cell)
}

// TestWriteLinkRefused checks that a link the spreadsheet cannot hold is
// an error naming the cell, before anything is half written: to a sheet
// the plan lacks, or from a cell without text.
func TestWriteLinkRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cell backend.Cell
		want string
	}{
		{"no such sheet", backend.Cell{Value: "x", Link: &backend.Link{Sheet: "Nope", Row: 1}}, `A1: links to sheet "Nope", which the plan does not have`},
		{"a number", backend.Cell{Value: 4, Link: &backend.Link{Sheet: "S", Row: 1}}, "A1: links to S!A1 but holds no text"},
		{"from past the text", backend.Cell{Value: "ab", Link: &backend.Link{Sheet: "S", Row: 1, From: 2}}, "A1: its link to S!A1 starts at byte 2, outside its 2 bytes of text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c, _ := start(t, sheets.Retry{})
			p := &backend.Plan{Title: "t", Sheets: []*backend.Sheet{{
				Name: "S", Columns: []backend.Column{{Width: 10}}, RowCount: 1,
				Rows: func(emit func(backend.Row) error) error { return emit(backend.Row{Cells: []backend.Cell{tc.cell}}) },
			}}}
			_, err := c.Write(context.Background(), p, sheets.WriteOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
