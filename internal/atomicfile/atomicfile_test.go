//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
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

// TestWriteNeverReplacesOtherKinds checks that a target that is not a
// regular file (a folder, a link, a pipe, a socket, a device) is refused,
// with overwrite or without, before anything is rendered, and left as it
// was.
func TestWriteNeverReplacesOtherKinds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular.parquet")
	if err := os.WriteFile(regular, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	type target struct {
		name string
		make func(p string) error
		mode os.FileMode // the type bits it must keep
	}
	targets := []target{
		{"folder", func(p string) error { return os.Mkdir(p, 0o755) }, os.ModeDir},
		{"link to a file", func(p string) error { return os.Symlink(regular, p) }, os.ModeSymlink},
		{"link to the null device", func(p string) error { return os.Symlink(os.DevNull, p) }, os.ModeSymlink},
		{"dangling link", func(p string) error { return os.Symlink(filepath.Join(dir, "nowhere"), p) }, os.ModeSymlink},
		{"named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) }, os.ModeNamedPipe},
		{"socket", func(p string) error {
			l, err := net.Listen("unix", p)
			if err == nil {
				t.Cleanup(func() { l.Close() })
			}
			return err
		}, os.ModeSocket},
	}
	if os.Geteuid() == 0 {
		// A character device like the null device (1, 3); only root
		// can make one.
		targets = append(targets, target{"character device", func(p string) error {
			return syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3)
		}, os.ModeDevice | os.ModeCharDevice})
	}
	for i, tc := range targets {
		for _, overwrite := range []bool{false, true} {
			p := filepath.Join(dir, fmt.Sprintf("t%d-%v.parquet", i, overwrite))
			if err := tc.make(p); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			called := false
			err := Write(p, overwrite, 0o644, func(w io.Writer) error { called = true; _, err := io.WriteString(w, "new"); return err })
			var nf *NotFileError
			if !errors.Is(err, ErrNotFile) || !errors.As(err, &nf) || nf.Path != p {
				t.Errorf("%s (overwrite %v): err %v, want ErrNotFile naming %s", tc.name, overwrite, err, p)
			}
			if called {
				t.Errorf("%s (overwrite %v): rendered before it was refused", tc.name, overwrite)
			}
			st, lerr := os.Lstat(p)
			if lerr != nil || st.Mode().Type() != tc.mode {
				t.Errorf("%s (overwrite %v): now %v (%v), want type %v kept", tc.name, overwrite, st.Mode().Type(), lerr, tc.mode)
			}
		}
	}
	if b, _ := os.ReadFile(regular); string(b) != "data" {
		t.Errorf("the file a link points to became %q", b)
	}
	for _, n := range entries(t, dir) {
		if strings.Contains(n, ".tmp-") {
			t.Errorf("temporary file left: %s", n)
		}
	}
}

// TestWriteBecomesOtherKind checks that a target replaced by a link while
// the new file is rendered is not replaced in turn.
func TestWriteBecomesOtherKind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	os.WriteFile(p, []byte("old"), 0o644)
	err := Write(p, true, 0o644, func(w io.Writer) error {
		if err := os.Remove(p); err != nil {
			return err
		}
		return os.Symlink(os.DevNull, p)
	})
	if !errors.Is(err, ErrNotFile) {
		t.Errorf("err %v, want ErrNotFile", err)
	}
	if st, err := os.Lstat(p); err != nil || st.Mode().Type() != os.ModeSymlink {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
}

// TestWriteMissingFolder checks that a missing folder is named as such,
// by its own name, never by the temporary file's.
func TestWriteMissingFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	os.WriteFile(file, nil, 0o644)
	for _, p := range []string{
		filepath.Join(dir, "missing", "out.jsonl"),
		filepath.Join(file, "out.jsonl"), // a file where the folder should be
	} {
		called := false
		err := Write(p, true, 0o644, func(io.Writer) error { called = true; return nil })
		if !errors.Is(err, ErrNoFolder) || called {
			t.Errorf("%s: err %v (called %v), want ErrNoFolder", p, err, called)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, filepath.Dir(p)) || strings.Contains(msg, ".tmp-") {
			t.Errorf("%s: %q should name the folder %s and no temporary file", p, msg, filepath.Dir(p))
		}
	}
}

// TestWriteExpect checks that a file read before it is replaced is
// replaced only while it is still what was read.
func TestWriteExpect(t *testing.T) {
	t.Parallel()
	render := func(s string) func(w io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	cases := []struct {
		name    string
		before  string // the file when stamped ("" for none)
		meddle  func(p string) error
		during  bool // meddle while rendering, else between stamp and write
		want    error
		content string // what the path holds afterwards ("" for nothing)
	}{
		{name: "unchanged", before: "decisions", content: "new"},
		{name: "nothing there, still nothing", content: "new"},
		{name: "saved with other content", before: "decisions", meddle: func(p string) error { return os.WriteFile(p, []byte("decisions + 1"), 0o644) }, want: ErrChanged, content: "decisions + 1"},
		{name: "saved with the same size and time", before: "decision A", meddle: func(p string) error {
			st, _ := os.Stat(p)
			if err := os.WriteFile(p, []byte("decision B"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, st.ModTime(), st.ModTime())
		}, want: ErrChanged, content: "decision B"},
		{name: "saved while rendering", before: "decisions", during: true, meddle: func(p string) error { return os.WriteFile(p, []byte("saved meanwhile"), 0o644) }, want: ErrChanged, content: "saved meanwhile"},
		{name: "appeared while rendering", during: true, meddle: func(p string) error { return os.WriteFile(p, []byte("someone's"), 0o644) }, want: ErrChanged, content: "someone's"},
		{name: "removed", before: "decisions", meddle: os.Remove, want: ErrChanged},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, "adjudicate-lead.xlsx")
			if tc.before != "" {
				os.WriteFile(p, []byte(tc.before), 0o644)
			}
			stamp, err := Stamp(p)
			if err != nil {
				t.Fatal(err)
			}
			if (stamp == "") != (tc.before == "") {
				t.Fatalf("stamp %q of %q", stamp, tc.before)
			}
			if tc.meddle != nil && !tc.during {
				if err := tc.meddle(p); err != nil {
					t.Fatal(err)
				}
			}
			err = WriteWith(p, Options{Perm: 0o644, Expect: &stamp}, func(w io.Writer) error {
				if tc.meddle != nil && tc.during {
					if err := tc.meddle(p); err != nil {
						return err
					}
				}
				return render("new")(w)
			})
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("err %v, want %v", err, tc.want)
			}
			if b, _ := os.ReadFile(p); string(b) != tc.content {
				t.Errorf("content %q, want %q", b, tc.content)
			}
			for _, n := range entries(t, dir) {
				if strings.Contains(n, ".tmp-") {
					t.Errorf("temporary file left: %s", n)
				}
			}
		})
	}
}

// TestWriteWithoutHardLinks: where the file system makes no hard links,
// a new file is still made, and one that is there is still neither
// replaced without overwrite nor when it appeared after it was read.
func TestWriteWithoutHardLinks(t *testing.T) {
	old := link
	link = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} }
	t.Cleanup(func() { link = old })
	dir := t.TempDir()
	p := filepath.Join(dir, "new.xlsx")
	if err := Write(p, false, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "made"); return err }); err != nil {
		t.Fatalf("a new file: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "made" {
		t.Errorf("content %q", b)
	}
	if err := Write(p, false, 0o644, func(io.Writer) error { return nil }); !errors.Is(err, ErrExists) {
		t.Errorf("over a file, without overwrite: %v", err)
	}
	none := ""
	q := filepath.Join(dir, "appeared.xlsx")
	err := WriteWith(q, Options{Perm: 0o644, Expect: &none}, func(io.Writer) error { return os.WriteFile(q, []byte("someone's"), 0o644) })
	if !errors.Is(err, ErrChanged) {
		t.Errorf("over a file that appeared: %v", err)
	}
	if b, _ := os.ReadFile(q); string(b) != "someone's" {
		t.Errorf("the file that appeared became %q", b)
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Errorf("files left: %v", names)
	}
}
