package xlsx_test

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/backendtest"
)

// xlsxComputed reads what the live checks wrote into a sheet: its
// formula cells, with excelize, and its conditional formats in order of
// priority, from the sheet's XML (excelize gives them by range only).
func xlsxComputed(t *testing.T, f *excelize.File, path, sheet string, nrow, ncol int) (map[string]string, []string) {
	t.Helper()
	formulas := map[string]string{}
	for r := 1; r <= nrow; r++ {
		for c := 0; c < ncol; c++ {
			cell := backend.CellName(c, r)
			if fx, err := f.GetCellFormula(sheet, cell); err != nil {
				t.Fatal(err)
			} else if fx != "" {
				formulas[cell] = fx
			}
		}
	}
	var ws struct {
		CF []struct {
			Sqref string `xml:"sqref,attr"`
			Rule  []struct {
				Priority int    `xml:"priority,attr"`
				DxfID    int    `xml:"dxfId,attr"`
				Formula  string `xml:"formula"`
			} `xml:"cfRule"`
		} `xml:"conditionalFormatting"`
	}
	if err := xml.Unmarshal(sheetXML(t, f, path, sheet), &ws); err != nil {
		t.Fatal(err)
	}
	type rule struct {
		priority int
		text     string
	}
	var rules []rule
	for _, cf := range ws.CF {
		for _, r := range cf.Rule {
			st, err := f.GetConditionalStyle(r.DxfID)
			if err != nil {
				t.Fatal(err)
			}
			rules = append(rules, rule{r.Priority, backendtest.ConditionalText(cf.Sqref, backendtest.XLSXLook(st), r.Formula)})
		}
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].priority < rules[j].priority })
	var out []string
	for _, r := range rules {
		out = append(out, r.text)
	}
	return formulas, out
}

// sheetXML is the XML part of a sheet.
func sheetXML(t *testing.T, f *excelize.File, path, sheet string) []byte {
	t.Helper()
	part := ""
	for i, name := range f.GetSheetList() {
		if name == sheet {
			part = "xl/worksheets/sheet" + strconv.Itoa(i+1) + ".xml"
		}
	}
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, zf := range z.File {
		if strings.EqualFold(zf.Name, part) {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no part %s in %s", part, path)
	return nil
}

// xlsxFormulas are the formula cells of a whole sheet.
func xlsxFormulas(t *testing.T, f *excelize.File, sheet string) map[string]string {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for r, row := range rows {
		for c := range row {
			cell := backend.CellName(c, r+1)
			if fx, err := f.GetCellFormula(sheet, cell); err != nil {
				t.Fatal(err)
			} else if fx != "" {
				out[cell] = fx
			}
		}
	}
	return out
}
