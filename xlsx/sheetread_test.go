package xlsx

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
)

// parts is a workbook package by part name, built by hand.
type parts map[string]string

const (
	nsMain = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	relNS  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

func relsXML(rels ...string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + strings.Join(rels, "") + `</Relationships>`
}

func relXML(id, typ, target string) string {
	return `<Relationship Id="` + id + `" Type="` + relNS + typ + `" Target="` + target + `"/>`
}

func sheetXML(rows string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<worksheet ` + nsMain + `><dimension ref="A1"/><sheetData>` + rows + `</sheetData><pageMargins left="0.7"/></worksheet>`
}

// oneSheet is a package with the sheet S1 holding rows, and the given
// shared strings and styles ("" for none).
func oneSheet(rows, sst, styles string) parts {
	p := parts{
		"[Content_Types].xml":        `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"_rels/.rels":                relsXML(relXML("rId1", "officeDocument", "xl/workbook.xml")),
		"xl/workbook.xml":            `<workbook ` + nsMain + `><workbookPr/><sheets><sheet name="S1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": relsXML(relXML("rId1", "worksheet", "worksheets/sheet1.xml"), relXML("rId2", "sharedStrings", "sharedStrings.xml"), relXML("rId3", "styles", "styles.xml")),
		"xl/worksheets/sheet1.xml":   sheetXML(rows),
	}
	if sst != "" {
		p["xl/sharedStrings.xml"] = `<sst ` + nsMain + `>` + sst + `</sst>`
	}
	if styles != "" {
		p["xl/styles.xml"] = `<styleSheet ` + nsMain + `>` + styles + `</styleSheet>`
	}
	return p
}

// zipParts zips parts, in name order.
func (p parts) zip(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, err := z.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p[n]))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func (p parts) file(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "book.xlsx")
	if err := os.WriteFile(path, p.zip(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type gridRow struct {
	N     int
	Cells []backend.ReadCell
}

// readAllLimits opens path with readBook (no verify pass) and reads every
// sheet; err is the first error met.
func readAllLimits(path string, lim readLimits) (sheets []string, rows map[string][]gridRow, err error) {
	g, closeFn, err := readBook(path, path, lim)
	if err != nil {
		return nil, nil, err
	}
	defer closeFn()
	rows = map[string][]gridRow{}
	for _, s := range g.Sheets {
		err := g.Rows(s, func(n int, cells []backend.ReadCell) error {
			rows[s] = append(rows[s], gridRow{n, cells})
			return nil
		})
		if err != nil {
			return g.Sheets, rows, rowsErr(path, err)
		}
	}
	return g.Sheets, rows, nil
}

func str(v string) backend.ReadCell { return backend.ReadCell{Value: v} }
func num(v string) backend.ReadCell { return backend.ReadCell{Type: backend.CellNumber, Value: v} }

func TestReadCellTypes(t *testing.T) {
	sst := `<si><t>hi</t></si>` +
		`<si><r><t>漢</t></r><r><rPr><b/></rPr><t>字</t></r><rPh sb="0" eb="2"><t>かんじ</t></rPh><phoneticPr fontId="1"/></si>` +
		`<si><t xml:space="preserve"> tab_x0009_ </t></si>`
	styles := `<numFmts count="1"><numFmt numFmtId="164" formatCode="dddd d mmmm yyyy hh:mm"/></numFmts>` +
		`<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164"/><xf numFmtId="2"/></cellXfs>`
	rows := `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c>` +
		`<c t="inlineStr"><is><r><rPr><b/></rPr><t>bold</t></r><r><t xml:space="preserve"> plain</t></r><rPh sb="0" eb="1"><t>ふ</t></rPh></is></c>` +
		`<c t="s"><v>2</v></c></row>` +
		// A row without a number follows the one before.
		`<row><c><v>4</v></c><c><v>4.5</v></c><c t="n"><v>1E-3</v></c><c s="1"><v>45365</v></c>` +
		`<c s="2"><v>45365.645833333336</v></c><c s="3"><v>7</v></c><c s="1"><v>abc</v></c><c s="1"><v>-1</v></c></row>` +
		`<row r="4"><c r="B4" t="b"><v>1</v></c><c r="C4" t="b"><v>0</v></c><c r="D4" t="e"><v>#N/A</v></c>` +
		`<c r="E4" t="str"><f>A1&amp;"x"</f><v>hix</v></c><c r="F4"><f>1+1</f></c><c r="G4"><f>SUM(A1)</f><v></v></c>` +
		`<c r="H4" t="str"><f>""</f><v></v></c><c r="I4"><f t="shared" si="0"/></c>` +
		`<c r="J4" t="d"><v>2024-03-14T15:30:00</v></c><c r="K4" t="d" s="1"><v>2024-03-14</v></c></row>` +
		`<row r="5"><c r="A5" s="3"/><c r="B5" t="inlineStr"><is><t>line_x000D_&#10;two _x005F_x0041_ &amp;</t></is></c>` +
		`<c r="C5" t="inlineStr"><is><t></t></is></c></row>` +
		`<row r="6"><c r="A6" s="3"/></row><row r="7" spans="1:3"/>` +
		`<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>`
	path := oneSheet(rows, sst, styles).file(t)
	sheets, got, err := readAllLimits(path, defaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sheets, []string{"S1"}) {
		t.Errorf("sheets %q", sheets)
	}
	zero := backend.ReadCell{}
	last := make([]backend.ReadCell, MaxColumns)
	last[MaxColumns-1] = num("1")
	want := []gridRow{
		{1, []backend.ReadCell{str("hi"), zero, str("漢字"), str("bold plain"), str(" tab\t ")}},
		{2, []backend.ReadCell{num("4"), num("4.5"), num("1E-3"),
			{Type: backend.CellDate, Value: "45365", Shown: "2024-03-14"},
			{Type: backend.CellDate, Value: "45365.645833333336", Shown: "Thursday 14 March 2024 15:30"},
			num("7"), num("abc"), num("-1")}},
		{4, []backend.ReadCell{zero,
			{Type: backend.CellBool, Value: "TRUE"}, {Type: backend.CellBool, Value: "FALSE"},
			{Type: backend.CellError, Value: "#N/A"}, str("hix"),
			{Type: backend.CellNoValue, Formula: "1+1"}, {Type: backend.CellNoValue, Formula: "SUM(A1)"},
			str(""), {Type: backend.CellNoValue},
			{Type: backend.CellDate, Value: "45365.645833333336", Shown: "2024-03-14 15:30:00"},
			{Type: backend.CellDate, Value: "45365", Shown: "2024-03-14"}}},
		{5, []backend.ReadCell{zero, str("line\r\ntwo _x0041_ &")}},
		{1048576, last},
	}
	if diff := cmp.Diff(want, got["S1"]); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestRead1904(t *testing.T) {
	p := oneSheet(`<row r="1"><c s="1"><v>43903</v></c><c t="d"><v>2024-03-14</v></c></row>`, "",
		`<cellXfs><xf/><xf numFmtId="14"/></cellXfs>`)
	p["xl/workbook.xml"] = strings.Replace(p["xl/workbook.xml"], "<workbookPr/>", `<workbookPr date1904="1"/>`, 1)
	_, got, err := readAllLimits(p.file(t), defaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := []gridRow{{1, []backend.ReadCell{
		{Type: backend.CellDate, Value: "43903", Shown: "2024-03-14"},
		{Type: backend.CellDate, Value: "43903", Shown: "2024-03-14"},
	}}}
	if diff := cmp.Diff(want, got["S1"]); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestReadPackage checks how sheets are found: names and order from the
// workbook, parts through its relationships, wherever they are.
func TestReadPackage(t *testing.T) {
	row := func(v string) string { return `<row r="1"><c t="inlineStr"><is><t>` + v + `</t></is></c></row>` }
	utf16le := func(s string) string {
		u := utf16.Encode([]rune(s))
		b := []byte{0xFF, 0xFE}
		for _, x := range u {
			b = append(b, byte(x), byte(x>>8))
		}
		return string(b)
	}
	cases := []struct {
		name  string
		parts func() parts
		want  []string // sheet names, each holding its name as text
	}{
		{"tab order from the workbook", func() parts {
			p := oneSheet(row("S1"), "", "")
			p["xl/workbook.xml"] = `<workbook ` + nsMain + `><sheets><sheet name="B" sheetId="2" r:id="rId9"/><sheet name="S1" sheetId="1" r:id="rId1"/></sheets></workbook>`
			p["xl/_rels/workbook.xml.rels"] = relsXML(relXML("rId1", "worksheet", "worksheets/sheet1.xml"), relXML("rId9", "worksheet", "worksheets/sheet2.xml"))
			p["xl/worksheets/sheet2.xml"] = sheetXML(row("B"))
			return p
		}, []string{"B", "S1"}},
		{"absolute targets and other case", func() parts {
			p := oneSheet(row("S1"), "", "")
			p["xl/_rels/workbook.xml.rels"] = relsXML(relXML("rId1", "worksheet", "/XL/Worksheets/Sheet1.xml"))
			return p
		}, []string{"S1"}},
		{"no package relationships", func() parts {
			p := oneSheet(row("S1"), "", "")
			delete(p, "_rels/.rels")
			return p
		}, []string{"S1"}},
		{"a workbook elsewhere, its strings named by a relationship", func() parts {
			return parts{
				"_rels/.rels":                relsXML(relXML("rId1", "officeDocument", "/book/main.xml")),
				"book/main.xml":              `<x:workbook xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:rel="` + relNS[:len(relNS)-1] + `"><x:sheets><x:sheet name="S1" sheetId="1" rel:id="a"/></x:sheets></x:workbook>`,
				"book/_rels/main.xml.rels":   relsXML(relXML("a", "worksheet", "../data/one.xml"), relXML("b", "sharedStrings", "text/strings%20here.xml")),
				"data/one.xml":               sheetXML(`<row r="1"><c t="s"><v>0</v></c></row>`),
				"book/text/strings here.xml": `<sst ` + nsMain + `><si><t>S1</t></si></sst>`,
			}
		}, []string{"S1"}},
		{"strict Office Open XML", func() parts {
			p := oneSheet(row("S1"), "", "")
			p["xl/_rels/workbook.xml.rels"] = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://purl.oclc.org/ooxml/officeDocument/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`
			return p
		}, []string{"S1"}},
		{"a chartsheet has no rows", func() parts {
			p := oneSheet(row("S1"), "", "")
			p["xl/workbook.xml"] = `<workbook ` + nsMain + `><sheets><sheet name="S1" sheetId="1" r:id="rId1"/><sheet name="Chart" sheetId="2" r:id="rId2"/></sheets></workbook>`
			p["xl/_rels/workbook.xml.rels"] = relsXML(relXML("rId1", "worksheet", "worksheets/sheet1.xml"), relXML("rId2", "chartsheet", "chartsheets/sheet1.xml"))
			return p
		}, []string{"S1", "Chart"}},
		{"a part in UTF-16", func() parts {
			p := oneSheet("", "", "")
			p["xl/worksheets/sheet1.xml"] = utf16le(strings.Replace(sheetXML(row("S1")), `encoding="UTF-8"`, `encoding="UTF-16"`, 1))
			return p
		}, []string{"S1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sheets, rows, err := readAllLimits(c.parts().file(t), defaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sheets, c.want) {
				t.Errorf("sheets %q, want %q", sheets, c.want)
			}
			for _, s := range sheets {
				var want []gridRow
				if s != "Chart" {
					want = []gridRow{{1, []backend.ReadCell{str(s)}}}
				}
				if diff := cmp.Diff(want, rows[s]); diff != "" {
					t.Errorf("sheet %s (-want +got):\n%s", s, diff)
				}
			}
		})
	}
}

func TestReadPackageErrors(t *testing.T) {
	cases := []struct {
		name  string
		parts func() parts
		want  error
		msg   string
	}{
		{"no workbook", func() parts { return parts{"hello.txt": "hello"} }, ErrNotSpreadsheet, "without a workbook"},
		{"a document, not a workbook", func() parts {
			return parts{"_rels/.rels": relsXML(relXML("rId1", "officeDocument", "word/document.xml")), "word/document.xml": `<w:document xmlns:w="x"/>`}
		}, ErrNotSpreadsheet, "<w:document>, not a workbook"},
		{"two sheets of one name", func() parts {
			p := oneSheet("", "", "")
			p["xl/workbook.xml"] = `<workbook ` + nsMain + `><sheets><sheet name="S1" sheetId="1" r:id="rId1"/><sheet name="s1" sheetId="2" r:id="rId1"/></sheets></workbook>`
			return p
		}, ErrDamaged, `two sheets are named "s1"`},
		{"a sheet without its relationship", func() parts {
			p := oneSheet("", "", "")
			p["xl/_rels/workbook.xml.rels"] = relsXML()
			return p
		}, ErrDamaged, `names the relationship "rId1"`},
		{"a sheet without its part", func() parts {
			p := oneSheet("", "", "")
			delete(p, "xl/worksheets/sheet1.xml")
			return p
		}, ErrDamaged, "which the file lacks"},
		{"no workbook relationships", func() parts {
			p := oneSheet("", "", "")
			delete(p, "xl/_rels/workbook.xml.rels")
			return p
		}, ErrDamaged, "relationships (xl/_rels/workbook.xml.rels) are missing"},
		{"a target outside the package", func() parts {
			p := oneSheet("", "", "")
			p["xl/_rels/workbook.xml.rels"] = relsXML(relXML("rId1", "worksheet", "../../sheet1.xml"))
			return p
		}, ErrDamaged, `names the relationship "rId1"`},
		{"a sheet of another kind", func() parts {
			p := oneSheet("", "", "")
			p["xl/worksheets/sheet1.xml"] = `<chartsheet ` + nsMain + `/>`
			return p
		}, ErrDamaged, "<chartsheet>, not <worksheet>"},
		{"an unknown cell type", func() parts { return oneSheet(`<row r="1"><c r="A1" t="x"><v>1</v></c></row>`, "", "") },
			ErrDamaged, `cell A1: a cell of the unknown type "x"`},
		{"a shared string that does not exist", func() parts {
			return oneSheet(`<row r="1"><c r="A1"/><c r="B1" t="s"><v>1</v></c></row>`, `<si><t>a</t></si>`, "")
		}, ErrDamaged, `cell B1: shared string "1" does not exist`},
		{"a boolean of another value", func() parts { return oneSheet(`<row r="2"><c r="A2" t="b"><v>2</v></c></row>`, "", "") },
			ErrDamaged, `cell A2: a true/false cell holding "2"`},
		{"a bad ISO date", func() parts { return oneSheet(`<row r="2"><c r="A2" t="d"><v>14.3.2024</v></c></row>`, "", "") },
			ErrDamaged, `cell A2: a date cell holding "14.3.2024", which is no ISO 8601 date`},
		{"rows out of order", func() parts { return oneSheet(`<row r="3"/><row r="2"/>`, "", "") },
			ErrDamaged, "row 2 comes after row 3"},
		{"cells out of order", func() parts { return oneSheet(`<row r="3"><c r="C3"/><c r="B3"/></row>`, "", "") },
			ErrDamaged, "cell B3 comes after C3"},
		{"a cell in another row", func() parts { return oneSheet(`<row r="3"><c r="C4"/></row>`, "", "") },
			ErrDamaged, "row 3: a cell named C4 in row 3"},
		{"a bad cell name", func() parts { return oneSheet(`<row r="3"><c r="3C"/></row>`, "", "") },
			ErrDamaged, `row 3: a cell named "3C"`},
		{"a bad row number", func() parts { return oneSheet(`<row r="0"/>`, "", "") },
			ErrDamaged, `a row numbered "0"`},
		{"a bad style number", func() parts { return oneSheet(`<row r="1"><c r="A1" s="-1"/></row>`, "", "") },
			ErrDamaged, `cell A1: a cell format numbered "-1"`},
		{"a bad number format", func() parts { return oneSheet("", "", `<numFmts><numFmt formatCode="0"/></numFmts>`) },
			ErrDamaged, "part xl/styles.xml: a number format without a valid numFmtId"},
		{"a number format too long", func() parts {
			return oneSheet("", "", `<numFmts><numFmt numFmtId="164" formatCode="`+strings.Repeat("0", maxFormatCode+1)+`"/></numFmts>`)
		}, ErrTooLarge, "part xl/styles.xml: number format 164 is longer than 1024 bytes"},
		{"shared strings of another root", func() parts {
			p := oneSheet("", "", "")
			p["xl/sharedStrings.xml"] = "<strings/>"
			return p
		}, ErrDamaged, "part xl/sharedStrings.xml: its root element is <strings>, not <sst>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.parts().file(t)
			_, _, err := readAllLimits(path, defaultLimits)
			if !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%v\nwant %v naming the file and saying %q", err, c.want, c.msg)
			}
		})
	}
}

// TestReadLifecycle checks that Rows reads a sheet again and again, that
// a sheet not in the workbook is an error, and that close ends reading.
func TestReadLifecycle(t *testing.T) {
	path := oneSheet(`<row r="1"><c t="s"><v>0</v></c></row>`, `<si><t>x</t></si>`, "").file(t)
	g, closeFn, err := readBook(path, path, defaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		var got []string
		err := g.Rows("S1", func(_ int, cells []backend.ReadCell) error {
			got = append(got, backend.Texts(cells)...)
			return nil
		})
		if err != nil || !slices.Equal(got, []string{"x"}) {
			t.Errorf("Rows: %q, %v", got, err)
		}
	}
	stop := errors.New("stop")
	if err := g.Rows("S1", func(int, []backend.ReadCell) error { return stop }); err != stop {
		t.Errorf("the caller's error came back as %v", err)
	}
	if err := g.Rows("S2", func(int, []backend.ReadCell) error { return nil }); err == nil {
		t.Error("Rows of a sheet the workbook lacks: no error")
	}
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	if err := closeFn(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if err := g.Rows("S1", func(int, []backend.ReadCell) error { return nil }); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Rows after close: %v", err)
	}
}
