//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGenerateSignalInCheck stops generate with SIGINT while it is still
// checking a large input, before any workbook: it must stop reading the
// input at once, say that nothing was written, exit 1, and leave no
// folder, workbook or manifest. How far it read is what Linux counts of
// the process's reads (/proc/PID/io), not a time.
func TestGenerateSignalInCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and checks a large input")
	}
	if _, err := bytesRead(os.Getpid()); err != nil {
		t.Skipf("cannot see how much a process reads: %v", err)
	}
	t.Parallel()
	tmp := t.TempDir()
	bin := buildCLI(t, tmp)
	in := filepath.Join(tmp, "large.jsonl")
	writeLargeLegalInput(t, in, 2000)
	st, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()

	for name, extra := range map[string][]string{
		"one workbook": nil,
		"batches":      {"--annotators", "A,B,C", "--batch-size", "150"},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "study")
			p := startCLI(t, bin, append([]string{"generate", "-t", "legal-gaps", "-i", in, "-o", out}, extra...)...)
			cmd, exited, stderr := p.cmd, p.exited, &p.stderr

			// Interrupted once it has read a few megabytes of the input,
			// well into the check.
			pid := cmd.Process.Pid
			var err error
			for read := int64(0); read < 8<<20; {
				select {
				case err = <-exited:
					t.Fatalf("generate ended (%v) before it was interrupted: make the input larger\nstderr: %s", err, stderr.String())
				case <-time.After(time.Millisecond):
				}
				read, _ = bytesRead(pid)
			}
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			// How much it reads before it ends. (The deadline only keeps
			// a run that never ends from holding the tests up.)
			most := int64(0)
			hung := time.After(time.Minute)
		wait:
			for {
				if n, err := bytesRead(pid); err == nil {
					most = max(most, n)
				}
				select {
				case err = <-exited:
					break wait
				case <-hung:
					t.Fatalf("generate still runs a minute after SIGINT\nstderr: %s", stderr.String())
				case <-time.After(time.Millisecond):
				}
			}

			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
				t.Fatalf("after SIGINT: %v, want exit status %d\nstderr: %s", err, exitFailure, stderr.String())
			}
			if want := "annosheet: interrupted: nothing was written; run the same command again\n"; stderr.String() != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
			}
			if _, err := os.Lstat(out); !os.IsNotExist(err) {
				es, _ := os.ReadDir(out)
				t.Errorf("the interrupted check left %s (%v): %v", out, err, es)
			}
			// The read-ahead holds a few megabytes at most: the check
			// did not go on to the end of the input.
			if most > size/2 {
				t.Errorf("generate read %d bytes of a %d-byte input: it went on checking after SIGINT", most, size)
			}
			t.Logf("interrupted after reading %.1f of %.1f MB", float64(most)/(1<<20), float64(size)/(1<<20))
		})
	}
}

// bytesRead is how many bytes process pid has read so far (its rchar).
func bytesRead(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "rchar: "); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no rchar")
}
