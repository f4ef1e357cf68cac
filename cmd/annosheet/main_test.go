package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/xlsxdump"
)

// cli runs the real command line in-process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"annosheet"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// buildCLI builds the annosheet command into dir, for tests that run it
// as a process of its own (signals, peak memory).
func buildCLI(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "annosheet")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build annosheet: %v\n%s", err, out)
	}
	return bin
}

const (
	legalData = "../../testdata/data/legal-gaps/examples.sample.jsonl"
	prefData  = "../../testdata/data/preference/preference_json_1.json"
	qaData    = "../../testdata/data/qa-feedback/dev_feedback.sample.json"
	fgData    = "../../testdata/data/factgenie-d2t"
)

func TestTemplatesList(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t, "templates", "list")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, name := range []string{"legal-gaps", "preference-likert", "qa-span-errors", "factgenie-meta-eval"} {
		if !regexp.MustCompile(`(?m)^` + name + `\s+1\s+\S`).MatchString(out) {
			t.Errorf("list lacks %s with version and summary:\n%s", name, out)
		}
	}
}

// TestTemplatesShowRoundTrip checks the promise of `templates show`: the
// printed YAML, saved and passed back with --template FILE, is the same
// template and generates the same workbook.
func TestTemplatesShowRoundTrip(t *testing.T) {
	t.Parallel()
	inputs := map[string]string{"legal-gaps": legalData, "preference-likert": prefData, "qa-span-errors": qaData, "factgenie-meta-eval": fgData}
	for _, name := range templates.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			code, yaml, errs := runCLI(t, "templates", "show", name)
			if code != 0 {
				t.Fatalf("show: exit %d: %s", code, errs)
			}
			src, _ := templates.BuiltinSource(name)
			if yaml != string(src) {
				t.Error("show does not print the template's commented source")
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "copy.yaml")
			if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI(t, "templates", "check", file)
			if code != 0 || !strings.Contains(out, ": ok (") {
				t.Fatalf("check of the shown text: exit %d: %s%s", code, out, errs)
			}
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			for _, run := range []struct{ tmpl, out string }{{name, a}, {file, b}} {
				if code, _, errs := runCLI(t, "generate", "-t", run.tmpl, "-i", inputs[name], "-o", run.out, "--seed", "3"); code != 0 {
					t.Fatalf("generate %s: exit %d: %s", run.tmpl, code, errs)
				}
			}
			da, err := xlsxdump.File(filepath.Join(a, name+"-b01.xlsx"), xlsxdump.Options{MaxText: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			db, err := xlsxdump.File(filepath.Join(b, name+"-b01.xlsx"), xlsxdump.Options{MaxText: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			// The study id is random per run; everything else must match, to the
			// last character (the dump shows whole text).
			studyRe := regexp.MustCompile(`\\"study\\":\\"[0-9a-f]+\\"`)
			da, db = studyRe.ReplaceAllString(da, "STUDY"), studyRe.ReplaceAllString(db, "STUDY")
			if diff := cmp.Diff(da, db); diff != "" {
				t.Errorf("built-in and its shown copy generate different workbooks (-builtin +copy):\n%s", diff)
			}
		})
	}
}

func TestTemplatesShowJSON(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI(t, "templates", "show", "--json", "qa-span-errors")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		Name      string `json:"name"`
		Questions []struct {
			Name string `json:"name"`
		} `json:"questions"`
		Export struct {
			Fields map[string]any `json:"fields"`
		} `json:"export"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Name != "qa-span-errors" || len(v.Questions) != 6 || v.Export.Fields["feedback"] == nil {
		t.Errorf("JSON of the template: %+v", v)
	}
}

func TestTemplatesCheckReportsLines(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "bad.yaml")
	src := `name: bad
version: 1
title: Bad
instructions: x
input: {id: "{id}"}
rows: {per: record}
context:
  - {name: text, path: text}
questions:
  - name: q
    type: choise
  - name: q
    type: text
    colour: red
    requird: true
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "templates", "check", file)
	if code != exitFailure || out != "" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	want := file + `:14: unknown field "colour" in question (known fields: adjudicate, before, description, field, header, max, min, name, occurrence, options, passage_header, passages, render, required, scope, sentences_header, type, unanswered, width)` + "\n"
	want += file + `:15: unknown field "requird" in question (did you mean "required"?)` + "\n"
	if errs != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}
	// With the typos fixed, the semantic problems come out, each on its line.
	src = strings.Replace(src, "    colour: red\n    requird: true\n", "", 1)
	os.WriteFile(file, []byte(src), 0o644)
	_, _, errs = runCLI(t, "templates", "check", file)
	want = file + `:10: question "q": type "choise" is not one of choice, multi, scale, bool, text, span, evidence` + "\n" +
		file + `:12: question "q" is declared twice` + "\n"
	if errs != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}
}

// TestGenerateBuiltins runs generate on every built-in with its real data
// and checks the files and the manifest.
func TestGenerateBuiltins(t *testing.T) {
	t.Parallel()
	cases := []struct {
		template, input string
		units, rows     int
	}{
		{"legal-gaps", legalData, 5, 5},
		{"preference-likert", prefData, 10, 10},
		{"qa-span-errors", qaData, 40, 320},
		{"factgenie-meta-eval", fgData, 289, 289},
	}
	for _, c := range cases {
		t.Run(c.template, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "study")
			code, out, errs := runCLI(t, "generate", "--template", c.template, "--input", c.input, "--out", dir)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			book := filepath.Join(dir, c.template+"-b01.xlsx")
			if !strings.Contains(out, "wrote "+book) {
				t.Errorf("stdout does not name the workbook:\n%s", out)
			}
			f, err := excelize.OpenFile(book)
			if err != nil {
				t.Fatal(err)
			}
			rows, _ := f.GetRows("Annotate")
			f.Close()
			if len(rows) != c.rows+1 {
				t.Errorf("%d rows, want %d and a header", len(rows)-1, c.rows)
			}
			m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if m.Template.Name != c.template || len(m.Batches) != 1 || len(m.Batches[0].Units) != c.units || m.Batches[0].Rows != c.rows {
				t.Errorf("manifest: %s, %d batches", m.Template.Name, len(m.Batches))
			}
			if src, _ := templates.BuiltinSource(c.template); m.Template.Source != string(src) {
				t.Error("manifest does not keep the template text")
			}
			for _, in := range m.Inputs {
				// Paths are relative to the manifest's folder.
				h, err := manifest.HashFile(filepath.Join(dir, filepath.FromSlash(in.Path)))
				if err != nil || h.SHA256 != in.SHA256 || h.Bytes != in.Bytes {
					t.Errorf("input %s: hash %s, file hashes to %s (%v)", in.Path, in.SHA256, h.SHA256, err)
				}
			}
			if c.template == "factgenie-meta-eval" {
				if len(m.Keys["evaluator_label"]) != 3 || len(m.Keys["system"]) != 4 || len(m.Inputs) != 7 {
					t.Errorf("factgenie manifest keys %v, %d inputs", m.Keys, len(m.Inputs))
				}
			}
		})
	}
}

func TestGenerateNoOverwrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", dir}
	if code, _, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("first run: %s", errs)
	}
	book := filepath.Join(dir, "legal-gaps-b01.xlsx")
	before, _ := os.ReadFile(book)
	code, _, errs := runCLI(t, args...)
	if code != exitFailure || errs != "annosheet: "+filepath.Join(dir, "manifest.json")+": file exists: the one workbook of this study is made (use another --out, or --force to replace it)\n" {
		t.Errorf("second run: exit %d, stderr %q", code, errs)
	}
	after, _ := os.ReadFile(book)
	if !bytes.Equal(before, after) {
		t.Error("the existing workbook was changed without --force")
	}
	if code, _, errs := runCLI(t, append(args, "--force")...); code != 0 {
		t.Errorf("with --force: exit %d: %s", code, errs)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestGenerateBadInput checks that bad input gives one clear line per
// problem, naming file and line and record, and that nothing is written.
func TestGenerateBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, input string
		want        []string // lines of stderr, with IN for the input path
	}{
		{
			name:  "malformed JSON",
			input: `{"id": "a", "generation": "g", "target": "t", "previous_context": "p", "cited_paragraphs": []}` + "\n" + `{"id": "b", "generation": "g"` + "\n",
			want:  []string{`IN:2: invalid JSON: the value is cut off`},
		},
		{
			name: "missing field and duplicate id",
			input: `{"id": "a", "generation": "g", "target": "t", "previous_context": "p", "cited_paragraphs": []}` + "\n" +
				`{"id": "b", "generation": "g", "previous_context": "p", "cited_paragraphs": []}` + "\n" +
				`{"id": "a", "generation": "g", "target": "t", "previous_context": "p", "cited_paragraphs": []}` + "\n",
			want: []string{
				`IN:2: record "b": field "target": context "target" needs this field; mark it optional: true if it may be absent`,
				`IN:3: record "a": the id is also used by the record at IN:1`,
			},
		},
		{
			name:  "no id",
			input: `{"generation": "g", "target": "t", "previous_context": "p", "cited_paragraphs": []}` + "\n",
			want:  []string{`IN:1: field "id": the id "{id}" needs this field`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(in, []byte(c.input), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", in, "-o", out)
			if code != exitFailure {
				t.Errorf("exit %d", code)
			}
			want := strings.ReplaceAll(strings.Join(c.want, "\n")+"\n", "IN", in)
			if errs != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Error("output was written despite the errors")
			}
		})
	}
}

// TestGenerateWrongInput: the input of another template says why first,
// in one line, then shows three of its problems and counts the rest,
// instead of a screenful of missing fields; nothing is written.
func TestGenerateWrongInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Records of legal-gaps as a JSON array, one a line, which
	// qa-span-errors reads but finds nothing it needs in.
	b, err := os.ReadFile("../../examples/legal-gaps.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	array := filepath.Join(dir, "legal.json")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err := os.WriteFile(array, []byte("[\n"+strings.Join(lines, ",\n")+"\n]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := func(file string, line int, rec, field, what string) string {
		return fmt.Sprintf(`%s:%d: record %q: field %q: %s`, file, line, rec, field, what)
	}
	const passages = `context "passages" needs this field; mark it optional: true if it may be absent`
	for _, c := range []struct {
		name, input string
		want        []string
	}{
		{
			name:  "JSON Lines to a template that reads JSON",
			input: "../../examples/legal-gaps.jsonl",
			want: []string{
				"../../examples/legal-gaps.jsonl:2: a second JSON value starts here: the file looks like JSON Lines (a record per line), " +
					"and the template reads one JSON value, an array of records or an object of records keyed by id",
				// The first line's record, taken for an object of records.
				missing("../../examples/legal-gaps.jsonl", 1, "q0000", "passages", passages),
				missing("../../examples/legal-gaps.jsonl", 1, "q0001", "passages", passages),
				missing("../../examples/legal-gaps.jsonl", 1, "q0002", "passages", passages),
				"… and 32 more problems",
			},
		},
		{
			name:  "records of another template",
			input: array,
			want: []string{
				array + `: 2 records lack fields that the template needs: "passages", "prediction 1", "question" and "gold"; is this the template's input?`,
				missing(array, 2, "q0000", "passages", passages),
				missing(array, 2, "q0000", "prediction 1", `context "prediction" needs this field; mark it optional: true if it may be absent`),
				missing(array, 2, "q0000", "question", `context "question" needs this field; mark it optional: true if it may be absent`),
				"… and 7 more problems",
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			code, _, errs := runCLI(t, "generate", "-t", "qa-span-errors", "-i", c.input, "-o", out)
			if code != exitFailure {
				t.Errorf("exit %d, want %d", code, exitFailure)
			}
			if diff := cmp.Diff(c.want, strings.Split(strings.TrimSuffix(errs, "\n"), "\n")); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Error("output was written despite the errors")
			}
		})
	}
}

func TestGenerateParam(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, errs := runCLI(t, "generate", "-t", "qa-span-errors", "-i", qaData, "-o", dir, "--param", "prediction=prediction 2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := excelize.OpenFile(filepath.Join(dir, "qa-span-errors-b01.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _ := f.GetCellValue("Annotate", "E2")
	var recs []map[string]any
	b, _ := os.ReadFile(qaData)
	json.Unmarshal(b, &recs)
	if got != recs[0]["prediction 2"] {
		t.Errorf("prediction column shows %.60q, want prediction 2", got)
	}
	code, _, errs = runCLI(t, "generate", "-t", "qa-span-errors", "-i", qaData, "-o", dir, "--param", "predicton=x", "--force")
	if code != exitFailure || !strings.Contains(errs, `no parameter "predicton" (this template has: prediction)`) {
		t.Errorf("unknown param: exit %d, %s", code, errs)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"generate"},
		{"generate", "-t", "legal-gaps", "-i", legalData},
		{"generate", "-t", "legal-gaps", "-i", legalData, "-o", "x", "--format", "ods"},
		{"generate", "--no-such-flag"},
		{"generate", "-t", "legal-gaps", "-i", legalData, "-o", "x", "--param", "novalue"},
		{"generate", "-t", "legal-gaps", "-i", legalData, "-o", "x", "--batch", "../up"},
		{"templates", "show"},
		{"templates", "check"},
		{"templates", "list", "extra"},
		{"frobnicate"},
	}
	for _, args := range cases {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || errs == "" {
			t.Errorf("%q: exit %d, stderr %q; want a usage error (2)", args, code, errs)
		}
	}
	long := strings.Repeat("b", 65)
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", t.TempDir(), "--batch", long); code != exitUsage ||
		!strings.Contains(errs, "--batch is 65 characters long; a batch ID has at most 64") {
		t.Errorf("long --batch: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "generate", "-t", "no-such-template", "-i", legalData, "-o", t.TempDir()); code != exitFailure ||
		!strings.Contains(errs, `unknown template "no-such-template"`) {
		t.Errorf("unknown template: exit %d, %s", code, errs)
	}
}

func TestHelpShowsExamples(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"generate", "--help"}, {"templates", "--help"}, {"templates", "list", "--help"},
		{"templates", "show", "--help"}, {"templates", "check", "--help"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "Example") {
			t.Errorf("%q: exit %d, no example in:\n%s", args, code, out)
		}
	}
}
