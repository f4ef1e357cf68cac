package main

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
	"github.com/annosheet/annosheet/xlsx"
)

// openpyxlByID fills a sheet the way a person does, by the row's ID:
// cells gives, per value of the ID column, a value per header.
const openpyxlByID = `
import json, sys, openpyxl
spec = json.load(open(sys.argv[1]))
wb = openpyxl.load_workbook(spec["path"])
ws = wb[spec["sheet"]]
head = [c.value for c in ws[1]]
col = head.index(spec["id"]) + 1
for r in range(2, ws.max_row + 1):
    for header, value in spec["cells"].get(ws.cell(r, col).value, {}).items():
        ws.cell(r, head.index(header) + 1).value = value
wb.save(spec["path"])
`

func fillByID(t *testing.T, py, path, sheet, id string, cells map[string]map[string]any) {
	t.Helper()
	dir := t.TempDir()
	script, spec := filepath.Join(dir, "fill.py"), filepath.Join(dir, "spec.json")
	if err := os.WriteFile(script, []byte(openpyxlByID), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, mustJSON(map[string]any{"path": path, "sheet": sheet, "id": id, "cells": cells}), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, spec).CombinedOutput(); err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, out)
	}
}

// sheetTexts reads a sheet of a workbook as text, every row as wide as
// the header.
func sheetTexts(t *testing.T, path, sheet string) [][]string {
	t.Helper()
	g, closeFn, err := xlsx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	var rows [][]string
	if err := g.Rows(sheet, func(_ int, cells []backend.ReadCell) error {
		var texts []string
		for _, c := range cells {
			texts = append(texts, c.Text())
		}
		if len(rows) > 0 {
			for len(texts) < len(rows[0]) {
				texts = append(texts, "")
			}
		}
		rows = append(rows, texts)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestAdjudicateFeedback runs a legal-gaps study of three annotators, two
// on each unit, to an adjudication decided by openpyxl, and checks the
// feedback each annotator gets: exactly their corrected rows, with the
// opaque IDs and the context the adjudication shows, the undecided row
// left out, no workbook for the annotator never corrected, and no other
// annotator's ID (nor a real unit ID) in any part of a workbook.
func TestAdjudicateFeedback(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	studyDir, adj, fb := filepath.Join(dir, "study"), filepath.Join(dir, "adj"), filepath.Join(dir, "feedback")
	if code, _, stderr := runCLI(t, "generate", "--template", "legal-gaps", "--input", filepath.Join("..", "..", "testdata", "data", "legal-gaps", "examples.sample.jsonl"),
		"--out", studyDir, "--annotators", "ann1,ann2,ann3", "--overlap", "2", "--seed", "7"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	// u(k) is the ID the workbooks show for the k-th record of the input.
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	shown := shownAs(t, studyDir)
	u := func(k int) string { return shown[recs[k-1].ID] }
	// The seed gives each unit two annotators, as follows; they disagree on
	// the second record (ann2, ann3), the third (ann1, ann2) and the fifth
	// (ann1, ann2).
	for who, want := range map[string][]string{
		"ann1": {u(1), u(3), u(4), u(5)},
		"ann2": {u(2), u(3), u(5)},
		"ann3": {u(1), u(2), u(4)},
	} {
		var got []string
		for _, r := range sheetTexts(t, filepath.Join(studyDir, "legal-gaps-"+who+"-b01.xlsx"), "Annotate")[1:] {
			got = append(got, r[0])
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s's units (-want +got):\n%s", who, diff)
		}
	}
	gaps := func(codes string) map[string]any {
		out := map[string]any{}
		for _, h := range []string{"0 No gap", "1 Intrinsic error/LLM error", "2 Target Mismatch", "3 Citation Error"} {
			out[h] = strings.Contains(codes, h[:1])
		}
		return out
	}
	for who, codes := range map[string]map[string]string{
		"ann1": {u(1): "0", u(3): "2", u(4): "23", u(5): "0"},
		"ann2": {u(2): "1", u(3): "23", u(5): "1"},
		"ann3": {u(1): "0", u(2): "2", u(4): "23"},
	} {
		cells := map[string]map[string]any{}
		for id, c := range codes {
			cells[id] = gaps(c)
		}
		fillByID(t, py, filepath.Join(studyDir, "legal-gaps-"+who+"-b01.xlsx"), "Annotate", "ID", cells)
	}
	if code, _, stderr := runCLI(t, "adjudicate", studyDir, "--out", adj, "--adjudicator", "lead"); code != 0 {
		t.Fatalf("adjudicate: %s", stderr)
	}
	var key struct{ Annotators, Names []string }
	b, err := os.ReadFile(filepath.Join(adj, "adjudication.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &key); err != nil {
		t.Fatal(err)
	}
	book := filepath.Join(adj, "adjudicate-lead.xlsx")
	fillByID(t, py, book, "Gaps", "ID", map[string]map[string]any{
		// ann2's answer: ann1 is corrected.
		u(3): {"Or use": key.Names[slices.Index(key.Annotators, "ann2")], "Reason": "guideline unclear"},
		// ann2's answer, ticked: ann3 is corrected, and the note names
		// ann2, whom ann3's workbook must not.
		u(2): {"Final: 1 Intrinsic error/LLM error": true, "Reason": "annotator error", "Note": "ann2 saw the repetition (as did Ann2.)"},
		// The fifth stays undecided.
	})
	adjRows := map[string][]string{} // the adjudication's rows by unit ID
	adjSheet := sheetTexts(t, book, "Gaps")
	for _, r := range adjSheet[1:] {
		adjRows[r[1]] = r
	}
	// A long context is shown in part in both workbooks, the same part;
	// the last line says where each workbook's Read sheet holds it.
	shownPart := func(s string) string {
		if i := strings.LastIndex(s, "\n→ read in full: sheet Read, row "); i >= 0 {
			return s[:i]
		}
		return s
	}
	context := func(id string) []string {
		var out []string
		for _, s := range adjRows[id][2:6] {
			out = append(out, shownPart(s))
		}
		return out
	}
	if diff := cmp.Diff([]string{"Previous context", "Cited paragraphs", "Generation", "Target"}, adjSheet[0][2:6]); diff != "" {
		t.Fatalf("the adjudication's context columns (-want +got):\n%s", diff)
	}

	code, stdout, stderr := runCLI(t, "adjudicate", adj, "--feedback", "--out", fb)
	if code != 0 {
		t.Fatalf("adjudicate --feedback: exit %d: %s", code, stderr)
	}
	wantOut := "wrote " + filepath.Join(fb, "feedback-ann1.xlsx") + ": 1 corrected answer for ann1\n" +
		"wrote " + filepath.Join(fb, "feedback-ann3.xlsx") + ": 1 corrected answer for ann3\n" +
		"no workbook for ann2: the gold set corrects none of their answers\n"
	if stdout != wantOut {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, wantOut)
	}
	if _, err := os.Stat(filepath.Join(fb, "feedback-ann2.xlsx")); err == nil {
		t.Error("ann2, never corrected, got a workbook")
	}
	header := []string{"ID", "Question", "Previous context", "Cited paragraphs", "Generation", "Target", "Your answer", "Gold answer", "Decided by", "Reason", "Note"}
	row := func(id string, rest ...string) []string {
		return append(append([]string{id, "Gaps"}, context(id)...), rest...)
	}
	for who, want := range map[string][][]string{
		"ann1": {header, row(u(3), "2 Target Mismatch", "2 Target Mismatch; 3 Citation Error", "adjudicator", "guideline unclear", "")},
		"ann3": {header, row(u(2), "2 Target Mismatch", "1 Intrinsic error/LLM error", "adjudicator", "annotator error", "another annotator saw the repetition (as did another annotator.)")},
	} {
		path := filepath.Join(fb, "feedback-"+who+".xlsx")
		got := sheetTexts(t, path, "Corrections")
		for _, r := range got[1:] {
			for i := 2; i < 6 && i < len(r); i++ {
				r[i] = shownPart(r[i])
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s's Corrections (-want +got):\n%s", who, diff)
		}
		// No part of the workbook names another annotator or a unit's
		// real ID, and every sheet is protected. (The adjudicator is no
		// secret, and "lead" is in "plead".)
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		forbidden := []string{"gpt4o-"}
		for _, a := range key.Annotators {
			if a != who {
				forbidden = append(forbidden, a)
			}
		}
		sheets := 0
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			part, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range forbidden {
				if strings.Contains(strings.ToLower(string(part)), strings.ToLower(s)) {
					t.Errorf("%s: part %s holds %q", path, f.Name, s)
				}
			}
			if strings.HasPrefix(f.Name, "xl/worksheets/sheet") {
				sheets++
				if !strings.Contains(string(part), "<sheetProtection") {
					t.Errorf("%s: %s is not protected", path, f.Name)
				}
			}
		}
		zr.Close()
		if sheets != 3 {
			t.Errorf("%s: %d sheets, want Corrections, Instructions and Read (the long contexts whole)", path, sheets)
		}
	}
}

func TestAdjudicateFeedbackUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"adjudicate", dir, "--feedback", "--out", filepath.Join(dir, "fb")}, // not an adjudication
		{"adjudicate", "--feedback", "--out", filepath.Join(dir, "fb")},      // no source
	} {
		if code, _, stderr := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
}

// TestAdjudicateFeedbackNothing: an adjudication that corrects nobody (the
// annotators agreed, or nobody has completed a unit yet) writes no
// feedback workbook and says so, rather than nothing at all.
func TestAdjudicateFeedbackNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, lines := range map[string][]string{
		"agreed": {"u1 ann1 1", "u1 ann2 1"},
		"nobody": {"u1 ann1 1 partial"},
	} {
		recs := legalRecords(t, dir, name+".jsonl", lines...)
		adj := filepath.Join(dir, name+"-adj")
		adjudicateCLI(t, 0, adj, recs)
		fb := filepath.Join(dir, name+"-fb")
		code, out, errs := runCLI(t, "adjudicate", adj, "--feedback", "--out", fb)
		if want := "no feedback written: the gold set of " + adj + " corrects no annotator's answer\n"; code != 0 || !strings.HasSuffix(out, want) {
			t.Errorf("%s: exit %d, want 0 and %q:\n%s%s", name, code, want, out, errs)
		}
		if _, err := os.Stat(fb); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the folder of feedback was made: %v", name, err)
		}
	}
}
