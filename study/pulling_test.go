package study

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/records"
)

// TestPullOutputCheck: a pull never writes over what it reads (a
// workbook, a spreadsheet it cannot read, a study's manifest), even with
// Force; over another file only with Force; and never its records and
// report to one file. The records' file is checked first.
func TestPullOutputCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	there := filepath.Join(dir, "pulled.jsonl")
	touch(t, there)
	files := &fakeFiles{cannot: map[string]string{".numbers": "an Apple Numbers file"}}
	for _, tc := range []struct {
		name          string
		out           PullOutput
		option, value string // of the OptionError; "" for none
		err           error
	}{
		{name: "none", out: PullOutput{}},
		{name: "new files", out: PullOutput{Out: filepath.Join(dir, "new.jsonl"), Report: filepath.Join(dir, "new.json")}},
		{name: "a workbook", out: PullOutput{Out: "b01.xlsx", Force: true}, option: "out", value: "b01.xlsx", err: ErrPullReads},
		{name: "a spreadsheet it cannot read", out: PullOutput{Report: "b01.numbers"}, option: "report", value: "b01.numbers", err: ErrPullReads},
		{name: "a manifest", out: PullOutput{Report: filepath.Join("study", "manifest.json"), Force: true}, option: "report", value: filepath.Join("study", "manifest.json"), err: ErrPullReads},
		{name: "a file there", out: PullOutput{Report: there}, option: "report", value: there, err: atomicfile.ErrExists},
		{name: "a file there, with force", out: PullOutput{Out: there, Force: true}},
		{name: "a folder there", out: PullOutput{Out: dir}}, // no regular file: writing it says why
		{name: "the records first", out: PullOutput{Out: "a.xlsx", Report: there}, option: "out", value: "a.xlsx", err: ErrPullReads},
		{name: "one file", out: PullOutput{Out: filepath.Join("x", "..", "r.json"), Report: "r.json"}, option: "out", value: filepath.Join("x", "..", "r.json"), err: ErrSameOutput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.out.Check(files)
			var oe *OptionError
			switch {
			case tc.err == nil && err != nil:
				t.Errorf("Check: %v, want nil", err)
			case tc.err == nil:
			case !errors.As(err, &oe) || oe.Option != tc.option || oe.Value != tc.value || !errors.Is(err, tc.err):
				t.Errorf("Check: %#v, want option %s %s wrapping %v", err, tc.option, tc.value, tc.err)
			}
		})
	}
}

// TestPullOutputWrite: the records go to the writer without Out, else to
// Out; the report, counts and every problem, to Report as indented JSON
// that keeps the text as it is; a file there is replaced only with
// Force; and nothing is written of a pull whose copies disagree.
func TestPullOutputWrite(t *testing.T) {
	t.Parallel()
	tmpl := records.TemplateID{Name: "legal-gaps", Version: 1}
	res := &Result{
		Records: []*records.Annotation{
			{Template: tmpl, Unit: "u1", Item: "u1", Annotator: "ann1", Status: records.StatusComplete, Values: map[string]any{"gaps": []string{"0"}}},
			{Template: tmpl, Unit: "u2", Item: "u2", Annotator: "ann1", Status: records.StatusMissing},
		},
		Problems: records.Problems{{Severity: records.Warning, File: "b01.xlsx", Message: "a <note> & more"}},
	}
	want := Counts{Records: 2, Complete: 1, Missing: 1, Warnings: 1}

	var stdout bytes.Buffer
	c, err := PullOutput{}.Write(&stdout, res)
	if err != nil || c != want {
		t.Fatalf("to the writer: %+v, %v; want %+v", c, err, want)
	}
	if n := strings.Count(stdout.String(), "\n"); n != 2 || !strings.Contains(stdout.String(), `"unit":"u2"`) {
		t.Errorf("records written: %q", stdout.String())
	}

	dir := t.TempDir()
	out := PullOutput{Out: filepath.Join(dir, "r.jsonl"), Report: filepath.Join(dir, "r.json")}
	stdout.Reset()
	if c, err := out.Write(&stdout, res); err != nil || c != want || stdout.Len() != 0 {
		t.Fatalf("to files: %+v, %v, %q on the writer", c, err, stdout.String())
	}
	b, err := os.ReadFile(out.Report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\n  \"schema\": \""+PullReportSchema+"\"") || !strings.Contains(string(b), "a <note> & more") {
		t.Errorf("report: %s", b)
	}
	var rep PullReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	wantCounts := map[string]int{"records": 2, "complete": 1, "partial": 0, "empty": 0, "missing": 1, "unreadable": 0, "errors": 0, "warnings": 1}
	if diff := cmp.Diff(wantCounts, rep.Counts); diff != "" || len(rep.Problems) != 1 || rep.Workbooks == nil {
		t.Errorf("report counts (-want +got):\n%s; %d problems, workbooks %v", diff, len(rep.Problems), rep.Workbooks)
	}

	if _, err := out.Write(&stdout, res); !errors.Is(err, atomicfile.ErrExists) || !strings.HasPrefix(err.Error(), "write "+out.Out+": ") {
		t.Errorf("again without Force: %v, want ErrExists naming %s", err, out.Out)
	}
	out.Force = true
	if _, err := out.Write(&stdout, res); err != nil {
		t.Errorf("again with Force: %v", err)
	}

	conflicting := &Result{Records: res.Records, Conflicts: []Conflict{{Batch: "b01", Unit: "u1"}, {Batch: "b01", Unit: "u2"}}}
	fresh := PullOutput{Out: filepath.Join(dir, "c.jsonl")}
	_, err = fresh.Write(&stdout, conflicting)
	if !errors.Is(err, ErrCopiesDisagree) || !strings.HasPrefix(err.Error(), "2 units answered differently by copies of their batch") {
		t.Errorf("copies that disagree: %v, want ErrCopiesDisagree", err)
	}
	if _, err := os.Stat(fresh.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("records of copies that disagree written: %v", err)
	}
}

// TestPullRecords: a study's folder is pulled as a study; an
// adjudication's folder gives its gold set; sources all refused give
// ErrNothingRead with the result whose problems say why.
func TestPullRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := makeStudy(t)
	var progressed int
	p, err := PullRecords(ctx, []string{m.dir}, Backends{Files: m.files}, PullOptions{Progress: func(int, int) { progressed++ }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Gold != nil || len(p.Workbooks) != len(m.gen.Manifest.Batches) || len(p.Records) == 0 || progressed != len(p.Workbooks) {
		t.Errorf("a study: gold %v, %d workbooks, %d records, progress told %d times", p.Gold, len(p.Workbooks), len(p.Records), progressed)
	}

	dir := t.TempDir()
	touch(t, filepath.Join(dir, "sheet.xlsx"))
	p, err = PullRecords(ctx, []string{dir}, Backends{Files: &fakeFiles{}}, PullOptions{})
	if !errors.Is(err, ErrNothingRead) || p == nil || len(p.Problems) == 0 {
		t.Errorf("nothing read: %v, %+v; want ErrNothingRead with the problems", err, p)
	}
	res, src, err := PullSources(ctx, []string{dir}, Backends{Files: &fakeFiles{}}, PullOptions{})
	if !errors.Is(err, ErrNothingRead) || res == nil || src == nil {
		t.Errorf("PullSources, nothing read: %v, %v, %v", res, src, err)
	}
	if _, err := PullRecords(ctx, []string{filepath.Join(dir, "nosuch")}, Backends{Files: &fakeFiles{}}, PullOptions{}); err == nil {
		t.Error("a source that is not there: no error")
	}

	a := newAdjRun(t, backend.KindXLSX)
	a.mustRun(legalRecs(a.tp, "u1 ann1 0", "u1 ann2 1", "u2 ann1 2", "u2 ann2 2"))
	p, err = PullRecords(ctx, []string{a.dir}, a.store.backends(), PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Gold == nil || len(p.Records) != 2 || len(p.Gold.Records) != 2 || p.Gold.Unresolved != 1 || len(p.Workbooks) != 0 {
		t.Errorf("an adjudication: gold %v, %d records", p.Gold, len(p.Records))
	}
}
