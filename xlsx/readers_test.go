package xlsx_test

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// The tests in this file let independent applications read what we write:
// openpyxl (Python) and LibreOffice. They skip, saying why, when the
// application is not installed; .ci/run installs both.

type pyBook struct {
	Active string `json:"active"`
	Sheets []struct {
		Name             string `json:"name"`
		State            string `json:"state"`
		Freeze           string `json:"freeze"`
		Protected        bool   `json:"protected"`
		SortLocked       bool   `json:"sort_locked"`
		AutoFilterLocked bool   `json:"autofilter_locked"`
		AutoFilter       string `json:"autofilter"`
		MaxRow           int    `json:"max_row"`
		Validations      []struct {
			Sqref    string `json:"sqref"`
			Type     string `json:"type"`
			Formula1 string `json:"formula1"`
			Formula2 string `json:"formula2"`
			Prompt   string `json:"prompt"`
		} `json:"validations"`
		Cells []struct {
			Ref    string `json:"ref"`
			Value  any    `json:"value"`
			Type   string `json:"type"`
			Locked bool   `json:"locked"`
			Fill   string `json:"fill"`
		} `json:"cells"`
	} `json:"sheets"`
	ReadOnlyRows int `json:"read_only_rows"`
}

// TestOpenpyxlReads checks every generated workbook through openpyxl: it
// must see every validation, the freeze, the protection, the locks and the
// band fills, and read-only mode must see every row.
func TestOpenpyxlReads(t *testing.T) {
	py := testreaders.Openpyxl(t)
	for _, c := range bookCases {
		t.Run(c.name, func(t *testing.T) {
			tmpl, res := build(t, c)
			path := writeBook(t, res, c.name)
			out, err := exec.Command(py, "testdata/openpyxl_check.py", path).Output()
			if err != nil {
				t.Fatalf("openpyxl: %v\n%s", err, stderrOf(err))
			}
			var book pyBook
			if err := json.Unmarshal(out, &book); err != nil {
				t.Fatal(err)
			}
			if book.Active != backend.SheetInstructions {
				t.Errorf("active sheet %q", book.Active)
			}
			states := map[backend.Visibility]string{backend.Visible: "visible", backend.Hidden: "hidden", backend.VeryHidden: "veryHidden"}
			if len(book.Sheets) != len(res.Plan.Sheets) {
				t.Fatalf("openpyxl sees %d sheets, want %d", len(book.Sheets), len(res.Plan.Sheets))
			}
			for i, s := range res.Plan.Sheets {
				if book.Sheets[i].Name != s.Name || book.Sheets[i].State != states[s.Visibility] {
					t.Errorf("sheet %d: %s/%s, want %s/%s", i, book.Sheets[i].Name, book.Sheets[i].State, s.Name, states[s.Visibility])
				}
			}
			ann := book.Sheets[1]
			wantFreeze := backend.CellName(tmpl.FrozenColumns(), 2)
			if ann.Freeze != wantFreeze || !ann.Protected || ann.SortLocked || ann.AutoFilterLocked {
				t.Errorf("Annotate: freeze %q protected %v sort locked %v filter locked %v", ann.Freeze, ann.Protected, ann.SortLocked, ann.AutoFilterLocked)
			}
			if ann.MaxRow != res.Rows+1 || book.ReadOnlyRows != res.Rows+1 {
				t.Errorf("openpyxl sees %d rows (%d in read-only mode), want %d", ann.MaxRow, book.ReadOnlyRows, res.Rows+1)
			}
			// Every validation of the plan, as openpyxl reads it.
			got := map[string]string{}
			for _, v := range ann.Validations {
				got[v.Sqref] = v.Type + " " + v.Formula1 + " " + v.Formula2
			}
			for _, v := range res.Plan.Sheets[1].Validations {
				sq := fmt.Sprintf("%s:%s", backend.CellName(v.Col, v.FirstRow), backend.CellName(v.Col, v.LastRow))
				g, ok := got[sq]
				if !ok {
					t.Errorf("openpyxl sees no validation on %s", sq)
					continue
				}
				var want string
				switch v.Kind {
				case backend.ValidCheckbox:
					want = `list "TRUE,FALSE" `
				case backend.ValidWhole:
					want = fmt.Sprintf("whole %d %d", v.Min, v.Max)
				case backend.ValidList:
					if !strings.HasPrefix(g, "list ") {
						t.Errorf("%s: openpyxl sees %q, want a list", sq, g)
					}
					continue
				default:
					want = "  "
				}
				if g != want {
					t.Errorf("%s: openpyxl sees %q, want %q", sq, g, want)
				}
			}
			// Locks and fills of the Annotate cells against the plan.
			cols := tmpl.Columns()
			for _, cell := range ann.Cells {
				col, row, err := excelize.CellNameToCoordinates(cell.Ref)
				if err != nil {
					t.Fatal(err)
				}
				spec := cols[col-1]
				open := row > 1 && (spec.Role == templates.RoleAnswer || spec.Role == templates.RoleAnnotator || spanSource(cols, spec))
				if spec.Question != nil && spec.Question.Scope == "block" && row > 1 && !isUnitFirstRow(res, row) {
					open = false
				}
				if cell.Locked == open {
					t.Errorf("%s (%s): openpyxl locked = %v", cell.Ref, spec.Header, cell.Locked)
				}
				if spec.Role == templates.RoleID && row > 1 && !contains(tmpl.Bands.Palette, cell.Fill) {
					t.Errorf("%s: fill %q is not a band colour", cell.Ref, cell.Fill)
				}
				if row == 1 && cell.Value != spec.Header {
					t.Errorf("%s: header %v, want %q", cell.Ref, cell.Value, spec.Header)
				}
			}
		})
	}
}

func isUnitFirstRow(res *layout.Result, row int) bool {
	for _, u := range res.Units {
		if u.FirstRow == row {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestLibreOfficeRoundTrip converts every generated workbook with
// LibreOffice, as an annotator's save would, and checks that the result
// still has the sheets, the values and the validations.
func TestLibreOfficeRoundTrip(t *testing.T) {
	soffice := testreaders.Soffice(t)
	if testing.Short() {
		t.Skip("LibreOffice round trip is slow; skipped in -short mode")
	}
	dir := t.TempDir()
	var paths []string
	results := map[string]*layout.Result{}
	blocks := map[string]bool{}
	for _, c := range bookCases {
		tp, res := build(t, c)
		blocks[c.name] = tp.Rows.Per == templates.PerBlock
		p := writeBook(t, res, c.name)
		dst := filepath.Join(dir, c.name+".xlsx")
		if err := os.Rename(p, dst); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, dst)
		results[c.name] = res
	}
	outDir := filepath.Join(dir, "out")
	testreaders.Convert(t, soffice, "xlsx:Calc MS Excel 2007 XML", outDir, paths...)
	for _, c := range bookCases {
		t.Run(c.name, func(t *testing.T) {
			res := results[c.name]
			f, err := excelize.OpenFile(filepath.Join(outDir, c.name+".xlsx"))
			if err != nil {
				t.Fatalf("LibreOffice wrote no readable workbook: %v", err)
			}
			defer f.Close()
			orig, err := excelize.OpenFile(filepath.Join(dir, c.name+".xlsx"))
			if err != nil {
				t.Fatal(err)
			}
			defer orig.Close()
			for _, s := range res.Plan.Sheets {
				if idx, _ := f.GetSheetIndex(s.Name); idx < 0 {
					t.Errorf("LibreOffice lost sheet %s", s.Name)
				}
			}
			want, _ := orig.GetRows(backend.SheetAnnotate)
			got, err := f.GetRows(backend.SheetAnnotate)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("LibreOffice kept %d rows of %d", len(got), len(want))
			}
			for r := range want {
				for col := range want[r] {
					g := ""
					if col < len(got[r]) {
						g = got[r][col]
					}
					if g != want[r][col] {
						t.Errorf("%s changed in LibreOffice: %.60q -> %.60q", backend.CellName(col, r+1), want[r][col], g)
					}
				}
			}
			// LibreOffice may merge equal validations into one with several
			// ranges; what must survive is every range.
			dvs, _ := f.GetDataValidations(backend.SheetAnnotate)
			kept := map[string]bool{}
			for _, v := range dvs {
				for _, sq := range strings.Fields(v.Sqref) {
					kept[sq] = true
				}
			}
			for _, v := range res.Plan.Sheets[1].Validations {
				sq := backend.CellName(v.Col, v.FirstRow) + ":" + backend.CellName(v.Col, v.LastRow)
				if !kept[sq] {
					t.Errorf("LibreOffice lost the validation on %s", sq)
				}
			}
			meta, _ := f.GetRows(backend.SheetMeta)
			rows := 3 + len(res.Units)
			if blocks[c.name] {
				rows += len(res.Units)
			}
			if len(meta) != rows {
				t.Errorf("metadata sheet has %d rows after LibreOffice, want %d", len(meta), rows)
			}
			// LibreOffice computed each block's places: the rows its
			// unit cells are on.
			for i, r := range meta {
				if r[0] != "places" {
					continue
				}
				u := res.Units[i-3-len(res.Units)]
				var want []string
				for n := u.FirstRow; n < u.FirstRow+u.Rows; n++ {
					want = append(want, strconv.Itoa(n))
				}
				if diff := cmp.Diff(want, r[2:]); diff != "" {
					t.Errorf("places of %s after LibreOffice (-want +got):\n%s", u.ID, diff)
				}
			}
		})
	}
}

// zipParts reads every part of an XLSX package as text.
func zipParts(path string) (map[string]string, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	out := map[string]string{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, err
		}
		out[f.Name] = string(b)
	}
	return out, nil
}
