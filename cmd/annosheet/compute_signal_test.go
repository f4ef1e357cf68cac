//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestComputeSignals stops agree and report, run as their own processes,
// with SIGINT or SIGTERM while they compute over a study that keeps them
// busy for seconds (agree --ci with a million resamples would take
// hours): each must end within two seconds, say it was interrupted, write
// nothing and exit 1.
func TestComputeSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and computes over a large study")
	}
	t.Parallel()
	tmp := t.TempDir()
	bin := buildCLI(t, tmp)
	recs := filepath.Join(tmp, "records.jsonl")
	writeLegalRecords(t, recs, 20_000)
	out := filepath.Join(tmp, "out")
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		args []string
	}{
		{"agree SIGINT", syscall.SIGINT, []string{"agree", recs, "--ci", "0.95", "--resamples", "1000000", "--json", "--out", out}},
		{"agree SIGTERM", syscall.SIGTERM, []string{"agree", recs, "--ci", "0.95", "--resamples", "1000000", "--out", out}},
		{"report SIGINT", syscall.SIGINT, []string{"report", recs, "--out", out}},
	} {
		// One at a time: each must have the machine to itself to be
		// held to its two seconds.
		p := startCLI(t, bin, c.args...)
		cmd, exited, stdout, stderr := p.cmd, p.exited, &p.stdout, &p.stderr
		// Reading the records takes a fraction of a second, computing
		// takes seconds (report) or hours (agree): a second in, it
		// computes.
		select {
		case err := <-exited:
			t.Fatalf("%s ended (%v) before it was signalled: make the study larger\n%s", c.name, err, stderr.String())
		case <-time.After(time.Second):
		}
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		signalled := time.Now()
		var err error
		select {
		case err = <-exited:
			t.Logf("%s: exited %v after the signal", c.name, time.Since(signalled).Round(time.Millisecond))
		case <-time.After(2 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: still runs 2 s after %v\nstderr: %s", c.name, c.sig, stderr.String())
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
			t.Errorf("%s: %v, want exit status %d\nstderr: %s", c.name, err, exitFailure, stderr.String())
		}
		if want := "annosheet: interrupted: nothing was written; run the same command again\n"; stderr.String() != want || stdout.Len() > 0 {
			t.Errorf("%s: stdout %q, stderr %q; want nothing and %q", c.name, stdout.String(), stderr.String(), want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %s was written (%v)", c.name, out, err)
		}
	}
}

// writeLegalRecords writes pulled records of legal-gaps: units × 3
// annotators, each unit's gaps mostly agreed on.
func writeLegalRecords(t *testing.T, path string, units int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	r := rand.New(rand.NewPCG(63, 64))
	for u := range units {
		base := r.IntN(4)
		for _, who := range []string{"ak", "bt", "cm"} {
			gap := base
			if r.IntN(10) < 3 {
				gap = r.IntN(4)
			}
			id := fmt.Sprintf("u%06d", u)
			if err := enc.Encode(map[string]any{
				"schema": "annosheet.annotation/1", "template": map[string]any{"name": "legal-gaps", "version": 1},
				"unit": id, "item": id, "annotator": who, "status": "complete",
				"values": map[string]any{"gaps": []string{fmt.Sprint(gap)}, "note": strings.Repeat("fine ", r.IntN(3))},
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
