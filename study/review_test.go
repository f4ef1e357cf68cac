package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
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
	copied.set("ak-b01", "F3", "TRUE")
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
