package sheetsfake_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

func formulaRule(formula string, ranges ...*sheetsapi.GridRange) *sheetsapi.ConditionalFormatRule {
	return &sheetsapi.ConditionalFormatRule{Ranges: ranges, BooleanRule: &sheetsapi.BooleanRule{
		Condition: &sheetsapi.BooleanCondition{Type: "CUSTOM_FORMULA", Values: []*sheetsapi.ConditionValue{{UserEnteredValue: formula}}},
		Format:    &sheetsapi.CellFormat{BackgroundColor: &sheetsapi.Color{Red: 1}},
	}}
}

func addRule(index int64, r *sheetsapi.ConditionalFormatRule) *sheetsapi.Request {
	return &sheetsapi.Request{AddConditionalFormatRule: &sheetsapi.AddConditionalFormatRuleRequest{Rule: r, Index: index, ForceSendFields: []string{"Index"}}}
}

// TestConditionalFormats: rules are kept in order at their index, given
// back with the sheet, moved down with inserted rows, and refused where
// Google refuses them; formula cells are kept as entered.
func TestConditionalFormats(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "S", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 4}},
		&sheetsapi.SheetProperties{SheetId: 1, Title: "T", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 4}})
	mustBatch(t, e.sheets, id,
		addRule(0, formulaRule("=LEN($A2)>0", grid(0, 1, 10, 0, 1))),
		addRule(0, formulaRule(`=$B2<>""`, grid(0, 1, 10, 1, 3))),
		setCells(0, 1, 3, "userEnteredValue", &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{FormulaValue: ptr(`=IF(A2="","","x")`)}}),
	)
	formulas := func() []string {
		sp, err := e.sheets.Spreadsheets.Get(id).Do()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range sp.Sheets[0].ConditionalFormats {
			g := r.Ranges[0]
			out = append(out, fmt.Sprintf("%s rows %d-%d columns %d-%d", r.BooleanRule.Condition.Values[0].UserEnteredValue,
				g.StartRowIndex, g.EndRowIndex, g.StartColumnIndex, g.EndColumnIndex))
		}
		return out
	}
	want := []string{`=$B2<>"" rows 1-10 columns 1-3`, `=LEN($A2)>0 rows 1-10 columns 0-1`} // the second added first
	if diff := cmp.Diff(want, formulas()); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if c := cellAt(withGrid(t, e.sheets, id), 0, 1, 3); c == nil || c.UserEnteredValue == nil || c.UserEnteredValue.FormulaValue == nil || *c.UserEnteredValue.FormulaValue != `=IF(A2="","","x")` {
		t.Errorf("formula cell = %+v", c)
	}
	if v := readValues(t, e.sheets, id, "S!D2", "FORMULA"); len(v) != 1 || v[0][0] != `=IF(A2="","","x")` {
		t.Errorf("formula read as %v", v)
	}

	// Inserting rows above moves the rules down.
	mustBatch(t, e.sheets, id, &sheetsapi.Request{InsertDimension: &sheetsapi.InsertDimensionRequest{
		Range: &sheetsapi.DimensionRange{SheetId: 0, Dimension: "ROWS", StartIndex: 0, EndIndex: 2}}})
	sp, err := e.sheets.Spreadsheets.Get(id).Do()
	if err != nil {
		t.Fatal(err)
	}
	if g := sp.Sheets[0].ConditionalFormats[1].Ranges[0]; g.StartRowIndex != 3 || g.EndRowIndex != 12 {
		t.Errorf("after inserting 2 rows: rows %d-%d, want 3-12", g.StartRowIndex, g.EndRowIndex)
	}

	bad := func(r *sheetsapi.ConditionalFormatRule, mutate func(*sheetsapi.ConditionalFormatRule)) *sheetsapi.ConditionalFormatRule {
		if mutate != nil {
			mutate(r)
		}
		return r
	}
	for _, c := range []struct {
		name  string
		req   *sheetsapi.Request
		error string
	}{
		{"no rule", &sheetsapi.Request{AddConditionalFormatRule: &sheetsapi.AddConditionalFormatRuleRequest{}}, "rule must be set"},
		{"no ranges", addRule(0, formulaRule("=TRUE")), "ranges must not be empty"},
		{"past the grid", addRule(0, formulaRule("=TRUE", grid(0, 1, 40, 0, 1))), "exceeds grid limits"},
		{"two sheets", addRule(0, formulaRule("=TRUE", grid(0, 1, 2, 0, 1), grid(1, 1, 2, 0, 1))), "all ranges must be on the same sheet"},
		{"no boolean rule", addRule(0, bad(formulaRule("=TRUE", grid(0, 1, 2, 0, 1)), func(r *sheetsapi.ConditionalFormatRule) { r.BooleanRule = nil })), "exactly one of booleanRule or gradientRule"},
		{"a formula without =", addRule(0, formulaRule("TRUE", grid(0, 1, 2, 0, 1))), "CUSTOM_FORMULA requires a single formula, starting with ="},
		{"a format conditional formats cannot set", addRule(0, bad(formulaRule("=TRUE", grid(0, 1, 2, 0, 1)), func(r *sheetsapi.ConditionalFormatRule) {
			r.BooleanRule.Format.WrapStrategy = "WRAP"
		})), "conditional formats may set only"},
		{"an index past the rules", addRule(3, formulaRule("=TRUE", grid(0, 1, 2, 0, 1))), "Invalid index 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := batch(e.sheets, id, c.req)
			wantAPIError(t, err, 400, c.error)
		})
	}
	if n := len(formulas()); n != 2 {
		t.Errorf("%d rules after refused requests, want 2", n)
	}
}
