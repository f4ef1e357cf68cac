package xlsx_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/xlsx"
)

// BenchmarkRead reads every cell of every sheet of a filled legal-gaps
// workbook of 10,000 rows written by our writer (40 MB of sheet XML):
// with Open, and with excelize's Rows iterator, the reader Open used
// before (raw values, after the same verify pass). Throughput is of the
// file's bytes; peak-MB is the peak of the Go heap in use.
//
//	go test ./xlsx -run '^$' -bench Read -count 6 | benchstat -col /reader -
func BenchmarkRead(b *testing.B) {
	path := filledBook(b, 10000)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name string
		read func(path string) (cells int, err error)
	}{{"annosheet", readOpen}, {"excelize", readExcelize}} {
		b.Run("reader="+r.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			runtime.GC()
			stop := peakHeap()
			for b.Loop() {
				n, err := r.read(path)
				if err != nil {
					b.Fatal(err)
				}
				if n < 10000*10 {
					b.Fatalf("read %d cells", n)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/1e6, "peak-MB")
		})
	}
}

func readOpen(path string) (int, error) {
	g, closeFn, err := xlsx.Open(path)
	if err != nil {
		return 0, err
	}
	defer closeFn()
	n := 0
	for _, s := range g.Sheets {
		err := g.Rows(s, func(_ int, cells []backend.ReadCell) error {
			n += len(cells)
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func readExcelize(path string) (int, error) {
	if err := xlsx.Verify(context.Background(), path, path); err != nil {
		return 0, err
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for _, s := range f.GetSheetList() {
		rows, err := f.Rows(s)
		if err != nil {
			return n, err
		}
		for rows.Next() {
			cells, err := rows.Columns(excelize.Options{RawCellValue: true})
			if err != nil {
				return n, fmt.Errorf("%s: %w", s, err)
			}
			n += len(cells)
		}
		if err := rows.Close(); err != nil {
			return n, err
		}
	}
	return n, nil
}
