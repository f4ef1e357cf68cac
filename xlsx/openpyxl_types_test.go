package xlsx

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// withParts copies a zip archive as it is, entry by entry, and adds parts.
func withParts(t testing.TB, data []byte, add map[string]string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range add {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, content)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// replaceOnce replaces old in b, which must hold it.
func replaceOnce(t testing.TB, b []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("no %q to replace in %.200s", old, b)
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// pyCell is a cell as openpyxl reads it: its data type, Python type and
// text.
type pyCell [3]string

func openpyxlDump(t *testing.T, py, path string) map[string]pyCell {
	t.Helper()
	out, err := exec.Command(py, "testdata/openpyxl_types.py", "dump", path).Output()
	if err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, stderrText(err))
	}
	var cells map[string]pyCell
	if err := json.Unmarshal(out, &cells); err != nil {
		t.Fatal(err)
	}
	return cells
}

func stderrText(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// TestOpenpyxlTypes has openpyxl make workbooks with a cell of each kind
// (a boolean, dates in built-in and custom formats, a formula it never
// computes, an error value, the 1904 date system), adds rich text by hand
// (openpyxl 3.0 writes none) to an inline string and a shared string with
// phonetic runs, and checks what the reader makes of each, and that
// openpyxl, reading the same file, sees the same text and kind.
func TestOpenpyxlTypes(t *testing.T) {
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	if out, err := exec.Command(py, "testdata/openpyxl_types.py", "make", dir).CombinedOutput(); err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, out)
	}
	// Rich text: an inline string of two runs, and a shared string of two
	// runs with a phonetic reading.
	data, err := os.ReadFile(filepath.Join(dir, "types.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	data = rezip(t, data, func(name string, b []byte) []byte {
		switch name {
		case "[Content_Types].xml":
			return replaceOnce(t, b, "</Types>", `<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`)
		case "xl/_rels/workbook.xml.rels":
			return replaceOnce(t, b, "</Relationships>", `<Relationship Id="rIdSST" Type="`+relNS+`sharedStrings" Target="sharedStrings.xml"/></Relationships>`)
		case "xl/worksheets/sheet1.xml":
			b = replaceOnce(t, b, `<c r="A10" t="inlineStr"><is><t>RICH_INLINE</t></is></c>`,
				`<c r="A10" t="inlineStr"><is><r><rPr><b/></rPr><t>bold</t></r><r><t xml:space="preserve"> plain</t></r></is></c>`)
			return replaceOnce(t, b, `<c r="A11" t="inlineStr"><is><t>RICH_SHARED</t></is></c>`, `<c r="A11" t="s"><v>0</v></c>`)
		}
		return b
	})
	data = withParts(t, data, map[string]string{"xl/sharedStrings.xml": `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1">` +
		`<si><r><rPr><b/></rPr><t>漢</t></r><r><t>字</t></r><rPh sb="0" eb="2"><t>かんじ</t></rPh><phoneticPr fontId="0" type="noConversion"/></si></sst>`})
	types := filepath.Join(dir, "types-rich.xlsx")
	if err := os.WriteFile(types, data, 0o644); err != nil {
		t.Fatal(err)
	}

	date := func(v, shown string) backend.ReadCell {
		return backend.ReadCell{Type: backend.CellDate, Value: v, Shown: shown}
	}
	for _, c := range []struct {
		file string
		want map[string]backend.ReadCell
	}{
		{types, map[string]backend.ReadCell{
			"A1":  {Type: backend.CellBool, Value: "TRUE"},
			"B1":  {Type: backend.CellBool, Value: "FALSE"},
			"A2":  date("45365", "2024-03-14"),
			"A3":  date("45365.64583333334", "Thursday 14 March 2024 03:30 PM"),
			"A4":  {Type: backend.CellNoValue, Formula: "1+1"},
			"A5":  {Type: backend.CellError, Value: "#N/A"},
			"A6":  {Value: "plain"},
			"A7":  {Type: backend.CellNumber, Value: "4.5"},
			"A8":  date("0.6458333333333334", "15:30:00"),
			"A9":  date("45365.64583333334", "2024-03-14 15:30:00"),
			"A10": {Value: "bold plain"},
			"A11": {Value: "漢字"},
			"A12": {Type: backend.CellNumber, Value: "4"},
		}},
		{filepath.Join(dir, "types1904.xlsx"), map[string]backend.ReadCell{
			"A1": date("43903", "2024-03-14"),
			"A2": date("1.25", "2 Jan 1904 6:00"),
		}},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			g, closeFn, err := Open(c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			got := map[string]backend.ReadCell{}
			err = g.Rows("Types", func(row int, cells []backend.ReadCell) error {
				for i, cell := range cells {
					if cell != (backend.ReadCell{}) {
						got[backend.CellName(i, row)] = cell
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
			// openpyxl reads the same file alike: the same text, and the
			// same kind of value.
			py := openpyxlDump(t, py, c.file)
			for ref, cell := range got {
				p, ok := py["Types!"+ref]
				if !ok {
					t.Errorf("%s: openpyxl sees no value", ref)
					continue
				}
				var kind string
				switch cell.Type {
				case backend.CellString:
					kind = "s str"
				case backend.CellNumber:
					kind = "n " + map[bool]string{true: "int", false: "float"}[cell.Value == "4"]
				case backend.CellBool:
					kind = "b bool"
				case backend.CellDate:
					kind = "d " + map[bool]string{true: "time", false: "datetime"}[ref == "A8"]
				case backend.CellError:
					kind = "e str"
				case backend.CellNoValue:
					kind = "f str"
				}
				if p[0]+" "+p[1] != kind {
					t.Errorf("%s: openpyxl reads %s %s, the reader %s", ref, p[0], p[1], kind)
				}
				if cell.Type == backend.CellString && p[2] != cell.Value {
					t.Errorf("%s: openpyxl reads %q, the reader %q", ref, p[2], cell.Value)
				}
			}
		})
	}
}
