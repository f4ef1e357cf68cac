package layout_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/plantest"
)

// A laptop's screen, and what of it a spreadsheet's window keeps for its
// cells: the row numbers on the left and the scroll bar on the right.
const (
	screenPixels  = 1366
	windowPixels  = 60
	contextPixels = 600 // room for a readable column of context
)

// excelPixels is the width of a column on screen, in pixels, at Excel's
// default font (Calibri 11: 7 pixels a character, and 5 of padding).
func excelPixels(width float64) int { return int(width*7) + 5 }

var builtinInputs = map[string]string{
	"legal-gaps":          data + "legal-gaps/examples.sample.jsonl",
	"qa-span-errors":      data + "qa-feedback/dev_feedback.sample.json",
	"preference-likert":   data + "preference/preference_json_1.json",
	"factgenie-meta-eval": data + "factgenie-d2t",
}

// TestAnswersInView checks the frozen part of every built-in's Annotate
// sheet: with the answers on the left, it holds the ID and every answer
// column and nothing of the context, with the Check column next, and on a
// 1366-pixel screen it leaves room for a readable width of context beside
// it.
func TestAnswersInView(t *testing.T) {
	t.Parallel()
	for _, name := range templates.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tp, res := plantest.Build(t, name, layout.Options{}, builtinInputs[name])
			sh := plantest.Sheet(t, res.Plan, backend.SheetAnnotate)
			frozen := 0
			for _, c := range sh.Columns[:sh.FreezeCols] {
				frozen += excelPixels(c.Width)
			}
			if left := screenPixels - windowPixels - frozen; left < contextPixels {
				t.Errorf("the %d frozen columns are %d pixels wide: %d pixels are left for the context, want %d", sh.FreezeCols, frozen, left, contextPixels)
			}
			if tp.Rows.Answers != templates.AnswersLeft {
				return
			}
			cols := tp.Columns()
			for _, c := range cols[:sh.FreezeCols] {
				if c.Role != templates.RoleID && c.Role != templates.RoleAnnotator && c.Role != templates.RoleAnswer {
					t.Errorf("column %q (%s) is frozen", c.Header, c.Role)
				}
			}
			if c := cols[sh.FreezeCols]; c.Role != templates.RoleCheck {
				t.Errorf("the first column past the frozen ones is %q, not the Check column", c.Header)
			}
			for i, c := range cols {
				if c.Role == templates.RoleAnswer && i >= sh.FreezeCols {
					t.Errorf("answer column %q is not frozen", c.Header)
				}
			}
		})
	}
}

// TestAnswersLeftLegalGaps pins the order of legal-gaps' columns: the ID,
// the answers and the Check column, then the long texts, the annotator and
// the hidden unit.
func TestAnswersLeftLegalGaps(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range tp.Columns() {
		keys = append(keys, c.Key)
	}
	want := []string{"id", "q:gaps=0", "q:gaps=1", "q:gaps=2", "q:gaps=3", "q:note", "check",
		"context:previous_context", "context:cited_paragraphs", "context:generation", "context:target", "annotator", "unit"}
	if !slices.Equal(keys, want) {
		t.Errorf("columns %q, want %q", keys, want)
	}
}

// TestMetaColumnsWhereDrawn checks that the positions a workbook records
// for its columns are where the header row has them, for every built-in.
func TestMetaColumnsWhereDrawn(t *testing.T) {
	t.Parallel()
	for _, name := range templates.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, res := plantest.Build(t, name, layout.Options{}, builtinInputs[name])
			header := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetAnnotate))[0]
			meta := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetMeta))[0]
			var blob string
			for _, c := range meta.Cells[1:] {
				blob += plantest.Text(c)
			}
			var m layout.WorkbookMeta
			if err := json.Unmarshal([]byte(blob), &m); err != nil {
				t.Fatal(err)
			}
			if len(m.Columns) != len(header.Cells) {
				t.Fatalf("%d columns recorded, %d drawn", len(m.Columns), len(header.Cells))
			}
			for _, mc := range m.Columns {
				if got := plantest.Text(header.Cells[mc.Index]); got != mc.Header {
					t.Errorf("column %q is recorded at %s, which has %q", mc.Key, backend.ColumnLetter(mc.Index), got)
				}
			}
		})
	}
}
