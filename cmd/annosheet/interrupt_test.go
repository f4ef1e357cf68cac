package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInterruptedReads: pull, status and export stopped by Ctrl-C say so,
// write nothing and exit 1.
func TestInterruptedReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	study := filepath.Join(dir, "study")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", study); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"pull", study, "-o", filepath.Join(dir, "out.jsonl")},
		{"status", study},
		{"export", study, "--native", "-o", filepath.Join(dir, "labels.jsonl")},
	} {
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"annosheet"}, args...), strings.NewReader(""), &out, &errb)
		if code != exitFailure || !strings.Contains(errb.String(), "interrupted: nothing was written; run the same command again") {
			t.Errorf("%s: exit %d: %s", args[0], code, errb.String())
		}
	}
	for _, name := range []string{"out.jsonl", "labels.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s was written: %v", name, err)
		}
	}
}
