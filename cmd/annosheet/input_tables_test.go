package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// legalColumns are the legal-gaps sample's fields, as a table's columns.
var legalColumns = []string{"id", "generation", "citations", "target", "cited_paragraphs", "previous_context", "gold_labels"}

// legalRows are the legal-gaps sample's records as a table's rows: a
// list or an object as JSON text, a string as itself.
func legalRows(t *testing.T) [][]string {
	t.Helper()
	recs, err := goldtest.ReadJSONL[map[string]any](legalData)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, r := range recs {
		var row []string
		for _, c := range legalColumns {
			switch v := r[c].(type) {
			case string:
				row = append(row, v)
			case nil:
				row = append(row, "")
			default:
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				row = append(row, string(b))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// writeTable writes rows under a header as CSV (comma ',') or TSV.
func writeTable(t *testing.T, path string, comma rune, header []string, rows [][]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Comma = comma
	w.UseCRLF = comma == ','
	if err := w.WriteAll(append([][]string{header}, rows...)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeXLSXWithOpenpyxl writes rows under a header into a workbook's
// first sheet with openpyxl.
func writeXLSXWithOpenpyxl(t *testing.T, path string, header []string, rows [][]string) {
	t.Helper()
	py := testreaders.Openpyxl(t)
	spec := filepath.Join(t.TempDir(), "table.json")
	if err := os.WriteFile(spec, mustJSON(map[string]any{"path": path, "rows": append([][]string{header}, rows...)}), 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `
import json, sys, openpyxl
spec = json.load(open(sys.argv[1], encoding="utf-8"))
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Data"
for row in spec["rows"]:
    ws.append(row)
wb.save(spec["path"])
`
	if out, err := exec.Command(py, "-c", script, spec).CombinedOutput(); err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, out)
	}
}

// studySheets are the given sheets of every workbook of a study, by the
// workbook's name: all of them (backend.SheetAnnotate and
// backend.SheetRead) unless sheets says.
func studySheets(t *testing.T, study string, sheets ...string) map[string][][]string {
	t.Helper()
	books, err := filepath.Glob(filepath.Join(study, "*.xlsx"))
	if err != nil || len(books) == 0 {
		t.Fatalf("no workbooks in %s (%v)", study, err)
	}
	if len(sheets) == 0 {
		sheets = []string{backend.SheetAnnotate, backend.SheetRead}
	}
	out := map[string][][]string{}
	for _, book := range books {
		for _, sheet := range sheets {
			out[filepath.Base(book)+"!"+sheet] = sheetTexts(t, book, sheet)
		}
	}
	return out
}

// sameSheets says where two studies' sheets differ.
func sameSheets(t *testing.T, what string, got, want map[string][][]string) {
	t.Helper()
	for sheet := range want {
		if !reflect.DeepEqual(got[sheet], want[sheet]) {
			t.Errorf("%s: %s differs from the JSON Lines':\n%q\nwant\n%q", what, sheet, got[sheet], want[sheet])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d sheets, want %d", what, len(got), len(want))
	}
}

// duckDBCopy writes what DuckDB reads from a JSON Lines file to a
// Parquet file, as a user converts data with DuckDB.
func duckDBCopy(t *testing.T, jsonl, parquet string) {
	t.Helper()
	abs, err := filepath.Abs(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	testreaders.NewDuckDB(t).Exec(t, fmt.Sprintf("COPY (SELECT * FROM read_json_auto(%s)) TO %s (FORMAT parquet)",
		testreaders.SQLString(abs), testreaders.SQLString(parquet)))
}

// TestGenerateFromTables: the legal-gaps sample as CSV, TSV, a
// spreadsheet (written by openpyxl) and Parquet (written by DuckDB)
// generates the same Annotate and Read sheets, cell for cell, as its JSON
// Lines; the manifest records the file read.
func TestGenerateFromTables(t *testing.T) {
	t.Parallel()
	rows := legalRows(t)
	dir := t.TempDir()
	tables := map[string]func(*testing.T, string){
		"legal.csv":     func(t *testing.T, p string) { writeTable(t, p, ',', legalColumns, rows) },
		"legal.tsv":     func(t *testing.T, p string) { writeTable(t, p, '\t', legalColumns, rows) },
		"legal.xlsx":    func(t *testing.T, p string) { writeXLSXWithOpenpyxl(t, p, legalColumns, rows) },
		"legal.parquet": func(t *testing.T, p string) { duckDBCopy(t, legalData, p) },
	}
	generate := func(t *testing.T, name, input string) string {
		out := filepath.Join(dir, name)
		if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", input, "-o", out, "--seed", "3"); code != 0 {
			t.Fatalf("generate from %s: exit %d: %s", input, code, stderr)
		}
		return out
	}
	want := studySheets(t, generate(t, "from-jsonl", legalData))
	for name, write := range tables {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			write(t, path)
			study := generate(t, "from-"+name, path)
			sameSheets(t, name, studySheets(t, study), want)
			m := readManifest(t, study)
			if len(m.Inputs) != 1 || filepath.Base(m.Inputs[0].Path) != name || m.Inputs[0].SHA256 == "" {
				t.Errorf("%s: the manifest's inputs %+v", name, m.Inputs)
			}
		})
	}
}

// TestGenerateFactgenieTables (the Annotate sheet holds the outputs;
// factgenie-meta-eval has no Read sheet): factgenie's outputs as a table (a CSV
// file, a spreadsheet, or Parquet written by DuckDB) beside the
// evaluators' folders generate the same workbooks as its outputs.jsonl,
// given as a folder or as files.
func TestGenerateFactgenieTables(t *testing.T) {
	t.Parallel()
	fg, err := filepath.Abs(fgData)
	if err != nil {
		t.Fatal(err)
	}
	outputs, err := goldtest.ReadJSONL[map[string]any](filepath.Join(fg, "outputs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	columns := []string{"dataset", "split", "example_idx", "output", "setup_id"}
	var rows [][]string
	for _, o := range outputs {
		var row []string
		for _, c := range columns {
			row = append(row, fmt.Sprint(o[c]))
		}
		rows = append(rows, row)
	}
	dir := t.TempDir()
	generate := func(t *testing.T, name string, inputs ...string) string {
		out := filepath.Join(dir, name)
		args := []string{"generate", "-t", "factgenie-meta-eval", "-o", out, "--annotators", "ak,bt", "--overlap", "2", "--seed", "1"}
		for _, in := range inputs {
			args = append(args, "-i", in)
		}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("generate from %q: exit %d: %s", inputs, code, stderr)
		}
		return out
	}
	want := studySheets(t, generate(t, "from-jsonl", fg), backend.SheetAnnotate)
	for name, write := range map[string]func(*testing.T, string){
		"outputs.csv":     func(t *testing.T, p string) { writeTable(t, p, ',', columns, rows) },
		"outputs.xlsx":    func(t *testing.T, p string) { writeXLSXWithOpenpyxl(t, p, columns, rows) },
		"outputs.parquet": func(t *testing.T, p string) { duckDBCopy(t, filepath.Join(fg, "outputs.jsonl"), p) },
	} {
		t.Run(name, func(t *testing.T) {
			folder := filepath.Join(dir, "folder-"+name)
			if err := os.MkdirAll(folder, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(fg, "evaluators"), filepath.Join(folder, "evaluators")); err != nil {
				t.Fatal(err)
			}
			table := filepath.Join(folder, name)
			write(t, table)
			sameSheets(t, name+" in a folder", studySheets(t, generate(t, "from-folder-"+name, folder), backend.SheetAnnotate), want)
			evaluators, err := filepath.Glob(filepath.Join(fg, "evaluators", "*"))
			if err != nil || len(evaluators) != 3 {
				t.Fatalf("evaluators %q (%v)", evaluators, err)
			}
			sameSheets(t, name+" as a file", studySheets(t, generate(t, "from-file-"+name, append([]string{table}, evaluators...)...), backend.SheetAnnotate), want)
		})
	}
}

// TestGenerateTableErrors: a table the template cannot read is refused
// with one line naming the file and the line, and nothing is written.
func TestGenerateTableErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := legalRows(t)
	noID := filepath.Join(dir, "no-id.csv")
	writeTable(t, noID, ',', append([]string{"ID"}, legalColumns[1:]...), rows)
	short := filepath.Join(dir, "short.csv")
	if err := os.WriteFile(short, []byte("id,generation,target,cited_paragraphs,previous_context\na,b,c,[],e\nx,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txt := filepath.Join(dir, "legal.txt")
	writeTable(t, txt, ',', legalColumns, rows)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-i", noID}, exitFailure, noID + `:1: the header has no column "id", which the template reads (did you mean "ID"?)`},
		{[]string{"-i", short}, exitFailure, short + ":3: 2 fields, the header has 5"},
		{[]string{"-i", txt, "--input-format", "cvs"}, exitUsage, `--input-format "cvs": use jsonl, json, csv, tsv, parquet, xlsx, factgenie, auto`},
	} {
		out := filepath.Join(dir, "out")
		code, _, stderr := runCLI(t, append([]string{"generate", "-t", "legal-gaps", "-o", out}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d: %s\nwant exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: %s was written", c.args, out)
		}
	}
	// A file whose name says nothing is read as the flag says.
	if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", txt, "--input-format", "csv", "-o", filepath.Join(dir, "from-txt")); code != 0 {
		t.Errorf("--input-format csv: exit %d: %s", code, stderr)
	}
	if m := readManifest(t, filepath.Join(dir, "from-txt")); m.InputFormat != "csv" {
		t.Errorf("the manifest records input format %q, want csv", m.InputFormat)
	}
}

// TestExampleCSV: the example CSV the README names generates the
// workbook its JSON Lines does.
func TestExampleCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var books [2]map[string][][]string
	for i, in := range []string{"../../examples/legal-gaps.jsonl", "../../examples/legal-gaps.csv"} {
		out := filepath.Join(dir, fmt.Sprint(i))
		if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", in, "-o", out, "--seed", "2"); code != 0 {
			t.Fatalf("%s: %s", in, stderr)
		}
		book := filepath.Join(out, "legal-gaps-b01.xlsx")
		books[i] = map[string][][]string{"annotate": sheetTexts(t, book, backend.SheetAnnotate), "read": sheetTexts(t, book, backend.SheetRead)}
	}
	if !reflect.DeepEqual(books[0], books[1]) {
		t.Error("examples/legal-gaps.csv does not generate the workbook examples/legal-gaps.jsonl does")
	}
}

// TestTableInputChanged: a CSV input is fingerprinted as JSON Lines are:
// changed after generate, export refuses it, and takes it only as
// --input with --input-changed.
func TestTableInputChanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "legal.csv")
	rows := legalRows(t)
	writeTable(t, in, ',', legalColumns, rows)
	study := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", in, "-o", study); code != 0 {
		t.Fatal(stderr)
	}
	rows[0][3] = "another target" // a cell edited after the workbooks were made
	writeTable(t, in, ',', legalColumns, rows)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, exitFailure, in + ": input changed since the workbooks were generated"},
		{[]string{"--input", in}, exitFailure, "not the content the workbooks were generated from"},
		{[]string{"--input", in, "--input-changed"}, exitOK, "exported with it as --input-changed says"},
	} {
		code, _, stderr := runCLI(t, append([]string{"export", study, "--native", "--out", filepath.Join(dir, "out.jsonl"), "--force"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d: %s\nwant exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
