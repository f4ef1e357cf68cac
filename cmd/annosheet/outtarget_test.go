//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutTargets gives every command that writes a file --out paths that
// are not a regular file, with --force: a folder, a symbolic link (to a
// file, to the null device), a named pipe, and a path in a folder that
// does not exist. Each is refused with one line naming it, and what was
// there is left as it was.
func TestOutTargets(t *testing.T) {
	t.Parallel()
	dir, _ := legalStudy(t)
	recs := filepath.Join(t.TempDir(), "a.jsonl")
	if code, _, errs := runCLI(t, "pull", dir, "--out", recs); code != 0 {
		t.Fatalf("pull: %s", errs)
	}
	commands := map[string][]string{
		"pull":          {"pull", dir},
		"export native": {"export", recs, "--native", "--manifest", filepath.Join(dir, "manifest.json")},
		"export table":  {"export", recs, "--table", "long"},
		"agree":         {"agree", recs},
		"report":        {"report", recs},
		"silver set":    {"adjudicate", recs, "--resolve", "majority"},
		"pull report":   {"pull", dir, "--out", filepath.Join(t.TempDir(), "x.jsonl"), "--report"},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The names end as the command's output must.
			ext := map[string]string{"export table": ".csv", "report": ".html", "agree": ".txt"}[name]
			if ext == "" {
				ext = ".jsonl"
			}
			base := t.TempDir()
			file := filepath.Join(base, "file.txt")
			if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			type target struct {
				name, path string
				kind       os.FileMode
				want       string
			}
			targets := []target{
				{name: "folder", path: filepath.Join(base, "folder"+ext), kind: os.ModeDir, want: "a folder, not a regular file"},
				{name: "link", path: filepath.Join(base, "link"+ext), kind: os.ModeSymlink, want: "a symbolic link, not a regular file"},
				{name: "link to the null device", path: filepath.Join(base, "null"+ext), kind: os.ModeSymlink, want: "a symbolic link, not a regular file"},
				{name: "pipe", path: filepath.Join(base, "pipe"+ext), kind: os.ModeNamedPipe, want: "a named pipe, not a regular file"},
				{name: "missing folder", path: filepath.Join(base, "missing", "out"+ext), want: "no such folder " + filepath.Join(base, "missing")},
			}
			must := func(err error) {
				if err != nil {
					t.Fatal(err)
				}
			}
			must(os.Mkdir(targets[0].path, 0o755))
			must(os.Symlink(file, targets[1].path))
			must(os.Symlink(os.DevNull, targets[2].path))
			must(syscall.Mkfifo(targets[3].path, 0o644))
			for _, tg := range targets {
				a := append([]string{}, args...)
				if a[len(a)-1] == "--report" || a[len(a)-1] == "--out" {
					a = append(a, tg.path)
				} else {
					a = append(a, "--out", tg.path)
				}
				code, _, errs := runCLI(t, append(a, "--force")...)
				wantCode, wantMsg := exitFailure, tg.path+": "+tg.want
				if name == "silver set" && tg.name == "folder" {
					// A folder is what adjudicate writes without
					// --resolve: said in the command line's words.
					wantCode, wantMsg = exitUsage, tg.path+" is a folder: with --resolve, give the .jsonl file"
				}
				if code != wantCode || !strings.Contains(errs, wantMsg) || strings.Contains(errs, ".tmp-") {
					t.Errorf("--out %s: exit %d, want %d and %q:\n%s", tg.name, code, wantCode, wantMsg, errs)
				}
				if tg.kind != 0 {
					if st, err := os.Lstat(tg.path); err != nil || st.Mode().Type() != tg.kind {
						t.Errorf("--out %s: now %v (%v)", tg.name, st.Mode().Type(), err)
					}
				}
			}
			if b, _ := os.ReadFile(file); string(b) != "keep" {
				t.Errorf("the file a link pointed to became %q", b)
			}
		})
	}
}
