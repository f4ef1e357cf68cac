package xlsx_test

import (
	"os"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/backendtest"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/xlsx"
)

func TestConformance(t *testing.T) {
	backendtest.Run(t, &xlsxBackend{dir: t.TempDir()})
}

// xlsxBackend writes workbooks to files in dir; it reads what they offer
// with excelize, as a second reader of what the backend writes.
type xlsxBackend struct{ dir string }

func (*xlsxBackend) Store() backend.Store { return xlsx.Store{} }

func (b *xlsxBackend) Target(t *testing.T) backend.Location {
	f, err := os.CreateTemp(b.dir, "*.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	return backend.Location{Kind: backend.KindXLSX, Path: f.Name()}
}

func (*xlsxBackend) Created(*testing.T, backend.Location) {}

func (*xlsxBackend) Fill(t *testing.T, at backend.Location) *goldtest.Workbook {
	w, err := goldtest.OpenWorkbook(at.Path)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (*xlsxBackend) Offer(t *testing.T, at backend.Location) *backendtest.Offer {
	f, err := excelize.OpenFile(at.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o := &backendtest.Offer{Validations: map[string]string{}, Fills: map[string]string{}, Notes: map[string]string{}}
	for _, name := range f.GetSheetList() {
		if vis, _ := f.GetSheetVisible(name); !vis {
			name += " (hidden)"
		}
		o.Tabs = append(o.Tabs, name)
	}
	const sh = backend.SheetAnnotate
	panes, err := f.GetPanes(sh)
	if err != nil {
		t.Fatal(err)
	}
	if panes.Freeze {
		o.Frozen = [2]int{panes.YSplit, panes.XSplit}
	}
	rows, err := f.GetRows(sh)
	if err != nil {
		t.Fatal(err)
	}
	ncol := len(rows[0])
	for c := 0; c < ncol; c++ {
		letter := backend.ColumnLetter(c)
		if vis, _ := f.GetColVisible(sh, letter); !vis {
			o.Hidden = append(o.Hidden, c)
		}
		if st := cellStyle(t, f, sh, backend.CellName(c, 2)); st.Protection != nil && !st.Protection.Locked {
			o.Open = append(o.Open, c)
		}
	}
	dvs, err := f.GetDataValidations(sh)
	if err != nil {
		t.Fatal(err)
	}
	for _, dv := range dvs {
		rule := backendtest.XLSXRule(dv)
		for _, rng := range strings.Fields(dv.Sqref) {
			for _, cell := range backendtest.Cells(t, rng) {
				o.Validations[cell] = rule
			}
		}
	}
	for r := 1; r <= len(rows); r++ {
		for c := 0; c < ncol; c++ {
			cell := backend.CellName(c, r)
			fill := "FFFFFF"
			if st := cellStyle(t, f, sh, cell); st.Fill.Pattern == 1 && len(st.Fill.Color) > 0 {
				fill = hexColor(st.Fill.Color[0])
			}
			o.Fills[cell] = fill
		}
	}
	o.Formulas, o.Conditional = xlsxComputed(t, f, at.Path, sh, len(rows), ncol)
	o.MetaFormulas = xlsxFormulas(t, f, backend.SheetMeta)
	comments, err := f.GetComments(sh)
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range comments {
		text := cm.Text
		if text == "" {
			for _, r := range cm.Paragraph {
				text += r.Text
			}
		}
		o.Notes[cm.Cell] = strings.TrimPrefix(text, cm.Author+":")
	}
	o.Links = xlsxLinks(t, f)
	return o
}

// xlsxLinks lists the hyperlinks of every sheet that point inside the
// workbook.
func xlsxLinks(t *testing.T, f *excelize.File) map[string]string {
	links := map[string]string{}
	for _, sh := range f.GetSheetList() {
		rows, err := f.GetRows(sh)
		if err != nil {
			t.Fatal(err)
		}
		for r, row := range rows {
			for c := range row {
				cell := backend.CellName(c, r+1)
				ok, target, err := f.GetCellHyperLink(sh, cell)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					links[sh+"!"+cell] = strings.ReplaceAll(target, "'", "")
				}
			}
		}
	}
	return links
}

func cellStyle(t *testing.T, f *excelize.File, sheet, cell string) *excelize.Style {
	id, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func hexColor(s string) string {
	s = strings.ToUpper(strings.TrimPrefix(s, "#"))
	if len(s) == 8 {
		s = s[2:]
	}
	return s
}
