package benchdata_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/testkit/testreaders"
	"github.com/annosheet/annosheet/testkit/xlsxdump"
	"github.com/annosheet/annosheet/xlsx"
)

// filledBook writes a filled legal-gaps workbook of n rows, as annosheet
// writes it (inline strings), and returns its path.
func filledBook(t *testing.T, dir string, n int) string {
	t.Helper()
	p, err := benchdata.FilledLegalPlan(dir, n, backend.XLSXCellLimit)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "filled.xlsx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := xlsx.Write(p, f, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// gridCells reads every sheet of a workbook with annosheet's reader.
func gridCells(t *testing.T, path string) map[string][][]backend.ReadCell {
	t.Helper()
	g, closeFn, err := xlsx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := closeFn(); err != nil {
			t.Errorf("close %s: %v", path, err)
		}
	}()
	out := map[string][][]backend.ReadCell{}
	for _, s := range g.Sheets {
		rows := [][]backend.ReadCell{}
		err := g.Rows(s, func(row int, cells []backend.ReadCell) error {
			for len(rows) < row {
				rows = append(rows, nil)
			}
			rows[row-1] = append([]backend.ReadCell(nil), cells...)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[s] = rows
	}
	return out
}

// part is the text of one part of a workbook.
func part(t *testing.T, path, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name == name {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	return ""
}

// TestSharedStringsCopy checks that the copy holds its text in a
// shared-strings table, and that annosheet's reader, excelize and (when
// installed) LibreOffice read the same cells from it as from the
// original.
func TestSharedStringsCopy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filledBook(t, dir, 12)
	dst := filepath.Join(dir, "filled-sst.xlsx")
	if err := benchdata.SharedStringsCopy(src, dst); err != nil {
		t.Fatal(err)
	}

	for i := 1; ; i++ {
		name := fmt.Sprintf("xl/worksheets/sheet%d.xml", i)
		s := part(t, dst, name)
		if s == "" {
			break
		}
		if strings.Contains(s, "inlineStr") {
			t.Errorf("%s still has inline strings", name)
		}
	}
	sst := part(t, dst, "xl/sharedStrings.xml")
	if !strings.Contains(sst, `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="`) {
		t.Errorf("no shared strings table in the copy: %.200s", sst)
	}
	if strings.Count(sst, "checked the cited case twice") != 1 {
		t.Error("a note written on several rows is not one shared string")
	}
	if !strings.Contains(part(t, dst, "[Content_Types].xml"), `PartName="/xl/sharedStrings.xml"`) {
		t.Error("no content type for the shared strings")
	}
	if !strings.Contains(part(t, dst, "xl/_rels/workbook.xml.rels"), `Target="sharedStrings.xml"`) {
		t.Error("no relationship from the workbook to the shared strings")
	}

	if diff := cmp.Diff(gridCells(t, src), gridCells(t, dst)); diff != "" {
		t.Errorf("annosheet's reader reads the copy otherwise (-original +copy):\n%s", diff)
	}
	if rows := gridCells(t, dst)["Annotate"]; len(rows) != 13 || rows[12][3].Value != "TRUE" {
		t.Errorf("the copy's Annotate sheet: %d rows, last %v", len(rows), rows[len(rows)-1])
	}
	want, err := xlsxdump.File(src, xlsxdump.Options{MaxText: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	got, err := xlsxdump.File(dst, xlsxdump.Options{MaxText: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("excelize reads the copy otherwise (-original +copy):\n%s", diff)
	}
	for _, path := range []string{src, dst} {
		f, err := excelize.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		v, err := f.GetCellValue("Annotate", "F4")
		f.Close()
		if err != nil || v != "checked the cited case twice" {
			t.Errorf("%s: excelize reads the note in F4 as %q, %v", filepath.Base(path), v, err)
		}
	}

	// LibreOffice reads both, and saves them alike.
	soffice := testreaders.Soffice(t)
	out := filepath.Join(dir, "lo")
	testreaders.Convert(t, soffice, "xlsx", out, src, dst)
	a, b := gridCells(t, filepath.Join(out, "filled.xlsx")), gridCells(t, filepath.Join(out, "filled-sst.xlsx"))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("LibreOffice reads the copy otherwise (-original +copy):\n%s", diff)
	}
	if rows := b["Annotate"]; len(rows) != 13 || rows[12][3].Value != "TRUE" {
		t.Errorf("LibreOffice's copy's Annotate sheet: %d rows, last %v", len(rows), rows[len(rows)-1])
	}
}

// TestSharedStringsCopyKeepsTable checks a workbook that already has a
// shared-strings table: its entries keep their indices, equal strings
// share the first one's, and new strings follow.
func TestSharedStringsCopyKeepsTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "mixed.xlsx")
	writeZip(t, src, map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
			`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
			`<Override PartName="/xl/strings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
		"_rels/.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml": `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
			`<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="strings.xml"/></Relationships>`,
		"xl/strings.xml": `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="2" uniqueCount="2">` +
			`<si><t>a</t></si><si><t xml:space="preserve"> b &lt;c&gt; </t></si></sst>`,
		"xl/worksheets/sheet1.xml": `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
			`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>` +
			`<c r="C1" s="2" t="inlineStr"><is><t xml:space="preserve"> b &lt;c&gt; </t></is></c>` +
			`<c r="D1" t='inlineStr'><is><r><t>d</t></r><r><rPr><b/></rPr><t>e</t></r></is></c><c r="E1" t="b"><v>1</v></c></row>` +
			`<row r="2"><c r="A2" t="inlineStr"><is><t>&lt;/c&gt;</t></is></c><c r="B2"><v>4.5</v></c><c r="C2" t="inlineStr"/></row>` +
			`</sheetData></worksheet>`,
	})
	dst := filepath.Join(dir, "copy.xlsx")
	if err := benchdata.SharedStringsCopy(src, dst); err != nil {
		t.Fatal(err)
	}
	wantSheet := `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>` +
		`<c r="C1" s="2" t="s"><v>1</v></c>` +
		`<c r="D1" t='s'><v>2</v></c><c r="E1" t="b"><v>1</v></c></row>` +
		`<row r="2"><c r="A2" t="s"><v>3</v></c><c r="B2"><v>4.5</v></c><c r="C2" t="inlineStr"/></row>` +
		`</sheetData></worksheet>`
	if diff := cmp.Diff(wantSheet, part(t, dst, "xl/worksheets/sheet1.xml")); diff != "" {
		t.Errorf("sheet (-want +got):\n%s", diff)
	}
	wantSST := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="5" uniqueCount="4">` +
		`<si><t>a</t></si><si><t xml:space="preserve"> b &lt;c&gt; </t></si><si><r><t>d</t></r><r><rPr><b/></rPr><t>e</t></r></si><si><t>&lt;/c&gt;</t></si></sst>`
	if diff := cmp.Diff(wantSST, part(t, dst, "xl/strings.xml")); diff != "" {
		t.Errorf("shared strings (-want +got):\n%s", diff)
	}
	if got := strings.Count(part(t, dst, "[Content_Types].xml"), "sharedStrings+xml"); got != 1 {
		t.Errorf("%d content types for shared strings, want 1", got)
	}
	if got := strings.Count(part(t, dst, "xl/_rels/workbook.xml.rels"), "relationships/sharedStrings"); got != 1 {
		t.Errorf("%d relationships to shared strings, want 1", got)
	}
	rows := gridCells(t, dst)["S"]
	want := [][]string{{"a", " b <c> ", " b <c> ", "de", "TRUE"}, {"</c>", "4.5"}}
	var got [][]string
	for _, r := range rows {
		got = append(got, backend.Texts(r))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

func writeZip(t *testing.T, path string, parts map[string]string) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/strings.xml", "xl/worksheets/sheet1.xml"} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, parts[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
