package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/fuzzdata"
)

// fuzzRead writes data to dir/name and reads it whole. Each fuzzing
// process runs its inputs one at a time, so one folder serves them all.
func fuzzRead(t *testing.T, dir, format, name string, data []byte) (string, []*layout.Record, error) {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(format, []string{p})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	recs, err := inputReadAll(src)
	return p, recs, err
}

// fuzzCheckRecords checks the properties every successful read has.
func fuzzCheckRecords(t *testing.T, p string, data []byte, recs []*layout.Record, strictlyIncreasing bool) {
	t.Helper()
	n := inputLines(data)
	prev := 0
	for i, r := range recs {
		if r.Index != i || r.File != p {
			t.Fatalf("record %d: Index %d, File %q", i, r.Index, r.File)
		}
		if r.Line < 1 || r.Line > n {
			t.Fatalf("record %d: Line %d, outside 1..%d", i, r.Line, n)
		}
		if r.Line < prev || strictlyIncreasing && r.Line == prev {
			t.Fatalf("record %d: Line %d after Line %d", i, r.Line, prev)
		}
		prev = r.Line
	}
}

// fuzzCheckProblems checks the properties every failed read has: the error
// is Problems, each one malformed input at a line of the file.
func fuzzCheckProblems(t *testing.T, p string, data []byte, err error) records.Problems {
	t.Helper()
	ps, ok := err.(records.Problems)
	if !ok {
		t.Fatalf("error is %T, not Problems: %v", err, err)
	}
	if len(ps) == 0 || len(ps) > records.MaxErrors {
		t.Fatalf("%d problems", len(ps))
	}
	n := inputLines(data)
	for _, pr := range ps {
		if pr.Line < 1 || pr.Line > n || pr.Err != records.ErrMalformed || pr.File != p || pr.Severity != records.Error || pr.Message == "" {
			t.Fatalf("problem %+v: want an ErrMalformed error at %s:1..%d", *pr, p, n)
		}
	}
	return ps
}

// fuzzLineOf is the 1-based line of byte offset off.
func fuzzLineOf(data []byte, off int) int {
	return bytes.Count(data[:min(off, len(data))], []byte{'\n'}) + 1
}

func FuzzJSONL(f *testing.F) {
	f.Add(fuzzdata.Snippet(f, "mqm/segments.jsonl", 1000, true))
	f.Add(fuzzdata.Snippet(f, "factgenie-d2t/outputs.jsonl", 800, true))
	f.Add(fuzzdata.Snippet(f, "factgenie-d2t/evaluators/llama3-3/annotations.jsonl", 1500, true))
	f.Add(fuzzdata.Snippet(f, "legal-gaps/examples.sample.jsonl", 600, false))
	f.Add([]byte("\xef\xbb\xbf{\"a\":1}\r\n\r\n{\"a\":\"x\\u00e9\"}\r\n"))
	f.Add([]byte("{\"a\":1}\n{\"a\":\n\n[1,2]\n\"s\" 2\n"))
	f.Add([]byte("{\"s\":\"a\xffb\"}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, recs, err := fuzzRead(t, dir, "jsonl", "in.jsonl", data)
		if err != nil {
			ps := fuzzCheckProblems(t, p, data, err)
			lines := bytes.Split(bytes.TrimPrefix(data, utf8BOM), []byte{'\n'})
			for i, pr := range ps {
				if i > 0 && pr.Line <= ps[i-1].Line {
					t.Fatalf("problems out of line order: %d after %d", pr.Line, ps[i-1].Line)
				}
				if l := bytes.TrimSpace(lines[pr.Line-1]); json.Valid(l) {
					t.Fatalf("line %d %q is one JSON value, yet reported: %s", pr.Line, l, pr.Message)
				}
			}
			// Records after the first bad line are held back.
			for _, r := range recs {
				if r.Line >= ps[0].Line {
					t.Fatalf("record at line %d given after the problem at line %d", r.Line, ps[0].Line)
				}
			}
			return
		}
		fuzzCheckRecords(t, p, data, recs, true)
		checkSpool(t, "jsonl", []string{p}, recs, rand.New(rand.NewPCG(uint64(len(data)), 1)))
		// Every line that is not blank holds exactly one JSON value, and
		// it is the record of that line.
		lines := bytes.Split(bytes.TrimPrefix(data, utf8BOM), []byte{'\n'})
		k := 0
		for i, l := range lines {
			l = bytes.TrimSpace(l)
			if len(l) == 0 {
				continue
			}
			if !json.Valid(l) {
				t.Fatalf("line %d %q is not one JSON value, yet it was read", i+1, l)
			}
			if k >= len(recs) || recs[k].Line != i+1 {
				t.Fatalf("no record for line %d", i+1)
			}
			if recs[k].InvalidUTF8 != !utf8.Valid(l) {
				t.Fatalf("line %d: InvalidUTF8 = %v", i+1, recs[k].InvalidUTF8)
			}
			k++
		}
		if k != len(recs) {
			t.Fatalf("%d records from %d lines", len(recs), k)
		}
	})
}

func FuzzJSON(f *testing.F) {
	f.Add(fuzzdata.Snippet(f, "qa-feedback/dev_feedback.sample.json", 1200, false))
	f.Add(fuzzdata.Snippet(f, "preference/preference_json_1.json", 900, false))
	f.Add([]byte("[\n  {\"id\": \"a\"},\n  {\"id\": \"b\",\n   \"n\": tru},\n  {\"id\": \"c\"}\n]\n"))
	f.Add([]byte("{\n  \"x1\": {\"text\": \"a\"},\n  \"x2\": [1,\n 2], \"x3\": null\n}\n"))
	f.Add([]byte("[1, \"s\", {\"a\": [true, false]}, -2.5e3]"))
	f.Add([]byte("[\n  {\"s\": \"a\xffb\"}\n]\n"))
	f.Add([]byte("[1]\n[2]\n"))
	f.Add([]byte("  \n\"scalar\"\n"))
	f.Add([]byte(""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, recs, err := fuzzRead(t, dir, "json", "in.json", data)
		first := bytes.TrimLeft(data, " \t\r\n")
		container := len(first) > 0 && (first[0] == '[' || first[0] == '{')
		if err != nil {
			ps := fuzzCheckProblems(t, p, data, err)
			if len(ps) != 1 {
				t.Fatalf("%d problems, want the one that stopped reading", len(ps))
			}
			if json.Valid(data) && container {
				t.Fatalf("valid JSON %s rejected: %v", data, err)
			}
			// A syntax error inside the array or object is reported at
			// the line of the byte that is wrong.
			var se *json.SyntaxError
			var v any
			if container && errors.As(json.Unmarshal(data, &v), &se) && !strings.Contains(se.Error(), "after top-level value") && se.Offset < int64(len(data)) {
				if want := fuzzLineOf(data, int(se.Offset)-1); ps[0].Line != want {
					t.Fatalf("%v: reported at line %d, the bad byte (offset %d) is on line %d", ps[0].Message, ps[0].Line, se.Offset-1, want)
				}
			}
			return
		}
		fuzzCheckRecords(t, p, data, recs, false)
		checkSpool(t, "json", []string{p}, recs, rand.New(rand.NewPCG(uint64(len(data)), 1)))
		if !json.Valid(data) || !container {
			t.Fatalf("%q is not a JSON array or object, yet it was read", data)
		}
		// As many records as elements or members, each starting on its
		// line.
		d := json.NewDecoder(bytes.NewReader(data))
		open, _ := d.Token()
		count := 0
		for d.More() {
			if open == json.Delim('{') {
				if _, err := d.Token(); err != nil {
					t.Fatal(err)
				}
			}
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			if count < len(recs) {
				lines := bytes.Split(data, []byte{'\n'})
				if l := recs[count].Line; !bytes.Contains(lines[l-1], raw[:1]) {
					t.Fatalf("record %d said to start on line %d %q, which lacks its first byte %q", count, l, lines[l-1], raw[:1])
				}
			}
			count++
		}
		if count != len(recs) {
			t.Fatalf("%d records, the file has %d", len(recs), count)
		}
	})
}

// FuzzRecordBudget: read with a record limit, a file gives the records it
// gives without one, each within the limit; or it stops at a record over
// the limit, with a problem saying so at a line where the file does go
// over it; or it has the problems it has without a limit.
func FuzzRecordBudget(f *testing.F) {
	f.Add([]byte("{\"id\": \"a\"}\n{\"id\": \"bbbbb\"}\n"), false, uint16(14))
	f.Add([]byte("\xef\xbb\xbf{\"id\": \"a\"}\r\n{oops}\n"), false, uint16(11))
	f.Add([]byte("[\n{\"id\": \"a\"},\n{\"id\": \"bbbbb\"}\n]"), true, uint16(14))
	f.Add([]byte("{\"k\": {\"a\": 1}, \"long key\": 2}"), true, uint16(8))
	f.Add(fuzzdata.Snippet(f, "mqm/segments.jsonl", 1000, true), false, uint16(200))
	f.Add(fuzzdata.Snippet(f, "qa-feedback/dev_feedback.sample.json", 1200, false), true, uint16(300))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool, limit uint16) {
		format := "jsonl"
		if isJSON {
			format = "json"
		}
		p := filepath.Join(dir, "in."+format)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		all, allErr := readLimited(p, format, MaxRecordSize)
		recs, err := readLimited(p, format, int64(limit))
		for i, r := range recs {
			if len(r.Raw) > int(limit) {
				t.Fatalf("record %d of %d bytes read within a limit of %d", i, len(r.Raw), limit)
			}
			if allErr == nil && (i >= len(all) || !bytes.Equal(r.Raw, all[i].Raw) || r.Line != all[i].Line || r.Key != all[i].Key) {
				t.Fatalf("record %d is not the one read without a limit", i)
			}
		}
		if err == nil {
			if allErr != nil || len(recs) != len(all) {
				t.Fatalf("%d records within the limit; without it %d and %v", len(recs), len(all), allErr)
			}
			return
		}
		ps := fuzzCheckProblems(t, p, data, err)
		over := ps[len(ps)-1]
		if !strings.HasSuffix(over.Message, " a record may be") {
			if allErr == nil || allErr.Error() != err.Error() {
				t.Fatalf("within the limit: %v; without it: %v", err, allErr)
			}
			return
		}
		if isJSON {
			if !jsonOverBudget(data, int64(limit)) && len(data) <= int(limit)+readSize {
				t.Fatalf("%s, but no record is over %d bytes", over, limit)
			}
			return
		}
		if line := bytes.Split(data, []byte{'\n'})[over.Line-1]; len(line) <= int(limit) {
			t.Fatalf("%s, but the line is %d bytes, within %d", over, len(line), limit)
		}
	})
}

// jsonOverBudget says whether the JSON array or object in data has, before
// any error, a record that with its key takes more than limit bytes.
func jsonOverBudget(data []byte, limit int64) bool {
	d := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	open, err := d.Token()
	if err != nil || (open != json.Delim('[') && open != json.Delim('{')) {
		return false
	}
	for d.More() {
		before := d.InputOffset()
		key := int64(0)
		if open == json.Delim('{') {
			if _, err := d.Token(); err != nil {
				return false
			}
			key = d.InputOffset() - before
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return false
		}
		if key+int64(len(raw)) > limit {
			return true
		}
	}
	return false
}
