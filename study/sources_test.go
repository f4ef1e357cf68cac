package study

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
)

// ref is a Ref as a case says it: paths with the test's folder written
// as DIR, the batch by its ID and the manifest by its path.
type ref struct {
	Path, Spreadsheet, Study, Batch, Manifest string
	Loose, Found                              bool
}

// opened is what Open gave, as a case says it.
type opened struct {
	Refs      []ref
	Manifests []string
	Skipped   []Skipped
}

func openedOf(s *Sources, dir string) opened {
	rel := strings.NewReplacer(dir, "DIR").Replace
	var o opened
	for _, r := range s.Refs {
		x := ref{Path: rel(r.Path), Spreadsheet: r.Spreadsheet, Study: r.Study, Loose: r.Loose, Found: r.Found}
		if r.Batch != nil {
			x.Batch = r.Batch.ID
		}
		if r.Manifest != nil {
			x.Manifest = rel(r.Manifest.Path)
		}
		o.Refs = append(o.Refs, x)
	}
	for _, m := range s.Manifests {
		o.Manifests = append(o.Manifests, rel(m.Path))
	}
	for _, k := range s.Skipped {
		o.Skipped = append(o.Skipped, Skipped{Path: rel(k.Path), Why: k.Why})
	}
	return o
}

// writeManifest writes the manifest of study s1 with batches b01 and b02
// into dir.
func writeManifest(t *testing.T, dir string) {
	t.Helper()
	m := &manifest.Manifest{Schema: manifest.Schema, Study: "s1", Format: FormatXLSX, Batches: []manifest.Batch{
		{ID: "b01", Annotator: "ak", File: "legal-gaps-b01.xlsx", Units: []manifest.Unit{{ID: "u1", Item: "u1"}}},
		{ID: "b02", Annotator: "bt", File: "legal-gaps-b02.xlsx", Units: []manifest.Unit{{ID: "u2", Item: "u2"}}},
	}}
	if err := atomicfile.Write(filepath.Join(dir, manifest.FileName), true, 0o644, m.Encode); err != nil {
		t.Fatal(err)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	files := &fakeFiles{cannot: map[string]string{".ods": "LibreOffice is not installed: save it as .xlsx"}}
	b01 := ref{Path: "DIR/study/legal-gaps-b01.xlsx", Study: "s1", Batch: "b01", Manifest: "DIR/study/manifest.json"}
	b02 := ref{Path: "DIR/study/legal-gaps-b02.xlsx", Study: "s1", Batch: "b02", Manifest: "DIR/study/manifest.json"}
	for _, c := range []struct {
		name string
		// files are made in the test's folder; a name ending in / is a folder.
		files   []string
		sources []string // joined to the test's folder, except links
		b       Backends
		want    opened
	}{
		{
			name:    "a study's folder: its batches, and the other workbooks in it as loose and found",
			files:   []string{"study/", "study/legal-gaps-b01.xlsx", "study/legal-gaps-b01 (ak).xlsx", "study/~$legal-gaps-b01.xlsx", "study/.hidden.xlsx", "study/notes.txt"},
			sources: []string{"study"},
			b:       Backends{Files: files},
			want: opened{
				Refs: []ref{b01, b02,
					{Path: "DIR/study/legal-gaps-b01 (ak).xlsx", Study: "s1", Manifest: "DIR/study/manifest.json", Loose: true, Found: true}},
				Manifests: []string{"DIR/study/manifest.json"},
			},
		},
		{
			name:    "files the backend cannot read are skipped, with why",
			files:   []string{"study/", "study/legal-gaps-b01.ods", "in/", "in/back.ods"},
			sources: []string{"study", "in"},
			b:       Backends{Files: files},
			want: opened{
				Refs:      []ref{b01, b02},
				Manifests: []string{"DIR/study/manifest.json"},
				Skipped: []Skipped{
					{Path: "DIR/study/legal-gaps-b01.ods", Why: "LibreOffice is not installed: save it as .xlsx"},
					{Path: "DIR/in/back.ods", Why: "LibreOffice is not installed: save it as .xlsx"},
				},
			},
		},
		{
			name:    "a workbook given beside one manifest is of its study",
			files:   []string{"study/", "inbox/", "inbox/returned.xlsx"},
			sources: []string{"study/manifest.json", "inbox/returned.xlsx"},
			b:       Backends{Files: files},
			want: opened{
				Refs:      []ref{b01, b02, {Path: "DIR/inbox/returned.xlsx", Study: "s1", Manifest: "DIR/study/manifest.json", Loose: true}},
				Manifests: []string{"DIR/study/manifest.json"},
			},
		},
		{
			name:    "the same study given twice is one",
			files:   []string{"study/"},
			sources: []string{"study", "study/manifest.json"},
			b:       Backends{Files: files},
			want:    opened{Refs: []ref{b01, b02}, Manifests: []string{"DIR/study/manifest.json"}},
		},
		{
			name:    "a folder without a manifest: its workbooks, found",
			files:   []string{"in/", "in/a.xlsx", "in/b.XLSX", "in/c.csv"},
			sources: []string{"in"},
			b:       Backends{Files: files},
			want: opened{Refs: []ref{
				{Path: "DIR/in/a.xlsx", Found: true},
				{Path: "DIR/in/b.XLSX", Found: true},
			}},
		},
		{
			name:    "a spreadsheet link",
			sources: []string{"sheet:1AbC"},
			b:       Backends{Spreadsheets: fakeSheets{}},
			want:    opened{Refs: []ref{{Path: "sheet:1AbC", Spreadsheet: "1AbC"}}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, f := range c.files {
				path := filepath.Join(dir, f)
				if strings.HasSuffix(f, "/") {
					if err := os.MkdirAll(path, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				touch(t, path)
			}
			if _, err := os.Stat(filepath.Join(dir, "study")); err == nil {
				writeManifest(t, filepath.Join(dir, "study"))
			}
			var sources []string
			for _, s := range c.sources {
				if !strings.HasPrefix(s, "sheet:") {
					s = filepath.Join(dir, s)
				}
				sources = append(sources, s)
			}
			src, err := Open(sources, c.b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, openedOf(src, dir)); diff != "" {
				t.Errorf("Open(%q) (-want +got):\n%s", c.sources, diff)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		setup   func(t *testing.T, dir string) // makes what the source names
		source  string                         // joined to the test's folder
		b       Backends
		want    string // the error, with the test's folder as DIR
		wantErr error
	}{
		{
			name: "a corrupt manifest in a study's folder",
			setup: func(t *testing.T, dir string) {
				os.Mkdir(filepath.Join(dir, "study"), 0o755)
				os.WriteFile(filepath.Join(dir, "study", "manifest.json"), []byte(`{"schema": "annosheet.manif`), 0o644)
			},
			source:  "study",
			want:    "DIR/study/manifest.json: not an annosheet manifest: unexpected end of JSON input",
			wantErr: manifest.ErrNotManifest,
		},
		{
			name: "a manifest of something else",
			setup: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"schema": "other/1"}`), 0o644)
			},
			source:  "manifest.json",
			want:    `DIR/manifest.json: not an annosheet manifest (schema "other/1", want "annosheet.manifest/1")`,
			wantErr: manifest.ErrNotManifest,
		},
		{
			name: "a manifest that cannot be read",
			setup: func(t *testing.T, dir string) {
				os.MkdirAll(filepath.Join(dir, "study", "manifest.json"), 0o755)
			},
			source: "study",
			want:   "manifest DIR/study/manifest.json: read DIR/study/manifest.json: is a directory",
		},
		{
			name:    "a path that is not there",
			setup:   func(t *testing.T, dir string) {},
			source:  "nope.xlsx",
			b:       Backends{Spreadsheets: fakeSheets{}},
			want:    "source DIR/nope.xlsx: stat DIR/nope.xlsx: no such file or directory (not a file, a folder, or a spreadsheet link)",
			wantErr: fs.ErrNotExist,
		},
		{
			name:   "a folder without workbooks",
			setup:  func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, "empty"), 0o755) },
			source: "empty",
			want:   "source DIR/empty: no workbooks in the folder",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c.setup(t, dir)
			_, err := Open([]string{filepath.Join(dir, c.source)}, c.b)
			if err == nil {
				t.Fatalf("Open(%q): no error, want %s", c.source, c.want)
			}
			if got := strings.ReplaceAll(err.Error(), dir, "DIR"); got != c.want {
				t.Errorf("Open(%q): error\n%s\nwant\n%s", c.source, got, c.want)
			}
			if c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Errorf("Open(%q): error %v is not %v", c.source, err, c.wantErr)
			}
		})
	}
}
