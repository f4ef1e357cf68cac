package input

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/fifo"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// xlsxWrite makes a workbook at dir/name: fill writes its sheets (the
// first is named Sheet1 until fill renames it).
func xlsxWrite(t testing.TB, dir, name string, fill func(f *excelize.File)) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	fill(f)
	p := filepath.Join(dir, name)
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// xlsxRows writes rows into sheet, making the sheet if it is new: each
// row by its number, each cell a value excelize writes (nil for none, an
// excelize.Cell for a formula with its cached value, or a style).
func xlsxRows(t testing.TB, f *excelize.File, sheet string, rows map[int][]any) {
	t.Helper()
	if i, _ := f.GetSheetIndex(sheet); i < 0 {
		if _, err := f.NewSheet(sheet); err != nil {
			t.Fatal(err)
		}
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	for n := range rows {
		last = max(last, n)
	}
	for n := 1; n <= last; n++ {
		if cells, ok := rows[n]; ok {
			if err := sw.SetRow(cellName(0, n), cells); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
}

// xlsxStyle is a cell style with the number format code.
func xlsxStyle(t testing.TB, f *excelize.File, code string) int {
	t.Helper()
	id, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// xlsxRead reads a workbook with readXLSX.
func xlsxRead(p string, opt tableOptions, lim xlsxLimits) ([]*layout.Record, error) {
	var recs []*layout.Record
	index := 0
	err := readXLSX(p, opt, lim, &index, func(r *layout.Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

// xlsxOpt are the options of most tests: the record limit, and the
// nested column of legal-gaps.
func xlsxOpt() tableOptions {
	return tableOptions{limit: MaxRecordSize, nested: map[string]bool{"cited_paragraphs": true}}
}

// TestXLSXCells: each kind of cell becomes the text it shows; empty rows
// are passed over; a nested column's JSON is decoded; each record names
// its row.
func TestXLSXCells(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := xlsxWrite(t, dir, "in.xlsx", func(f *excelize.File) {
		if err := f.SetSheetName("Sheet1", "Data"); err != nil {
			t.Fatal(err)
		}
		iso := xlsxStyle(t, f, "yyyy-mm-dd")
		long := xlsxStyle(t, f, "d mmmm yyyy")
		short, err := f.NewStyle(&excelize.Style{NumFmt: 14}) // the locale's short date
		if err != nil {
			t.Fatal(err)
		}
		pct, err := f.NewStyle(&excelize.Style{NumFmt: 9}) // 0%
		if err != nil {
			t.Fatal(err)
		}
		march := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
		xlsxRows(t, f, "Data", map[int][]any{
			1: {"id", "text", "count", "ratio", "date", "flag", "doubled", "cited_paragraphs"},
			2: {"u1", "Hello, world", 7, 0.5, excelize.Cell{StyleID: iso, Value: march}, true,
				excelize.Cell{Formula: "C2*2", Value: 14}, `[{"id": 3, "text": "§ 1", "score": 0.25}]`},
			3: {"", nil, ""},
			4: {"u2", "two\nlines", 12.25, excelize.Cell{StyleID: pct, Value: 0.5}, excelize.Cell{StyleID: short, Value: 45657}, false,
				excelize.Cell{Formula: `"a"&"b"`, Value: "ab"}, ""},
			// Row 5 is missing: a gap, as an empty row.
			6: {"u3", nil, 0.1 + 0.2, nil, excelize.Cell{StyleID: long, Value: 45352}},
		})
	})
	recs, err := xlsxRead(p, xlsxOpt(), xlsxDefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := []inputRec{
		{Index: 0, File: "in.xlsx", Line: 2, Data: inputJSON(t, `{"id": "u1", "text": "Hello, world", "count": "7", "ratio": "0.5", "date": "2024-03-01", "flag": "TRUE", "doubled": "14",
			"cited_paragraphs": [{"id": 3, "text": "§ 1", "score": 0.25}]}`)},
		{Index: 1, File: "in.xlsx", Line: 4, Data: inputJSON(t, `{"id": "u2", "text": "two\nlines", "count": "12.25", "ratio": "50%", "date": "2024-12-31", "flag": "FALSE", "doubled": "ab", "cited_paragraphs": ""}`)},
		{Index: 2, File: "in.xlsx", Line: 6, Data: inputJSON(t, `{"id": "u3", "text": "", "count": "0.3", "ratio": "", "date": "1 March 2024", "flag": "", "doubled": "", "cited_paragraphs": ""}`)},
	}
	if diff := inputDiff(want, inputRecs(t, dir, recs)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	// Data holds the cells exactly: text as text, the nested column's
	// numbers as written.
	got := recs[0].Data.(map[string]any)
	if got["count"] != "7" || !reflect.DeepEqual(got["cited_paragraphs"], []any{map[string]any{"id": json.Number("3"), "text": "§ 1", "score": json.Number("0.25")}}) {
		t.Errorf("Data = %#v", got)
	}
	// Raw is the record as JSON, keys in the header's order.
	if want := `{"id":"u1","text":"Hello, world","count":"7","ratio":"0.5","date":"2024-03-01","flag":"TRUE","doubled":"14","cited_paragraphs":[{"id":3,"text":"§ 1","score":0.25}]}`; string(recs[0].Raw) != want {
		t.Errorf("Raw = %s\nwant  %s", recs[0].Raw, want)
	}
}

// TestXLSXSheets: the first sheet the workbook shows, or the one
// opt.sheet names, in any case; the header is the first row that is not
// empty.
func TestXLSXSheets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := xlsxWrite(t, dir, "in.xlsx", func(f *excelize.File) {
		xlsxRows(t, f, "Sheet1", map[int][]any{1: {"id"}, 2: {"hidden"}})
		xlsxRows(t, f, "Data", map[int][]any{1: {"id", "text"}, 2: {"d1", "a"}})
		xlsxRows(t, f, "Notes", map[int][]any{3: {"id", "note"}, 4: {"n1", "b"}, 6: {"n2", nil}})
		// excelize hides no sheet while it is the active one.
		i, _ := f.GetSheetIndex("Data")
		f.SetActiveSheet(i)
		if err := f.SetSheetVisible("Sheet1", false); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct {
		sheet string
		want  []inputRec
	}{
		{"", []inputRec{{Index: 0, File: "in.xlsx", Line: 2, Data: `{"id":"d1","text":"a"}`}}},
		{"Sheet1", []inputRec{{Index: 0, File: "in.xlsx", Line: 2, Data: `{"id":"hidden"}`}}},
		{"notes", []inputRec{{Index: 0, File: "in.xlsx", Line: 4, Data: `{"id":"n1","note":"b"}`}, {Index: 1, File: "in.xlsx", Line: 6, Data: `{"id":"n2","note":""}`}}},
	} {
		opt := xlsxOpt()
		opt.sheet = tc.sheet
		recs, err := xlsxRead(p, opt, xlsxDefaultLimits)
		if err != nil {
			t.Fatalf("sheet %q: %v", tc.sheet, err)
		}
		if diff := inputDiff(tc.want, inputRecs(t, dir, recs)); diff != "" {
			t.Errorf("sheet %q: records (-want +got):\n%s", tc.sheet, diff)
		}
	}
}

// TestXLSXIndexAndStop: fn is given each record in turn, Index counting on
// from where the inputs before left it; its error ends the reading.
func TestXLSXIndexAndStop(t *testing.T) {
	t.Parallel()
	p := xlsxWrite(t, t.TempDir(), "in.xlsx", func(f *excelize.File) {
		xlsxRows(t, f, "Sheet1", map[int][]any{1: {"id"}, 2: {"a"}, 3: {"b"}, 4: {"c"}})
	})
	index := 5
	var got []int
	stop := records.ErrMalformed
	err := eachXLSX(p, xlsxOpt(), &index, func(r *layout.Record) error {
		got = append(got, r.Index)
		if len(got) == 2 {
			return stop
		}
		return nil
	})
	if err != stop || !reflect.DeepEqual(got, []int{5, 6}) || index != 7 {
		t.Errorf("err %v, indexes %v, index %d; want the callback's error after 5, 6", err, got, index)
	}
}

// cfbFile is a compound file of one FAT sector and one directory sector
// whose directory lists the root and the given streams: enough for the
// reader to tell an encrypted workbook from an .xls.
func cfbFile(streams ...string) []byte {
	const ss = 512
	b := make([]byte, 3*ss)
	le := binary.LittleEndian
	copy(b, cfbSignature)
	le.PutUint16(b[0x18:], 0x3e)
	le.PutUint16(b[0x1a:], 3)
	le.PutUint16(b[0x1c:], 0xfffe)
	le.PutUint16(b[0x1e:], 9)
	le.PutUint16(b[0x20:], 6)
	le.PutUint32(b[0x2c:], 1)          // one FAT sector
	le.PutUint32(b[0x30:], 1)          // the directory starts at sector 1
	le.PutUint32(b[0x38:], 4096)       // the mini stream cutoff
	le.PutUint32(b[0x3c:], 0xfffffffe) // no mini FAT
	le.PutUint32(b[0x44:], 0xfffffffe) // no DIFAT sectors
	for i := 0; i < 109; i++ {
		le.PutUint32(b[0x4c+4*i:], 0xffffffff)
	}
	le.PutUint32(b[0x4c:], 0) // the FAT is sector 0
	fat := b[ss : 2*ss]
	for i := 0; i < ss/4; i++ {
		le.PutUint32(fat[4*i:], 0xffffffff)
	}
	le.PutUint32(fat[0:], 0xfffffffd) // sector 0: the FAT
	le.PutUint32(fat[4:], 0xfffffffe) // sector 1: the directory, alone
	dir := b[2*ss:]
	for i, name := range append([]string{"Root Entry"}, streams...) {
		e := dir[128*i:]
		for j, r := range name {
			le.PutUint16(e[2*j:], uint16(r))
		}
		le.PutUint16(e[0x40:], uint16(2*len(name)+2))
		e[0x42] = 2
		if i == 0 {
			e[0x42] = 5
		}
	}
	return b
}

// xlsxDamage rewrites a workbook's archive with one part's bytes changed
// by edit, stored, and its checksum left as it was.
func xlsxDamage(t testing.TB, p, part string, edit func([]byte) []byte) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		raw, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		b := new(bytes.Buffer)
		b.ReadFrom(raw)
		h := f.FileHeader
		body := b.Bytes()
		if f.Name == part {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b.Reset()
			b.ReadFrom(rc)
			body = edit(b.Bytes())
			h.Method = zip.Store
			h.CompressedSize64 = uint64(len(body))
			h.UncompressedSize64 = uint64(len(body))
		}
		w, err := zw.CreateRaw(&h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// xlsxZip is a ZIP archive of the given parts.
func xlsxZip(t testing.TB, parts ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for i := 0; i+1 < len(parts); i += 2 {
		w, err := zw.Create(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(parts[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestXLSXProblems: each problem of a workbook, with where it is and what
// it says, one line each.
func TestXLSXProblems(t *testing.T) {
	t.Parallel()
	type prob struct {
		Line    int
		Sheet   string
		Cell    string
		Message string
	}
	rows := func(sheet string, rows map[int][]any) func(t testing.TB, dir string) string {
		return func(t testing.TB, dir string) string {
			return xlsxWrite(t, dir, "in.xlsx", func(f *excelize.File) {
				if err := f.SetSheetName("Sheet1", sheet); err != nil {
					t.Fatal(err)
				}
				xlsxRows(t, f, sheet, rows)
			})
		}
	}
	file := func(data []byte) func(t testing.TB, dir string) string {
		return func(t testing.TB, dir string) string {
			p := filepath.Join(dir, "in.xlsx")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	good := rows("Data", map[int][]any{1: {"id", "text"}, 2: {"u1", strings.Repeat("a long text ", 2000)}})
	for _, tc := range []struct {
		name  string
		make  func(t testing.TB, dir string) string
		opt   func(*tableOptions)
		lim   *xlsxLimits
		want  []prob
		valid int // records given before the first problem
	}{
		{name: "no such sheet", make: func(t testing.TB, dir string) string {
			return xlsxWrite(t, dir, "in.xlsx", func(f *excelize.File) {
				f.SetSheetName("Sheet1", "Data")
				f.NewSheet("Notes")
			})
		}, opt: func(o *tableOptions) { o.sheet = "Dta" },
			want: []prob{{Message: `the workbook has no sheet "Dta"; its sheets are "Data", "Notes"; did you mean "Data"?`}}},
		{name: "empty sheet", make: rows("Data", map[int][]any{3: {"", nil}}),
			want: []prob{{Message: `sheet "Data" is empty: its first row should name the columns, and each row after it hold a record`}}},
		{name: "empty header cell, a name twice", make: rows("Data", map[int][]any{2: {"id", nil, "text", "id", "text"}, 3: {"u1", "x", "t"}}),
			want: []prob{
				{2, "Data", "B2", "the header cell is empty: every column of the header needs a name"},
				{2, "Data", "D2", `the header names "id" twice (column A and column D): each column needs a name of its own`},
				{2, "Data", "E2", `the header names "text" twice (column C and column E): each column needs a name of its own`},
			}},
		{name: "columns the template reads", make: rows("Data", map[int][]any{1: {"ID", "Text ", "labels", "source"}, 2: {"u1", "t", "l", "s"}}),
			opt: func(o *tableOptions) { o.needed = []string{"id", "text", "label", "source", "context"} },
			want: []prob{
				{1, "Data", "A1:D1", `the header has no column "id", which the template reads; did you mean "ID"?`},
				{1, "Data", "A1:D1", `the header has no column "text", which the template reads; did you mean "Text "?`},
				{1, "Data", "A1:D1", `the header has no column "label", which the template reads; did you mean "labels"?`},
				{1, "Data", "A1:D1", `the header has no column "context", which the template reads`},
			}},
		{name: "nested cells that are not JSON, every one", make: rows("Data", map[int][]any{
			1: {"id", "cited_paragraphs"}, 2: {"u1", "[1, 2]"}, 3: {"u2", "[1, 2"}, 4: {"u3", "[]"}, 5: {"u4", "see above"}}),
			want: []prob{
				{3, "Data", "B3", `column "cited_paragraphs" holds a list or an object for the template, as JSON text: unexpected EOF`},
				{5, "Data", "B5", `column "cited_paragraphs" holds a list or an object for the template, as JSON text: invalid character 's' looking for beginning of value`},
			}, valid: 1},
		{name: "a cell past the header", make: rows("Data", map[int][]any{1: {"id", "text"}, 2: {"u1", "t", nil, "stray"}}),
			want: []prob{{2, "Data", "D2", `the cell holds "stray", in a column the header (A1:B1) does not name: name the column in the header, or clear the cell`}}},
		{name: "a row over the limit", make: rows("Data", map[int][]any{1: {"id", "text"}, 2: {"u1", "short"}, 3: {"u2", strings.Repeat("x", 1000)}, 4: {"u3", "short"}}),
			opt:  func(o *tableOptions) { o.limit = 1000 },
			want: []prob{{3, "Data", "A3:B3", `the row's cells hold more than the 1000 bytes a record may be`}}, valid: 1},
		{name: "encrypted", make: func(t testing.TB, dir string) string {
			p := filepath.Join(dir, "in.xlsx")
			f := excelize.NewFile()
			defer f.Close()
			if err := f.SaveAs(p, excelize.Options{Password: "secret"}); err != nil {
				t.Fatal(err)
			}
			return p
		}, want: []prob{{Message: "the workbook is encrypted: save it without a password"}}},
		{name: "encrypted, directory alone", make: file(cfbFile("EncryptionInfo", "EncryptedPackage")),
			want: []prob{{Message: "the workbook is encrypted: save it without a password"}}},
		{name: "xls", make: file(cfbFile("Workbook", "\x05SummaryInformation")),
			want: []prob{{Message: "the file is an .xls workbook (Excel 97-2003), which is not read: save it as .xlsx"}}},
		{name: "another compound file", make: file(cfbFile("WordDocument")),
			want: []prob{{Message: "the file is an OLE compound file (an Office 97-2003 document), not an XLSX workbook"}}},
		{name: "a compound file cut off", make: file(cfbFile("Workbook")[:600]),
			want: []prob{{Message: "the file is an OLE compound file (an .xls workbook, Excel 97-2003, or an encrypted workbook) whose directory cannot be read (sector 1 is cut off): save it as .xlsx, without a password"}}},
		{name: "CSV text", make: file([]byte("id,text\nu1,a\n")),
			want: []prob{{Message: "the file is not an XLSX workbook (which is a ZIP archive): it is text; is it a CSV or JSON file with another name?"}}},
		{name: "binary", make: file([]byte{0x89, 'P', 'N', 'G', 0, 0, 0, 0}),
			want: []prob{{Message: "the file is not an XLSX workbook (which is a ZIP archive)"}}},
		{name: "empty", make: file(nil),
			want: []prob{{Message: "the file is empty, not an XLSX workbook"}}},
		{name: "a ZIP archive cut off", make: func(t testing.TB, dir string) string {
			b, _ := os.ReadFile(good(t, dir))
			return file(b[:len(b)/2])(t, dir)
		}, want: []prob{{Message: "the workbook is damaged: it is not a readable ZIP archive (zip: not a valid zip file)"}}},
		{name: "a sheet damaged", make: func(t testing.TB, dir string) string {
			b := xlsxDamage(t, good(t, dir), "xl/worksheets/sheet1.xml", func(b []byte) []byte {
				b[len(b)/2] ^= 0x01
				return b
			})
			return file(b)(t, dir)
		}, want: []prob{{Message: "the workbook is damaged: its part xl/worksheets/sheet1.xml cannot be read (zip: checksum error)"}}},
		{name: "ods", make: file(xlsxZip(t, "mimetype", "application/vnd.oasis.opendocument.spreadsheet", "content.xml", "<x/>")),
			want: []prob{{Message: "the file is an OpenDocument spreadsheet (.ods), which is not read: save it as .xlsx"}}},
		{name: "xlsb", make: file(xlsxZip(t, "[Content_Types].xml", "<Types/>", "xl/workbook.bin", "\x00")),
			want: []prob{{Message: "the file is an Excel binary workbook (.xlsb), which is not read: save it as .xlsx"}}},
		{name: "a ZIP archive of something else", make: file(xlsxZip(t, "notes.txt", "hello")),
			want: []prob{{Message: "the file is a ZIP archive, not an XLSX workbook"}}},
		{name: "a document of Word", make: file(xlsxZip(t, "[Content_Types].xml", `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`, "word/document.xml", "<w:document/>")),
			want: []prob{{Message: "the file is an Office document, not an XLSX workbook"}}},
		{name: "a workbook without sheets", make: file(xlsxZip(t, "[Content_Types].xml", `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
			"_rels/.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
			"xl/workbook.xml", `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/></workbook>`)),
			want: []prob{{Message: "the file holds no sheets: it is not an XLSX workbook"}}},
		{name: "a workbook without its relationships", make: file(xlsxZip(t, "[Content_Types].xml", `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
			"xl/workbook.xml", `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/></workbook>`)),
			want: []prob{{Message: "the workbook is damaged: a part it needs is missing or empty (EOF)"}}},
		{name: "over the inflation budget", make: good, lim: &xlsxLimits{inflated: 16 << 10, xmlInMemory: 4 << 10, held: 16 << 10},
			want: []prob{{Message: "the workbook inflates to more than the 16 KiB a workbook read as input may"}}},
		{name: "over the memory budget", make: good, lim: &xlsxLimits{inflated: 1 << 20, xmlInMemory: 64 << 10, held: 16 << 10},
			want: []prob{{Message: "the workbook's parts other than its large sheets inflate to more than the 16 KiB a workbook read as input may hold in memory"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := tc.make(t, dir)
			opt := xlsxOpt()
			if tc.opt != nil {
				tc.opt(&opt)
			}
			lim := xlsxDefaultLimits
			if tc.lim != nil {
				lim = *tc.lim
			}
			recs, err := xlsxRead(p, opt, lim)
			ps, ok := err.(records.Problems)
			if !ok {
				t.Fatalf("error %T %v, want Problems", err, err)
			}
			var got []prob
			for _, pr := range ps {
				if pr.File != p || pr.Err != records.ErrMalformed || pr.Severity != records.Error || strings.Contains(pr.Error(), "\n") {
					t.Errorf("problem %+v: want one line, an ErrMalformed error in %s", *pr, p)
				}
				got = append(got, prob{pr.Line, pr.Sheet, pr.Cell, pr.Message})
			}
			if diff := inputDiff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if len(recs) != tc.valid {
				t.Errorf("%d records given, want %d", len(recs), tc.valid)
			}
		})
	}
}

// TestXLSXProblemLine: a problem reads as one line, the file, the row,
// the sheet and the cell first.
func TestXLSXProblemLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := xlsxWrite(t, dir, "in.xlsx", func(f *excelize.File) {
		f.SetSheetName("Sheet1", "Data")
		xlsxRows(t, f, "Data", map[int][]any{1: {"id", "cited_paragraphs"}, 2: {"u1", "{"}})
	})
	_, err := xlsxRead(p, xlsxOpt(), xlsxDefaultLimits)
	if want := p + `:2: Data!B2: column "cited_paragraphs" holds a list or an object for the template, as JSON text: unexpected EOF`; err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

// TestXLSXMaxErrors: the rows' problems stop at records.MaxErrors.
func TestXLSXMaxErrors(t *testing.T) {
	t.Parallel()
	rows := map[int][]any{1: {"id", "cited_paragraphs"}}
	for n := 2; n < 2+2*records.MaxErrors; n++ {
		rows[n] = []any{"u", "not JSON"}
	}
	p := xlsxWrite(t, t.TempDir(), "in.xlsx", func(f *excelize.File) { xlsxRows(t, f, "Sheet1", rows) })
	_, err := xlsxRead(p, xlsxOpt(), xlsxDefaultLimits)
	if ps, ok := err.(records.Problems); !ok || len(ps) != records.MaxErrors || ps[len(ps)-1].Line != records.MaxErrors+1 {
		t.Errorf("error %v, want %d problems", err, records.MaxErrors)
	}
}

// TestXLSXNotRegular: a named pipe is refused at once, never waited on.
func TestXLSXNotRegular(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "in.xlsx")
	fifo.Make(t, p)
	var err error
	fifo.Within(t, 10*time.Second, func() { _, err = xlsxRead(p, xlsxOpt(), xlsxDefaultLimits) })
	if err == nil || !strings.Contains(err.Error(), "it is not a regular file (a named pipe)") {
		t.Errorf("error %v, want a named pipe refused", err)
	}
}

// TestXLSXOpenpyxl: the legal-gaps sample written to a workbook by
// openpyxl, an independent writer (its nested fields as JSON text), reads
// as the same records as the JSON Lines it came from.
func TestXLSXOpenpyxl(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	const sample = "../testdata/data/legal-gaps/examples.sample.jsonl"
	dir := t.TempDir()
	p := filepath.Join(dir, "legal-gaps.xlsx")
	script := `
import json, sys
from openpyxl import Workbook
wb = Workbook()
ws = wb.active
ws.title = "Examples"
header = None
for line in open(sys.argv[1], encoding="utf-8"):
    rec = json.loads(line)
    if header is None:
        header = list(rec)
        ws.append(header)
    row = []
    for k in header:
        v = rec.get(k)
        row.append(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))
    ws.append(row)
    # Text that starts with = is text, not a formula.
    for c in ws[ws.max_row]:
        c.data_type = "s"
wb.save(sys.argv[2])
`
	if out, err := exec.Command(py, "-c", script, sample, p).CombinedOutput(); err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, out)
	}
	nested := map[string]bool{}
	var want []*layout.Record
	index := 0
	if err := eachJSONL(sample, MaxRecordSize, &index, func(r *layout.Record) error {
		want = append(want, r)
		for k, v := range r.Data.(map[string]any) {
			if _, ok := v.(string); !ok {
				nested[k] = true
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(nested) == 0 {
		t.Fatal("the sample has no nested fields")
	}
	got, err := xlsxRead(p, tableOptions{limit: MaxRecordSize, nested: nested, needed: []string{"id", "generation", "cited_paragraphs"}}, xlsxDefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Line != i+2 || got[i].Index != i {
			t.Errorf("record %d: Line %d, Index %d", i, got[i].Line, got[i].Index)
		}
		if !reflect.DeepEqual(got[i].Data, want[i].Data) {
			g, w := got[i].Data.(map[string]any), want[i].Data.(map[string]any)
			for k := range w {
				if !reflect.DeepEqual(g[k], w[k]) {
					t.Errorf("record %d, field %s: %.200v\nwant %.200v", i, k, g[k], w[k])
				}
			}
		}
	}
}
