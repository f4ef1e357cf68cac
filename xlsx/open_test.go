package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// noSoffice is an opener on a machine without LibreOffice.
var noSoffice = opener{soffice: func() (string, error) { return "", exec.ErrNotFound }, timeout: time.Minute}

// sofficeAt is an opener that runs the given program as LibreOffice.
func sofficeAt(path string, timeout time.Duration) opener {
	return opener{soffice: func() (string, error) { return path, nil }, timeout: timeout}
}

// smallBook returns the bytes of a valid one-sheet workbook.
func smallBook(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetCellValue("Sheet1", "A1", "hello"); err != nil {
		t.Fatal(err)
	}
	b, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// odsHead is how every OpenDocument spreadsheet starts: a zip whose first,
// stored entry is its mimetype. What follows is cut off, as in a transfer
// that broke.
func odsHead(t *testing.T) []byte {
	t.Helper()
	var b strings.Builder
	z := zip.NewWriter(&b)
	w, err := z.CreateHeader(&zip.FileHeader{Name: "mimetype", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("application/vnd.oasis.opendocument.spreadsheet"))
	w, _ = z.Create("content.xml")
	w.Write([]byte(strings.Repeat("<table:table-row/>", 100)))
	z.Close()
	return []byte(b.String()[:200])
}

// encryptedBook is a workbook saved with a password to open, as Excel
// encrypts it (ECMA-376 agile encryption).
func encryptedBook(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	f.SetCellValue("Sheet1", "A1", "secret")
	path := filepath.Join(t.TempDir(), "enc.xlsx")
	if err := f.SaveAs(path, excelize.Options{Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(ole[:8])) {
		t.Fatal("excelize did not write a compound file")
	}
	return b
}

const ole = "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" + "\x00\x00\x00\x00\x00\x00\x00\x00"

// TestOpenErrors checks that every file Open cannot read gives an error
// that names the file as given, says why through a sentinel, and keeps
// its cause.
func TestOpenErrors(t *testing.T) {
	book := smallBook(t)
	cases := []struct {
		name    string
		content []byte // nil: no such file
		dir     bool
		opener  opener
		want    []error // every one must match with errors.Is
	}{
		{name: "missing.xlsx", want: []error{fs.ErrNotExist}},
		{name: "missing.ods", opener: noSoffice, want: []error{fs.ErrNotExist}},
		{name: "missing.numbers", want: []error{fs.ErrNotExist}},
		{name: "folder.xlsx", dir: true, want: []error{ErrNotSpreadsheet}},
		{name: "empty.xlsx", content: []byte{}, want: []error{ErrNotSpreadsheet}},
		{name: "text.xlsx", content: []byte("id,answer\n1,yes\n"), want: []error{ErrNotSpreadsheet}},
		{name: "text.ods", content: []byte("just some text"), opener: noSoffice, want: []error{ErrNotSpreadsheet}},
		{name: "page.xls", content: []byte("<html><body><table></table></body></html>"), opener: noSoffice, want: []error{ErrNotSpreadsheet}},
		{name: "notes.txt", content: []byte("notes"), want: []error{ErrNotSpreadsheet}},
		{name: "~$returned.xlsx", content: []byte("owner"), want: []error{ErrNotSpreadsheet}},
		{name: ".~lock.returned.ods#", content: []byte("lock"), want: []error{ErrNotSpreadsheet}},
		{name: "damaged.xlsx", content: book[:len(book)/2], want: []error{ErrDamaged, zip.ErrFormat}},
		{name: "renamed-xls.xlsx", content: []byte(ole), want: []error{ErrUnsupported}},
		{name: "encrypted.xlsx", content: encryptedBook(t), want: []error{ErrEncrypted, ErrUnsupported}},
		{name: "returned.numbers", content: []byte("PK\x03\x04numbers"), want: []error{ErrUnsupported}},
		{name: "export.csv", content: []byte("id,answer\n"), want: []error{ErrUnsupported}},
		{name: "returned.ods", content: odsHead(t), opener: noSoffice, want: []error{ErrNeedsConversion}},
		{name: "returned.fods", content: []byte("<?xml version=\"1.0\"?>\n<office:document/>"), opener: noSoffice, want: []error{ErrNeedsConversion}},
		{name: "returned.xls", content: []byte(ole), opener: noSoffice, want: []error{ErrNeedsConversion}},
		{name: "returned.xlsb", content: book, opener: noSoffice, want: []error{ErrNeedsConversion}},
		// Saved as ODS under the name the annotator was sent.
		{name: "odf-inside.xlsx", content: odsHead(t), opener: noSoffice, want: []error{ErrNeedsConversion}},
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			switch {
			case c.dir:
				if err := os.Mkdir(c.name, 0o755); err != nil {
					t.Fatal(err)
				}
			case c.content != nil:
				if err := os.WriteFile(c.name, c.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			o := c.opener
			if o.soffice == nil {
				o = noSoffice
			}
			g, closeFn, err := o.open(t.Context(), c.name)
			if err == nil {
				closeFn()
				t.Fatalf("opened as a grid of sheets %q; want an error", g.Sheets)
			}
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Errorf("error %q is not %q", err, w)
				}
			}
			if errors.Is(err, decode.ErrNotWorkbook) {
				t.Errorf("error %q says the file is no annosheet workbook; it could not be read", err)
			}
			if !strings.HasPrefix(err.Error(), c.name+": ") {
				t.Errorf("error %q does not start with the file's name as given", err)
			}
		})
	}
}

// TestOpenReads checks the files Open reads without LibreOffice, whatever
// their extension says.
func TestOpenReads(t *testing.T) {
	book := smallBook(t)
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"returned.xlsx", "macros.xlsm", "RETURNED.XLSX", "ooxml-inside.xls"} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(name, book, 0o644); err != nil {
				t.Fatal(err)
			}
			g, closeFn, err := noSoffice.open(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			if g.Name != name || g.Kind != "xlsx" || len(g.Sheets) != 1 || g.Sheets[0] != "Sheet1" {
				t.Errorf("grid %s (%s) of sheets %q", g.Name, g.Kind, g.Sheets)
			}
			var got []string
			err = g.Rows("Sheet1", func(row int, cells []backend.ReadCell) error {
				got = append(got, backend.Texts(cells)...)
				return nil
			})
			if err != nil || len(got) != 1 || got[0] != "hello" {
				t.Errorf("cells %q, err %v", got, err)
			}
		})
	}
}

// fakeSoffice writes a shell script that stands in for LibreOffice.
func fakeSoffice(t *testing.T, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for LibreOffice is a shell script")
	}
	p := filepath.Join(t.TempDir(), "soffice")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConvertFails checks what a conversion that gives no workbook says,
// and that it leaves no temporary folder behind.
func TestConvertFails(t *testing.T) {
	cases := []struct {
		name   string
		opener func(t *testing.T) opener
		want   []error
	}{
		{"writes nothing", func(t *testing.T) opener {
			return sofficeAt(fakeSoffice(t, "echo 'Error: source file could not be loaded' >&2"), time.Minute)
		}, []error{ErrConversion}},
		{"fails", func(t *testing.T) opener {
			return sofficeAt(fakeSoffice(t, "exit 3"), time.Minute)
		}, []error{ErrConversion}},
		// The stand-in starts a child, as soffice starts soffice.bin: the
		// timeout must end both.
		{"hangs", func(t *testing.T) opener {
			return sofficeAt(fakeSoffice(t, "sleep 60 & wait"), 300*time.Millisecond)
		}, []error{ErrConversion, context.DeadlineExceeded}},
		{"real, on a damaged file", func(t *testing.T) opener {
			return sofficeAt(testreaders.Soffice(t), time.Minute)
		}, []error{ErrConversion}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.opener(t)
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			dir := t.TempDir()
			t.Chdir(dir)
			if err := os.WriteFile("returned.ods", odsHead(t), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := o.open(t.Context(), "returned.ods")
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Errorf("error %v is not %q", err, w)
				}
			}
			if err != nil && !strings.HasPrefix(err.Error(), "returned.ods: ") {
				t.Errorf("error %q does not start with the file's name as given", err)
			}
			left, _ := os.ReadDir(tmp)
			for _, e := range left {
				t.Errorf("left behind in the temporary folder: %s", e.Name())
			}
			here, _ := os.ReadDir(dir)
			if len(here) != 1 {
				t.Errorf("the conversion wrote beside the file: %v", here)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		name string
		want Kind
	}{
		{"returned.xlsx", Workbook},
		{"Returned.XLSX", Workbook},
		{"dir/returned.xlsm", Workbook},
		{"returned.ods", Converted},
		{"returned.fods", Converted},
		{"returned.xls", Converted},
		{"returned.xlsb", Converted},
		{"returned.numbers", Unreadable},
		{"returned.csv", Unreadable},
		{"returned.tsv", Unreadable},
		{"returned.gsheet", Unreadable},
		{"~$returned.xlsx", NotSpreadsheet},
		{".~lock.returned.ods#", NotSpreadsheet},
		{".returned.xlsx", NotSpreadsheet},
		{"dir/.DS_Store", NotSpreadsheet},
		{"returned.xlsx~", NotSpreadsheet},
		{"returned.xlsx.bak", NotSpreadsheet},
		{"notes.txt", NotSpreadsheet},
		{"README", NotSpreadsheet},
	}
	for _, c := range cases {
		k, why := Classify(c.name)
		if k != c.want {
			t.Errorf("Classify(%q) = %v, want %v", c.name, k, c.want)
		}
		if k.Readable() && formatNames[strings.ToLower(filepath.Ext(c.name))] == "" {
			t.Errorf("Classify(%q) = %v, but messages have no name for its format", c.name, k)
		}
		if k.Readable() != (why == "") {
			t.Errorf("Classify(%q) = %v, %q: a readable kind has no reason, another kind has one", c.name, k, why)
		}
	}
}

// TestOpenInterrupted: Ctrl-C during the reading of a workbook stops it
// with the context's error, never a verdict on the file.
func TestOpenInterrupted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "book.xlsx")
	if err := os.WriteFile(path, smallBook(t), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := OpenContext(ctx, path)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrDamaged) {
		t.Errorf("OpenContext: %v", err)
	}
}
