package input

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// fuzzXLSXLimits are small budgets, so that a fuzzed workbook is refused
// long before it can take much memory or disk.
var fuzzXLSXLimits = xlsxLimits{inflated: 8 << 20, xmlInMemory: 256 << 10, held: 4 << 20}

// fuzzXLSXSeed is a small workbook of one sheet, with a cell of each kind
// the reader turns into text, its parts compressed by method: stored
// ones let the fuzzer's mutations reach the XML itself.
func fuzzXLSXSeed(t testing.TB, method uint16) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	iso := xlsxStyle(t, f, "yyyy-mm-dd")
	xlsxRows(t, f, "Sheet1", map[int][]any{
		1: {"id", "text", "n", "date", "flag", "f", "cited_paragraphs"},
		2: {"u1", "a & <b>", 0.5, excelize.Cell{StyleID: iso, Value: 45352}, true, excelize.Cell{Formula: "C2*2", Value: 1}, `[{"id": 1}]`},
		4: {"u2", "漢字", 7, nil, false, excelize.Cell{Formula: `"x"`, Value: "x"}, "[1,"},
	})
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	// Rewritten without the parts the reader never needs, to keep the
	// seed small.
	zr, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, zf := range zr.File {
		if strings.HasPrefix(zf.Name, "docProps/") || strings.Contains(zf.Name, "theme") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		w, err := zw.CreateHeader(&zip.FileHeader{Name: zf.Name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// FuzzXLSX reads fuzzed workbooks within small budgets: each must read,
// or fail with Problems that name the file, one line each, never panic.
// A record is given only before the first problem, in the order of its
// row, with a field for each column of the header and Raw as JSON.
func FuzzXLSX(f *testing.F) {
	deflated := fuzzXLSXSeed(f, zip.Deflate)
	stored := fuzzXLSXSeed(f, zip.Store)
	f.Add(deflated)
	f.Add(stored)
	f.Add(deflated[:len(deflated)/2])
	f.Add(cfbFile("Workbook"))
	f.Add(cfbFile("EncryptionInfo", "EncryptedPackage"))
	f.Add(cfbFile("Workbook")[:520])
	f.Add([]byte("id,text\nu1,a\n"))
	dir := f.TempDir()
	opt := tableOptions{limit: 64 << 10, nested: map[string]bool{"cited_paragraphs": true}, needed: []string{"id"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "in.xlsx")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var recs []*layout.Record
		index := 0
		err := readXLSX(p, opt, fuzzXLSXLimits, &index, func(r *layout.Record) error {
			recs = append(recs, r)
			return nil
		})
		var first int // the row of the first problem, 0 for none
		if err != nil {
			ps, ok := err.(records.Problems)
			if !ok {
				t.Fatalf("error is %T, not Problems: %v", err, err)
			}
			if len(ps) == 0 || len(ps) > records.MaxErrors {
				t.Fatalf("%d problems", len(ps))
			}
			for _, pr := range ps {
				if pr.File != p || pr.Err != records.ErrMalformed || pr.Severity != records.Error || pr.Message == "" || strings.Contains(pr.Error(), "\n") {
					t.Fatalf("problem %+v: want one line, an ErrMalformed error in %s", *pr, p)
				}
				if pr.Cell != "" && pr.Sheet == "" {
					t.Fatalf("problem %+v: a cell without its sheet", *pr)
				}
			}
			first = ps[0].Line
		}
		prev := 0
		for i, r := range recs {
			if r.Index != i || r.File != p || r.Line <= prev || first > 0 && r.Line >= first {
				t.Fatalf("record %d: Index %d, Line %d after %d (first problem at %d)", i, r.Index, r.Line, prev, first)
			}
			prev = r.Line
			if !json.Valid(r.Raw) {
				t.Fatalf("record %d: Raw is not JSON: %q", i, r.Raw)
			}
			if _, ok := r.Data.(map[string]any)["id"]; !ok {
				t.Fatalf("record %d: no field id: %v", i, r.Data)
			}
		}
	})
}
