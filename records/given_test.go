package records_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/recordtest"
)

// readGiven reads lines as the file given.jsonl.
func readGiven(tp *templates.Template, annotator string, lines ...string) (*records.Given, records.Problems) {
	return records.ReadGivenFrom(strings.NewReader(strings.Join(lines, "\n")+"\n"), "given.jsonl", tp, annotator)
}

// problemLines are problems as a user reads them.
func problemLines(ps records.Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Error()
	}
	return out
}

// with adds JSON fields to the end of a record's line.
func with(line, fields string) string {
	return strings.TrimSuffix(line, "}") + "," + fields + "}"
}

// TestReadGiven: the records with answers are kept typed, by unit, with
// their lines; those without are counted.
func TestReadGiven(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	path := filepath.Join(t.TempDir(), "prefill.jsonl")
	lines := []string{
		recordtest.Line("u1", "ak", "complete", `{"pick":"y","tags":["3","1"],"score":4}`),
		"",
		recordtest.Line("u2", "ak", "partial", `{"score":2.0}`),
		recordtest.Line("u3", "", "empty", `{}`),
		recordtest.Line("u4", "ak", "missing", `{}`),
		recordtest.Line("u5", "ak", "unreadable", `{}`),
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\r\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	g, ps := records.ReadGiven(context.Background(), path, tp, "")
	if len(ps) > 0 {
		t.Fatalf("problems:\n%v", ps)
	}
	src := records.RecordSource{Kind: "xlsx", File: "et-b01.xlsx", Sheet: "Annotate", Rows: []int{2}}
	base := records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: "et", Version: 2}, Batch: "b01", Annotator: "ak", Source: src, Problems: []records.UnitProblem{}}
	u1, u2 := base, base
	u1.Unit, u1.Item, u1.Status = "u1", "u1", records.StatusComplete
	u1.Values = map[string]any{"pick": "y", "tags": []string{"1", "3"}, "score": 4}
	u2.Unit, u2.Item, u2.Status = "u2", "u2", records.StatusPartial
	u2.Values = map[string]any{"score": 2}
	if g.Name != path || g.Annotator != "ak" || g.Skipped != 3 || g.Len() != 2 || !slices.Equal(g.Units(), []string{"u1", "u2"}) {
		t.Errorf("given %s of %s, %d skipped, units %v", g.Name, g.Annotator, g.Skipped, g.Units())
	}
	if diff := cmp.Diff(map[string]int{"u1": 1, "u2": 3}, g.Line); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	for _, want := range []*records.Annotation{&u1, &u2} {
		if diff := cmp.Diff(want, g.Record(want.Unit)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", want.Unit, diff)
		}
	}
	if g.Record("u9") != nil || g.Has("u9") || !g.Has("u1") {
		t.Error("a unit not given is given, or a given one is not")
	}
}

// TestReadGivenProblems: every problem of a file is found, each named by
// file and line, sorted by line; the reading goes on past bad lines.
func TestReadGivenProblems(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	ok := recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`)
	tests := []struct {
		name      string
		annotator string
		lines     []string
		want      []string
	}{
		{name: "not JSON", lines: []string{ok, `{"schema":`},
			want: []string{"given.jsonl:2: not a canonical record: unexpected EOF"}},
		{name: "two values on a line", lines: []string{ok + ok},
			want: []string{"given.jsonl:1: not a canonical record: more than one JSON value on the line"}},
		{name: "a key given twice", lines: []string{strings.Replace(ok, `"status":"complete"`, `"status":"empty","status":"complete"`, 1)},
			want: []string{`given.jsonl:1: not a canonical record: the key "status" is given twice`}},
		{name: "an answer given twice", lines: []string{recordtest.Line("u1", "ak", "complete", `{"pick":"y","pick":"n"}`)},
			want: []string{`given.jsonl:1: not a canonical record: the key "pick" is given twice in values`}},
		{name: "another schema", lines: []string{`{"schema":"x/1"}`},
			want: []string{`given.jsonl:1: not a canonical record: schema "x/1", want "annosheet.annotation/1" (is this the output of annosheet pull?)`}},
		{name: "another template version", lines: []string{ok, strings.Replace(recordtest.Line("u2", "ak", "complete", `{}`), `"version":2`, `"version":1`, 1)},
			want: []string{`given.jsonl:2: record "u2": not a canonical record: a record of template et version 1, not et version 2`}},
		{name: "another template", lines: []string{strings.Replace(ok, `"name":"et"`, `"name":"legal-gaps"`, 1)},
			want: []string{`given.jsonl:1: record "u1": not a canonical record: a record of template legal-gaps version 2, not et version 2`}},
		{name: "a code not among the options", lines: []string{ok, recordtest.Line("u2", "ak", "complete", `{"pick":"maybe"}`)},
			want: []string{`given.jsonl:2: record "u2": question "pick": "maybe" is not one of the codes "y", "n"`}},
		{name: "a scale of text", lines: []string{recordtest.Line("u2", "ak", "partial", `{"score":"abc"}`)},
			want: []string{`given.jsonl:1: record "u2": question "score": "abc" is not a whole number`}},
		{name: "a status the schema has not", lines: []string{recordtest.Line("u1", "ak", "done", `{"pick":"y"}`)},
			want: []string{`given.jsonl:1: record "u1": not a canonical record: status "done" is not one of complete, partial, empty, missing, unreadable`}},
		{name: "no unit ID", lines: []string{recordtest.Line("", "ak", "complete", `{"pick":"y"}`)},
			want: []string{`given.jsonl:1: not a canonical record: no unit ID`}},
		{name: "shuffled values", lines: []string{with(ok, `"shuffled":true`)},
			want: []string{`given.jsonl:1: record "u1": its values are in the order they were shown: pull it with the study's manifest first`}},
		{name: "opaque IDs", lines: []string{with(ok, `"opaque_ids":true`)},
			want: []string{`given.jsonl:1: record "u1": its IDs are the opaque ones its workbook shows: pull it with the study's manifest first`}},
		{name: "a unit twice, then thrice", lines: []string{ok, recordtest.Line("u2", "ak", "complete", `{"pick":"n"}`), ok, recordtest.Line("u1", "ak", "partial", `{"score":9}`)},
			want: []string{
				`given.jsonl:3: record "u1": the unit is also at given.jsonl:1; give one record per unit`,
				`given.jsonl:4: record "u1": the unit is also at given.jsonl:1; give one record per unit`,
			}},
		{name: "several annotators", lines: []string{ok, recordtest.Line("u2", "ak", "complete", `{"pick":"n"}`), recordtest.Line("u1", "", "empty", `{}`), recordtest.Line("u1", "bt", "complete", `{"pick":"n"}`)},
			want: []string{`given.jsonl:4: records of several annotators ("ak" at line 1, "bt" at line 4): name the one to use`}},
		{name: "no record of the annotator named", annotator: "zz", lines: []string{ok, recordtest.Line("u3", "", "empty", `{}`), recordtest.Line("u1", "bt", "complete", `{"pick":"n"}`)},
			want: []string{`given.jsonl: no record of annotator "zz": the file's records are of "ak" and "bt"`}},
		{name: "no answers of the annotator named", annotator: "bt", lines: []string{ok, recordtest.Line("u1", "bt", "empty", `{}`)},
			want: []string{`given.jsonl: no record of annotator "bt" has answers: its records are empty, missing or unreadable`}},
		{name: "no records", lines: []string{"", "  "},
			want: []string{"given.jsonl: no records"}},
		{name: "no answers", lines: []string{recordtest.Line("u1", "", "empty", `{}`), recordtest.Line("u2", "ak", "missing", `{}`)},
			want: []string{"given.jsonl: no record has answers: all 2 are empty, missing or unreadable"}},
		{name: "a workbook", lines: []string{"PK\x03\x04\x14\x00\x00\x00"},
			want: []string{"given.jsonl: not pulled records: it is a workbook (a zip file), not the records pull writes from one"}},
		{
			name: "every problem of a file, by line",
			lines: []string{
				`not json`,
				ok,
				strings.Replace(ok, `"y"`, `"n"`, 1),
				with(recordtest.Line("u2", "ak", "complete", `{"pick":"y"}`), `"shuffled":true`),
				recordtest.Line("u3", "ak", "complete", `{"tags":"1"}`),
				recordtest.Line("u4", "bt", "complete", `{"pick":"n"}`),
				`{"schema":"x/1"}`,
			},
			want: []string{
				"given.jsonl:1: not a canonical record: invalid character 'o' in literal null (expecting 'u')",
				`given.jsonl:3: record "u1": the unit is also at given.jsonl:2; give one record per unit`,
				`given.jsonl:4: record "u2": its values are in the order they were shown: pull it with the study's manifest first`,
				`given.jsonl:5: record "u3": question "tags": "1" is not a list of codes`,
				`given.jsonl:6: records of several annotators ("ak" at line 2, "bt" at line 6): name the one to use`,
				`given.jsonl:7: not a canonical record: schema "x/1", want "annosheet.annotation/1" (is this the output of annosheet pull?)`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, ps := readGiven(tp, tc.annotator, tc.lines...)
			// What is given beside the problems are sound records only.
			if g != nil {
				for _, u := range g.Units() {
					for _, p := range ps {
						if p.Line == g.Line[u] {
							t.Errorf("unit %s kept from line %d, which has a problem: %v (%+v)", u, p.Line, p, g.Record(u).Values)
						}
					}
				}
			}
			if diff := cmp.Diff(tc.want, problemLines(ps)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, p := range ps {
				if p.Severity != records.Error {
					t.Errorf("%s: severity %q", p, p.Severity)
				}
			}
		})
	}
}

// TestReadGivenSentinels: problems wrap what callers can test for.
func TestReadGivenSentinels(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	ok := recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`)
	tests := []struct {
		name  string
		lines []string
		want  error
	}{
		{"not JSON", []string{"{"}, records.ErrInvalid},
		{"another schema", []string{`{"schema":"x/1"}`}, records.ErrInvalid},
		{"a unit twice", []string{ok, ok}, records.ErrDuplicateID},
		{"a workbook", []string{"PK\x03\x04"}, records.ErrNotRecords},
		{"no records", nil, records.ErrEmpty},
	}
	for _, tc := range tests {
		_, ps := readGiven(tp, "", tc.lines...)
		if len(ps) != 1 || !errors.Is(ps, tc.want) {
			t.Errorf("%s: problems %v, want one wrapping %v", tc.name, ps, tc.want)
		}
	}
	_, ps := readGiven(tp, "", recordtest.Line("u1", "ak", "complete", `{"pick":"maybe"}`))
	var ve *records.ValueError
	if !errors.As(ps, &ve) || ve.Question != "pick" {
		t.Errorf("a value not allowed: problems %v, want the *ValueError", ps)
	}
}

// TestReadGivenAnnotator: with an annotator chosen, the records of the
// others are ignored, whatever they hold; the one chosen is kept.
func TestReadGivenAnnotator(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	lines := []string{
		recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`),
		recordtest.Line("u1", "bt", "complete", `{"pick":"maybe"}`),
		recordtest.Line("u1", "bt", "complete", `{"pick":"n"}`),
		with(recordtest.Line("u2", "bt", "complete", `{"pick":"n"}`), `"shuffled":true`),
		recordtest.Line("u2", "ak", "partial", `{"score":3}`),
		recordtest.Line("u3", "", "empty", `{}`),
	}
	g, ps := readGiven(tp, "ak", lines...)
	if len(ps) > 0 {
		t.Fatalf("problems:\n%v", ps)
	}
	if g.Annotator != "ak" || g.Skipped != 1 {
		t.Errorf("annotator %q, skipped %d; want ak, 1", g.Annotator, g.Skipped)
	}
	if diff := cmp.Diff(map[string]int{"u1": 1, "u2": 5}, g.Line); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if got := g.Record("u1").Values["pick"]; got != "y" {
		t.Errorf("u1 pick %v, want ak's y", got)
	}
	// The other annotator's records are checked when they are the ones
	// chosen.
	_, ps = readGiven(tp, "bt", lines...)
	want := []string{
		`given.jsonl:2: record "u1": question "pick": "maybe" is not one of the codes "y", "n"`,
		`given.jsonl:3: record "u1": the unit is also at given.jsonl:2; give one record per unit`,
		`given.jsonl:4: record "u2": its values are in the order they were shown: pull it with the study's manifest first`,
	}
	if diff := cmp.Diff(want, problemLines(ps)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	// One annotator besides nobody's unanswered units is no choice to
	// make.
	g, ps = readGiven(tp, "", lines[0], lines[4], lines[5])
	if len(ps) > 0 || g.Annotator != "ak" || g.Len() != 2 {
		t.Errorf("one annotator: %+v, problems %v", g, ps)
	}
}

// TestReadGivenSkipped: a record without answers neither counts as a
// unit's record nor as an annotator's.
func TestReadGivenSkipped(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	g, ps := readGiven(tp, "",
		recordtest.Line("u1", "bt", "empty", `{}`),
		recordtest.Line("u1", "ak", "missing", `{}`),
		recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`),
		recordtest.Line("u1", "ak", "unreadable", `{}`),
		recordtest.Line("u2", "", "empty", `{}`),
	)
	if len(ps) > 0 {
		t.Fatalf("problems:\n%v", ps)
	}
	if g.Skipped != 4 || g.Annotator != "ak" || g.Line["u1"] != 3 || g.Len() != 1 {
		t.Errorf("skipped %d, annotator %q, lines %v; want 4, ak, u1 at 3 alone", g.Skipped, g.Annotator, g.Line)
	}
}

// TestReadGivenStops: a line too long and a failing reader end the
// reading, keeping the problems found before them.
func TestReadGivenStops(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	bad := recordtest.Line("u1", "ak", "complete", `{"pick":"maybe"}`) + "\n"
	after := "not json\n"
	long := io.MultiReader(strings.NewReader(bad+`{"schema":"`),
		io.LimitReader(repeat('a'), records.MaxRecordLine+1), strings.NewReader("\"}\n"+after))
	_, ps := records.ReadGivenFrom(long, "big.jsonl", tp, "")
	want := []string{
		`big.jsonl:1: record "u1": question "pick": "maybe" is not one of the codes "y", "n"`,
		"big.jsonl:2: line longer than the 64 MiB a pulled record may be",
	}
	if diff := cmp.Diff(want, problemLines(ps)); diff != "" {
		t.Errorf("a line too long: problems (-want +got):\n%s", diff)
	}
	if !errors.Is(ps, boundedread.ErrTooLarge) {
		t.Errorf("a line too long: %v does not wrap ErrTooLarge", ps)
	}

	gone := errors.New("the disk is gone")
	failing := io.MultiReader(strings.NewReader(bad), iotest.ErrReader(gone))
	_, ps = records.ReadGivenFrom(failing, "lost.jsonl", tp, "")
	want = []string{
		"lost.jsonl: cannot be read: the disk is gone",
		`lost.jsonl:1: record "u1": question "pick": "maybe" is not one of the codes "y", "n"`,
	}
	if diff := cmp.Diff(want, problemLines(ps)); diff != "" {
		t.Errorf("a failing reader: problems (-want +got):\n%s", diff)
	}
	if !errors.Is(ps, gone) {
		t.Errorf("a failing reader: %v does not wrap its error", ps)
	}
}

// TestReadGivenMaxErrors: a file that is all wrong is reported up to
// MaxErrors problems.
func TestReadGivenMaxErrors(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	_, ps := records.ReadGivenFrom(strings.NewReader(strings.Repeat("x\n", 3*records.MaxErrors)), "junk.jsonl", tp, "")
	if len(ps) != records.MaxErrors || ps[len(ps)-1].Line != records.MaxErrors {
		t.Errorf("%d problems, the last at line %d; want %d", len(ps), ps[len(ps)-1].Line, records.MaxErrors)
	}
}

// TestReadGivenFile: a file that cannot be read, or is read after its
// context ended, is a problem of the file.
func TestReadGivenFile(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "prefill.jsonl")
	if err := os.WriteFile(path, []byte(recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g, ps := records.ReadGiven(ctx, path, tp, "")
	if g != nil || len(ps) != 1 || !errors.Is(ps, context.Canceled) || ps[0].Error() != path+": cannot be read: context canceled" {
		t.Errorf("cancelled: %v, problems %v", g, ps)
	}

	missing := filepath.Join(dir, "nowhere.jsonl")
	_, ps = records.ReadGiven(context.Background(), missing, tp, "")
	if len(ps) != 1 || !errors.Is(ps, os.ErrNotExist) || ps[0].Error() != missing+": cannot be read: no such file or directory" {
		t.Errorf("a missing file: problems %v", ps)
	}
	_, ps = records.ReadGiven(context.Background(), dir, tp, "")
	if len(ps) != 1 || ps[0].File != dir || ps[0].Line != 0 {
		t.Errorf("a folder: problems %v", ps)
	}
}

// FuzzReadGiven: any bytes are read into records of one annotator, each
// with its line, or into problems that each name the file and, when they
// are of a record, its line.
func FuzzReadGiven(f *testing.F) {
	tp := recordtest.Template(f)
	ok := recordtest.Line("u1", "ak", "complete", `{"pick":"y","tags":["1","3"],"score":4}`)
	f.Add([]byte(ok+"\n"), "")
	f.Add([]byte(ok+"\n"+ok+"\n"), "")
	f.Add([]byte(ok+"\n"+recordtest.Line("u2", "bt", "partial", `{"score":2}`)+"\n"), "bt")
	f.Add([]byte(recordtest.Line("u1", "", "empty", `{}`)+"\r\n\n  \n"), "")
	f.Add([]byte("\xef\xbb\xbf[1,2]\n{}{}\n"+`{"schema":"annosheet.annotation/1"`), "ak")
	f.Add([]byte("PK\x03\x04garbage"), "")
	f.Fuzz(func(t *testing.T, b []byte, annotator string) {
		g, ps := records.ReadGivenFrom(bytes.NewReader(b), "fuzz.jsonl", tp, annotator)
		if g == nil && len(ps) == 0 {
			t.Fatal("neither records nor problems")
		}
		for _, p := range ps {
			if p.File != "fuzz.jsonl" || p.Line < 0 || p.Severity != records.Error {
				t.Fatalf("problem %+v", p)
			}
			if p.Record != "" && p.Line == 0 {
				t.Fatalf("a record's problem without its line: %v", p)
			}
		}
		if g == nil {
			return
		}
		if g.Len() == 0 || len(g.Line) != g.Len() {
			t.Fatalf("%d records, %d lines", g.Len(), len(g.Line))
		}
		for _, u := range g.Units() {
			r := g.Record(u)
			if g.Line[u] < 1 || r.Unit != u || r.Annotator != g.Annotator {
				t.Fatalf("unit %q: line %d, record of %q %q, given of %q", u, g.Line[u], r.Unit, r.Annotator, g.Annotator)
			}
			if annotator != "" && r.Annotator != annotator {
				t.Fatalf("a record of %q, not of %q", r.Annotator, annotator)
			}
		}
	})
}
