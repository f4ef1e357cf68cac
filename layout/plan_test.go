package layout_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/plantest"
)

// TestBuildCheckColumn: every row of the Annotate sheet has its Check
// formula, locked, and the sheet its conditional formats over every row;
// the formulas are the template's, with the row's own references.
func TestBuildCheckColumn(t *testing.T) {
	tp, res := plantest.Build(t, "qa-span-errors", layout.Options{}, data+"qa-feedback/dev_feedback.sample.json")
	ann := plantest.Sheet(t, res.Plan, backend.SheetAnnotate)
	col := plantest.Col(t, tp, templates.RoleCheck)
	if st := ann.Columns[col].Style; st.Unlocked || !st.Wrap || ann.Columns[col].Hidden {
		t.Errorf("Check column style %+v", ann.Columns[col])
	}
	rows := plantest.Rows(t, ann)
	if h := plantest.Text(rows[0].Cells[col]); h != "Check" {
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

// TestSpanSourcesOpen checks the plan: a span source's column and cells
// are unlocked and its header note says that edits are ignored; other
// context stays locked.
func TestSpanSourcesOpen(t *testing.T) {
	t.Parallel()
	tp, res := plantest.Build(t, "qa-span-errors", layout.Options{}, data+"qa-feedback/dev_feedback.sample.json")
	sh := plantest.Sheet(t, res.Plan, backend.SheetAnnotate)
	rows := plantest.Rows(t, sh)
	notes := map[int]string{}
	for _, n := range sh.Notes {
		notes[n.Col] = n.Text
	}
	for i, c := range tp.Columns() {
		if c.Role != templates.RoleContext {
			continue
		}
		open := c.Key == "context:prediction"
		if sh.Columns[i].Style.Unlocked != open || rows[1].Cells[i].Style.Unlocked != open {
			t.Errorf("%s: column unlocked %v, first cell unlocked %v; want %v", c.Key, sh.Columns[i].Style.Unlocked, rows[1].Cells[i].Style.Unlocked, open)
		}
		if got := notes[i]; open != strings.Contains(got, "Changes made here are ignored") {
			t.Errorf("%s: note %q", c.Key, got)
		}
	}
}
