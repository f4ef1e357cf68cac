package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStatusTwoStudies: two studies given together keep their batches
// apart in the table, each named with its study's folder.
func TestStatusTwoStudies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, s := range []string{"pilot", "main"} {
		if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", filepath.Join(dir, s),
			"--annotators", "ak,bt", "--overlap", "2", "--seed", "1"); code != 0 {
			t.Fatalf("generate %s: exit %d: %s", s, code, errs)
		}
	}
	code, out, errs := runCLI(t, "status", filepath.Join(dir, "pilot"), filepath.Join(dir, "main"))
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errs)
	}
	for _, s := range []string{"pilot", "main"} {
		for _, b := range []string{"ak-b01", "bt-b01"} {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(filepath.Join(dir, s)+": "+b) + ` +\S+ +5 `).MatchString(out) {
				t.Errorf("no row of %s's %s with its 5 units:\n%s", s, b, out)
			}
		}
	}
	for i, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("line %d ends in spaces: %q", i+1, line)
		}
	}
}
