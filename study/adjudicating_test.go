package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// TestResolveTo: the silver set is written to its file, one record per
// unit, a tie unresolved; a file there is replaced only with force, and
// is left as it was without.
func TestResolveTo(t *testing.T) {
	t.Parallel()
	tp := newAdjRun(t, backend.KindXLSX).tp
	recs := legalRecs(tp, "u1 ann1 0", "u1 ann2 0", "u2 ann1 1", "u2 ann2 2", "u3 ann1 1", "u3 ann2 1", "u3 ann3 2")
	dir := t.TempDir()
	old := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(old, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		path  string
		force bool
		err   error
	}{
		{name: "a new file", path: filepath.Join(dir, "silver.jsonl")},
		{name: "a file there", path: old, err: atomicfile.ErrExists},
		{name: "a file there, with force", path: old, force: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, found, err := ResolveTo(tc.path, tc.force, tp, recs, nil, adjudicate.ResolveMajority, adjudicate.Options{MinAgreement: 2})
			b, rerr := os.ReadFile(tc.path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) || string(b) != "kept\n" {
					t.Errorf("ResolveTo: %v, the file holds %q; want %v and the file as it was", err, b, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Records) != 3 || g.Unresolved != 1 || len(found.Annotators) != 3 || len(found.Items) != 1 {
				t.Errorf("%d records, %d unresolved; %d annotators, %d disagreements", len(g.Records), g.Unresolved, len(found.Annotators), len(found.Items))
			}
			got, _, err := records.Read(strings.NewReader(string(b)), tc.path, func(records.TemplateID) (*templates.Template, error) { return tp, nil })
			if err != nil || len(got) != len(g.Records) {
				t.Errorf("written: %d records, %v; want %d", len(got), err, len(g.Records))
			}
		})
	}
}

// TestAdjudicateMakesItsFolder: an adjudication's folder, and the
// folders above it, are made when they are not there.
func TestAdjudicateMakesItsFolder(t *testing.T) {
	t.Parallel()
	a := newAdjRun(t, backend.KindXLSX)
	a.opt.Dir = filepath.Join(a.dir, "new", "adjudication")
	a.mustRun(legalRecs(a.tp, "u1 ann1 0", "u1 ann2 1"))
	if _, err := os.Stat(filepath.Join(a.opt.Dir, adjudicate.ManifestFile)); err != nil {
		t.Errorf("the manifest: %v", err)
	}
	a.opt.Dir = filepath.Join(a.dir, "new", "adjudication", adjudicate.ManifestFile, "under")
	if _, err := a.run(legalRecs(a.tp, "u1 ann1 0", "u1 ann2 1")); err == nil {
		t.Error("a folder under a file: no error")
	}
}

// connectingAdjStore is an adjudication's store that connects, as
// Google's does.
type connectingAdjStore struct {
	*adjStore
	err       error
	connected int
}

func (s *connectingAdjStore) Connect(context.Context) error {
	s.connected++
	return s.err
}

// TestAdjudicateConnectsFirst: a store that connects is connected once,
// before the adjudication's folder is made; one that cannot be reached
// stops it before anything is written.
func TestAdjudicateConnectsFirst(t *testing.T) {
	t.Parallel()
	errRefused := errors.New("endpoint refused")
	for _, refused := range []error{nil, errRefused} {
		a := newAdjRun(t, backend.KindGSheets)
		a.opt.Dir = filepath.Join(a.dir, "adjudication")
		s := &connectingAdjStore{adjStore: a.store, err: refused}
		_, err := Adjudicate(context.Background(), a.tp, legalRecs(a.tp, "u1 ann1 0", "u1 ann2 1"), a.opt, a.store.backends(), s)
		if !errors.Is(err, refused) || refused == nil && err != nil {
			t.Fatalf("refused %v: error %v", refused, err)
		}
		if s.connected != 1 {
			t.Errorf("refused %v: connected %d times, want once", refused, s.connected)
		}
		_, statErr := os.Stat(a.opt.Dir)
		if made := statErr == nil; made != (refused == nil) || len(a.store.books) > 0 != (refused == nil) {
			t.Errorf("refused %v: folder made %v, %d workbooks", refused, made, len(a.store.books))
		}
	}
}
