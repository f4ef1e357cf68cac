package xlsx_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
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

var words = strings.Fields("the court held that a plan administrator with a conflict of interest must still be given deference " +
	"unless the decision was arbitrary and capricious in light of the record as a whole including the medical evidence")

// benchText is deterministic text of about n characters.
func benchText(seed, n int) string {
	var b strings.Builder
	for i := seed; b.Len() < n; i++ {
		b.WriteString(words[(i*7+seed)%len(words)])
		b.WriteByte(' ')
	}
	return b.String()
}

var (
	benchInputs sync.Map // rows -> path
	benchDir    string   // holds the inputs; removed by TestMain
)

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
	if p, ok := benchInputs.Load(n); ok {
		return p.(string)
	}
	if benchDir == "" {
		dir, err := os.MkdirTemp("", "annosheet-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
	}
	path := filepath.Join(benchDir, fmt.Sprintf("legal-%d.jsonl", n))
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range n {
		rec := map[string]any{
			"id":               fmt.Sprintf("r%06d", i),
			"previous_context": benchText(i, 1200),
			"cited_paragraphs": []map[string]string{
				{"citation": fmt.Sprintf("%d F.3d %d", 500+i%300, i%900), "text": benchText(i+1, 400)},
				{"citation": fmt.Sprintf("%d U.S. %d", 300+i%200, i%700), "text": benchText(i+2, 400)},
			},
			"generation": benchText(i+3, 500),
			"target":     benchText(i+4, 500),
		}
		if err := enc.Encode(rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	benchInputs.Store(n, path)
	return path
}

// peakHeap samples the heap in use until stop is called and returns the
// peak in bytes.
func peakHeap() (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

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
					src, err := mapping.Open("jsonl", []string{in})
					if err != nil {
						b.Fatal(err)
					}
					res, err := mapping.Build(tmpl, src, mapping.Options{Seed: 1})
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
				src, _ := mapping.Open("jsonl", []string{in})
				res, err := mapping.Build(tmpl, src, mapping.Options{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				f := excelize.NewFile()
				sheet := res.Plan.Sheets[1]
				n := 0
				err = sheet.Rows(func(r mapping.Row) error {
					n++
					vals := make([]any, len(r.Cells))
					for i, c := range r.Cells {
						vals[i] = c.Value
					}
					return f.SetSheetRow("Sheet1", mapping.CellName(0, n), &vals)
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
