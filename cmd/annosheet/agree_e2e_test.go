package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// e2eReport is agree's JSON as the tests of this file read it: every
// metric with its params and value as written (span metrics take a
// boolean param, and PRF and Pearson values are objects).
type e2eReport struct {
	Schema  string `json:"schema"`
	Records struct {
		Used    int `json:"used"`
		Partial int `json:"partial_left_out"`
	} `json:"records"`
	Questions []struct {
		Name       string      `json:"name"`
		Type       string      `json:"type"`
		Units      int         `json:"units"`
		Pairable   int         `json:"pairable"`
		Annotators []string    `json:"annotators"`
		Metrics    []e2eMetric `json:"metrics"`
		Pairs      []struct {
			A, B    string
			Metrics []e2eMetric `json:"metrics"`
		} `json:"pairs"`
		UnitsDetail []struct {
			Unit   string `json:"unit"`
			Values int    `json:"values"`
			Agree  bool   `json:"agree"`
		} `json:"units_detail"`
	} `json:"questions"`
}

type e2eMetric struct {
	Metric string          `json:"metric"`
	Params map[string]any  `json:"params"`
	Value  json.RawMessage `json:"value"`
	Note   string          `json:"note"`
}

// runAgreeJSON runs agree with --json and decodes its report.
func runAgreeJSON(t *testing.T, args ...string) e2eReport {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"agree", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("agree %v: exit %d: %s", args, code, stderr)
	}
	var rep e2eReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("agree %v: %v\n%s", args, err, stdout)
	}
	if rep.Schema != "annosheet.agreement/1" {
		t.Errorf("schema %q", rep.Schema)
	}
	return rep
}

// question is the index of a question in the report, by name.
func (r e2eReport) question(t *testing.T, name string) int {
	t.Helper()
	for i, q := range r.Questions {
		if q.Name == name {
			return i
		}
	}
	t.Fatalf("the report has no question %s", name)
	return -1
}

// find is a question's metric by name and params, compared as JSON (so
// that {"labels": true} is not {"labels": "true"}); false when there is
// none.
func (r e2eReport) find(t *testing.T, question, name string, params map[string]any) (e2eMetric, bool) {
	t.Helper()
	want := string(mustJSON(params))
	for _, m := range r.Questions[r.question(t, question)].Metrics {
		if m.Metric == name && string(mustJSON(m.Params)) == want {
			return m, true
		}
	}
	return e2eMetric{}, false
}

// number is a question's metric that must be there with a number.
func (r e2eReport) number(t *testing.T, question, name string, params map[string]any) float64 {
	t.Helper()
	m, ok := r.find(t, question, name, params)
	if !ok {
		t.Fatalf("%s: no %s %s", question, name, mustJSON(params))
	}
	var v *float64
	if err := json.Unmarshal(m.Value, &v); err != nil || v == nil {
		t.Fatalf("%s: %s %s has no number: %s (%s)", question, name, mustJSON(params), m.Value, m.Note)
	}
	return *v
}

// near checks a value agree reports against the one the test computed,
// and logs both (go test -v shows them).
func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s: %v, want %v", what, got, want)
		return
	}
	t.Logf("%s: %v, want %v", what, got, want)
}

// prf is a question's metric whose value is precision, recall and F1.
func (r e2eReport) prf(t *testing.T, question, name string, params map[string]any) (v struct{ Precision, Recall, F1 float64 }) {
	t.Helper()
	m, ok := r.find(t, question, name, params)
	if !ok {
		t.Fatalf("%s: no %s %s", question, name, mustJSON(params))
	}
	if err := json.Unmarshal(m.Value, &v); err != nil || string(m.Value) == "null" {
		t.Fatalf("%s: %s %s has no value: %s (%s)", question, name, mustJSON(params), m.Value, m.Note)
	}
	return v
}

// sameFromRecords checks that agree on the records pull writes of a
// study says what agree on the study says, byte for byte.
func sameFromRecords(t *testing.T, study string) {
	t.Helper()
	_, fromStudy, _ := runCLI(t, "agree", study, "--json")
	recs := filepath.Join(t.TempDir(), "records.jsonl")
	if code, _, stderr := runCLI(t, "pull", study, "--out", recs); code != 0 {
		t.Fatalf("pull: %s", stderr)
	}
	code, fromRecs, stderr := runCLI(t, "agree", recs, "--json")
	if code != 0 || fromRecs != fromStudy {
		t.Errorf("agree on pulled records (exit %d, %s) differs from agree on the study:\n%s\nthe study:\n%s", code, stderr, fromRecs, fromStudy)
	}
}

// openpyxlFill is what an annotator's application does to a workbook:
// openpyxl writes the cells of the Annotate sheet, typed (booleans,
// numbers, text), and, when sort_by names a column, sorts the data rows
// by it, last first, as a reader sorting their sheet would.
const openpyxlFill = `
import json, sys, openpyxl
from openpyxl.utils import column_index_from_string
spec = json.load(open(sys.argv[1]))
wb = openpyxl.load_workbook(spec["path"])
ws = wb["Annotate"]
for cell, value in spec["cells"]:
    ws[cell] = value
if spec.get("sort_by"):
    col = column_index_from_string(spec["sort_by"])
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=2, max_row=ws.max_row)]
    rows.sort(key=lambda r: str(r[col - 1] or ""), reverse=True)
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            ws.cell(row=i + 2, column=j + 1).value = v  # value=None would leave the cell as it was
wb.save(spec["path"])
`

// fillWithOpenpyxl writes cells (A1 name -> value) into a workbook with
// openpyxl, and sorts its rows by column sortBy when it is not "".
func fillWithOpenpyxl(t *testing.T, py, path string, cells [][2]any, sortBy string) {
	t.Helper()
	dir := t.TempDir()
	script, spec := filepath.Join(dir, "fill.py"), filepath.Join(dir, "spec.json")
	if err := os.WriteFile(script, []byte(openpyxlFill), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, mustJSON(map[string]any{"path": path, "cells": cells, "sort_by": sortBy}), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, script, spec).CombinedOutput(); err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, out)
	}
}

// layout reads a generated workbook's columns and units, and closes it:
// the cells are written by openpyxl.
func openLayout(t *testing.T, path string) *goldtest.Workbook {
	t.Helper()
	w, err := goldtest.OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.F.Close(); err != nil {
		t.Fatal(err)
	}
	return w
}

// qaRow is one answer row of a qa-span-errors block: the text copied
// from the prediction ("" for missing information), the error type's
// code, and the evidence (passage 0 for none).
type qaRow struct {
	span      string
	code      string
	passage   int
	sentences []int
}

// qaUnit is what two annotators wrote on one question (unit): their rows,
// whether each ticked Checked, and, counted by hand from the rows, how
// many spans pair up between them under each span_f1 rule.
type qaUnit struct {
	unit string
	rows [2][]qaRow // ak's, bt's
	done [2]bool
	// Pairs: exact with labels, exact without, overlap with labels,
	// overlap without.
	exactL, exactU, overL, overU int
}

// qaLabels are the labels of the error types the test uses, as the
// dropdown shows them.
var qaLabels = map[string]string{
	"Irrelevant":              "Irrelevant",
	"Incoherent":              "Incoherent",
	"Unverifiable":            "Unverifiable Fact",
	"Wrong-Grounding":         "Inconsistent Fact",
	"Missing-Answer":          "Missing Answer",
	"Missing-Minor-Auxiliary": "Missing Minor Auxiliary Information",
}

// TestAgreeQASpanErrors: a qa-span-errors study of two annotators with
// overlap 2, filled with openpyxl with controlled disagreements; agree's
// span F1 (exact and overlapping, with and without labels), its
// exact-set agreement and α MASI of the error types, its agreement on
// evidence per (unit, error type), and the units it says agree, checked
// against values counted by hand from the rows written.
func TestAgreeQASpanErrors(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "qa-span-errors", "-i", qaData, "-o", out, "--annotators", "ak,bt", "--overlap", "2"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	both := [2]bool{true, true}
	units := []qaUnit{
		// The same two errors, the same types.
		{unit: "q0000", done: both, rows: [2][]qaRow{
			{{span: "American singer Ariana Grande was released on 13 June as the album's fourth single", code: "Incoherent"}, {span: "accompanied by a music video directed by Grant Singer", code: "Unverifiable"}},
			{{span: "accompanied by a music video directed by Grant Singer", code: "Unverifiable"}, {span: "American singer Ariana Grande was released on 13 June as the album's fourth single", code: "Incoherent"}},
		}, exactL: 2, exactU: 2, overL: 2, overU: 2},
		// The same span, another type: it pairs only without labels.
		{unit: "q0001", done: both, rows: [2][]qaRow{
			{{span: "takes place in Pasadenadena, California", code: "Incoherent"}},
			{{span: "takes place in Pasadenadena, California", code: "Unverifiable"}},
		}, exactU: 1, overU: 1},
		// ak marks an error bt does not (an inconsistent fact with evidence).
		{unit: "q0002", done: both, rows: [2][]qaRow{
			{{span: "His troops followed on January 3, 1777", code: "Unverifiable"}, {span: "On December 30, he crossed the Delaware River back into New Jersey", code: "Wrong-Grounding", passage: 1, sentences: []int{5}}},
			{{span: "His troops followed on January 3, 1777", code: "Unverifiable"}},
		}, exactL: 1, exactU: 1, overL: 1, overU: 1},
		// ak finds nothing (Checked, no row); bt marks a span with an
		// en dash in it.
		{unit: "q0003", done: both, rows: [2][]qaRow{
			nil,
			{{span: "1937–1939 Disney's character is also known by her given name", code: "Incoherent"}},
		}},
		// Overlapping spans, not the same: one pair of the same type,
		// one of different types.
		{unit: "q0004", done: both, rows: [2][]qaRow{
			{{span: "The 2015 series features Penny as an agent in training", code: "Unverifiable"}, {span: "Michelle Trachtenberg was portrayed Penny by Michelle Trachtenberg", code: "Incoherent"}},
			{{span: "features Penny as an agent in training, with Tegan Moss as Penny", code: "Unverifiable"}, {span: "was portrayed Penny by Michelle Trachtenberg, and Caitlin Wachs as Penny", code: "Irrelevant"}},
		}, overL: 1, overU: 2},
		// Missing information (no span): the same type with other
		// evidence, and a type only ak gives; one span both mark.
		{unit: "q0005", done: both, rows: [2][]qaRow{
			{{code: "Missing-Answer", passage: 1, sentences: []int{1, 2}}, {span: "The new album by American rock band The New Year was released on February 27, 2017", code: "Irrelevant"}, {code: "Missing-Minor-Auxiliary", passage: 2, sentences: []int{4}}},
			{{span: "The new album by American rock band The New Year was released on February 27, 2017", code: "Irrelevant"}, {code: "Missing-Answer", passage: 1, sentences: []int{2, 3}}},
		}, exactL: 1, exactU: 1, overL: 1, overU: 1},
		// Both find nothing: they agree.
		{unit: "q0006", done: both},
		// Past an en dash (code points, not bytes): the same inconsistent
		// fact with the same evidence, the same span, and a span inside
		// the other's.
		{unit: "q0007", done: both, rows: [2][]qaRow{
			{{span: "winning their third Premier League title on 15 April 2018", code: "Wrong-Grounding", passage: 1, sentences: []int{3}}, {span: "second place Manchester United", code: "Unverifiable"}, {span: "the EFL Cup with a 3–0 win over Arsenal", code: "Unverifiable"}},
			{{span: "the EFL Cup with a 3–0 win over Arsenal", code: "Unverifiable"}, {span: "place Manchester United", code: "Unverifiable"}, {span: "winning their third Premier League title on 15 April 2018", code: "Wrong-Grounding", passage: 1, sentences: []int{3}}},
		}, exactL: 2, exactU: 2, overL: 3, overU: 3},
		// Only ak finishes it: one value, not pairable.
		{unit: "q0008", done: [2]bool{true, false}, rows: [2][]qaRow{
			{{span: "It's also the third episode", code: "Incoherent"}},
		}},
		// bt marks a span but does not tick Checked: a partial unit,
		// left out; ak's "nothing" is its one value.
		{unit: "q0009", done: [2]bool{true, false}, rows: [2][]qaRow{
			nil,
			{{span: "in his third year at Hogwarts School of Witchcraft and Wizardry", code: "Irrelevant"}},
		}},
	}

	recs, err := goldtest.ReadQA(qaData)
	if err != nil {
		t.Fatal(err)
	}
	for i, who := range []string{"ak", "bt"} {
		path := filepath.Join(out, "qa-span-errors-"+who+"-b01.xlsx")
		w := openLayout(t, path)
		var cells [][2]any
		set := func(row int, key string, v any) {
			cells = append(cells, [2]any{mustCell(t, w, row, key), v})
		}
		for _, u := range units {
			rows := w.Rows[u.unit]
			if len(u.rows[i]) > len(rows) {
				t.Fatalf("%s: %d rows for %d answers", u.unit, len(rows), len(u.rows[i]))
			}
			for k, r := range u.rows[i] {
				if r.span != "" {
					set(rows[k], "q:span", r.span)
				}
				set(rows[k], "q:error_type", qaLabels[r.code])
				if r.passage > 0 {
					set(rows[k], "q:evidence#passage", r.passage)
					set(rows[k], "q:evidence#sentences", joinSentences(r.sentences))
				}
			}
			if u.done[i] {
				set(rows[0], "q:checked", true)
			}
		}
		fillWithOpenpyxl(t, py, path, cells, "")
	}

	// What agree must say, from the rows: spans at code-point offsets
	// in the prediction, for the units both finished.
	type span struct {
		start, end int
		code       string
	}
	spansOf := func(u qaUnit, i int) []span {
		n, err := strconv.Atoi(strings.TrimPrefix(u.unit, "q"))
		if err != nil {
			t.Fatal(err)
		}
		pred := recs[n].Prediction1
		var out []span
		for _, r := range u.rows[i] {
			if r.span == "" {
				continue
			}
			if n := strings.Count(pred, r.span); n != 1 {
				t.Fatalf("%s: %q is %d times in the prediction; the test copies text found once", u.unit, r.span, n)
			}
			start := utf8.RuneCountInString(pred[:strings.Index(pred, r.span)])
			out = append(out, span{start, start + utf8.RuneCountInString(r.span), r.code})
		}
		return out
	}
	// Characters in common, as span_char_overlap_prf counts them: at
	// each position, the smaller number of the two annotators' spans
	// covering it (of the same type under hard, of any under soft).
	common := func(a, b []span, hard bool) int {
		end := 0
		for _, s := range append(slices.Clone(a), b...) {
			end = max(end, s.end)
		}
		n := 0
		for p := range end {
			cover := map[string][2]int{}
			for i, list := range [][]span{a, b} {
				for _, s := range list {
					if s.start <= p && p < s.end {
						k := ""
						if hard {
							k = s.code
						}
						c := cover[k]
						c[i]++
						cover[k] = c
					}
				}
			}
			for _, c := range cover {
				n += min(c[0], c[1])
			}
		}
		return n
	}
	var lenA, lenB, hard, soft int
	var nA, nB, exactL, exactU, overL, overU, unitsWithValue, pairableUnits, agreeingTypes int
	var typeSets [][]any
	evidence := map[string][2]*[]string{} // "unit / code" -> each annotator's sentences
	var evidenceUnits [][]any
	for _, u := range units {
		if u.done[0] || u.done[1] {
			unitsWithValue++
		}
		if !u.done[0] || !u.done[1] {
			continue
		}
		pairableUnits++
		a, b := spansOf(u, 0), spansOf(u, 1)
		nA += len(a)
		nB += len(b)
		for _, s := range a {
			lenA += s.end - s.start
		}
		for _, s := range b {
			lenB += s.end - s.start
		}
		hard += common(a, b, true)
		soft += common(a, b, false)
		exactL += u.exactL
		exactU += u.exactU
		overL += u.overL
		overU += u.overU
		var sets [2][]string
		for i := range 2 {
			sets[i] = []string{}
			for _, r := range u.rows[i] {
				if !slices.Contains(sets[i], r.code) {
					sets[i] = append(sets[i], r.code)
				}
				k := u.unit + " / " + r.code
				e := evidence[k]
				if e[i] == nil {
					e[i] = &[]string{}
				}
				for _, s := range r.sentences {
					*e[i] = append(*e[i], fmt.Sprintf("%d:%d", r.passage, s))
				}
				evidence[k] = e
			}
			slices.Sort(sets[i])
		}
		if slices.Equal(sets[0], sets[1]) {
			agreeingTypes++
		}
		typeSets = append(typeSets, []any{sets[0], sets[1]})
	}
	evidencePairs, evidenceAgree := 0, 0
	for _, k := range slices.Sorted(mapKeys(evidence)) {
		e := evidence[k]
		if e[0] == nil || e[1] == nil {
			continue
		}
		a, b := slices.Sorted(slices.Values(*e[0])), slices.Sorted(slices.Values(*e[1]))
		if len(a) == 0 && len(b) == 0 {
			continue // no evidence given: the type takes none, nothing to compare
		}
		evidencePairs++
		if slices.Equal(a, b) {
			evidenceAgree++
		}
		evidenceUnits = append(evidenceUnits, []any{a, b})
	}
	// The hand count, so that a change of the rows above that the
	// pair counts do not follow shows here.
	if nA != 11 || nB != 11 || exactL != 6 || exactU != 7 || overL != 8 || overU != 10 || pairableUnits != 8 || unitsWithValue != 10 || agreeingTypes != 3 || evidencePairs != 2 || evidenceAgree != 1 {
		t.Fatalf("hand count: %d and %d spans; pairs exact %d/%d, overlap %d/%d; %d pairable units of %d, %d agreeing on types; evidence %d of %d",
			nA, nB, exactL, exactU, overL, overU, pairableUnits, unitsWithValue, agreeingTypes, evidenceAgree, evidencePairs)
	}

	rep := runAgreeJSON(t, out)
	if rep.Records.Partial != 1 {
		t.Errorf("%d partial records left out, want 1 (bt's q0009)", rep.Records.Partial)
	}
	q := rep.Questions[rep.question(t, "errors")]
	if q.Type != "span" || q.Units != unitsWithValue || q.Pairable != 2*pairableUnits || !slices.Equal(q.Annotators, []string{"ak", "bt"}) {
		t.Errorf("errors: type %s, %d units, %d pairable, annotators %v; want span, %d, %d, [ak bt]", q.Type, q.Units, q.Pairable, q.Annotators, unitsWithValue, 2*pairableUnits)
	}
	f1 := func(pairs int) float64 { return 2 * float64(pairs) / float64(nA+nB) }
	for _, c := range []struct {
		match  string
		labels bool
		want   float64
	}{
		{"exact", true, f1(exactL)},   // 12/22
		{"exact", false, f1(exactU)},  // 14/22
		{"overlap", true, f1(overL)},  // 16/22
		{"overlap", false, f1(overU)}, // 20/22
	} {
		params := map[string]any{"match": c.match, "labels": c.labels}
		near(t, "span_f1 "+string(mustJSON(params)), rep.number(t, "errors", "span_f1", params), c.want)
	}
	// ak, first in sorted order, is the reference; bt the hypothesis.
	for _, c := range []struct {
		match string
		chars int
	}{{"hard", hard}, {"soft", soft}} {
		params := map[string]any{"match": c.match, "reference": "ak", "hypothesis": "bt"}
		got := rep.prf(t, "errors", "span_char_overlap_prf", params)
		what := "span_char_overlap_prf " + string(mustJSON(params))
		near(t, what+" precision", got.Precision, float64(c.chars)/float64(lenB))
		near(t, what+" recall", got.Recall, float64(c.chars)/float64(lenA))
		near(t, what+" F1", got.F1, 2*float64(c.chars)/float64(lenA+lenB))
	}
	agree := map[string]bool{}
	for _, d := range q.UnitsDetail {
		agree[d.Unit] = d.Agree
	}
	// q0006: both marked nothing; q0000: the same spans in another row
	// order; q0005: the same span, the missing information aside.
	want := map[string]bool{"q0000": true, "q0001": false, "q0002": false, "q0003": false, "q0004": false, "q0005": true, "q0006": true, "q0007": false}
	if fmt.Sprint(agree) != fmt.Sprint(want) {
		t.Errorf("units agreeing on spans: %v, want %v (q0008 and q0009, which only ak finished, are not pairable)", agree, want)
	}

	near(t, "exact-set agreement of the error types (3/8)", rep.number(t, "error_type", "percent_agreement", map[string]any{}), float64(agreeingTypes)/float64(pairableUnits))
	near(t, "α MASI of the error types", rep.number(t, "error_type", "krippendorff_alpha", map[string]any{"distance": "masi"}), alpha(typeSets, masi))
	if q := rep.Questions[rep.question(t, "evidence")]; q.Pairable != 2*evidencePairs {
		t.Errorf("evidence: %d pairable values, want %d", q.Pairable, 2*evidencePairs)
	}
	near(t, "evidence agreement per (unit, error type) (1/2)", rep.number(t, "evidence", "percent_agreement", map[string]any{}), float64(evidenceAgree)/float64(evidencePairs))
	near(t, "α MASI of the evidence", rep.number(t, "evidence", "krippendorff_alpha", map[string]any{"distance": "masi"}), alpha(evidenceUnits, masi))
	sameFromRecords(t, out)
}

func joinSentences(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ", ")
}

// TestAgreeFactgenie: a factgenie-meta-eval study of two annotators with
// overlap 2 (units are error spans, named by the anonymised evaluator:
// "…/S3#A1"), filled with openpyxl with controlled disagreement, bt's
// rows then sorted last first; α nominal, percent agreement and Cohen's
// κ of span_ok and explanation_ok checked against values computed pair
// by pair, units paired by their ID across the two workbooks; and the
// flags' exact-set agreement and α MASI, boxes left blank on a judged
// span being the empty selection.
func TestAgreeFactgenie(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "factgenie-meta-eval", "-i", fgData, "-o", out, "--annotators", "ak,bt", "--overlap", "2", "--seed", "1"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	const answered = 30 // units both judge; one more only ak judges
	spanOK := []string{"Error", "Not an error", "No span given", "Hallucination"}
	expl := []string{"Correct", "Partially correct", "Incomplete", "Vague", "Incorrect"}
	// answer is an annotator's answers to the n-th unit in sorted order:
	// bt disagrees on span_ok on every fourth unit and on the
	// explanation on every third.
	answer := func(who, n int) (string, string) {
		s := spanOK[[]int{0, 0, 1, 0, 2, 0, 3, 1}[n%8]]
		if who == 1 && n%4 == 1 {
			s = spanOK[(slices.Index(spanOK, s)+1)%len(spanOK)]
		}
		if s == "Not an error" {
			return s, "Not an error" // as the template's rule asks
		}
		e := n % len(expl)
		if who == 1 && n%3 == 0 {
			e = (e + 2) % len(expl)
		}
		return s, expl[e]
	}
	// flags are the boxes an annotator ticks on the n-th unit; most
	// units get none, which is an answer: nothing to flag. bt ticks a
	// second box on every tenth unit, and one box ak never ticks on
	// unit 7.
	flags := func(who, n int) []string {
		out := []string{}
		if n%5 == 0 {
			out = append(out, "Too strict")
		}
		if who == 1 && n%10 == 0 {
			out = append(out, "Repeated")
		}
		if who == 1 && n == 7 {
			out = append(out, "Not aspect related")
		}
		slices.Sort(out)
		return out
	}
	var order []string
	for who, name := range []string{"ak", "bt"} {
		path := filepath.Join(out, "factgenie-meta-eval-"+name+"-b01.xlsx")
		w := openLayout(t, path)
		units := slices.Sorted(slices.Values(w.Units))
		if order == nil {
			order = units
		} else if !slices.Equal(order, units) {
			t.Fatalf("the two workbooks have other units")
		}
		if !strings.Contains(units[0], "#A") {
			t.Fatalf("unit %s is not named by its anonymised evaluator", units[0])
		}
		n := answered
		if who == 0 {
			n++
		}
		var cells [][2]any
		for i, u := range units[:n] {
			s, e := answer(who, i)
			row := w.Rows[u][0]
			cells = append(cells, [2]any{mustCell(t, w, row, "q:span_ok"), s}, [2]any{mustCell(t, w, row, "q:explanation_ok"), e})
			for _, f := range flags(who, i) {
				cells = append(cells, [2]any{mustCell(t, w, row, "q:flags="+f), true})
			}
		}
		sortBy := ""
		if name == "bt" {
			// bt's rows in another order: pairing is by unit ID, not
			// by place.
			c, err := w.Cell(1, "unit")
			if err != nil {
				t.Fatal(err)
			}
			sortBy = strings.TrimRight(c, "0123456789")
		}
		fillWithOpenpyxl(t, py, path, cells, sortBy)
	}

	rep := runAgreeJSON(t, out)
	for k, question := range []string{"span_ok", "explanation_ok"} {
		var units [][]any
		agreeing := 0
		var a, b []string
		for i := range answered {
			var v [2]string
			for who := range 2 {
				s, e := answer(who, i)
				v[who] = []string{s, e}[k]
			}
			units = append(units, []any{v[0], v[1]})
			a, b = append(a, v[0]), append(b, v[1])
			if v[0] == v[1] {
				agreeing++
			}
		}
		q := rep.Questions[rep.question(t, question)]
		if q.Units != answered+1 || q.Pairable != 2*answered {
			t.Errorf("%s: %d units, %d pairable; want %d and %d: units not paired by ID across the workbooks?", question, q.Units, q.Pairable, answered+1, 2*answered)
		}
		var detail []string
		for _, d := range q.UnitsDetail {
			detail = append(detail, d.Unit)
		}
		if !slices.Equal(detail, order[:answered]) {
			t.Errorf("%s: pairable units %v, want %v", question, detail, order[:answered])
		}
		nominal := func(x, y any) float64 {
			if x == y {
				return 0
			}
			return 1
		}
		near(t, question+": α nominal", rep.number(t, question, "krippendorff_alpha", map[string]any{"level": "nominal"}), alpha(units, nominal))
		near(t, fmt.Sprintf("%s: percent agreement (%d/%d)", question, agreeing, answered), rep.number(t, question, "percent_agreement", map[string]any{}), float64(agreeing)/answered)
		near(t, question+": Cohen's κ", rep.number(t, question, "cohen_kappa", map[string]any{"weights": "none"}), cohenKappa(a, b))
	}
	// The flags, a box ticked or not: boxes left blank on a judged
	// span are the empty selection, an answer, as export writes it
	// (flags: []).
	var sets [][]any
	agreeing := 0
	for i := range answered {
		a, b := flags(0, i), flags(1, i)
		sets = append(sets, []any{a, b})
		if slices.Equal(a, b) {
			agreeing++
		}
	}
	if q := rep.Questions[rep.question(t, "flags")]; q.Units != answered+1 || q.Pairable != 2*answered {
		t.Errorf("flags: %d units, %d pairable; want %d and %d: boxes left blank on a judged span are no selection, an answer", q.Units, q.Pairable, answered+1, 2*answered)
	}
	near(t, fmt.Sprintf("flags: exact-set agreement (%d/%d)", agreeing, answered), rep.number(t, "flags", "percent_agreement", map[string]any{}), float64(agreeing)/answered)
	near(t, "flags: α MASI", rep.number(t, "flags", "krippendorff_alpha", map[string]any{"distance": "masi"}), alpha(sets, masi))
	sameFromRecords(t, out)
}

// cohenKappa is Cohen's κ of two annotators' codes, from its definition:
// (p_o - p_e) / (1 - p_e), p_e from each annotator's own marginals.
func cohenKappa(a, b []string) float64 {
	n := float64(len(a))
	var po float64
	ca, cb := map[string]float64{}, map[string]float64{}
	for i := range a {
		if a[i] == b[i] {
			po++
		}
		ca[a[i]]++
		cb[b[i]]++
	}
	po /= n
	var pe float64
	for _, c := range slices.Sorted(mapKeys(ca)) {
		pe += ca[c] / n * cb[c] / n
	}
	return (po - pe) / (1 - pe)
}

// refCaseDirs hold the published agreement cases: the shared set beside
// the repository (in CI), and the agreement package's copy of it, so
// that the test runs without it. A case in both is run once, by id.
var refCaseDirs = []string{
	filepath.Join("..", "..", "..", "shared", "agreement"),
	filepath.Join("..", "..", "agreement", "testdata", "reference"),
}

// pipelineCase is a published case as the shared set's README describes
// it.
type pipelineCase struct {
	ID            string          `json:"id"`
	QuestionTypes []string        `json:"question_types"`
	Metric        string          `json:"metric"`
	Params        map[string]any  `json:"params"`
	Data          json.RawMessage `json:"data"`
	Expected      json.RawMessage `json:"expected"`
	Tolerance     float64         `json:"tolerance"`
}

// pipelineData is a case's data in the matrix format, with the
// categories some cases give beside it.
type pipelineData struct {
	Format      string   `json:"format"`
	Coders      []string `json:"coders"`
	Units       []string `json:"units"`
	Matrix      [][]any  `json:"matrix"`
	Contingency struct {
		Categories []any `json:"categories"`
	} `json:"contingency"`
	Counts struct {
		Categories []any `json:"categories"`
	} `json:"counts"`
}

// TestAgreeReferenceCases runs every published case whose data is a
// matrix through the whole pipeline: its data as the records pull
// writes, of a template written here (a choice question with the case's
// categories as options, or a scale from the smallest value to the
// largest for a scale case), then `annosheet agree records.jsonl
// --template FILE --json`, the case's metric found by name and params,
// and compared with the published value within the case's tolerance.
func TestAgreeReferenceCases(t *testing.T) {
	t.Parallel()
	var files []string
	for _, dir := range refCaseDirs {
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s is absent: its cases are not run from there", dir)
			continue
		}
		found, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Skipf("no reference case in %v", refCaseDirs)
	}
	seen := map[string]bool{}
	for _, file := range files {
		var c pipelineCase
		d := json.NewDecoder(bytes.NewReader(readBytes(t, file)))
		d.UseNumber()
		if err := d.Decode(&c); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		var format struct{ Format string }
		if err := json.Unmarshal(c.Data, &format); err != nil {
			t.Fatalf("%s: data: %v", file, err)
		}
		if format.Format != "matrix" {
			t.Logf("%s: data in format %s, not a matrix: not run through the pipeline here", c.ID, format.Format)
			continue
		}
		var data pipelineData
		d = json.NewDecoder(bytes.NewReader(c.Data))
		d.UseNumber()
		if err := d.Decode(&data); err != nil {
			t.Fatalf("%s: data: %v", file, err)
		}
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			runReferenceCase(t, c, data)
		})
	}
}

func runReferenceCase(t *testing.T, c pipelineCase, data pipelineData) {
	dir := t.TempDir()
	scale := slices.Contains(c.QuestionTypes, "scale")
	code := func(v any) string { return fmt.Sprint(v) }
	var question string
	if scale {
		lo, hi := math.MaxInt, math.MinInt
		for _, row := range data.Matrix {
			for _, v := range row {
				if v == nil {
					continue
				}
				n, err := v.(json.Number).Int64()
				if err != nil {
					t.Skipf("value %v: a scale holds whole numbers; agree cannot represent this case", v)
				}
				lo, hi = min(lo, int(n)), max(hi, int(n))
			}
		}
		question = fmt.Sprintf("    type: scale\n    min: %d\n    max: %d\n", lo, hi)
	} else {
		// The case's categories in their order: given as a param, beside
		// the data, or else the values found, sorted.
		var cats []any
		switch {
		case c.Params["categories"] != nil:
			cats = c.Params["categories"].([]any)
		case data.Contingency.Categories != nil:
			cats = data.Contingency.Categories
		case data.Counts.Categories != nil:
			cats = data.Counts.Categories
		default:
			for _, row := range data.Matrix {
				for _, v := range row {
					if v != nil && !slices.Contains(cats, v) {
						cats = append(cats, v)
					}
				}
			}
			slices.SortFunc(cats, func(a, b any) int { return strings.Compare(code(a), code(b)) })
		}
		question = "    type: choice\n    options:\n"
		for _, v := range cats {
			question += fmt.Sprintf("      - code: %s\n", mustJSON(code(v)))
		}
	}
	tmpl := filepath.Join(dir, "case.yaml")
	write(t, tmpl, "name: reference-case\nversion: 1\ntitle: "+string(mustJSON(c.ID))+"\ninstructions: Answer each unit.\n"+
		"input:\n  format: jsonl\n  id: \"{id}\"\nrows:\n  per: record\n"+
		"context:\n  - name: text\n    header: Text\n    path: text\n"+
		"questions:\n  - name: answer\n    header: Answer\n"+question)

	var lines []string
	for i, unit := range data.Units {
		for j, coder := range data.Coders {
			v := data.Matrix[i][j]
			if v == nil {
				continue // that annotator did not do the unit
			}
			var value any = code(v)
			if scale {
				value, _ = v.(json.Number).Int64()
			}
			lines = append(lines, string(mustJSON(map[string]any{
				"schema": "annosheet.annotation/1", "template": map[string]any{"name": "reference-case", "version": 1},
				"unit": unit, "item": unit, "annotator": coder, "status": "complete",
				"values": map[string]any{"answer": value},
			})))
		}
	}
	recs := filepath.Join(dir, "records.jsonl")
	write(t, recs, strings.Join(lines, "\n")+"\n")

	rep := runAgreeJSON(t, recs, "--template", tmpl)
	// The params agree reports the metric under: the case's, less the
	// categories, which are the question's options. agree writes every
	// param explicitly; a case that leaves the weights out means the
	// unweighted statistic.
	params := map[string]any{}
	for k, v := range c.Params {
		if k != "categories" {
			params[k] = v
		}
	}
	switch c.Metric {
	case "cohen_kappa", "fleiss_kappa", "gwet_ac2":
		if _, ok := params["weights"]; !ok {
			params["weights"] = "none"
			t.Logf("%s gives %s with params %s; agree reports the unweighted statistic under %s", c.ID, c.Metric, mustJSON(c.Params), mustJSON(params))
		}
	}
	m, ok := rep.find(t, "answer", c.Metric, params)
	if !ok {
		var have []string
		for _, m := range rep.Questions[0].Metrics {
			have = append(have, m.Metric+" "+string(mustJSON(m.Params)))
		}
		t.Fatalf("agree does not report %s %s for a %s question; it reports %s", c.Metric, mustJSON(params), strings.Join(c.QuestionTypes, "/"), strings.Join(have, ", "))
	}
	var got, want float64
	if err := json.Unmarshal(m.Value, &got); err != nil {
		t.Fatalf("%s %s: value %s (%s)", c.Metric, mustJSON(params), m.Value, m.Note)
	}
	if err := json.Unmarshal(c.Expected, &want); err != nil {
		t.Fatalf("expected %s: %v", c.Expected, err)
	}
	if math.Abs(got-want) > c.Tolerance {
		t.Errorf("%s %s: %v, published %v (tolerance %v)", c.Metric, mustJSON(params), got, want, c.Tolerance)
	}
	t.Logf("%s %s: %v, published %v", c.Metric, mustJSON(params), got, want)
}
