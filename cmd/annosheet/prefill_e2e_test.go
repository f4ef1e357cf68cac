package main

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// modelRecord is a model's answer to one unit as a canonical record.
func modelRecord(template, unit string, values map[string]any, spans []records.SpanAnswer) records.Annotation {
	return records.Annotation{
		Schema: records.AnnotationSchema, Template: records.TemplateID{Name: template, Version: 1},
		Batch: "model", Unit: unit, Item: unit, Annotator: "gpt4o", Status: records.StatusComplete,
		Values: values, Spans: spans, Source: records.RecordSource{Kind: "model", Rows: []int{}}, Problems: []records.UnitProblem{},
	}
}

// writeRecords writes records as JSON Lines.
func writeRecords(t *testing.T, path string, recs []records.Annotation) {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		b.Write(mustJSON(r))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pulledByUnit pulls a study (with pull's other arguments) and gives its
// records by annotator and unit.
func pulledByUnit(t *testing.T, study string, args ...string) map[[2]string]records.Annotation {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pulled.jsonl")
	if code, _, stderr := runCLI(t, append([]string{"pull", study, "--out", out}, args...)...); code != 0 {
		t.Fatalf("pull: %s", stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[[2]string]records.Annotation{}
	for _, r := range readRecords(t, string(data)) {
		recs[[2]string{r.Annotator, r.Unit}] = r
	}
	return recs
}

// openpyxlLook reports, as openpyxl reads a workbook, the Annotate
// sheet's hidden columns by header, whether each header's row-2 cell is
// locked, and the conditional formats that change the font.
const openpyxlLook = `
import json, sys, openpyxl
from openpyxl.utils import get_column_letter
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb["Annotate"]
out = {"hidden": [], "locked": {}, "fonts": []}
for i, c in enumerate(ws[1], start=1):
    letter = get_column_letter(i)
    if ws.column_dimensions[letter].hidden:
        out["hidden"].append(c.value)
    out["locked"][c.value] = ws.cell(row=2, column=i).protection.locked
for rng, rules in ws.conditional_formatting._cf_rules.items():
    for r in rules:
        f = r.dxf.font if r.dxf else None
        if f is not None and f.i:
            out["fonts"].append([str(rng.sqref), r.formula[0], f.color.rgb if f.color is not None else None])
print(json.dumps(out))
`

// TestPrefillLegalGaps: a legal-gaps study prefilled with a model's
// labels, on the data set's sample. openpyxl plays annotator ak, who
// checks one row as it stands, changes a label on another, clears the
// model's note on a third and leaves the rest; pull says exactly that,
// the values are ak's, and untouched rows are not answers. The workbook,
// as openpyxl reads it, hides and locks the copies and styles unchanged
// suggestions; generate over the study is allowed while it is untouched
// and refused once answered.
func TestPrefillLegalGaps(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "model.jsonl")
	var ids []string
	f, err := os.Open(legalData)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct{ ID string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	f.Close()
	gaps := [][]string{{"2"}, {"2", "3"}, {"0"}, {"1"}, {"3"}}
	given := map[string]map[string]any{}
	var recs []records.Annotation
	for i, id := range ids {
		v := map[string]any{"gaps": gaps[i%len(gaps)]}
		if i%2 == 0 {
			v["note"] = "the model's reading of " + id
		}
		given[id] = v
		recs = append(recs, modelRecord("legal-gaps", id, v, nil))
	}
	writeRecords(t, model, recs)

	study := filepath.Join(dir, "study")
	args := []string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", study, "--annotators", "ak,bt", "--overlap", "2", "--prefill", model}
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	m := readManifest(t, study)
	if p := m.Prefill; p == nil || p.Annotator != "gpt4o" || p.As != "answers" || p.Units != len(ids) || p.SHA256 == "" {
		t.Errorf("manifest's prefill: %+v", m.Prefill)
	}
	// Untouched, the study may be made again.
	if code, _, stderr := runCLI(t, append(args, "--force")...); code != 0 {
		t.Errorf("generate over the untouched study: %s", stderr)
	}

	var akBook string
	for _, b := range m.Batches {
		if b.Annotator == "ak" {
			akBook = filepath.Join(study, b.File)
		}
	}
	// What openpyxl sees: the copies hidden and locked, the answers not,
	// and the font of unchanged suggestions.
	script := filepath.Join(dir, "look.py")
	if err := os.WriteFile(script, []byte(openpyxlLook), 0o644); err != nil {
		t.Fatal(err)
	}
	lookOut, err := exec.Command(py, script, akBook).Output()
	if err != nil {
		t.Fatalf("openpyxl: %v", err)
	}
	var look struct {
		Hidden []string
		Locked map[string]bool
		Fonts  [][3]string
	}
	if err := json.Unmarshal(lookOut, &look); err != nil {
		t.Fatalf("%v: %s", err, lookOut)
	}
	wantHidden := []string{"Suggested: 0 No gap", "Suggested: 1 Intrinsic error/LLM error", "Suggested: 2 Target Mismatch", "Suggested: 3 Citation Error", "Suggested: Note", "Unit"}
	if diff := cmp.Diff(wantHidden, look.Hidden); diff != "" {
		t.Errorf("hidden columns (-want +got):\n%s", diff)
	}
	if !look.Locked["Suggested: Note"] || look.Locked["Note"] || look.Locked["Annotator ID"] {
		t.Errorf("locked: %v", look.Locked)
	}
	wantFonts := [][3]string{
		{"B2:B6", "AND(LEN($C2)>0,EXACT(B2,$C2))", "FF1F4E9C"}, {"D2:D6", "AND(LEN($E2)>0,EXACT(D2,$E2))", "FF1F4E9C"},
		{"F2:F6", "AND(LEN($G2)>0,EXACT(F2,$G2))", "FF1F4E9C"}, {"H2:H6", "AND(LEN($I2)>0,EXACT(H2,$I2))", "FF1F4E9C"},
		{"J2:J6", "AND(LEN($K2)>0,EXACT(J2,$K2))", "FF1F4E9C"},
	}
	if diff := cmp.Diff(wantFonts, look.Fonts); diff != "" {
		t.Errorf("suggestion formats (-want +got):\n%s", diff)
	}

	// ak: the first unit checked as it stands, the second's label 0
	// ticked where the model said otherwise, the third's note cleared;
	// the others left.
	w := openLayout(t, akBook)
	real := func(shown string) string {
		if id, ok := m.OpaqueIDs[shown]; ok {
			return id
		}
		return shown
	}
	u := w.Units
	cell := func(unit, key string) string {
		name, err := w.Cell(w.Rows[unit][0], key)
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	flip := "0"
	if g := given[real(u[1])]["gaps"].([]string); len(g) == 1 && g[0] == "0" {
		flip = "1"
	}
	third := u[2]
	if _, ok := given[real(third)]["note"]; !ok {
		third = u[3]
	}
	edits := [][2]any{
		{cell(u[0], "annotator"), "ak"},
		{cell(u[1], "annotator"), "ak"}, {cell(u[1], "q:gaps="+flip), true},
		{cell(third, "annotator"), "ak"}, {cell(third, "q:note"), nil},
	}
	fillWithOpenpyxl(t, py, akBook, edits, "")

	pulled := pulledByUnit(t, study)
	for i, shown := range u {
		id := real(shown)
		r := pulled[[2]string{"ak", id}]
		want := given[id]
		var trace map[string]string
		switch shown {
		case u[0]:
			trace = map[string]string{"gaps": "kept"}
		case u[1]:
			trace = map[string]string{"gaps": "changed"}
			want = map[string]any{"gaps": append([]string{flip}, want["gaps"].([]string)...)}
			if note, ok := given[id]["note"]; ok {
				want["note"] = note
			}
		case third:
			trace = map[string]string{"gaps": "kept"}
			want = map[string]any{"gaps": want["gaps"]}
		default:
			want = map[string]any{}
		}
		if _, ok := given[id]["note"]; ok && trace != nil {
			trace["note"] = "kept"
			if shown == third {
				trace["note"] = "cleared"
			}
		}
		if trace == nil {
			if r.Status != records.StatusEmpty || r.Prefill != nil || len(r.Values) > 0 {
				t.Errorf("unit %d (%s), untouched: %s, %v, %+v", i, id, r.Status, r.Values, r.Prefill)
			}
			continue
		}
		if r.Status == records.StatusEmpty || r.Prefill == nil {
			t.Errorf("unit %d (%s): %s, trace %+v", i, id, r.Status, r.Prefill)
			continue
		}
		if r.Prefill.From != "gpt4o" {
			t.Errorf("unit %s: from %q", id, r.Prefill.From)
		}
		if diff := cmp.Diff(trace, r.Prefill.Questions); diff != "" {
			t.Errorf("unit %d (%s) trace (-want +got):\n%s", i, id, diff)
		}
		// The pulled multi is sorted.
		if g, ok := want["gaps"].([]string); ok {
			sorted := append([]string(nil), g...)
			for a := range sorted {
				for b := a + 1; b < len(sorted); b++ {
					if sorted[b] < sorted[a] {
						sorted[a], sorted[b] = sorted[b], sorted[a]
					}
				}
			}
			want["gaps"] = sorted
		}
		got := map[string]any{}
		for k, v := range r.Values {
			if l, ok := v.([]any); ok {
				var s []string
				for _, x := range l {
					s = append(s, x.(string))
				}
				v = s
			}
			got[k] = v
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("unit %d (%s) values (-want +got):\n%s", i, id, diff)
		}
	}
	for _, id := range ids {
		if r := pulled[[2]string{"bt", id}]; r.Status != records.StatusEmpty || r.Prefill != nil {
			t.Errorf("bt's untouched %s: %s, %+v", id, r.Status, r.Prefill)
		}
	}
	// Answered, the study is not made again over ak's answers.
	if code, _, stderr := runCLI(t, append(args, "--force")...); code == 0 || !strings.Contains(stderr, "answers") {
		t.Errorf("generate --force over answers: exit %d, %s", code, stderr)
	}
}

// qaFeedbackRecord is a record of the QA-feedback sample: the prediction
// its workbook shows, and the error spans of the data set's feedback on
// it, offsets in code points.
type qaFeedbackRecord struct {
	Prediction string `json:"prediction 1"`
	Feedback   struct {
		Errors []struct {
			Type       string `json:"error type"`
			Start, End int
		}
	}
}

// qaFeedback reads the QA-feedback sample.
func qaFeedback(t *testing.T) []qaFeedbackRecord {
	t.Helper()
	raw, err := os.ReadFile(qaData)
	if err != nil {
		t.Fatal(err)
	}
	var data []qaFeedbackRecord
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPrefillQASpans: a qa-span-errors study prefilled with the error
// spans of the data set's own feedback for its first three questions.
// openpyxl plays ak, who checks the first as it stands; on the second
// shortens one span, clears another and adds one of their own; and
// leaves the third. Pull counts the spans kept, changed, removed and
// added, and the spans are ak's.
func TestPrefillQASpans(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	data := qaFeedback(t)
	labels := map[string]string{"Irrelevant": "Irrelevant", "Redundant": "Repetitive", "Incoherent": "Incoherent", "Wrong-Grounding": "Inconsistent Fact", "Unverifiable": "Unverifiable Fact"}
	spansOf := map[string][]records.SpanAnswer{}
	var recs []records.Annotation
	for i := range 3 {
		unit := "q000" + string(rune('0'+i))
		runes := []rune(data[i].Prediction)
		var spans []records.SpanAnswer
		for k, e := range data[i].Feedback.Errors {
			start, end := e.Start, e.End
			spans = append(spans, records.SpanAnswer{Question: "errors", Row: k + 1, Field: "prediction", Start: &start, End: &end,
				Text: string(runes[e.Start:e.End]), Code: e.Type, Label: labels[e.Type]})
		}
		spansOf[unit] = spans
		recs = append(recs, modelRecord("qa-span-errors", unit, map[string]any{"checked": true}, spans))
	}
	if len(spansOf["q0001"]) < 3 {
		t.Fatalf("q0001 has %d errors in the data set; the test needs 3", len(spansOf["q0001"]))
	}
	model := filepath.Join(dir, "model.jsonl")
	writeRecords(t, model, recs)
	study := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "qa-span-errors", "-i", qaData, "-o", study, "--annotators", "ak", "--prefill", model); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	book := filepath.Join(study, readManifest(t, study).Batches[0].File)
	w := openLayout(t, book)
	at := func(unit string, k int, key string) string {
		name, err := w.Cell(w.Rows[unit][k], key)
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	q1 := spansOf["q0001"]
	shorter := strings.Fields(q1[1].Text)
	short := strings.Join(shorter[:len(shorter)/2], " ")
	var added string // a word found once in the prediction
	for _, word := range strings.Fields(data[1].Prediction) {
		if len(word) > 4 && strings.Count(data[1].Prediction, word) == 1 {
			added = word
			break
		}
	}
	free := len(q1) // the first empty answer row
	fillWithOpenpyxl(t, py, book, [][2]any{
		{at("q0000", 0, "annotator"), "ak"},
		{at("q0001", 0, "annotator"), "ak"},
		{at("q0001", 1, "q:span"), short},
		{at("q0001", 2, "q:span"), nil}, {at("q0001", 2, "q:error_type"), nil},
		{at("q0001", free, "q:span"), added}, {at("q0001", free, "q:error_type"), "Unverifiable Fact"},
	}, "")
	pulled := pulledByUnit(t, study)
	q0 := pulled[[2]string{"ak", "q0000"}]
	if q0.Prefill == nil || q0.Prefill.Spans == nil {
		t.Fatalf("q0000: %+v", q0)
	}
	if diff := cmp.Diff(&records.SpanTrace{Kept: len(spansOf["q0000"])}, q0.Prefill.Spans); diff != "" {
		t.Errorf("q0000 spans (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"checked": "kept"}, q0.Prefill.Questions); diff != "" {
		t.Errorf("q0000 questions (-want +got):\n%s", diff)
	}
	if len(q0.Spans) != len(spansOf["q0000"]) || q0.Spans[0].Text != spansOf["q0000"][0].Text || *q0.Spans[0].Start != *spansOf["q0000"][0].Start {
		t.Errorf("q0000's spans are not the model's: %+v", q0.Spans)
	}
	q1r := pulled[[2]string{"ak", "q0001"}]
	if q1r.Prefill == nil {
		t.Fatalf("q0001: %+v", q1r)
	}
	if diff := cmp.Diff(&records.SpanTrace{Kept: len(q1) - 2, Changed: 1, Removed: 1, Added: 1}, q1r.Prefill.Spans); diff != "" {
		t.Errorf("q0001 spans (-want +got):\n%s", diff)
	}
	var texts []string
	for _, s := range q1r.Spans {
		texts = append(texts, s.Text)
		if s.Start == nil || utf8.RuneCountInString(s.Text) != *s.End-*s.Start {
			t.Errorf("q0001 span %q has offsets %v-%v", s.Text, s.Start, s.End)
		}
	}
	var want []string
	for k, s := range q1 {
		switch k {
		case 1:
			want = append(want, short)
		case 2:
		default:
			want = append(want, s.Text)
		}
	}
	want = append(want, added)
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("q0001's spans are not ak's (-want +got):\n%s", diff)
	}
	if q2 := pulled[[2]string{"ak", "q0002"}]; q2.Status != records.StatusEmpty || q2.Prefill != nil || len(q2.Spans) > 0 {
		t.Errorf("q0002, untouched: %s, %d spans, %+v", q2.Status, len(q2.Spans), q2.Prefill)
	}
	if q3 := pulled[[2]string{"ak", "q0003"}]; q3.Status != records.StatusEmpty || q3.Prefill != nil {
		t.Errorf("q0003, given nothing: %s, %+v", q3.Status, q3.Prefill)
	}
}

// TestPrefillRefusedCLI: a prefill file with records the study cannot
// take is refused before anything is written, one line per problem,
// whether the problem is the file's own or against the inputs.
func TestPrefillRefusedCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := modelRecord("legal-gaps", "gpt4o-12", map[string]any{"gaps": []string{"2"}}, nil)
	stranger := modelRecord("legal-gaps", "nope-1", map[string]any{"gaps": []string{"0"}}, nil)
	badCode := modelRecord("legal-gaps", "llama3-12", map[string]any{"gaps": []string{"9"}}, nil)
	other := modelRecord("legal-gaps", "llama3-12", map[string]any{"gaps": []string{"1"}}, nil)
	other.Template.Name = "qa-span-errors"
	model := filepath.Join(dir, "model.jsonl")
	writeRecords(t, model, []records.Annotation{ok, stranger, badCode, ok, other})
	study := filepath.Join(dir, "study")
	code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", "../../examples/legal-gaps.jsonl", "-o", study, "--prefill", model)
	if code == 0 {
		t.Fatal("generate took the prefill")
	}
	want := []string{
		`model.jsonl:2: record "nope-1": no unit of the inputs has this ID`,
		`model.jsonl:3: record "llama3-12": question "gaps": ["9"] holds "9", which is not one of the codes "0", "1", "2", "3"`,
		`model.jsonl:4: record "gpt4o-12": the unit is also at model.jsonl:1; give one record per unit`,
		`model.jsonl:5: record "llama3-12": not a canonical record: a record of template qa-span-errors version 1, not legal-gaps version 1`,
	}
	if diff := cmp.Diff(want, problemLines(stderr, dir, "model.jsonl")); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nstderr:\n%s", diff, stderr)
	}
	if _, err := os.Stat(study); !os.IsNotExist(err) {
		t.Errorf("the study's folder was made: %v", err)
	}
	if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", "../../examples/legal-gaps.jsonl", "-o", study, "--prefill-annotator", "gpt4o"); code != 2 || !strings.Contains(stderr, "--prefill-annotator picks the records of a --prefill file") {
		t.Errorf("--prefill-annotator alone: exit %d, %s", code, stderr)
	}
}

// TestPrefillREADME: the README's prefilled study, typed as it shows it
// in a folder with the examples: generate says what the README says, and
// once ak has done what it tells, pull gives the record it shows.
func TestPrefillREADME(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	sec := readmeSection(t, "## Starting from a model's labels")
	_, cmdText, _ := strings.Cut(sec, "```sh\n")
	cmdText, shown, _ := strings.Cut(cmdText, "```\n```\n")
	shown, _, _ = strings.Cut(shown, "```\n")
	_, recText, _ := strings.Cut(sec, "```json\n")
	recText, _, _ = strings.Cut(recText, "```\n")

	example, err := os.ReadFile("../../examples/legal-gaps.model.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	goldtest.ValidateRecords(t, example)
	walk := newReadmeWalk(t, "examples")
	dir := walk.dir
	if out, _ := walk.typed(cmdText); out != shown {
		t.Errorf("the README shows\n%s\ngenerate says\n%s", shown, out)
	}
	// ak ticks the citation error on the first row and checks both.
	book := filepath.Join(dir, "checked", "legal-gaps-ak-b01.xlsx")
	w := openLayout(t, book)
	first, second := w.Units[0], w.Units[1]
	name := func(unit, key string) string {
		n, err := w.Cell(w.Rows[unit][0], key)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	fillWithOpenpyxl(t, py, book, [][2]any{{name(first, "q:gaps=3"), true}, {name(first, "annotator"), "ak"}, {name(second, "annotator"), "ak"}}, "")
	pulled := pulledByUnit(t, filepath.Join(dir, "checked"))
	var want records.Annotation
	if err := json.Unmarshal([]byte(strings.Replace(recText, ", …}", "}", 1)), &want); err != nil {
		t.Fatalf("the README's record: %v\n%s", err, recText)
	}
	got := pulled[[2]string{"ak", want.Unit}]
	if got.Status != want.Status || !cmp.Equal(want.Prefill, got.Prefill) || !cmp.Equal(want.Values, got.Values) {
		t.Errorf("the README shows %s\npull gives %s", mustJSON(want), mustJSON(got))
	}
	if r := pulled[[2]string{"ak", "llama3-12"}]; r.Prefill == nil || r.Prefill.Questions["gaps"] != "kept" {
		t.Errorf("the second row, checked as it stands: %+v", r.Prefill)
	}
	// What status says of it.
	_, kept, ok := strings.Cut(sec, "```\nsuggestions from judge")
	if !ok {
		t.Fatal("the README does not show what status says of the suggestions")
	}
	kept, _, _ = strings.Cut("suggestions from judge"+kept, "```\n")
	code, status, stderr := runCLI(t, "status", filepath.Join(dir, "checked"))
	if code != 0 || !strings.Contains(status, "\n"+kept) {
		t.Errorf("the README shows\n%s\nstatus says (exit %d, %s)\n%s", kept, code, stderr, status)
	}
}

// TestPrefillSuggestionsQA: the QA-feedback study with the data set's own
// error spans shown as suggestions beside empty answer cells
// (--prefill-as suggestions), for studies that must avoid anchoring. The
// suggestion columns show each span on its block row, locked, as openpyxl
// reads them; ak writes one suggested span as it stands, another shorter,
// and leaves the rest; pull counts them.
func TestPrefillSuggestionsQA(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	data := qaFeedback(t)
	runes := []rune(data[0].Prediction)
	var spans []records.SpanAnswer
	for k, e := range data[0].Feedback.Errors {
		start, end := e.Start, e.End
		spans = append(spans, records.SpanAnswer{Question: "errors", Row: k + 1, Field: "prediction", Start: &start, End: &end, Text: string(runes[e.Start:e.End]), Code: e.Type})
	}
	if len(spans) < 3 || data[0].Feedback.Errors[0].Type != "Irrelevant" || data[0].Feedback.Errors[1].Type != "Irrelevant" {
		t.Fatalf("q0000's errors in the data set: %+v", data[0].Feedback.Errors)
	}
	model := filepath.Join(dir, "model.jsonl")
	writeRecords(t, model, []records.Annotation{modelRecord("qa-span-errors", "q0000", map[string]any{"checked": true}, spans)})
	study := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "qa-span-errors", "-i", qaData, "-o", study, "--annotators", "ak", "--prefill", model, "--prefill-as", "suggestions"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	book := filepath.Join(study, readManifest(t, study).Batches[0].File)
	w := openLayout(t, book)
	at := func(k int, key string) string {
		name, err := w.Cell(w.Rows["q0000"][k], key)
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	// What openpyxl reads: the suggestions, locked; the answers empty.
	script := filepath.Join(dir, "read.py")
	if err := os.WriteFile(script, []byte(`
import json, sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["Annotate"]
print(json.dumps({c: [ws[c].value, ws[c].protection.locked] for c in sys.argv[2:]}))
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cells := []string{at(0, "s:q:span"), at(1, "s:q:span"), at(0, "s:q:error_type"), at(0, "q:span"), at(0, "s:q:checked"), at(len(spans), "s:q:span")}
	out, err := exec.Command(py, append([]string{script, book}, cells...)...).Output()
	if err != nil {
		t.Fatalf("openpyxl: %v", err)
	}
	var got map[string][2]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]any{
		cells[0]: {"«" + spans[0].Text + "»", true}, cells[1]: {"«" + spans[1].Text + "»", true}, cells[2]: {"Irrelevant", true},
		cells[3]: {nil, false}, cells[4]: {"ticked", true}, cells[5]: {nil, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells as openpyxl reads them (-want +got):\n%s", diff)
	}

	short := strings.Join(strings.Fields(spans[1].Text)[:3], " ")
	fillWithOpenpyxl(t, py, book, [][2]any{
		{at(0, "q:checked"), true},
		{at(0, "q:span"), spans[0].Text}, {at(0, "q:error_type"), "Irrelevant"},
		{at(1, "q:span"), short}, {at(1, "q:error_type"), "Irrelevant"},
	}, "")
	pulled := pulledByUnit(t, study)
	r := pulled[[2]string{"ak", "q0000"}]
	if r.Prefill == nil {
		t.Fatalf("q0000: %+v", r)
	}
	if diff := cmp.Diff(&records.PrefillTrace{From: "gpt4o", Questions: map[string]string{"checked": "kept"},
		Spans: &records.SpanTrace{Kept: 1, Changed: 1, Removed: len(spans) - 2}}, r.Prefill); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	if len(r.Spans) != 2 || r.Spans[1].Text != short {
		t.Errorf("ak's spans: %+v", r.Spans)
	}
	if q1 := pulled[[2]string{"ak", "q0001"}]; q1.Status != records.StatusEmpty || q1.Prefill != nil {
		t.Errorf("q0001: %s %+v", q1.Status, q1.Prefill)
	}
}

// TestPrefillShuffled: a preference study, whose candidates are shown in
// a drawn order per topic, prefilled with a model's judgments of one
// topic. The cells show each judgment in its candidate's place; the
// annotator checks the row and changes the score shown first; pull puts
// the answers back on their candidates, and the trace with them.
func TestPrefillShuffled(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	tp, err := templates.Builtin("preference-likert")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	topic := preferenceTopics(t)[0]
	given := map[string]any{"best_prediction_reference": "second", "best_prediction_topic": "third",
		"first_prediction_likert": 4, "second_prediction_likert": 2, "third_prediction_likert": 5}
	model := filepath.Join(dir, "model.jsonl")
	writeRecords(t, model, []records.Annotation{modelRecord("preference-likert", topic, given, nil)})
	study := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", study, "--prefill", model, "--seed", "3"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	m := readManifest(t, study)
	order := m.Orders[topic]
	book := filepath.Join(study, m.Batches[0].File)
	w := openLayout(t, book)
	row := w.Rows[topic][0]
	cell := func(key string) string {
		name, err := w.Cell(row, key)
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	// What the cells show, read back by openpyxl: place 1 holds the
	// score of the candidate shown first.
	script := filepath.Join(dir, "read.py")
	if err := os.WriteFile(script, []byte(`
import json, sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["Annotate"]
print(json.dumps([ws[c].value for c in sys.argv[2:]]))
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, script, book, cell("q:first_prediction_likert"), cell("q:best_prediction_reference")).Output()
	if err != nil {
		t.Fatalf("openpyxl: %v", err)
	}
	var shown []any
	if err := json.Unmarshal(out, &shown); err != nil {
		t.Fatal(err)
	}
	place := map[string]int{}
	for i, code := range order {
		place[code] = i
	}
	best := tp.Shuffle.Candidates[place["second"]].Code // the place "second" is shown in
	wantShown := []any{float64(given[order[0]+"_prediction_likert"].(int)), tp.QuestionByName("best_prediction_reference").Option(best).Label}
	if diff := cmp.Diff(wantShown, shown); diff != "" {
		t.Errorf("cells shown (order %v) (-want +got):\n%s", order, diff)
	}
	fillWithOpenpyxl(t, py, book, [][2]any{{cell("annotator"), "ak"}, {cell("q:first_prediction_likert"), 1}}, "")
	r := pulledByUnit(t, study)[[2]string{"ak", topic}]
	want := maps.Clone(given)
	want[order[0]+"_prediction_likert"] = 1
	got := map[string]any{}
	for k, v := range r.Values {
		if f, ok := v.(float64); ok {
			v = int(f)
		}
		got[k] = v
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	trace := map[string]string{"best_prediction_reference": "kept", "best_prediction_topic": "kept", "first_prediction_likert": "kept", "second_prediction_likert": "kept", "third_prediction_likert": "kept"}
	trace[order[0]+"_prediction_likert"] = "changed"
	if r.Prefill == nil {
		t.Fatalf("no trace: %+v", r)
	}
	if diff := cmp.Diff(trace, r.Prefill.Questions); diff != "" {
		t.Errorf("trace (order %v) (-want +got):\n%s", order, diff)
	}
}
