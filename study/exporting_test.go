package study

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// TestExportSource: a study (its folder, its manifest, any .json file) is
// pulled as it is; any other path is a file of records, with the
// manifest given beside it when there is one.
func TestExportSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := filepath.Join(dir, "annotations.txt")
	notManifest := filepath.Join(dir, "other.json")
	for path, data := range map[string]string{recs: "", notManifest: `{"hello": "world"}`} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, path, manifest string
		wantFiles            []string
		wantErr              error
	}{
		{"a study's folder", dir, "", nil, nil},
		{"a study's manifest", filepath.Join(dir, manifest.FileName), "", nil, nil},
		{"a .json file is a manifest", filepath.Join(dir, "STUDY.JSON"), "", nil, nil},
		{"a study's folder, the manifest given aside unread", dir, notManifest, nil, nil},
		{"records, whatever the name", recs, "", []string{recs}, nil},
		{"records beside what is no manifest", recs, notManifest, nil, manifest.ErrNotManifest},
	} {
		files, man, err := ExportSource(c.path, c.manifest)
		if !errors.Is(err, c.wantErr) || (err == nil) != (c.wantErr == nil) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.wantErr)
		}
		if !slices.Equal(files, c.wantFiles) || man != nil {
			t.Errorf("%s: files %q, manifest %v; want %q and none", c.name, files, man, c.wantFiles)
		}
	}
}

// TestExport: a file at Out is refused without Force, together with every
// other problem and before any input is read; a path per annotator is
// checked later, file by file. What is returned with the refusal holds
// what is to be said all the same, nothing of a selection.
func TestExport(t *testing.T) {
	t.Parallel()
	tmpl, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	there := filepath.Join(t.TempDir(), "labels.jsonl")
	if err := os.WriteFile(there, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := []string{filepath.Join("..", "examples", "legal-gaps.jsonl")}
	native := func(inputs ...string) NativeOptions { return NativeOptions{Inputs: inputs} }
	for _, c := range []struct {
		name    string
		opt     ExportOptions
		wantIs  []error
		wantNot []error
	}{
		{"a file there, and no inputs", ExportOptions{Out: there}, []error{atomicfile.ErrExists, ErrNoInputs}, nil},
		{"a file there, replaced", ExportOptions{NativeOptions: native(inputs...), Out: there, Force: true}, nil, []error{atomicfile.ErrExists}},
		{"a file per annotator, checked as written", ExportOptions{NativeOptions: native(inputs...), Out: filepath.Join(filepath.Dir(there), "{annotator}.jsonl")}, nil, nil},
		{"a file there, the inputs fine", ExportOptions{NativeOptions: native(inputs...), Out: there}, []error{atomicfile.ErrExists}, []error{ErrNoInputs}},
		{"stdout", ExportOptions{NativeOptions: native(inputs...)}, nil, nil},
		{"an annotator without a record", ExportOptions{NativeOptions: NativeOptions{Inputs: inputs, Annotators: []string{"zz"}}, Out: there}, []error{ErrNoSuchAnnotator, atomicfile.ErrExists}, nil},
	} {
		nat, err := Export(&records.Loaded{Template: tmpl}, nil, c.opt)
		for _, want := range c.wantIs {
			if !errors.Is(err, want) {
				t.Errorf("%s: error %v, want %v in it", c.name, err, want)
			}
		}
		for _, not := range c.wantNot {
			if errors.Is(err, not) {
				t.Errorf("%s: error %v has %v in it", c.name, err, not)
			}
		}
		if nat == nil {
			t.Fatalf("%s: nothing returned", c.name)
		}
		if len(c.wantIs) > 0 {
			if nat.Selection != nil || nat.Items != nil {
				t.Errorf("%s: refused, yet a selection (%v) or inputs (%d) returned", c.name, nat.Selection, len(nat.Items))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if len(nat.Items) == 0 {
			t.Errorf("%s: no input record read", c.name)
		}
	}
}

// TestExportKeepsChanged: inputs given whose content changed, taken as
// InputChanged says, are named with the refusal of a file at Out too.
func TestExportKeepsChanged(t *testing.T) {
	t.Parallel()
	tmpl, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	there := filepath.Join(dir, "labels.jsonl")
	changed := filepath.Join(dir, "inputs.jsonl")
	for _, p := range []string{there, changed} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	man := &Manifest{Manifest: &manifest.Manifest{Inputs: []manifest.Input{{Path: "inputs.jsonl", SHA256: "0000"}}}}
	nat, err := Export(&records.Loaded{Template: tmpl}, man, ExportOptions{NativeOptions: NativeOptions{Inputs: []string{changed}, InputChanged: true}, Out: there})
	if !errors.Is(err, atomicfile.ErrExists) {
		t.Fatalf("error %v, want ErrExists", err)
	}
	if !slices.Equal(nat.Changed, []string{changed}) {
		t.Errorf("Changed %q, want %q", nat.Changed, changed)
	}
}

// TestNativeLeftOut: what the native file leaves out is the selection's,
// and, for a template that exports answered units only, the empty units
// it kept; units kept with errors and records kept once are counted.
func TestNativeLeftOut(t *testing.T) {
	t.Parallel()
	sel := &Selection{
		Records: []*records.Annotation{
			rec("c1", "ak", records.StatusComplete, nil),
			rec("e1", "ak", records.StatusEmpty, nil),
			rec("e2", "bt", records.StatusEmpty, nil),
		},
		Partial: 1, Empty: 2, Missing: 3, Unreadable: 4, WithErrors: 5,
	}
	for _, c := range []struct {
		name string
		exp  *templates.Export
		dups int
		want NativeLeftOut
	}{
		{"answered units only", &templates.Export{Include: "answered"}, 0, NativeLeftOut{Partial: 1, Empty: 4, Missing: 3, Unreadable: 4, WithErrors: 5}},
		{"every unit", &templates.Export{Include: "all"}, 2, NativeLeftOut{Partial: 1, Empty: 2, Missing: 3, Unreadable: 4, WithErrors: 5, Duplicates: 2}},
		{"no export", nil, 0, NativeLeftOut{Partial: 1, Empty: 2, Missing: 3, Unreadable: 4, WithErrors: 5}},
	} {
		n := &Native{Selection: sel, t: &templates.Template{Export: c.exp}}
		if diff := cmp.Diff(c.want, n.LeftOut(c.dups)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestTableFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		out, want string
		ok        bool
	}{
		{"", TableCSV, true},
		{"long.csv", TableCSV, true},
		{"LONG.CSV", TableCSV, true},
		{"wide.parquet", TableParquet, true},
		{"out/Wide.Parquet", TableParquet, true},
		{"long.tsv", "", false},
		{"long", "", false},
	} {
		got, ok := TableFormat(c.out)
		if got != c.want || ok != c.ok {
			t.Errorf("TableFormat(%q) = %q, %v; want %q, %v", c.out, got, ok, c.want, c.ok)
		}
	}
}

// TestExportTable: the table is made from the records, the study's
// orders and the gold set beside them, whose origins join the records'
// without changing what was loaded; an annotator asked for must have a
// record.
func TestExportTable(t *testing.T) {
	t.Parallel()
	a, b := rec("u1", "ak", records.StatusComplete, nil), rec("u1", "bt", records.StatusComplete, nil)
	g := rec("u1", records.GoldAnnotator, records.StatusComplete, nil)
	loaded := func() *records.Loaded {
		return &records.Loaded{Records: []*records.Annotation{a, b}, Origins: records.Origins{a: "a.jsonl:1", b: "a.jsonl:2"}}
	}
	orders := map[string][]string{"u1": {"x", "y"}}
	man := &Manifest{Manifest: &manifest.Manifest{Orders: orders}}
	gold := &Gold{Name: "gold.jsonl", Records: []*records.Annotation{g}, Origins: map[*records.Annotation]string{g: "gold.jsonl:1"}}
	for _, c := range []struct {
		name       string
		man        *Manifest
		gold       *Gold
		annotators []string
		want       *TableSource
		wantErr    error
	}{
		{"records alone", nil, nil, nil, &TableSource{Records: []*records.Annotation{a, b}, Origins: records.Origins{a: "a.jsonl:1", b: "a.jsonl:2"}}, nil},
		{"with the study's orders and a gold set", man, gold, []string{"bt"}, &TableSource{
			Records: []*records.Annotation{a, b}, Gold: []*records.Annotation{g}, Orders: orders,
			Origins: records.Origins{a: "a.jsonl:1", b: "a.jsonl:2", g: "gold.jsonl:1"},
		}, nil},
		{"an annotator without a record", nil, gold, []string{"zz"}, nil, ErrNoSuchAnnotator},
	} {
		l := loaded()
		got, err := ExportTable(l, c.man, c.gold, c.annotators)
		if !errors.Is(err, c.wantErr) || (err == nil) != (c.wantErr == nil) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.wantErr)
		}
		var oe *OptionError
		if c.wantErr != nil && (!errors.As(err, &oe) || oe.Option != "annotators") {
			t.Errorf("%s: error %v, want an OptionError of annotators", c.name, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
		if len(l.Origins) != 2 {
			t.Errorf("%s: the loaded origins changed: %v", c.name, l.Origins)
		}
	}
}
