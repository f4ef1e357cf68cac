package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/testreaders"
	"github.com/annosheet/annosheet/xlsx"
)

// peersDir holds the peers' scripts and node_modules.
const peersDir = ".."

// need skips a test whose peer is missing, or fails it when the
// independent readers are required (testreaders.RequireEnv).
func need(t *testing.T, what, install string) {
	t.Helper()
	if os.Getenv(testreaders.RequireEnv) != "" {
		t.Fatalf("%s is not installed but %s is set (%s)", what, testreaders.RequireEnv, install)
	}
	t.Skipf("%s is not installed (%s); skipping this peer", what, install)
}

// python is Debian's Python when it can import module.
func python(t *testing.T, module string) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if exec.Command(py, "-c", "import "+module).Run() != nil {
		need(t, "Python's "+module+" at "+py, "apt-get install python3-"+module)
	}
	return py
}

// node is Node.js when exceljs is installed beside the scripts.
func node(t *testing.T) string {
	t.Helper()
	const install = "npm ci --prefix bench/peers"
	n, err := exec.LookPath("node")
	if err != nil {
		need(t, "Node.js", "apt-get install nodejs npm, then "+install)
	}
	if _, err := os.Stat(filepath.Join(peersDir, "node_modules", "exceljs", "package.json")); err != nil {
		need(t, "exceljs", install)
	}
	return n
}

func runCmd(t *testing.T, name string, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
}

func kit(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(args, &out); err != nil {
		t.Fatalf("kit %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// generate writes the study annosheet generate writes, through the same
// library calls, and returns the workbook's path.
func generate(t *testing.T, in, dir string) string {
	t.Helper()
	tmpl, err := input.Template("legal-gaps", nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := input.Open(tmpl.Input.Format, []string{in})
	if err != nil {
		t.Fatal(err)
	}
	spool := input.NewSpool(src)
	defer spool.Close()
	_, err = study.Generate(context.Background(), study.GenerateOptions{Template: tmpl, Inputs: []string{in}, Dir: dir, Batch: "b01"}, spool, xlsx.Store{})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "legal-gaps-b01.xlsx")
}

// TestPeers runs each peer on 50 rows: what the writers write must hold
// the cells annosheet wrote, its layout too (but for what a peer cannot
// do), and what the readers extract from a filled workbook, in both
// forms, must be the fill.
func TestPeers(t *testing.T) {
	t.Parallel()
	const rows = 50
	dir := t.TempDir()
	kit(t, "data", "-dir", dir, "-rows", "50")
	in := filepath.Join(dir, "input.jsonl")
	book := generate(t, in, filepath.Join(dir, "gen"))
	rec := filepath.Join(dir, "recipe.jsonl")
	kit(t, "recipe", "-manifest", filepath.Join(dir, "gen", "manifest.json"), "-input", in, "-out", rec)
	cols := filepath.Join(dir, "columns.json")

	var floor struct {
		Bytes     uint64
		Deflate6B int64 `json:"deflate6_bytes"`
		Deflate1B int64 `json:"deflate1_bytes"`
	}
	if err := json.Unmarshal([]byte(kit(t, "floor", book)), &floor); err != nil {
		t.Fatal(err)
	}
	if floor.Bytes < rows*3000 || floor.Deflate6B <= 0 || floor.Deflate1B < floor.Deflate6B {
		t.Errorf("floor: %+v", floor)
	}

	writers := []struct {
		name   string
		cmd    func(t *testing.T) []string
		layout []string // the differences of layout the peer cannot help
	}{
		{"xlsxwriter", func(t *testing.T) []string {
			return []string{python(t, "xlsxwriter"), filepath.Join(peersDir, "write_xlsxwriter.py")}
		}, []string{"sheet _annosheet: visibility"}},
		{"openpyxl", func(t *testing.T) []string {
			return []string{python(t, "openpyxl"), filepath.Join(peersDir, "write_openpyxl.py")}
		}, nil},
		{"exceljs", func(t *testing.T) []string {
			return []string{node(t), filepath.Join(peersDir, "write_exceljs.mjs")}
		}, nil},
	}
	for _, w := range writers {
		t.Run("write/"+w.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(dir, w.name+".xlsx")
			cmd := w.cmd(t)
			runCmd(t, cmd[0], append(cmd[1:], rec, out)...)
			n, err := sameCells(book, out)
			if err != nil {
				t.Fatalf("%s does not hold annosheet's cells: %v", w.name, err)
			}
			if n < rows {
				t.Errorf("%d rows compared", n)
			}
			diffs, err := layoutDiffs(book, out)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range diffs {
				got = append(got, strings.SplitN(d, " (-want", 2)[0])
			}
			if strings.Join(got, "\n") != strings.Join(w.layout, "\n") {
				t.Errorf("%s's layout differs from annosheet's:\n%s", w.name, strings.Join(diffs, "\n"))
			}
		})
	}

	readers := []struct {
		name string
		cmd  func(t *testing.T) []string
	}{
		{"openpyxl", func(t *testing.T) []string {
			return []string{python(t, "openpyxl"), filepath.Join(peersDir, "read_openpyxl.py")}
		}},
		{"exceljs", func(t *testing.T) []string {
			return []string{node(t), filepath.Join(peersDir, "read_exceljs.mjs")}
		}},
	}
	c, err := legalColumns()
	if err != nil {
		t.Fatal(err)
	}
	var units []string
	g, closeFn, err := xlsx.Open(filepath.Join(dir, "filled.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	err = g.Rows(c.Sheet, func(n int, cells []backend.ReadCell) error {
		if n > 1 {
			units = append(units, cells[c.Unit].Value)
		}
		return nil
	})
	if cerr := closeFn(); err == nil {
		err = cerr
	}
	if err != nil || len(units) != rows {
		t.Fatalf("%d units in the filled workbook, %v", len(units), err)
	}
	for _, r := range readers {
		for _, form := range []string{"filled.xlsx", "filled-sst.xlsx"} {
			t.Run("read/"+r.name+"/"+form, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(dir, r.name+"-"+form+".jsonl")
				cmd := r.cmd(t)
				runCmd(t, cmd[0], append(cmd[1:], filepath.Join(dir, form), cols, out)...)
				if n, err := checkAnswers(out, c, units); err != nil || n != rows {
					t.Errorf("%s read %d units of %s: %v", r.name, n, form, err)
				}
			})
		}
	}
}
