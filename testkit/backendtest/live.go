package backendtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/annosheet/annosheet/templates"
)

// The live checks' cases: the typical mistakes annotators make, written
// into a generated workbook, and what the sheet says about them. Every
// backend's test writes them its own way: the XLSX test with openpyxl,
// then has LibreOffice compute the sheet; the Sheets test through the
// API against the fake, which keeps formulas and rules but computes
// nothing.

// LiveTemplate is a LiveCase's template, and its input file.
func LiveTemplate(t *testing.T, c LiveCase) (*templates.Template, string) {
	t.Helper()
	if c.Source == "" {
		tp, err := templates.Builtin(c.Template)
		if err != nil {
			t.Fatal(err)
		}
		return tp, filepath.Join(moduleRoot(t), "testdata", "data", c.Input)
	}
	tp, err := templates.Load(c.Template+".yaml", []byte(c.Source))
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), c.Template+".jsonl")
	if err := os.WriteFile(in, []byte(c.Input), 0o644); err != nil {
		t.Fatal(err)
	}
	return tp, in
}

// LiveCase is a template, the mistakes an annotator makes in its
// workbook (row, column key, value), and what the sheet says then: each
// row's Check cell (rows not listed say nothing), and the cells its
// conditional formats colour (columns and fill, "B:E FFC7CE"), for the
// rows listed.
type LiveCase struct {
	// Template is a built-in's name, with its Input under testdata/data;
	// or, with Source (the template's YAML), a name for it, with Input
	// the JSON Lines records themselves.
	Template, Input string
	Source          string
	Cells           []LiveCell
	Check           map[int]string
	Colours         map[int][]string
}

// LiveCell is a value typed into a cell: a bool, an int or a string.
type LiveCell struct {
	Row   int
	Key   string
	Value any
}

// LiveCases are the cases, one per built-in template they concern.
func LiveCases() []LiveCase {
	return []LiveCase{
		{
			Template: "legal-gaps", Input: "legal-gaps/examples.sample.jsonl",
			Cells: []LiveCell{
				{2, "q:gaps=0", true}, {2, "q:gaps=2", true}, {2, "annotator", "AK"},
				{3, "q:note", "unsure"}, {3, "annotator", "AK"},
				{4, "q:gaps=1", true}, {4, "q:gaps=3", true}, {4, "annotator", "AK"},
				{5, "q:gaps=3", "x"}, {5, "q:gaps=0", "FALSE"}, {5, "annotator", " ak "},
				{6, "q:gaps=2", true},
			},
			Check: map[int]string{
				2: "0 excludes other codes",
				3: "Gaps missing",
				4: "1 usually stands alone",
				5: "3 without 2",
				6: "Annotator ID missing",
			},
			Colours: map[int][]string{
				2: {"B:E FFC7CE"},
				3: {"B:E FFEB9C"},
				4: {"B:E FFEB9C"},
				5: {"B:E FFEB9C"},
				6: {"L FFC7CE"},
			},
		},
		{
			Template: "qa-span-errors", Input: "qa-feedback/dev_feedback.sample.json",
			Cells: []LiveCell{
				// Block 1 (rows 2-9): checked, with an annotator; one
				// mistake a row.
				{2, "q:checked", true}, {2, "annotator", "AK"},
				{2, "q:span", "studio album"}, {2, "q:error_type", "Irrelevant"},
				{3, "q:span", "studio album"}, {3, "q:span#occurrence", 2}, {3, "q:error_type", "Irrelevant"},
				{4, "q:span", "studio album"}, {4, "q:span#occurrence", 5}, {4, "q:error_type", "Irrelevant"},
				{5, "q:span", "Troye Sivan"},
				{6, "q:span", "not in the answer"}, {6, "q:error_type", "Unverifiable Fact"},
				{7, "q:error_type", "Missing Answer"},
				{8, "q:span", "Bloom"}, {8, "q:error_type", "Missing Answer"}, {8, "q:evidence#passage", 1}, {8, "q:evidence#sentences", "2"},
				{9, "q:error_type", "Inconsistent Fact"},
				// Block 2 (rows 10-17): an answer, nothing else.
				{10, "q:span", "Sam Raimi"}, {10, "q:error_type", "Irrelevant"},
				// Block 3 (rows 18-25): repetitions.
				{18, "q:checked", true}, {18, "annotator", "AK"},
				{18, "q:span", "January 3, 1777"}, {18, "q:span#occurrence", 2}, {18, "q:error_type", "Repetitive"},
				{19, "q:span", "January 3, 1777"}, {19, "q:span#occurrence", 2}, {19, "q:error_type", "Repetitive"}, {19, "q:repeated", "January 3, 1777"},
				{20, "q:span", "Washington"}, {20, "q:error_type", "Repetitive"}, {20, "q:repeated", "crossed the Delaware"},
				{21, "q:span", "Lord Cornwallis"}, {21, "q:error_type", "Irrelevant"}, {21, "q:repeated", "Princeton"},
				// Block 5 (rows 34-41): Checked unticked is an answer.
				{34, "q:checked", false},
			},
			Check: map[int]string{
				2:  "Error span occurs 2 times in Prediction: give its occurrence",
				4:  "Error span: occurrence 5 of 2",
				5:  "Error type missing",
				6:  "Error span not in Prediction",
				7:  "evidence needed",
				8:  "missing information has no span",
				9:  "this type needs an Error span; evidence needed",
				10: "Checked missing; Annotator ID missing",
				18: "Repeated text needed",
				20: "Repeated text not before Error span",
				21: "Repeated text only for Repetitive",
				34: "Annotator ID missing",
			},
			Colours: map[int][]string{
				2:  {"G:H FFC7CE"},
				3:  nil,
				4:  {"H FFC7CE"},
				5:  {"I FFEB9C"},
				6:  {"G FFC7CE"},
				7:  {"J:K FFC7CE"},
				8:  {"G FFC7CE"},
				9:  {"G FFC7CE", "J:K FFC7CE"},
				10: {"F FFEB9C", "N FFC7CE"},
				11: nil,
				18: {"L FFC7CE"},
				19: nil,
				20: {"L FFC7CE"},
				21: {"I FFEB9C"},
				26: nil,
				34: {"N FFC7CE"},
			},
		},
		{
			Template: "preference-likert", Input: "preference/preference_json_1.json",
			Cells: []LiveCell{
				// Not yet rated: not started.
				{2, "q:first_prediction_likert", 0}, {2, "q:second_prediction_likert", 0}, {2, "q:third_prediction_likert", 0}, {2, "annotator", "AK"},
				{3, "q:best_prediction_reference", "First prediction"}, {3, "q:first_prediction_likert", 0}, {3, "annotator", "AK"},
				{4, "q:best_prediction_reference", "Second prediction"}, {4, "q:best_prediction_topic", "Third prediction"},
				{4, "q:first_prediction_likert", 4}, {4, "q:second_prediction_likert", "5"}, {4, "q:third_prediction_likert", 1}, {4, "annotator", "AK"},
				{5, "q:first_prediction_likert", 7},
			},
			Check: map[int]string{
				3: "Best prediction (topic) missing; First prediction likert missing; Second prediction likert missing; Third prediction likert missing",
				5: "Best prediction (reference) missing; Best prediction (topic) missing; Second prediction likert missing; Third prediction likert missing; Annotator ID missing",
			},
			Colours: map[int][]string{
				2: nil,
				3: {"G FFEB9C", "H FFEB9C", "I FFEB9C", "J FFEB9C"},
				4: nil,
			},
		},
		{
			// A scheme of a coordinator's own: comparisons on a scale, a
			// checkbox's "no", a cell of codes.
			Template: "severity", Source: severityTemplate,
			Input: `{"id": "r1", "text": "a"}
{"id": "r2", "text": "b"}
{"id": "r3", "text": "c"}
{"id": "r4", "text": "d"}
{"id": "r5", "text": "e"}
{"id": "r6", "text": "f"}
`,
			Cells: []LiveCell{
				{2, "q:severity", 3}, {2, "annotator", "AK"},
				{3, "q:severity", "5"}, {3, "q:rationale", "wrong year"}, {3, "q:escalate", true}, {3, "annotator", "AK"},
				{4, "q:severity", 2}, {4, "q:escalate", true}, {4, "annotator", "AK"},
				{5, "q:severity", 0}, {5, "q:tags", "a; B"}, {5, "q:escalate", "no"}, {5, "annotator", "AK"},
				// Off the scale: pull's error; no comparison holds on it.
				{6, "q:severity", 7}, {6, "annotator", "AK"},
				{7, "q:severity", 4}, {7, "q:rationale", "x"}, {7, "q:escalate", "yes"}, {7, "q:tags", "b"}, {7, "annotator", "AK"},
			},
			Check: map[int]string{
				2: "rationale needed",
				4: "escalate only 4 or 5",
				5: "Severity missing; escalate only 4 or 5; b needs escalation",
			},
			Colours: map[int][]string{
				2: {"D FFC7CE"},
				3: nil,
				4: {"C FFEB9C"},
				5: {"C FFEB9C", "F FFC7CE"},
				6: nil,
				7: nil,
			},
		},
	}
}

// severityTemplate rates each text's errors on a scale.
const severityTemplate = `name: severity
version: 1
title: Severity
instructions: Rate each text.
input: {id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: severity, header: Severity, type: scale, min: 1, max: 5, unanswered: 0, required: true}
  - {name: rationale, header: Rationale, type: text}
  - {name: escalate, header: Escalate, type: bool}
  - {name: tags, header: Tags, type: multi, render: list, options: [{code: a, label: Alpha}, {code: b, label: Beta}]}
rules:
  - require: rationale
    when: {question: severity, at_least: 3}
    message: a severity of 3 or more needs a rationale
    check: rationale needed
  - allow: escalate
    only_when: {question: severity, at_least: 4, at_most: 5}
    severity: warning
    message: escalate only severities 4 and 5
    check: escalate only 4 or 5
  - when: {question: escalate, any_of: ["false"]}
    then: {question: tags, none_of: [b]}
    message: tag b only what is escalated
    check: b needs escalation
`
