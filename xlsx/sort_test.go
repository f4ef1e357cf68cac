package xlsx_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/testreaders"
	"github.com/annosheet/annosheet/xlsx"
)

// sortMacro does to workbooks what an annotator does in LibreOffice: for
// each line of a list (tab-separated: the workbook, where to save it, the
// rows to insert before, the column to sort by, "asc" or "desc", and cells
// to type, CELL=TEXT separated by "|"), it opens the workbook, inserts
// the rows, types the cells, unmerges the Annotate sheet (merged cells
// cannot be sorted) and sorts its rows below the header by the column.
const sortMacro = `
Sub SortBooks(listPath As String)
  Dim f As Integer
  f = FreeFile
  Open listPath For Input As #f
  Do While Not EOF(f)
    Line Input #f, spec
    If Len(spec) > 0 Then
      SortBook(Split(spec, Chr(9)))
    End If
  Loop
  Close #f
End Sub

Sub SortBook(p)
  Dim args(0) As New com.sun.star.beans.PropertyValue
  args(0).Name = "Hidden"
  args(0).Value = True
  doc = StarDesktop.loadComponentFromURL(ConvertToURL(p(0)), "_blank", 0, args())
  sh = doc.Sheets.getByName("Annotate")
  sh.unprotect("")
  For Each r In Split(p(2), ",")
    If Len(r) > 0 Then
      sh.Rows.insertByIndex(CLng(r) - 1, 1)
    End If
  Next r
  For Each a In Split(p(5), "|")
    If Len(a) > 0 Then
      kv = Split(a, "=", 2)
      sh.getCellRangeByName(kv(0)).String = kv(1)
    End If
  Next a
  doc.calculateAll()
  cur = sh.createCursor()
  cur.gotoEndOfUsedArea(False)
  last = cur.getRangeAddress()
  rng = sh.getCellRangeByPosition(0, 1, last.EndColumn, last.EndRow)
  rng.merge(False)
  Dim fields(0) As New com.sun.star.table.TableSortField
  fields(0).Field = CLng(p(3))
  fields(0).IsAscending = (p(4) = "asc")
  Dim sd(1) As New com.sun.star.beans.PropertyValue
  sd(0).Name = "SortFields"
  sd(0).Value = fields()
  sd(1).Name = "ContainsHeader"
  sd(1).Value = False
  rng.sort(sd())
  Dim save(0) As New com.sun.star.beans.PropertyValue
  save(0).Name = "FilterName"
  save(0).Value = "Calc MS Excel 2007 XML"
  doc.storeToURL(ConvertToURL(p(1)), save())
  doc.close(True)
End Sub
`

// TestPullAfterLibreOfficeSort: rows an annotator inserts in a block
// (qa-span-errors), then sorts the sheet by a column in LibreOffice, come
// back in the order they had in the block: LibreOffice keeps the places
// the workbook records where they were before the sort.
func TestPullAfterLibreOfficeSort(t *testing.T) {
	soffice := testreaders.Soffice(t)
	if testing.Short() {
		t.Skip("LibreOffice sorting is slow; skipped in -short mode")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "qa.json")
	inputJSON := `[
{"question": "Q one?", "passages": [["T1", "S one."]], "gold": "G", "prediction 1": "Paris is big. It rains. Cats fly."},
{"question": "Q two?", "passages": [["T2", "S two."]], "gold": "G", "prediction 1": "Dogs bark. Cows moo."}
]`
	if err := os.WriteFile(in, []byte(inputJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := input.Template("qa-span-errors", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := input.Open(tp.Input.Format, []string{in})
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, src, layout.Options{Batch: "b01", Study: "s"})
	if err != nil {
		t.Fatal(err)
	}
	book := writeBook(t, res, "qa")
	col := map[string]int{}
	for i, c := range tp.Columns() {
		col[c.Key] = i
	}
	// row types a span, its error type and the annotator into a row.
	row := func(n int, span, kind string) string {
		return strings.Join([]string{
			backend.CellName(col["q:span"], n) + "=" + span,
			backend.CellName(col["q:error_type"], n) + "=" + kind,
			backend.CellName(col["annotator"], n) + "=AK",
		}, "|")
	}
	// q0000 is on rows 2-9, q0001 on rows 10-17. One row is inserted
	// between q0000's second and third answer rows (row 4), or two: after
	// its second and its third (rows 4 and 6); then q0001 starts on row
	// 11 or 12.
	one := strings.Join([]string{row(2, "Paris is big", "Irrelevant"), row(3, "It rains", "Unverifiable Fact"), row(4, "rains", "Unverifiable Fact"),
		row(5, "Cats fly", "Incoherent"), row(11, "Dogs bark", "Irrelevant"), row(12, "moo", "Incoherent"),
		backend.CellName(col["q:checked"], 2) + "=TRUE", backend.CellName(col["q:checked"], 11) + "=TRUE"}, "|")
	two := strings.Join([]string{row(2, "Paris is big", "Irrelevant"), row(3, "It rains", "Unverifiable Fact"), row(4, "rains", "Unverifiable Fact"),
		row(5, "Cats fly", "Incoherent"), row(6, "fly", "Incoherent"), row(12, "Dogs bark", "Irrelevant"), row(13, "moo", "Incoherent"),
		backend.CellName(col["q:checked"], 2) + "=TRUE", backend.CellName(col["q:checked"], 12) + "=TRUE"}, "|")
	cases := []struct {
		name   string
		insert string // rows inserted before, in order
		cells  string
		by     string // the column key sorted by
		asc    bool
		q0000  []string
		// warnings is how many rows are said to be where their place
		// cannot be known.
		warnings int
	}{
		{"one row, by error type", "4", one, "q:error_type", true, []string{"Paris is big", "It rains", "rains", "Cats fly"}, 0},
		{"one row, by error type, descending", "4", one, "q:error_type", false, []string{"Paris is big", "It rains", "rains", "Cats fly"}, 0},
		{"one row, by ID, descending", "4", one, "id", false, []string{"Paris is big", "It rains", "rains", "Cats fly"}, 0},
		{"one row, by span", "4", one, "q:span", true, []string{"Paris is big", "It rains", "rains", "Cats fly"}, 0},
		// Two rows in two places of a block: which was where, a sort does
		// not tell; each is read last in its block, and said.
		{"two rows, by ID", "4,6", two, "id", true, []string{"Paris is big", "It rains", "Cats fly", "rains", "fly"}, 2},
	}
	var list strings.Builder
	for i, c := range cases {
		order := "desc"
		if c.asc {
			order = "asc"
		}
		list.WriteString(strings.Join([]string{book, filepath.Join(dir, strconv.Itoa(i)+".xlsx"), c.insert, strconv.Itoa(col[c.by]), order, c.cells}, "\t") + "\n")
	}
	listPath := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(listPath, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testreaders.Basic(t, soffice, sortMacro, `SortBooks("`+listPath+`")`)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, closeFn, err := xlsx.Open(filepath.Join(dir, strconv.Itoa(i)+".xlsx"))
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			p, err := decode.Pull(g, decode.PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, r := range p.Records {
				for _, s := range r.Spans {
					got[r.Unit] = append(got[r.Unit], s.Text)
				}
			}
			want := map[string][]string{"q0000": c.q0000, "q0001": {"Dogs bark", "moo"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
			warnings := 0
			for _, pr := range p.Problems {
				if pr.Severity == records.Warning && strings.Contains(pr.Message, "where in the block it was cannot be known") {
					warnings++
					continue
				}
				t.Errorf("problem: %v", pr)
			}
			if warnings != c.warnings {
				t.Errorf("%d rows said to be read where their place cannot be known, want %d", warnings, c.warnings)
			}
			// The sort did move the rows.
			var units []string
			err = g.Rows(backend.SheetAnnotate, func(n int, cells []backend.ReadCell) error {
				if n > 1 && col[templates.RoleUnit] < len(cells) {
					units = append(units, cells[col[templates.RoleUnit]].Value)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(units) > 1 && units[1] == "q0000#2" && units[2] == "" {
				t.Errorf("the sheet is as it was before the sort: %q", units)
			}
		})
	}
}
