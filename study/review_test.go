package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
)

// TestPullLooseBesideManifestsOfOtherStudies: a workbook given beside the
// manifests of two studies, of neither, is refused with a warning, not
// read as extra records.
func TestPullLooseBesideManifestsOfOtherStudies(t *testing.T) {
	t.Parallel()
	m, other, third := makeStudy(t), makeStudy(t), makeStudy(t)
	files := &fakeFiles{books: map[string]func() (*backend.Grid, func() error, error){}}
	for _, s := range []*made{m, other, third} {
		for path, open := range s.files.books {
			files.books[path] = open
		}
	}
	stray := third.path(0)
	touch(t, stray)
	src, err := Open([]string{filepath.Join(m.dir, manifest.FileName), filepath.Join(other.dir, manifest.FileName), stray}, Backends{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pull(context.Background(), src, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Workbooks {
		if w.File == stray {
			t.Errorf("%s, of study %s, was read beside the manifests of studies %s and %s", stray, third.gen.Manifest.Study, m.gen.Manifest.Study, other.gen.Manifest.Study)
		}
	}
	warned := false
	for _, p := range res.Problems {
		warned = warned || p.File == stray && strings.Contains(p.Message, "not read")
	}
	if !warned {
		t.Errorf("no warning names %s: %v", stray, res.Problems)
	}
}

// TestPullStudyFolderCopy: a copy of the study's folder (returned as a
// whole by an annotator, manifest and all) is read as copies of the
// study's batches, not passed over as "the same study given twice".
func TestPullStudyFolderCopy(t *testing.T) {
	t.Parallel()
	m := makeStudy(t)
	back := t.TempDir()
	data, err := os.ReadFile(filepath.Join(m.dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(back, manifest.FileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	returned := filepath.Join(back, m.gen.Manifest.Batches[0].File)
	touch(t, returned)
	copied := &memWriter{books: map[string]map[string][][]string{}, order: m.w.order}
	copied.books["ak-b01"] = cloneBook(m.w.books["ak-b01"])
	copied.set("ak-b01", "B3", "TRUE")
	m.files.serve(returned, copied, m.gen.Manifest.Batches[0])

	src, err := Open([]string{m.dir, back}, Backends{Files: m.files})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pull(context.Background(), src, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, r := range res.Records {
		if r.Batch == "ak-b01" && r.Unit == "gpt4o-12" {
			got = r.Status
		}
	}
	if got != "complete" {
		t.Errorf("unit gpt4o-12, answered in %s, is %q, want complete (workbooks read: %v)", returned, got, res.Workbooks)
	}
}

// gsheetsMem is memWriter posing as the Sheets backend.
type gsheetsMem struct{ *memWriter }

func (gsheetsMem) Limits() backend.Limits { return backend.GSheets }

// TestGenerateOverAnotherFormat: a study of another format in the folder
// is replaced only with DiscardAnswers: this run's backend cannot tell
// whether its workbooks hold answers, and the manifest that leads to them
// is replaced.
func TestGenerateOverAnotherFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// between changes the first run's study; store is the second run's.
		between func(t *testing.T, w *memWriter, path string)
		store   func(w *memWriter) backend.Store
	}{
		{
			name: "XLSX workbooks with answers, then Sheets",
			between: func(t *testing.T, w *memWriter, path string) {
				w.set("ak-b01", "B2", "TRUE")
				// The files the XLSX backend would have written.
				touch(t, filepath.Join(filepath.Dir(path), "legal-gaps-ak-b01.xlsx"))
				touch(t, filepath.Join(filepath.Dir(path), "legal-gaps-bt-b01.xlsx"))
			},
			store: func(w *memWriter) backend.Store { return gsheetsMem{w} },
		},
		{
			name: "spreadsheets, then XLSX",
			between: func(t *testing.T, w *memWriter, path string) {
				m, err := manifest.Read(path)
				if err != nil {
					t.Fatal(err)
				}
				m.Format = FormatGSheets
				for i := range m.Batches {
					b := &m.Batches[i]
					b.File, b.Spreadsheet = "", &manifest.Spreadsheet{ID: "sheet" + b.ID, URL: "https://example.invalid/" + b.ID, Status: manifest.Complete}
				}
				if err := atomicfile.Write(path, true, 0o644, m.Encode); err != nil {
					t.Fatal(err)
				}
				w.books = nil
			},
			store: func(w *memWriter) backend.Store { return w },
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, w, opt, first := generateOnce(t)
			c.between(t, w, first.Path)
			before, err := os.ReadFile(first.Path)
			if err != nil {
				t.Fatal(err)
			}
			opt.Force = true
			_, err = Generate(context.Background(), opt, legalRecords(t, opt.Template), c.store(w))
			if !errors.Is(err, ErrUnknownAnswers) {
				t.Errorf("Generate --force over a study of another format: error %v, want %v", err, ErrUnknownAnswers)
			}
			after, err := os.ReadFile(first.Path)
			if err != nil || string(after) != string(before) {
				t.Errorf("the previous study's manifest was replaced (%v)", err)
			}
			opt.DiscardAnswers = true
			if _, err := Generate(context.Background(), opt, legalRecords(t, opt.Template), c.store(w)); err != nil {
				t.Errorf("Generate with DiscardAnswers: %v", err)
			}
		})
	}
}

// TestPullDamagedOriginalBesideCopy: a listed workbook that cannot be read
// is reported even when a returned copy of its batch is read: it may hold
// answers the copy does not.
func TestPullDamagedOriginalBesideCopy(t *testing.T) {
	t.Parallel()
	m := makeStudy(t)
	back := filepath.Join(m.dir, "legal-gaps-ak-b01 (returned).xlsx")
	touch(t, back)
	m.files.serve(back, m.w, m.gen.Manifest.Batches[0])
	m.files.fail(m.path(0), fmt.Errorf("%s: %w", m.path(0), errDamaged))
	src, err := Open([]string{m.dir}, Backends{Files: m.files})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pull(context.Background(), src, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range res.Problems {
		found = found || p.File == m.path(0) && errors.Is(p, errDamaged)
	}
	if !found {
		t.Errorf("no problem says %s could not be read: %v", m.path(0), res.Problems)
	}
}
