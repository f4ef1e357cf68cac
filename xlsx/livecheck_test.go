package xlsx_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/backendtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
	"github.com/annosheet/annosheet/xlsx"
)

// fillScript writes cells into a workbook with openpyxl, as an annotator's
// application would store them: booleans, numbers and text typed, and
// text starting with "=" as a formula (the test's scratch cells).
const fillScript = `
import json, sys, openpyxl
spec = json.load(open(sys.argv[1]))
wb = openpyxl.load_workbook(spec["in"])
for sheet, cell, value in spec["cells"]:
    wb[sheet][cell] = value
wb.save(spec["out"])
`

// TestLiveChecksInLibreOffice fills generated workbooks with the typical
// mistakes, as openpyxl saves them (formulas without values), has
// LibreOffice compute and save them, and reads what the sheet says: the
// Check column's verdicts, and, computed in scratch cells, which of the
// conditional formats' formulas hold on each row.
func TestLiveChecksInLibreOffice(t *testing.T) {
	py := testreaders.Openpyxl(t)
	soffice := testreaders.Soffice(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "fill.py")
	if err := os.WriteFile(script, []byte(fillScript), 0o644); err != nil {
		t.Fatal(err)
	}
	type book struct {
		c      backendtest.LiveCase
		tp     *templates.Template
		plan   *backend.Sheet
		path   string
		scrCol int // the first scratch column
	}
	var books []book
	var filled []string
	for _, c := range backendtest.LiveCases() {
		tp, in := backendtest.LiveTemplate(t, c)
		format := tp.Input.Format
		if format == "" {
			format = "jsonl"
		}
		src, err := input.Open(format, []string{in})
		if err != nil {
			t.Fatal(err)
		}
		res, err := layout.Build(context.Background(), tp, src, layout.Options{Study: "live", Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		gen := filepath.Join(dir, c.Template+"-generated.xlsx")
		fh, err := os.Create(gen)
		if err != nil {
			t.Fatal(err)
		}
		if err := xlsx.Write(res.Plan, fh, xlsx.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		var ann *backend.Sheet
		for _, sh := range res.Plan.Sheets {
			if sh.Name == backend.SheetAnnotate {
				ann = sh
			}
		}
		b := book{c: c, tp: tp, plan: ann, path: filepath.Join(dir, c.Template+".xlsx"), scrCol: len(tp.Columns()) + 2}
		at := map[string]int{}
		for i, col := range tp.Columns() {
			at[col.Key] = i
		}
		var cells [][3]any
		for _, lc := range c.Cells {
			i, ok := at[lc.Key]
			if !ok {
				t.Fatalf("%s: no column %s", c.Template, lc.Key)
			}
			cells = append(cells, [3]any{backend.SheetAnnotate, backend.CellName(i, lc.Row), lc.Value})
		}
		// Each conditional format's formula, moved to each row, in a
		// scratch cell of its own.
		for k, cf := range ann.ConditionalFormats {
			for r := 2; r <= ann.RowCount; r++ {
				cells = append(cells, [3]any{backend.SheetAnnotate, backend.CellName(b.scrCol+k, r), "=" + moveRows(cf.Formula, r-2)})
			}
		}
		spec, _ := json.Marshal(map[string]any{"in": gen, "out": b.path, "cells": cells})
		specPath := filepath.Join(dir, c.Template+".json")
		if err := os.WriteFile(specPath, spec, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(py, script, specPath).CombinedOutput(); err != nil {
			t.Fatalf("openpyxl: %v\n%s", err, out)
		}
		books = append(books, b)
		filled = append(filled, b.path)
	}
	out := filepath.Join(dir, "computed")
	testreaders.Convert(t, soffice, "xlsx:Calc MS Excel 2007 XML", out, filled...)

	for _, b := range books {
		t.Run(b.c.Template, func(t *testing.T) {
			g, closeFn, err := xlsx.Open(filepath.Join(out, filepath.Base(b.path)))
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			check := slices.IndexFunc(b.tp.Columns(), func(c templates.ColumnSpec) bool { return c.Role == templates.RoleCheck })
			gotCheck, gotColours := map[int]string{}, map[int][]string{}
			err = g.Rows(backend.SheetAnnotate, func(n int, cells []backend.ReadCell) error {
				if n == 1 {
					if cells[check].Value != templates.CheckHeader {
						t.Errorf("column %s is %q, not the Check column", backend.ColumnLetter(check), cells[check].Value)
					}
					return nil
				}
				if check < len(cells) {
					c := cells[check]
					if c.Type != backend.CellString {
						t.Errorf("Annotate!%s: type %d %q, want the computed text", backend.CellName(check, n), c.Type, c.Value)
					}
					if c.Value != "" {
						gotCheck[n] = c.Value
					}
				}
				for k, cf := range b.plan.ConditionalFormats {
					i := b.scrCol + k
					if i >= len(cells) {
						continue
					}
					c := cells[i]
					if c.Type != backend.CellBool {
						t.Errorf("row %d: conditional format %d computes to %d %q, not a boolean", n, k, c.Type, c.Value)
						continue
					}
					if c.Value == "TRUE" {
						cols := backend.ColumnLetter(cf.FirstCol)
						if cf.LastCol > cf.FirstCol {
							cols += ":" + backend.ColumnLetter(cf.LastCol)
						}
						gotColours[n] = append(gotColours[n], cols+" "+cf.Fill)
					}
				}
				slices.Sort(gotColours[n])
				gotColours[n] = slices.Compact(gotColours[n])
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(b.c.Check, gotCheck); diff != "" {
				t.Errorf("Check column, by row (-want +got):\n%s", diff)
			}
			for row, want := range b.c.Colours {
				if diff := cmp.Diff(want, gotColours[row]); diff != "" {
					t.Errorf("row %d: coloured cells (-want +got):\n%s", row, diff)
				}
			}
			pullAgrees(t, g, b.c, check)
		})
	}
}

// relRow is a cell reference whose row is relative (no $ before it).
var relRow = regexp.MustCompile(`(\$?[A-Z]{1,3})(\$?)([0-9]+)\b`)

// moveRows moves a formula down by n rows, as a spreadsheet applies a
// conditional format's formula to the rows of its range: the rows of
// references without $ move, text in quotes stays. Split at quotes, the
// even parts are outside string constants (a doubled quote gives an
// empty part between).
func moveRows(formula string, n int) string {
	parts := strings.Split(formula, `"`)
	for i := 0; i < len(parts); i += 2 {
		parts[i] = relRow.ReplaceAllStringFunc(parts[i], func(ref string) string {
			m := relRow.FindStringSubmatch(ref)
			if m[2] == "$" {
				return ref
			}
			row, _ := strconv.Atoi(m[3])
			return m[1] + strconv.Itoa(row+n)
		})
	}
	return strings.Join(parts, `"`)
}

// pullAgrees pulls a filled workbook whose Check cells hold values: pull
// reports a problem on every row the sheet says something about, and
// reads nothing from the Check column.
func pullAgrees(t *testing.T, g *backend.Grid, c backendtest.LiveCase, check int) {
	t.Helper()
	p, err := decode.Pull(g, decode.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[int][]string{}
	for _, pr := range p.Problems {
		found[pr.Row] = append(found[pr.Row], pr.Message)
		if pr.Row > 1 && strings.HasPrefix(pr.Cell, backend.ColumnLetter(check)) && strings.TrimLeft(pr.Cell, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == strconv.Itoa(pr.Row) {
			t.Errorf("pull reports the Check cell %s: %s", pr.Cell, pr.Message)
		}
	}
	for row, says := range c.Check {
		if len(found[row]) == 0 {
			t.Errorf("row %d: the sheet says %q, pull finds nothing", row, says)
		}
	}
	for row, msgs := range found {
		if _, ok := c.Check[row]; !ok && row > 1 {
			t.Logf("row %d: pull finds %q; the sheet says nothing", row, msgs)
		}
	}
}
