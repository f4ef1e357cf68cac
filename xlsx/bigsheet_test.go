package xlsx_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/testkit/testreaders"
	"github.com/annosheet/annosheet/xlsx"
)

// bigTexts reads the text cells of a workbook's Annotate sheet with
// openpyxl in read-only mode, by row and column ("" for others).
const bigTexts = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
rows = [[c.value if isinstance(c.value, str) and c.data_type != "f" else "" for c in row] for row in wb["Annotate"].iter_rows()]
json.dump(rows, sys.stdout)
`

// TestBigSheetReaders: a sheet of many deflate blocks (1,000 legal-gaps
// rows make about 6 MB of XML) reads whole in openpyxl and, re-saved by
// LibreOffice, in our reader: the blocks make one stream that other
// applications accept, and no row is lost at a cut.
func TestBigSheetReaders(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	soffice := testreaders.Soffice(t)
	dir := t.TempDir()
	p, err := benchdata.FilledLegalPlan(dir, 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]string // the text cells by column, "" for others
	err = p.Sheets[1].Rows(func(r backend.Row) error {
		texts := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			texts[i], _ = c.Value.(string)
		}
		want = append(want, texts)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "big.xlsx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xlsx.Write(p, f, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(py, "-c", bigTexts, path).Output()
	if err != nil {
		t.Fatalf("openpyxl: %v", err)
	}
	var got [][]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	compareTexts(t, "openpyxl", want, got)

	conv := filepath.Join(dir, "lo")
	testreaders.Convert(t, soffice, "xlsx", conv, path)
	book, closeBook, err := xlsx.Open(filepath.Join(conv, "big.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeBook()
	got = nil
	err = book.Rows(backend.SheetAnnotate, func(_ int, cells []backend.ReadCell) error {
		texts := make([]string, len(cells))
		for i, c := range cells {
			if c.Type == backend.CellString {
				texts[i] = c.Value
			}
		}
		got = append(got, texts)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	compareTexts(t, "LibreOffice", want, got)
}

func compareTexts(t *testing.T, reader string, want, got [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s reads %d rows, want %d", reader, len(got), len(want))
	}
	for i := range want {
		for k, w := range want[i] {
			if w == "" {
				continue
			}
			if k >= len(got[i]) || got[i][k] != w {
				g := ""
				if k < len(got[i]) {
					g = got[i][k]
				}
				t.Fatalf("%s: row %d, column %d differs:\n got %.80q\nwant %.80q", reader, i+1, k+1, g, w)
			}
		}
	}
}
