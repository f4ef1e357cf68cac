// Package testreaders finds the independent readers that tests use to
// check what annosheet writes: Python's openpyxl and LibreOffice for
// workbooks, headless Chromium for the HTML report.
// A test that needs one skips, saying why, when it is missing — unless
// ANNOSHEET_REQUIRE_READERS is set (as .ci/run does), in which case the
// test fails, so that CI cannot pass without running them.
//
//	py := testreaders.Openpyxl(t)
//	out, err := exec.Command(py, "check.py", path).Output()
package testreaders

import (
	"os"
	"os/exec"
	"testing"
)

// RequireEnv names the environment variable that turns skips into failures.
const RequireEnv = "ANNOSHEET_REQUIRE_READERS"

func missing(t testing.TB, what, install string) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf("%s is not installed but %s is set (%s)", what, RequireEnv, install)
	}
	t.Skipf("%s is not installed (%s); skipping this independent-reader check", what, install)
}

// Openpyxl returns a Python interpreter that can import openpyxl. Debian's
// /usr/bin/python3 is tried first: the python3 on PATH may be another one.
func Openpyxl(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import openpyxl").Run() == nil {
			return py
		}
	}
	missing(t, "openpyxl", "apt-get install python3-openpyxl")
	return ""
}

// Soffice returns the LibreOffice binary.
func Soffice(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"soffice", "libreoffice"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "LibreOffice", "apt-get install libreoffice-calc-nogui")
	return ""
}

// Convert runs LibreOffice headless to convert files (to "xlsx" or "pdf",
// say) into outDir, with a private profile so that runs do not collide.
func Convert(t testing.TB, soffice, to, outDir string, files ...string) {
	t.Helper()
	args := append([]string{"--headless", "--norestore", "--convert-to", to, "--outdir", outDir}, files...)
	cmd := exec.Command(soffice, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("LibreOffice failed: %v\n%s", err, out)
	}
}

// Pdftoppm returns poppler's pdftoppm, which renders PDF pages as PNG.
func Pdftoppm(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("pdftoppm"); err == nil {
		return p
	}
	missing(t, "pdftoppm", "apt-get install poppler-utils")
	return ""
}
