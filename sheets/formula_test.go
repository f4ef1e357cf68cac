package sheets_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/sheets"
)

// TestWriteFormulaAndConditionalFormats: a Formula cell is written as a
// formula and nothing else is; conditional formats come in the plan's
// order, with their ranges, formulas and fills. Formulas go with
// semicolons between arguments, which every locale reads.
func TestWriteFormulaAndConditionalFormats(t *testing.T) {
	_, c, _ := start(t, sheets.Retry{})
	p := &backend.Plan{Title: "t", Sheets: []*backend.Sheet{{
		Name: "S", Columns: []backend.Column{{Width: 10}, {Width: 10}}, RowCount: 3,
		ConditionalFormats: []backend.ConditionalFormat{
			{FirstRow: 2, LastRow: 3, FirstCol: 0, LastCol: 0, Formula: `LEN(TRIM($A2))>3`, Fill: "FFC7CE"},
			{FirstRow: 2, LastRow: 3, FirstCol: 0, LastCol: 1, Formula: `$B2<>""`, Fill: "FFEB9C"},
			{FirstRow: 2, LastRow: 3, FirstCol: 1, LastCol: 1, Formula: `IF($A2=",",1,2)`, Fill: "FFEB9C"},
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
	w, err := c.Write(context.Background(), p, sheets.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss := snapshot(t, c, w.ID)
	rows := ss.Sheets[0].Data[0].RowData
	if v := rows[1].Values[0].UserEnteredValue; v == nil || v.StringValue == nil || v.FormulaValue != nil {
		t.Errorf("A2 = %+v, want text", v)
	}
	for r := 1; r <= 2; r++ {
		v := rows[r].Values[1].UserEnteredValue
		want := `=IF(LEN(TRIM(A` + string(rune('1'+r)) + `))>0;"A filled";"")`
		if v == nil || v.FormulaValue == nil || *v.FormulaValue != want || v.StringValue != nil {
			t.Errorf("B%d = %+v, want the formula %s", r+1, v, want)
		}
	}
	type rule struct {
		Formula          string
		R0, R1, C0, C1   int64
		Red, Green, Blue float64
	}
	var got []rule
	for _, cf := range ss.Sheets[0].ConditionalFormats {
		g, bg := cf.Ranges[0], cf.BooleanRule.Format.BackgroundColor
		if cf.BooleanRule.Condition.Type != "CUSTOM_FORMULA" {
			t.Errorf("condition %s", cf.BooleanRule.Condition.Type)
		}
		got = append(got, rule{cf.BooleanRule.Condition.Values[0].UserEnteredValue, g.StartRowIndex, g.EndRowIndex, g.StartColumnIndex, g.EndColumnIndex,
			bg.Red * 255, bg.Green * 255, bg.Blue * 255})
	}
	want := []rule{
		{`=LEN(TRIM($A2))>3`, 1, 3, 0, 1, 0xFF, 0xC7, 0xCE},
		{`=$B2<>""`, 1, 3, 0, 2, 0xFF, 0xEB, 0x9C},
		{`=IF($A2=",";1;2)`, 1, 3, 1, 2, 0xFF, 0xEB, 0x9C},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditional formats (-want +got):\n%s", diff)
	}
}

// planFormula is a formula as Google gives it back, in the plan's
// spelling: without "=", commas between arguments.
func planFormula(f string) string {
	b := []byte(strings.TrimPrefix(f, "="))
	quoted := false
	for i, c := range b {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			b[i] = ','
		}
	}
	return string(b)
}
