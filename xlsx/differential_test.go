package xlsx_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/testkit/testreaders"
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

// readsLikeExcelize compares Open's reading of path with excelize's (see
// compareExcelize, which FuzzReadLikeExcelize shares).
func readsLikeExcelize(t *testing.T, path string) {
	t.Helper()
	diffs, err := xlsx.CompareExcelize(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
}
