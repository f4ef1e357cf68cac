package input_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/benchdata"
)

// legalPQ is a legal-gaps record as a Parquet row: lists of strings, of
// structs and of numbers, as DuckDB writes them from the JSON Lines.
type legalPQ struct {
	ID              string       `parquet:"id" json:"id"`
	Generation      string       `parquet:"generation" json:"generation"`
	Citations       []string     `parquet:"citations,list" json:"citations"`
	Target          string       `parquet:"target" json:"target"`
	Cited           []legalCited `parquet:"cited_paragraphs,list" json:"cited_paragraphs"`
	PreviousContext string       `parquet:"previous_context" json:"previous_context"`
	GoldLabels      []int64      `parquet:"gold_labels,list" json:"gold_labels"`
}

// legalCited is a cited paragraph of the legal-gaps data.
type legalCited struct {
	Citation string `parquet:"citation" json:"citation"`
	Text     string `parquet:"text" json:"text"`
}

// legalColumns are legalPQ's columns, as a CSV file's header.
var legalColumns = []string{"id", "generation", "citations", "target", "cited_paragraphs", "previous_context", "gold_labels"}

// benchRecords is how many records the tables benchmark reads: 100,000
// (about 2.9 GB of JSON Lines), or ANNOSHEET_BENCH_RECORDS.
func benchRecords(b *testing.B) int {
	n := 100_000
	if s := os.Getenv("ANNOSHEET_BENCH_RECORDS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("ANNOSHEET_BENCH_RECORDS=%q: want a count", s)
		}
	}
	return n
}

// writeLegalTables writes n legal-gaps records (the sample's five in
// turn, each with an id of its own) as JSON Lines, CSV and Parquet.
func writeLegalTables(b *testing.B, dir string, n int) map[string]string {
	b.Helper()
	raw, err := os.ReadFile("../testdata/data/legal-gaps/examples.sample.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var sample []legalPQ
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r legalPQ
		if err := json.Unmarshal(line, &r); err != nil {
			b.Fatal(err)
		}
		sample = append(sample, r)
	}
	paths := map[string]string{"jsonl": filepath.Join(dir, "legal.jsonl"), "csv": filepath.Join(dir, "legal.csv"), "parquet": filepath.Join(dir, "legal.parquet")}
	files := map[string]*os.File{}
	for format, p := range paths {
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		files[format] = f
	}
	jl := bufio.NewWriterSize(files["jsonl"], 1<<20)
	cw := csv.NewWriter(bufio.NewWriterSize(files["csv"], 1<<20))
	pw := parquet.NewGenericWriter[legalPQ](files["parquet"])
	if err := cw.Write(legalColumns); err != nil {
		b.Fatal(err)
	}
	text := func(v any) string {
		raw, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		return string(raw)
	}
	for i := range n {
		r := sample[i%len(sample)]
		r.ID = fmt.Sprintf("%s-%06d", r.ID, i)
		jl.WriteString(text(r) + "\n")
		if err := cw.Write([]string{r.ID, r.Generation, text(r.Citations), r.Target, text(r.Cited), r.PreviousContext, text(r.GoldLabels)}); err != nil {
			b.Fatal(err)
		}
		if _, err := pw.Write([]legalPQ{r}); err != nil {
			b.Fatal(err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		b.Fatal(err)
	}
	for _, err := range []error{jl.Flush(), pw.Close()} {
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	return paths
}

// BenchmarkTables is reading the legal-gaps records through OpenFor, as
// generate reads them, from JSON Lines, CSV and Parquet: 100,000 records
// unless ANNOSHEET_BENCH_RECORDS says. The README quotes it. Each reading
// checks the count, and that the last record's fields that the template
// reads are the JSON Lines'. Besides time it reports peak-MB, the peak of
// the Go heap in use: the records are read one at a time, so it stays
// flat however many there are.
func BenchmarkTables(b *testing.B) {
	n := benchRecords(b)
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		b.Fatal(err)
	}
	paths := writeLegalTables(b, b.TempDir(), n)
	var first []byte
	for _, format := range []string{"jsonl", "csv", "parquet"} {
		b.Run(format, func(b *testing.B) {
			st, err := os.Stat(paths[format])
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			runtime.GC()
			stop := benchdata.PeakHeap()
			b.ResetTimer()
			for range b.N {
				src, err := input.OpenFor(context.Background(), tp, []string{paths[format]}, input.Options{})
				if err != nil {
					b.Fatal(err)
				}
				count := 0
				if err := src.Each(func(r *layout.Record) error {
					if count == n-1 {
						// The fields the template reads: a table's other
						// columns stay text.
						m := r.Data.(map[string]any)
						raw, err := json.Marshal([]any{m["id"], m["generation"], m["target"], m["cited_paragraphs"], m["previous_context"]})
						if err != nil {
							return err
						}
						if first == nil {
							first = raw
						} else if string(raw) != string(first) {
							return fmt.Errorf("the last record (%d bytes) differs from the JSON Lines' (%d bytes)", len(raw), len(first))
						}
					}
					count++
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if count != n {
					b.Fatalf("%d records, want %d", count, n)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/1e6, "peak-MB")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)/1e3, "µs/record")
		})
	}
}
