// Package testreaders finds the independent readers that tests use to
// check what annosheet writes: Python's openpyxl and LibreOffice for
// workbooks, DuckDB for the CSV and Parquet tables, headless Chromium
// for the HTML report.
// A test that needs one skips, saying why, when it is missing — unless
// ANNOSHEET_REQUIRE_READERS is set (as .ci/run does), in which case the
// test fails, so that CI cannot pass without running them.
//
//	py := testreaders.Openpyxl(t)
//	out, err := exec.Command(py, "check.py", path).Output()
package testreaders

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RequireEnv names the environment variable that turns skips into failures.
const RequireEnv = "ANNOSHEET_REQUIRE_READERS"

func missing(t testing.TB, what, install string) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf("%s is not installed but %s is set (%s)", what, RequireEnv, install)
	}
	announce(what, install)
	t.Skipf("%s is not installed (%s); skipping this independent-reader check", what, install)
}

// announce says once per run of go test, on the terminal it runs in, that
// a reader is missing and its checks are skipped. go test shows what a
// package's tests print only when they fail or with -v, so a skip would
// otherwise pass unseen: the line goes to the controlling terminal
// itself. Each package's tests run as a process of the go command, so a
// mark in the temporary folder, named for that command's process, says
// once for all of them. Without a terminal (CI) nothing is said, and
// RequireEnv is what makes a missing reader count there.
func announce(what, install string) {
	mark := filepath.Join(os.TempDir(), fmt.Sprintf("annosheet-readers-%s-%s", runID(), strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, what)))
	f, err := os.OpenFile(mark, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return // said already in this run, or the folder cannot hold marks
	}
	f.Close()
	tty, err := os.OpenFile(ttyPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	defer tty.Close()
	fmt.Fprintf(tty, "annosheet tests: %s is not installed (%s): its independent-reader checks are skipped\n", what, install)
}

// ttyPath is the controlling terminal, where announce writes.
var ttyPath = "/dev/tty"

// runID names the run of go test this process belongs to: the go
// command's process, and when the system says, when it started (so that
// a number used again later is another run).
func runID() string {
	ppid := os.Getppid()
	id := strconv.Itoa(ppid)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", ppid)); err == nil {
		// The start time is the 22nd field, after the command's name
		// in brackets, which may hold spaces.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 19 {
				id += "-" + f[19]
			}
		}
	}
	return id
}

// Python returns a Python 3 interpreter, for the checks written in
// Python's standard library alone. Debian's /usr/bin/python3 is tried
// first, as for Openpyxl.
func Python(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import sys; assert sys.version_info >= (3, 8)").Run() == nil {
			return py
		}
	}
	missing(t, "python3", "apt-get install python3")
	return ""
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

// DuckDBDir is where the DuckDB reader lives, relative to the module's
// root: its package.json, the script that reads a file, and the
// node_modules that `npm ci --prefix` installs there.
const DuckDBDir = "testkit/testreaders/duckdb"

// DuckDBTable is a file as DuckDB read it: its columns, their DuckDB
// types (VARCHAR, BIGINT, BOOLEAN …), and its rows, each value as JSON
// decodes it (a string, a bool, nil; BIGINT values as strings).
type DuckDBTable struct {
	Columns []string `json:"columns"`
	Types   []string `json:"types"`
	Rows    [][]any  `json:"rows"`
}

// DuckDB is DuckDB through its Node.js client (npm @duckdb/node-api):
// an independent reader of the CSV and Parquet files annosheet writes.
type DuckDB struct {
	node, dir string
}

// NewDuckDB finds Node.js and the DuckDB client installed in DuckDBDir.
func NewDuckDB(t testing.TB) *DuckDB {
	t.Helper()
	const install = "npm ci --prefix " + DuckDBDir
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the DuckDB reader's folder")
	}
	dir := filepath.Join(filepath.Dir(file), "duckdb")
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "Node.js", "apt-get install nodejs npm, then "+install)
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		missing(t, "DuckDB (npm @duckdb/node-api)", install)
		return nil
	}
	return &DuckDB{node: node, dir: dir}
}

// Exec runs SQL statements in one in-memory DuckDB database, as a user
// makes a file with DuckDB: `COPY (SELECT …) TO 'x.parquet' (FORMAT
// parquet)`, say.
func (d *DuckDB) Exec(t testing.TB, statements ...string) {
	t.Helper()
	const script = `import { DuckDBInstance } from '@duckdb/node-api';
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
for (const statement of JSON.parse(process.argv[1])) await connection.run(statement);`
	arg, err := json.Marshal(statements)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(d.node, "--input-type=module", "-e", script, string(arg))
	cmd.Dir = d.dir // where node finds @duckdb/node-api
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("DuckDB failed: %v\n%s", err, out)
	}
}

// SQLString is s as an SQL string literal.
func SQLString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Read reads a file with DuckDB: format is "csv" (every field read as
// text, an empty one as null) or "parquet".
func (d *DuckDB) Read(t testing.TB, format, path string) DuckDBTable {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(d.node, filepath.Join(d.dir, "read.mjs"), format, path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB could not read %s: %v\n%s", path, err, stderr.String())
	}
	var tb DuckDBTable
	if err := json.Unmarshal(out, &tb); err != nil {
		t.Fatalf("DuckDB's reading of %s: %v", path, err)
	}
	return tb
}

// Basic runs a LibreOffice Basic macro headless, as an annotator's
// application would act on a workbook: module is the source of a module
// installed as Standard.Module1 in a private profile, and call the macro
// with its arguments, such as `Main("a.xlsx")`. A run that never ends (a
// macro waiting on a dialog, say) is stopped, failing the test, rather
// than left to hold up the suite.
func Basic(t testing.TB, soffice, module, call string) {
	t.Helper()
	profile := filepath.Join(t.TempDir(), "profile")
	url := "file://" + filepath.ToSlash(profile)
	run := func(args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, soffice, append([]string{"-env:UserInstallation=" + url, "--headless", "--norestore"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("LibreOffice failed: %v\n%s", err, out)
		}
	}
	run("--terminate_after_init") // makes the profile and its Standard library
	xba := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">
<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1" script:language="StarBasic">` +
		html.EscapeString(module) + "</script:module>\n"
	if err := os.WriteFile(filepath.Join(profile, "user", "basic", "Standard", "Module1.xba"), []byte(xba), 0o644); err != nil {
		t.Fatalf("install the macro: %v", err)
	}
	run("macro:///Standard.Module1." + call)
}
