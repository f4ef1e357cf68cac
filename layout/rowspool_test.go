package layout_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// stretched makes every longer text of every third record of a source
// many times as long, so that every layout has texts cut for the Read
// sheet, among others that are not.
type stretched struct{ layout.Source }

func (s stretched) Each(fn func(*layout.Record) error) error {
	return s.Source.Each(func(r *layout.Record) error {
		if r.Index%3 != 1 {
			return fn(r)
		}
		c := *r
		c.Data = stretch(r.Data)
		return fn(&c)
	})
}

func stretch(v any) any {
	switch v := v.(type) {
	case string:
		if len(v) > 60 {
			return strings.Repeat(v+"\n", 60)
		}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = stretch(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = stretch(e)
		}
		return out
	}
	return v
}

// TestReplayedRows: the rows the first pass keeps and the plan replays
// are the rows rendered anew from the input, as they were before the
// first pass kept them, on every built-in template and its data, cell
// for cell, link for link and height for height, on both sheets that
// hold them: with opaque IDs assigned after the first pass, blocks
// numbered by a mark chosen after it, a workbook for one annotator, a
// batch of some instances, texts cut for the Read sheet, and more cut
// texts than links.
func TestReplayedRows(t *testing.T) {
	for _, name := range templates.BuiltinNames() {
		tp, err := input.Template(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := input.Open(tp.Input.Format, []string{builtinInputs[name]})
		if err != nil {
			t.Fatal(err)
		}
		// IDs in a column too narrow for them add lines to their rows,
		// and to their blocks, once they are known.
		yaml, _ := templates.BuiltinSource(name)
		yaml = regexp.MustCompile(`(?m)^  id_width: .*\n`).ReplaceAll(yaml, nil)
		narrow, err := templates.Load(name+".yaml", regexp.MustCompile(`(?m)^rows:\n`).ReplaceAll(yaml, []byte("rows:\n  id_width: 3\n")))
		if err != nil {
			t.Fatal(err)
		}
		odd := func(item string) bool { return len(item)%2 == 1 }
		for _, c := range []struct {
			name    string
			tp      *templates.Template // the built-in's when nil
			src     layout.Source
			opt     layout.Options
			links   int
			readers bool // the case must have a Read sheet
		}{
			{name: "plain", src: src, opt: layout.Options{Seed: 1}},
			{name: "annotator", src: src, opt: layout.Options{Seed: 2, Annotator: "ak", Batch: "ak-01"}},
			{name: "some", src: src, opt: layout.Options{Seed: 3, Items: odd, CellLimit: backend.SheetsCellLimit}},
			{name: "long", src: stretched{src}, opt: layout.Options{Seed: 4, CellLimit: 5000}, readers: true},
			{name: "few-links", src: stretched{src}, opt: layout.Options{Seed: 5}, links: 3, readers: true},
			{name: "narrow-id", tp: narrow, src: stretched{src}, opt: layout.Options{Seed: 6}, readers: true},
		} {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				if c.links > 0 {
					defer layout.SetLinkCap(c.links)()
				}
				if c.tp == nil {
					c.tp = tp
				}
				res, err := layout.BuildRerendered(c.tp, c.src, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Close()
				var read *backend.Sheet
				for _, sh := range res.Plan.Sheets {
					switch sh.Name {
					case backend.SheetAnnotate:
						compareRows(t, sh, res.Annotate)
					case backend.SheetRead:
						read = sh
						compareRows(t, sh, res.Read)
					}
				}
				if (read != nil) != (res.Read != nil) || c.readers && read == nil {
					t.Errorf("Read sheet replayed %v, rendered anew %v", read != nil, res.Read != nil)
				}
			})
		}
	}
}

// compareRows compares a sheet's rows with the same rows made another way.
func compareRows(t *testing.T, sh *backend.Sheet, fresh func(emit func(backend.Row) error) error) {
	t.Helper()
	collect := func(rows func(emit func(backend.Row) error) error) []backend.Row {
		var out []backend.Row
		if err := rows(func(r backend.Row) error { out = append(out, r); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	got, want := collect(sh.Rows), collect(fresh)
	if len(got) != sh.RowCount {
		t.Errorf("%s: %d rows replayed, %d declared", sh.Name, len(got), sh.RowCount)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: rows (-rendered anew +replayed):\n%s", sh.Name, d)
	}
	// A plan may be written more than once.
	if d := cmp.Diff(got, collect(sh.Rows)); d != "" {
		t.Errorf("%s: the second replay differs:\n%s", sh.Name, d)
	}
	// The facts declared before the rows are the rows' facts: the XLSX
	// writer registers those styles alone.
	if sh.Facts == nil {
		t.Fatalf("%s: no facts declared", sh.Name)
	}
	var seen backend.RowFacts
	for _, r := range got {
		seen.Note(r)
	}
	declared := map[backend.Style]bool{}
	for _, st := range sh.Facts.Styles {
		declared[st] = true
	}
	for _, st := range seen.Styles {
		if !declared[st] {
			t.Errorf("%s: style %+v is in the rows but not declared", sh.Name, st)
		}
	}
	if seen.Formulas != sh.Facts.Formulas {
		t.Errorf("%s: formulas declared %v, in the rows %v", sh.Name, sh.Facts.Formulas, seen.Formulas)
	}
}

// TestRowSpoolRemoved: the files that keep the rows are never left in
// the temporary folder, and Close closes them; a replay after it fails.
// A Build that fails closes them too.
func TestRowSpoolRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	tp, err := input.Template("legal-gaps", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := input.Open(tp.Input.Format, []string{builtinInputs["legal-gaps"]})
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, src, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("left in the temporary folder while open: %v", left)
		}
		if n := openUnder(t, tmp); n != 2 {
			t.Errorf("%d files of the build open, want 2 (rows, Read texts)", n)
		}
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if err := res.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
	if n := openUnder(t, tmp); n != 0 {
		t.Errorf("%d files of the build still open after Close", n)
	}
	for _, sh := range res.Plan.Sheets {
		if sh.Name != backend.SheetAnnotate && sh.Name != backend.SheetRead {
			continue
		}
		if err := sh.Rows(func(backend.Row) error { return nil }); err == nil {
			t.Errorf("%s: rows replayed after Close", sh.Name)
		}
	}

	// A build that fails on a later record, after rows were kept.
	in := filepath.Join(t.TempDir(), "in.jsonl")
	good := `{"id": "a", "previous_context": "p", "generation": "g", "target": "t", "cited_paragraphs": []}`
	bad := `{"id": "b", "previous_context": "p", "generation": "g", "cited_paragraphs": []}`
	if err := os.WriteFile(in, []byte(good+"\n"+bad+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err = input.Open("jsonl", []string{in})
	if err != nil {
		t.Fatal(err)
	}
	var ps records.Problems
	if _, err := layout.Build(context.Background(), tp, src, layout.Options{}); !errors.As(err, &ps) {
		t.Fatalf("got %v, want problems", err)
	}
	if n := openUnder(t, tmp); n != 0 {
		t.Errorf("%d files of the failed build still open", n)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temporary folder by the failed build: %v", left)
	}
}

// openUnder counts this process's open files in dir (removed or not),
// where the system shows them; the test skips where it does not.
func openUnder(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("the open files cannot be listed here")
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}
