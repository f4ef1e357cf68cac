package xlsx_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/benchdata"
	"github.com/annosheet/annosheet/xlsx"
)

// Benchmarks of generate on the legal-gaps shape: long context cells (a
// 1,200-character previous context, two cited paragraphs, a generation and
// a target), four checkbox columns, a note and the annotator column.
//
//	go test ./xlsx -run XXX -bench Generate -benchtime 1x
//
// Besides time, each reports peak-MB (the peak of the Go heap in use,
// sampled) and file-MB. The figures are in the README.

var benchDir string // holds the inputs; removed by TestMain

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchInput writes (once per process) a JSON Lines file of n legal-gaps
// records.
func benchInput(b *testing.B, n int) string {
	if benchDir == "" {
		dir, err := os.MkdirTemp("", "annosheet-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
	}
	path, err := benchdata.LegalInput(benchDir, n)
	if err != nil {
		b.Fatal(err)
	}
	return path
}

var peakHeap = benchdata.PeakHeap

func BenchmarkGenerate(b *testing.B) {
	for _, rows := range []int{1000, 100000} {
		for _, c := range []struct {
			name string
			comp xlsx.Compression
		}{{"default", xlsx.CompressDefault}, {"fast", xlsx.CompressFast}} {
			b.Run(fmt.Sprintf("rows=%d/deflate=%s", rows, c.name), func(b *testing.B) {
				in := benchInput(b, rows)
				tmpl, err := templates.Builtin("legal-gaps")
				if err != nil {
					b.Fatal(err)
				}
				out := filepath.Join(b.TempDir(), "out.xlsx")
				runtime.GC()
				stop := peakHeap()
				b.ResetTimer()
				for range b.N {
					src, err := input.Open("jsonl", []string{in})
					if err != nil {
						b.Fatal(err)
					}
					res, err := layout.Build(context.Background(), tmpl, src, layout.Options{Seed: 1})
					if err != nil {
						b.Fatal(err)
					}
					f, err := os.Create(out)
					if err != nil {
						b.Fatal(err)
					}
					if err := xlsx.Write(res.Plan, f, xlsx.WriteOptions{Compression: c.comp}); err != nil {
						b.Fatal(err)
					}
					f.Close()
				}
				b.StopTimer()
				b.ReportMetric(float64(stop())/1e6, "peak-MB")
				st, _ := os.Stat(out)
				b.ReportMetric(float64(st.Size())/1e6, "file-MB")
			})
		}
	}
}

// BenchmarkNonStreamingBaseline writes the same cells with excelize's
// ordinary (non-streaming) API, for comparison with BenchmarkGenerate's
// memory: that API keeps the whole sheet in memory.
func BenchmarkNonStreamingBaseline(b *testing.B) {
	for _, rows := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			in := benchInput(b, rows)
			tmpl, err := templates.Builtin("legal-gaps")
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			stop := peakHeap()
			b.ResetTimer()
			for range b.N {
				src, _ := input.Open("jsonl", []string{in})
				res, err := layout.Build(context.Background(), tmpl, src, layout.Options{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				f := excelize.NewFile()
				sheet := res.Plan.Sheets[1]
				n := 0
				err = sheet.Rows(func(r backend.Row) error {
					n++
					vals := make([]any, len(r.Cells))
					for i, c := range r.Cells {
						vals[i] = c.Value
					}
					return f.SetSheetRow("Sheet1", backend.CellName(0, n), &vals)
				})
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Write(io.Discard); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/1e6, "peak-MB")
		})
	}
}
