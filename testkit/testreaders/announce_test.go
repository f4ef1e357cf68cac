package testreaders

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnnounce: a missing reader is said once per run of go test, on the
// terminal, however many tests and packages meet it; another reader is
// said too.
func TestAnnounce(t *testing.T) {
	tty := filepath.Join(t.TempDir(), "tty")
	if err := os.WriteFile(tty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := ttyPath
	ttyPath = tty
	t.Cleanup(func() { ttyPath = old })
	t.Setenv("TMPDIR", t.TempDir()) // a run of its own
	for range 3 {
		announce("LibreOffice", "apt-get install libreoffice-calc-nogui")
	}
	announce("Chromium", "apt-get install chromium")
	b, err := os.ReadFile(tty)
	if err != nil {
		t.Fatal(err)
	}
	want := "annosheet tests: LibreOffice is not installed (apt-get install libreoffice-calc-nogui): its independent-reader checks are skipped\n" +
		"annosheet tests: Chromium is not installed (apt-get install chromium): its independent-reader checks are skipped\n"
	if string(b) != want {
		t.Errorf("the terminal got:\n%s\nwant:\n%s", b, want)
	}
	if !strings.Contains(runID(), "-") {
		t.Logf("run ID without a start time: %s", runID())
	}
}
