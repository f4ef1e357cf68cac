package decode_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
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
	want := pullMem(t, base, decode.PullOptions{})

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
			got := pullMem(t, m, decode.PullOptions{})
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
		got := pullMem(t, m, decode.PullOptions{})
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
