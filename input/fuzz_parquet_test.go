package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// pqFuzzRow has a column of most kinds, in several encodings.
type pqFuzzRow struct {
	ID    string            `parquet:"id,dict"`
	Note  *string           `parquet:"note,optional"`
	Cited []pqParagraph     `parquet:"cited,list"`
	Tags  map[string]int64  `parquet:"tags"`
	N     int64             `parquet:"n,delta"`
	F     float64           `parquet:"f"`
	Text  string            `parquet:"text,delta"`
	JSON  string            `parquet:"json"`
	Flags []bool            `parquet:"flags"`
	Meta  map[string]string `parquet:"meta,optional"`
}

// pqFuzzLimit is the limit on a record while fuzzing: pages may then be
// 1 MiB, a row group's pages 16 MiB.
const pqFuzzLimit = 64 << 10

// pqFuzzMaxAlloc is what reading one input may allocate while fuzzing.
const pqFuzzMaxAlloc = 256 << 20

// FuzzParquet: whatever the bytes, reading them as Parquet ends, without
// a panic and within bounded memory, in records or in problems. Records
// come one an index, on increasing lines, each within the limit, its Raw
// the JSON of its Data; problems are malformed-input errors of the file,
// each one line without control characters.
func FuzzParquet(f *testing.F) {
	note := "a note"
	rows := []pqFuzzRow{
		{ID: "u1", Note: &note, Cited: []pqParagraph{{"564 F.3d 856", "And this"}, {"576 F.3d 240", "KING"}},
			Tags: map[string]int64{"a": 1, "b": 2}, N: 42, F: 0.5, Text: "shared text 1", JSON: `{"k": [1, 2]}`,
			Flags: []bool{true, false}, Meta: map[string]string{"m": "v"}},
		{ID: "u2", N: -7, F: 1e21, Text: "shared text 2", JSON: `[]`},
		{ID: "u1", Cited: []pqParagraph{{"", ""}}, N: 3, Text: "", JSON: ``, Flags: []bool{true}},
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	plain := read(pqWrite(f, rows, parquet.DataPageVersion(1), parquet.MaxRowsPerRowGroup(2)))
	f.Add(plain)
	f.Add(read(pqWrite(f, rows, parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(64))))
	f.Add(read(pqWrite(f, rows[:1], parquet.Compression(&parquet.Zstd))))
	f.Add(plain[:len(plain)/2]) // cut off
	corrupted := bytes.Clone(plain)
	at := pqFooterAt(corrupted)
	for i := at + 10; i < len(corrupted)-8; i += 37 {
		corrupted[i] ^= 0x5a // the footer damaged
	}
	f.Add(corrupted)

	dir := f.TempDir()
	opt := tableOptions{limit: pqFuzzLimit, needed: []string{"id"}, nested: map[string]bool{"json": true, "cited": true}}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "in.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var recs []*layout.Record
		var err error
		if n := pqAllocated(func() { recs, err = pqRead(t, p, opt) }); n > pqFuzzMaxAlloc {
			t.Fatalf("allocated %d MiB", n>>20)
		}
		if err != nil {
			var ps records.Problems
			if !errors.As(err, &ps) || len(ps) == 0 || len(ps) > records.MaxErrors {
				t.Fatalf("error is %T, not Problems: %v", err, err)
			}
			for _, pr := range ps {
				if pr.File != p || pr.Line < 0 || pr.Severity != records.Error || !errors.Is(pr, records.ErrMalformed) ||
					pr.Message == "" || strings.ContainsFunc(pr.Message, unicode.IsControl) {
					t.Fatalf("problem %+v: want a one-line ErrMalformed error in %s, without control characters", *pr, p)
				}
			}
		}
		prev := 0
		for i, r := range recs {
			if r.Index != i || r.File != p || r.Line <= prev {
				t.Fatalf("record %d: Index %d, Line %d after %d, File %q", i, r.Index, r.Line, prev, r.File)
			}
			prev = r.Line
			if len(r.Raw) > pqFuzzLimit {
				t.Fatalf("record %d: Raw of %d bytes", i, len(r.Raw))
			}
			var v any
			d := json.NewDecoder(bytes.NewReader(r.Raw))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				t.Fatalf("record %d: Raw is not JSON: %v\n%s", i, err, r.Raw)
			}
			if diff := cmp.Diff(r.Data, v); diff != "" {
				t.Fatalf("record %d: Raw is not Data (-Data +Raw):\n%s", i, diff)
			}
		}
	})
}
