package xlsx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/xlsxdump"
	"github.com/annosheet/annosheet/xlsx"
)

// TestFormulaAndConditionalFormats: a Formula cell is written as a
// formula, with no saved value, beside text that looks like one and stays
// text; conditional formats keep their ranges, formulas, fills and order.
func TestFormulaAndConditionalFormats(t *testing.T) {
	p := &backend.Plan{Sheets: []*backend.Sheet{{
		Name: "S", Columns: []backend.Column{{Width: 10}, {Width: 20}}, RowCount: 3,
		ConditionalFormats: []backend.ConditionalFormat{
			{FirstRow: 2, LastRow: 3, FirstCol: 0, LastCol: 0, Formula: `LEN(TRIM($A2))>3`, Fill: "FFC7CE"},
			{FirstRow: 2, LastRow: 3, FirstCol: 0, LastCol: 1, Formula: `$B2<>""`, Fill: "FFEB9C"},
		},
		Rows: func(emit func(backend.Row) error) error {
			for _, r := range [][]backend.Cell{
				{{Value: "text"}, {Value: "check"}},
				{{Value: `=IF(1,"a","b")`}, {Value: backend.Formula{Text: `IF(LEN(TRIM(A2))>0,"A filled","")`}}},
				{{}, {Value: backend.Formula{Text: `IF(LEN(TRIM(A3))>0,"A filled","")`}}},
			} {
				if err := emit(backend.Row{Cells: r}); err != nil {
					return err
				}
			}
			return nil
		},
	}}}
	path := filepath.Join(t.TempDir(), "f.xlsx")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xlsx.Write(p, fh, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	d, err := xlsxdump.File(path, xlsxdump.Options{MaxText: 80})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(d, "\n") {
		if strings.HasPrefix(l, "  conditional") || strings.HasPrefix(l, "  row") {
			got = append(got, l)
		}
	}
	want := []string{
		`  conditional A2:A3 type=formula fill=FFC7CE formula="LEN(TRIM($A2))>3"`,
		`  conditional A2:B3 type=formula fill=FFEB9C formula="$B2<>\"\""`,
		`  row 1 h=15: A="text" | B="check"`,
		`  row 2 h=15: A="=IF(1,\"a\",\"b\")" | B="" formula="IF(LEN(TRIM(A2))>0,\"A filled\",\"\")"`,
		`  row 3 h=15: B="" formula="IF(LEN(TRIM(A3))>0,\"A filled\",\"\")"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dump (-want +got):\n%s", diff)
	}

	// Read back, the formula has no saved value, and the text is text.
	g, closeFn, err := xlsx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	var cells [][]backend.ReadCell
	if err := g.Rows("S", func(_ int, row []backend.ReadCell) error {
		cells = append(cells, row)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if c := cells[1][0]; c.Type != backend.CellString || c.Value != `=IF(1,"a","b")` {
		t.Errorf("A2 = %+v, want text", c)
	}
	if c := cells[1][1]; c.Type != backend.CellNoValue || c.Formula != `IF(LEN(TRIM(A2))>0,"A filled","")` {
		t.Errorf("B2 = %+v, want a formula with no saved value", c)
	}
}
