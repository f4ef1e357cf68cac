package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// legalStudy generates the legal-gaps study and fills the gold labels.
func legalStudy(t *testing.T) (dir, book string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "study")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir); code != 0 {
		t.Fatalf("generate: %s", errs)
	}
	book = filepath.Join(dir, "legal-gaps-b01.xlsx")
	w, err := goldtest.OpenWorkbook(book)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	// The workbook shows opaque IDs: the manifest's key finds the records.
	if err := goldtest.FillLegal(w.RealIDs(readManifest(t, dir).OpaqueIDs), recs, "AK"); err != nil {
		t.Fatal(err)
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	return dir, book
}

// TestPullAndExport runs the second half of the loop through the CLI:
// pull a study folder into canonical JSON and a report, then export the
// native file, which must carry the gold labels.
func TestPullAndExport(t *testing.T) {
	t.Parallel()
	dir, _ := legalStudy(t)
	out := filepath.Join(t.TempDir(), "annotations.jsonl")
	report := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := runCLI(t, "pull", dir, "--out", out, "--report", report)
	if code != 0 || stdout != "" {
		t.Fatalf("pull: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	// The gold labels follow the decision order: no problem, the summary.
	if stderr != "pulled 5 records from 1 workbook: 5 complete, 0 partial, 0 empty, 0 missing; 0 errors, 0 warnings\n" {
		t.Errorf("stderr:\n%s", stderr)
	}
	jsonl, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	goldtest.ValidateRecords(t, jsonl)
	var rep struct {
		Schema    string         `json:"schema"`
		Counts    map[string]int `json:"counts"`
		Workbooks []struct {
			File  string `json:"file"`
			Units int    `json:"units"`
		} `json:"workbooks"`
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Schema != "annosheet.report/1" || rep.Counts["complete"] != 5 || len(rep.Workbooks) != 1 || rep.Workbooks[0].Units != 5 {
		t.Errorf("report %+v", rep)
	}
	// Pulling again gives the same bytes.
	code, again, _ := runCLI(t, "pull", dir)
	if code != 0 || again != string(jsonl) {
		t.Error("a second pull of the same sheets is not byte-identical")
	}
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	code, stdout, stderr = runCLI(t, "export", out, "--native", "--manifest", filepath.Join(dir, "manifest.json"), "--out", labels)
	if code != 0 || stdout != "wrote "+labels+": 5 records\n" {
		t.Fatalf("export: exit %d, %s%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(labels)
	recs, _ := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	var want strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&want, `{"id": %q, "labels": %s}`+"\n", r.ID, strings.ReplaceAll(fmt.Sprint(r.GoldLabels), " ", ", "))
	}
	if string(got) != want.String() {
		t.Errorf("native file:\n%s\nwant:\n%s", got, want.String())
	}
	// Without the manifest, the inputs and the built-in do as well.
	code, stdout, _ = runCLI(t, "export", out, "--native", "--input", legalData)
	if code != 0 || stdout != want.String() {
		t.Errorf("export to stdout with --input: exit %d\n%s", code, stdout)
	}
}

// TestPullStrict checks the problem lines and the exit status of --strict.
func TestPullStrict(t *testing.T) {
	t.Parallel()
	dir, book := legalStudy(t)
	w, err := goldtest.OpenWorkbook(book)
	if err != nil {
		t.Fatal(err)
	}
	shown := shownAs(t, dir)["gpt4o-12"]
	row := w.Rows[shown][0] // gpt4o-12, the third record, on row 4
	w.Set(row, "q:gaps=0", "maybe")
	w.Set(row, "q:gaps=1", "x")
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	// The workbook alone: its opaque IDs, and a warning that the real
	// ones are in the manifest.
	code, _, stderr := runCLI(t, "pull", book, "--strict", "--out", filepath.Join(t.TempDir(), "a.jsonl"))
	want := "warning: " + book + ": the workbook shows opaque IDs (item-0001…); the records keep them (\"opaque_ids\": true), and the real IDs are in the study's manifest: pull with it (or export with it)\n" +
		"error: " + book + ": Annotate!B4: \"maybe\" is not a checkbox value; use TRUE or FALSE (unit " + shown + ")\n" +
		"pulled 5 records from 1 workbook: 4 complete, 1 partial, 0 empty, 0 missing; 1 error, 1 warning\n" +
		"annosheet: error-level problems found (--strict)\n"
	if code != exitStrict || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	if code, _, _ := runCLI(t, "pull", book, "--out", filepath.Join(t.TempDir(), "a.jsonl")); code != 0 {
		t.Errorf("without --strict: exit %d", code)
	}
	// Through the manifest: the real IDs, beside the ones the annotator
	// sees, and no warning.
	code, _, stderr = runCLI(t, "pull", filepath.Dir(book), "--strict", "--out", filepath.Join(t.TempDir(), "a.jsonl"))
	want = "error: " + book + ": Annotate!B4: \"maybe\" is not a checkbox value; use TRUE or FALSE (unit gpt4o-12, shown as " + shown + ")\n" +
		"pulled 5 records from 1 workbook: 4 complete, 1 partial, 0 empty, 0 missing; 1 error, 0 warnings\n" +
		"annosheet: error-level problems found (--strict)\n"
	if code != exitStrict || stderr != want {
		t.Errorf("through the manifest: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}

// TestPullManifest checks that a study's manifest finds its workbooks, and
// that a missing workbook turns into missing units, not silence.
func TestPullManifest(t *testing.T) {
	t.Parallel()
	dir, book := legalStudy(t)
	if err := os.Remove(book); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "pull", filepath.Join(dir, "manifest.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stderr, "error: "+book+": the workbook of batch b01 is missing; its 5 units are reported missing\n") ||
		!strings.Contains(stderr, "0 complete, 0 partial, 0 empty, 5 missing; 1 error") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if n := strings.Count(stdout, `"status":"missing"`); n != 5 {
		t.Errorf("%d missing records:\n%s", n, stdout)
	}
	goldtest.ValidateRecords(t, []byte(stdout))
}

func TestPullRefusals(t *testing.T) {
	t.Parallel()
	_, book := legalStudy(t)
	code, _, stderr := runCLI(t, "pull", book, "--template", "qa-span-errors")
	if code != exitFailure || stderr != "warning: "+book+": not read: workbook of another template or study: made with template legal-gaps, not qa-span-errors\nannosheet: no workbook was read: every source was refused (see above)\n" {
		t.Errorf("exit %d: %s", code, stderr)
	}
	other := filepath.Join(t.TempDir(), "other.xlsx")
	os.WriteFile(other, []byte("not a zip"), 0o644)
	if code, _, stderr := runCLI(t, "pull", other); code != exitFailure || !strings.Contains(stderr, "cannot read as an XLSX workbook") {
		t.Errorf("not a workbook: exit %d: %s", code, stderr)
	}
	if code, _, _ := runCLI(t, "pull"); code != exitUsage {
		t.Errorf("no source: exit %d", code)
	}
}

// TestExportPreferencePerAnnotator writes one completed file per
// annotator, named with {annotator}.
func TestExportPreferencePerAnnotator(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pref")
	if code, _, errs := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", dir); code != 0 {
		t.Fatal(errs)
	}
	w, err := goldtest.OpenWorkbook(filepath.Join(dir, "preference-likert-b01.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	first := w.Units[0]
	for k, v := range map[string]any{"q:best_prediction_reference": "Third prediction", "q:first_prediction_likert": 5, "annotator": "3"} {
		w.Set(w.Rows[first][0], k, v)
	}
	w.Save()
	ann := filepath.Join(t.TempDir(), "a.jsonl")
	runCLI(t, "pull", dir, "--out", ann)
	out := filepath.Join(t.TempDir(), "preference_json_{annotator}_completed.json")
	code, stdout, stderr := runCLI(t, "export", ann, "--native", "--manifest", filepath.Join(dir, "manifest.json"), "--out", out)
	file := strings.ReplaceAll(out, "{annotator}", "3")
	if code != 0 || stdout != "wrote "+file+": 10 records\n" {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(file)
	input, _ := os.ReadFile(prefData)
	var g, in map[string]map[string]any
	json.Unmarshal(got, &g)
	json.Unmarshal(input, &in)
	// The predictions were shown shuffled: the third place and the first
	// likert are those of the predictions shown there.
	man, err := manifest.Read(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	order := man.Orders[first]
	in[first]["best_prediction_reference"] = order[2]
	in[first][order[0]+"_prediction_likert"] = float64(5)
	if !bytes.Equal(mustJSON(in), mustJSON(g)) || !bytes.HasPrefix(got, input[:40]) {
		t.Errorf("completed file:\n%.400s", got)
	}
	// Again: the file exists now.
	if code, _, stderr := runCLI(t, "export", ann, "--native", "--manifest", filepath.Join(dir, "manifest.json"), "--out", out); code != exitFailure || !strings.Contains(stderr, "file exists") {
		t.Errorf("overwrite without --force: exit %d %s", code, stderr)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestExportFactgenieNeedsTheKey checks that the evaluators' real names
// can only come from the coordinator's manifest.
func TestExportFactgenieNeedsTheKey(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fg")
	if code, _, errs := runCLI(t, "generate", "-t", "factgenie-meta-eval", "-i", fgData, "-o", dir); code != 0 {
		t.Fatal(errs)
	}
	ann := filepath.Join(t.TempDir(), "a.jsonl")
	runCLI(t, "pull", dir, "--out", ann)
	code, _, stderr := runCLI(t, "export", ann, "--native", "--input", fgData)
	if code != exitFailure || stderr != "annosheet: template factgenie-meta-eval anonymises names: the study's manifest is needed to restore them (give --manifest)\n" {
		t.Errorf("exit %d: %s", code, stderr)
	}
	// With the manifest: nothing judged yet, nothing exported.
	code, stdout, stderr := runCLI(t, "export", ann, "--native", "--manifest", filepath.Join(dir, "manifest.json"))
	if code != 0 || stdout != "" {
		t.Errorf("exit %d: %q %s", code, stdout, stderr)
	}
}

// TestCLIEdges covers command-line cases a review found: the same workbook
// given twice, --param with a manifest of a template without parameters,
// annotator IDs that are not file names, --help after an argument.
func TestCLIEdges(t *testing.T) {
	t.Parallel()
	dir, book := legalStudy(t)
	code, stdout, _ := runCLI(t, "pull", dir, book, filepath.Join(dir, ".", "legal-gaps-b01.xlsx"))
	if code != 0 || strings.Count(stdout, "\n") != 5 {
		t.Errorf("the same workbook three ways: exit %d, %d records", code, strings.Count(stdout, "\n"))
	}
	ann := filepath.Join(t.TempDir(), "a.jsonl")
	runCLI(t, "pull", dir, "--out", ann)
	code, _, stderr := runCLI(t, "export", ann, "--native", "--manifest", filepath.Join(dir, "manifest.json"), "--param", "x=1")
	if code != exitFailure || !strings.Contains(stderr, `no parameter "x" (this template has no parameters)`) {
		t.Errorf("--param with a manifest: exit %d %s", code, stderr)
	}
	if code, stdout, _ := runCLI(t, "templates", "check", "x.yaml", "--help"); code != 0 || !strings.Contains(stdout, "Example") {
		t.Errorf("--help after an argument: exit %d", code)
	}
}
