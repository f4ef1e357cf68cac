package xlsx_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/testkit/testreaders"
	"github.com/annosheet/annosheet/xlsx"
)

// TestOpenConverted saves a filled workbook as LibreOffice would save an
// annotator's edit in its other formats, opens each with Open, and checks
// that the grid holds what the workbook held and pulls to the same records.
func TestOpenConverted(t *testing.T) {
	soffice := testreaders.Soffice(t)
	dir := t.TempDir()
	plan, err := benchdata.FilledLegalPlan(dir, 12, backend.XLSXCellLimit)
	if err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(dir, "returned.xlsx")
	f, err := os.Create(orig)
	if err != nil {
		t.Fatal(err)
	}
	if err := xlsx.Write(plan, f, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want, wantPull := readAll(t, orig)

	formats := []struct{ ext, filter string }{
		{"ods", "ods"},
		{"xls", "xls:MS Excel 97"},
	}
	if testing.Short() {
		formats = formats[:1] // a conversion takes seconds
	}
	for _, c := range formats {
		t.Run(c.ext, func(t *testing.T) {
			out := t.TempDir()
			testreaders.Convert(t, soffice, c.filter, out, orig)
			name := "returned." + c.ext
			got, gotPull := readAll(t, filepath.Join(out, name))
			if diff := cmp.Diff(want[backend.SheetMeta], got[backend.SheetMeta]); diff != "" {
				t.Errorf("metadata sheet (-xlsx +%s):\n%s", c.ext, diff)
			}
			// The Check column is computed: LibreOffice computes it, the
			// original holds no value, and the .xls format lacks some of
			// its functions (#N/A). Pull never reads it.
			if diff := cmp.Diff(withoutCheck(want[backend.SheetAnnotate]), withoutCheck(got[backend.SheetAnnotate])); diff != "" {
				t.Errorf("Annotate sheet (-xlsx +%s):\n%s", c.ext, diff)
			}
			if len(wantPull.Records) != 12 || wantPull.Records[0].Status != records.StatusComplete {
				t.Fatalf("the original pulls to %d records, the first %s", len(wantPull.Records), wantPull.Records[0].Status)
			}
			ignore := cmpopts.IgnoreFields(records.RecordSource{}, "File")
			if diff := cmp.Diff(wantPull.Records, gotPull.Records, ignore); diff != "" {
				t.Errorf("records (-xlsx +%s):\n%s", c.ext, diff)
			}
			for _, r := range gotPull.Records {
				if r.Source.File != name {
					t.Fatalf("record %s comes from %q, want %q", r.Unit, r.Source.File, name)
				}
			}
		})
	}
}

// readAll opens a workbook with Open and returns every sheet's rows (as
// row number -> cells, with empty trailing cells left out) and its pull.
func readAll(t *testing.T, path string) (map[string]map[int][]string, *decode.Pulled) {
	t.Helper()
	g, closeFn, err := xlsx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := closeFn(); err != nil {
			t.Error(err)
		}
	}()
	if g.Name != filepath.Base(path) {
		t.Errorf("grid named %q, want %q", g.Name, filepath.Base(path))
	}
	sheets := map[string]map[int][]string{}
	for _, s := range g.Sheets {
		rows := map[int][]string{}
		err := g.Rows(s, func(row int, read []backend.ReadCell) error {
			cells := backend.Texts(read)
			for len(cells) > 0 && cells[len(cells)-1] == "" {
				cells = cells[:len(cells)-1]
			}
			if len(cells) > 0 {
				rows[row] = append([]string(nil), cells...)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sheets[s] = rows
	}
	p, err := decode.Pull(g, decode.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sheets, p
}

// withoutCheck is the rows of an Annotate sheet with the Check column's
// cells blank, and the trailing blanks left out again.
func withoutCheck(rows map[int][]string) map[int][]string {
	col := slices.Index(rows[1], templates.CheckHeader)
	out := map[int][]string{}
	for n, cells := range rows {
		cells = slices.Clone(cells)
		if n > 1 && col >= 0 && col < len(cells) {
			cells[col] = ""
		}
		for len(cells) > 0 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		out[n] = cells
	}
	return out
}
