package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// adjAnnotators are the annotators of the studies adjudicated here.
var adjAnnotators = []string{"ann1", "ann2", "ann3"}

// openpyxlAdjudicator is what an adjudicator's application does to an
// adjudication workbook: it reads every sheet back (dump), or applies
// edits to named sheets in order: cells written (typed), the data rows
// sorted by a column, last first, a row deleted, a row pasted again
// below the last.
const openpyxlAdjudicator = `
import json, sys, openpyxl
from openpyxl.utils import column_index_from_string
spec = json.load(open(sys.argv[1]))
wb = openpyxl.load_workbook(spec["path"])
if spec.get("dump"):
    out = {}
    for ws in wb.worksheets:
        rows = [[c.value if c.value is None or isinstance(c.value, (bool, int, float, str)) else str(c.value) for c in r] for r in ws.iter_rows()]
        out[ws.title] = {"state": ws.sheet_state, "rows": rows}
    json.dump(out, open(spec["dump"], "w"))
    sys.exit(0)
for e in spec["edits"]:
    ws = wb[e["sheet"]]
    for cell, value in e.get("cells") or []:
        ws[cell] = value
    if e.get("sort_by"):
        col = column_index_from_string(e["sort_by"])
        rows = [[c.value for c in r] for r in ws.iter_rows(min_row=2, max_row=ws.max_row)]
        rows.sort(key=lambda r: str(r[col - 1] or ""), reverse=True)
        for i, r in enumerate(rows):
            for j, v in enumerate(r):
                ws.cell(row=i + 2, column=j + 1).value = v
    if e.get("delete_row"):
        ws.delete_rows(e["delete_row"])
    if e.get("paste_row"):
        src, dst = e["paste_row"], ws.max_row + 1
        for j in range(1, ws.max_column + 1):
            ws.cell(row=dst, column=j).value = ws.cell(row=src, column=j).value
wb.save(spec["path"])
`

// adjEdit is one edit of an adjudication sheet (see openpyxlAdjudicator).
type adjEdit struct {
	Sheet     string   `json:"sheet"`
	Cells     [][2]any `json:"cells,omitempty"`
	SortBy    string   `json:"sort_by,omitempty"`
	DeleteRow int      `json:"delete_row,omitempty"`
	PasteRow  int      `json:"paste_row,omitempty"`
}

// runAdjudicator runs the openpyxl script with a spec.
func runAdjudicator(t *testing.T, py string, spec map[string]any) {
	t.Helper()
	dir := t.TempDir()
	script, file := filepath.Join(dir, "adjudicator.py"), filepath.Join(dir, "spec.json")
	if err := os.WriteFile(script, []byte(openpyxlAdjudicator), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, mustJSON(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, file).CombinedOutput(); err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, out)
	}
}

// xlsxAdjSheet is one sheet of an adjudication workbook as openpyxl reads
// it: its state and its rows of values, the header first.
type xlsxAdjSheet struct {
	State string  `json:"state"`
	Rows  [][]any `json:"rows"`
}

// adjBook reads every sheet of a workbook with openpyxl.
func adjBook(t *testing.T, py, path string) map[string]*xlsxAdjSheet {
	t.Helper()
	dump := filepath.Join(t.TempDir(), "dump.json")
	runAdjudicator(t, py, map[string]any{"path": path, "dump": dump})
	var out map[string]*xlsxAdjSheet
	if err := json.Unmarshal(readBytes(t, dump), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// col is the 0-based column of a header; the test fails without it.
// With several columns of one header, n picks the n-th (0 the first).
func (s *xlsxAdjSheet) col(t *testing.T, header string, n ...int) int {
	t.Helper()
	k := 0
	if len(n) > 0 {
		k = n[0]
	}
	for i, v := range s.Rows[0] {
		if v == header {
			if k == 0 {
				return i
			}
			k--
		}
	}
	t.Fatalf("no column %q in %v", header, s.Rows[0])
	return -1
}

// text is a cell's value as text ("" for none).
func (s *xlsxAdjSheet) text(row, col int) string {
	if row >= len(s.Rows) || col >= len(s.Rows[row]) || s.Rows[row][col] == nil {
		return ""
	}
	return fmt.Sprint(s.Rows[row][col])
}

// cell is the A1 name of a 0-based row and column of the sheet.
func adjCell(row, col int) string {
	name := ""
	for c := col + 1; c > 0; c = (c - 1) / 26 {
		name = string(rune('A'+(c-1)%26)) + name
	}
	return fmt.Sprintf("%s%d", name, row+1)
}

// decisionRows maps each row's Decision ID (column A) to its 0-based
// row.
func (s *xlsxAdjSheet) decisionRows() map[string]int {
	out := map[string]int{}
	for i, r := range s.Rows[1:] {
		if len(r) > 0 && r[0] != nil {
			out[fmt.Sprint(r[0])] = i + 1
		}
	}
	return out
}

// adjManifest is the part of adjudication.json the tests read.
type adjManifest struct {
	Annotators []string `json:"annotators"`
	Names      []string `json:"names"`
	Items      []struct {
		ID       string `json:"id"`
		Unit     string `json:"unit"`
		Kind     string `json:"kind"`
		Question string `json:"question"`
	} `json:"items"`
}

func readAdjManifest(t *testing.T, dir string) adjManifest {
	t.Helper()
	var m adjManifest
	if err := json.Unmarshal(readBytes(t, filepath.Join(dir, "adjudication.json")), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// name is how an annotator is shown.
func (m adjManifest) name(t *testing.T, who string) string {
	t.Helper()
	i := slices.Index(m.Annotators, who)
	if i < 0 {
		t.Fatalf("no annotator %s in %v", who, m.Annotators)
	}
	return m.Names[i]
}

// resave opens a workbook in LibreOffice and saves it as XLSX in place.
func resave(t *testing.T, soffice, path string) {
	t.Helper()
	out := t.TempDir()
	testreaders.Convert(t, soffice, "xlsx", out, path)
	b := readBytes(t, filepath.Join(out, filepath.Base(path)))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pullGold pulls an adjudication folder into a gold file, checks it
// against the annotation schema, and returns its records by unit and
// pull's stderr.
func pullGold(t *testing.T, adj string) (map[string]records.Annotation, string, []byte) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "gold.jsonl")
	code, _, stderr := runCLI(t, "pull", adj, "--out", out)
	if code != 0 {
		t.Fatalf("pull %s: exit %d: %s", adj, code, stderr)
	}
	b := readBytes(t, out)
	goldtest.ValidateRecords(t, b)
	recs := map[string]records.Annotation{}
	for _, r := range readRecords(t, string(b)) {
		if r.Annotator != records.GoldAnnotator {
			t.Errorf("unit %s: annotator %q, want gold", r.Unit, r.Annotator)
		}
		if _, dup := recs[r.Unit]; dup {
			t.Errorf("unit %s: two gold records", r.Unit)
		}
		recs[r.Unit] = r
	}
	return recs, stderr, b
}

// legalUnits are the legal-gaps study's units: each real ID with the
// annotators whose workbook holds it, sorted, read from the workbooks.
func legalUnits(t *testing.T, study string, annotators []string) map[string][]string {
	t.Helper()
	key := opaqueKey(t, study)
	out := map[string][]string{}
	for _, who := range annotators {
		w := openLayout(t, filepath.Join(study, "legal-gaps-"+who+"-b01.xlsx")).RealIDs(key)
		for _, u := range w.Units {
			out[u] = append(out[u], who)
		}
	}
	return out
}

// fillLegal writes each annotator's answers into their workbook with
// openpyxl: answers(unit, annotator) gives the codes ticked (the others
// are unticked) and the note ("" for none).
func fillLegal(t *testing.T, py, study string, annotators []string, answers func(unit, who string) ([]int, string)) {
	t.Helper()
	key := opaqueKey(t, study)
	for _, who := range annotators {
		path := filepath.Join(study, "legal-gaps-"+who+"-b01.xlsx")
		w := openLayout(t, path).RealIDs(key)
		var cells [][2]any
		for _, u := range w.Units {
			row := w.Rows[u][0]
			codes, note := answers(u, who)
			for c := range 4 {
				cells = append(cells, [2]any{mustCell(t, w, row, fmt.Sprintf("q:gaps=%d", c)), slices.Contains(codes, c)})
			}
			if note != "" {
				cells = append(cells, [2]any{mustCell(t, w, row, "q:note"), note})
			}
		}
		fillWithOpenpyxl(t, py, path, cells, "")
	}
}

// codes are label codes as a gold record's values hold them.
func codes(ns ...int) []any {
	out := []any{}
	for _, n := range ns {
		out = append(out, fmt.Sprint(n))
	}
	return out
}

// legalGold reads the gold labels of the legal-gaps sample by ID.
func legalGold(t *testing.T) (map[string][]int, []string) {
	t.Helper()
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	gold := map[string][]int{}
	var ids []string
	for _, r := range recs {
		gold[r.ID] = r.GoldLabels
		ids = append(ids, r.ID)
	}
	return gold, ids
}

// TestAdjudicateLegalGapsOverlap2: a legal-gaps study of three annotators
// with overlap 2, filled with openpyxl from the gold labels with planned
// disagreements, is adjudicated through the CLI. The Gaps and Note sheets
// hold exactly the planned disagreements, each with its two annotators'
// answers under neutral names, and the Summary counts the rest as
// unanimous; no annotator ID (nor a real unit ID) is anywhere in the
// workbook. The adjudicator (openpyxl) ticks Final boxes, picks an
// annotator in Or use, types a final note, leaves one row undecided;
// LibreOffice re-saves the workbook; the pulled gold set is what the test
// decided, values and provenance, with the undecided row reported by
// cell and its unit partial.
func TestAdjudicateLegalGapsOverlap2(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	soffice := testreaders.Soffice(t)
	annotators := adjAnnotators
	study := generateStudy(t, "legal-gaps", legalData, strings.Join(annotators, ","), 2)
	gold, ids := legalGold(t)
	units := legalUnits(t, study, annotators)
	for _, id := range ids {
		if len(units[id]) != 2 {
			t.Fatalf("unit %s is in %d workbooks, want 2", id, len(units[id]))
		}
	}
	// The plan, by unit (in the data's order): the first of its two
	// annotators (a) or the second (b) answers otherwise than the gold.
	u0, u1, u2, u3, u4 := ids[0], ids[1], ids[2], ids[3], ids[4]
	first := func(u string) string { return units[u][0] }
	second := func(u string) string { return units[u][1] }
	answers := func(u, who string) ([]int, string) {
		labels, note := gold[u], ""
		switch {
		case u == u0 && who == first(u):
			labels = []int{2} // misses 3
		case u == u2 && who == second(u):
			labels = []int{3}
		case u == u4 && who == first(u):
			labels = []int{0}
		case u == u1:
			note = "Check the second citation" // the same note: unanimous
		case u == u3 && who == first(u):
			note = "Repeats itself"
		}
		return labels, note
	}
	fillLegal(t, py, study, annotators, answers)

	adj := filepath.Join(t.TempDir(), "adj")
	code, stdout, stderr := runCLI(t, "adjudicate", study, "--out", adj, "--adjudicator", "lead")
	if code != 0 {
		t.Fatalf("adjudicate: exit %d: %s", code, stderr)
	}
	// The gaps of u0, u2 and u4; u3's note, written by one annotator
	// only, is free text: carried, not decided.
	if !strings.Contains(stdout, "3 disagreements to decide") {
		t.Errorf("adjudicate says:\n%s", stdout)
	}
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	text := packageText(t, book)
	for _, secret := range append(append([]string{}, annotators...), ids...) {
		if strings.Contains(text, secret) {
			t.Errorf("the adjudication workbook holds %q", secret)
		}
	}
	m := readAdjManifest(t, adj)
	if !slices.Equal(m.Annotators, annotators) || !slices.Equal(m.Names, []string{"Annotator 1", "Annotator 2", "Annotator 3"}) {
		t.Errorf("the key: %v shown as %v", m.Annotators, m.Names)
	}
	sheets := adjBook(t, py, book)
	shown := func(id string) string {
		for o, r := range opaqueKey(t, study) {
			if r == id {
				return o
			}
		}
		t.Fatalf("no opaque ID for %s", id)
		return ""
	}
	// Each sheet's rows: unit shown -> the answers in its annotators'
	// columns.
	type rowWant struct {
		unit    string
		answers map[string]string // neutral name -> the answer shown
	}
	show := func(ns ...int) string {
		names := []string{"0 No gap", "1 Intrinsic error/LLM error", "2 Target Mismatch", "3 Citation Error"}
		var out []string
		for _, n := range ns {
			out = append(out, names[n])
		}
		return strings.Join(out, "; ")
	}
	want := map[string][]rowWant{
		"Gaps": {
			{u0, map[string]string{m.name(t, first(u0)): show(2), m.name(t, second(u0)): show(2, 3)}},
			{u2, map[string]string{m.name(t, first(u2)): show(2, 3), m.name(t, second(u2)): show(3)}},
			{u4, map[string]string{m.name(t, first(u4)): show(0), m.name(t, second(u4)): show(2)}},
		},
	}
	if s := sheets["Note"]; s != nil {
		t.Errorf("a sheet of notes to decide: %v", s.Rows)
	}
	rowOf := map[string]map[string]int{} // sheet -> real unit -> row
	for name, rows := range want {
		s := sheets[name]
		if s == nil || s.State != "visible" {
			t.Fatalf("no visible sheet %s among %v", name, slices.Sorted(mapKeys(sheets)))
		}
		if len(s.Rows)-1 != len(rows) {
			t.Errorf("%s: %d rows, want %d", name, len(s.Rows)-1, len(rows))
		}
		rowOf[name] = map[string]int{}
		for _, w := range rows {
			r := slices.IndexFunc(s.Rows, func(r []any) bool { return r[s.col(t, "ID")] == shown(w.unit) })
			if r < 1 {
				t.Errorf("%s: no row of %s (%s)", name, w.unit, shown(w.unit))
				continue
			}
			rowOf[name][w.unit] = r
			for n, a := range w.answers {
				if got := s.text(r, s.col(t, n)); got != a {
					t.Errorf("%s, %s: %s answered %q, want %q", name, w.unit, n, got, a)
				}
			}
			if got := s.text(r, s.col(t, "Suggested")); got != "" {
				t.Errorf("%s, %s: suggested %q on a tie of two", name, w.unit, got)
			}
			if s.text(r, s.col(t, "Generation")) == "" {
				t.Errorf("%s, %s: no context shown", name, w.unit)
			}
		}
	}
	// The Summary: per question, the units accepted unanimously.
	sum := sheets["Summary"]
	counts := map[string][]string{}
	for _, r := range sum.Rows {
		if len(r) > 3 && r[0] != nil {
			counts[fmt.Sprint(r[0])] = []string{fmt.Sprint(r[1]), fmt.Sprint(r[2]), fmt.Sprint(r[3])}
		}
	}
	// Gaps: 2 of 5 unanimous (u1, u3), 3 to decide; Note: u1's one note,
	// and u3's carried.
	if diff := cmp.Diff(map[string][]string{"Gaps": {"2", "0", "3"}, "Note": {"1", "0", "0"}}, map[string][]string{"Gaps": counts["Gaps"], "Note": counts["Note"]}); diff != "" {
		t.Errorf("Summary: unanimous, majority, to decide (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(sum.Rows, func(r []any) bool {
		return len(r) > 0 && strings.HasPrefix(fmt.Sprint(r[0]), "Note is not adjudicated: where the annotators' answers differ (1 unit)")
	}) {
		t.Errorf("the Summary does not say the notes are carried: %v", sum.Rows)
	}

	// The adjudicator: u0 ticks 2 and 3 (1 unticked); u2 takes the first
	// annotator's answer; u4 is left.
	gaps := sheets["Gaps"]
	r0, r2 := rowOf["Gaps"][u0], rowOf["Gaps"][u2]
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{
		{Sheet: "Gaps", Cells: [][2]any{
			{adjCell(r0, gaps.col(t, "Final: 1 Intrinsic error/LLM error")), false},
			{adjCell(r0, gaps.col(t, "Final: 2 Target Mismatch")), true},
			{adjCell(r0, gaps.col(t, "Final: 3 Citation Error")), true},
			{adjCell(r0, gaps.col(t, "Reason")), "annotator error"},
			{adjCell(r0, gaps.col(t, "Note")), "3 was missed"},
			{adjCell(r2, gaps.col(t, "Or use")), m.name(t, first(u2))},
			{adjCell(r2, gaps.col(t, "Reason")), "guideline unclear"},
		}},
	}})
	resave(t, soffice, book)

	got, stderr, _ := pullGold(t, adj)
	decision := func(sheet string, row int) string { return sheets[sheet].text(row, 0) }
	cell := func(sheet string, row int, header string) string {
		return sheet + "!" + adjCell(row, sheets[sheet].col(t, header))
	}
	unanimous := &records.Provenance{Kind: "unanimous", Agreeing: 2, Annotators: 2}
	wantGold := map[string]records.Annotation{
		u0: {Status: "complete", Values: map[string]any{"gaps": codes(2, 3)}, Provenance: map[string]*records.Provenance{
			"gaps": {Kind: "adjudicated", Agreeing: 1, Annotators: 2, Adjudicator: "lead", Reason: "annotator error", Note: "3 was missed", Decision: decision("Gaps", r0), Cell: cell("Gaps", r0, "Final: 0 No gap")}}},
		u1: {Status: "complete", Values: map[string]any{"gaps": codes(2, 3), "note": "Check the second citation"}, Provenance: map[string]*records.Provenance{"gaps": unanimous, "note": unanimous}},
		u2: {Status: "complete", Values: map[string]any{"gaps": codes(2, 3)}, Provenance: map[string]*records.Provenance{
			// Decided by Or use: its cell is named.
			"gaps": {Kind: "adjudicated", Agreeing: 1, Annotators: 2, Adjudicator: "lead", Reason: "guideline unclear", Decision: decision("Gaps", r2), Cell: cell("Gaps", r2, "Or use")}}},
		u3: {Status: "complete", Values: map[string]any{"gaps": codes(1)}, Provenance: map[string]*records.Provenance{"gaps": unanimous,
			"note": {Kind: "carried", Annotators: 2, Answers: []records.CarriedAnswer{{Annotator: first(u3), Value: "Repeats itself"}}}}},
		u4: {Status: "partial", Values: map[string]any{}, Provenance: map[string]*records.Provenance{
			"gaps": {Kind: "unresolved", Annotators: 2, Decision: decision("Gaps", rowOf["Gaps"][u4]), Cell: cell("Gaps", rowOf["Gaps"][u4], "Final: 0 No gap")}}},
	}
	checkGold(t, got, wantGold)
	// The undecided row is reported by its sheet and cell, as pull
	// reports a cell.
	if c := cell("Gaps", rowOf["Gaps"][u4], "Final: 0 No gap"); !strings.Contains(stderr, strings.Replace(c, "!", " ", 1)) && !strings.Contains(stderr, c) {
		t.Errorf("pull does not report the undecided row at %s:\n%s", c, stderr)
	}
	if !strings.Contains(stderr, "1 unresolved") {
		t.Errorf("pull's count:\n%s", stderr)
	}

	// The gold set flows on: agree scores each annotator against it. An
	// annotator is right wherever the gold agrees with them, so each
	// one's accuracy is the share of their units whose gold value is
	// theirs, the undecided unit not scored.
	goldFile := filepath.Join(t.TempDir(), "gold.jsonl")
	if code, _, errs := runCLI(t, "pull", adj, "--out", goldFile); code != 0 {
		t.Fatalf("pull: %s", errs)
	}
	// The gold set's native file: u4, undecided, is refused by its line,
	// or written without its labels when asked, and named.
	native := filepath.Join(t.TempDir(), "labels.jsonl")
	u4cell := cell("Gaps", rowOf["Gaps"][u4], "Final: 0 No gap")
	exportGold := []string{"export", goldFile, "--native", "--manifest", filepath.Join(study, "manifest.json"), "--out", native}
	code, _, errs := runCLI(t, exportGold...)
	wantLine := fmt.Sprintf("annosheet:   %s: gaps (decision %s, %s) unresolved\n", u4, decision("Gaps", rowOf["Gaps"][u4]), u4cell)
	if code != exitFailure || !strings.Contains(errs, "1 gold unit nobody decided") || !strings.Contains(errs, wantLine) || !strings.Contains(errs, "--allow-unresolved") {
		t.Errorf("export of a gold set with an undecided unit: exit %d, want %d and\n%s\ngot:\n%s", code, exitFailure, wantLine, errs)
	}
	if _, err := os.Stat(native); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused export wrote %s", native)
	}
	code, _, errs = runCLI(t, append(exportGold, "--allow-unresolved")...)
	if code != 0 || !strings.Contains(errs, "warning: "+u4+": gaps (decision") {
		t.Errorf("export --allow-unresolved: exit %d:\n%s", code, errs)
	}
	if got := readBytes(t, native); !bytes.Contains(got, []byte(`"id": "`+u4+`"`)) {
		t.Errorf("the undecided unit is not in the native file:\n%s", got)
	}
	code, out, errs := runCLI(t, "agree", study, "--against", goldFile, "--json", "-q", "gaps")
	if code != 0 {
		t.Fatalf("agree --against: exit %d: %s", code, errs)
	}
	goldtest.ValidateAgreement(t, []byte(out))
	var rep struct {
		Against struct {
			Questions []struct {
				Question   string
				Annotators []struct {
					Annotator string
					Units     int
					Accuracy  *float64
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	scored := 0
	for _, q := range rep.Against.Questions {
		for _, a := range q.Annotators {
			if a.Annotator == "*" {
				continue
			}
			right, n := 0, 0
			for u, want := range wantGold {
				if !slices.Contains(units[u], a.Annotator) || want.Status != records.StatusComplete {
					continue
				}
				n++
				mine, _ := answers(u, a.Annotator)
				if fmt.Sprint(codes(mine...)) == fmt.Sprint(want.Values["gaps"]) {
					right++
				}
			}
			if a.Units != n || n > 0 && (a.Accuracy == nil || *a.Accuracy != float64(right)/float64(n)) {
				t.Errorf("%s against gold: %d units, accuracy %v; want %d units, %d right", a.Annotator, a.Units, a.Accuracy, n, right)
			}
			scored++
		}
	}
	if scored != len(annotators) {
		t.Errorf("agree --against scored %d annotators, want %d:\n%s", scored, len(annotators), out)
	}
}

// TestAdjudicateLegalGapsOverlap3: the legal-gaps study with every unit
// done by all three annotators, filled with openpyxl so that two units
// have a majority of two, one a three-way tie, one is unanimous. With
// --show-annotators the columns are headed by the annotators' IDs, and
// Or use takes an ID; the adjudicator (openpyxl) takes the suggestion on
// one row, overrules the majority on another, ticks the answer of the
// tie, and leaves one; LibreOffice re-saves; the gold set is what was
// decided. And --resolve majority, without a workbook, takes the
// majorities and leaves the tie unresolved.
func TestAdjudicateLegalGapsOverlap3(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	annotators := adjAnnotators
	study := generateStudy(t, "legal-gaps", legalData, strings.Join(annotators, ","), 3)
	gold, ids := legalGold(t)
	u0, u1, u2, u3, u4 := ids[0], ids[1], ids[2], ids[3], ids[4]
	plan := map[string]map[string][]int{
		u0: {"ann3": {2}},              // 2 of 3 give the gold
		u2: {"ann1": {2}, "ann2": {3}}, // a three-way tie
		u3: {"ann1": {0}, "ann2": {0}}, // a majority against the gold
		u4: {"ann2": {2, 3}},           // 2 of 3 give the gold
	}
	fillLegal(t, py, study, annotators, func(u, who string) ([]int, string) {
		if l, ok := plan[u][who]; ok {
			return l, ""
		}
		return gold[u], ""
	})
	unanimous := &records.Provenance{Kind: "unanimous", Agreeing: 3, Annotators: 3}

	t.Run("resolve majority", func(t *testing.T) {
		t.Parallel()
		silver := filepath.Join(t.TempDir(), "silver.jsonl")
		code, stdout, stderr := runCLI(t, "adjudicate", study, "--resolve", "majority", "--out", silver)
		if code != 0 {
			t.Fatalf("adjudicate --resolve majority: exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "3 disagreements decided by majority, 1 unresolved") {
			t.Errorf("adjudicate says:\n%s", stdout)
		}
		b := readBytes(t, silver)
		goldtest.ValidateRecords(t, b)
		got := map[string]records.Annotation{}
		for _, r := range readRecords(t, string(b)) {
			if r.Annotator != records.GoldAnnotator {
				t.Errorf("%s: annotator %q", r.Unit, r.Annotator)
			}
			for _, p := range r.Provenance {
				p.Decision, p.Cell = "", "" // no sheet: nothing to find them by
			}
			got[r.Unit] = r
		}
		majority := &records.Provenance{Kind: "majority", Agreeing: 2, Annotators: 3}
		checkGold(t, got, map[string]records.Annotation{
			u0: {Status: "complete", Values: map[string]any{"gaps": codes(2, 3)}, Provenance: map[string]*records.Provenance{"gaps": majority}},
			u1: {Status: "complete", Values: map[string]any{"gaps": codes(2, 3)}, Provenance: map[string]*records.Provenance{"gaps": unanimous}},
			u2: {Status: "partial", Values: map[string]any{}, Provenance: map[string]*records.Provenance{"gaps": {Kind: "unresolved", Annotators: 3}}},
			u3: {Status: "complete", Values: map[string]any{"gaps": codes(0)}, Provenance: map[string]*records.Provenance{"gaps": majority}},
			u4: {Status: "complete", Values: map[string]any{"gaps": codes(2)}, Provenance: map[string]*records.Provenance{"gaps": majority}},
		})
	})

	t.Run("adjudicated with the annotators shown", func(t *testing.T) {
		t.Parallel()
		soffice := testreaders.Soffice(t)
		adj := filepath.Join(t.TempDir(), "adj")
		if code, _, stderr := runCLI(t, "adjudicate", study, "--out", adj, "--adjudicator", "lead", "--show-annotators"); code != 0 {
			t.Fatalf("adjudicate: exit %d: %s", code, stderr)
		}
		book := filepath.Join(adj, "adjudicate-lead.xlsx")
		gaps := adjBook(t, py, book)["Gaps"]
		key := opaqueKey(t, study)
		rows := map[string]int{}
		for i := range gaps.Rows[1:] {
			rows[key[gaps.text(i+1, gaps.col(t, "ID"))]] = i + 1
		}
		if diff := cmp.Diff(map[string]bool{u0: true, u2: true, u3: true, u4: true}, map[string]bool{u0: rows[u0] > 0, u2: rows[u2] > 0, u3: rows[u3] > 0, u4: rows[u4] > 0}); diff != "" || len(gaps.Rows) != 5 {
			t.Fatalf("rows of Gaps: %v (-want +got):\n%s", rows, diff)
		}
		for _, who := range annotators {
			gaps.col(t, who) // headed by the ID
		}
		// The suggestion: the majority's answer, blank on the tie.
		for u, want := range map[string]string{u0: "2 Target Mismatch; 3 Citation Error", u2: "", u3: "0 No gap", u4: "2 Target Mismatch"} {
			if got := gaps.text(rows[u], gaps.col(t, "Suggested")); got != want {
				t.Errorf("%s: suggested %q, want %q", u, got, want)
			}
		}
		r0, r2, r3 := rows[u0], rows[u2], rows[u3]
		runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{{Sheet: "Gaps", Cells: [][2]any{
			{adjCell(r0, gaps.col(t, "Or use")), "suggested"},
			{adjCell(r2, gaps.col(t, "Final: 2 Target Mismatch")), true},
			{adjCell(r2, gaps.col(t, "Final: 3 Citation Error")), true},
			{adjCell(r2, gaps.col(t, "Reason")), "other"},
			{adjCell(r2, gaps.col(t, "Note")), "each saw part of it"},
			{adjCell(r3, gaps.col(t, "Or use")), "ann3"},
			{adjCell(r3, gaps.col(t, "Reason")), "annotator error"},
		}}}})
		resave(t, soffice, book)
		got, _, _ := pullGold(t, adj)
		// The provenance names the cell the decision was read from:
		// Or use where it decided, else the first Final cell.
		adjudicated := func(row, agreeing int, reason, note, column string) *records.Provenance {
			return &records.Provenance{Kind: "adjudicated", Agreeing: agreeing, Annotators: 3, Adjudicator: "lead", Reason: reason, Note: note,
				Decision: gaps.text(row, 0), Cell: "Gaps!" + adjCell(row, gaps.col(t, column))}
		}
		r4 := rows[u4]
		checkGold(t, got, map[string]records.Annotation{
			u0: {Status: "complete", Values: map[string]any{"gaps": codes(2, 3)}, Provenance: map[string]*records.Provenance{"gaps": adjudicated(r0, 2, "", "", "Or use")}},
			u1: {Status: "complete", Values: map[string]any{"gaps": codes(2, 3)}, Provenance: map[string]*records.Provenance{"gaps": unanimous}},
			u2: {Status: "complete", Values: map[string]any{"gaps": codes(2, 3)}, Provenance: map[string]*records.Provenance{"gaps": adjudicated(r2, 1, "other", "each saw part of it", "Final: 0 No gap")}},
			u3: {Status: "complete", Values: map[string]any{"gaps": codes(1)}, Provenance: map[string]*records.Provenance{"gaps": adjudicated(r3, 1, "annotator error", "", "Or use")}},
			u4: {Status: "partial", Values: map[string]any{}, Provenance: map[string]*records.Provenance{"gaps": {Kind: "unresolved", Annotators: 3, Decision: gaps.text(r4, 0), Cell: "Gaps!" + adjCell(r4, gaps.col(t, "Final: 0 No gap"))}}},
		})
	})
}

// checkGold compares gold records with what the test decided: status,
// values and provenance of each unit.
func checkGold(t *testing.T, got, want map[string]records.Annotation) {
	t.Helper()
	if diff := cmp.Diff(slices.Sorted(mapKeys(want)), slices.Sorted(mapKeys(got))); diff != "" {
		t.Errorf("gold units (-want +got):\n%s", diff)
	}
	for u, w := range want {
		g := got[u]
		if g.Values == nil {
			g.Values = map[string]any{}
		}
		type view struct {
			Status     string
			Values     map[string]any
			Provenance map[string]*records.Provenance
		}
		if diff := cmp.Diff(view{w.Status, w.Values, w.Provenance}, view{g.Status, g.Values, g.Provenance}); diff != "" {
			t.Errorf("gold of %s (-want +got):\n%s", u, diff)
		}
	}
}

// qaStudy generates a qa-span-errors study of three annotators with
// overlap 3 and fills every block from the record's gold feedback,
// changed for each annotator by change (which gets a copy of the
// records with their own errors and missing information).
func qaStudy(t *testing.T, annotators []string, change func(who string, recs []goldtest.QARecord)) (string, []goldtest.QARecord) {
	t.Helper()
	study := generateStudy(t, "qa-span-errors", qaData, strings.Join(annotators, ","), 3)
	recs := fillQAWith(t, study, annotators, func(_ int, name string, mine []goldtest.QARecord) { change(name, mine) })
	return study, recs
}

// TestAdjudicateQASpanErrors: a qa-span-errors study of three annotators
// with overlap 3, every block filled from the record's gold feedback, with
// known disagreements: ann1 drops an error span and rewrites a corrected
// prediction, ann2 gives an error another type, ann3 adds a spurious span
// and drops a piece of missing information. The Spans sheet has a row per
// cluster they disagree on, and the Corrected prediction sheet one row;
// nothing else. The adjudicator (openpyxl) picks the gold-matching
// version on each row: an annotator's, keep, drop, and an edit with a
// Final type and span; LibreOffice re-saves. The gold set, exported in
// the dataset's own format through the study's manifest, has each
// record's feedback equal to the dataset's.
func TestAdjudicateQASpanErrors(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	soffice := testreaders.Soffice(t)
	annotators := adjAnnotators
	const spurious = 30 // ann3's span: the first characters of q0011's prediction
	study, recs := qaStudy(t, annotators, func(who string, recs []goldtest.QARecord) {
		switch who {
		case "ann1":
			recs[2].Feedback.Errors = slices.Delete(recs[2].Feedback.Errors, 1, 2)
			recs[10].Feedback.CorrectedPrediction = "Something else entirely."
		case "ann2":
			recs[9].Feedback.Errors[0].Type = "Incoherent"
		case "ann3":
			e := recs[11].Feedback.Errors[0]
			e.Type, e.Start, e.End = "Unverifiable", 0, spurious
			recs[11].Feedback.Errors = append(recs[11].Feedback.Errors, e)
			recs[10].Feedback.MissingInfo = recs[10].Feedback.MissingInfo[:1]
		}
	})
	// The changes are what the test means them to be: q0011's spurious
	// span touches no gold span, and q0010 has two pieces of missing
	// information of one type.
	for _, e := range recs[11].Feedback.Errors {
		if e.Start < spurious {
			t.Fatalf("q0011: the spurious span overlaps the gold error at %d", e.Start)
		}
	}
	if mi := recs[10].Feedback.MissingInfo; len(mi) != 2 || mi[0].Type != mi[1].Type {
		t.Fatalf("q0010: missing information %+v", mi)
	}
	adj := filepath.Join(t.TempDir(), "adj")
	code, stdout, stderr := runCLI(t, "adjudicate", study, "--out", adj, "--adjudicator", "lead")
	if code != 0 || !strings.Contains(stdout, "5 disagreements to decide") {
		t.Fatalf("adjudicate: exit %d: %s%s", code, stdout, stderr)
	}
	m := readAdjManifest(t, adj)
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	sheets := adjBook(t, py, book)
	var visible []string
	for name, s := range sheets {
		if s.State == "visible" {
			visible = append(visible, name)
		}
	}
	slices.Sort(visible)
	if want := []string{"Corrected prediction", "Instructions", "Read", "Spans", "Summary"}; !slices.Equal(visible, want) {
		t.Errorf("visible sheets %q, want %q", visible, want)
	}
	spans, corrected := sheets["Spans"], sheets["Corrected prediction"]
	decision := spans.col(t, "Decision")
	// The rows: by unit, the cluster's place, and each annotator's
	// version as shown.
	pred := func(n int) []rune { return []rune(recs[n].Prediction1) }
	errText := func(n, k int) string {
		e := recs[n].Feedback.Errors[k]
		return string(pred(n)[e.Start:e.End])
	}
	type spanRow struct {
		unit, where string
		shown       map[string]string // annotator -> their cell
	}
	wantRows := []spanRow{
		{"q0002", "characters 72–125", map[string]string{"ann1": "(no span)", "ann2": "«" + errText(2, 1) + "» · Irrelevant"}},
		{"q0009", "characters 142–253", map[string]string{"ann1": "«" + errText(9, 0) + "» · Irrelevant", "ann2": "«" + errText(9, 0) + "» · Incoherent"}},
		{"q0010", "rows without a span: Missing Answer", nil},
		{"q0011", fmt.Sprintf("characters 0–%d", spurious), map[string]string{"ann1": "(no span)", "ann3": "«" + string(pred(11)[:spurious]) + "» · Unverifiable Fact"}},
	}
	if len(spans.Rows)-1 != len(wantRows) {
		t.Errorf("Spans: %d rows, want %d", len(spans.Rows)-1, len(wantRows))
	}
	row := map[string]int{}
	for _, w := range wantRows {
		r := slices.IndexFunc(spans.Rows, func(r []any) bool {
			return r[spans.col(t, "Question ID")] == w.unit && strings.Contains(fmt.Sprint(r[spans.col(t, "Where")]), w.where)
		})
		if r < 1 {
			t.Fatalf("Spans: no row of %s at %s", w.unit, w.where)
		}
		row[w.unit] = r
		for who, cell := range w.shown {
			if got := spans.text(r, spans.col(t, m.name(t, who))); !strings.HasPrefix(got, cell) {
				t.Errorf("Spans, %s: %s's version %q, want %q", w.unit, who, got, cell)
			}
		}
	}
	if len(corrected.Rows) != 2 || corrected.text(1, corrected.col(t, "Question ID")) != "q0010" || corrected.text(1, corrected.col(t, m.name(t, "ann1"))) != "Something else entirely." {
		t.Fatalf("Corrected prediction: %q", corrected.Rows)
	}

	cell := func(unit, header string, n ...int) string { return adjCell(row[unit], spans.col(t, header, n...)) }
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{
		{Sheet: "Spans", Cells: [][2]any{
			{adjCell(row["q0002"], decision), m.name(t, "ann2")},
			{cell("q0002", "Reason"), "annotator error"},
			{adjCell(row["q0009"], decision), "edit"},
			{cell("q0009", "Final type"), "Irrelevant"},
			{cell("q0009", "Final span"), errText(9, 0)},
			{cell("q0009", "Note"), "retyped"},
			{adjCell(row["q0010"], decision), "keep"},
			{adjCell(row["q0011"], decision), "drop"},
			{cell("q0011", "Reason"), "annotator error"},
		}},
		{Sheet: "Corrected prediction", Cells: [][2]any{
			{adjCell(1, corrected.col(t, "Or use")), m.name(t, "ann2")},
		}},
	}})
	resave(t, soffice, book)

	gold, stderr, goldJSONL := pullGold(t, adj)
	if strings.Contains(stderr, "warning:") || strings.Contains(stderr, "error:") || !strings.Contains(stderr, "0 unresolved") {
		t.Errorf("pull: %s", stderr)
	}
	for u, r := range gold {
		if r.Status != "complete" {
			t.Errorf("%s: status %s", u, r.Status)
		}
		for _, s := range r.Spans {
			p := s.Provenance
			switch {
			case p == nil:
				t.Errorf("%s: a span without provenance: %+v", u, s)
			case row[u] > 0 && p.Kind == "adjudicated":
				if p.Adjudicator != "lead" || p.Annotators != 3 || p.Decision == "" {
					t.Errorf("%s: provenance %+v", u, p)
				}
			case p.Kind != "unanimous" || p.Agreeing != 3 || p.Annotators != 3:
				t.Errorf("%s: a span the annotators agree on has provenance %+v", u, p)
			}
		}
	}
	// Each decided cluster's spans carry the decision: the number of
	// annotators whose version it is, and the reason.
	prov := func(unit string, start int) *records.Provenance {
		for _, s := range gold[unit].Spans {
			if s.Start != nil && *s.Start == start || s.Start == nil && start < 0 {
				return s.Provenance
			}
		}
		t.Errorf("%s: no gold span at %d", unit, start)
		return &records.Provenance{}
	}
	for _, c := range []struct {
		unit              string
		start, agreeing   int
		reason, note, col string
	}{
		{"q0002", 72, 2, "annotator error", "", ""},
		{"q0009", 142, 2, "", "retyped", ""},
		{"q0010", -1, 2, "", "", ""},
	} {
		p := prov(c.unit, c.start)
		if p.Kind != "adjudicated" || p.Agreeing != c.agreeing || p.Reason != c.reason || p.Note != c.note || p.Decision != spans.text(row[c.unit], 0) {
			t.Errorf("%s: provenance %+v, want adjudicated by %d, reason %q, note %q", c.unit, p, c.agreeing, c.reason, c.note)
		}
	}
	if p := gold["q0010"].Provenance["corrected_prediction"]; p == nil || p.Kind != "adjudicated" || p.Agreeing != 2 {
		t.Errorf("q0010: the corrected prediction's provenance %+v", p)
	}

	goldFile := filepath.Join(t.TempDir(), "gold.jsonl")
	if err := os.WriteFile(goldFile, goldJSONL, 0o644); err != nil {
		t.Fatal(err)
	}
	native := filepath.Join(t.TempDir(), "gold.json")
	if code, _, stderr := runCLI(t, "export", goldFile, "--native", "--manifest", filepath.Join(study, "manifest.json"), "--out", native); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	var exported, dataset []struct {
		Feedback json.RawMessage `json:"feedback"`
	}
	if err := json.Unmarshal(readBytes(t, native), &exported); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(readBytes(t, qaData), &dataset); err != nil {
		t.Fatal(err)
	}
	if len(exported) != len(dataset) {
		t.Fatalf("%d records exported, %d in the dataset", len(exported), len(dataset))
	}
	// The errors and the missing information the gold set has are the
	// dataset's, whatever their order; and, as the dataset lists them,
	// in its order.
	var unordered, ordered []string
	for i := range dataset {
		var got, want map[string]any
		if err := json.Unmarshal(exported[i].Feedback, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(dataset[i].Feedback, &want); err != nil {
			t.Fatal(err)
		}
		if cmp.Equal(want, got) {
			continue
		}
		ordered = append(ordered, fmt.Sprintf("q%04d", i))
		byJSON := cmp.Transformer("sorted", func(l []any) []string {
			out := make([]string, len(l))
			for k, v := range l {
				out[k] = string(mustJSON(v))
			}
			slices.Sort(out)
			return out
		})
		if diff := cmp.Diff(want, got, byJSON); diff != "" {
			unordered = append(unordered, fmt.Sprintf("q%04d", i))
			t.Errorf("q%04d: the gold's feedback differs from the dataset's (-dataset +gold):\n%s", i, diff)
		}
	}
	if len(unordered) == 0 {
		t.Logf("the gold's feedback is the dataset's on all %d records, in some order", len(dataset))
	}
	t.Run("in the dataset's order", func(t *testing.T) {
		// The gold set lists its spans by place in the text, and missing
		// information by type: where the dataset lists them otherwise,
		// the feedback exported from the gold is in another order.
		if len(ordered) > 0 {
			t.Errorf("%d of %d records have their errors or missing information in another order than the dataset's: %v", len(ordered), len(dataset), ordered)
		}
	})
}

// legalAdjudication is a legal-gaps study of three annotators with
// overlap, filled with openpyxl from the gold labels with the changes of
// plan (unit -> annotator -> codes), adjudicated into a folder for lead;
// it returns the study, the folder and the workbook.
func legalAdjudication(t *testing.T, py string, overlap int, plan map[int]map[string][]int) (study, adj, book string) {
	t.Helper()
	annotators := adjAnnotators
	study = generateStudy(t, "legal-gaps", legalData, strings.Join(annotators, ","), overlap)
	gold, ids := legalGold(t)
	fillLegal(t, py, study, annotators, func(u, who string) ([]int, string) {
		if l, ok := plan[slices.Index(ids, u)][who]; ok {
			return l, ""
		}
		return gold[u], ""
	})
	adj = filepath.Join(t.TempDir(), "adj")
	if code, _, stderr := runCLI(t, "adjudicate", study, "--out", adj, "--adjudicator", "lead", "--show-annotators"); code != 0 {
		t.Fatalf("adjudicate: exit %d: %s", code, stderr)
	}
	return study, adj, filepath.Join(adj, "adjudicate-lead.xlsx")
}

// gapsRows maps each real unit to its row on the Gaps sheet; the test
// fails on a unit shown twice.
func gapsRows(t *testing.T, study string, gaps *xlsxAdjSheet) map[string]int {
	t.Helper()
	key := opaqueKey(t, study)
	rows := map[string]int{}
	for i := 1; i < len(gaps.Rows); i++ {
		u := key[gaps.text(i, gaps.col(t, "ID"))]
		if _, dup := rows[u]; dup {
			t.Errorf("Gaps: %s is on two rows", u)
		}
		rows[u] = i
	}
	return rows
}

// TestAdjudicateResumeCLI: the adjudicator decides one of two rows (Final
// boxes, a reason, a note), then an annotator changes an answer the
// annotators agreed on, and adjudicate runs again on the same folder:
// the decided row keeps every filled cell and its ID, the undecided one
// is there once, the new disagreement is added once. A third run changes
// nothing: the same rows and cells, the same gold set, byte for byte.
func TestAdjudicateResumeCLI(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	_, ids := legalGold(t)
	study, adj, book := legalAdjudication(t, py, 3, map[int]map[string][]int{0: {"ann3": {2}}, 2: {"ann1": {3}}})
	gaps := adjBook(t, py, book)["Gaps"]
	rows := gapsRows(t, study, gaps)
	if len(rows) != 2 || rows[ids[0]] == 0 || rows[ids[2]] == 0 {
		t.Fatalf("Gaps rows %v, want those of %s and %s", rows, ids[0], ids[2])
	}
	r0 := rows[ids[0]]
	filled := map[string]any{
		"Final: 2 Target Mismatch": true, "Final: 3 Citation Error": true, "Final: 0 No gap": false,
		"Reason": "annotator error", "Note": "3 is clear from [2]",
	}
	var cells [][2]any
	for h, v := range filled {
		cells = append(cells, [2]any{adjCell(r0, gaps.col(t, h)), v})
	}
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{{Sheet: "Gaps", Cells: cells}}})
	ids0, ids2 := gaps.text(r0, 0), gaps.text(rows[ids[2]], 0)

	// ann2 changes their answer on unit 1, which all three agreed on:
	// 2 and 3 become 0.
	key := opaqueKey(t, study)
	path := filepath.Join(study, "legal-gaps-ann2-b01.xlsx")
	w := openLayout(t, path).RealIDs(key)
	r1 := w.Rows[ids[1]][0]
	fillWithOpenpyxl(t, py, path, [][2]any{{mustCell(t, w, r1, "q:gaps=0"), true}, {mustCell(t, w, r1, "q:gaps=2"), false}, {mustCell(t, w, r1, "q:gaps=3"), false}}, "")

	code, stdout, stderr := runCLI(t, "adjudicate", study, "--out", adj, "--adjudicator", "lead", "--show-annotators")
	if code != 0 || !strings.Contains(stdout, "3 disagreements to decide, 1 decided already and kept") {
		t.Fatalf("adjudicate again: exit %d: %s%s", code, stdout, stderr)
	}
	second := adjBook(t, py, book)
	gaps = second["Gaps"]
	rows = gapsRows(t, study, gaps)
	if len(gaps.Rows) != 4 || rows[ids[0]] == 0 || rows[ids[1]] == 0 || rows[ids[2]] == 0 {
		t.Fatalf("Gaps after the change: rows %v, want one of each of %v", rows, ids[:3])
	}
	if gaps.text(rows[ids[0]], 0) != ids0 || gaps.text(rows[ids[2]], 0) != ids2 {
		t.Errorf("the decisions' IDs changed: %s and %s, were %s and %s", gaps.text(rows[ids[0]], 0), gaps.text(rows[ids[2]], 0), ids0, ids2)
	}
	for h, v := range filled {
		if got := gaps.Rows[rows[ids[0]]][gaps.col(t, h)]; got != v {
			t.Errorf("%s of the decided row: %v (%T), want %v", h, got, got, v)
		}
	}
	for _, u := range []string{ids[1], ids[2]} {
		for _, h := range []string{"Final: 0 No gap", "Final: 2 Target Mismatch", "Or use", "Reason", "Note"} {
			if got := gaps.Rows[rows[u]][gaps.col(t, h)]; got != nil {
				t.Errorf("%s: %s is %v on a row nobody decided", u, h, got)
			}
		}
	}
	if got := gaps.text(rows[ids[1]], gaps.col(t, "ann2")); got != "0 No gap" {
		t.Errorf("the new disagreement shows ann2's answer as %q", got)
	}
	gold1, _, b1 := pullGold(t, adj)
	if p := gold1[ids[0]].Provenance["gaps"]; p == nil || p.Kind != "adjudicated" || p.Note != "3 is clear from [2]" {
		t.Errorf("the kept decision's provenance: %+v", p)
	}

	if code, stdout, stderr := runCLI(t, "adjudicate", study, "--out", adj, "--adjudicator", "lead", "--show-annotators"); code != 0 || !strings.Contains(stdout, "1 decided already and kept") {
		t.Fatalf("adjudicate a third time: exit %d: %s%s", code, stdout, stderr)
	}
	if diff := cmp.Diff(second, adjBook(t, py, book)); diff != "" {
		t.Errorf("a third run changed the workbook (-second +third):\n%s", diff)
	}
	if _, _, b3 := pullGold(t, adj); string(b3) != string(b1) {
		t.Errorf("a third run changed the gold set:\n%s\nwas\n%s", b3, b1)
	}
}

// TestAdjudicateTamperCLI: the adjudicator decides every row, then sorts
// the sheet, deletes a row, pastes one row twice and another once with
// a different decision. Pull of the gold set survives: the sorted rows
// are read by their IDs, a row pasted with the same decision is read
// once, the deleted row and the row with two decisions stay unresolved,
// and stderr says each, by sheet and cell (by its unit, for the deleted
// row).
func TestAdjudicateTamperCLI(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	gold, ids := legalGold(t)
	// Four rows: units 0, 2, 3 and 4, each two against one.
	study, adj, book := legalAdjudication(t, py, 3, map[int]map[string][]int{0: {"ann3": {2}}, 2: {"ann1": {3}}, 3: {"ann2": {0}}, 4: {"ann1": {1}}})
	// Sorted by the ID shown, last first: the units' places follow their
	// opaque IDs, drawn with the study's seed.
	shown := shownAs(t, study)
	sorted := []int{0, 2, 3, 4}
	slices.SortFunc(sorted, func(a, b int) int { return strings.Compare(shown[ids[b]], shown[ids[a]]) })
	first, deleted, changed, twice := sorted[0], sorted[1], sorted[2], sorted[3]
	gaps := adjBook(t, py, book)["Gaps"]
	rows := gapsRows(t, study, gaps)
	if len(rows) != 4 {
		t.Fatalf("Gaps rows %v", rows)
	}
	var cells [][2]any
	for _, u := range []int{0, 2, 3, 4} {
		cells = append(cells, [2]any{adjCell(rows[ids[u]], gaps.col(t, "Or use")), "suggested"}, [2]any{adjCell(rows[ids[u]], gaps.col(t, "Reason")), "annotator error"})
	}
	// Sorted: the rows of first, deleted, changed and twice are on rows
	// 2 to 5; then deleted's row (row 3) is deleted, twice's (now row 4)
	// pasted twice, as rows 5 and 6, and changed's (row 3) once, as row
	// 7, where Or use then names ann1.
	runAdjudicator(t, py, map[string]any{"path": book, "edits": []adjEdit{
		{Sheet: "Gaps", Cells: cells, SortBy: "B"},
		{Sheet: "Gaps", DeleteRow: 3},
		{Sheet: "Gaps", PasteRow: 4},
		{Sheet: "Gaps", PasteRow: 4},
		{Sheet: "Gaps", PasteRow: 3},
		{Sheet: "Gaps", Cells: [][2]any{{adjCell(6, gaps.col(t, "Or use")), "ann1"}}},
	}})
	after := adjBook(t, py, book)["Gaps"]
	var order []string
	for i := 1; i < len(after.Rows); i++ {
		order = append(order, opaqueKey(t, study)[after.text(i, gaps.col(t, "ID"))])
	}
	if want := []string{ids[first], ids[changed], ids[twice], ids[twice], ids[twice], ids[changed]}; !slices.Equal(order, want) {
		t.Fatalf("the sheet after the edits: %v, want %v", order, want)
	}
	got, stderr, _ := pullGold(t, adj)
	t.Logf("pull:\n%s", stderr)
	id := func(u int) string { return gaps.text(rows[ids[u]], 0) }
	for _, want := range []string{
		"Gaps!A5: row 5 repeats row 4 (" + id(twice) + ")",
		"Gaps!A6: row 6 repeats row 4 (" + id(twice) + ")",
		"Gaps!A7: " + id(changed) + " is on rows 3 and 7 with different decisions",
		// No cell to name: pull names the record, as for a unit whose
		// rows were deleted from a study's sheet.
		fmt.Sprintf("error: %s: record %q: the row of %s (unit %s, Gaps) is not on the sheet Gaps", book, ids[deleted], id(deleted), ids[deleted]),
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("pull does not report %q", want)
		}
	}
	for u, kind := range map[int]string{first: "adjudicated", 1: "unanimous", changed: "unresolved", deleted: "unresolved", twice: "adjudicated"} {
		if p := got[ids[u]].Provenance["gaps"]; p == nil || p.Kind != kind {
			t.Errorf("%s: provenance %+v, want %s", ids[u], p, kind)
		}
	}
	// Its suggestion, the two annotators' answer: the gold labels.
	if g, want := got[ids[first]].Values["gaps"], codes(gold[ids[first]]...); fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("%s, sorted to another row: %v, want its suggestion %v", ids[first], g, want)
	}
}
