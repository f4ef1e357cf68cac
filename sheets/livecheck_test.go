package sheets_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/backendtest"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// TestLiveChecksInSheets writes the live checks' cases through the real
// client to the fake, with the typical mistakes typed in as the Sheets
// editor stores them: the spreadsheet keeps the plan's conditional
// formats, in order, and its Check formulas (the fake computes neither;
// Google does), and pull reads the answers as they are, reporting a
// problem on every row the sheet would flag and nothing of the Check
// column, whatever the fake shows there.
func TestLiveChecksInSheets(t *testing.T) {
	ctx := context.Background()
	_, c, _ := start(t, sheets.Retry{})
	for _, lc := range backendtest.LiveCases() {
		t.Run(lc.Template, func(t *testing.T) {
			tp, in := backendtest.LiveTemplate(t, lc)
			format := tp.Input.Format
			if format == "" {
				format = "jsonl"
			}
			src, err := input.Open(format, []string{in})
			if err != nil {
				t.Fatal(err)
			}
			res, err := layout.Build(context.Background(), tp, src, layout.Options{Study: "live", Seed: 3, CellLimit: backend.SheetsCellLimit})
			if err != nil {
				t.Fatal(err)
			}
			w, err := c.Write(ctx, res.Plan, sheets.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wb, err := goldtest.OpenSpreadsheet(ctx, c.Sheets, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, cell := range lc.Cells {
				if err := wb.Set(cell.Row, cell.Key, cell.Value); err != nil {
					t.Fatal(err)
				}
			}
			if err := wb.Save(); err != nil {
				t.Fatal(err)
			}

			var ann *backend.Sheet
			for _, sh := range res.Plan.Sheets {
				if sh.Name == backend.SheetAnnotate {
					ann = sh
				}
			}
			var want []string
			for _, cf := range ann.ConditionalFormats {
				want = append(want, fmt.Sprintf("%s:%s %s %s", backend.CellName(cf.FirstCol, cf.FirstRow), backend.CellName(cf.LastCol, cf.LastRow), cf.Fill, cf.Formula))
			}
			if len(want) == 0 {
				t.Fatal("the plan has no conditional formats")
			}
			ss := snapshot(t, c, w.ID)
			var got []string
			wantFormulas, gotFormulas := map[string]string{}, map[string]string{}
			check := slices.IndexFunc(tp.Columns(), func(c templates.ColumnSpec) bool { return c.Role == templates.RoleCheck })
			for _, s := range ss.Sheets {
				if s.Properties.Title != backend.SheetAnnotate {
					continue
				}
				for _, cf := range s.ConditionalFormats {
					g := cf.Ranges[0]
					got = append(got, fmt.Sprintf("%s:%s %s %s", backend.CellName(int(g.StartColumnIndex), int(g.StartRowIndex+1)),
						backend.CellName(int(g.EndColumnIndex-1), int(g.EndRowIndex)), sheetsColor(cf.BooleanRule.Format.BackgroundColor),
						planFormula(cf.BooleanRule.Condition.Values[0].UserEnteredValue)))
				}
				for r, rd := range s.Data[0].RowData {
					if r == 0 || check >= len(rd.Values) {
						continue
					}
					if v := rd.Values[check].UserEnteredValue; v != nil && v.FormulaValue != nil {
						gotFormulas[strconv.Itoa(r+1)] = planFormula(*v.FormulaValue)
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("conditional formats (-plan +spreadsheet):\n%s", diff)
			}
			n := 0
			if err := ann.Rows(func(r backend.Row) error {
				n++
				if f, ok := r.Cells[check].Value.(backend.Formula); ok {
					wantFormulas[strconv.Itoa(n)] = f.Text
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(wantFormulas) != ann.RowCount-1 {
				t.Errorf("%d Check formulas in the plan for %d rows", len(wantFormulas), ann.RowCount-1)
			}
			if diff := cmp.Diff(wantFormulas, gotFormulas); diff != "" {
				t.Errorf("Check formulas by row (-plan +spreadsheet):\n%s", diff)
			}

			g, closeFn, err := c.Open(ctx, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			p, err := decode.Pull(g, decode.PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			found := map[int]bool{}
			letter := backend.ColumnLetter(check)
			for _, pr := range p.Problems {
				found[pr.Row] = true
				if pr.Row > 1 && pr.Cell == letter+strconv.Itoa(pr.Row) {
					t.Errorf("pull reports the Check cell %s: %s", pr.Cell, pr.Message)
				}
				if strings.Contains(pr.Message, "#NAME?") {
					t.Errorf("pull reads the fake's uncomputed Check value: %s", pr.Message)
				}
			}
			for row, says := range lc.Check {
				if !found[row] {
					t.Errorf("row %d: the sheet says %q, pull finds nothing", row, says)
				}
			}
		})
	}
}
