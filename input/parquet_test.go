package input

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// pqParagraph is a cited paragraph of the legal-gaps data.
type pqParagraph struct {
	Citation string `parquet:"citation" json:"citation"`
	Text     string `parquet:"text" json:"text"`
}

type pqSource struct {
	Court string `parquet:"court"`
	Year  int32  `parquet:"year"`
}

// pqRow has a column of each kind the tests write with parquet-go.
type pqRow struct {
	ID      string           `parquet:"id"`
	Count   int64            `parquet:"count"`
	Score   float64          `parquet:"score"`
	Ratio   float32          `parquet:"ratio"`
	Gold    bool             `parquet:"gold"`
	Note    *string          `parquet:"note,optional"`
	Cited   []pqParagraph    `parquet:"cited_paragraphs,list"`
	Labels  []int64          `parquet:"labels"` // a repeated field, not a LIST
	Meta    map[string]int64 `parquet:"meta"`
	Created time.Time        `parquet:"created,timestamp(millisecond)"`
	Day     int32            `parquet:"day,date"` // days since 1970 (parquet-go v0.32.0 writes a time.Time's date wrongly)
	Blob    []byte           `parquet:"blob"`
	Source  *pqSource        `parquet:"source,optional"`
}

func pqRows() []pqRow {
	note := "first <note> \"quoted\""
	return []pqRow{
		{ID: "u1", Count: 42, Score: 0.5, Ratio: 0.1, Gold: true, Note: &note,
			Cited:   []pqParagraph{{"564 F.3d 856", "And this is not the kind of case"}, {"576 F.3d 240", "KING, Circuit Judge"}},
			Labels:  []int64{2, 3},
			Meta:    map[string]int64{"tokens": 812, "annotators": 3},
			Created: time.Date(2024, 1, 31, 13, 45, 0, 500e6, time.UTC),
			Day:     19753,
			Blob:    []byte{0xaa, 0xbb, 0xcc},
			Source:  &pqSource{Court: "4th Cir.", Year: 2009}},
		{ID: "u2", Count: -7, Score: 1e21, Ratio: 1e-7,
			Created: time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
			Day:     -25567},
	}
}

// pqRowsData is what eachParquet gives for pqRows.
func pqRowsData() []any {
	n := func(s string) json.Number { return json.Number(s) }
	return []any{
		map[string]any{"id": "u1", "count": n("42"), "score": n("0.5"), "ratio": n("0.1"), "gold": true,
			"note": "first <note> \"quoted\"",
			"cited_paragraphs": []any{
				map[string]any{"citation": "564 F.3d 856", "text": "And this is not the kind of case"},
				map[string]any{"citation": "576 F.3d 240", "text": "KING, Circuit Judge"}},
			"labels":  []any{n("2"), n("3")},
			"meta":    map[string]any{"tokens": n("812"), "annotators": n("3")},
			"created": "2024-01-31T13:45:00.5Z", "day": "2024-01-31", "blob": "qrvM",
			"source": map[string]any{"court": "4th Cir.", "year": n("2009")}},
		map[string]any{"id": "u2", "count": n("-7"), "score": n("1e+21"), "ratio": n("1e-7"), "gold": false,
			"note": nil, "cited_paragraphs": []any{}, "labels": []any{}, "meta": map[string]any{},
			"created": "1969-12-31T23:59:59Z", "day": "1900-01-01", "blob": "", "source": nil},
	}
}

// pqWrite writes rows to a Parquet file with parquet-go.
func pqWrite[T any](t testing.TB, rows []T, opts ...parquet.WriterOption) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// pqRead reads a file with eachParquet, the index starting at 0; opt's
// limit is MaxRecordSize unless given.
func pqRead(t testing.TB, p string, opt tableOptions) ([]*layout.Record, error) {
	t.Helper()
	if opt.limit == 0 {
		opt.limit = MaxRecordSize
	}
	var recs []*layout.Record
	index := 0
	err := eachParquet(p, opt, &index, func(r *layout.Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

func pqData(recs []*layout.Record) []any {
	out := make([]any, len(recs))
	for i, r := range recs {
		out[i] = r.Data
	}
	return out
}

// TestParquetValues: a file parquet-go writes, with a column of each kind,
// gives the values JSON would give, and its record as JSON in the schema's
// order.
func TestParquetValues(t *testing.T) {
	t.Parallel()
	p := pqWrite(t, pqRows())
	recs, err := pqRead(t, p, tableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pqRowsData(), pqData(recs)); d != "" {
		t.Errorf("Data (-want +got):\n%s", d)
	}
	wantRaw := `{"id":"u1","count":42,"score":0.5,"ratio":0.1,"gold":true,"note":"first \u003cnote\u003e \"quoted\"",` +
		`"cited_paragraphs":[{"citation":"564 F.3d 856","text":"And this is not the kind of case"},{"citation":"576 F.3d 240","text":"KING, Circuit Judge"}],` +
		`"labels":[2,3],"meta":{"annotators":3,"tokens":812},"created":"2024-01-31T13:45:00.5Z","day":"2024-01-31","blob":"qrvM",` +
		`"source":{"court":"4th Cir.","year":2009}}`
	if got := string(recs[0].Raw); got != wantRaw {
		t.Errorf("Raw:\n got %s\nwant %s", got, wantRaw)
	}
	for i, r := range recs {
		if r.Index != i || r.Line != i+1 || r.File != p || r.Key != "" || r.InvalidUTF8 {
			t.Errorf("record %d: Index %d, Line %d, File %q, Key %q, InvalidUTF8 %t", i, r.Index, r.Line, r.File, r.Key, r.InvalidUTF8)
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(r.Raw))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("record %d: Raw is not JSON: %v", i, err)
		}
		if diff := cmp.Diff(r.Data, v); diff != "" {
			t.Errorf("record %d: Raw decoded (-Data +Raw):\n%s", i, diff)
		}
	}
}

// pqEncoded has columns in each encoding parquet-go writes.
type pqEncoded struct {
	Delta  string   `parquet:"delta,delta"` // DELTA_BYTE_ARRAY
	Dict   string   `parquet:"dict,dict"`
	Opt    *string  `parquet:"opt,optional,dict"`
	I64    int64    `parquet:"i64,delta"`
	I32    int32    `parquet:"i32,delta"`
	Bool   bool     `parquet:"bool"`
	List   []string `parquet:"list,list"`
	Repeat []int64  `parquet:"repeat"`
	Split  float32  `parquet:"split,split"`
	Plain  string   `parquet:"plain"`
}

func pqEncodedRows(n int) []pqEncoded {
	var rows []pqEncoded
	for i := range n {
		s := fmt.Sprint("opt", i%3)
		var o *string
		if i%4 != 0 {
			o = &s
		}
		rows = append(rows, pqEncoded{Delta: fmt.Sprint("shared-prefix-", i), Dict: fmt.Sprint("d", i%5), Opt: o,
			I64: int64(i) * 1000, I32: int32(-i), Bool: i%2 == 0, List: []string{"x", fmt.Sprint(i)}[:i%3],
			Repeat: []int64{int64(i), 7}[:i%2+1], Split: float32(i) / 10, Plain: strings.Repeat("p", i)})
	}
	return rows
}

// TestParquetWriterOptions: every compression codec, both versions of data
// pages, dictionary, delta and byte-stream-split encodings, pages of a
// few rows and several row groups give the same records, their lines
// counted across row groups.
func TestParquetWriterOptions(t *testing.T) {
	t.Parallel()
	rows := pqEncodedRows(50)
	base, err := pqRead(t, pqWrite(t, rows), tableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := pqData(base)
	if got := string(base[49].Raw); got != `{"delta":"shared-prefix-49","dict":"d4","opt":"opt1","i64":49000,"i32":-49,"bool":false,"list":["x"],"repeat":[49,7],"split":4.9,"plain":"`+strings.Repeat("p", 49)+`"}` {
		t.Errorf("row 50: %s", got)
	}
	for _, codec := range []compress.Codec{&parquet.Uncompressed, &parquet.Snappy, &parquet.Gzip, &parquet.Zstd, &parquet.Lz4Raw, &parquet.Brotli} {
		for _, version := range []int{1, 2} {
			name := fmt.Sprintf("%s v%d", codec, version)
			p := pqWrite(t, rows, parquet.Compression(codec), parquet.DataPageVersion(version),
				parquet.MaxRowsPerRowGroup(17), parquet.PageBufferSize(64))
			recs, err := pqRead(t, p, tableOptions{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if d := cmp.Diff(want, pqData(recs)); d != "" {
				t.Errorf("%s: Data (-want +got):\n%s", name, d)
			}
			for i, r := range recs {
				if r.Line != i+1 || r.Index != i {
					t.Fatalf("%s: record %d at line %d, index %d", name, i, r.Line, r.Index)
				}
			}
		}
	}
}

// TestParquetDeltaLengthByteArray: strings in DELTA_LENGTH_BYTE_ARRAY, an
// encoding parquet-go writes only when the schema asks for it.
func TestParquetDeltaLengthByteArray(t *testing.T) {
	t.Parallel()
	type row struct {
		S string `parquet:"s"`
	}
	schema := parquet.NewSchema("t", parquet.Group{"s": parquet.Encoded(parquet.String(), &parquet.DeltaLengthByteArray)})
	p := pqWrite(t, []row{{"a"}, {""}, {"ccc"}}, schema)
	recs, err := pqRead(t, p, tableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"s": "a"}, map[string]any{"s": ""}, map[string]any{"s": "ccc"}}
	if d := cmp.Diff(want, pqData(recs)); d != "" {
		t.Errorf("Data (-want +got):\n%s", d)
	}
}

// TestParquetIndexAndRowGroups: the index goes on from where the files
// before left it; lines count rows across row groups.
func TestParquetIndexAndRowGroups(t *testing.T) {
	t.Parallel()
	p := pqWrite(t, pqEncodedRows(7), parquet.MaxRowsPerRowGroup(3))
	index := 5
	var got [][2]int
	err := eachParquet(p, tableOptions{limit: MaxRecordSize}, &index, func(r *layout.Record) error {
		got = append(got, [2]int{r.Index, r.Line})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{5, 1}, {6, 2}, {7, 3}, {8, 4}, {9, 5}, {10, 6}, {11, 7}}
	if d := cmp.Diff(want, got); d != "" || index != 12 {
		t.Errorf("(index, line) (-want +got):\n%s; index after %d", d, index)
	}
	// An error of fn stops the reading and is returned.
	stop := errors.New("stop")
	n := 0
	err = eachParquet(p, tableOptions{limit: MaxRecordSize}, &index, func(*layout.Record) error {
		if n++; n == 4 {
			return stop
		}
		return nil
	})
	if err != stop || n != 4 {
		t.Errorf("after %d records: %v, want stop", n, err)
	}
}

// pqDuckDB runs SQL statements in DuckDB (npm @duckdb/node-api, the
// project's independent reader of Parquet), skipping the test as the
// other independent checks do when it is not installed.
func pqDuckDB(t *testing.T, statements ...string) {
	t.Helper()
	testreaders.NewDuckDB(t).Exec(t, statements...)
}

var pqSQLString = testreaders.SQLString

// pqNumbers compares numbers as numbers.
var pqNumbers = cmp.Transformer("number", func(n json.Number) string {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return "not a number: " + string(n)
	}
	return r.RatString()
})

// TestParquetDuckDBLegalGaps: the legal-gaps sample, converted to Parquet
// by DuckDB (an independent writer: strings, lists of strings and
// numbers, a list of structs), reads as the JSON Lines it came from.
func TestParquetDuckDBLegalGaps(t *testing.T) {
	t.Parallel()
	jsonl, err := filepath.Abs(filepath.Join("..", "testdata", "data", "legal-gaps", "examples.sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "examples.parquet")
	pqDuckDB(t, fmt.Sprintf("COPY (SELECT * FROM read_json_auto(%s)) TO %s (FORMAT parquet)", pqSQLString(jsonl), pqSQLString(p)))
	var want []*layout.Record
	index := 0
	if err := eachJSONL(jsonl, MaxRecordSize, &index, func(r *layout.Record) error {
		want = append(want, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := pqRead(t, p, tableOptions{needed: []string{"id", "generation", "cited_paragraphs"}, nested: map[string]bool{"cited_paragraphs": true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 5 {
		t.Fatalf("%d JSON Lines records", len(want))
	}
	if d := cmp.Diff(pqData(want), pqData(got), pqNumbers); d != "" {
		t.Errorf("Data (-JSON Lines +Parquet):\n%s", d)
	}
	cited := got[0].Data.(map[string]any)["cited_paragraphs"].([]any)
	if _, ok := cited[0].(map[string]any)["text"].(string); !ok || len(cited) < 2 {
		t.Errorf("cited_paragraphs: %v", cited)
	}
}

// TestParquetDuckDBTypes: the types DuckDB writes (dates, timestamps in
// each unit, with and without a zone, decimals in INT32, INT64 and
// FIXED_LEN_BYTE_ARRAY, maps, blobs, UUIDs, times, unsigned and small
// integers, enums, nested lists and structs, infinities) map as the table
// in parquet.go says.
func TestParquetDuckDBTypes(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "types.parquet")
	pqDuckDB(t, `COPY (SELECT
	  DATE '2024-01-31' AS d,
	  TIMESTAMP '2024-01-31 13:45:00.5' AS ts,
	  TIMESTAMPTZ '2024-01-31 13:45:00.5+00' AS tstz,
	  TIMESTAMP_MS '2024-01-31 13:45:00.5' AS tsms,
	  TIMESTAMP_NS '2024-01-31 13:45:00.000000001' AS tsns,
	  12.34::DECIMAL(4,2) AS dec32,
	  12.34::DECIMAL(10,2) AS dec64,
	  -0.05::DECIMAL(38,3) AS dec128,
	  MAP {'b': 2, 'a': 1} AS m,
	  '\xAA\xBB'::BLOB AS blob,
	  0.5::DOUBLE AS x,
	  0.1::FLOAT AS y,
	  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID AS u,
	  TIME '13:45:00.25' AS tm,
	  [1, NULL, 3] AS li,
	  {'k': 'v', 'n': NULL} AS st,
	  NULL::VARCHAR AS nul,
	  255::UTINYINT AS ut,
	  18446744073709551615::UBIGINT AS ub,
	  -3::TINYINT AS ti,
	  true AS b,
	  'x'::ENUM('x', 'y') AS e,
	  [[1, 2], [3], []] AS ll,
	  [{'a': [1]}, NULL] AS ls,
	  'inf'::DOUBLE AS inf,
	  'héllo' AS s
	) TO `+pqSQLString(p)+` (FORMAT parquet)`)
	recs, err := pqRead(t, p, tableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := func(s string) json.Number { return json.Number(s) }
	want := []any{map[string]any{
		"d": "2024-01-31", "ts": "2024-01-31T13:45:00.5", "tstz": "2024-01-31T13:45:00.5Z",
		"tsms": "2024-01-31T13:45:00.5", "tsns": "2024-01-31T13:45:00.000000001",
		"dec32": n("12.34"), "dec64": n("12.34"), "dec128": n("-0.050"),
		"m": map[string]any{"a": n("1"), "b": n("2")}, "blob": "qrs=", "x": n("0.5"), "y": n("0.1"),
		"u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "tm": "13:45:00.25",
		"li": []any{n("1"), nil, n("3")}, "st": map[string]any{"k": "v", "n": nil}, "nul": nil,
		"ut": n("255"), "ub": n("18446744073709551615"), "ti": n("-3"), "b": true, "e": "x",
		"ll":  []any{[]any{n("1"), n("2")}, []any{n("3")}, []any{}},
		"ls":  []any{map[string]any{"a": []any{n("1")}}, nil},
		"inf": "Infinity", "s": "héllo",
	}}
	if d := cmp.Diff(want, pqData(recs)); d != "" {
		t.Errorf("Data (-want +got):\n%s", d)
	}
	if got := string(recs[0].Raw); !strings.HasPrefix(got, `{"d":"2024-01-31","ts":`) || !strings.Contains(got, `"m":{"a":1,"b":2}`) {
		t.Errorf("Raw: %s", got)
	}
}

// pqProb is a problem as the tests compare it.
type pqProb struct {
	Line    int
	Message string
}

// pqProblems checks that err is Problems, each one malformed input in
// file p, and returns them.
func pqProblems(t *testing.T, p string, err error) []pqProb {
	t.Helper()
	var ps records.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error is %T, not Problems: %v", err, err)
	}
	var out []pqProb
	for _, pr := range ps {
		if pr.File != p || pr.Severity != records.Error || !errors.Is(pr, records.ErrMalformed) || strings.Contains(pr.Message, "\n") {
			t.Errorf("problem %+v: want a one-line ErrMalformed error in %s", *pr, p)
		}
		out = append(out, pqProb{pr.Line, pr.Message})
	}
	return out
}

// TestParquetColumns: a column the template needs is missing (the nearest
// named); a column the template reads a list or an object from is a
// scalar; a string column holding JSON text is decoded as CSV cells are,
// its bad text a problem at its row.
func TestParquetColumns(t *testing.T) {
	t.Parallel()
	p := pqWrite(t, pqRows())
	for _, tc := range []struct {
		name string
		opt  tableOptions
		want []pqProb
	}{
		{"missing, one close", tableOptions{needed: []string{"id", "ctied_paragraphs"}},
			[]pqProb{{0, `the file has no column "ctied_paragraphs", which the template reads; did you mean "cited_paragraphs"?`}}},
		{"missing, none close", tableOptions{needed: []string{"premise"}},
			[]pqProb{{0, `the file has no column "premise", which the template reads (its columns: id, count, score, ratio, gold, note, cited_paragraphs, labels, meta, created, day, blob, source)`}}},
		{"a scalar where the template reads a list", tableOptions{nested: map[string]bool{"count": true, "created": true, "cited_paragraphs": true, "labels": true, "meta": true, "source": true}},
			[]pqProb{{0, "column count is INT64; the template reads a list or an object there"},
				{0, "column created is TIMESTAMP (INT64); the template reads a list or an object there"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pqRead(t, p, tc.opt)
			if d := cmp.Diff(tc.want, pqProblems(t, p, err)); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}

	// A column's name with a control character in it is shown quoted.
	valid, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	odd := format.FileMetaData{Version: 1, Schema: []format.SchemaElement{{Name: "root", NumChildren: thrift.New(int32(2))},
		{Name: "ci\ntation", Type: thrift.New(format.ByteArray)}, {Name: "", Type: thrift.New(format.ByteArray)}}}
	oddPath := filepath.Join(t.TempDir(), "odd.parquet")
	if err := os.WriteFile(oddPath, pqWithFooter(valid, pqMarshal(t, &odd)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = pqRead(t, oddPath, tableOptions{needed: []string{"citation", "premise"}})
	if d := cmp.Diff([]pqProb{
		{0, `the file has no column "citation", which the template reads; did you mean "ci\ntation"?`},
		{0, `the file has no column "premise", which the template reads (its columns: "ci\ntation", "")`},
	}, pqProblems(t, oddPath, err)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}

	type jsonRow struct {
		ID    string `parquet:"id"`
		Cited string `parquet:"cited_paragraphs"`
		Blob  []byte `parquet:"blob"`
	}
	q := pqWrite(t, []jsonRow{
		{"a", `[{"citation": "564 F.3d 856", "text": "t", "n": 1.50}]`, []byte(`{"k": [1]}`)},
		{"b", `[{"citation": `, []byte(`{}`)},
		{"c", ``, []byte(`[]`)},
		{"d", `not JSON`, []byte(`{}`)},
	})
	opt := tableOptions{nested: map[string]bool{"cited_paragraphs": true, "blob": true}}
	_, err = pqRead(t, q, opt)
	want := []pqProb{
		{2, `row group 1, column cited_paragraphs: holds a list or an object for the template, as JSON text: unexpected EOF`},
		{4, `row group 1, column cited_paragraphs: holds a list or an object for the template, as JSON text: invalid character 'o' in literal null (expecting 'u')`},
	}
	if d := cmp.Diff(want, pqProblems(t, q, err)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	// The good rows alone.
	q = pqWrite(t, []jsonRow{{"a", `[{"citation": "564 F.3d 856", "text": "t", "n": 1.50}]`, []byte(`{"k": [1]}`)}, {"c", ``, []byte(`[]`)}})
	recs, err := pqRead(t, q, opt)
	if err != nil {
		t.Fatal(err)
	}
	wantData := []any{
		map[string]any{"id": "a", "cited_paragraphs": []any{map[string]any{"citation": "564 F.3d 856", "text": "t", "n": json.Number("1.50")}},
			"blob": map[string]any{"k": []any{json.Number("1")}}},
		map[string]any{"id": "c", "cited_paragraphs": "", "blob": []any{}},
	}
	if d := cmp.Diff(wantData, pqData(recs)); d != "" {
		t.Errorf("Data (-want +got):\n%s", d)
	}
	if got, want := string(recs[0].Raw), `{"id":"a","cited_paragraphs":[{"citation":"564 F.3d 856","n":1.50,"text":"t"}],"blob":{"k":[1]}}`; got != want {
		t.Errorf("Raw:\n got %s\nwant %s", got, want)
	}
}

// TestParquetRowTooLarge: a row over the limit is a problem at its line,
// naming the row group and row; reading goes on, every such row reported,
// and no record is given after the first problem.
func TestParquetRowTooLarge(t *testing.T) {
	t.Parallel()
	type row struct {
		ID   string   `parquet:"id"`
		Text string   `parquet:"text"`
		List []string `parquet:"list,list"`
	}
	long := strings.Repeat("x", 300)
	many := make([]string, 200)
	p := pqWrite(t, []row{{"a", "short", nil}, {"b", long, nil}, {"c", "short", nil}, {"d", "", many}, {"e", long, nil}},
		parquet.MaxRowsPerRowGroup(2))
	var got []string
	index := 0
	err := eachParquet(p, tableOptions{limit: 256}, &index, func(r *layout.Record) error {
		got = append(got, string(r.Raw))
		return nil
	})
	want := []pqProb{
		{2, "the row (row 2 of row group 1) is larger than the 256 bytes a record may be"},
		{4, "the row (row 2 of row group 2) is larger than the 256 bytes a record may be"},
		{5, "the row (row 1 of row group 3) is larger than the 256 bytes a record may be"},
	}
	if d := cmp.Diff(want, pqProblems(t, p, err)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`{"id":"a","text":"short","list":[]}`}, got); d != "" {
		t.Errorf("records given (-want +got):\n%s", d)
	}
}

// TestParquetNotRegular: a folder is refused as no regular file, as the
// other readers refuse it.
func TestParquetNotRegular(t *testing.T) {
	t.Parallel()
	_, err := pqRead(t, t.TempDir(), tableOptions{})
	if !errors.Is(err, boundedread.ErrNotRegular) {
		t.Errorf("got %v, want ErrNotRegular", err)
	}
}

// pqAllocated is the bytes f allocates.
func pqAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// pqMaxAlloc is what reading one of the damaged files of the tests may
// allocate: each claims gigabytes.
const pqMaxAlloc = 64 << 20

// pqFooterAt is where the footer of a Parquet file starts.
func pqFooterAt(b []byte) int {
	return len(b) - 8 - int(binary.LittleEndian.Uint32(b[len(b)-8:]))
}

// pqWithFooter is the file b with its footer replaced.
func pqWithFooter(b, footer []byte) []byte {
	out := append(bytes.Clone(b[:pqFooterAt(b)]), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

func pqMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := thrift.Marshal(&thrift.CompactProtocol{}, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pqUvarint(u uint64) []byte { return binary.AppendUvarint(nil, u) }

// TestParquetDamagedFiles: what is not Parquet, is cut off, or has a
// damaged footer is one problem saying so, found without allocating what
// the file claims.
func TestParquetDamagedFiles(t *testing.T) {
	valid, err := os.ReadFile(pqWrite(t, pqRows()))
	if err != nil {
		t.Fatal(err)
	}
	size := len(valid)
	footerAt := pqFooterAt(valid)
	hugeFooter := bytes.Clone(valid)
	binary.LittleEndian.PutUint32(hugeFooter[size-8:], 0xfffffff0)
	// A schema whose root claims a million columns, and one whose row
	// group lists no column chunk.
	claims := format.FileMetaData{Version: 1, Schema: []format.SchemaElement{{Name: "root", NumChildren: thrift.New(int32(1_000_000))},
		{Name: "a", Type: thrift.New(format.ByteArray)}}}
	// A schema whose root claims two columns, the first of them a group
	// claiming the one element left.
	runsOut := format.FileMetaData{Version: 1, Schema: []format.SchemaElement{{Name: "root", NumChildren: thrift.New(int32(2))},
		{Name: "g", NumChildren: thrift.New(int32(1))}, {Name: "a", Type: thrift.New(format.ByteArray)}}}
	// A column (not a group) annotated as a map.
	mapLeaf := format.FileMetaData{Version: 1, Schema: []format.SchemaElement{{Name: "root", NumChildren: thrift.New(int32(1))},
		{Name: "a", Type: thrift.New(format.ByteArray), LogicalType: format.LogicalType{Value: &format.MapType{}}}}}
	noChunks := format.FileMetaData{Version: 1, Schema: []format.SchemaElement{{Name: "root", NumChildren: thrift.New(int32(1))},
		{Name: "a", Type: thrift.New(format.ByteArray)}}, NumRows: 1 << 40, RowGroups: []format.RowGroup{{NumRows: 1 << 40}}}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "the file is empty; expected a Parquet file"},
		{"JSON", []byte(`{"id": "u1"}` + "\n"), "not a Parquet file: it does not start with PAR1, the mark of a Parquet file"},
		{"three bytes", []byte("PAR"), "the Parquet file is cut off: it has 3 bytes, too few for a Parquet file"},
		{"marks alone", []byte("PAR1PAR1"), "the Parquet file is cut off: it has 8 bytes, too few for a Parquet file"},
		{"cut in half", valid[:size/2], "the Parquet file is cut off or damaged: it does not end with PAR1, the mark after a Parquet file's footer"},
		{"last byte cut", valid[:size-1], "the Parquet file is cut off or damaged: it does not end with PAR1, the mark after a Parquet file's footer"},
		{"encrypted", append([]byte("PARE"), valid[4:]...), "the Parquet file is encrypted; annosheet reads unencrypted Parquet files"},
		{"footer claims 4 GiB", hugeFooter, fmt.Sprintf("the Parquet file is cut off or damaged: its footer claims 4294967280 bytes, and the file holds %d", size)},
		{"footer lists 2^30 columns", pqWithFooter(valid, append([]byte{0x29, 0xfc}, append(pqUvarint(1<<30), 0)...)),
			"the Parquet file's footer is damaged: it lists 1073741824 items in 1 bytes"},
		{"footer holds a 1 GiB text", pqWithFooter(valid, append([]byte{0x68}, append(pqUvarint(1<<30), 0)...)),
			"the Parquet file's footer is damaged: it holds 1073741824 bytes in 1"},
		{"footer nests 100 deep", pqWithFooter(valid, append(bytes.Repeat([]byte{0x1c}, 100), make([]byte, 101)...)),
			"the Parquet file's footer is damaged: its structures nest more than 32 deep"},
		{"footer garbage", pqWithFooter(valid, bytes.Repeat([]byte{0xff}, 40)),
			"the Parquet file's footer is damaged: it holds a value of unknown type 15"},
		{"footer cut", pqWithFooter(valid, valid[footerAt:size-9]),
			"the Parquet file's footer is damaged: it is cut off"},
		{"schema claims a million columns", pqWithFooter(valid, pqMarshal(t, &claims)),
			"the Parquet file's schema cannot be read: its root claims 1000000 fields, more than the schema has left"},
		{"schema runs out", pqWithFooter(valid, pqMarshal(t, &runsOut)),
			"the Parquet file's schema cannot be read: its fields claim more elements than it lists"},
		{"a map's type on a column", pqWithFooter(valid, pqMarshal(t, &mapLeaf)),
			"the Parquet file's schema cannot be read: column a has a group's type (MAP) on a value of type BYTE_ARRAY"},
		{"row group without chunks", pqWithFooter(valid, pqMarshal(t, &noChunks)),
			"row group 1: the footer lists 0 columns for it, and the schema has 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "in.parquet")
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			if n := pqAllocated(func() { _, err = pqRead(t, p, tableOptions{}) }); n > pqMaxAlloc {
				t.Errorf("allocated %d MiB", n>>20)
			}
			if d := cmp.Diff([]pqProb{{0, tc.want}}, pqProblems(t, p, err)); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

// pqPatchRaw rewrites page k (from 0) of column c in the first row group
// of the Parquet file p: edit is given the page's header and data as
// stored, and returns them changed. The footer's offsets follow the page.
func pqPatchRaw(t *testing.T, p string, c, k int, edit func(header, data []byte) ([]byte, []byte)) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	footerAt := pqFooterAt(b)
	var md format.FileMetaData
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, b[footerAt:len(b)-8], &md); err != nil {
		t.Fatal(err)
	}
	cc := &md.RowGroups[0].Columns[c].MetaData
	at := cc.DataPageOffset
	if cc.DictionaryPageOffset != 0 {
		at = cc.DictionaryPageOffset
	}
	var headerLen, dataLen int
	for i := 0; ; i++ {
		var h format.PageHeader
		r := bytes.NewReader(b[at:footerAt])
		if err := thrift.NewDecoder((&thrift.CompactProtocol{}).NewReader(r)).Decode(&h); err != nil {
			t.Fatal(err)
		}
		headerLen, dataLen = footerAt-int(at)-r.Len(), int(h.CompressedPageSize)
		if i == k {
			break
		}
		at += int64(headerLen + dataLen)
	}
	end := int(at) + headerLen + dataLen
	header, data := edit(bytes.Clone(b[at:int(at)+headerLen]), bytes.Clone(b[int(at)+headerLen:end]))
	shift := int64(len(header)+len(data)) - int64(headerLen+dataLen)
	out := append(bytes.Clone(b[:at]), header...)
	out = append(out, data...)
	out = append(out, b[end:footerAt]...)
	move := func(off *int64) {
		if *off > at {
			*off += shift
		}
	}
	for g := range md.RowGroups {
		rg := &md.RowGroups[g]
		move(&rg.FileOffset)
		for i := range rg.Columns {
			ch := &rg.Columns[i]
			move(&ch.FileOffset)
			move(&ch.OffsetIndexOffset)
			move(&ch.ColumnIndexOffset)
			m := &ch.MetaData
			move(&m.DataPageOffset)
			move(&m.DictionaryPageOffset)
			move(&m.IndexPageOffset)
			move(&m.BloomFilterOffset)
		}
	}
	cc.TotalCompressedSize += shift
	footer := pqMarshal(t, &md)
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	if err := os.WriteFile(p, append(out, "PAR1"...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pqPatch is pqPatchRaw with the header decoded: edit changes it and
// returns the page's data. The page's compressed size follows the data
// unless edit sets it.
func pqPatch(t *testing.T, p string, c, k int, edit func(h *format.PageHeader, data []byte) []byte) {
	t.Helper()
	pqPatchRaw(t, p, c, k, func(header, data []byte) ([]byte, []byte) {
		var h format.PageHeader
		if err := thrift.Unmarshal(&thrift.CompactProtocol{}, header, &h); err != nil {
			t.Fatal(err)
		}
		size := h.CompressedPageSize
		data = edit(&h, data)
		if h.CompressedPageSize == size {
			h.CompressedPageSize = int32(len(data))
		}
		h.CRC = 0
		return pqMarshal(t, &h), data
	})
}

// pqLevels replaces the levels at the start of a version 1 page's data.
func pqLevels(data, levels []byte) []byte {
	n := binary.LittleEndian.Uint32(data)
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(levels)))
	return append(append(out, levels...), data[4+n:]...)
}

// pqDeltaHeader is a DELTA_BINARY_PACKED header: blocks of 128 values in 4
// mini-blocks, total values, the first one.
func pqDeltaHeader(total uint64, first int64) []byte {
	b := binary.AppendUvarint(nil, 128)
	b = binary.AppendUvarint(b, 4)
	b = binary.AppendUvarint(b, total)
	return binary.AppendVarint(b, first)
}

// TestParquetDamagedPages: a page that claims more than a page may hold
// (in its header, in the runs of its levels or indexes, in its delta-coded
// counts and lengths, decompressed), or that a decompressor cannot read,
// is a problem naming the row group, the column and the page, found before
// parquet-go allocates what the page claims (or loops, or panics: its
// LZ4 decoder doubles its buffer forever on damaged data; its gzip
// decoder panics on a damaged header).
func TestParquetDamagedPages(t *testing.T) {
	type row struct {
		ID    string  `parquet:"id"`
		Note  *string `parquet:"note,optional"`
		Dict  string  `parquet:"dict,dict"`
		Delta int64   `parquet:"delta,delta"`
		Text  string  `parquet:"text,delta"`
	}
	note := "n"
	rows := []row{{"a", &note, "x", 1, "shared-1"}, {"b", nil, "y", 2, "shared-2"}}
	lotsOfRuns := []byte{0x80, 0x80, 0x80, 0x80, 0x08, 0x01} // 2^30 times the level 1
	for _, tc := range []struct {
		name    string
		codec   compress.Codec
		col, pg int
		edit    func(h *format.PageHeader, data []byte) []byte
		want    string
	}{
		{"2 GiB uncompressed", &parquet.Uncompressed, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			h.UncompressedPageSize = math.MaxInt32
			return d
		}, "row group 1, column id, page 1: the page is 2.0 GiB, more than the 128 MiB a page may be"},
		{"2^30 values", &parquet.Uncompressed, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			h.DataPageHeader.V.NumValues = 1 << 30
			return d
		}, "row group 1, column id, page 1: the page claims 1073741824 values, more than the 8388608 a page may hold"},
		{"past the chunk", &parquet.Uncompressed, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			h.CompressedPageSize = 1 << 20
			return d
		}, "row group 1, column id, page 1: the page runs past the end of the column's data: the file is damaged or cut off"},
		{"definition levels: 2^30 in a run", &parquet.Uncompressed, 1, 0, func(h *format.PageHeader, d []byte) []byte {
			return pqLevels(d, lotsOfRuns)
		}, "row group 1, column note, page 1: its definition levels: its runs hold 1073741824 values or more, for the 2 of the page"},
		{"definition levels (page v2): 2^30 in a run", &parquet.Uncompressed, 1, 0, func(h *format.PageHeader, d []byte) []byte {
			h.Type, h.DataPageHeaderV2 = format.DataPageV2, thrift.New(format.DataPageHeaderV2{NumValues: 2, NumRows: 2,
				Encoding: h.DataPageHeader.V.Encoding, DefinitionLevelsByteLength: int32(len(lotsOfRuns))})
			h.DataPageHeader = thrift.Null[format.DataPageHeader]{}
			return append(bytes.Clone(lotsOfRuns), d[4+binary.LittleEndian.Uint32(d):]...)
		}, "row group 1, column note, page 1: its definition levels: its runs hold 1073741824 values or more, for the 2 of the page"},
		{"dictionary indexes: 2^30 in a run", &parquet.Uncompressed, 2, 1, func(h *format.PageHeader, d []byte) []byte {
			return []byte{1, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00}
		}, "row group 1, column dict, page 2: its runs hold 1073741824 values or more, for the 2 of the page"},
		{"delta: 2^30 values", &parquet.Uncompressed, 3, 0, func(h *format.PageHeader, d []byte) []byte {
			return pqDeltaHeader(1<<30, 0)
		}, "row group 1, column delta, page 1: a delta-coded block claims 1073741824 values, more than the 2 the page has"},
		{"delta: prefixes of 1 GiB", &parquet.Uncompressed, 4, 0, func(h *format.PageHeader, d []byte) []byte {
			block := []byte{0, 0, 0, 0, 0} // min delta 0, four mini-blocks 0 bits wide
			prefixes := append(pqDeltaHeader(2, 1<<30), block...)
			suffixes := append(pqDeltaHeader(2, 0), block...)
			return append(prefixes, suffixes...)
		}, "row group 1, column text, page 1: its values add up to 2.0 GiB, more than the 128 MiB a page may hold"},
		{"snappy: larger than declared", &parquet.Snappy, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			h.UncompressedPageSize = 1
			return d
		}, "row group 1, column id, page 1: it decompresses to more than the size it declares"},
		{"zstd: larger than declared", &parquet.Zstd, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			h.UncompressedPageSize = 1
			return d
		}, "row group 1, column id, page 1: it decompresses to more than the size it declares"},
		{"gzip: larger than declared", &parquet.Gzip, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			h.UncompressedPageSize = 1
			return d
		}, "row group 1, column id, page 1: it decompresses to more than the size it declares"},
		{"brotli: larger than declared", &parquet.Brotli, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			h.UncompressedPageSize = 1
			return d
		}, "row group 1, column id, page 1: it decompresses to more than the size it declares"},
		{"gzip: not gzip", &parquet.Gzip, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			return []byte("not gzip at all")
		}, "row group 1, column id, page 1: cannot decompress the page (GZIP): gzip: invalid header"},
		{"lz4: damaged", &parquet.Lz4Raw, 0, 0, func(h *format.PageHeader, d []byte) []byte {
			return bytes.Repeat([]byte{0xff}, 16)
		}, "row group 1, column id, page 1: cannot decompress the page (LZ4_RAW): it is damaged, or larger than the size it declares"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pqWrite(t, rows, parquet.Compression(tc.codec), parquet.DataPageVersion(1))
			pqPatch(t, p, tc.col, tc.pg, tc.edit)
			var err error
			if n := pqAllocated(func() { _, err = pqRead(t, p, tableOptions{}) }); n > pqMaxAlloc {
				t.Errorf("allocated %d MiB", n>>20)
			}
			if d := cmp.Diff([]pqProb{{0, tc.want}}, pqProblems(t, p, err)); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}

	// A page header with a field claiming 1 GiB (an unknown one: a known
	// one, a statistic, parquet-go would allocate).
	p := pqWrite(t, rows)
	pqPatchRaw(t, p, 0, 0, func(header, data []byte) ([]byte, []byte) {
		field := append([]byte{0x08, 0x28}, pqUvarint(1<<30)...) // field 20, binary
		return append(append(header[:len(header)-1:len(header)-1], field...), 0), data
	})
	var err error
	if n := pqAllocated(func() { _, err = pqRead(t, p, tableOptions{}) }); n > pqMaxAlloc {
		t.Errorf("allocated %d MiB", n>>20)
	}
	got := pqProblems(t, p, err)
	if len(got) != 1 || !strings.HasPrefix(got[0].Message, "row group 1, column id, page 1: the page header is damaged: it holds 1073741824 bytes in ") {
		t.Errorf("problems: %v", got)
	}
}
