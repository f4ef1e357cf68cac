package sheetsfake_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

// TestInsertMovesReferences: rows inserted in a sheet move the references
// to its rows below them in every formula of the book, as Google does,
// and a formula that gives a cell's row computes where the cell is now.
func TestInsertMovesReferences(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Annotate", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 4}},
		&sheetsapi.SheetProperties{SheetId: 1, Title: "My meta", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 4}})
	formula := func(f string) *sheetsapi.CellData {
		return &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{FormulaValue: &f}}
	}
	mustBatch(t, e.sheets, id,
		setCells(1, 0, 0, "userEnteredValue",
			formula("=ROW(Annotate!$D$2)"), formula("=ROW(Annotate!$D$5)"), formula("=ROW('Annotate'!D7)"), formula(`=LOG10(A5)&"Annotate!D9"`)),
		setCells(0, 0, 0, "userEnteredValue",
			formula("=SUM($B$2:$B$8)"), formula("=ROW('My meta'!A5)")),
	)
	// Two rows inserted above row 4 of Annotate.
	mustBatch(t, e.sheets, id, &sheetsapi.Request{InsertDimension: &sheetsapi.InsertDimensionRequest{
		Range: &sheetsapi.DimensionRange{SheetId: 0, Dimension: "ROWS", StartIndex: 3, EndIndex: 5}}})
	got := append(readValues(t, e.sheets, id, "'My meta'!A1:D1", "FORMULA"), readValues(t, e.sheets, id, "Annotate!A1:B1", "FORMULA")...)
	want := [][]any{
		{"=ROW(Annotate!$D$2)", "=ROW(Annotate!$D$7)", "=ROW('Annotate'!D9)", `=LOG10(A5)&"Annotate!D9"`},
		{"=SUM($B$2:$B$10)", "=ROW('My meta'!A5)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("formulas after the insertion (-want +got):\n%s", diff)
	}
	if v := readValues(t, e.sheets, id, "'My meta'!A1:B1", "UNFORMATTED_VALUE"); len(v) != 1 || len(v[0]) != 2 || v[0][0] != float64(2) || v[0][1] != float64(7) {
		t.Errorf("the rows computed: %v, want [2 7]", v)
	}
	// A failed batch leaves the formulas as they were.
	_, err := batch(e.sheets, id,
		&sheetsapi.Request{InsertDimension: &sheetsapi.InsertDimensionRequest{Range: &sheetsapi.DimensionRange{SheetId: 0, Dimension: "ROWS", StartIndex: 0, EndIndex: 1}}},
		&sheetsapi.Request{InsertDimension: &sheetsapi.InsertDimensionRequest{Range: &sheetsapi.DimensionRange{SheetId: 9, Dimension: "ROWS", StartIndex: 0, EndIndex: 1}}})
	if err == nil {
		t.Fatal("a batch with a missing sheet went through")
	}
	if v := readValues(t, e.sheets, id, "'My meta'!B1", "FORMULA"); len(v) != 1 || v[0][0] != "=ROW(Annotate!$D$7)" {
		t.Errorf("after a failed batch: %v", v)
	}
}
