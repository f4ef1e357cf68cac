package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/testkit/testreaders"
)

// legalRecords writes pulled legal-gaps records into a file of dir: each
// "unit annotator codes [status]" line, codes separated by commas.
func legalRecords(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		f := strings.Fields(l)
		status := "complete"
		if len(f) > 3 {
			status = f[3]
		}
		codes, _ := json.Marshal(strings.Split(f[2], ","))
		fmt.Fprintf(&b, `{"schema":"annosheet.annotation/1","template":{"name":"legal-gaps","version":1},"batch":"b01","unit":%q,"item":%q,"annotator":%q,"status":%q,"values":{"gaps":%s},"source":{"kind":"xlsx","file":"x.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`+"\n", f[0], f[0], f[1], status, codes)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// adjudicateCLI runs adjudicate into adj for lead; it fails the test
// unless the exit code is want.
func adjudicateCLI(t *testing.T, want int, adj string, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append(append([]string{"adjudicate"}, args...), "--out", adj, "--adjudicator", "lead")...)
	if code != want {
		t.Fatalf("adjudicate %v: exit %d, want %d:\n%s%s", args, code, want, stdout, stderr)
	}
	return stdout, stderr
}

// gapsCell is the text of a decision's cell under a header on the Gaps
// sheet of a workbook.
func gapsCell(t *testing.T, py, book, id, header string) string {
	t.Helper()
	gaps := adjBook(t, py, book)["Gaps"]
	r, ok := gaps.decisionRows()[id]
	if !ok {
		t.Fatalf("%s: no row %s on Gaps", book, id)
	}
	return gaps.text(r, gaps.col(t, header))
}

// wantGold pulls the gold set and checks each unit's gaps and their
// provenance's kind ("<nil> unresolved" for none), as "when" says.
func wantGold(t *testing.T, adj, when string, want map[string]string) {
	t.Helper()
	got, _, _ := pullGold(t, adj)
	for u, w := range want {
		g := "no record"
		if r, ok := got[u]; ok {
			kind := ""
			if p := r.Provenance["gaps"]; p != nil {
				kind = p.Kind
			}
			g = fmt.Sprintf("%v %s", r.Values["gaps"], kind)
		}
		if g != w {
			t.Errorf("%s: %s in the gold set is %s, want %s", when, u, g, w)
		}
	}
}

// TestAdjudicateRefusesCLI: the adjudicator (openpyxl) pastes a decided
// row again with another decision and types =1/0 into a Note, which
// openpyxl saves without a value. adjudicate again exits 1, names both
// cells, and writes nothing: the workbook and the manifest are as they
// were, byte for byte. Once the pasted row is deleted and the note typed,
// it runs, and the decision is kept.
func TestAdjudicateRefusesCLI(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	recs := legalRecords(t, dir, "a.jsonl", "u1 ann1 1", "u1 ann2 2", "u2 ann1 0", "u2 ann2 3")
	adj := filepath.Join(dir, "adj")
	adjudicateCLI(t, 0, adj, recs)
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	gaps := adjBook(t, py, book)["Gaps"]
	use, note := gaps.col(t, "Or use"), gaps.col(t, "Note")
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{
		{Sheet: "Gaps", Cells: [][2]any{{adjCell(1, use), "Annotator 1"}, {adjCell(2, note), "=1/0"}}},
		{Sheet: "Gaps", PasteRow: 2},
		{Sheet: "Gaps", Cells: [][2]any{{adjCell(3, use), "Annotator 2"}}},
	}})
	wb, man := readBytes(t, book), readBytes(t, filepath.Join(adj, "adjudication.json"))

	_, stderr := adjudicateCLI(t, 1, adj, recs)
	for _, want := range []string{
		"cannot be made anew without losing cells",
		book + ": Gaps!A4: d0001 is on rows 2 and 4 with different decisions",
		book + ": Gaps!" + adjCell(2, note) + ": a formula or a formula's error (d0002)",
		"nothing was written",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if string(readBytes(t, book)) != string(wb) {
		t.Error("the workbook changed")
	}
	if string(readBytes(t, filepath.Join(adj, "adjudication.json"))) != string(man) {
		t.Error("the manifest changed")
	}

	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{
		{Sheet: "Gaps", DeleteRow: 4, Cells: [][2]any{{adjCell(2, note), "see the citation"}}},
	}})
	if stdout, _ := adjudicateCLI(t, 0, adj, recs); !strings.Contains(stdout, "2 decided already and kept") {
		t.Errorf("the run after the fix: %s", stdout)
	}
	if got := gapsCell(t, py, book, "d0001", "Or use"); got != "Annotator 1" {
		t.Errorf("d0001's Or use: %q", got)
	}
	wantGold(t, adj, "after the fix", map[string]string{"u1": "[1] adjudicated"})
}

// TestAdjudicateFewerSourcesCLI: run again with one of its two sources,
// adjudicate keeps the units of the other, says so, and their rows with
// the decision made there; the gold set has them as decided.
func TestAdjudicateFewerSourcesCLI(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	a := legalRecords(t, dir, "a.jsonl", "u1 ann1 1", "u1 ann2 2")
	b := legalRecords(t, dir, "b.jsonl", "u2 ann1 0", "u2 ann2 3", "u3 ann1 2", "u3 ann2 2")
	adj := filepath.Join(dir, "adj")
	adjudicateCLI(t, 0, adj, a, b)
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	gaps := adjBook(t, py, book)["Gaps"]
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{
		{Sheet: "Gaps", Cells: [][2]any{{adjCell(gaps.decisionRows()["d0002"], gaps.col(t, "Or use")), "Annotator 2"}}},
	}})

	_, stderr := adjudicateCLI(t, 0, adj, a)
	if !strings.Contains(stderr, "unit u2 has no complete record among these sources") || !strings.Contains(stderr, "unit u3 has no complete record") {
		t.Errorf("no note of the units left out:\n%s", stderr)
	}
	if got := gapsCell(t, py, book, "d0002", "Or use"); got != "Annotator 2" {
		t.Errorf("u2's Or use after the run: %q", got)
	}
	wantGold(t, adj, "with fewer sources", map[string]string{"u1": "<nil> unresolved", "u2": "[3] adjudicated", "u3": "[2] unanimous"})
}

// TestAdjudicateInterruptedCLI: with --batch-size 1, a second run would
// make a second workbook where a folder squats on its name: it fails,
// naming it, before anything is written, so that pull still reads the
// first workbook (decided in) as it was, with no unfinished workbook to
// warn of. With the folder gone, adjudicate runs again, keeps the
// decision and writes both workbooks. (A run stopped part way, between
// two workbooks, is study's TestAdjudicateInterrupted.)
func TestAdjudicateInterruptedCLI(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	a := legalRecords(t, dir, "a.jsonl", "u1 ann1 1", "u1 ann2 2")
	b := legalRecords(t, dir, "b.jsonl", "u2 ann1 0", "u2 ann2 3")
	adj := filepath.Join(dir, "adj")
	adjudicateCLI(t, 0, adj, a, "--batch-size", "1")
	first, second := filepath.Join(adj, "adjudicate-lead-01.xlsx"), filepath.Join(adj, "adjudicate-lead-02.xlsx")
	gaps := adjBook(t, py, first)["Gaps"]
	runAdjudicator(t, py, map[string]any{"path": first, "edits": []adjEdit{
		{Sheet: "Gaps", Cells: [][2]any{{adjCell(1, gaps.col(t, "Or use")), "Annotator 2"}, {adjCell(1, gaps.col(t, "Note")), "2 it is"}}},
	}})
	if err := os.Mkdir(second, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr := adjudicateCLI(t, 1, adj, a, b, "--batch-size", "1"); !strings.Contains(stderr, second) {
		t.Errorf("the failed run does not name %s:\n%s", second, stderr)
	}
	code, _, stderr := runCLI(t, "pull", adj, "--out", filepath.Join(dir, "gold.jsonl"))
	if code != 0 || strings.Contains(stderr, "did not finish") {
		t.Errorf("pull before the next run: exit %d, the failed run left something unfinished:\n%s", code, stderr)
	}
	wantGold(t, adj, "before the next run", map[string]string{"u1": "[2] adjudicated"})

	if err := os.Remove(second); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := adjudicateCLI(t, 0, adj, a, b, "--batch-size", "1")
	if !strings.Contains(stdout, "1 decided already and kept") || !strings.Contains(stdout, "wrote "+second) {
		t.Errorf("the next run:\n%s%s", stdout, stderr)
	}
	if got := gapsCell(t, py, first, "d0001", "Note"); got != "2 it is" {
		t.Errorf("the note after the next run: %q", got)
	}
	_, stderr, _ = pullGold(t, adj)
	if strings.Contains(stderr, "did not finish") {
		t.Errorf("pull still warns:\n%s", stderr)
	}
	wantGold(t, adj, "after the next run", map[string]string{"u1": "[2] adjudicated", "u2": "<nil> unresolved"})
}

// TestAdjudicateShowAnnotatorsCLI: --show-annotators on, off and on
// again: the columns and a carried Or use follow the latest run, and the
// gold set reads the same decision each time.
func TestAdjudicateShowAnnotatorsCLI(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	recs := legalRecords(t, dir, "a.jsonl", "u1 ann1 1", "u1 ann2 2")
	adj := filepath.Join(dir, "adj")
	adjudicateCLI(t, 0, adj, recs)
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	gaps := adjBook(t, py, book)["Gaps"]
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{{Sheet: "Gaps", Cells: [][2]any{{adjCell(1, gaps.col(t, "Or use")), "Annotator 2"}}}}})
	for _, show := range []bool{true, false, true} {
		args, names := []string{recs}, [2]string{"Annotator 1", "Annotator 2"}
		if show {
			args, names = append(args, "--show-annotators"), [2]string{"ann1", "ann2"}
		}
		adjudicateCLI(t, 0, adj, args...)
		gaps := adjBook(t, py, book)["Gaps"]
		gaps.col(t, names[0])
		if got := gaps.text(1, gaps.col(t, "Or use")); got != names[1] {
			t.Errorf("show %v: Or use %q, want %q", show, got, names[1])
		}
		wantGold(t, adj, fmt.Sprint("show ", show), map[string]string{"u1": "[2] adjudicated"})
	}
}

// TestAdjudicateMinAgreementCLI: --min-agreement 2 on a unit only one
// annotator completed gives it a row to decide; it is not accepted 1/1.
func TestAdjudicateMinAgreementCLI(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	recs := legalRecords(t, dir, "a.jsonl", "u1 ann1 1", "u1 ann2 2 partial", "u2 ann1 3", "u2 ann2 3", "u2 ann3 0")
	adj := filepath.Join(dir, "adj")
	stdout, _ := adjudicateCLI(t, 0, adj, recs, "--min-agreement", "2")
	if !strings.Contains(stdout, "2 units by 3 annotators: 1 answer accepted (0 unanimous, 1 by --min-agreement); 1 disagreement to decide") {
		t.Errorf("stdout: %s", stdout)
	}
	rows := adjBook(t, py, filepath.Join(adj, "adjudicate-lead.xlsx"))["Gaps"].decisionRows()
	if len(rows) != 1 {
		t.Errorf("Gaps rows %v, want u1's only", rows)
	}
	wantGold(t, adj, "--min-agreement 2", map[string]string{"u1": "<nil> unresolved", "u2": "[3] majority"})
}

// TestAdjudicateSavedAsODS: an adjudicator who saves the workbook as .ods
// (LibreOffice's own format) beside the .xlsx loses no decision: pull
// reads the .ods, which is newer, and says so; adjudicate run again keeps
// the decision and writes it into the .xlsx; after that, the .ods, older,
// is named and not read. A copy in a format nothing reads (.numbers),
// newer than the workbook, stops both commands, naming it.
func TestAdjudicateSavedAsODS(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	soffice := testreaders.Soffice(t)
	dir := t.TempDir()
	a := legalRecords(t, dir, "a.jsonl", "u1 ann1 1", "u1 ann2 2")
	adj := filepath.Join(dir, "adj")
	adjudicateCLI(t, 0, adj, a)
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	gaps := adjBook(t, py, book)["Gaps"]
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{
		{Sheet: "Gaps", Cells: [][2]any{{adjCell(1, gaps.col(t, "Or use")), "Annotator 2"}}},
	}})
	// Saved as .ods: the .xlsx stays as adjudicate wrote it.
	testreaders.Convert(t, soffice, "ods", adj, book)
	ods := filepath.Join(adj, "adjudicate-lead.ods")
	// The .xlsx as it was before the decision, and older than the .ods.
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{
		{Sheet: "Gaps", Cells: [][2]any{{adjCell(1, gaps.col(t, "Or use")), ""}}},
	}})
	earlier := time.Now().Add(-time.Hour)
	if err := os.Chtimes(book, earlier, earlier); err != nil {
		t.Fatal(err)
	}
	_, stderr, _ := pullGold(t, adj)
	if !strings.Contains(stderr, ods+": the decisions are read from this copy of adjudicate-lead.xlsx") {
		t.Errorf("pull does not say it read the .ods:\n%s", stderr)
	}
	wantGold(t, adj, "read from the .ods", map[string]string{"u1": "[2] adjudicated"})

	if out, _ := adjudicateCLI(t, 0, adj, a); !strings.Contains(out, "1 decided already and kept") {
		t.Errorf("the run after the .ods: %s", out)
	}
	if got := gapsCell(t, py, book, "d0001", "Or use"); got != "Annotator 2" {
		t.Errorf("the decision written into the .xlsx: %q", got)
	}
	_, stderr, _ = pullGold(t, adj)
	if !strings.Contains(stderr, ods+": an older copy of adjudicate-lead.xlsx in another format: it is not read") {
		t.Errorf("pull does not name the older .ods:\n%s", stderr)
	}
	wantGold(t, adj, "read from the .xlsx", map[string]string{"u1": "[2] adjudicated"})

	numbers := filepath.Join(adj, "adjudicate-lead.numbers")
	if err := os.WriteFile(numbers, []byte("PK\x03\x04"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(numbers, later, later)
	for _, args := range [][]string{{"pull", adj, "--out", filepath.Join(dir, "g.jsonl")}, {"adjudicate", a, "--out", adj, "--adjudicator", "lead"}} {
		code, _, errs := runCLI(t, args...)
		if code != exitFailure || !strings.Contains(errs, numbers+": the adjudication workbook saved as .numbers, which cannot be read") {
			t.Errorf("%s with a newer .numbers copy: exit %d:\n%s", args[0], code, errs)
		}
	}
}
