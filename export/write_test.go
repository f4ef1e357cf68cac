package export

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/internal/atomicfile"
)

// TestPaths: an annotator's ID goes where {annotator} is, or before the
// extension when there are several files, and never names another
// folder; two files at one path are refused.
func TestPaths(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"AK": "out-AK.json", "../up": "out-_._up.json", "a/b": "out-a_b.json", "..": "out-__.json"} {
		if got := annotatorPath("out.json", in, 2); got != filepath.Clean(want) && got != want {
			t.Errorf("annotatorPath(%q) = %q, want %q", in, got, want)
		}
	}
	got, err := Paths([]File{{Annotator: "ak"}, {Annotator: "bt"}}, "labels_{annotator}.json")
	if diff := cmp.Diff([]string{"labels_ak.json", "labels_bt.json"}, got); err != nil || diff != "" {
		t.Errorf("paths (-want +got):\n%s (%v)", diff, err)
	}
	if got, err := Paths([]File{{}}, "all.json"); err != nil || len(got) != 1 || got[0] != "all.json" {
		t.Errorf("one file for all: %v, %v", got, err)
	}
	if _, err := Paths([]File{{Annotator: "AK"}, {Annotator: "ak"}}, "l_{annotator}.json"); !errors.Is(err, ErrSamePath) {
		t.Errorf("IDs that differ in case only: %v, want ErrSamePath", err)
	}
}

// TestWriteFiles: every path is checked before any file is written; a
// file there is named and kept unless force.
func TestWriteFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "l_{annotator}.json")
	there := filepath.Join(dir, "l_bt.json")
	if err := os.WriteFile(there, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []File{{Annotator: "ak", Data: []byte("a")}, {Annotator: "bt", Data: []byte("b")}}
	var wrote []string
	err := WriteFiles(files, out, false, func(p string, _ File) { wrote = append(wrote, p) })
	if !errors.Is(err, atomicfile.ErrExists) || len(wrote) != 0 {
		t.Errorf("error %v, wrote %v; want ErrExists and nothing written", err, wrote)
	}
	if _, err := os.Stat(filepath.Join(dir, "l_ak.json")); !os.IsNotExist(err) {
		t.Errorf("ak's file was written before the check: %v", err)
	}
	if err := WriteFiles(files, out, true, func(p string, _ File) { wrote = append(wrote, p) }); err != nil || len(wrote) != 2 {
		t.Fatalf("with force: %v, wrote %v", err, wrote)
	}
	if b, _ := os.ReadFile(there); string(b) != "b" {
		t.Errorf("bt's file holds %q", b)
	}
}
