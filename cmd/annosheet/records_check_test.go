package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/goldtest"
)

// TestRecordsSpansChecked gives agree, report, export's tables and the
// silver set pulled records whose spans no pull makes (offsets out of
// order, negative, past any text, of another length than their text):
// each command refuses them, naming the file, the line and the span.
func TestRecordsSpansChecked(t *testing.T) {
	t.Parallel()
	good := `{"schema":"annosheet.annotation/1","template":{"name":"qa-span-errors","version":1},"batch":"b01","unit":"q1","item":"q1","annotator":"ak","status":"complete","values":{"checked":true},"spans":[{"question":"errors","row":2,"field":"prediction","start":4,"end":9,"text":"tiger","label":"Irrelevant","code":"Irrelevant"}],"source":{"kind":"xlsx","file":"x.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`
	for _, c := range []struct{ name, from, to, want string }{
		{"start after end", `"start":4,"end":9`, `"start":9,"end":4`, "span 1 (row 2) has offsets 9 to 4: they must be 0 <= start <= end"},
		{"a negative start", `"start":4,"end":9`, `"start":-5,"end":0`, "span 1 (row 2) has offsets -5 to 0"},
		{"past any text", `"start":4,"end":9`, `"start":9000000000000000000,"end":9000000000000000005`, "span 1 (row 2) has offsets 9000000000000000000 to 9000000000000000005, past any text"},
		{"another length", `"end":9`, `"end":12`, "span 1 (row 2) has offsets 4 to 12 for a text of 5 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bad := strings.Replace(good, c.from, c.to, 1)
			other := strings.Replace(strings.Replace(good, `"annotator":"ak"`, `"annotator":"bt"`, 1), `"unit":"q1","item":"q1"`, `"unit":"q2","item":"q2"`, 1)
			recs := filepath.Join(dir, "recs.jsonl")
			if err := os.WriteFile(recs, []byte(other+"\n"+bad+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"agree", recs},
				{"report", recs, "--out", filepath.Join(dir, "r.html")},
				{"export", recs, "--table", "long", "--out", filepath.Join(dir, "t.csv")},
				{"adjudicate", recs, "--resolve", "majority", "--out", filepath.Join(dir, "s.jsonl")},
			} {
				code, _, errs := runCLI(t, args...)
				if want := recs + ":2: unit q1: " + c.want; code != exitFailure || !strings.Contains(errs, want) {
					t.Errorf("%s: exit %d, want %d and %q:\n%s", args[0], code, exitFailure, want, errs)
				}
			}
		})
	}
}

// TestRecordsSpansInInputs: export --native checks each record's spans
// against the study's texts: a span whose text is not the prediction's
// at its offsets, or that runs past its end, is refused by file and line.
func TestRecordsSpansInInputs(t *testing.T) {
	t.Parallel()
	study := filepath.Join(t.TempDir(), "qa")
	if code, _, errs := runCLI(t, "generate", "-t", "qa-span-errors", "-i", qaData, "-o", study); code != 0 {
		t.Fatalf("generate: %s", errs)
	}
	recs, err := goldtest.ReadQA(qaData)
	if err != nil {
		t.Fatal(err)
	}
	pred := []rune(recs[0].Prediction1)
	record := func(start, end int, text string) string {
		return fmt.Sprintf(`{"schema":"annosheet.annotation/1","template":{"name":"qa-span-errors","version":1},"batch":"b01","unit":"q0000","item":"q0000","annotator":"ak","status":"complete","values":{"checked":true},"spans":[{"question":"errors","row":2,"field":"prediction","start":%d,"end":%d,"text":%q,"label":"Irrelevant","code":"Irrelevant"}],"source":{"kind":"xlsx","file":"x.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`, start, end, text)
	}
	for _, c := range []struct{ name, line, want string }{
		{"the text at its offsets", record(0, 5, string(pred[:5])), ""},
		{"another text", record(0, 5, "XXXXX"), fmt.Sprintf(`span 1 (row 2) says "XXXXX", but prediction has %q at 0 to 5`, string(pred[:5]))},
		{"past the end", record(len(pred), len(pred)+3, "abc"), fmt.Sprintf("span 1 (row 2) ends at %d, past the end of prediction (%d characters)", len(pred)+3, len(pred))},
	} {
		file := filepath.Join(t.TempDir(), "recs.jsonl")
		if err := os.WriteFile(file, []byte(c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI(t, "export", file, "--native", "--manifest", filepath.Join(study, "manifest.json"), "--out", filepath.Join(t.TempDir(), "out.json"))
		switch {
		case c.want == "" && code != 0:
			t.Errorf("%s: exit %d: %s", c.name, code, errs)
		case c.want != "" && (code != exitFailure || !strings.Contains(errs, file+":1: unit q0000 by ak: not the study's text: "+c.want)):
			t.Errorf("%s: exit %d, want %d and %q:\n%s", c.name, code, exitFailure, c.want, errs)
		}
	}
}

// TestRecordsOfTwoTemplates: records files of two templates are refused,
// naming both files, in words that fit every command that reads records.
func TestRecordsOfTwoTemplates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	legal := legalRecords(t, dir, "legal.jsonl", "u1 ann1 1", "u1 ann2 2")
	qa := filepath.Join(dir, "qa.jsonl")
	if err := os.WriteFile(qa, []byte(`{"schema":"annosheet.annotation/1","template":{"name":"qa-span-errors","version":1},"batch":"b01","unit":"q1","item":"q1","annotator":"ak","status":"complete","values":{"checked":true},"source":{"kind":"xlsx","file":"x.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"agree", legal, qa},
		{"report", legal, qa, "--out", filepath.Join(dir, "r.html")},
		{"adjudicate", legal, qa, "--out", filepath.Join(dir, "adj")},
	} {
		code, _, errs := runCLI(t, args...)
		want := qa + ":1: another template's records: its records are of template qa-span-errors version 1, and those of " + legal + " of legal-gaps version 1"
		if code != exitFailure || !strings.Contains(errs, want) || strings.Contains(errs, "agree") {
			t.Errorf("%s: exit %d, want %d and %q, and no other command named:\n%s", args[0], code, exitFailure, want, errs)
		}
	}
}

// TestGoldNotRecords: a gold set given as an adjudication's folder is
// read as its pull; a workbook, or another folder, is named for what it
// is, with what to do.
func TestGoldNotRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := legalRecords(t, dir, "recs.jsonl", "u1 ann1 1", "u1 ann2 2", "u2 ann1 0", "u2 ann2 0")
	adj := filepath.Join(dir, "adj")
	if code, _, errs := runCLI(t, "adjudicate", recs, "--out", adj, "--adjudicator", "lead"); code != 0 {
		t.Fatalf("adjudicate: %s", errs)
	}
	if code, out, errs := runCLI(t, "agree", recs, "--against", adj); code != 0 || !strings.Contains(out, "Against gold ("+adj+"): 2 units") {
		t.Errorf("agree --against the adjudication's folder: exit %d:\n%s%s", code, out, errs)
	}
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	copyFile(t, book, filepath.Join(other, "book.xlsx"))
	for _, c := range []struct{ gold, want string }{
		{filepath.Join(other, "book.xlsx"), filepath.Join(other, "book.xlsx") + ": not pulled records: it is a workbook (a zip file), not the records pull writes from one (pull it first: annosheet pull FILE --out records.jsonl)"},
		{other, other + ": cannot score against the gold set: a folder, and not an adjudication's"},
	} {
		code, _, errs := runCLI(t, "agree", recs, "--against", c.gold)
		if code != exitFailure || !strings.Contains(errs, c.want) {
			t.Errorf("--against %s: exit %d, want %d and %q:\n%s", c.gold, code, exitFailure, c.want, errs)
		}
	}
}

// TestExportGoldEmpty: a template that exports every unit (the preference
// scheme) writes the units of a gold set that nobody has completed
// without answers, and names each on stderr.
func TestExportGoldEmpty(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pref")
	if code, _, errs := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", dir); code != 0 {
		t.Fatalf("generate: %s", errs)
	}
	m := readManifest(t, dir)
	var lines []string
	for _, u := range m.Batches[0].Units {
		lines = append(lines, fmt.Sprintf(`{"schema":"annosheet.annotation/1","template":{"name":"preference-likert","version":1},"batch":"b01","unit":%q,"item":%q,"annotator":"gold","status":"empty","values":{},"source":{"kind":"adjudication","file":"adj/adjudication.json","sheet":"","rows":[]},"problems":[]}`, u.ID, u.Item))
	}
	gold := filepath.Join(t.TempDir(), "gold.jsonl")
	if err := os.WriteFile(gold, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "export", gold, "--native", "--manifest", filepath.Join(dir, "manifest.json"), "--out", filepath.Join(t.TempDir(), "gold.json"))
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	for _, u := range m.Batches[0].Units {
		if want := "warning: unit " + u.ID + ": the gold set has no answer for it (nobody has completed it): exported without answers"; !strings.Contains(errs, want) {
			t.Errorf("no warning of %s:\n%s", u.ID, errs)
		}
	}
}
