package xlsx_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/testkit/testreaders"
	"github.com/annosheet/annosheet/xlsx"
)

// filledBook writes (once) a legal-gaps workbook of n rows whose answers
// are filled in as an annotator would leave them: the checkboxes of two
// codes ticked, a note on every third row, the annotator's ID.
func filledBook(b *testing.B, n int) string {
	benchInput(b, n) // makes benchDir
	path := filepath.Join(benchDir, fmt.Sprintf("filled-%d.xlsx", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	p, err := benchdata.FilledLegalPlan(benchDir, n, backend.XLSXCellLimit)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := xlsx.Write(p, f, xlsx.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	return path
}

// savedBook is filledBook(n) as LibreOffice saves it (once): every text
// cell a shared string, the long context included, as Excel saves them
// too.
func savedBook(b *testing.B, n int) string {
	src := filledBook(b, n)
	out := filepath.Join(benchDir, "libreoffice")
	path := filepath.Join(out, filepath.Base(src))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	testreaders.Convert(b, testreaders.Soffice(b), "xlsx:Calc MS Excel 2007 XML", out, src)
	return path
}

// BenchmarkPull reads filled legal-gaps workbooks of 1,000, 10,000 and
// 100,000 rows back into canonical records: as our writer wrote them
// (inline strings), and, at 10,000 rows, as LibreOffice saved them
// (shared strings). It reports peak-MB, the peak of the Go heap in use:
// rows are streamed by the package's reader, the long context cells are
// passed over without being decoded, and of a large shared-strings table
// only the strings of the cells pull reads are held.
//
//	go test ./xlsx -run '^$' -bench Pull -benchtime 1x
func BenchmarkPull(b *testing.B) {
	for _, c := range []struct {
		rows  int
		saved bool
	}{{1000, false}, {10000, false}, {10000, true}, {100000, false}} {
		name := fmt.Sprintf("rows=%d", c.rows)
		if c.saved {
			name += "/strings=shared"
		}
		b.Run(name, func(b *testing.B) {
			path := filledBook(b, c.rows)
			if c.saved {
				path = savedBook(b, c.rows)
			}
			runtime.GC()
			stop := peakHeap()
			b.ResetTimer()
			for range b.N {
				g, closeFn, err := xlsx.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				p, err := decode.Pull(g, decode.PullOptions{})
				closeFn()
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Records) != c.rows || p.Records[c.rows-1].Status != records.StatusComplete {
					b.Fatalf("%d records, last %s", len(p.Records), p.Records[len(p.Records)-1].Status)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/1e6, "peak-MB")
		})
	}
}
