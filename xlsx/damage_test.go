package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/benchdata"
)

// writerBook is a small filled workbook as our writer makes it: the
// legal-gaps template, three units, answers ticked and a note in row 4.
func writerBook(t testing.TB) []byte {
	t.Helper()
	p, err := benchdata.FilledLegalPlan(t.TempDir(), 3, backend.XLSXCellLimit)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(p, &b, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// annotatePart is where our writer puts the Annotate sheet.
const annotatePart = "xl/worksheets/sheet2.xml"

// rezip copies a zip archive entry by entry, letting edit change an
// entry's bytes; the copy's checksums are right. Entries store names
// stored without compression.
func rezip(t testing.TB, data []byte, edit func(name string, b []byte) []byte, stored ...string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			b = edit(f.Name, b)
		}
		method := zip.Deflate
		for _, s := range stored {
			if s == f.Name {
				method = zip.Store
			}
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// editPart is an edit of one part's bytes.
func editPart(part string, fn func(b []byte) []byte) func(string, []byte) []byte {
	return func(name string, b []byte) []byte {
		if name == part {
			return fn(b)
		}
		return b
	}
}

// cutStream rewrites an archive with part's compressed data cut to half,
// its header saying so but keeping the size and checksum of the whole: the
// inflated stream ends early.
func cutStream(t testing.TB, data []byte, part string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(rc)
		h := f.FileHeader
		if f.Name == part {
			raw = raw[:len(raw)/2]
			h.CompressedSize64 = uint64(len(raw))
		}
		w, err := zw.CreateRaw(&h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(raw)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// flipCompressed flips a byte in the middle of part's compressed data.
func flipCompressed(t testing.TB, data []byte, part string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == part {
			off, err := f.DataOffset()
			if err != nil {
				t.Fatal(err)
			}
			out := bytes.Clone(data)
			out[off+int64(f.CompressedSize64)/2] ^= 0x55
			return out
		}
	}
	t.Fatalf("no part %s", part)
	return nil
}

// TestReadDamage damages workbooks and checks that the reader itself
// (called directly, without the verify pass) reports each as an error
// with the right sentinel that names the file and the part, and that it
// leaves nothing in the temporary folder.
func TestReadDamage(t *testing.T) {
	book := writerBook(t)
	small := defaultLimits
	small.sstBytes, small.sstCount, small.cols, small.row = 1000, 50, 5, 4000
	var manyStrings strings.Builder
	for i := range 40 {
		fmt.Fprintf(&manyStrings, "<si><t>string number %d is here, and more</t></si>", i)
	}
	note := []byte("checked the cited case twice")
	cases := []struct {
		name   string
		data   []byte
		lim    readLimits
		want   []error
		part   string // "" when no part can be named
		detail string
	}{
		{"a byte flipped in the compressed sheet", flipCompressed(t, book, annotatePart), defaultLimits,
			[]error{ErrDamaged}, annotatePart, ""},
		{"a byte flipped in the stored sheet: only its checksum tells", func() []byte {
			stored := rezip(t, book, nil, annotatePart)
			i := bytes.Index(stored, note)
			stored[i] = 'C'
			return stored
		}(), defaultLimits, []error{ErrDamaged, zip.ErrChecksum}, annotatePart, ""},
		{"the compressed sheet cut short", cutStream(t, book, annotatePart), defaultLimits,
			[]error{ErrDamaged, io.ErrUnexpectedEOF}, annotatePart, ""},
		{"a truncated zip archive", book[:len(book)*2/3], defaultLimits, []error{ErrDamaged, zip.ErrFormat}, "", "not a readable zip archive"},
		{"XML cut inside an element", rezip(t, book, editPart(annotatePart, func(b []byte) []byte {
			return b[:bytes.Index(b, []byte(`<c r="B3"`))+6]
		})), defaultLimits, []error{ErrDamaged}, annotatePart, "row 3: the part ends inside"},
		{"XML cut after a row", rezip(t, book, editPart(annotatePart, func(b []byte) []byte {
			return b[:bytes.Index(b, []byte(`<row r="3"`))]
		})), defaultLimits, []error{ErrDamaged}, annotatePart, "the part ends inside element <sheetData>"},
		{"an undefined entity", rezip(t, book, editPart(annotatePart, func(b []byte) []byte {
			return bytes.Replace(b, note, []byte("checked &foo; twice"), 1)
		})), defaultLimits, []error{ErrDamaged}, annotatePart, "cell F4: undefined entity &foo;"},
		{"a DTD with entities in the sheet", rezip(t, book, editPart(annotatePart, func(b []byte) []byte {
			return bytes.Replace(b, []byte("?>"), []byte(`?><!DOCTYPE worksheet [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>`), 1)
		})), defaultLimits, []error{ErrDTD}, annotatePart, "<!DOCTYPE"},
		{"a cell of 1 MiB", rezip(t, book, editPart(annotatePart, func(b []byte) []byte {
			return bytes.Replace(b, note, bytes.Repeat([]byte("x"), 1<<20), 1)
		})), defaultLimits, []error{ErrTooLarge}, annotatePart, "cell F4: more than 262144 bytes of text in one cell (MaxCellBytes)"},
		{"a shared string of 1 MiB", oneSheet("", "<si><t>"+strings.Repeat("y", 1<<20)+"</t></si>", "").zip(t), defaultLimits,
			[]error{ErrTooLarge}, "xl/sharedStrings.xml", "shared string 0 holds more than 262144 bytes of text (MaxCellBytes)"},
		{"shared strings beyond their budget", oneSheet("", manyStrings.String(), "").zip(t), small,
			[]error{ErrTooLarge}, "xl/sharedStrings.xml", "hold more than 1000 bytes of text (MaxSharedStringBytes)"},
		{"too many shared strings", oneSheet("", strings.Repeat("<si><t>s</t></si>", 51), "").zip(t), small,
			[]error{ErrTooLarge}, "xl/sharedStrings.xml", "more than 50 shared strings (MaxSharedStrings)"},
		{"a row beyond its budget", oneSheet(`<row r="1">`+strings.Repeat(`<c t="s"><v>0</v></c>`, 5)+`</row>`, "<si><t>"+strings.Repeat("z", 1000)+"</t></si>", "").zip(t), small,
			[]error{ErrTooLarge}, "xl/worksheets/sheet1.xml", "row 1: more than 4000 bytes of text in one row (MaxRowBytes)"},
		{"too many columns", oneSheet(`<row r="2"><c><v>1</v></c><c><v>1</v></c><c><v>1</v></c><c><v>1</v></c><c><v>1</v></c><c><v>1</v></c></row>`, "", "").zip(t), small,
			[]error{ErrTooLarge}, "xl/worksheets/sheet1.xml", "row 2: a cell beyond the last column a sheet has, E (MaxColumns)"},
		{"a cell beyond column XFD", rezip(t, book, editPart(annotatePart, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`<c r="L3"`), []byte(`<c r="XFE3"`), 1)
		})), defaultLimits, []error{ErrTooLarge}, annotatePart, "row 3: a cell beyond the last column a sheet has, XFD (MaxColumns)"},
		{"a row beyond 1,048,576", rezip(t, book, editPart(annotatePart, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`</sheetData>`), []byte(`<row r="1048577"><c r="A1048577"><v>1</v></c></row></sheetData>`), 1)
		})), defaultLimits, []error{ErrTooLarge}, annotatePart, "row 1048577 is beyond the last row a sheet has, 1048576 (MaxRows)"},
		{"damage after the last row", rezip(t, book, editPart(annotatePart, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`</sheetData>`), []byte(`</sheetData><bad x="1" x="2"/>`), 1)
		})), defaultLimits, []error{ErrDamaged}, annotatePart, "attribute x twice"},
		{"damaged styles", rezip(t, book, editPart("xl/styles.xml", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`<cellXfs`), []byte(`<cellXfs &bad;`), 1)
		})), defaultLimits, []error{ErrDamaged}, "xl/styles.xml", ""},
		{"damaged relationships", rezip(t, book, editPart("xl/_rels/workbook.xml.rels", func(b []byte) []byte {
			return b[:len(b)-10]
		})), defaultLimits, []error{ErrDamaged}, "xl/_rels/workbook.xml.rels", "ends inside"},
	}
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("returned-%d.xlsx", i))
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := readAllLimits(path, c.lim)
			if err == nil {
				t.Fatal("read without an error")
			}
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Errorf("%v\nis not %v", err, w)
				}
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+": ") || c.part != "" && !strings.Contains(msg, "part "+c.part) || !strings.Contains(msg, c.detail) {
				t.Errorf("%v\ndoes not name the file, part %q and %q", err, c.part, c.detail)
			}
			// With the verify pass, as Open reads, it is refused too.
			if c.lim == defaultLimits {
				if _, _, err := readAllOpen(path); err == nil || !errors.Is(err, c.want[0]) {
					t.Errorf("Open: %v, want %v", err, c.want[0])
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("reading left %d files in the temporary folder, the first %s", len(left), left[0].Name())
			}
		})
	}
}

// readAllOpen is readAllLimits through Open.
func readAllOpen(path string) ([]string, map[string][]gridRow, error) {
	if err := verify(context.Background(), path, path); err != nil {
		return nil, nil, err
	}
	return readAllLimits(path, defaultLimits)
}
