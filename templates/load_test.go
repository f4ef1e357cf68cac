package templates

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// errorList returns the problems in err, failing the test if err is not an
// ErrorList. They come as a plain slice so that cmp.Diff shows them one by
// one.
func errorList(t *testing.T, err error) []*Error {
	t.Helper()
	if err == nil {
		return nil
	}
	var l ErrorList
	if !errors.As(err, &l) {
		t.Fatalf("error %v (%T) is not an ErrorList", err, err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("error %v does not wrap ErrInvalid", err)
	}
	return []*Error(l)
}

// edit applies old/new replacements to src; each old must occur exactly once.
func edit(t *testing.T, src string, pairs ...string) string {
	t.Helper()
	if len(pairs)%2 != 0 {
		t.Fatalf("edit: odd number of strings")
	}
	for i := 0; i < len(pairs); i += 2 {
		if n := strings.Count(src, pairs[i]); n != 1 {
			t.Fatalf("edit: %q occurs %d times in the template, want once", pairs[i], n)
		}
		src = strings.Replace(src, pairs[i], pairs[i+1], 1)
	}
	return src
}

// base is a small valid template; the tests below break it one way at a
// time. Line numbers of its sections are noted for the expected errors.
const base = `name: base
version: 1
title: Base template
instructions: Judge each answer.
input:
  format: jsonl
  id: "{id}"
rows:
  per: record
context:
  - name: question
    header: Question
    path: question
  - name: answer
    header: Answer
    path: answer
questions:
  - name: label
    header: Label
    type: choice
    options:
      - code: good
        label: Good
      - code: bad
        label: Bad
  - name: span
    header: Span
    type: span
    field: answer
  - name: score
    header: Score
    type: scale
    min: 1
    max: 5
rules:
  - when: {question: label, any_of: [bad]}
    then: {question: span, answered: true}
export:
  format: jsonl
  fields:
    id: {input: id}
    label: {value: label}
`

// Lines of base: 1 name, 9 rows (the mapping starts at "per"), 11 and 14
// the context columns, 18, 26 and 30 the questions, 22 and 24 the options,
// 36 the rule, 39 export, 41 and 42 its fields; 43 is the first line after.

func TestBaseLoads(t *testing.T) {
	tp, err := Load("t.yaml", []byte(base))
	if err != nil {
		t.Fatalf("Load(base): %v", err)
	}
	type col struct{ Key, Header, Role string }
	var got []col
	for _, c := range tp.Columns() {
		got = append(got, col{c.Key, c.Header, c.Role})
	}
	want := []col{
		{"id", "ID", RoleID},
		{"context:question", "Question", RoleContext},
		{"context:answer", "Answer", RoleContext},
		{"q:label", "Label", RoleAnswer},
		{"q:span", "Span", RoleAnswer},
		{"q:score", "Score", RoleAnswer},
		{"annotator", "Annotator ID", RoleAnnotator},
		{"check", "Check", RoleCheck},
		{"unit", "Unit", RoleUnit},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Columns() (-want +got):\n%s", d)
	}
	// Defaults filled in by the check.
	checks := []struct {
		what      string
		got, want any
	}{
		{"summary", tp.Summary, "Base template"},
		{"annotator position", tp.Annotator.Position, "right"},
		{"annotator claim", tp.Annotator.Claim, ClaimRow},
		{"bands key", tp.Bands.Key, []string{"{$id}"}},
		{"bands columns", tp.Bands.Columns, "row"},
		{"bands palette", tp.Bands.Palette, DefaultPalette},
		{"export include", tp.Export.Include, "answered"},
		{"rule severity", tp.Rules[0].Severity, SeverityError},
		{"rule message", tp.Rules[0].Message, `when "Label" is one of bad (Bad), "Span" is answered`},
		{"question scope", tp.Questions[0].Scope, "row"},
		{"choice width", tp.Questions[0].Width, 22.0},
		{"span width", tp.Questions[1].Width, 40.0},
		{"scale width", tp.Questions[2].Width, 14.0},
		{"context width", tp.Context[0].Width, 50.0},
		{"context show", tp.Context[0].Show, ShowHead},
		{"id width", tp.Rows.IDWidth, 16.0},
		{"lines", []int{tp.Input.Line, tp.Rows.Line, tp.Context[1].Line, tp.Questions[2].Line, tp.Questions[0].Options[1].Line, tp.Rules[0].Line, tp.Export.Line}, []int{6, 9, 14, 30, 24, 36, 39}},
		{"source", string(tp.Source), base},
		{"file", tp.File, "t.yaml"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v; want %#v", c.what, c.got, c.want)
		}
	}
}

// TestLoadErrors breaks the base template and expects every problem, with
// its line, in order.
func TestLoadErrors(t *testing.T) {
	type e struct {
		line int
		msg  string
	}
	tests := []struct {
		name   string
		edits  []string // old, new, old, new …, applied to base
		src    string   // instead of base and edits
		params map[string]string
		want   []e
	}{
		{
			name:  "yaml syntax error",
			edits: []string{"    header: Label\n", "    header: Label: x\n"},
			want:  []e{{19, "mapping values are not allowed in this context"}},
		},
		{
			name: "empty template",
			src:  "# nothing but a comment\n",
			want: []e{{0, "template is empty"}},
		},
		{
			name: "not a mapping",
			src:  "- name: base\n",
			want: []e{{1, "expected a mapping for template, got a list"}},
		},
		{
			name:  "unknown field with a suggestion",
			edits: []string{"    header: Answer\n", "    heder: Answer\n"},
			want:  []e{{15, `unknown field "heder" in context (did you mean "header"?)`}},
		},
		{
			name:  "unknown field inside a question option",
			edits: []string{"        label: Bad\n", "        lable: Bad\n"},
			want:  []e{{25, `unknown field "lable" in option (did you mean "label"?)`}},
		},
		{
			name:  "unknown field far from every known one",
			edits: []string{"        label: Bad\n", "        colour: red\n"},
			want:  []e{{25, `unknown field "colour" in option (known fields: code, description, header, label)`}},
		},
		{
			name:  "unknown fields at several depths",
			edits: []string{"title: Base template\n", "titel: Base template\n", "    max: 5\n", "    mx: 5\n"},
			want: []e{
				{3, `unknown field "titel" in template (did you mean "title"?)`},
				{34, `unknown field "mx" in question (did you mean "max"?)`},
			},
		},
		{
			name:  "text where a whole number is expected",
			edits: []string{"    min: 1\n", "    min: one\n"},
			want:  []e{{33, `expected a whole number, got "one"`}},
		},
		{
			name:  "text where true or false is expected",
			edits: []string{"    type: choice\n", "    type: choice\n    required: maybe\n"},
			want:  []e{{21, `expected true or false, got "maybe"`}},
		},
		{
			name:  "list where text is expected",
			edits: []string{"title: Base template\n", "title: [Base, template]\n"},
			want:  []e{{3, "expected text, got a list"}},
		},
		{
			name:  "text where a mapping is expected",
			edits: []string{"rows:\n  per: record\n", "rows: record\n"},
			want:  []e{{8, `expected a mapping for rows, got "record"`}},
		},
		{
			name:  "mapping where a list is expected",
			edits: []string{"      - code: good\n        label: Good\n      - code: bad\n        label: Bad\n", "      code: good\n"},
			want:  []e{{22, "expected a list, got a mapping"}},
		},
		{
			name:  "missing name, title and instructions",
			edits: []string{"name: base\n", "", "title: Base template\n", "", "instructions: Judge each answer.\n", ""},
			want: []e{
				{1, "name is missing"},
				{1, "title is missing"},
				{1, "instructions are missing: annotators need them on the Instructions sheet"},
			},
		},
		{
			name:  "bad name and version",
			edits: []string{"name: base\n", "name: My Template\n", "version: 1\n", "version: 0\n"},
			want: []e{
				{1, `name "My Template" must be lower-case letters, digits, '.', '_' or '-' (it names files)`},
				{1, "version must be a whole number of 1 or more"},
			},
		},
		{
			name:  "bad input format and no id",
			edits: []string{"  format: jsonl\n  id: \"{id}\"\n", "  format: csv\n"},
			want: []e{
				{6, `input format "csv" is not one of jsonl, json, factgenie, auto`},
				{6, `input id is missing: say how records are identified, e.g. "{id}", "{$key}" or "r{$i:04}"`},
			},
		},
		{
			name:  "input id from a root it cannot use",
			edits: []string{`  id: "{id}"`, `  id: "{$id}-{@.x}"`},
			want: []e{
				{6, `input id: "$id" cannot be used here; use a field of the record, $key, $i, $n`},
				{6, `input id: "@.x" cannot be used here; use a field of the record, $key, $i, $n`},
			},
		},
		{
			name:  "duplicate question names",
			edits: []string{"  - name: score\n", "  - name: label\n"},
			want:  []e{{30, `question "label" is declared twice`}},
		},
		{
			name:  "bad question name, missing type, unknown type",
			edits: []string{"    type: scale\n", "    type: likert\n", "rules:\n", "  - name: the note\n    type: text\n  - name: other\nrules:\n"},
			want: []e{
				{30, `question "score": type "likert" is not one of choice, multi, scale, bool, text, span, evidence`},
				{35, `question name "the note" must be letters, digits and _ (it is a JSON key)`},
				{37, `question "other": type is missing (choice, multi, scale, bool, text, span or evidence)`},
			},
		},
		{
			name:  "choice without options",
			edits: []string{"    options:\n      - code: good\n        label: Good\n      - code: bad\n        label: Bad\n", ""},
			want: []e{
				{18, `question "label": a choice question needs options`},
				{31, `condition on "label": no option with code "bad"`},
			},
		},
		{
			name:  "duplicate option codes",
			edits: []string{"      - code: bad\n", "      - code: good\n"},
			want: []e{
				{24, `question "label": code "good" is used twice`},
				{36, `condition on "label": no option with code "bad"`},
			},
		},
		{
			name:  "labels differing only in case",
			edits: []string{"        label: Bad\n", "        label: GOOD\n"},
			want:  []e{{24, `question "label": label "GOOD" is used twice (labels must differ in more than case)`}},
		},
		{
			name:  "option code with spaces around it, option header on a choice",
			edits: []string{"      - code: bad\n", "      - code: \" bad\"\n        header: B\n"},
			want: []e{
				{24, `question "label": code " bad" has spaces around it`},
				{24, `question "label": option header applies to multi questions only`},
				{37, `condition on "label": no option with code "bad"`},
			},
		},
		{
			name:  "scale with min equal to max",
			edits: []string{"    min: 1\n", "    min: 5\n"},
			want:  []e{{30, `question "score": min 5 must be below max 5`}},
		},
		{
			name:  "scale with min above max",
			edits: []string{"    min: 1\n", "    min: 9\n"},
			want:  []e{{30, `question "score": min 9 must be below max 5`}},
		},
		{
			name:  "scale without min",
			edits: []string{"    min: 1\n", ""},
			want:  []e{{30, `question "score": a scale needs min and max`}},
		},
		{
			name:  "scale with unanswered inside the range",
			edits: []string{"    max: 5\n", "    max: 5\n    unanswered: 3\n"},
			want:  []e{{30, `question "score": unanswered 3 lies inside the scale 1–5, so it could not be told from an answer`}},
		},
		{
			name:  "scale with unanswered on its edge",
			edits: []string{"    max: 5\n", "    max: 5\n    unanswered: 1\n"},
			want:  []e{{30, `question "score": unanswered 1 lies inside the scale 1–5, so it could not be told from an answer`}},
		},
		{
			name:  "span field naming no context column",
			edits: []string{"    field: answer\n", "    field: answr\n"},
			want:  []e{{26, `question "span": field "answr" names no context column`}},
		},
		{
			name:  "span before naming a non-span question",
			edits: []string{"    field: answer\n", "    field: answer\n    before: label\n"},
			want:  []e{{26, `question "span": before must name a span question on the same field ("answer")`}},
		},
		{
			name:  "span before naming no question",
			edits: []string{"    field: answer\n", "    field: answer\n    before: earlier\n"},
			want:  []e{{26, `question "span": before names no question "earlier"`}},
		},
		{
			name:  "span before naming itself",
			edits: []string{"    field: answer\n", "    field: answer\n    before: span\n"},
			want:  []e{{26, `question "span": before names itself`}},
		},
		{
			name:  "span settings on other types",
			edits: []string{"    type: choice\n", "    type: choice\n    field: answer\n    occurrence: true\n    min: 1\n"},
			want: []e{
				{18, `question "label": min does not apply to type choice`},
				{18, `question "label": field does not apply to type choice`},
				{18, `question "label": occurrence does not apply to type choice`},
			},
		},
		{
			name:  "evidence without passages",
			edits: []string{"rules:\n", "  - name: evidence\n    header: Evidence\n    type: evidence\nrules:\n"},
			want:  []e{{35, `question "evidence": evidence needs passages, the path of the passages it points into`}},
		},
		{
			name:  "evidence with a bad passages path",
			edits: []string{"rules:\n", "  - name: evidence\n    type: evidence\n    passages: \"p[x]\"\nrules:\n"},
			want:  []e{{35, `question "evidence" passages: path "p[x]": [x] is neither an index, * nor a quoted key`}},
		},
		{
			name:  "question scope block outside per: block",
			edits: []string{"    type: scale\n", "    type: scale\n    scope: block\n"},
			want:  []e{{30, `question "score": scope block needs rows per: block`}},
		},
		{
			name:  "rule with two forms at once",
			edits: []string{"    then: {question: span, answered: true}\n", "    then: {question: span, answered: true}\n    require: score\n"},
			want:  []e{{36, "rule: write exactly one of when/then, require/when, allow/only_when, question/exclusive"}},
		},
		{
			name:  "rule with no form",
			edits: []string{"    then: {question: span, answered: true}\n", ""},
			want:  []e{{36, "rule: write exactly one of when/then, require/when, allow/only_when, question/exclusive"}},
		},
		{
			name:  "rule shorthands without their condition",
			edits: []string{"    then: {question: span, answered: true}\n", "    then: {question: span, answered: true}\n  - require: span\n  - allow: span\n  - exclusive: good\n"},
			want: []e{
				{38, "rule: require needs a when"},
				{39, "rule: allow needs an only_when"},
				{40, "rule: exclusive needs a question"},
			},
		},
		{
			name:  "rule condition naming an unknown question",
			edits: []string{"{question: span, answered: true}", "{question: spam, answered: true}"},
			want:  []e{{37, `condition names no question "spam"`}},
		},
		{
			name:  "rule condition naming an unknown option code",
			edits: []string{"any_of: [bad]", "any_of: [bad, ugly]"},
			want:  []e{{36, `condition on "label": no option with code "ugly"`}},
		},
		{
			name:  "rule condition with two tests, and a test on a scale",
			edits: []string{"{question: span, answered: true}", "{question: span, answered: true, any_of: [x]}\n  - when: {question: score, any_of: [\"1\"]}\n    then: {question: label, all_of: [good]}"},
			want: []e{
				{37, `condition on "span" needs exactly one of answered, any_of, all_of, none_of, only, at_least/at_most`},
				{38, `condition on "score": a scale question can only be tested with answered, at_least and at_most`},
				{39, `condition on "label": all_of applies to multi questions`},
			},
		},
		{
			name:  "at_least and at_most off a scale, or past it",
			edits: []string{"{question: span, answered: true}", "{question: span, at_least: 2}\n  - when: {question: score, at_least: 4, at_most: 3}\n    then: {question: label, answered: true}\n  - when: {question: score, at_most: 0}\n    then: {question: label, answered: true}\n  - when: {question: score, at_least: 2, answered: true}\n    then: {question: label, answered: true}"},
			want: []e{
				{37, `condition on "span": at_least and at_most apply to scale questions, not span`},
				{38, `condition on "score": no answer on the scale 1–5 is from 4 to 3`},
				{40, `condition on "score": no answer on the scale 1–5 is 0 or less`},
				{42, `condition on "score" needs exactly one of answered, any_of, all_of, none_of, only, at_least/at_most`},
			},
		},
		{
			name:  "bad severity",
			edits: []string{"    then: {question: span, answered: true}\n", "    then: {question: span, answered: true}\n    severity: fatal\n"},
			want:  []e{{36, `rule: severity "fatal" is not error or warning`}},
		},
		{
			name:  "first_row_only outside per: element",
			edits: []string{"    path: answer\n", "    path: answer\n    first_row_only: true\n"},
			want:  []e{{14, `context "answer": first_row_only applies to rows per: element`}},
		},
		{
			name:  "show neither head nor tail",
			edits: []string{"    path: answer\n", "    path: answer\n    show: end\n"},
			want:  []e{{14, `context "answer": show "end" is not head or tail (the part of a long text its cell shows)`}},
		},
		{
			name:  "per: element without path",
			edits: []string{"  per: record\n", "  per: element\n"},
			want:  []e{{9, "rows: per: element needs the path of the list whose elements get a row each"}},
		},
		{
			name:  "per: block without answer rows",
			edits: []string{"  per: record\n", "  per: block\n"},
			want: []e{
				{9, "rows: per: block needs answer_rows between 1 and 1000"},
				{42, `export value "label" is asked per answer row; read it inside each: spans`},
			},
		},
		{
			name: "unknown per, missing context and questions",
			src:  "name: x\nversion: 1\ntitle: X\ninstructions: I\ninput:\n  id: \"{id}\"\nrows:\n  per: row\n",
			want: []e{
				{1, "context is missing: annotators need something to judge"},
				{1, "questions are missing: annotators need something to answer"},
				{8, `rows: per "row" is not one of record, element, block`},
			},
		},
		{
			name: "anonymised field shown in a context column",
			edits: []string{
				"rows:\n", "anonymize:\n  - field: system\n    as: system_label\nrows:\n",
				"    path: answer\n", "    path: system\n",
			},
			want: []e{{17, `context "answer" would show system, which is anonymised; show its label instead`}},
		},
		{
			name: "anonymised field shown by the object holding it",
			edits: []string{
				"rows:\n", "anonymize:\n  - field: meta.system\n    as: system_label\nrows:\n",
				"    path: answer\n", "    path: meta\n",
			},
			want: []e{{17, `context "answer" would show meta.system, which is anonymised; show its label instead`}},
		},
		{
			name: "anonymised field shown through a quoted path",
			edits: []string{
				"rows:\n", "anonymize:\n  - field: meta.system\n    as: system_label\nrows:\n",
				"    path: answer\n", "    path: '[\"meta\"][\"system\"]'\n",
			},
			want: []e{{17, `context "answer" would show meta.system, which is anonymised; show its label instead`}},
		},
		{
			name: "anonymised field read by the id and a bands key",
			edits: []string{
				`  id: "{id}"` + "\n", `  id: "{id}/{system}"` + "\n",
				"rows:\n", "anonymize:\n  - field: system\n    as: system_label\nrows:\n",
				"    label: {value: label}\n", "    label: {value: label}\nbands:\n  key: [\"{system}\"]\n",
			},
			want: []e{
				{6, `input id "{id}/{system}" would show system, which is anonymised; use its label`},
				{47, `bands key "{system}" reads system, which is anonymised`},
			},
		},
		{
			name:  "anonymize settings",
			edits: []string{"rows:\n", "anonymize:\n  - field: \"@.who\"\n    as: a b\n    labels: roman\n  - field: \"x[0]\"\n    as: a b\nrows:\n"},
			want: []e{
				{9, `anonymize field "@.who": @ needs rows per: element`},
				{9, `anonymize as "a b" must be a field name (letters, digits, _)`},
				{9, `anonymize labels "roman" is not letters or numbers`},
				{12, `anonymize field "x[0]" must end in a key`},
				{12, `anonymize as "a b" must be a field name (letters, digits, _)`},
				{12, `anonymize as "a b" is used twice`},
			},
		},
		{
			name:  "bands palette with one colour",
			edits: []string{"    label: {value: label}\n", "    label: {value: label}\nbands:\n  palette: [FFFFFF]\n"},
			want:  []e{{44, "bands palette needs at least two colours, or neighbouring groups would look the same"}},
		},
		{
			name:  "bands palette with a bad hex colour",
			edits: []string{"    label: {value: label}\n", "    label: {value: label}\nbands:\n  palette: [FFFFFF, \"#00FF00\", ABCDEG]\n"},
			want: []e{
				{44, `bands palette colour "#00FF00" is not RRGGBB hex`},
				{44, `bands palette colour "ABCDEG" is not RRGGBB hex`},
			},
		},
		{
			name:  "bands palette with one bad colour",
			edits: []string{"    label: {value: label}\n", "    label: {value: label}\nbands:\n  palette: [red]\n"},
			want: []e{
				{44, "bands palette needs at least two colours, or neighbouring groups would look the same"},
				{44, `bands palette colour "red" is not RRGGBB hex`},
			},
		},
		{
			name:  "context header equal to a question header",
			edits: []string{"    header: Question\n", "    header: label\n"},
			want:  []e{{18, `two columns have the header "Label"; pull finds columns by header, so headers must differ`}},
		},
		{
			name:  "blank question header",
			edits: []string{"    header: Score\n", "    header: \" \"\n"},
			want:  []e{{30, "a column has an empty header"}},
		},
		{
			name:  "export json-object without key",
			edits: []string{"  format: jsonl\n  fields:\n", "  format: json-object\n  fields:\n"},
			want:  []e{{39, "export format json-object needs key, the expression giving each record's key"}},
		},
		{
			name:  "export without fields, bad from and include",
			edits: []string{"  fields:\n    id: {input: id}\n    label: {value: label}\n", "  from: output\n  include: some\n"},
			want: []e{
				{39, `export from "output" is not input (or empty)`},
				{39, `export include "some" is not answered or all`},
				{39, "export fields are missing"},
			},
		},
		{
			name:  "export value naming an unknown question",
			edits: []string{"    label: {value: label}\n", "    label: {value: lable}\n"},
			want:  []e{{42, `export value "lable" names no question`}},
		},
		{
			name:  "export value with two sources, a bad meta and a bad as",
			edits: []string{"    label: {value: label}\n", "    label: {value: label, input: x}\n    who: {meta: name}\n    n: {value: score, as: float}\n"},
			want: []e{
				{42, "export value needs exactly one of input, element, value, meta, object, each, json, cases (or a constant)"},
				{43, `export meta "name" is not one of unit, item, annotator, batch, status`},
				{44, `export as "float" is not int, ints, string or strings`},
			},
		},
		{
			name:  "export each: spans outside per: block",
			edits: []string{"    label: {value: label}\n", "    label: {each: spans, item: {value: label}}\n"},
			want:  []e{{42, "export each: spans needs rows per: block"}},
		},
		{
			name:  "export element outside per: element, key given twice",
			edits: []string{"    label: {value: label}\n", "    label: {element: text}\n    label: {value: label}\n"},
			want: []e{
				{43, `"label" is given twice (first on line 42)`},
			},
		},
		{
			name:  "parameter reference to an undeclared parameter",
			edits: []string{"    path: question\n", "    path: ${nope}\n"},
			want:  []e{{11, `context "question" path: "${nope}": unknown parameter "nope"`}},
		},
		{
			name:  "parameter reference without its closing brace",
			edits: []string{"    path: question\n", "    path: ${nope\n"},
			want:  []e{{11, `context "question" path: "${nope": ${ without a closing }`}},
		},
		{
			name:   "unknown --param override, template without parameters",
			params: map[string]string{"nope": "x"},
			want:   []e{{0, `no parameter "nope" (this template has no parameters)`}},
		},
		{
			name: "unknown --param override",
			edits: []string{
				"input:\n", "params:\n  - name: field\n    default: answer\ninput:\n",
				"    path: answer\n", "    path: ${field}\n",
			},
			params: map[string]string{"feild": "x"},
			want:   []e{{0, `no parameter "feild" (this template has: field)`}},
		},
		{
			name:  "bad and duplicate parameter names",
			edits: []string{"input:\n", "params:\n  - name: a\n  - name: a\n  - name: b-c\ninput:\n"},
			want: []e{
				{7, `parameter "a" is declared twice`},
				{8, `parameter name "b-c" must be letters, digits and _`},
			},
		},
		{
			name:  "annotator settings",
			edits: []string{"    label: {value: label}\n", "    label: {value: label}\nannotator:\n  position: middle\n  claim: everything\n"},
			want: []e{
				{44, `annotator position "middle" is not right or left`},
				{44, `annotator claim "everything" is not row or instance`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if src == "" {
				src = edit(t, base, tt.edits...)
			}
			tp, err := LoadWithParams("t.yaml", []byte(src), tt.params)
			if err == nil {
				t.Fatalf("Load succeeded (template %q); want errors\n%s", tp.Name, src)
			}
			if tp != nil {
				t.Errorf("Load returned a template with its errors")
			}
			var want []*Error
			for _, w := range tt.want {
				want = append(want, &Error{File: "t.yaml", Line: w.line, Msg: w.msg})
			}
			if d := cmp.Diff(want, errorList(t, err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// TestLoadVariants are edits of base that must load.
func TestLoadVariants(t *testing.T) {
	tests := []struct {
		name  string
		edits []string
	}{
		{"flow options", []string{"    options:\n      - code: good\n        label: Good\n      - code: bad\n        label: Bad\n", "    options: [{code: good}, {code: bad}]\n"}},
		{"anonymised field shown as its label", []string{
			"rows:\n", "anonymize:\n  - field: meta.system\n    as: system_label\nrows:\n",
			"    path: answer\n", "    path: system_label\n",
		}},
		{"anonymised field's neighbour", []string{
			"rows:\n", "anonymize:\n  - field: meta.system\n    as: system_label\nrows:\n",
			"    path: answer\n", "    path: meta.date\n",
		}},
		{"rule shorthands", []string{"    then: {question: span, answered: true}\n", "    then: {question: span, answered: true}\n" +
			"  - require: score\n    when: {question: label, any_of: [good]}\n" +
			"  - allow: span\n    only_when: {not: {question: label, none_of: [bad]}}\n    severity: warning\n" +
			"  - question: label\n    exclusive: good\n"}},
		{"unanswered below the scale", []string{"    max: 5\n", "    max: 5\n    unanswered: 0\n"}},
		{"per: element", []string{"  per: record\n", "  per: element\n  path: answers\n  order_by: [\"@.rank\"]\n"}},
		{"per: block", []string{
			"  per: record\n", "  per: block\n  answer_rows: 3\n",
			"    label: {value: label}\n", "    errors: {each: spans, where: {question: span, answered: true}, item: {value: label}}\n",
		}},
		{"json-object export", []string{"  format: jsonl\n  fields:\n", "  format: json-object\n  key: {input: $key}\n  fields:\n"}},
		{"parameter", []string{
			"input:\n", "params:\n  - name: field\n    default: answer\ninput:\n",
			"    path: answer\n", "    path: ${field}\n",
		}},
		{"yaml anchors", []string{"  - name: question\n", "  - &q\n    name: question\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := edit(t, base, tt.edits...)
			if _, err := Load("t.yaml", []byte(src)); err != nil {
				t.Errorf("Load: %v\n%s", err, src)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&Error{File: "a.yaml", Line: 3, Msg: "bad"}, "a.yaml:3: bad"},
		{&Error{File: "a.yaml", Msg: "bad"}, "a.yaml: bad"},
		{&Error{Line: 2, Msg: "bad"}, "template:2: bad"},
		{ErrorList{}, "no errors"},
		{ErrorList{{File: "a.yaml", Line: 1, Msg: "x"}}, "a.yaml:1: x"},
		{ErrorList{{File: "a.yaml", Line: 1, Msg: "x"}, {File: "a.yaml", Line: 9, Msg: "y"}}, "a.yaml:1: x\na.yaml:9: y"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q; want %q", tt.err, got, tt.want)
		}
		if l, ok := tt.err.(ErrorList); ok && len(l) == 0 {
			continue
		}
		if !errors.Is(tt.err, ErrInvalid) {
			t.Errorf("errors.Is(%q, ErrInvalid) = false", tt.err)
		}
	}
}

func TestLoadSize(t *testing.T) {
	big := append([]byte("name: x\n# "), bytes.Repeat([]byte("a"), MaxSize)...)
	_, err := Load("big.yaml", big)
	want := []*Error{{File: "big.yaml", Msg: fmt.Sprintf("template is %d bytes; templates are limited to %d", len(big), MaxSize)}}
	if d := cmp.Diff(want, errorList(t, err)); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

// (a) Every built-in loads, and its columns have unique, non-empty headers
// and unique keys.
func TestBuiltins(t *testing.T) {
	names := BuiltinNames()
	want := []string{"factgenie-meta-eval", "legal-gaps", "preference-likert", "qa-span-errors"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("BuiltinNames() (-want +got):\n%s", d)
	}
	for _, name := range names {
		tp, err := Builtin(name)
		if err != nil {
			t.Errorf("Builtin(%q): %v", name, err)
			continue
		}
		src, ok := BuiltinSource(name)
		if !ok || !bytes.Equal(src, tp.Source) {
			t.Errorf("BuiltinSource(%q) = %d bytes, %v; want the template's source", name, len(src), ok)
		}
		if tp.Name != name || tp.File != "builtin:"+name || tp.Version < 1 {
			t.Errorf("Builtin(%q): name %q, file %q, version %d", name, tp.Name, tp.File, tp.Version)
		}
		headers, keys := map[string]bool{}, map[string]bool{}
		for _, c := range tp.Columns() {
			h := strings.ToLower(strings.TrimSpace(c.Header))
			if h == "" || headers[h] {
				t.Errorf("%s: column %s has an empty or repeated header %q", name, c.Key, c.Header)
			}
			if keys[c.Key] {
				t.Errorf("%s: column key %s is repeated", name, c.Key)
			}
			headers[h], keys[c.Key] = true, true
		}
	}
	// The legal guideline's first question is whether the generation
	// continues the end of the previous context: its cell shows the end.
	if tp, err := Builtin("legal-gaps"); err == nil {
		for _, cx := range tp.Context {
			want := ShowHead
			if cx.Name == "previous_context" {
				want = ShowTail
			}
			if cx.Show != want {
				t.Errorf("legal-gaps: context %s shows %q; want %q", cx.Name, cx.Show, want)
			}
		}
	}
	if _, err := Builtin("nope"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Builtin(nope) = %v; want ErrUnknown", err)
	}
	if _, ok := BuiltinSource("nope"); ok {
		t.Errorf("BuiltinSource(nope) reported a template")
	}
}

// (d) Parameters are substituted into paths.
func TestParams(t *testing.T) {
	src, err := os.ReadFile("../testdata/templates/mqm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		params map[string]string
		path   string
		segs   []Seg
	}{
		{nil, "mt", segs(sk("mt"))},
		{map[string]string{}, "mt", segs(sk("mt"))},
		{map[string]string{"target": "hyp"}, "hyp", segs(sk("hyp"))},
		{map[string]string{"target": "systems.b[0]"}, "systems.b[0]", segs(sk("systems"), sk("b"), si(0))},
		{map[string]string{"target": "output 2"}, "output 2", segs(sk("output 2"))},
	}
	for _, tt := range tests {
		tp, err := LoadWithParams("mqm.yaml", src, tt.params)
		if err != nil {
			t.Errorf("LoadWithParams(%v): %v", tt.params, err)
			continue
		}
		cx := tp.ContextByName("translation")
		if p := cx.ValuePath(); p.String() != tt.path || !reflect.DeepEqual(p.Segs, tt.segs) {
			t.Errorf("LoadWithParams(%v): translation path %q %#v; want %q %#v", tt.params, p.String(), p.Segs, tt.path, tt.segs)
		}
		if cx.Path != "${target}" {
			t.Errorf("LoadWithParams(%v): the written path became %q", tt.params, cx.Path)
		}
		if got, want := tp.ParamValues(), map[string]string{"target": tt.path}; !reflect.DeepEqual(got, want) {
			t.Errorf("ParamValues() = %v; want %v", got, want)
		}
	}

	// A value that makes a bad path is reported where the path is.
	_, err = LoadWithParams("mqm.yaml", src, map[string]string{"target": "a..b"})
	want := []*Error{{File: "mqm.yaml", Line: 32, Msg: `context "translation" path: path "a..b": empty key`}}
	if d := cmp.Diff(want, errorList(t, err)); d != "" {
		t.Errorf("bad parameter value (-want +got):\n%s", d)
	}

	// The built-in qa-span-errors judges "prediction 1" unless told otherwise.
	for _, tt := range []struct {
		params map[string]string
		want   string
	}{
		{nil, "prediction 1"},
		{map[string]string{"prediction": "prediction 3"}, "prediction 3"},
	} {
		tp, err := BuiltinWithParams("qa-span-errors", tt.params)
		if err != nil {
			t.Fatalf("BuiltinWithParams(qa-span-errors, %v): %v", tt.params, err)
		}
		if p := tp.ContextByName("prediction").ValuePath(); !reflect.DeepEqual(p.Segs, segs(sk(tt.want))) {
			t.Errorf("qa-span-errors %v: prediction path %#v; want key %q", tt.params, p.Segs, tt.want)
		}
	}
}

// (e) The built-ins carry the categories and codes of the original
// guidelines exactly.
func TestBuiltinGuidelines(t *testing.T) {
	type want struct {
		typ    string
		codes  []string // nil: not part of the guideline
		labels []string // nil: not part of the guideline
		min    int      // scales
		max    int
		unans  int
	}
	tests := map[string]map[string]want{
		"legal-gaps": {
			"gaps": {
				typ:    TypeMulti,
				codes:  []string{"0", "1", "2", "3"},
				labels: []string{"No gap", "Intrinsic error/LLM error", "Target Mismatch", "Citation Error"},
			},
		},
		"qa-span-errors": {
			"error_type": {
				typ: TypeChoice,
				codes: []string{"Irrelevant", "Redundant", "Incoherent", "Wrong-Grounding", "Unverifiable",
					"Missing-Answer", "Missing-Major-Auxiliary", "Missing-Minor-Auxiliary"},
				labels: []string{"Irrelevant", "Repetitive", "Incoherent", "Inconsistent Fact", "Unverifiable Fact",
					"Missing Answer", "Missing Major Auxiliary Information", "Missing Minor Auxiliary Information"},
			},
		},
		"factgenie-meta-eval": {
			"span_ok": {
				typ:    TypeChoice,
				labels: []string{"Error", "Not an error", "No span given", "Hallucination"},
			},
			"explanation_ok": {
				typ:    TypeChoice,
				labels: []string{"Correct", "Partially correct", "Incomplete", "Vague", "Incorrect", "Not an error"},
			},
			"flags": {
				typ:    TypeMulti,
				labels: []string{"Too strict", "Not aspect related", "Repeated", "Hard to parse", "Implicit span"},
			},
		},
		"preference-likert": {
			"best_prediction_reference": {typ: TypeChoice, codes: []string{"first", "second", "third"}},
			"best_prediction_topic":     {typ: TypeChoice, codes: []string{"first", "second", "third"}},
			"first_prediction_likert":   {typ: TypeScale, min: 1, max: 5},
			"second_prediction_likert":  {typ: TypeScale, min: 1, max: 5},
			"third_prediction_likert":   {typ: TypeScale, min: 1, max: 5},
		},
	}
	for name, questions := range tests {
		tp, err := Builtin(name)
		if err != nil {
			t.Errorf("Builtin(%q): %v", name, err)
			continue
		}
		for qname, w := range questions {
			q := tp.QuestionByName(qname)
			if q == nil {
				t.Errorf("%s: no question %q", name, qname)
				continue
			}
			if q.Type != w.typ {
				t.Errorf("%s %s: type %q; want %q", name, qname, q.Type, w.typ)
			}
			var codes, labels []string
			for _, o := range q.Options {
				codes, labels = append(codes, o.Code), append(labels, o.Label)
			}
			if w.codes != nil {
				if d := cmp.Diff(w.codes, codes); d != "" {
					t.Errorf("%s %s codes (-want +got):\n%s", name, qname, d)
				}
			}
			if w.labels != nil {
				if d := cmp.Diff(w.labels, labels); d != "" {
					t.Errorf("%s %s labels (-want +got):\n%s", name, qname, d)
				}
			}
			if w.typ == TypeScale {
				if q.Min == nil || q.Max == nil || q.Unanswered == nil ||
					*q.Min != w.min || *q.Max != w.max || *q.Unanswered != w.unans {
					t.Errorf("%s %s: scale min %v max %v unanswered %v; want %d..%d, unanswered %d",
						name, qname, deref(q.Min), deref(q.Max), deref(q.Unanswered), w.min, w.max, w.unans)
				}
			}
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// (f) The JSON of a template (what `templates show --json` prints) is
// stable, and export fields keep their YAML order.
func TestTemplateJSON(t *testing.T) {
	var sources []struct{ name, src string }
	for _, name := range BuiltinNames() {
		src, _ := BuiltinSource(name)
		sources = append(sources, struct{ name, src string }{name, string(src)})
	}
	mqm, err := os.ReadFile("../testdata/templates/mqm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sources = append(sources, struct{ name, src string }{"mqm", string(mqm)}, struct{ name, src string }{"base", base})
	for _, s := range sources {
		a, err1 := Load(s.name, []byte(s.src))
		b, err2 := Load(s.name, []byte(s.src))
		if err1 != nil || err2 != nil {
			t.Errorf("Load(%s): %v, %v", s.name, err1, err2)
			continue
		}
		ja, err1 := json.Marshal(a)
		ja2, err2 := json.Marshal(a)
		jb, err3 := json.Marshal(b)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Errorf("json.Marshal(%s): %v", s.name, err)
			continue
		}
		if !bytes.Equal(ja, ja2) || !bytes.Equal(ja, jb) {
			t.Errorf("json.Marshal(%s) is not stable:\n%s\n%s\n%s", s.name, ja, ja2, jb)
		}
		if !json.Valid(ja) {
			t.Errorf("json.Marshal(%s) is not valid JSON", s.name)
		}
	}

	// Field order, at the top and inside objects.
	tests := []struct {
		src  string
		path []string // keys leading to the object, from the export's fields
		want []string
	}{
		{string(mqm), nil, []string{"doc", "seg", "rater", "errors"}},
		{string(mqm), []string{"errors", "item", "object"}, []string{"category", "severity", "start", "end"}},
		{builtinText(t, "qa-span-errors"), []string{"feedback", "object"}, []string{"errors", "missing-info", "corrected-prediction"}},
		{builtinText(t, "qa-span-errors"), []string{"feedback", "object", "errors", "item", "object"}, []string{"error type", "explanation", "start", "end"}},
		{builtinText(t, "qa-span-errors"), []string{"feedback", "object", "missing-info", "item", "object"}, []string{"error type", "passage_id", "sentence_id"}},
		{edit(t, base, "    id: {input: id}\n    label: {value: label}\n", "    z: {input: id}\n    a: 1\n    m: {value: label, default: null}\n"), nil, []string{"z", "a", "m"}},
	}
	for _, tt := range tests {
		tp, err := Load("t.yaml", []byte(tt.src))
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		js, err := json.Marshal(tp)
		if err != nil {
			t.Fatalf("json.Marshal: %v", err)
		}
		var top struct {
			Export struct {
				Fields json.RawMessage `json:"fields"`
			} `json:"export"`
		}
		if err := json.Unmarshal(js, &top); err != nil {
			t.Fatal(err)
		}
		raw := top.Export.Fields
		for _, k := range tt.path {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("%v: %v", tt.path, err)
			}
			raw = m[k]
		}
		if d := cmp.Diff(tt.want, objectKeys(t, raw)); d != "" {
			t.Errorf("%s %v: keys (-want +got):\n%s", tp.Name, tt.path, d)
		}
	}

	// The whole export of a small template, constants and all.
	tp, err := Load("t.yaml", []byte(edit(t, base, "    id: {input: id}\n    label: {value: label}\n",
		"    z: {input: id}\n    a: [1, x, true]\n    m: {value: label, default: null}\n    o: {object: {y: 2.5, b: {meta: unit}}}\n")))
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(tp.Export)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"jsonl","include":"answered","fields":{"z":{"input":"id"},"a":[1,"x",true],"m":{"value":"label","default":null},"o":{"object":{"y":2.5,"b":{"meta":"unit"}}}}}`
	if string(js) != want {
		t.Errorf("export JSON:\n got %s\nwant %s", js, want)
	}
}

func builtinText(t *testing.T, name string) string {
	t.Helper()
	src, ok := BuiltinSource(name)
	if !ok {
		t.Fatalf("no built-in %q", name)
	}
	return string(src)
}

// objectKeys lists the keys of a JSON object in the order they are written.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", raw)
	}
	var keys []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// The tests below pin problems found while writing these tests; each one
// fails until the package is fixed.

// TestLoadRefusesDuplicateKeys: a key given twice in one mapping silently
// drops the first value (yaml.v3 checks duplicates only when it decodes
// into Go values, not into a yaml.Node). The strict decoder exists so that
// "a typo must not silently drop a setting"; a second "questions:" or a
// repeated "type:" does exactly that.
func TestLoadRefusesDuplicateKeys(t *testing.T) {
	tests := []struct {
		name  string
		edits []string
		line  int // of the repeated key
		key   string
	}{
		{"top-level key", []string{"title: Base template\n", "title: Base template\ntitle: Other\n"}, 4, "title"},
		{"key of a question", []string{"    type: scale\n", "    type: scale\n    type: text\n"}, 33, "type"},
		{"a whole section", []string{"export:\n", "questions:\n  - name: other\n    type: text\nexport:\n"}, 38, "questions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("t.yaml", []byte(edit(t, base, tt.edits...)))
			if err == nil {
				t.Fatalf("Load accepted a template that gives %q twice", tt.key)
			}
			l := errorList(t, err)
			if len(l) != 1 || l[0].Line != tt.line || !strings.Contains(l[0].Msg, `"`+tt.key+`"`) {
				t.Errorf("errors:\n%v\nwant one error on line %d about %q", err, tt.line, tt.key)
			}
		})
	}
}

// TestLoadRefusesAliasExpansion: the decoder walks yaml.Node trees itself,
// so yaml.v3's guard against alias expansion ("billion laughs") never runs.
// A template of under 1 KiB expands into 10^5 conditions and a rule message
// of megabytes; two more levels take gigabytes. MaxSize is meant to keep a
// hostile file from exhausting memory.
func TestLoadRefusesAliasExpansion(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: x\nversion: 1\ntitle: T\ninstructions: I\ninput: {id: \"{id}\"}\nrows: {per: record}\n" +
		"context: [{name: a, path: a}]\nquestions: [{name: q, type: bool}]\nrules:\n" +
		"  - when: &c0 {question: q, any_of: [\"true\"]}\n    then: {question: q, answered: true}\n")
	const levels = 5
	for i := 1; i <= levels; i++ {
		ref := fmt.Sprintf("*c%d", i-1)
		fmt.Fprintf(&b, "  - when: &c%d {all: [%s]}\n    then: {question: q, answered: true}\n", i, strings.Repeat(ref+", ", 9)+ref)
	}
	src := b.String()
	if len(src) > 1024 {
		t.Fatalf("the template is %d bytes", len(src))
	}
	tp, err := Load("laughs.yaml", []byte(src))
	if err == nil {
		t.Fatalf("Load accepted a %d-byte template whose aliases expand to 10^%d conditions (a rule message of %d bytes); want an error",
			len(src), levels, len(tp.Rules[levels].Message))
	}
	errorList(t, err)
}

// TestRuleFormsKeepWhen: a rule written with allow/only_when or
// question/exclusive replaces its when without a word, so a condition the
// author wrote is silently ignored. The check already refuses a stray
// only_when or question; a stray when deserves the same.
func TestRuleFormsKeepWhen(t *testing.T) {
	tests := []struct {
		name string
		rule string
	}{
		{"allow with when", "  - allow: span\n    when: {question: score, answered: true}\n    only_when: {question: label, any_of: [bad]}\n"},
		{"exclusive with when", "  - question: label\n    exclusive: good\n    when: {question: score, answered: true}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := edit(t, base, "rules:\n", "rules:\n"+tt.rule)
			_, err := Load("t.yaml", []byte(src))
			if err == nil {
				t.Fatalf("Load accepted a rule whose when is ignored:\n%s", tt.rule)
			}
			for _, e := range errorList(t, err) {
				if e.Line != 36 {
					t.Errorf("error on line %d; want line 36 (the rule): %v", e.Line, e)
				}
			}
		})
	}
}

// TestAnonymisedFieldNotShown: a context column must not show an
// anonymised value by any path. The check compares roots literally and
// compares equal-length paths without treating [*] as a wildcard, so a
// record path to the list that rows are made from (per: element) shows
// every evaluator's real name, and "systems[0].name" passes where the
// shorter "systems[0]" is refused.
func TestAnonymisedFieldNotShown(t *testing.T) {
	const elem = `name: elem
version: 1
title: Element rows
instructions: Judge each span.
input:
  id: "{id}"
anonymize:
  - field: "@.evaluator"
    as: evaluator_label
  - field: "systems[*].name"
    as: system_label
rows:
  per: element
  path: spans
context:
  - name: evaluator
    path: "@.evaluator_label"
  - name: shown
    path: PATH
questions:
  - name: ok
    type: bool
`
	tests := []struct {
		path, field string // field: the anonymised field the column shows
	}{
		{"'@.evaluator'", "@.evaluator"},
		{"'@'", "@.evaluator"},
		{"systems", "systems[*].name"},
		{"systems[0]", "systems[*].name"},
		{"systems[*].name", "systems[*].name"},
		// Accepted today:
		{"systems[0].name", "systems[*].name"},
		{"systems[-1].name", "systems[*].name"},
		{"spans", "@.evaluator"},
		{"spans[*].evaluator", "@.evaluator"},
		{"spans[0]", "@.evaluator"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, err := Load("t.yaml", []byte(strings.Replace(elem, "PATH", tt.path, 1)))
			want := []*Error{{File: "t.yaml", Line: 18, Msg: fmt.Sprintf("context %q would show %s, which is anonymised; show its label instead", "shown", tt.field)}}
			if d := cmp.Diff(want, errorList(t, err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
	// The labels and other fields of the elements may be shown.
	for _, path := range []string{"'@.evaluator_label'", "'@.text'", "systems[0].system_label", "systems[*].date", "spans[0].text"} {
		if _, err := Load("t.yaml", []byte(strings.Replace(elem, "PATH", path, 1))); err != nil {
			t.Errorf("path %s: %v", path, err)
		}
	}
}

// TestExportConstantsMarshal: export constants are normalised to "the shapes
// encoding/json produces", but a few YAML values slip through. Load accepts
// them, and the template (and every export) then fails to marshal, or a
// date turns into a timestamp.
func TestExportConstantsMarshal(t *testing.T) {
	tests := []struct {
		value     string
		want      string // the constant's JSON
		mayRefuse bool   // Load may refuse it instead
	}{
		{"null", "null", false},
		{"[1, 2.5, x, true, {k: v}]", `[1,2.5,"x",true,{"k":"v"}]`, false},
		{"0x1F", "31", false},
		{`"007"`, `"007"`, false},
		{"2001-12-14", `"2001-12-14"`, false},
		{"[{1: a}]", `[{"1":"a"}]`, true},
		{".inf", "", true},
		{"[.nan]", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			src := edit(t, base, "    label: {value: label}\n", "    label: {value: label, default: "+tt.value+"}\n")
			tp, err := Load("t.yaml", []byte(src))
			if err != nil {
				if !tt.mayRefuse {
					t.Errorf("Load: %v", err)
				}
				errorList(t, err)
				return
			}
			if tt.want == "" {
				t.Errorf("Load accepted default %s, which has no JSON form", tt.value)
			}
			if _, err := json.Marshal(tp); err != nil {
				t.Errorf("json.Marshal(template): %v", err)
			}
			got, err := json.Marshal(tp.Export.Fields[1].Expr.Default)
			if err != nil || string(got) != tt.want {
				t.Errorf("default %s marshals to %s, %v; want %s", tt.value, got, err, tt.want)
			}
		})
	}
}

// TestUnknownParamsDeterministic: unknown --param names are reported in map
// order, which changes from run to run, so the same command prints its
// errors in a different order each time.
func TestUnknownParamsDeterministic(t *testing.T) {
	params := map[string]string{"alpha": "1", "beta": "2", "gamma": "3"}
	want := []*Error{
		{File: "t.yaml", Msg: `no parameter "alpha" (this template has no parameters)`},
		{File: "t.yaml", Msg: `no parameter "beta" (this template has no parameters)`},
		{File: "t.yaml", Msg: `no parameter "gamma" (this template has no parameters)`},
	}
	for range 20 {
		_, err := LoadWithParams("t.yaml", []byte(base), params)
		if d := cmp.Diff(want, errorList(t, err)); d != "" {
			t.Fatalf("errors (-want +got):\n%s", d)
		}
	}
}

// TestHeaderClashWithDefaultColumnLine: a header that clashes with a column
// the template does not write out (the annotator column when there is no
// annotator section, the hidden unit column) is reported on line 0, "the
// whole file", instead of on the line of the column that clashes.
func TestHeaderClashWithDefaultColumnLine(t *testing.T) {
	tests := []struct {
		name   string
		edits  []string
		header string
		line   int
	}{
		{"annotator", []string{"    header: Score\n", "    header: Annotator ID\n"}, "Annotator ID", 30},
		{"unit", []string{"    header: Answer\n", "    header: Unit\n"}, "Unit", 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("t.yaml", []byte(edit(t, base, tt.edits...)))
			want := []*Error{{File: "t.yaml", Line: tt.line, Msg: fmt.Sprintf("two columns have the header %q; pull finds columns by header, so headers must differ", tt.header)}}
			if d := cmp.Diff(want, errorList(t, err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestColumnsShapes(t *testing.T) {
	src := edit(t, base,
		"rules:\n", `  - name: tags
    header: Tags
    type: multi
    options:
      - code: a
        label: Alpha
      - code: b
        header: Bee column
  - name: tags2
    type: multi
    render: list
    options: [{code: x}]
  - name: ev
    header: Evidence
    type: evidence
    passages: passages
  - name: ev2
    type: evidence
    passages: passages
    passage_header: P
    sentences_header: S
rules:
`,
		"    field: answer\n", "    field: answer\n    occurrence: true\n",
		"    label: {value: label}\n", "    label: {value: label}\nannotator:\n  header: Rater\n  position: left\n")
	tp, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type col struct {
		Key, Header, Role, Part string
		Width                   float64
	}
	var got []col
	for _, c := range tp.Columns() {
		got = append(got, col{c.Key, c.Header, c.Role, c.Part, c.Width})
	}
	want := []col{
		{"id", "ID", RoleID, "", 16},
		{"annotator", "Rater", RoleAnnotator, "", 14},
		{"context:question", "Question", RoleContext, "", 50},
		{"context:answer", "Answer", RoleContext, "", 50},
		{"q:label", "Label", RoleAnswer, "", 22},
		{"q:span", "Span", RoleAnswer, "", 40},
		{"q:span#occurrence", "Span: occurrence", RoleAnswer, PartOccurrence, 12},
		{"q:score", "Score", RoleAnswer, "", 14},
		{"q:tags=a", "Tags: Alpha", RoleAnswer, "", 14},
		{"q:tags=b", "Bee column", RoleAnswer, "", 14},
		{"q:tags2", "tags2", RoleAnswer, "", 14},
		{"q:ev#passage", "Evidence: passage", RoleAnswer, PartPassage, 12},
		{"q:ev#sentences", "Evidence: sentences", RoleAnswer, PartSentences, 14},
		{"q:ev2#passage", "P", RoleAnswer, PartPassage, 12},
		{"q:ev2#sentences", "S", RoleAnswer, PartSentences, 14},
		{"check", "Check", RoleCheck, "", 32},
		{"unit", "Unit", RoleUnit, "", 12},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Columns() (-want +got):\n%s", d)
	}
	for _, c := range tp.Columns() {
		if c.Key == "q:tags=b" && (c.Option == nil || c.Option.Code != "b" || c.Question == nil || c.Question.Name != "tags") {
			t.Errorf("checkbox column %s: option %v, question %v", c.Key, c.Option, c.Question)
		}
	}
	if i := slices.IndexFunc(tp.Columns(), func(c ColumnSpec) bool { return c.Key == "context:answer" }); i < 0 || tp.Columns()[i].Context != tp.ContextByName("answer") {
		t.Errorf("context column does not point at its Context")
	}
}

// TestYAMLSyntaxErrorLines: yaml.v3 numbers its parser errors (as opposed to
// its scanner errors) from 0, and the package passes the number on, so a
// syntax error such as an unclosed [ is reported one line too early (and on
// line 0, "the whole file", when it is on line 1 or 2).
func TestYAMLSyntaxErrorLines(t *testing.T) {
	tests := []struct {
		name  string
		edits []string
		line  int
		msg   string
	}{
		// A scanner error: right.
		{"colon in a plain value", []string{"    header: Label\n", "    header: Label: x\n"}, 19, "mapping values are not allowed in this context"},
		// Parser errors: one line early.
		{"unclosed flow list", []string{"any_of: [bad]}", "any_of: [bad}"}, 36, "did not find expected ',' or ']'"},
		{"unclosed flow mapping", []string{"    label: {value: label}\n", "    label: {value: label\n"}, 42, "did not find expected ',' or '}'"},
		{"list item in a mapping", []string{"version: 1\n", "version: 1\n- stray\n"}, 3, "did not find expected key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("t.yaml", []byte(edit(t, base, tt.edits...)))
			want := []*Error{{File: "t.yaml", Line: tt.line, Msg: tt.msg}}
			if d := cmp.Diff(want, errorList(t, err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// TestWholeNumbersRefuseFractions: the decoder promises "expected a whole
// number", but yaml.v3 truncates a float into an int without complaint, so
// "max: 4.5" becomes 4 and "answer_rows: 2.9" becomes 2.
func TestWholeNumbersRefuseFractions(t *testing.T) {
	tests := []struct {
		edits []string
		line  int
	}{
		{[]string{"version: 1\n", "version: 1.5\n"}, 2},
		{[]string{"    max: 5\n", "    max: 4.5\n"}, 34},
		{[]string{"  per: record\n", "  per: block\n  answer_rows: 2.9\n"}, 10},
	}
	for _, tt := range tests {
		src := edit(t, base, tt.edits...)
		_, err := Load("t.yaml", []byte(src))
		value := strings.Fields(tt.edits[1][strings.LastIndex(tt.edits[1], ":")+1:])[0]
		want := []*Error{{File: "t.yaml", Line: tt.line, Msg: fmt.Sprintf("expected a whole number, got %q", value)}}
		if d := cmp.Diff(want, errorList(t, err)); d != "" {
			t.Errorf("%q: errors (-want +got):\n%s", tt.edits[1], d)
		}
	}
}

// TestLoadSelfReferencingAlias: an anchor may be referred to inside its own
// value. yaml.v3 refuses that only when it decodes into Go values; the
// package's decoder follows the alias for ever and the process dies of a
// stack overflow, which no recover can catch. Each case runs in a child
// process so that the crash does not take the other tests with it.
func TestLoadSelfReferencingAlias(t *testing.T) {
	const env = "TEMPLATES_TEST_ALIAS_SRC"
	if src, ok := os.LookupEnv(env); ok {
		debug.SetMaxStack(64 << 20) // crash early, not after a gigabyte of stack
		_, err := Load("t.yaml", []byte(src))
		fmt.Printf("refused=%v invalid=%v\n", err != nil, errors.Is(err, ErrInvalid))
		os.Exit(0)
	}
	tests := []struct {
		name  string
		edits []string
	}{
		{"condition", []string{"  - when: {question: label, any_of: [bad]}\n", "  - when: &c {all: [*c]}\n"}},
		{"export expression", []string{"    label: {value: label}\n", "    label: &x {value: label, default: *x}\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLoadSelfReferencingAlias$")
			cmd.Env = append(os.Environ(), env+"="+edit(t, base, tt.edits...))
			out, err := cmd.CombinedOutput()
			first, _, _ := strings.Cut(string(out), "\n")
			if err != nil || first != "refused=true invalid=true" {
				t.Errorf("Load in a child process: %v\n%s", err, firstLines(string(out), 4))
			}
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// TestAdjudicateKey: adjudicate is read on questions asked once per unit
// (true for free text, false for any other type), and refused on a
// block's answer-row questions, whose answers are adjudicated as spans.
func TestAdjudicateKey(t *testing.T) {
	t.Parallel()
	qa, err := Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	src := edit(t, string(qa.Source),
		"    scope: block          # asked once per block, on its first row\n", "    scope: block          # asked once per block, on its first row\n    adjudicate: false\n",
		"  - name: error_type\n    header: Error type\n", "  - name: error_type\n    header: Error type\n    adjudicate: true\n")
	_, err = LoadWithParams("qa.yaml", []byte(src), nil)
	want := []*Error{{Line: 113, Msg: `question "error_type": adjudicate is for questions asked once per unit; a block's answer rows are adjudicated as its spans`}}
	if diff := cmp.Diff(want, errorList(t, err), cmpopts.IgnoreFields(Error{}, "File")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	legal, err := Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	if q := legal.QuestionByName("note"); q.Adjudicated() {
		t.Error("legal-gaps' free-text note is adjudicated by default")
	}
	if q := legal.QuestionByName("gaps"); !q.Adjudicated() {
		t.Error("legal-gaps' gaps are not adjudicated")
	}
	tp, err := LoadWithParams("legal.yaml", []byte(edit(t, string(legal.Source), "    type: text\n", "    type: text\n    adjudicate: true\n")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !tp.QuestionByName("note").Adjudicated() {
		t.Error("a note marked adjudicate: true is not adjudicated")
	}
}
