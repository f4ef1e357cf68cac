package study

import (
	"context"
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
