package xlsx_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/testing/benchdata"
	"github.com/annosheet/annosheet/mapping"
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

// BenchmarkPull reads filled legal-gaps workbooks of 1,000 and 100,000 rows
// back into canonical records. It reports peak-MB, the peak of the Go heap
// in use: rows are streamed by the package's reader, and the long context
// cells are never kept.
//
//	go test ./xlsx -run '^$' -bench Pull -benchtime 1x
func BenchmarkPull(b *testing.B) {
	for _, rows := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			path := filledBook(b, rows)
			runtime.GC()
			stop := peakHeap()
			b.ResetTimer()
			for range b.N {
				g, closeFn, err := xlsx.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				p, err := mapping.Pull(g, mapping.PullOptions{})
				closeFn()
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Records) != rows || p.Records[rows-1].Status != mapping.StatusComplete {
					b.Fatalf("%d records, last %s", len(p.Records), p.Records[len(p.Records)-1].Status)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/1e6, "peak-MB")
		})
	}
}
