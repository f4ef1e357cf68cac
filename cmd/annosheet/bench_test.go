package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/benchdata"
)

// BenchmarkGenerateStudy generates a study of legal-gaps rows (about 3 KB
// of text each) for three annotators, each instance judged by two, cut
// into batches: 201 workbooks. Each batch reads its own records again
// from a spooled copy of the input, not the whole input.
//
//	go test ./cmd/annosheet -run '^$' -bench GenerateStudy -benchtime 1x
//
// Besides time it reports peak-MB (the peak of the Go heap in use,
// sampled). The figures are in the README.
func BenchmarkGenerateStudy(b *testing.B) {
	for _, c := range []struct{ rows, batch int }{{10000, 100}, {100000, 1000}} {
		b.Run(fmt.Sprintf("rows=%d/batch-size=%d", c.rows, c.batch), func(b *testing.B) {
			dir := b.TempDir()
			in, err := benchdata.LegalInput(dir, c.rows)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			stop := benchdata.PeakHeap()
			b.ResetTimer()
			for i := range b.N {
				out := filepath.Join(dir, fmt.Sprint("out", i))
				err := runGenerate(context.Background(), generateOptions{Template: "legal-gaps", Format: formatXLSX, GenerateOptions: study.GenerateOptions{
					Inputs: []string{in}, Dir: out, Batch: "b01", Seed: 1, SeedSet: true, Annotators: []string{"ak", "bt", "cm"}, Overlap: 2, BatchSize: c.batch,
				}}, io.Discard, io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(out)
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/1e6, "peak-MB")
		})
	}
}
