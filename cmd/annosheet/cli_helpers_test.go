package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeSection is the README's section under a heading ("## …"), to the
// next heading of its level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), heading+"\n")
	if !ok {
		t.Fatalf("the README has no section %q", heading)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	return sec
}

// readmeWalk is a folder with copies of the repository's folders given
// (relative to its root) and the annosheet binary built into it, as a new
// user's clone has them; run runs the binary there and gives its stdout
// and stderr, failing the test when it fails.
type readmeWalk struct {
	t        *testing.T
	dir, bin string
}

func newReadmeWalk(t *testing.T, folders ...string) *readmeWalk {
	t.Helper()
	dir := t.TempDir()
	for _, f := range folders {
		if err := os.CopyFS(filepath.Join(dir, f), os.DirFS(filepath.Join("../..", f))); err != nil {
			t.Fatal(err)
		}
	}
	return &readmeWalk{t: t, dir: dir, bin: buildCLI(t, dir)}
}

func (w *readmeWalk) run(args ...string) (stdout, stderr string) {
	w.t.Helper()
	c := exec.Command(w.bin, args...)
	c.Dir = w.dir
	var errb strings.Builder
	c.Stderr = &errb
	out, err := c.Output()
	if err != nil {
		w.t.Fatalf("%v: %v\n%s", args, err, errb.String())
	}
	return string(out), errb.String()
}

// typed runs a command as the README writes it ("./annosheet …", lines
// continued with a backslash).
func (w *readmeWalk) typed(command string) (stdout, stderr string) {
	w.t.Helper()
	args := strings.Fields(strings.ReplaceAll(command, "\\\n", " "))
	if len(args) == 0 || args[0] != "./annosheet" {
		w.t.Fatalf("the README's command: %q", command)
	}
	return w.run(args[1:]...)
}

// problemLines are the lines of stderr that start with a file's name,
// the folder it is in (dir) taken off.
func problemLines(stderr, dir, file string) []string {
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(stderr, dir+string(filepath.Separator), ""), "\n") {
		if strings.HasPrefix(line, file+":") {
			out = append(out, line)
		}
	}
	return out
}
