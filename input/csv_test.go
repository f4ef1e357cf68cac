package input

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/fifo"
)

// csvCase is a file read with eachCSV, and what it must give.
type csvCase struct {
	name    string
	tsv     bool // read with a tab for the comma, as in.tsv
	content string
	nested  []string
	needed  []string
	limit   int64       // MaxRecordSize when 0
	want    []inputRec  // records given to fn; Index and File filled in by the test
	probs   []inputProb // Severity, File and Err filled in by the test
}

// csvOptions are the table options of a case.
func csvOptions(limit int64, nested, needed []string) tableOptions {
	if limit == 0 {
		limit = MaxRecordSize
	}
	opt := tableOptions{limit: limit, nested: map[string]bool{}, needed: needed}
	for _, n := range nested {
		opt.nested[n] = true
	}
	return opt
}

// csvReadAll reads a file with eachCSV, the records' Index counted from
// first.
func csvReadAll(p string, comma rune, opt tableOptions, first int) ([]*layout.Record, error) {
	var recs []*layout.Record
	index := first
	err := eachCSV(p, comma, opt, &index, func(r *layout.Record) error {
		recs = append(recs, r)
		return nil
	})
	if index != first+len(recs) {
		return recs, errors.New("the index was not counted once a record")
	}
	return recs, err
}

func csvRun(t *testing.T, c csvCase) {
	t.Helper()
	file, comma := "in.csv", ','
	if c.tsv {
		file, comma = "in.tsv", '\t'
	}
	dir := t.TempDir()
	p := inputWriteFile(t, dir, file, c.content)
	recs, err := csvReadAll(p, comma, csvOptions(c.limit, c.nested, c.needed), 0)
	want := make([]inputRec, len(c.want))
	for i, r := range c.want {
		r.Index, r.File, r.Data = i, file, inputJSON(t, r.Data)
		want[i] = r
	}
	if d := inputDiff(want, inputRecs(t, dir, recs)); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	wantProbs := make([]inputProb, len(c.probs))
	for i, pr := range c.probs {
		pr.Severity, pr.File, pr.Err = records.Error, file, "ErrMalformed"
		wantProbs[i] = pr
	}
	if d := inputDiff(wantProbs, inputSplitErr(t, dir, err)); d != "" {
		t.Errorf("problems (-want +got):\n%s\nerror: %v", d, err)
	}
	if len(wantProbs) > 0 && !errors.Is(err, records.ErrMalformed) {
		t.Errorf("errors.Is(err, ErrMalformed) = false for %v", err)
	}
	// Raw is the record's Data as JSON, read back as the spool reads it.
	for _, r := range recs {
		back, p := decodeRecord(r.Raw, r.File, r.Line)
		if p != nil || inputCanon(t, back.Data) != inputCanon(t, r.Data) {
			t.Errorf("line %d: Raw %s is not the record's Data %s (%v)", r.Line, r.Raw, inputCanon(t, r.Data), p)
		}
	}
}

func TestCSV(t *testing.T) {
	t.Parallel()
	const paragraphs = `[{"citation":"564 F.3d 856","text":"The conflict \"acts as a tiebreaker\", it said.","score":2.50}]`
	quoted := `"` + strings.ReplaceAll(paragraphs, `"`, `""`) + `"`
	for _, c := range []csvCase{
		{
			name:    "a record per row, each column a field by its header",
			content: "id,text\na,hello\nb,world\n",
			want: []inputRec{
				{Line: 2, Data: `{"id":"a","text":"hello"}`},
				{Line: 3, Data: `{"id":"b","text":"world"}`},
			},
		},
		{
			name:    "scalar cells stay text, as written",
			content: "id,n,flag,none\n007,2.50,true,\n",
			nested:  []string{"other"},
			want:    []inputRec{{Line: 2, Data: `{"id":"007","n":"2.50","flag":"true","none":""}`}},
		},
		{
			name:    "quoted fields span lines and hold commas and doubled quotes",
			content: "id,text\na,\"line one\nline \"\"two\"\", with a comma\"\n\"b\",\"\"\n",
			want: []inputRec{
				{Line: 2, Data: `{"id":"a","text":"line one\nline \"two\", with a comma"}`},
				{Line: 4, Data: `{"id":"b","text":""}`},
			},
		},
		{
			name:    "CRLF line ends, inside a quoted field read as LF",
			content: "id,text\r\na,\"x\r\ny\"\r\nb,z\r\n",
			want: []inputRec{
				{Line: 2, Data: `{"id":"a","text":"x\ny"}`},
				{Line: 4, Data: `{"id":"b","text":"z"}`},
			},
		},
		{
			name:    "UTF-8 byte order mark",
			content: "\xef\xbb\xbfid,text\na,é\n",
			needed:  []string{"id"},
			want:    []inputRec{{Line: 2, Data: `{"id":"a","text":"é"}`}},
		},
		{
			name:    "blank lines are skipped but counted",
			content: "\nid\n\na\n\r\n\nb\n\n",
			want:    []inputRec{{Line: 4, Data: `{"id":"a"}`}, {Line: 7, Data: `{"id":"b"}`}},
		},
		{
			name:    "no line end at the end",
			content: "id,text\na,b",
			want:    []inputRec{{Line: 2, Data: `{"id":"a","text":"b"}`}},
		},
		{
			name:    "TSV: a tab for the comma, quotes as in CSV",
			tsv:     true,
			content: "id\ttext\tnote\na\t\"x\ty\"\tc,d\nb\t\"two\nlines\"\t\"say \"\"hi\"\"\"\n",
			want: []inputRec{
				{Line: 2, Data: `{"id":"a","text":"x\ty","note":"c,d"}`},
				{Line: 3, Data: `{"id":"b","text":"two\nlines","note":"say \"hi\""}`},
			},
		},
		{
			name:    "a nested column holds JSON text, decoded with its numbers as written",
			content: "id,cited_paragraphs,n\na," + quoted + ",007\n",
			nested:  []string{"cited_paragraphs"},
			want:    []inputRec{{Line: 2, Data: `{"id":"a","cited_paragraphs":` + paragraphs + `,"n":"007"}`}},
		},
		{
			name:    "bytes that are not UTF-8 become U+FFFD, one each",
			content: "id,text\na,x\xff\xfey\nb,ok\n",
			want: []inputRec{
				{Line: 2, InvalidUTF8: true, Data: `{"id":"a","text":"x\ufffd\ufffdy"}`},
				{Line: 3, Data: `{"id":"b","text":"ok"}`},
			},
		},
		{name: "an empty file has no records", content: "", needed: []string{"id"}},
		{name: "a byte order mark and blank lines alone have no records", content: "\xef\xbb\xbf\n\r\n"},
		{name: "a header alone has no records", content: "id,text\n", needed: []string{"id", "text"}},
		{
			name:    "a header alone is checked",
			content: "id,body\n",
			needed:  []string{"id", "text"},
			probs:   []inputProb{{Line: 1, Message: `the header has no column "text", which the template reads`}},
		},
		{
			name:    "a quote in an unquoted field; the rows after it are held back",
			content: "id,text\na,b\nc,say \"hi\"\nd,e\n",
			want:    []inputRec{{Line: 2, Data: `{"id":"a","text":"b"}`}},
			probs:   []inputProb{{Line: 3, Message: csvBareQuote}},
		},
		{
			name:    "a quote in an unquoted field, on the second line of its row",
			content: "id,text,x\na,\"one\ntwo\",th\"ree\n",
			probs:   []inputProb{{Line: 3, Message: csvBareQuote + " (in the row that starts on line 2)"}},
		},
		{
			name:    "a quote in a quoted field that is not doubled",
			content: "id,text\na,\"say \"hi\"\"\n",
			probs:   []inputProb{{Line: 2, Message: csvStrayQuote}},
		},
		{
			name:    "text after a closing quote, on the last line of the file",
			content: "id,text\na,\"x\ny\"z",
			probs:   []inputProb{{Line: 3, Message: csvStrayQuote + " (in the row that starts on line 2)"}},
		},
		{
			name:    "a quoted field never closed, at the line of its opening quote",
			content: "id,text\na,b\nc,\"never\nclosed\nd,e\n",
			want:    []inputRec{{Line: 2, Data: `{"id":"a","text":"b"}`}},
			probs:   []inputProb{{Line: 3, Message: csvUnclosedQuote}},
		},
		{
			name:    "a quoted field never closed, in a row that starts on an earlier line",
			content: "id,a,b\nx,\"ok\n\"\"still\"\"\",\"open\r\nmore\r\n",
			probs:   []inputProb{{Line: 3, Message: csvUnclosedQuote + " (in the row that starts on line 2)"}},
		},
		{
			name:    "a TSV field never closed",
			tsv:     true,
			content: "id\ttext\na\t\"b\t\"\"c\"\"\nd\te",
			probs:   []inputProb{{Line: 2, Message: csvUnclosedQuote}},
		},
		{
			name:    "too few fields and too many",
			content: "id,a,b,c,d,e\n1,2,3,4,5\n1,2,3,4,5,6\nlonely\n1,2,3,4,5,6,7\n",
			want:    nil,
			probs: []inputProb{
				{Line: 2, Message: "5 fields, the header has 6"},
				{Line: 4, Message: "1 field, the header has 6"},
				{Line: 5, Message: "7 fields, the header has 6"},
			},
		},
		{
			name:    "a column without a name",
			content: "id,,text\na,b,c\n",
			probs:   []inputProb{{Line: 1, Message: "column 2 of the header has no name"}},
		},
		{
			name:    "a header that ends with a comma",
			content: "id,text,\na,b,\n",
			probs:   []inputProb{{Line: 1, Message: "column 3 of the header has no name (does the line end with a comma?)"}},
		},
		{
			name:    "a TSV header that ends with a tab, and a name of white space alone",
			tsv:     true,
			content: "id\t \ttext\t\n",
			probs: []inputProb{
				{Line: 1, Message: "column 2 of the header has no name"},
				{Line: 1, Message: "column 4 of the header has no name (does the line end with a tab?)"},
			},
		},
		{
			name:    "a column named twice",
			content: "id,text,note,text\na,b,c,d\n",
			probs:   []inputProb{{Line: 1, Message: `columns 2 and 4 of the header are both named "text"`}},
		},
		{
			name:    "a column the template reads, missing, with the nearest named",
			content: "\nid,Txt,cited paragraphs,GOLD  Labels\na,b,c,d\n",
			needed:  []string{"id", "text", "cited_paragraphs", "gold labels", "target"},
			probs: []inputProb{
				{Line: 2, Message: `the header has no column "text", which the template reads (did you mean "Txt"?)`},
				{Line: 2, Message: `the header has no column "cited_paragraphs", which the template reads (did you mean "cited paragraphs"?)`},
				{Line: 2, Message: `the header has no column "gold labels", which the template reads (did you mean "GOLD  Labels"?)`},
				{Line: 2, Message: `the header has no column "target", which the template reads`},
			},
		},
		{
			name:    "a TSV file read as CSV",
			content: "id\ttext\na\tb\n",
			needed:  []string{"id"},
			probs: []inputProb{{Line: 1, Message: `the header has no column "id", which the template reads ` +
				`(the header is one column "id\ttext": the file looks separated by a tab, and it is read as separated by a comma)`}},
		},
		{
			name:    "a CSV file read as TSV",
			tsv:     true,
			content: "id,text\na,b\n",
			needed:  []string{"text"},
			probs: []inputProb{{Line: 1, Message: `the header has no column "text", which the template reads ` +
				`(the header is one column "id,text": the file looks separated by a comma, and it is read as separated by a tab)`}},
		},
		{
			name:    "every header problem at once, and the rows are not read",
			content: "id,,id\nbad\"row\n",
			needed:  []string{"text"},
			probs: []inputProb{
				{Line: 1, Message: "column 2 of the header has no name"},
				{Line: 1, Message: `columns 1 and 3 of the header are both named "id"`},
				{Line: 1, Message: `the header has no column "text", which the template reads`},
			},
		},
		{
			name:    "a quote out of place in the header",
			content: "id,\"text\nnote\n",
			probs:   []inputProb{{Line: 1, Message: csvUnclosedQuote}},
		},
		{
			name:    "a nested column that is not JSON",
			content: "id,cited_paragraphs\na,[]\nb,[1] ]\nc,\"[{\"\"a\"\":1}\"\n",
			nested:  []string{"cited_paragraphs"},
			want:    []inputRec{{Line: 2, Data: `{"id":"a","cited_paragraphs":[]}`}},
			probs: []inputProb{
				{Line: 3, Message: `column "cited_paragraphs" holds a list or an object for the template, as JSON text: unexpected "]" after the JSON value`},
				{Line: 4, Message: `column "cited_paragraphs" holds a list or an object for the template, as JSON text: unexpected EOF`},
			},
		},
		{
			name: "every bad row reported at once, each at its line",
			content: "id,text\n" + // 1
				"a,ok\n" + // 2
				"b\n" + // 3
				"c,x\"y\n" + // 4
				"d,\"two\n" + // 5
				"lines\"\n" + // 6
				"e,\"f\"g\n" + // 7
				"h,i,j\n", // 8
			want: []inputRec{{Line: 2, Data: `{"id":"a","text":"ok"}`}},
			probs: []inputProb{
				{Line: 3, Message: "1 field, the header has 2"},
				{Line: 4, Message: csvBareQuote},
				{Line: 7, Message: csvStrayQuote},
				{Line: 8, Message: "3 fields, the header has 2"},
			},
		},
		{
			name:    "UTF-16 text",
			content: "\xff\xfei\x00d\x00\n\x00",
			probs:   []inputProb{{Line: 1, Message: "the file is UTF-16 text (as some Windows programs save it); save it as UTF-8 and try again"}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			csvRun(t, c)
		})
	}
}

// TestCSVMaxErrors: problems stop at records.MaxErrors.
func TestCSVMaxErrors(t *testing.T) {
	t.Parallel()
	content := "id,text\n" + strings.Repeat("a,b,c\n", 2*records.MaxErrors)
	p := inputWriteFile(t, t.TempDir(), "in.csv", content)
	_, err := csvReadAll(p, ',', csvOptions(0, nil, nil), 0)
	var ps records.Problems
	if !errors.As(err, &ps) || len(ps) != records.MaxErrors {
		t.Fatalf("got %d problems (%v), want %d", len(ps), err, records.MaxErrors)
	}
	if last := ps[len(ps)-1]; last.Line != records.MaxErrors+1 || last.Message != "3 fields, the header has 2" {
		t.Errorf("last problem %v", last)
	}
}

// TestCSVIndex: records are numbered on from the index given, across
// files, and name their file.
func TestCSVIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := inputWriteFile(t, dir, "a.csv", "id\nx\ny\n")
	recs, err := csvReadAll(p, ',', csvOptions(0, nil, nil), 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.Index != 5+i || r.File != p {
			t.Errorf("record %d: Index %d, File %q", i, r.Index, r.File)
		}
	}
}

// TestCSVError: fn's error ends the reading and is returned as it is; a
// folder and a named pipe are refused, the pipe without waiting for a
// writer.
func TestCSVError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := inputWriteFile(t, dir, "a.csv", "id\nx\ny\n")
	stop := errors.New("stop")
	n := 0
	index := 0
	err := eachCSV(p, ',', csvOptions(0, nil, nil), &index, func(*layout.Record) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("got %v after %d records, want the error of fn after 1", err, n)
	}
	if err := eachCSV(dir, ',', csvOptions(0, nil, nil), &index, nil); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a folder: %v", err)
	}
	pipe := filepath.Join(dir, "pipe.csv")
	fifo.Make(t, pipe)
	fifo.Within(t, 10*time.Second, func() { err = eachCSV(pipe, ',', csvOptions(0, nil, nil), &index, nil) })
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("a named pipe: %v", err)
	}
}

// TestCSVBudget: a row over the limit (not counting its line end) is a
// problem at the line it starts on, after the bad rows before it, and
// ends the reading; a row at the limit is read.
func TestCSVBudget(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200<<10) // over the limit by more than a read
	for _, c := range []csvCase{
		{
			name:    "at the limit",
			content: "id,text\r\na,12345678\r\nb,\"123\n56\"\r\n",
			limit:   10,
			want:    []inputRec{{Line: 2, Data: `{"id":"a","text":"12345678"}`}, {Line: 3, Data: `{"id":"b","text":"123\n56"}`}},
		},
		{
			name:    "one over",
			content: "id,text\na,12345678\n\nb,123456789\nc,x\"y\n",
			limit:   10,
			want:    []inputRec{{Line: 2, Data: `{"id":"a","text":"12345678"}`}},
			probs:   []inputProb{{Line: 4, Message: "the row here is larger than the 10 bytes a record may be"}},
		},
		{
			name:    "over across lines, after a bad row",
			content: "id,text\na\"b,c\nd,\"12\n34\n56\"\ne,f\n",
			limit:   10,
			probs: []inputProb{
				{Line: 2, Message: csvBareQuote},
				{Line: 3, Message: "the row here is larger than the 10 bytes a record may be"},
			},
		},
		{
			name:    "the header over",
			content: "id,text,more\n",
			limit:   10,
			probs:   []inputProb{{Line: 1, Message: "the row here is larger than the 10 bytes a record may be"}},
		},
		{
			name:    "a quoted field far over and never closed",
			content: "id,text\na,b\n\nc,\"" + big,
			limit:   1 << 10,
			want:    []inputRec{{Line: 2, Data: `{"id":"a","text":"b"}`}},
			probs:   []inputProb{{Line: 4, Message: "the row here is larger than the 1 KiB a record may be"}},
		},
		{
			name:    "a line far over",
			tsv:     true,
			content: "id\ttext\na\t" + big + "\n",
			limit:   1 << 10,
			probs:   []inputProb{{Line: 2, Message: "the row here is larger than the 1 KiB a record may be"}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			csvRun(t, c)
		})
	}
}

// csvEndless is a file that never ends: a header, then a quoted field
// that is never closed, or a line that never ends. It counts what it
// gives.
type csvEndless struct {
	head  string
	fill  byte
	given int64
}

func (e *csvEndless) Read(p []byte) (int, error) {
	n := copy(p, e.head)
	e.head = e.head[n:]
	for i := n; i < len(p); i++ {
		p[i] = e.fill
	}
	e.given += int64(len(p))
	return len(p), nil
}

// TestCSVBounded: however long a row, no more than about the limit of it
// is read before the reading stops.
func TestCSVBounded(t *testing.T) {
	t.Parallel()
	const limit = 1 << 10
	for _, e := range []*csvEndless{
		{head: "id,text\na,\"", fill: 'x'},
		{head: "id,text\na,\"", fill: '\n'},
		{head: "id,text\na,", fill: 'x'},
		{head: "id,text", fill: 'x'},
		{head: "id,text\n", fill: '\n'}, // blank lines count with the row after them
	} {
		index := 0
		err := readCSV(e, "in.csv", ',', csvOptions(limit, nil, nil), &index, func(*layout.Record) error { return nil })
		var ps records.Problems
		if !errors.As(err, &ps) || len(ps) != 1 || !strings.HasSuffix(ps[0].Message, "the 1 KiB a record may be") {
			t.Errorf("%q then %q without end: %v", e.head, e.fill, err)
		}
		// A read past the limit, and what the bufio.Readers ahead of
		// encoding/csv's and its own hold.
		if most := int64(limit + readSize + 1<<16 + 4096 + 1<<16); e.given > most {
			t.Errorf("%q then %q without end: read %d bytes, more than %d", e.head, e.fill, e.given, most)
		}
	}
}

// TestCSVRoundTrip: the legal-gaps sample (nested cited paragraphs, a
// previous context of some 30,000 characters) written as CSV and TSV,
// its lists and objects as JSON text, reads back as the JSON Lines
// records: the same text, and the same nested values.
func TestCSVRoundTrip(t *testing.T) {
	t.Parallel()
	src, err := Open("jsonl", []string{filepath.Join("..", "testdata", "data", "legal-gaps", "examples.sample.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	want, err := inputReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 5 {
		t.Fatalf("%d records in the sample, want 5", len(want))
	}
	// The columns in the order of the first record's fields.
	var header []string
	d := json.NewDecoder(bytes.NewReader(want[0].Raw))
	d.Token()
	for d.More() {
		k, _ := d.Token()
		header = append(header, k.(string))
		var skip json.RawMessage
		d.Decode(&skip)
	}
	nested := map[string]bool{}
	for _, r := range want {
		for k, v := range r.Data.(map[string]any) {
			switch v.(type) {
			case map[string]any, []any:
				nested[k] = true
			}
		}
	}
	if !nested["cited_paragraphs"] || nested["previous_context"] {
		t.Fatalf("nested columns %v", nested)
	}
	for _, comma := range []rune{',', '\t'} {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.Comma, w.UseCRLF = comma, comma == ','
		w.Write(header)
		for _, r := range want {
			row := make([]string, len(header))
			for i, h := range header {
				switch v := r.Data.(map[string]any)[h].(type) {
				case string:
					row[i] = v
				case json.Number:
					row[i] = v.String()
				default:
					j, err := json.Marshal(v)
					if err != nil {
						t.Fatal(err)
					}
					row[i] = string(j)
				}
			}
			w.Write(row)
		}
		w.Flush()
		p := inputWriteFile(t, t.TempDir(), "legal-gaps"+map[rune]string{',': ".csv", '\t': ".tsv"}[comma], b.String())
		opt := csvOptions(0, nil, header)
		opt.nested = nested
		got, err := csvReadAll(p, comma, opt, 0)
		if err != nil {
			t.Fatalf("%q: %v", comma, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d records, want %d", comma, len(got), len(want))
		}
		line := 2
		for i, g := range got {
			if g.Line != line {
				t.Errorf("%q: record %d on line %d, want %d", comma, i, g.Line, line)
			}
			line += strings.Count(string(g.Raw), `\n`) + 1 // the record's line breaks, as JSON writes them
			wd, gd := want[i].Data.(map[string]any), g.Data.(map[string]any)
			if len(gd) != len(wd) {
				t.Errorf("%q: record %d has %d fields, want %d", comma, i, len(gd), len(wd))
			}
			for k, wv := range wd {
				gv := gd[k]
				if s, ok := wv.(string); ok && gv != s || !ok && !reflect.DeepEqual(gv, wv) {
					t.Errorf("%q: record %d, field %q: got %.80v, want %.80v", comma, i, k, gv, wv)
				}
			}
		}
		if n := len(want[2].Data.(map[string]any)["previous_context"].(string)); n < 28000 {
			t.Errorf("the longest previous context has %d bytes", n)
		}
	}
}

// TestCSVRowStartLines: each record's line is the line its row starts on,
// as the rows and the line breaks in their quoted fields say.
func TestCSVRowStartLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("id,text\n")
	line, want := 2, []int{}
	for i := range 50 {
		want = append(want, line)
		breaks := i % 4
		b.WriteString(strconv.Itoa(i) + `,"` + strings.Repeat("x\r\n", breaks) + "y\"\n")
		line += breaks + 1
		if i%7 == 0 {
			b.WriteString("\n")
			line++
		}
	}
	p := inputWriteFile(t, t.TempDir(), "in.csv", b.String())
	recs, err := csvReadAll(p, ',', csvOptions(0, nil, nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.Line != want[i] {
			t.Errorf("record %d on line %d, want %d", i, r.Line, want[i])
		}
	}
	// The file is read the same through any reads, however short.
	index := 0
	var again []int
	err = readCSV(iotest.OneByteReader(strings.NewReader(b.String())), "in.csv", ',', csvOptions(0, nil, nil), &index,
		func(r *layout.Record) error { again = append(again, r.Line); return nil })
	if err != nil || !reflect.DeepEqual(again, want) {
		t.Errorf("read a byte at a time: lines %v, %v", again, err)
	}
}
