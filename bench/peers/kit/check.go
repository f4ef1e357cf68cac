package main

import (
	"archive/zip"
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/xlsx"
)

// checkCmd checks that each file holds the cells of the workbook
// annosheet generated: every sheet, every row, every cell's value and
// type (a formula by its text), as annosheet's reader reads them. With
// -layout it also compares, with excelize, what is around the cells:
// visibility, frozen panes, column widths, row heights, validations,
// conditional formats; those differences are printed, not failed on,
// unless -strict.
func checkCmd(args []string, stdout io.Writer) error {
	fs := flags("check")
	want := fs.String("want", "", "the workbook annosheet generated")
	lay := fs.Bool("layout", false, "compare the layout too (reads whole sheets: small files only)")
	strict := fs.Bool("strict", false, "fail on a difference of layout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *want == "" || fs.NArg() == 0 {
		return errors.New("check: -want and files are needed")
	}
	var failed []string
	for _, got := range fs.Args() {
		n, err := sameCells(*want, got)
		if err != nil {
			fmt.Fprintf(stdout, "%s: DIFFERENT: %v\n", filepath.Base(got), err)
			failed = append(failed, got)
			continue
		}
		fmt.Fprintf(stdout, "%s: same cells (%d rows)\n", filepath.Base(got), n)
		if !*lay {
			continue
		}
		diffs, err := layoutDiffs(*want, got)
		if err != nil {
			return err
		}
		for _, d := range diffs {
			fmt.Fprintf(stdout, "%s: layout: %s\n", filepath.Base(got), d)
		}
		if *strict && len(diffs) > 0 {
			failed = append(failed, got)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d files differ", len(failed), fs.NArg())
	}
	return nil
}

type gridRow struct {
	n     int
	cells []backend.ReadCell
}

// sameCells compares two workbooks sheet by sheet, streaming both, and
// returns how many rows it compared.
func sameCells(want, got string) (_ int, err error) {
	wg, wclose, err := xlsx.Open(want)
	if err != nil {
		return 0, err
	}
	// Damage found in a part no read reached comes with the closing.
	defer func() {
		if cerr := wclose(); err == nil {
			err = cerr
		}
	}()
	gg, gclose, err := xlsx.Open(got)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := gclose(); err == nil {
			err = cerr
		}
	}()
	if !slices.Equal(wg.Sheets, gg.Sheets) {
		return 0, fmt.Errorf("sheets %q, want %q", gg.Sheets, wg.Sheets)
	}
	total := 0
	for _, sheet := range wg.Sheets {
		rows := make(chan gridRow, 64)
		done := make(chan error, 1)
		stop := make(chan struct{})
		go func() {
			defer close(rows)
			done <- wg.Rows(sheet, func(n int, cells []backend.ReadCell) error {
				select {
				case rows <- gridRow{n, trim(slices.Clone(cells))}:
					return nil
				case <-stop:
					return errStop
				}
			})
		}()
		err := gg.Rows(sheet, func(n int, cells []backend.ReadCell) error {
			cells = trim(cells)
			if len(cells) == 0 {
				return nil
			}
			w, ok := <-rows
			for ok && len(w.cells) == 0 {
				w, ok = <-rows
			}
			if !ok {
				return fmt.Errorf("sheet %s: row %d is one too many", sheet, n)
			}
			if w.n != n {
				return fmt.Errorf("sheet %s: row %d where row %d is wanted", sheet, n, w.n)
			}
			if d := cmp.Diff(w.cells, cells); d != "" {
				return fmt.Errorf("sheet %s: row %d (-want +got):\n%s", sheet, n, d)
			}
			total++
			return nil
		})
		if err == nil {
			for w := range rows {
				if len(w.cells) > 0 {
					err = fmt.Errorf("sheet %s: row %d is missing", sheet, w.n)
					break
				}
			}
		}
		close(stop)
		for range rows {
		}
		if werr := <-done; werr != nil && werr != errStop && err == nil {
			err = fmt.Errorf("%s: %w", want, werr)
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

var errStop = errors.New("stopped")

// trim drops the empty cells at the end of a row: a styled empty cell is
// no cell.
func trim(cells []backend.ReadCell) []backend.ReadCell {
	for len(cells) > 0 && cells[len(cells)-1] == (backend.ReadCell{}) {
		cells = cells[:len(cells)-1]
	}
	return cells
}

// layoutDiffs lists what differs around the cells, as excelize reads it.
func layoutDiffs(want, got string) ([]string, error) {
	w, err := excelize.OpenFile(want)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	g, err := excelize.OpenFile(got)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	var diffs []string
	add := func(sheet, what string, a, b any) {
		if d := cmp.Diff(a, b); d != "" {
			diffs = append(diffs, fmt.Sprintf("sheet %s: %s (-want +got):\n%s", sheet, what, d))
		}
	}
	for _, sheet := range w.GetSheetList() {
		wv, _ := sheetState(want, w, sheet)
		gv, _ := sheetState(got, g, sheet)
		add(sheet, "visibility", wv, gv)
		wp, err1 := w.GetPanes(sheet)
		gp, err2 := g.GetPanes(sheet)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		add(sheet, "frozen panes", [3]any{wp.Freeze, wp.XSplit, wp.YSplit}, [3]any{gp.Freeze, gp.XSplit, gp.YSplit})
		dims, err := w.GetSheetDimension(sheet)
		if err != nil {
			return nil, err
		}
		cols, rows, err := dimSize(dims)
		if err != nil {
			return nil, err
		}
		var ww, gw []string
		for c := 1; c <= cols; c++ {
			name, _ := excelize.ColumnNumberToName(c)
			a, _ := w.GetColWidth(sheet, name)
			b, _ := g.GetColWidth(sheet, name)
			if a == defaultColWidth {
				continue // annosheet left it to the application
			}
			if math.Abs(a-b) <= 0.75 {
				b = a // XlsxWriter stores the width with Excel's padding of 5 pixels
			}
			av, _ := w.GetColVisible(sheet, name)
			bv, _ := g.GetColVisible(sheet, name)
			ww = append(ww, fmt.Sprintf("%s %.2f %v", name, a, av))
			gw = append(gw, fmt.Sprintf("%s %.2f %v", name, b, bv))
		}
		add(sheet, "column widths", ww, gw)
		var wh, gh []float64
		for r := 1; r <= rows; r++ {
			a, _ := w.GetRowHeight(sheet, r)
			b, _ := g.GetRowHeight(sheet, r)
			wh, gh = append(wh, a), append(gh, b)
		}
		add(sheet, "row heights", wh, gh)
		wd, err1 := w.GetDataValidations(sheet)
		gd, err2 := g.GetDataValidations(sheet)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		add(sheet, "validations", validations(wd), validations(gd))
		wc, err1 := condFormats(want, sheet)
		gc, err2 := condFormats(got, sheet)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		add(sheet, "conditional formats", wc, gc)
	}
	return diffs, nil
}

// defaultColWidth is the width excelize reports for a column the file
// does not size.
const defaultColWidth = 9.140625

// sheetState is visible, hidden or veryHidden, read from the workbook
// part (excelize tells hidden from visible only).
func sheetState(path string, f *excelize.File, sheet string) (string, error) {
	for _, s := range f.WorkBook.Sheets.Sheet {
		if s.Name == sheet {
			if s.State == "" {
				return "visible", nil
			}
			return s.State, nil
		}
	}
	return "", fmt.Errorf("%s: no sheet %s", path, sheet)
}

func dimSize(ref string) (cols, rows int, err error) {
	_, last, ok := cutRange(ref)
	if !ok {
		last = ref
	}
	return excelize.CellNameToCoordinates(last)
}

func cutRange(ref string) (a, b string, ok bool) {
	for i := range ref {
		if ref[i] == ':' {
			return ref[:i], ref[i+1:], true
		}
	}
	return ref, "", false
}

type validation struct {
	Sqref, Type, Formula1, PromptTitle, Prompt, ErrorTitle, Error string
}

func validations(dvs []*excelize.DataValidation) []validation {
	var out []validation
	for _, d := range dvs {
		out = append(out, validation{d.Sqref, d.Type, html.UnescapeString(d.Formula1), deref(d.PromptTitle), deref(d.Prompt), deref(d.ErrorTitle), deref(d.Error)})
	}
	slices.SortFunc(out, func(a, b validation) int {
		if a.Sqref < b.Sqref {
			return -1
		}
		if a.Sqref > b.Sqref {
			return 1
		}
		return 0
	})
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

var (
	cfRE      = regexp.MustCompile(`(?s)<conditionalFormatting\s[^>]*?sqref="([^"]*)"[^>]*>(.*?)</conditionalFormatting>`)
	formulaRE = regexp.MustCompile(`(?s)<formula>(.*?)</formula>`)
)

// condFormats lists a sheet's conditional formats as "range: formula",
// sorted, read from the sheet's XML: excelize keeps one format per range.
func condFormats(path, sheet string) ([]string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	part, err := sheetPart(&zr.Reader, sheet)
	if err != nil {
		return nil, err
	}
	r, err := part.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range cfRE.FindAllSubmatch(b, -1) {
		for _, f := range formulaRE.FindAllSubmatch(m[2], -1) {
			out = append(out, string(m[1])+": "+html.UnescapeString(string(f[1])))
		}
	}
	slices.Sort(out)
	return out, nil
}

// readerRow is one row as a peer's reader extracted it: the unit's ID and
// each answer column's text (TRUE or FALSE for a tick, "" when empty).
type readerRow struct {
	Row    int               `json:"row"`
	Unit   string            `json:"unit"`
	Values map[string]string `json:"values"`
}

// answersCmd checks what the peers' readers extracted from a filled
// workbook against the fill (benchdata.LegalAnswers) and the units' IDs
// that annosheet's reader reads from the same workbook.
func answersCmd(args []string, stdout io.Writer) error {
	fs := flags("answers")
	book := fs.String("book", "", "the filled workbook the readers read")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *book == "" || fs.NArg() == 0 {
		return errors.New("answers: -book and files are needed")
	}
	cols, err := legalColumns()
	if err != nil {
		return err
	}
	g, closeFn, err := xlsx.Open(*book)
	if err != nil {
		return err
	}
	var units []string
	err = g.Rows(cols.Sheet, func(n int, cells []backend.ReadCell) error {
		if n > 1 && cols.Unit < len(cells) {
			units = append(units, cells[cols.Unit].Value)
		}
		return nil
	})
	if cerr := closeFn(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	var failed int
	for _, path := range fs.Args() {
		n, err := checkAnswers(path, cols, units)
		if err != nil {
			fmt.Fprintf(stdout, "%s: DIFFERENT: %v\n", filepath.Base(path), err)
			failed++
			continue
		}
		fmt.Fprintf(stdout, "%s: the fill of %d units\n", filepath.Base(path), n)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d readers' answers differ", failed, fs.NArg())
	}
	return nil
}

func checkAnswers(path string, cols columns, units []string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	k := 0
	for sc.Scan() {
		var r readerRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return k, fmt.Errorf("line %d: %w", k+1, err)
		}
		k++
		if k > len(units) {
			return k, fmt.Errorf("more than the %d units", len(units))
		}
		want := readerRow{Row: k + 1, Unit: units[k-1], Values: map[string]string{}}
		for key := range cols.Answers {
			want.Values[key] = ""
		}
		for key, v := range benchdata.LegalAnswers(k) {
			switch v := v.(type) {
			case bool:
				want.Values[key] = map[bool]string{true: "TRUE", false: "FALSE"}[v]
			default:
				want.Values[key] = fmt.Sprint(v)
			}
		}
		if d := cmp.Diff(want, r); d != "" {
			return k, fmt.Errorf("unit %d (-want +got):\n%s", k, d)
		}
	}
	if err := sc.Err(); err != nil {
		return k, err
	}
	if k != len(units) {
		return k, fmt.Errorf("%d units, want %d", k, len(units))
	}
	return k, nil
}

// columns says where a reader finds the answers: the sheet, the unit's
// column and each answer's column, 0-based.
type columns struct {
	Sheet   string         `json:"sheet"`
	Unit    int            `json:"unit"`
	Answers map[string]int `json:"answers"`
}

// legalColumns are the legal-gaps template's columns, as annosheet lays
// them out.
func legalColumns() (columns, error) {
	tmpl, err := templates.Builtin("legal-gaps")
	if err != nil {
		return columns{}, err
	}
	c := columns{Sheet: "Annotate", Unit: -1, Answers: map[string]int{}}
	for i, col := range tmpl.Columns() {
		switch {
		case col.Key == "unit":
			c.Unit = i
		case col.Key == "annotator" || len(col.Key) > 2 && col.Key[:2] == "q:":
			c.Answers[col.Key] = i
		}
	}
	if c.Unit < 0 || len(c.Answers) == 0 {
		return c, errors.New("the legal-gaps template has no unit or no answer column")
	}
	return c, nil
}
