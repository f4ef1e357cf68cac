//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.xlsx")
	if err := Write(p, false, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "hello" {
		t.Errorf("content %q", b)
	}
	st, _ := os.Stat(p)
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if want := os.FileMode(0o644) &^ os.FileMode(umask); st.Mode().Perm() != want {
		t.Errorf("mode %v, want %v", st.Mode().Perm(), want)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
}

func TestWriteRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.xlsx")
	os.WriteFile(p, []byte("old"), 0o644)
	called := false
	err := Write(p, false, 0o644, func(w io.Writer) error { called = true; return nil })
	if !errors.Is(err, ErrExists) || called {
		t.Errorf("err %v, fn called %v", err, called)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("existing file changed to %q", b)
	}
	if err := Write(p, true, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("overwrite gave %q", b)
	}
}

// TestWriteFailureLeavesNothing checks that a failed render leaves the old
// file (or no file) and no temporary file.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("boom")
	p := filepath.Join(dir, "new.xlsx")
	err := Write(p, false, 0o644, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("files left after a failure: %v", names)
	}
	old := filepath.Join(dir, "old.xlsx")
	os.WriteFile(old, []byte("keep me"), 0o644)
	Write(old, true, 0o644, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if b, _ := os.ReadFile(old); string(b) != "keep me" {
		t.Errorf("failed overwrite changed the file to %q", b)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("files left after a failed overwrite: %v", names)
	}
}

// TestWriteRaceWithoutOverwrite checks that a file appearing while the new
// one is rendered is not replaced.
func TestWriteRaceWithoutOverwrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.xlsx")
	err := Write(p, false, 0o644, func(w io.Writer) error {
		return os.WriteFile(p, []byte("someone else"), 0o644)
	})
	if !errors.Is(err, ErrExists) {
		t.Errorf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "someone else" {
		t.Errorf("the other file was replaced: %q", b)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
}
