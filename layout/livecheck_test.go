package layout_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// TestCheckColumnIsNeverAnswers: whatever a Check cell holds — a formula
// never computed, a formula's error, its verdict, anything typed over it
// — pull reads no answer and reports no problem from it; a workbook that
// lost the column, or was made before it, pulls the same.
func TestCheckColumnIsNeverAnswers(t *testing.T) {
	tp, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]string{"q:pick": "Yes", "q:score": "3", "annotator": "AK"}
	base := newMemBook(t, tp, ksRecords)
	for k, v := range answers {
		base.set("r1", k, v)
	}
	want := pullMem(t, base, layout.PullOptions{})

	for _, c := range []struct {
		name string
		cell backend.ReadCell
	}{
		{"a formula with no saved value", backend.ReadCell{Type: backend.CellNoValue, Formula: `IFERROR(MID(IF(LEN(TRIM(C2))>0,"; x",""),3,1000),"")`}},
		{"a formula's error", backend.ReadCell{Value: "#NAME?", Type: backend.CellError}},
		{"a verdict", backend.ReadCell{Value: "Pick missing; Annotator ID missing"}},
		{"a boolean", backend.ReadCell{Value: "TRUE", Type: backend.CellBool}},
		{"a date", backend.ReadCell{Value: "45356", Type: backend.CellDate, Shown: "2024-03-05"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMemBook(t, tp, ksRecords)
			for k, v := range answers {
				m.set("r1", k, v)
			}
			for _, u := range []string{"r1", "r2", "r3"} {
				m.setTyped(u, templates.RoleCheck, c.cell)
			}
			got := pullMem(t, m, layout.PullOptions{})
			if diff := cmp.Diff(want.Records, got.Records, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("records (-without +with the Check cells):\n%s", diff)
			}
			if diff := cmp.Diff(probs(want.Problems), probs(got.Problems), cmpErr, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("problems (-without +with the Check cells):\n%s", diff)
			}
			if s := record(got, "r2").Status; s != records.StatusEmpty {
				t.Errorf("a row with only a Check cell is %s, not empty", s)
			}
		})
	}

	t.Run("the column deleted", func(t *testing.T) {
		m := newMemBook(t, tp, ksRecords)
		for k, v := range answers {
			m.set("r1", k, v)
		}
		col := m.col(templates.RoleCheck)
		for i, r := range m.annotate() {
			if col < len(r) {
				m.sheets[backend.SheetAnnotate][i] = slices.Delete(slices.Clone(r), col, col+1)
			}
		}
		got := pullMem(t, m, layout.PullOptions{})
		if diff := cmp.Diff(want.Records, got.Records, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("records (-with +without the Check column):\n%s", diff)
		}
		for _, p := range got.Problems {
			if strings.Contains(p.Message, templates.CheckHeader) {
				t.Errorf("problem about the Check column: %s", p.Message)
			}
		}
	})
}

// TestBuildCheckColumn: every row of the Annotate sheet has its Check
// formula, locked, and the sheet its conditional formats over every row;
// the formulas are the template's, with the row's own references.
func TestBuildCheckColumn(t *testing.T) {
	tp, res := buildWith(t, "qa-span-errors", layout.Options{}, data+"qa-feedback/dev_feedback.sample.json")
	ann := sheet(t, res.Plan, backend.SheetAnnotate)
	col := colIndex(t, tp, templates.RoleCheck)
	if st := ann.Columns[col].Style; st.Unlocked || !st.Wrap || ann.Columns[col].Hidden {
		t.Errorf("Check column style %+v", ann.Columns[col])
	}
	rows := rowsOf(t, ann)
	if h := text(rows[0].Cells[col]); h != "Check" {
		t.Errorf("header %q", h)
	}
	for n, r := range rows[1:] {
		row := n + 2
		f, ok := r.Cells[col].Value.(backend.Formula)
		if !ok || r.Cells[col].Style.Unlocked {
			t.Fatalf("row %d: Check cell %+v, want a locked formula", row, r.Cells[col])
		}
		first := row - (row-2)%8 // blocks of 8 rows from row 2
		// Every row checks its own span; only a block's first row checks
		// the block's Checked box, over the block's rows.
		own := "LEN(TRIM(G" + itoa(row) + "))>0"
		block := "SUMPRODUCT(LEN(TRIM($F$" + itoa(first) + ":$F$" + itoa(first+7) + ")))>0"
		if !strings.Contains(f.Text, own) || strings.Contains(f.Text, block) != (row == first) {
			t.Errorf("row %d: formula %.300s…", row, f.Text)
		}
		if strings.Contains(f.Text, "\x00") {
			t.Errorf("row %d: a marker is left in the formula", row)
		}
	}
	if len(ann.ConditionalFormats) == 0 {
		t.Fatal("no conditional formats")
	}
	for _, cf := range ann.ConditionalFormats {
		if cf.FirstRow != 2 || cf.LastRow != ann.RowCount || cf.LastCol >= col {
			t.Errorf("conditional format over rows %d-%d, columns %d-%d", cf.FirstRow, cf.LastRow, cf.FirstCol, cf.LastCol)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
