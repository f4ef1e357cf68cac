package xlsx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
)

// fuzzLimits are small budgets, so that a fuzzed workbook is refused
// long before it can hold much memory.
var fuzzLimits = func() readLimits {
	l := defaultLimits
	l.cell, l.row, l.sstBytes, l.sstCount, l.listed = 64<<10, 1<<20, 8<<20, 1<<16, 1<<12
	return l
}()

// fuzzHeap is how far the heap may grow over its size before a read.
const fuzzHeap = 64 << 20

// tinyPlan is a two-sheet plan with a cell of each kind our writer
// writes.
func tinyPlan() *backend.Plan {
	rows := [][]any{
		{"ID", "Answer", "Checked", "Score", "Note"},
		{"r1", "yes", true, 4, "two\nlines & <tags> _x0041_"},
		{"r2", "=not a formula", false, 2.5, "漢字 😀"},
	}
	sheet := &backend.Sheet{Name: "Annotate", RowCount: len(rows), Columns: make([]backend.Column, 5),
		Validations: []backend.Validation{{Col: 2, FirstRow: 2, LastRow: 3, Kind: backend.ValidCheckbox}},
		Rows: func(emit func(backend.Row) error) error {
			for _, r := range rows {
				var row backend.Row
				for _, v := range r {
					row.Cells = append(row.Cells, backend.Cell{Value: v})
				}
				if err := emit(row); err != nil {
					return err
				}
			}
			return nil
		}}
	meta := &backend.Sheet{Name: "_annosheet", Visibility: backend.VeryHidden, RowCount: 1, Columns: make([]backend.Column, 2),
		Rows: func(emit func(backend.Row) error) error {
			return emit(backend.Row{Cells: []backend.Cell{{Value: "workbook"}, {Value: `{"format":1}`}}})
		}}
	return &backend.Plan{Sheets: []*backend.Sheet{sheet, meta}}
}

// unusedNS matches the namespace declarations a workbook's parts do
// without (all but r:, which relationships use).
var unusedNS = regexp.MustCompile(`\s+xmlns:(?:[a-qs-z][\w.-]*|r[\w.-]+)="[^"]*"`)

// seed rewrites a workbook as a fuzzing seed: without the parts the
// reader never reads and without unused namespace declarations (our
// writer puts some 60 on each root), compressed by method. Seeds stay
// small, so that the fuzzer can minimise what it finds quickly; stored
// ones let its mutations reach the XML itself.
func seed(t testing.TB, data []byte, method uint16) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "docProps/") || strings.Contains(f.Name, "theme") || strings.Contains(f.Name, "drawing") || strings.Contains(f.Name, "comments") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(unusedNS.ReplaceAll(b, nil))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// FuzzOpen reads fuzzed workbooks with the reader alone (no verify pass
// before it): each must read whole or fail with one of the package's
// sentinels naming the file, never panic, and never hold more than
// fuzzHeap of heap beyond what it started with.
func FuzzOpen(f *testing.F) {
	var b bytes.Buffer
	if err := Write(tinyPlan(), &b, WriteOptions{}); err != nil {
		f.Fatal(err)
	}
	book := seed(f, b.Bytes(), zip.Deflate)
	stored := seed(f, book, zip.Store)
	sheet := "xl/worksheets/sheet1.xml"
	types := oneSheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c t="b"><v>1</v></c><c t="e"><v>#N/A</v></c><c s="1"><v>45365.5</v></c>`+
		`<c><f>1+1</f></c><c t="d"><v>2024-03-14</v></c><c t="inlineStr"><is><r><t>a</t></r><rPh><t>b</t></rPh></is></c></row>`,
		`<si><r><t>x</t></r><r><t>y</t></r></si>`,
		`<numFmts><numFmt numFmtId="164" formatCode="dddd d mmmm yyyy h:mm AM/PM"/></numFmts><cellXfs><xf/><xf numFmtId="164"/></cellXfs>`)
	for _, s := range [][]byte{
		book,
		stored,
		seed(f, types.zip(f), zip.Store),
		book[:len(book)/2],
		flipCompressed(f, book, sheet),
		cutStream(f, book, sheet),
		rezip(f, stored, editPart(sheet, func(b []byte) []byte {
			return bytes.Replace(b, []byte("?>"), []byte(`?><!DOCTYPE x [<!ENTITY a "b">]>`), 1)
		}), sheet),
		rezip(f, stored, editPart(sheet, func(b []byte) []byte { return b[:len(b)/2] }), sheet),
		rezip(f, stored, editPart(sheet, func(b []byte) []byte {
			return bytes.Replace(b, []byte(`r="B2"`), []byte(`r="XFE2"`), 1)
		}), sheet),
	} {
		f.Add(s)
	}
	// One file per fuzzing process, rewritten for each input: a folder
	// per input would cost more than reading it.
	path := filepath.Join(f.TempDir(), "in.xlsx")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// No collection first: it would cost more than the read. The
		// heap's garbage only makes the bound looser.
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		base := m.HeapAlloc
		checkHeap := func() {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base+fuzzHeap {
				t.Fatalf("the heap grew by %d MiB reading", (m.HeapAlloc-base)>>20)
			}
		}
		err := fuzzRead(path, checkHeap)
		checkHeap()
		if err == nil {
			return
		}
		clean := false
		for _, s := range []error{ErrDamaged, ErrTooLarge, ErrDTD, ErrUnsupported, ErrNotSpreadsheet} {
			clean = clean || errors.Is(err, s)
		}
		if !clean || !strings.HasPrefix(err.Error(), path+": ") {
			t.Fatalf("%v: not one of the package's errors naming the file", err)
		}
	})
}

// fuzzRead reads every sheet of path, checking what Rows promises, with
// the shared strings read whole and as sheets need them (every part read
// ahead).
func fuzzRead(path string, checkHeap func()) error {
	lazy := fuzzLimits
	lazy.sstWhole, lazy.winCells, lazy.winText, lazy.ahead = 0, 64, 1<<10, 0
	for _, lim := range []readLimits{fuzzLimits, lazy} {
		if err := fuzzReadLimits(path, lim, checkHeap); err != nil {
			return err
		}
	}
	return nil
}

func fuzzReadLimits(path string, lim readLimits, checkHeap func()) error {
	g, closeFn, err := readBook(path, path, lim)
	if err != nil {
		return err
	}
	defer closeFn()
	for _, s := range g.Sheets {
		last, n := 0, 0
		err := g.Rows(s, func(row int, cells []backend.ReadCell) error {
			if row <= last || row > fuzzLimits.rows || len(cells) == 0 || len(cells) > fuzzLimits.cols {
				return errors.New("a row out of order, out of bounds or empty")
			}
			if last, n = row, n+1; n%1024 == 0 {
				checkHeap()
			}
			return nil
		})
		if err != nil {
			return rowsErr(path, err)
		}
		checkHeap()
	}
	return nil
}

// rowsErr names the file in an error of Rows, as the grid's callers do,
// and checks that Rows did not name it already.
func rowsErr(path string, err error) error {
	if strings.HasPrefix(err.Error(), path) {
		return fmt.Errorf("an error of Rows names the file, which its caller names: %w", err)
	}
	return fmt.Errorf("%s: %w", path, err)
}
