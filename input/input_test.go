package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// The helpers of this file are shared with factgenie_test.go and
// fuzz_test.go; all are prefixed with "input" to keep clear of other test
// files of the package.

// inputRec is the comparable form of a Record: Data as canonical JSON, File
// relative to the test's folder.
type inputRec struct {
	Index       int
	File        string
	Line        int
	Key         string
	InvalidUTF8 bool
	Data        string
}

// inputProb is the comparable form of a Problem: Err by sentinel name, File
// relative to the test's folder.
type inputProb struct {
	Severity string
	File     string
	Line     int
	Sheet    string
	Cell     string
	Row      int
	Record   string
	Field    string
	Err      string
	Message  string
}

var inputSentinels = []struct {
	name string
	err  error
}{
	{"ErrMalformed", records.ErrMalformed},
	{"ErrMissingField", records.ErrMissingField},
	{"ErrDuplicateID", records.ErrDuplicateID},
	{"ErrBadValue", records.ErrBadValue},
	{"ErrTruncated", records.ErrTruncated},
	{"ErrReplaced", records.ErrReplaced},
}

// inputErrName names a problem's sentinel; it compares with ==, as a
// Problem's Err must be the sentinel itself.
func inputErrName(err error) string {
	if err == nil {
		return "<nil>"
	}
	for _, s := range inputSentinels {
		if err == s.err {
			return s.name
		}
	}
	return fmt.Sprintf("other(%v)", err)
}

// inputRel makes p relative to dir when it lies in it.
func inputRel(dir, p string) string {
	if dir != "" && strings.HasPrefix(p, dir+string(filepath.Separator)) {
		return filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
	}
	return p
}

// inputCanon renders a decoded value as canonical JSON (sorted keys,
// numbers as written).
func inputCanon(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return string(b)
}

// inputJSON canonicalises JSON text written in a test table.
func inputJSON(t testing.TB, s string) string {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("bad JSON in the test table %q: %v", s, err)
	}
	return inputCanon(t, v)
}

func inputRecs(t testing.TB, dir string, recs []*layout.Record) []inputRec {
	t.Helper()
	out := make([]inputRec, 0, len(recs))
	for _, r := range recs {
		out = append(out, inputRec{Index: r.Index, File: inputRel(dir, r.File), Line: r.Line, Key: r.Key, InvalidUTF8: r.InvalidUTF8, Data: inputCanon(t, r.Data)})
	}
	return out
}

func inputProbs(dir string, ps records.Problems) []inputProb {
	out := make([]inputProb, 0, len(ps))
	for _, p := range ps {
		out = append(out, inputProb{Severity: p.Severity, File: inputRel(dir, p.File), Line: p.Line, Sheet: p.Sheet, Cell: p.Cell, Row: p.Row,
			Record: p.Record, Field: p.Field, Err: inputErrName(p.Err), Message: p.Message})
	}
	return out
}

// inputDiff compares two slices of comparable forms in full, nil and
// empty alike, and returns cmp's (-want +got) diff or "".
func inputDiff[T any](want, got []T) string {
	return cmp.Diff(want, got, cmpopts.EquateEmpty())
}

// inputWriteFile writes content to dir/name and returns the path.
func inputWriteFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// inputReadAll collects the records of one Each.
func inputReadAll(src layout.Source) ([]*layout.Record, error) {
	var recs []*layout.Record
	err := src.Each(func(r *layout.Record) error {
		recs = append(recs, r)
		return nil
	})
	return recs, err
}

// inputSplitErr returns the problems of err; err must be nil or Problems.
func inputSplitErr(t testing.TB, dir string, err error) []inputProb {
	t.Helper()
	if err == nil {
		return nil
	}
	var ps records.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error is %T, not Problems: %v", err, err)
	}
	// errors.As could find Problems inside a wrapper; the error must be
	// the Problems value itself.
	if _, ok := err.(records.Problems); !ok {
		t.Errorf("error is %T wrapping Problems, want Problems itself", err)
	}
	return inputProbs(dir, ps)
}

type inputCase struct {
	name    string
	content string
	want    []inputRec  // records given to fn, File and Index filled in by the test
	probs   []inputProb // Severity, File and Err filled in by the test when empty
}

// inputRun reads content as the given format and compares everything.
func inputRun(t *testing.T, format, file string, c inputCase) {
	t.Helper()
	dir := t.TempDir()
	inputWriteFile(t, dir, file, c.content)
	src, err := Open(format, []string{filepath.Join(dir, file)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	recs, err := inputReadAll(src)
	want := make([]inputRec, len(c.want))
	for i, r := range c.want {
		r.Index = i
		r.File = file
		r.Data = inputJSON(t, r.Data)
		want[i] = r
	}
	if d := inputDiff(want, inputRecs(t, dir, recs)); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	wantProbs := make([]inputProb, len(c.probs))
	for i, p := range c.probs {
		if p.Severity == "" {
			p.Severity = records.Error
		}
		if p.File == "" {
			p.File = file
		}
		if p.Err == "" {
			p.Err = "ErrMalformed"
		}
		wantProbs[i] = p
	}
	gotProbs := inputSplitErr(t, dir, err)
	if d := inputDiff(wantProbs, gotProbs); d != "" {
		t.Errorf("problems (-want +got):\n%s\nerror: %v", d, err)
	}
	if len(wantProbs) > 0 && !errors.Is(err, records.ErrMalformed) {
		t.Errorf("errors.Is(err, ErrMalformed) = false for %v", err)
	}
}

func TestInputJSONL(t *testing.T) {
	tests := []inputCase{
		{
			name:    "two records, numbers kept as written",
			content: "{\"id\":\"a\",\"n\":2.50}\n{\"id\":\"b\",\"n\":12345678901234567890}\n",
			want: []inputRec{
				{Line: 1, Data: `{"id":"a","n":2.50}`},
				{Line: 2, Data: `{"id":"b","n":12345678901234567890}`},
			},
		},
		{
			name:    "no newline at the end",
			content: "{\"a\":1}\n{\"a\":2}",
			want:    []inputRec{{Line: 1, Data: `{"a":1}`}, {Line: 2, Data: `{"a":2}`}},
		},
		{
			name:    "blank and white space lines are skipped but counted",
			content: "\n{\"a\":1}\n\n   \t \n{\"a\":2}\n\n\n",
			want:    []inputRec{{Line: 2, Data: `{"a":1}`}, {Line: 5, Data: `{"a":2}`}},
		},
		{
			name:    "UTF-8 byte order mark",
			content: "\xef\xbb\xbf{\"a\":\"é\"}\n{\"a\":2}\n",
			want:    []inputRec{{Line: 1, Data: `{"a":"é"}`}, {Line: 2, Data: `{"a":2}`}},
		},
		{
			name:    "byte order mark on an otherwise blank first line",
			content: "\xef\xbb\xbf\r\n{\"a\":1}\r\n",
			want:    []inputRec{{Line: 2, Data: `{"a":1}`}},
		},
		{
			name:    "CRLF line ends",
			content: "{\"a\":1}\r\n\r\n{\"a\":\"x\\r\\ny\"}\r\n",
			want:    []inputRec{{Line: 1, Data: `{"a":1}`}, {Line: 3, Data: `{"a":"x\r\ny"}`}},
		},
		{
			name:    "any JSON value is a record",
			content: "[1,2]\n\"text\"\n7\nnull\ntrue\n",
			want: []inputRec{
				{Line: 1, Data: `[1,2]`}, {Line: 2, Data: `"text"`}, {Line: 3, Data: `7`},
				{Line: 4, Data: `null`}, {Line: 5, Data: `true`},
			},
		},
		{
			name:    "invalid UTF-8 inside a string",
			content: "{\"s\":\"ok\"}\n{\"s\":\"a\xffb\"}\n",
			want: []inputRec{
				{Line: 1, Data: `{"s":"ok"}`},
				{Line: 2, InvalidUTF8: true, Data: `{"s":"a\ufffdb"}`},
			},
		},
		{
			name:    "empty file",
			content: "",
		},
		{
			name:    "two values on a line",
			content: "{\"a\":1}\n{\"a\":2} {\"a\":3}\n",
			want:    []inputRec{{Line: 1, Data: `{"a":1}`}},
			probs: []inputProb{
				{Line: 2, Message: "more than one JSON value on the line (JSON Lines holds one record per line)"},
			},
		},
		{
			name: "every malformed line reported with its own line; records after the first bad line are held back",
			content: "{\"a\":1}\n" + // 1
				"{\"a\":\n" + // 2: cut off
				"{\"a\":2}\n" + // 3
				"not json\n" + // 4
				"\n" + // 5
				"[1,2,]\r\n" + // 6
				"{\"a\":3}\n" + // 7
				"{'a':4}\n", // 8
			want: []inputRec{{Line: 1, Data: `{"a":1}`}},
			probs: []inputProb{
				{Line: 2, Message: "invalid JSON: the value is cut off"},
				{Line: 4, Message: "invalid JSON: invalid character 'o' in literal null (expecting 'u')"},
				{Line: 6, Message: "invalid JSON: invalid character ']' looking for beginning of value"},
				{Line: 8, Message: "invalid JSON: invalid character '\\'' looking for beginning of object key string"},
			},
		},
		{
			name:    "a pretty-printed object is not JSON Lines",
			content: "{\n  \"a\": 1\n}\n",
			probs:   []inputProb{{Line: 1, Message: "this file holds one JSON value written over several lines (a JSON array, or pretty-printed JSON), and the template reads JSON Lines, one record per line: write one record per line, or give the template input.format: json"}},
		},
		{
			name:    "a JSON array over several lines is not JSON Lines",
			content: "[\n  {\"id\": \"a\"},\n  {\"id\": \"b\"}\n]\n",
			probs:   []inputProb{{Line: 1, Message: "this file holds one JSON value written over several lines (a JSON array, or pretty-printed JSON), and the template reads JSON Lines, one record per line: write one record per line, or give the template input.format: json"}},
		},
		{
			name:    "a bad first line that is not cut off is reported as it is",
			content: "{\"id\": }\n{\"id\": \"b\"}\n",
			probs:   []inputProb{{Line: 1, Message: "invalid JSON: invalid character '}' looking for beginning of value"}},
		},
		{
			name:    "UTF-16 with a byte order mark",
			content: "\xff\xfe{\x00\"\x00",
			probs:   []inputProb{{Line: 1, Message: "the file is UTF-16 text (as some Windows programs save it); save it as UTF-8 and try again"}},
		},
		{
			name:    "UTF-16 without one",
			content: "{\x00\"\x00i\x00d\x00",
			probs:   []inputProb{{Line: 1, Message: "the file is UTF-16 text (as some Windows programs save it); save it as UTF-8 and try again"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inputRun(t, "jsonl", "in.jsonl", tc)
		})
	}
}

// TestInputJSONLRejectsTrailingBrackets: a line that holds one JSON value
// followed by a stray closing bracket is not valid JSON and must be
// reported, not read as the value alone.
func TestInputJSONLRejectsTrailingBrackets(t *testing.T) {
	for _, line := range []string{
		`{"a":1}}`,
		`{"a":1}]`,
		`[1]]`,
		`"x"}`,
		`1 ]`,
		`0 }`, // found by FuzzJSONL
	} {
		t.Run(line, func(t *testing.T) {
			dir := t.TempDir()
			p := inputWriteFile(t, dir, "in.jsonl", "{\"ok\":true}\n"+line+"\n")
			src, err := Open("jsonl", []string{p})
			if err != nil {
				t.Fatal(err)
			}
			recs, err := inputReadAll(src)
			if d := inputDiff([]inputRec{{Index: 0, File: "in.jsonl", Line: 1, Data: `{"ok":true}`}}, inputRecs(t, dir, recs)); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			var ps records.Problems
			if !errors.As(err, &ps) {
				t.Fatalf("line %q was accepted (err = %v); want a Problems error for line 2", line, err)
			}
			if len(ps) != 1 || ps[0].Line != 2 || ps[0].Err != records.ErrMalformed || ps[0].File != p {
				t.Errorf("problems = %v; want one ErrMalformed problem at %s:2", ps, p)
			}
		})
	}
}

func TestInputJSONLMaxErrors(t *testing.T) {
	dir := t.TempDir()
	p := inputWriteFile(t, dir, "bad.jsonl", strings.Repeat("x\n", records.MaxErrors+50))
	src, err := Open("jsonl", []string{p})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := inputReadAll(src)
	if len(recs) != 0 {
		t.Errorf("got %d records, want none", len(recs))
	}
	var want []inputProb
	for line := 1; line <= records.MaxErrors; line++ {
		want = append(want, inputProb{Severity: records.Error, File: "bad.jsonl", Line: line, Err: "ErrMalformed",
			Message: "invalid JSON: invalid character 'x' looking for beginning of value"})
	}
	if d := inputDiff(want, inputSplitErr(t, dir, err)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
}

func TestInputJSON(t *testing.T) {
	tests := []inputCase{
		{
			name: "array pretty-printed over many lines",
			content: "[\n" + // 1
				"  {\n" + // 2
				"    \"id\": \"a\",\n" + // 3
				"    \"n\": 1.0\n" + // 4
				"  },\n" + // 5
				"  {\"id\": \"b\"},\n" + // 6
				"\n" + // 7
				"  {\n" + // 8
				"    \"id\": \"c\",\n" + // 9
				"    \"list\": [\n" + // 10
				"      1,\n" + // 11
				"      2\n" + // 12
				"    ]\n" + // 13
				"  }\n" + // 14
				"  ,\n" + // 15: comma on its own line
				"  \"s\", 7,\n" + // 16: two records on one line
				"  [\"x\",\n" + // 17
				"   \"y\"], null\n" + // 18
				"]\n", // 19
			want: []inputRec{
				{Line: 2, Data: `{"id":"a","n":1.0}`},
				{Line: 6, Data: `{"id":"b"}`},
				{Line: 8, Data: `{"id":"c","list":[1,2]}`},
				{Line: 16, Data: `"s"`},
				{Line: 16, Data: `7`},
				{Line: 17, Data: `["x","y"]`},
				{Line: 18, Data: `null`},
			},
		},
		{
			name:    "array on one line",
			content: `[{"id":"a"},{"id":"b"}]`,
			want:    []inputRec{{Line: 1, Data: `{"id":"a"}`}, {Line: 1, Data: `{"id":"b"}`}},
		},
		{
			name:    "first record on the line of the bracket",
			content: "[{\"id\": \"a\"},\n {\"id\": \"b\"}]\n",
			want:    []inputRec{{Line: 1, Data: `{"id":"a"}`}, {Line: 2, Data: `{"id":"b"}`}},
		},
		{
			name:    "CRLF line ends and leading blank lines",
			content: "\r\n\r\n[\r\n  {\"id\": \"a\"},\r\n  {\r\n    \"id\": \"b\"\r\n  }\r\n]\r\n",
			want:    []inputRec{{Line: 4, Data: `{"id":"a"}`}, {Line: 5, Data: `{"id":"b"}`}},
		},
		{
			name:    "empty array",
			content: "[\n]\n",
		},
		{
			name:    "empty object",
			content: " {} ",
		},
		{
			name: "object keyed by id",
			content: "{\n" + // 1
				"  \"x1\": {\n" + // 2
				"    \"text\": \"a\"\n" + // 3
				"  },\n" + // 4
				"  \"x2\": {\"text\": \"b\"},\n" + // 5
				"\n" + // 6
				"  \"x{3}\": [\n" + // 7
				"    1\n" + // 8
				"  ],\n" + // 9
				"  \"\": \"empty key\", \"x5\" : 5\n" + // 10
				"}\n", // 11
			want: []inputRec{
				{Line: 2, Key: "x1", Data: `{"text":"a"}`},
				{Line: 5, Key: "x2", Data: `{"text":"b"}`},
				{Line: 7, Key: "x{3}", Data: `[1]`},
				{Line: 10, Key: "", Data: `"empty key"`},
				{Line: 10, Key: "x5", Data: `5`},
			},
		},
		{
			name:    "invalid UTF-8 inside a string",
			content: "[\n  {\"s\": \"ok\"},\n  {\"s\": \"a\xffb\"},\n  {\"s\": \"c\"}\n]\n",
			want: []inputRec{
				{Line: 2, Data: `{"s":"ok"}`},
				{Line: 3, InvalidUTF8: true, Data: `{"s":"a\ufffdb"}`},
				{Line: 4, Data: `{"s":"c"}`},
			},
		},
		{
			name:    "empty file",
			content: "",
			probs:   []inputProb{{Line: 1, Message: "the file is empty; expected a JSON array or object of records"}},
		},
		{
			name:    "white space only",
			content: "\n \n\t\n",
			probs:   []inputProb{{Line: 1, Message: "the file is empty; expected a JSON array or object of records"}},
		},
		{
			name:    "top-level string",
			content: "\n\n  \"hello\"\n",
			probs:   []inputProb{{Line: 3, Message: "expected a JSON array of records or an object of records keyed by id"}},
		},
		{
			name:    "top-level number",
			content: "42",
			probs:   []inputProb{{Line: 1, Message: "expected a JSON array of records or an object of records keyed by id"}},
		},
		{
			name:    "top-level null",
			content: "\nnull\n",
			probs:   []inputProb{{Line: 2, Message: "expected a JSON array of records or an object of records keyed by id"}},
		},
		{
			name: "trailing garbage after the array",
			content: "[\n" + // 1
				"  {\"id\": \"a\"}\n" + // 2
				"]\n" + // 3
				"\n" + // 4
				"extra\n", // 5
			want:  []inputRec{{Line: 2, Data: `{"id":"a"}`}},
			probs: []inputProb{{Line: 5, Message: "unexpected data after the end of the JSON value"}},
		},
		{
			name:    "a second array after the first",
			content: "[1]\n[2]\n",
			want:    []inputRec{{Line: 1, Data: `1`}},
			probs:   []inputProb{{Line: 2, Message: jsonLinesAsJSON}},
		},
		{
			name:    "JSON Lines given as JSON",
			content: "{\"a\":1}\n{\"a\":2}\n",
			want:    []inputRec{{Line: 1, Key: "a", Data: `1`}},
			probs:   []inputProb{{Line: 2, Message: jsonLinesAsJSON}},
		},
		{
			name:    "a string after the object",
			content: "{\"a\":1}\n\n\"b\"\n",
			want:    []inputRec{{Line: 1, Key: "a", Data: `1`}},
			probs:   []inputProb{{Line: 3, Message: jsonLinesAsJSON}},
		},
		{
			name: "missing comma between records",
			content: "[\n" + // 1
				"  {\"id\": \"a\"}\n" + // 2
				"  {\"id\": \"b\"}\n" + // 3
				"]\n", // 4
			want:  []inputRec{{Line: 2, Data: `{"id":"a"}`}},
			probs: []inputProb{{Line: 3, Message: "invalid JSON: expected comma after array element"}},
		},
		{
			name: "trailing comma",
			content: "[\n" + // 1
				"  {\"id\": \"a\"},\n" + // 2
				"]\n", // 3
			want:  []inputRec{{Line: 2, Data: `{"id":"a"}`}},
			probs: []inputProb{{Line: 3, Message: "invalid JSON: invalid character ']' looking for beginning of value"}},
		},
		{
			name: "malformed record after the first",
			content: "[\n" + // 1
				"  {\"id\": \"a\"},\n" + // 2
				"  {\"id\": \"b\",\n" + // 3
				"   \"n\": tru},\n" + // 4
				"  {\"id\": \"c\"}\n" + // 5
				"]\n", // 6
			want:  []inputRec{{Line: 2, Data: `{"id":"a"}`}},
			probs: []inputProb{{Line: 4, Message: "invalid JSON: invalid character '}' in literal true (expecting 'e')"}},
		},
		{
			// The bad character opens line 12; ten records and their commas
			// come before it.
			name: "malformed record in the middle of an array",
			content: "[\n" + // 1
				"{\"id\":1},\n{\"id\":2},\n{\"id\":3},\n{\"id\":4},\n{\"id\":5},\n" + // 2-6
				"{\"id\":6},\n{\"id\":7},\n{\"id\":8},\n{\"id\":9},\n{\"id\":10},\n" + // 7-11
				"x{\"id\":11},\n" + // 12
				"{\"id\":12}\n" + // 13
				"]\n", // 14
			want: []inputRec{
				{Line: 2, Data: `{"id":1}`}, {Line: 3, Data: `{"id":2}`}, {Line: 4, Data: `{"id":3}`}, {Line: 5, Data: `{"id":4}`},
				{Line: 6, Data: `{"id":5}`}, {Line: 7, Data: `{"id":6}`}, {Line: 8, Data: `{"id":7}`}, {Line: 9, Data: `{"id":8}`},
				{Line: 10, Data: `{"id":9}`}, {Line: 11, Data: `{"id":10}`},
			},
			probs: []inputProb{{Line: 12, Message: "invalid JSON: invalid character 'x' looking for beginning of value"}},
		},
		{
			// Found by FuzzJSON: the '[' before the bad byte is not counted.
			name:    "bad first element on the line after the bracket",
			content: "[\nA0",
			probs:   []inputProb{{Line: 2, Message: "invalid JSON: invalid character 'A' looking for beginning of value"}},
		},
		{
			name: "malformed value in an object keyed by id",
			content: "{\n" + // 1
				"  \"a\": {\"n\": 1},\n" + // 2
				"  \"b\": {\"n\": 2},\n" + // 3
				"  \"c\": {\n" + // 4
				"    \"n\": -\n" + // 5
				"  }\n" + // 6
				"}\n", // 7
			want:  []inputRec{{Line: 2, Key: "a", Data: `{"n":1}`}, {Line: 3, Key: "b", Data: `{"n":2}`}},
			probs: []inputProb{{Line: 5, Message: "invalid JSON: invalid character '\\n' in numeric literal"}},
		},
		{
			name: "key that is not a string",
			content: "{\n" + // 1
				"  \"a\": 1,\n" + // 2
				"  2: 3\n" + // 3
				"}\n", // 4
			want:  []inputRec{{Line: 2, Key: "a", Data: `1`}},
			probs: []inputProb{{Line: 3, Message: "invalid JSON: invalid character '2' looking for beginning of object key string"}},
		},
		{
			name: "file cut off in the middle of a record",
			content: "[\n" + // 1
				"  {\"id\": \"a\"},\n" + // 2
				"  {\"id\": \"b\",\n" + // 3: the record that is cut off starts here
				"   \"text\": \"cut off", // 4
			want:  []inputRec{{Line: 2, Data: `{"id":"a"}`}},
			probs: []inputProb{{Line: 3, Message: "invalid JSON: the file ends in the middle of this record"}},
		},
		{
			name: "array never closed",
			content: "[\n" + // 1
				"  {\"id\": \"a\"},\n" + // 2
				"  {\"id\": \"b\"}\n", // 3
			want:  []inputRec{{Line: 2, Data: `{"id":"a"}`}, {Line: 3, Data: `{"id":"b"}`}},
			probs: []inputProb{{Line: 3, Message: "invalid JSON: the file ends in the middle of a value"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inputRun(t, "json", "in.json", tc)
		})
	}
}

// TestInputJSONByteOrderMark: the JSON Lines reader skips a UTF-8 byte
// order mark (as RFC 8259 allows parsers to); the JSON reader must too, or
// a file saved by a Windows editor reads as "invalid character 'ï'".
func TestInputJSONByteOrderMark(t *testing.T) {
	inputRun(t, "json", "bom.json", inputCase{
		content: "\xef\xbb\xbf[\n  {\"id\": \"a\"},\n  {\"id\": \"b\"}\n]\n",
		want:    []inputRec{{Line: 2, Data: `{"id":"a"}`}, {Line: 3, Data: `{"id":"b"}`}},
	})
}

// TestInputJSONKeyInvalidUTF8: a key with bytes that are not UTF-8 is
// decoded with U+FFFD, a change that Record.InvalidUTF8 must report just as
// for the value, so that the build warns about it.
func TestInputJSONKeyInvalidUTF8(t *testing.T) {
	inputRun(t, "json", "keys.json", inputCase{
		content: "{\n  \"a\xffb\": {\"s\": \"ok\"}\n}\n",
		want:    []inputRec{{Line: 2, Key: "a\ufffdb", InvalidUTF8: true, Data: `{"s":"ok"}`}},
	})
}

// inputBigJSON writes n records in varied layouts, long enough to cross the
// decoder's buffer many times, and returns the start line of each.
func inputBigJSON(n int, keyed bool) (content string, want []inputRec) {
	var b strings.Builder
	lines := 1
	write := func(s string) {
		b.WriteString(s)
		lines += strings.Count(s, "\n")
	}
	if keyed {
		write("{")
	} else {
		write("[")
	}
	for i := range n {
		if i > 0 {
			if i%7 == 0 {
				write("\n  ,") // comma at the start of the next line
			} else {
				write(",")
			}
		}
		text := strings.Repeat("x{", (i*37)%1500) + `\n\"[` // braces and escapes in the text
		key := ""
		if keyed {
			key = "k" + strconv.Itoa(i)
		}
		keyText := func() {
			if keyed {
				write(strconv.Quote(key) + ": ")
			}
		}
		var value string
		switch i % 5 {
		case 0:
			write("\n  ")
			keyText()
			value = fmt.Sprintf(`{"id": %d, "text": "%s"}`, i, text)
		case 1:
			write(" ")
			keyText()
			value = fmt.Sprintf(`{"id":%d,"text":"%s"}`, i, text)
		case 2:
			write("\n  ")
			keyText()
			value = fmt.Sprintf("{\n    \"id\": %d,\n    \"text\": \"%s\"\n  }", i, text)
		case 3:
			write("\n\n\n\t")
			keyText()
			value = fmt.Sprintf("[%d,\n \"%s\"]", i, text)
		case 4:
			write("\r\n  ")
			keyText()
			value = strconv.Itoa(i)
		}
		want = append(want, inputRec{Index: i, Line: lines, Key: key, Data: value})
		write(value)
	}
	if keyed {
		write("\n}\n")
	} else {
		write("\n]\n")
	}
	return b.String(), want
}

// TestInputJSONLarge checks record lines across a large file, where the
// line counter forgets what lies behind the decoder.
func TestInputJSONLarge(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			content, want := inputBigJSON(3000, keyed)
			dir := t.TempDir()
			p := inputWriteFile(t, dir, "big.json", content)
			for i := range want {
				want[i].File = "big.json"
				want[i].Data = inputJSON(t, want[i].Data)
			}
			src, err := Open("json", []string{p})
			if err != nil {
				t.Fatal(err)
			}
			recs, err := inputReadAll(src)
			if err != nil {
				t.Fatalf("Each: %v", err)
			}
			if d := inputDiff(want, inputRecs(t, dir, recs)); d != "" {
				t.Errorf("records (-want +got):\n%.5000s", d)
			}
		})
	}
}

// TestInputJSONLargeMalformed puts a bad record after thousands of good
// ones; the problem must name the bad record's line.
func TestInputJSONLargeMalformed(t *testing.T) {
	content, good := inputBigJSON(2000, false)
	content = strings.TrimSuffix(content, "\n]\n")
	badLine := strings.Count(content, "\n") + 2
	content += ",\n  {\"id\": 2000,\n   \"text\": nope}\n]\n"
	badLine++ // "text" is on the line after the record's start
	dir := t.TempDir()
	p := inputWriteFile(t, dir, "big.json", content)
	src, err := Open("json", []string{p})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := inputReadAll(src)
	if len(recs) != len(good) {
		t.Errorf("got %d records before the bad one, want %d", len(recs), len(good))
	}
	want := []inputProb{{Severity: records.Error, File: "big.json", Line: badLine, Err: "ErrMalformed",
		Message: "invalid JSON: invalid character 'o' in literal null (expecting 'u')"}}
	if d := inputDiff(want, inputSplitErr(t, dir, err)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
}

// TestInputRealFiles reads the array and keyed-object samples of
// testdata/data and checks each record's line against the file's layout:
// the records of the array open with " {" at the start of a line, the
// keys of the object with ` "`.
func TestInputRealFiles(t *testing.T) {
	tests := []struct {
		file    string
		prefix  string // how the line of a record begins
		records int
	}{
		{"../testdata/data/qa-feedback/dev_feedback.sample.json", " {", 40},
		{"../testdata/data/preference/preference_json_1.json", ` "`, 10},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			raw, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			var wantLines, gotLines []int
			var wantKeys, gotKeys []string
			for i, l := range strings.Split(string(raw), "\n") {
				if strings.HasPrefix(l, tc.prefix) {
					wantLines = append(wantLines, i+1)
					if tc.prefix == ` "` {
						k, err := strconv.Unquote(l[1 : strings.LastIndex(l, `":`)+1])
						if err != nil {
							t.Fatalf("line %d: %v", i+1, err)
						}
						wantKeys = append(wantKeys, k)
					}
				}
			}
			if len(wantLines) != tc.records {
				t.Fatalf("the layout finds %d records, want %d", len(wantLines), tc.records)
			}
			src, err := Open("auto", []string{tc.file})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = src.Each(func(r *layout.Record) error {
				if r.Index != n || r.File != tc.file || r.InvalidUTF8 {
					t.Errorf("record %d: Index %d, File %q, InvalidUTF8 %v", n, r.Index, r.File, r.InvalidUTF8)
				}
				if _, ok := r.Data.(map[string]any); !ok {
					t.Errorf("record %d is %T, want an object", n, r.Data)
				}
				n++
				gotLines = append(gotLines, r.Line)
				if r.Key != "" {
					gotKeys = append(gotKeys, r.Key)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := inputDiff(wantLines, gotLines); d != "" {
				t.Errorf("lines (-want +got):\n%s", d)
			}
			if d := inputDiff(wantKeys, gotKeys); d != "" {
				t.Errorf("keys (-want +got):\n%s", d)
			}
		})
	}
}

func TestInputSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	files := []struct{ name, content string }{
		{"a.jsonl", "{\"f\":\"a\",\"i\":0}\n\n{\"f\":\"a\",\"i\":1}\n"},
		{"b.json", "[\n  {\"f\": \"b\", \"i\": 0},\n  {\"f\": \"b\", \"i\": 1}\n]\n"},
		{"c.json", "{\n  \"k\": {\"f\": \"c\"}\n}\n"},
		{"d.ndjson", "{\"f\":\"d\"}\n"},
		{"E.JSONL", "\n\n{\"f\":\"E\"}\n"},
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, inputWriteFile(t, dir, f.name, f.content))
	}
	src, err := Open("auto", paths)
	if err != nil {
		t.Fatal(err)
	}
	if d := inputDiff(paths, src.Files()); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
	want := []inputRec{
		{Index: 0, File: "a.jsonl", Line: 1, Data: `{"f":"a","i":0}`},
		{Index: 1, File: "a.jsonl", Line: 3, Data: `{"f":"a","i":1}`},
		{Index: 2, File: "b.json", Line: 2, Data: `{"f":"b","i":0}`},
		{Index: 3, File: "b.json", Line: 3, Data: `{"f":"b","i":1}`},
		{Index: 4, File: "c.json", Line: 2, Key: "k", Data: `{"f":"c"}`},
		{Index: 5, File: "d.ndjson", Line: 1, Data: `{"f":"d"}`},
		{Index: 6, File: "E.JSONL", Line: 3, Data: `{"f":"E"}`},
	}
	for i := range want {
		want[i].Data = inputJSON(t, want[i].Data)
	}
	first, err := inputReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if d := inputDiff(want, inputRecs(t, dir, first)); d != "" {
		t.Errorf("first Each (-want +got):\n%s", d)
	}
	second, err := inputReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if d := inputDiff(want, inputRecs(t, dir, second)); d != "" {
		t.Errorf("second Each (-want +got):\n%s", d)
	}
	// Each reads the files again rather than keeping the records.
	inputWriteFile(t, dir, "d.ndjson", "{\"f\":\"d2\"}\n{\"f\":\"d3\"}\n")
	third, err := inputReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want[:5],
		inputRec{Index: 5, File: "d.ndjson", Line: 1, Data: `{"f":"d2"}`},
		inputRec{Index: 6, File: "d.ndjson", Line: 2, Data: `{"f":"d3"}`},
		inputRec{Index: 7, File: "E.JSONL", Line: 3, Data: `{"f":"E"}`})
	if d := inputDiff(want, inputRecs(t, dir, third)); d != "" {
		t.Errorf("Each after a file changed (-want +got):\n%s", d)
	}
}

// TestInputAutoFormat gives the same kind of content to auto under
// different names: only names ending in .jsonl or .ndjson (any case) are
// read as JSON Lines.
func TestInputAutoFormat(t *testing.T) {
	const lines = "{\"a\":1}\n{\"a\":2}\n"
	asJSONL := []inputRec{{Line: 1, Data: `{"a":1}`}, {Line: 2, Data: `{"a":2}`}}
	asJSON := []inputRec{{Line: 1, Key: "a", Data: `1`}}
	jsonProbs := []inputProb{{Line: 2, Message: jsonLinesAsJSON}}
	tests := []struct {
		file  string
		want  []inputRec
		probs []inputProb
	}{
		{"in.jsonl", asJSONL, nil},
		{"in.JSONL", asJSONL, nil},
		{"in.ndjson", asJSONL, nil},
		{"in.json", asJSON, jsonProbs},
		{"in.txt", asJSON, jsonProbs},
		{"in.jsonl.bak", asJSON, jsonProbs},
		{"jsonl", asJSON, jsonProbs},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			for _, format := range []string{"auto", ""} {
				inputRun(t, format, tc.file, inputCase{content: lines, want: tc.want, probs: tc.probs})
			}
		})
	}
}

func TestInputEachStopsOnError(t *testing.T) {
	stop := errors.New("stop here")
	tests := []struct {
		format, file, content string
	}{
		{"jsonl", "in.jsonl", "1\n2\n3\n"},
		{"json", "in.json", "[1, 2, 3]"},
		{"json", "in.json", `{"a": 1, "b": 2, "c": 3}`},
	}
	for _, tc := range tests {
		t.Run(tc.format+" "+tc.content, func(t *testing.T) {
			dir := t.TempDir()
			src, err := Open(tc.format, []string{inputWriteFile(t, dir, tc.file, tc.content)})
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			err = src.Each(func(r *layout.Record) error {
				calls++
				if r.Index == 1 {
					return stop
				}
				return nil
			})
			if err != stop {
				t.Errorf("Each returned %v, want the callback's error itself", err)
			}
			if calls != 2 {
				t.Errorf("callback called %d times, want 2", calls)
			}
		})
	}
}

// TestInputJSONLReadAhead reads JSON Lines longer than the batches they
// are decoded ahead in: every record comes once, in order, with its own
// line, blank lines passed over; a bad line stops the records but not the
// reading of the lines after it; and a callback that stops the reading
// part way stops it at once.
func TestInputJSONLReadAhead(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("\uFEFF")
	var lines []int
	for i := range 1000 {
		if i%7 == 3 {
			b.WriteString("  \n")
			continue
		}
		lines = append(lines, i+1)
		fmt.Fprintf(&b, `{"n": %d}`, i+1)
		if i < 999 {
			b.WriteString("\n")
		}
	}
	good := inputWriteFile(t, dir, "good.jsonl", b.String())
	src, err := Open("jsonl", []string{good})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := inputReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(lines) {
		t.Fatalf("%d records, want %d", len(recs), len(lines))
	}
	for k, r := range recs {
		n := r.Data.(map[string]any)["n"].(json.Number).String()
		if r.Index != k || r.Line != lines[k] || n != strconv.Itoa(lines[k]) {
			t.Fatalf("record %d: index %d, line %d, n %s; want line %d", k, r.Index, r.Line, n, lines[k])
		}
	}

	// A bad line late in the file, and another after it.
	content := strings.Replace(b.String(), `{"n": 700}`, `{"n": 700`, 1)
	content = strings.Replace(content, `{"n": 901}`, `nine hundred`, 1)
	bad := inputWriteFile(t, dir, "bad.jsonl", content)
	if src, err = Open("jsonl", []string{bad}); err != nil {
		t.Fatal(err)
	}
	recs, err = inputReadAll(src)
	if last := recs[len(recs)-1]; last.Line != 699 {
		t.Errorf("the last record is of line %d, want 699, the one before the bad line", last.Line)
	}
	var got []int
	for _, p := range inputSplitErr(t, dir, err) {
		got = append(got, p.Line)
	}
	if !slices.Equal(got, []int{700, 901}) {
		t.Errorf("problems on lines %v, want 700 and 901", got)
	}

	// Stopped by its callback in the first batch of many.
	many := inputWriteFile(t, dir, "many.jsonl", strings.Repeat(`{"n": 1}`+"\n", 20000))
	if src, err = Open("jsonl", []string{many}); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop here")
	calls := 0
	err = src.Each(func(*layout.Record) error {
		if calls++; calls == 10 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 10 {
		t.Errorf("Each: %v after %d calls, want the callback's error after 10", err, calls)
	}
}

func TestInputOpenErrors(t *testing.T) {
	dir := t.TempDir()
	file := inputWriteFile(t, dir, "ok.jsonl", "{}\n")
	missing := filepath.Join(dir, "missing.json")
	tests := []struct {
		name     string
		format   string
		paths    []string
		want     string
		notExist bool
	}{
		{"no paths", "auto", nil, "no input given", false},
		{"empty paths", "jsonl", []string{}, "no input given", false},
		{"missing file", "json", []string{file, missing}, "input: stat " + missing + ": no such file or directory", true},
		{"missing file, auto", "auto", []string{missing}, "input: stat " + missing + ": no such file or directory", true},
		{"folder as jsonl", "jsonl", []string{dir}, "input " + dir + ": is a folder; the jsonl format reads files", false},
		{"folder as json", "json", []string{file, dir}, "input " + dir + ": is a folder; the json format reads files", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := Open(tc.format, tc.paths)
			if err == nil {
				t.Fatalf("Open succeeded with %v", src.Files())
			}
			if err.Error() != tc.want {
				t.Errorf("error = %q, want %q", err, tc.want)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tc.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", got, tc.notExist)
			}
		})
	}
}

// TestInputUnknownFormat: a format that is none of the known ones fails,
// at the latest when the records are read, and names the format.
func TestInputUnknownFormat(t *testing.T) {
	dir := t.TempDir()
	p := inputWriteFile(t, dir, "in.yaml", "a: 1\n")
	src, err := Open("yaml", []string{p})
	if err == nil {
		var recs []*layout.Record
		recs, err = inputReadAll(src)
		if len(recs) != 0 {
			t.Errorf("got %d records from an unknown format", len(recs))
		}
	}
	if err == nil || !strings.Contains(err.Error(), `"yaml"`) {
		t.Errorf("error = %v, want one that names the format \"yaml\"", err)
	}
}

func TestInputBase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"data/in.jsonl", "data/in.jsonl"},
		{"in.json", "in.json"},
		{"/abs/path/in.json", "in.json"},
		{"/in.json", "in.json"},
	}
	for _, tc := range tests {
		if got := Base(filepath.FromSlash(tc.in)); got != filepath.FromSlash(tc.want) {
			t.Errorf("Base(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// inputLines counts the lines of data as the readers number them.
func inputLines(data []byte) int {
	return bytes.Count(data, []byte{'\n'}) + 1
}
