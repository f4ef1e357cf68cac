package xlsx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/xlsx"
)

// linkPlan is two sheets that link to each other: cells of the first to
// a cell of the second, whose name needs quotes, one from part of its
// text; and back.
func linkPlan() *backend.Plan {
	long := strings.Repeat("All of it. ", 30)
	return &backend.Plan{Sheets: []*backend.Sheet{
		{
			Name: "From", Columns: []backend.Column{{Width: 20}, {Width: 20}}, RowCount: 2, Protect: &backend.Protection{},
			Rows: func(emit func(backend.Row) error) error {
				if err := emit(backend.Row{Cells: []backend.Cell{{Value: "plain"}, {Value: "=not a formula"}}}); err != nil {
					return err
				}
				return emit(backend.Row{Cells: []backend.Cell{
					{Value: "id", Link: &backend.Link{Sheet: "Full text", Row: 3}},
					{Value: "Some … → read in full", Link: &backend.Link{Sheet: "Full text", Row: 3, Col: 0, From: 9}},
				}})
			},
		},
		{
			Name: "Full text", Columns: []backend.Column{{Width: 80, Style: backend.Style{Wrap: true}}, {Width: 20}}, RowCount: 3, Protect: &backend.Protection{},
			Rows: func(emit func(backend.Row) error) error {
				if err := emit(backend.Row{Cells: []backend.Cell{{Value: "title"}}}); err != nil {
					return err
				}
				if err := emit(backend.Row{}); err != nil {
					return err
				}
				return emit(backend.Row{Cells: []backend.Cell{{Value: long, Style: backend.Style{Wrap: true}}, {Value: "back", Link: &backend.Link{Sheet: "From", Row: 2, Col: 1}}}})
			},
		},
	}}
}

// TestLinks checks that linked cells become hyperlinks to the cells of
// the workbook they name and keep their text, that other cells are not
// links, and that a link from part of a text is left out: the file could
// only link the whole cell.
func TestLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "links.xlsx")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xlsx.Write(linkPlan(), fh, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]string{}
	for _, sh := range f.GetSheetList() {
		for _, cell := range []string{"A1", "B1", "A2", "B2", "A3", "B3"} {
			ok, target, err := f.GetCellHyperLink(sh, cell)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				got[sh+"!"+cell] = target
			}
		}
	}
	want := map[string]string{"From!A2": "'Full text'!A3", "Full text!B3": "From!B2"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("links (-want +got):\n%s", d)
	}
	if v, _ := f.GetCellValue("From", "B2"); v != "Some … → read in full" {
		t.Errorf("the linked cell holds %q", v)
	}
	if v, _ := f.GetCellValue("Full text", "A3"); v != strings.Repeat("All of it. ", 30) {
		t.Errorf("the target cell holds %q", v)
	}
}

// TestLinkNeedsText checks that a link on a cell without text is refused,
// not written as a link Excel would show on an empty cell.
func TestLinkNeedsText(t *testing.T) {
	p := &backend.Plan{Sheets: []*backend.Sheet{{
		Name: "S", Columns: []backend.Column{{Width: 10}}, RowCount: 1,
		Rows: func(emit func(backend.Row) error) error {
			return emit(backend.Row{Cells: []backend.Cell{{Value: 3, Link: &backend.Link{Sheet: "S", Row: 1}}}})
		},
	}}}
	err := xlsx.Write(p, new(strings.Builder), xlsx.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "cell A1 links to S!A1 but holds no text") {
		t.Errorf("err = %v", err)
	}
}
