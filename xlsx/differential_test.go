package xlsx_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/testing/benchdata"
	"github.com/annosheet/annosheet/internal/testing/testreaders"
	"github.com/annosheet/annosheet/xlsx"
)

// TestReadLikeExcelize reads workbooks with Open and with excelize, the
// reader Open used before, and checks that both see the same sheets and
// the same values in the same cells, and that the type of each cell is
// the one its XML says. The workbooks are our writer's (every book case,
// and a filled one), and the same after a save by LibreOffice and by
// openpyxl, when they are installed.
func TestReadLikeExcelize(t *testing.T) {
	dir := t.TempDir()
	var books []string
	for _, c := range bookCases {
		_, res := build(t, c)
		p := filepath.Join(dir, c.name+".xlsx")
		if err := os.Rename(writeBook(t, res, c.name), p); err != nil {
			t.Fatal(err)
		}
		books = append(books, p)
	}
	plan, err := benchdata.FilledLegalPlan(dir, 20, backend.XLSXCellLimit)
	if err != nil {
		t.Fatal(err)
	}
	filled := filepath.Join(dir, "filled.xlsx")
	f, err := os.Create(filled)
	if err != nil {
		t.Fatal(err)
	}
	if err := xlsx.Write(plan, f, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	books = append(books, filled)

	t.Run("writer", func(t *testing.T) {
		for _, b := range books {
			t.Run(filepath.Base(b), func(t *testing.T) { readsLikeExcelize(t, b) })
		}
	})
	t.Run("libreoffice", func(t *testing.T) {
		soffice := testreaders.Soffice(t)
		if testing.Short() {
			t.Skip("LibreOffice conversions are slow; skipped in -short mode")
		}
		out := filepath.Join(dir, "libreoffice")
		testreaders.Convert(t, soffice, "xlsx:Calc MS Excel 2007 XML", out, books...)
		for _, b := range books {
			t.Run(filepath.Base(b), func(t *testing.T) { readsLikeExcelize(t, filepath.Join(out, filepath.Base(b))) })
		}
	})
	t.Run("openpyxl", func(t *testing.T) {
		py := testreaders.Openpyxl(t)
		out := filepath.Join(dir, "openpyxl")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, b := range books {
			t.Run(filepath.Base(b), func(t *testing.T) {
				saved := filepath.Join(out, filepath.Base(b))
				if o, err := exec.Command(py, "testdata/openpyxl_types.py", "resave", b, saved).CombinedOutput(); err != nil {
					t.Fatalf("openpyxl: %v\n%s", err, o)
				}
				readsLikeExcelize(t, saved)
			})
		}
	})
}

// readsLikeExcelize compares Open's reading of path with excelize's.
func readsLikeExcelize(t *testing.T, path string) {
	t.Helper()
	ex, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	g, closeFn, err := xlsx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if diff := cmp.Diff(ex.GetSheetList(), g.Sheets); diff != "" {
		t.Fatalf("sheets (-excelize +Open):\n%s", diff)
	}
	types := 0
	for _, sheet := range g.Sheets {
		// As Open read before: excelize's Rows, raw values, empty rows
		// left out.
		want := map[int][]string{}
		rows, err := ex.Rows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; rows.Next(); n++ {
			cells, err := rows.Columns(excelize.Options{RawCellValue: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(cells) > 0 {
				want[n] = cells
			}
		}
		rows.Close()
		got := map[int][]string{}
		err = g.Rows(sheet, func(row int, cells []backend.ReadCell) error {
			for i, c := range cells {
				if c != (backend.ReadCell{}) {
					checkType(t, ex, sheet, backend.CellName(i, row), c)
					types++
				}
				got[row] = append(got[row], rawText(c))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sheet %s (-excelize +Open):\n%s", sheet, diff)
		}
	}
	if types == 0 {
		t.Error("no cells read")
	}
}

// rawText is a read cell's value as excelize gave it raw: a boolean as 1
// or 0, a date as its serial number, a formula never computed as "".
func rawText(c backend.ReadCell) string {
	switch {
	case c.Type == backend.CellBool && c.Value == "TRUE":
		return "1"
	case c.Type == backend.CellBool:
		return "0"
	}
	return c.Value
}

// checkType checks a cell's type against the one excelize says its XML
// has.
func checkType(t *testing.T, ex *excelize.File, sheet, cell string, c backend.ReadCell) {
	t.Helper()
	xt, err := ex.GetCellType(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	switch xt {
	case excelize.CellTypeBool:
		ok = c.Type == backend.CellBool
	case excelize.CellTypeError:
		ok = c.Type == backend.CellError
	case excelize.CellTypeSharedString, excelize.CellTypeInlineString:
		ok = c.Type == backend.CellString
	case excelize.CellTypeFormula:
		// A formula's text result; our writer's Check cells have none yet.
		ok = c.Type == backend.CellString || c.Type == backend.CellNoValue
	case excelize.CellTypeDate:
		ok = c.Type == backend.CellDate
	case excelize.CellTypeNumber, excelize.CellTypeUnset:
		ok = c.Type == backend.CellNumber || c.Type == backend.CellDate || c.Type == backend.CellNoValue
	}
	if !ok {
		t.Errorf("%s!%s: read as type %d (%q), but excelize says its XML has type %d", sheet, cell, c.Type, c.Value, xt)
	}
}
