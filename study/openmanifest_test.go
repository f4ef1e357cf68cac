package study_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/study"
)

// TestOpenManifestRefuses: what is not a study's manifest is said to be
// not one, naming it, never taken for a study without one.
func TestOpenManifestRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"hello": "world"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{other, dir} {
		m, err := study.OpenManifest(path)
		if m != nil || err == nil {
			t.Errorf("%s: got %v, %v; want an error", path, m, err)
			continue
		}
		if path == other && !errors.Is(err, manifest.ErrNotManifest) {
			t.Errorf("%s: %v, want ErrNotManifest", path, err)
		}
	}
}
