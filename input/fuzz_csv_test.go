package input

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/fuzzdata"
)

// csvFuzzRow is a row as encoding/csv reads it from the whole file: its
// cells, the line it starts on and its size (from the start of that line
// to its end, less the line end); or bad, for a quote out of place.
type csvFuzzRow struct {
	cells []string
	line  int
	size  int64
	bad   bool
}

// csvFuzzRows reads every row of data with encoding/csv from memory, as
// the reference eachCSV is held to.
func csvFuzzRows(data []byte, comma rune) []csvFuzzRow {
	data = bytes.TrimPrefix(data, utf8BOM)
	lineStart := []int64{0}
	for i, b := range data {
		if b == '\n' {
			lineStart = append(lineStart, int64(i+1))
		}
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.FieldsPerRecord = comma, -1
	var rows []csvFuzzRow
	for {
		cells, err := r.Read()
		var pe *csv.ParseError
		switch {
		case errors.As(err, &pe):
			rows = append(rows, csvFuzzRow{line: pe.StartLine, bad: true})
			continue
		case err != nil:
			return rows
		}
		line, _ := r.FieldPos(0)
		end := r.InputOffset()
		size := end - lineStart[line-1]
		if row := data[lineStart[line-1]:end]; bytes.HasSuffix(row, []byte("\r\n")) {
			size -= 2
		} else if bytes.HasSuffix(row, []byte("\n")) {
			size--
		}
		rows = append(rows, csvFuzzRow{cells: cells, line: line, size: size})
	}
}

// FuzzCSV: whatever the file, eachCSV does not panic, gives records that
// are the rows encoding/csv reads from the whole file (the column "j" as
// JSON text, the others as text), and fails only with problems at lines of
// the file, each for a fault that the file has there.
func FuzzCSV(f *testing.F) {
	legal := fuzzdata.Snippet(f, "legal-gaps/examples.sample.jsonl", 700, false)
	f.Add([]byte("id,j,text\n1,\"[1,{\"\"a\"\":2.50}]\",\""+strings.ReplaceAll(string(legal), `"`, `""`)+"\"\n"), false, uint16(2000))
	f.Add(legal, false, uint16(200))
	f.Add([]byte("\xef\xbb\xbfid,text\r\na,\"x\r\ny\"\r\n\r\nb,007\r\n"), false, uint16(20))
	f.Add([]byte("id\tj\tnote\na\t{\"k\": [1, 2]}\tc,d\nb\t\"two\nlines\"\t\"say \"\"hi\"\"\"\n"), true, uint16(40))
	f.Add([]byte("id,text\na,b\nc,say \"hi\"\nd,\"x\"y\ne\nf,\"never\nclosed\n"), false, uint16(100))
	f.Add([]byte("id,,id\nbad\"row\n"), false, uint16(100))
	f.Add([]byte("id,j\na,[1] ]\nb,x\xffy\n"), false, uint16(100))
	f.Add([]byte("id,text\na,12345678\nb,123456789\n"), false, uint16(9))
	f.Add([]byte(""), true, uint16(0))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, tsv bool, limit16 uint16) {
		limit := int64(limit16) + 1
		name, comma := "in.csv", ','
		if tsv {
			name, comma = "in.tsv", '\t'
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opt := tableOptions{limit: limit, nested: map[string]bool{"j": true}, needed: []string{"id"}}
		var recs []*layout.Record
		index := 0
		err := eachCSV(p, comma, opt, &index, func(r *layout.Record) error {
			recs = append(recs, r)
			return nil
		})
		fuzzCheckRecords(t, p, data, recs, true)
		rows := csvFuzzRows(data, comma)
		if err != nil {
			ps := fuzzCheckProblems(t, p, data, err)
			for i, pr := range ps {
				if i > 0 && pr.Line < ps[i-1].Line {
					t.Fatalf("problems out of line order: %d after %d", pr.Line, ps[i-1].Line)
				}
			}
			for _, r := range recs {
				if r.Line >= ps[0].Line {
					t.Fatalf("record at line %d given after the problem at line %d", r.Line, ps[0].Line)
				}
			}
			if strings.HasPrefix(ps[0].Message, "the file is UTF-16 text") {
				return
			}
			csvFuzzSame(t, rows, recs)
			csvFuzzFault(t, data, rows, ps, limit)
			return
		}
		if len(rows) == 0 {
			if len(recs) > 0 {
				t.Fatalf("%d records from no rows", len(recs))
			}
			return
		}
		header := rows[0]
		if header.bad || header.size > limit || !slices.Contains(header.cells, "id") {
			t.Fatalf("header %+v read within a limit of %d", header, limit)
		}
		seen := map[string]bool{}
		for _, h := range header.cells {
			if strings.TrimSpace(h) == "" || seen[h] {
				t.Fatalf("header %q, with a name blank or twice, read", header.cells)
			}
			seen[h] = true
		}
		if len(recs) != len(rows)-1 {
			t.Fatalf("%d records from %d rows after the header", len(recs), len(rows)-1)
		}
		for _, row := range rows[1:] {
			if row.bad || len(row.cells) != len(header.cells) || row.size > limit {
				t.Fatalf("row at line %d (%d fields, %d bytes, bad quotes %v) read with a header of %d and a limit of %d",
					row.line, len(row.cells), row.size, row.bad, len(header.cells), limit)
			}
		}
		csvFuzzSame(t, rows, recs)
	})
}

// csvFuzzSame checks that the records are the rows after the header, in
// order: the same line, each cell its column's field (U+FFFD for each byte
// that is not UTF-8; the column "j" decoded as JSON), and Raw the same.
func csvFuzzSame(t *testing.T, rows []csvFuzzRow, recs []*layout.Record) {
	t.Helper()
	if len(recs) == 0 {
		return
	}
	header := rows[0].cells
	for i, r := range recs {
		row := rows[i+1]
		if row.line != r.Line {
			t.Fatalf("record %d on line %d, its row on line %d", i, r.Line, row.line)
		}
		data, ok := r.Data.(map[string]any)
		if !ok || len(data) != len(header) {
			t.Fatalf("record %d: %#v for the header %q", i, r.Data, header)
		}
		invalid := false
		for k, h := range header {
			h = string([]rune(h))
			cell := row.cells[k]
			if !utf8.ValidString(cell) {
				invalid = true
				cell = string([]rune(cell)) // U+FFFD for each byte that is not UTF-8
			}
			want := any(cell)
			if h == "j" && cell != "" {
				trimmed := strings.TrimRightFunc(cell, unicode.IsSpace)
				if !json.Valid([]byte(trimmed)) {
					t.Fatalf("record %d: column j %q is not JSON, yet it was read", i, cell)
				}
				d := json.NewDecoder(strings.NewReader(trimmed))
				d.UseNumber()
				if err := d.Decode(&want); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(data[h], want) {
				t.Fatalf("record %d, column %q: %#v, the cell is %q", i, h, data[h], row.cells[k])
			}
		}
		if r.InvalidUTF8 != invalid {
			t.Fatalf("record %d: InvalidUTF8 %v", i, r.InvalidUTF8)
		}
		back, p := decodeRecord(r.Raw, r.File, r.Line)
		if p != nil || !reflect.DeepEqual(back.Data, r.Data) {
			t.Fatalf("record %d: Raw %s is not its Data (%v)", i, r.Raw, p)
		}
	}
}

// csvFuzzFault checks that the first problem is a fault the file has at
// its line, as encoding/csv reads the whole file.
func csvFuzzFault(t *testing.T, data []byte, rows []csvFuzzRow, ps records.Problems, limit int64) {
	t.Helper()
	first := ps[0]
	var row *csvFuzzRow
	for i := range rows {
		if rows[i].line <= first.Line {
			row = &rows[i]
		}
	}
	if row == nil {
		t.Fatalf("%s, before the first row", first)
	}
	msg := first.Message
	switch {
	case strings.HasSuffix(msg, " a record may be"):
		if row.line != first.Line || row.size <= limit && len(data) <= int(limit)+readSize {
			t.Fatalf("%s, but the row on line %d is %d bytes", first, row.line, row.size)
		}
	case strings.HasPrefix(msg, csvBareQuote), strings.HasPrefix(msg, csvStrayQuote), strings.HasPrefix(msg, csvUnclosedQuote):
		if !row.bad {
			t.Fatalf("%s, but encoding/csv reads the row on line %d", first, row.line)
		}
	case strings.Contains(msg, " of the header "), strings.HasPrefix(msg, "the header has no column"):
		if row != &rows[0] {
			t.Fatalf("%s, but the header is on line %d", first, rows[0].line)
		}
	case strings.Contains(msg, ", the header has "):
		if row.line != first.Line || row.bad || len(row.cells) == len(rows[0].cells) {
			t.Fatalf("%s, but the row on line %d has %d fields, the header %d", first, row.line, len(row.cells), len(rows[0].cells))
		}
	case strings.HasPrefix(msg, `column "j" holds a list or an object`):
		if row.line != first.Line || row.bad {
			t.Fatalf("%s, but no such row", first)
		}
	default:
		t.Fatalf("unexpected problem: %s", first)
	}
}
