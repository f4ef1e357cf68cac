package records_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/fifo"
	"github.com/annosheet/annosheet/testkit/recordtest"
)

// write writes lines as a file of records in dir.
func write(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// puller is a Puller that gives what it holds, and says what it was asked.
type puller struct {
	got    *records.Pulled
	err    error
	called []string
}

func (p *puller) Pull(_ context.Context, sources []string) (*records.Pulled, error) {
	p.called = append(p.called, sources...)
	return p.got, p.err
}

// TestLoad: files of records are read, other sources pulled; the
// template is the one given, the study's, or the built-in the records
// name; opaque IDs get the study's real ones; copies are kept once and
// contradictions refused; each refusal is its sentinel, naming the file.
func TestLoad(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	dir := t.TempDir()
	a := write(t, dir, "a.jsonl", recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`))
	twice := write(t, dir, "twice.jsonl", recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`), recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`))
	differ := write(t, dir, "differ.jsonl", recordtest.Line("u1", "ak", "complete", `{"pick":"n"}`))
	other := write(t, dir, "other.jsonl", strings.Replace(recordtest.Line("u9", "ak", "complete", `{}`), `"version":2`, `"version":3`, 1))
	opaque := write(t, dir, "opaque.jsonl", strings.Replace(recordtest.Line("item-0001", "bt", "complete", `{"pick":"n"}`), `"status"`, `"opaque_ids":true,"status"`, 1))
	notes := write(t, dir, "notes.txt", recordtest.Line("u2", "bt", "complete", `{"pick":"y"}`))
	empty := write(t, dir, "empty.jsonl")
	study := &records.Study{Name: "m.json", Template: tp, OpaqueIDs: map[string]string{"item-0001": "u1"}}

	for _, c := range []struct {
		name    string
		sources []string
		opt     records.LoadOptions
		units   []string // unit/annotator of the records loaded
		dups    int
		is      error
		prefix  string // the error starts so
	}{
		{name: "a file, its template given", sources: []string{a}, opt: records.LoadOptions{Template: tp}, units: []string{"u1/ak"}},
		{name: "copies kept once", sources: []string{a, twice}, opt: records.LoadOptions{Template: tp}, units: []string{"u1/ak"}, dups: 1},
		{name: "copies that differ", sources: []string{a, differ}, opt: records.LoadOptions{Template: tp}, is: records.ErrConflict, prefix: a + ":1 and " + differ + ":1: "},
		{name: "another version", sources: []string{a, other}, opt: records.LoadOptions{Template: tp}, is: records.ErrMixedTemplates, prefix: other + ":1: "},
		{name: "opaque IDs restored by the study's key", sources: []string{opaque}, opt: records.LoadOptions{Study: study}, units: []string{"u1/bt"}},
		{name: "opaque IDs without a key", sources: []string{opaque}, opt: records.LoadOptions{Template: tp}, units: []string{"item-0001/bt"}},
		{name: "a built-in the records name, not there", sources: []string{a}, is: records.ErrNoTemplate, prefix: a + ":1: "},
		{name: "no records and no template", sources: []string{empty}, is: records.ErrEmpty, prefix: empty + ": no records"},
		{name: "no records, the study's template", sources: []string{empty}, opt: records.LoadOptions{Study: study}},
		{name: "a file by another name, given as records", sources: []string{notes}, opt: records.LoadOptions{Template: tp, Files: []string{notes}}, units: []string{"u2/bt"}},
		{name: "a file by another name, and nothing to pull it", sources: []string{notes}, opt: records.LoadOptions{Template: tp}, is: records.ErrNotFile, prefix: notes + ": "},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l, err := records.Load(context.Background(), c.sources, c.opt)
			if c.is != nil {
				if !errors.Is(err, c.is) || !strings.HasPrefix(err.Error(), c.prefix) {
					t.Fatalf("error %v, want %v starting %q", err, c.is, c.prefix)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var units []string
			for _, r := range l.Records {
				units = append(units, r.Unit+"/"+r.Annotator)
			}
			if diff := cmp.Diff(c.units, units); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if len(l.Duplicates) != c.dups || l.Template == nil {
				t.Errorf("%d duplicates, template %v", len(l.Duplicates), l.Template)
			}
		})
	}
}

// TestLoadPulls: sources that are not files of records go to the
// Puller, whose study gives the template and the key; the pulled records
// come first, and a file's records of another template are refused.
func TestLoadPulls(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	dir := t.TempDir()
	pulledRecs, _, err := recordtest.Read(t, tp, strings.Replace(recordtest.Line("item-0001", "ak", "complete", `{"pick":"y"}`), `"status"`, `"opaque_ids":true,"status"`, 1))
	if err != nil {
		t.Fatal(err)
	}
	p := &puller{got: &records.Pulled{Records: pulledRecs, Study: &records.Study{Template: tp, OpaqueIDs: map[string]string{"item-0001": "u1"}}}}
	b := write(t, dir, "b.jsonl", recordtest.Line("u2", "bt", "complete", `{"pick":"n"}`))
	l, err := records.Load(context.Background(), []string{"study/", b}, records.LoadOptions{Pull: p})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.called) != 1 || p.called[0] != "study/" {
		t.Errorf("pulled %v, want the study alone", p.called)
	}
	if len(l.Records) != 2 || l.Records[0].Unit != "u1" || l.Records[1].Unit != "u2" || l.Study == nil {
		t.Errorf("records %v, study %v", l.Records, l.Study)
	}
	bad := errors.New("nothing read")
	if _, err := records.Load(context.Background(), []string{"study/"}, records.LoadOptions{Pull: &puller{err: bad}}); !errors.Is(err, bad) {
		t.Errorf("a pull that fails: %v", err)
	}
	other, err := templates.Load("other.yaml", []byte(strings.Replace(recordtest.YAML, "version: 2", "version: 5", 1)))
	if err != nil {
		t.Fatal(err)
	}
	p.got.Study.Template = other
	if _, err := records.Load(context.Background(), []string{"study/", b}, records.LoadOptions{Pull: p}); !errors.Is(err, records.ErrMixedTemplates) || !strings.HasPrefix(err.Error(), "study/: ") {
		t.Errorf("pulled records of another template than the study's: %v, want ErrMixedTemplates naming the source", err)
	}
}

// TestLoadNamedPipe: a named pipe named like a file of records is
// refused at once, never waited on.
func TestLoadNamedPipe(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "pipe.jsonl")
	fifo.Make(t, p)
	var err error
	fifo.Within(t, 10*time.Second, func() {
		_, err = records.Load(context.Background(), []string{p}, records.LoadOptions{Template: recordtest.Template(t)})
	})
	if !errors.Is(err, boundedread.ErrNotRegular) {
		t.Errorf("error %v, want ErrNotRegular", err)
	}
}

// TestLoadControls: the records of control units are set apart, whether
// they say so (pulled through the study's manifest) or only the study
// does (pulled from a workbook alone, read with the manifest), unless
// IncludeControls keeps them.
func TestLoadControls(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	dir := t.TempDir()
	marked := strings.Replace(recordtest.Line("c1", "ak", "complete", `{"pick":"y"}`), `"status"`, `"control":true,"status"`, 1)
	f := write(t, dir, "a.jsonl", recordtest.Line("u1", "ak", "complete", `{"pick":"y"}`), marked, recordtest.Line("c2", "ak", "complete", `{"pick":"n"}`))
	study := &records.Study{Name: "m.json", Template: tp, Controls: map[string]bool{"c1": true, "c2": true}}
	units := func(recs []*records.Annotation) string {
		var out []string
		for _, r := range recs {
			out = append(out, r.Unit)
		}
		return strings.Join(out, " ")
	}
	l, err := records.Load(context.Background(), []string{f}, records.LoadOptions{Study: study})
	if err != nil {
		t.Fatal(err)
	}
	if units(l.Records) != "u1" || units(l.Controls) != "c1 c2" {
		t.Errorf("records %q, controls %q", units(l.Records), units(l.Controls))
	}
	l, err = records.Load(context.Background(), []string{f}, records.LoadOptions{Template: tp})
	if err != nil {
		t.Fatal(err)
	}
	if units(l.Records) != "u1 c2" || units(l.Controls) != "c1" {
		t.Errorf("without the study: records %q, controls %q", units(l.Records), units(l.Controls))
	}
	l, err = records.Load(context.Background(), []string{f}, records.LoadOptions{Study: study, IncludeControls: true})
	if err != nil {
		t.Fatal(err)
	}
	if units(l.Records) != "u1 c1 c2" || len(l.Controls) != 0 {
		t.Errorf("with IncludeControls: records %q, controls %q", units(l.Records), units(l.Controls))
	}
}
