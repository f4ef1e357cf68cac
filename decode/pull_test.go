package decode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// memBook is a generated workbook held as the texts of its cells, the way
// a backend reads a file back. Tests change it the way annotators change
// sheets, then pull it.
type memBook struct {
	names  []string
	sheets map[string][][]string
	cols   map[string]int // column key -> index at generation
	rows   map[string]int // unit -> row at generation
	// typed overrides cells of the Annotate sheet with a typed value
	// (a boolean, a date): row, column (both 0-based) -> cell.
	typed map[[2]int]backend.ReadCell
	// places are the metadata sheet's place cells (row, column, both
	// 0-based), each with the unit cell whose row it computes.
	places map[[2]int]string
}

func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	default:
		return fmt.Sprint(v)
	}
}

// newMemBook builds a template's workbook for records and keeps its cells.
func newMemBook(t *testing.T, tp *templates.Template, records string) *memBook {
	t.Helper()
	return newMemBookWith(t, tp, records, layout.Options{Seed: 1, Study: "s1"})
}

// newMemBookWith is newMemBook, built with the options given.
func newMemBookWith(t *testing.T, tp *templates.Template, records string, opt layout.Options) *memBook {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	format := tp.Input.Format
	if format == "" {
		format = "jsonl"
	}
	src, err := input.Open(format, []string{in})
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	m := &memBook{sheets: map[string][][]string{}, cols: map[string]int{}, rows: map[string]int{}}
	for _, sh := range res.Plan.Sheets {
		m.names = append(m.names, sh.Name)
		var rows [][]string
		sh.Rows(func(r backend.Row) error {
			var cells []string
			for _, c := range r.Cells {
				cells = append(cells, cellText(c.Value))
			}
			rows = append(rows, cells)
			return nil
		})
		m.sheets[sh.Name] = rows
	}
	shown := opt.Prefill != nil && opt.PrefillAs == layout.PrefillSuggestions
	for i, c := range tp.ColumnsWith(templates.ColumnOptions{Suggested: opt.Prefill != nil && !shown, Suggestions: shown}) {
		m.cols[c.Key] = i
	}
	for _, u := range res.Units {
		m.rows[u.ID] = u.FirstRow
	}
	// Each place formula, ROW(Annotate!$P$5), computes the row of the unit
	// cell that is on row 5 as generated.
	ref := regexp.MustCompile(`^\{ROW\(Annotate!\$[A-Z]+\$([0-9]+)\)\}$`)
	for i, r := range m.sheets[backend.SheetMeta] {
		for j, c := range r {
			if g := ref.FindStringSubmatch(c); g != nil {
				if m.places == nil {
					m.places = map[[2]int]string{}
				}
				n, _ := strconv.Atoi(g[1])
				m.places[[2]int{i, j}] = m.annotate()[n-1][m.cols[templates.RoleUnit]]
			}
		}
	}
	return m
}

// recalc computes the metadata sheet's places as a spreadsheet
// application does: each is the row its unit cell is on now (the first,
// where the cell was copied), or #REF! when its row is gone. References
// follow a cell when rows are inserted, deleted or moved, not when the
// sheet is sorted: a test recalculates after the first and before the
// second.
func (m *memBook) recalc() {
	unit := m.col(templates.RoleUnit)
	for at, cell := range m.places {
		v := "#REF!"
		for i, r := range m.annotate() {
			if i > 0 && unit < len(r) && r[unit] == cell {
				v = strconv.Itoa(i + 1)
				break
			}
		}
		m.sheets[backend.SheetMeta][at[0]][at[1]] = v
	}
}

func (m *memBook) annotate() [][]string { return m.sheets[backend.SheetAnnotate] }

// set writes into the cell of a unit's first row and a column key.
func (m *memBook) set(unit, key, v string) { m.setRow(m.rows[unit], key, v) }

// setTyped puts a typed cell into a unit's first row, at a column key.
func (m *memBook) setTyped(unit, key string, c backend.ReadCell) {
	m.set(unit, key, c.Text())
	if m.typed == nil {
		m.typed = map[[2]int]backend.ReadCell{}
	}
	m.typed[[2]int{m.rows[unit] - 1, m.col(key)}] = c
}

// setRow writes into a 1-based row of the Annotate sheet by column key.
func (m *memBook) setRow(row int, key, v string) {
	rows := m.annotate()
	c := m.col(key)
	for len(rows[row-1]) <= c {
		rows[row-1] = append(rows[row-1], "")
	}
	rows[row-1][c] = v
}

// col finds a column key's current place through the header row.
func (m *memBook) col(key string) int {
	want := m.annotate()[0][m.cols[key]]
	if i := slices.Index(m.annotate()[0], want); i >= 0 {
		return i
	}
	return m.cols[key]
}

func (m *memBook) grid() *backend.Grid {
	return &backend.Grid{Kind: "xlsx", Name: "book.xlsx", Sheets: m.names,
		Rows: func(sheet string, fn func(int, []backend.ReadCell) error) error {
			for i, r := range m.sheets[sheet] {
				if len(r) == 0 {
					continue
				}
				cells := backend.StringCells(r...)
				if sheet == backend.SheetAnnotate {
					for at, c := range m.typed {
						if at[0] == i && at[1] < len(cells) {
							cells[at[1]] = c
						}
					}
				}
				if err := fn(i+1, cells); err != nil {
					return err
				}
			}
			return nil
		}}
}

const kitchenSink = `name: ks
version: 1
title: Kitchen sink
instructions: Answer everything.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: pick, header: Pick, type: choice, required: true, options: [{code: y, label: "Yes"}, {code: n, label: "No"}, {code: u, label: "Unsure, really"}]}
  - {name: tags, header: Tags, type: multi, options: [{code: a, label: Alpha}, {code: b, label: Beta}, {code: c, label: Gamma}]}
  - {name: codes, header: Codes, type: multi, render: list, options: [{code: "1"}, {code: "2"}, {code: "3"}]}
  - {name: score, header: Score, type: scale, min: 1, max: 5, unanswered: 0}
  - {name: ok, header: OK, type: bool}
  - {name: note, header: Note, type: text}
  - {name: quote, header: Quote, type: span, field: text, occurrence: true}
  - {name: earlier, header: Earlier, type: span, field: text, before: quote}
  - {name: ev, header: records.Evidence, type: evidence, passages: passages}
rules:
  - {question: tags, exclusive: a}
  - {when: {question: pick, any_of: [n]}, then: {question: note, answered: true}, severity: warning, message: say why not}
annotator: {claim: row}
`

const ksRecords = `{"id": "r1", "text": "the cat sat on the mat. the cat left.", "passages": [["T1", "s1", "s2"], ["T2", "s1"]]}
{"id": "r2", "text": "“Quoted”   text  here", "passages": [["T1"]]}
{"id": "r3", "text": "plain", "passages": []}
`

// prob is a problem as a test expects it.
type prob struct {
	Severity, Cell, Unit, Message string
	Err                           error
}

func probs(ps records.Problems) []prob {
	var out []prob
	for _, p := range ps {
		cell := p.Cell
		out = append(out, prob{p.Severity, cell, p.Record, p.Message, p.Err})
	}
	return out
}

var cmpErr = cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) || errors.Is(b, a) })

// pullMem pulls a book, checking every record against the JSON Schema.
func pullMem(t *testing.T, m *memBook, opt decode.PullOptions) *decode.Pulled {
	t.Helper()
	p, err := decode.Pull(m.grid(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range p.Records {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	goldtest.ValidateRecords(t, []byte(b.String()))
	return p
}

func record(p *decode.Pulled, unit string) *records.Annotation {
	for _, r := range p.Records {
		if r.Unit == unit {
			return r
		}
	}
	return nil
}

func ptr(n int) *int { return &n }

// TestPullCells is the table of what a cell may hold: each case fills some
// cells of unit r1 and states the values read and the problems, in full.
func TestPullCells(t *testing.T) {
	tp, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		cells  map[string]string // column key -> text, on r1's row
		typed  map[string]backend.ReadCell
		values map[string]any
		status string
		probs  []prob
	}{
		{
			name: "every type answered as a spreadsheet stores it",
			cells: map[string]string{"q:pick": "Unsure, really", "q:tags=b": "TRUE", "q:tags=c": "FALSE", "q:codes": "1,3",
				"q:score": "4", "q:ok": "FALSE", "q:note": "fine", "q:quote": "the mat", "q:earlier": "cat",
				"q:ev#passage": "1", "q:ev#sentences": "1, 2", "annotator": "AK"},
			values: map[string]any{"pick": "u", "tags": []string{"b"}, "codes": []string{"1", "3"}, "score": 4, "ok": false, "note": "fine",
				"quote":   records.SpanValue{Field: "text", Start: ptr(15), End: ptr(22), Text: "the mat"},
				"earlier": records.SpanValue{Field: "text", Start: ptr(4), End: ptr(7), Text: "cat"},
				"ev":      records.Evidence{Passage: 1, Sentences: []int{1, 2}}},
			status: records.StatusComplete,
		},
		{
			name:   "choice and code list read leniently, with warnings",
			cells:  map[string]string{"q:pick": "  yes ", "q:codes": "3; 1", "annotator": "AK"},
			values: map[string]any{"pick": "y", "codes": []string{"1", "3"}},
			status: records.StatusComplete,
			probs: []prob{
				{"warning", "C2", "r1", `"  yes " read as "Yes"; pick it from the list`, decode.ErrNormalised},
				{"warning", "G2", "r1", `"3; 1" read as "1,3"`, decode.ErrNormalised},
			},
		},
		{
			name:   "values outside what the question allows",
			cells:  map[string]string{"q:pick": "maybe", "q:tags=a": "perhaps", "q:codes": "1,4", "q:score": "6", "q:ok": "dunno", "annotator": "AK"},
			values: map[string]any{},
			status: records.StatusPartial,
			probs: []prob{
				{"error", "C2", "r1", `"maybe" is not one of: Yes; No; Unsure, really`, decode.ErrInvalidAnswer},
				{"error", "D2", "r1", `"perhaps" is not a checkbox value; use TRUE or FALSE`, decode.ErrInvalidAnswer},
				{"error", "G2", "r1", `"4" in "1,4" is not one of the codes 1, 2, 3`, decode.ErrInvalidAnswer},
				{"error", "H2", "r1", "6 is outside the scale 1 to 5", decode.ErrInvalidAnswer},
				{"error", "I2", "r1", `"dunno" is not a checkbox value; use TRUE or FALSE`, decode.ErrInvalidAnswer},
			},
		},
		{
			name:   "a mistyped option is told the closest",
			cells:  map[string]string{"q:pick": "Unsure, realy", "q:codes": "2", "annotator": "AK"},
			values: map[string]any{"codes": []string{"2"}},
			status: records.StatusPartial,
			probs: []prob{
				{"error", "C2", "r1", `"Unsure, realy" is not one of: Yes; No; Unsure, really; did you mean "Unsure, really"?`, decode.ErrInvalidAnswer},
			},
		},
		{
			name:   "checkbox spellings and numbers typed as text",
			cells:  map[string]string{"q:pick": "No", "q:note": "why", "q:tags=a": "x", "q:tags=b": "0", "q:score": "4.0", "q:ok": "yes", "annotator": "AK"},
			values: map[string]any{"pick": "n", "note": "why", "tags": []string{"a"}, "score": 4, "ok": true},
			status: records.StatusComplete,
		},
		{
			name:   "the not-yet-answered value and fractions",
			cells:  map[string]string{"q:pick": "No", "q:note": "n", "q:score": "0", "annotator": "AK"},
			values: map[string]any{"pick": "n", "note": "n"},
			status: records.StatusComplete,
		},
		{
			name:   "a fraction on a scale",
			cells:  map[string]string{"q:pick": "Yes", "q:score": "3.5", "annotator": "AK"},
			values: map[string]any{"pick": "y"},
			status: records.StatusPartial,
			probs:  []prob{{"error", "H2", "r1", `"3.5" is not a whole number from 1 to 5`, decode.ErrInvalidAnswer}},
		},
		{
			name:   "a span that occurs twice needs its occurrence",
			cells:  map[string]string{"q:pick": "Yes", "q:quote": "the cat", "annotator": "AK"},
			values: map[string]any{"pick": "y", "quote": records.SpanValue{Field: "text", Text: "the cat"}},
			status: records.StatusPartial,
			probs:  []prob{{"error", "K2", "r1", `"the cat" occurs 2 times in "Text"; say which in the occurrence column`, decode.ErrInvalidAnswer}},
		},
		{
			name:   "the occurrence column picks one",
			cells:  map[string]string{"q:pick": "Yes", "q:quote": "the cat", "q:quote#occurrence": "2", "annotator": "AK"},
			values: map[string]any{"pick": "y", "quote": records.SpanValue{Field: "text", Start: ptr(24), End: ptr(31), Text: "the cat"}},
			status: records.StatusComplete,
		},
		{
			name:   "an occurrence that is not there",
			cells:  map[string]string{"q:pick": "Yes", "q:quote": "the cat", "q:quote#occurrence": "3", "annotator": "AK"},
			values: map[string]any{"pick": "y", "quote": records.SpanValue{Field: "text", Text: "the cat"}},
			status: records.StatusPartial,
			probs:  []prob{{"error", "L2", "r1", `occurrence "3": the span occurs 2 time(s) in "Text"`, decode.ErrInvalidAnswer}},
		},
		{
			name:   "a span not in its field, and one that is not before its anchor",
			cells:  map[string]string{"q:pick": "Yes", "q:quote": "the cat sat", "q:earlier": "left", "annotator": "AK"},
			values: map[string]any{"pick": "y", "quote": records.SpanValue{Field: "text", Start: ptr(0), End: ptr(11), Text: "the cat sat"}, "earlier": records.SpanValue{Field: "text", Text: "left"}},
			status: records.StatusPartial,
			probs:  []prob{{"error", "M2", "r1", `"left" does not occur before the quote in "Text"`, decode.ErrInvalidAnswer}},
		},
		{
			name:   "a span that is nowhere",
			cells:  map[string]string{"q:pick": "Yes", "q:quote": "the dog", "annotator": "AK"},
			values: map[string]any{"pick": "y", "quote": records.SpanValue{Field: "text", Text: "the dog"}},
			status: records.StatusPartial,
			probs:  []prob{{"error", "K2", "r1", `"the dog" is not in "Text"; copy the span exactly`, decode.ErrInvalidAnswer}},
		},
		{
			name:   "evidence ranges and bad evidence",
			cells:  map[string]string{"q:pick": "Yes", "q:ev#passage": "3", "q:ev#sentences": "0-2", "annotator": "AK"},
			values: map[string]any{"pick": "y"},
			status: records.StatusPartial,
			probs:  []prob{{"error", "N2", "r1", "there is no passage 3; this record has passages 1 to 2", decode.ErrInvalidAnswer}},
		},
		{
			name:   "evidence sentence out of range, and a passage without sentences",
			cells:  map[string]string{"q:pick": "Yes", "q:ev#passage": "2", "q:ev#sentences": "S1, 4", "annotator": "AK"},
			values: map[string]any{"pick": "y"},
			status: records.StatusPartial,
			probs:  []prob{{"error", "O2", "r1", "passage 2 has sentences 0 to 1; there is no sentence 4", decode.ErrInvalidAnswer}},
		},
		{
			name:   "rules: an exclusive option and a warning",
			cells:  map[string]string{"q:pick": "No", "q:tags=a": "TRUE", "q:tags=b": "TRUE", "annotator": "AK"},
			values: map[string]any{"pick": "n", "tags": []string{"a", "b"}},
			status: records.StatusPartial,
			probs: []prob{
				{"error", "E2", "r1", `when "Tags" is one of a (Alpha), "Tags" has nothing but a (Alpha)`, decode.ErrRule},
				{"warning", "J2", "r1", "say why not", decode.ErrRule},
			},
		},
		{
			name:   "a required answer missing, and no annotator",
			cells:  map[string]string{"q:score": "2"},
			values: map[string]any{"score": 2},
			status: records.StatusPartial,
			probs: []prob{
				{"warning", "C2", "r1", `"Pick" is required and not answered yet`, decode.ErrRequired},
				{"error", "P2", "r1", "the row has answers but no annotator ID", decode.ErrAnnotator},
			},
		},
		{
			name:   "booleans and dates are typed: a checkbox takes a boolean, a text a date as shown",
			cells:  map[string]string{"q:pick": "Yes", "annotator": "AK"},
			typed:  map[string]backend.ReadCell{"q:ok": {Value: "TRUE", Type: backend.CellBool}, "q:note": {Value: "45356", Type: backend.CellDate, Shown: "2024-03-05"}, "q:tags=b": {Value: "TRUE", Type: backend.CellBool}},
			values: map[string]any{"pick": "y", "ok": true, "note": "2024-03-05", "tags": []string{"b"}},
			status: records.StatusComplete,
		},
		{
			name:   "a boolean and a date are not scores, a date is not a checkbox",
			cells:  map[string]string{"q:pick": "Yes", "annotator": "AK"},
			typed:  map[string]backend.ReadCell{"q:score": {Value: "TRUE", Type: backend.CellBool}, "q:tags=b": {Value: "45356", Type: backend.CellDate, Shown: "2024-03-05"}, "q:codes": {Value: "45293", Type: backend.CellDate, Shown: "2024-01-02"}},
			values: map[string]any{"pick": "y"},
			status: records.StatusPartial,
			probs: []prob{
				{"error", "E2", "r1", "the cell shows the date 2024-03-05, not a checkbox value; use TRUE or FALSE", decode.ErrInvalidAnswer},
				{"error", "G2", "r1", "the cell shows the date 2024-01-02: the spreadsheet application turned what was typed into a date; type it again starting with an apostrophe (')", decode.ErrInvalidAnswer},
				{"error", "H2", "r1", "TRUE is a true/false value, not a whole number from 1 to 5", decode.ErrInvalidAnswer},
			},
		},
		{
			name:   "FALSE and a date in a scale are errors, never 'not answered'",
			cells:  map[string]string{"q:pick": "Yes", "annotator": "AK"},
			typed:  map[string]backend.ReadCell{"q:score": {Value: "FALSE", Type: backend.CellBool}},
			values: map[string]any{"pick": "y"},
			status: records.StatusPartial,
			probs:  []prob{{"error", "H2", "r1", "FALSE is a true/false value, not a whole number from 1 to 5", decode.ErrInvalidAnswer}},
		},
		{
			name:   "a formula with no saved value, and a formula error",
			cells:  map[string]string{"annotator": "AK"},
			typed:  map[string]backend.ReadCell{"q:pick": {Type: backend.CellNoValue, Formula: `IF(1,"Yes")`}, "q:note": {Value: "#N/A", Type: backend.CellError}},
			values: map[string]any{},
			status: records.StatusPartial,
			probs: []prob{
				{"error", "C2", "r1", `a formula with no saved value (=IF(1,"Yes")): open the workbook in a spreadsheet application and save it, or type the value`, decode.ErrInvalidAnswer},
				{"error", "J2", "r1", "the cell shows the formula error #N/A; type the answer instead", decode.ErrInvalidAnswer},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMemBook(t, tp, ksRecords)
			for k, v := range c.cells {
				m.set("r1", k, v)
			}
			for k, v := range c.typed {
				m.setTyped("r1", k, v)
			}
			p := pullMem(t, m, decode.PullOptions{})
			r := record(p, "r1")
			if diff := cmp.Diff(c.values, r.Values, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			if r.Status != c.status {
				t.Errorf("status %s, want %s", r.Status, c.status)
			}
			if diff := cmp.Diff(c.probs, probs(p.Problems), cmpErr, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, other := range []string{"r2", "r3"} {
				if s := record(p, other).Status; s != records.StatusEmpty {
					t.Errorf("%s: status %s", other, s)
				}
			}
		})
	}
}

// TestPullSpanNormalised checks a span copied with other quotes and
// spaces: found, with a warning, at the field's own offsets, with the
// field's own text there, so that the record reads back (offsets and text
// agree, and the text is the field's at them).
func TestPullSpanNormalised(t *testing.T) {
	tp, _ := templates.Load("ks.yaml", []byte(kitchenSink))
	m := newMemBook(t, tp, ksRecords)
	m.set("r2", "q:pick", "Yes")
	m.set("r2", "q:quote", `"Quoted" text here`)
	m.set("r2", "annotator", "AK")
	p := pullMem(t, m, decode.PullOptions{})
	want := records.SpanValue{Field: "text", Start: ptr(0), End: ptr(21), Text: "“Quoted”   text  here"}
	r := record(p, "r2")
	if diff := cmp.Diff(want, r.Values["quote"]); diff != "" {
		t.Errorf("span (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]prob{{"warning", "K3", "r2", `found in "Text" only after evening out spaces, quotes or dashes; the record has the text as it is there`, decode.ErrNormalised}}, probs(p.Problems), cmpErr); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := records.Read(bytes.NewReader(line), "r.jsonl", func(records.TemplateID) (*templates.Template, error) { return tp, nil })
	if err != nil {
		t.Fatalf("the pulled record does not read back: %v", err)
	}
	if probs := records.SpanTextProblems(recs[0], map[string]string{"text": "“Quoted”   text  here"}); len(probs) > 0 {
		t.Errorf("the pulled span is not the field's text: %q", probs)
	}
}

// answerAll fills every unit of the kitchen sink with a distinct answer.
func answerAll(m *memBook) {
	for i, u := range []string{"r1", "r2", "r3"} {
		m.set(u, "q:pick", []string{"Yes", "No", "Unsure, really"}[i])
		m.set(u, "q:note", fmt.Sprintf("note %d", i))
		m.set(u, "q:score", fmt.Sprint(i+2))
		m.set(u, "annotator", "AK")
	}
}

func valuesByUnit(p *decode.Pulled) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, r := range p.Records {
		out[r.Unit] = r.Values
	}
	return out
}

// TestPullSurvives modifies a filled sheet the way annotators do and
// checks that every answer is still read, with the problems stated.
func TestPullSurvives(t *testing.T) {
	tp, _ := templates.Load("ks.yaml", []byte(kitchenSink))
	base := newMemBook(t, tp, ksRecords)
	answerAll(base)
	want := valuesByUnit(pullMem(t, base, decode.PullOptions{}))
	cases := []struct {
		name    string
		edit    func(m *memBook)
		probs   []prob
		missing []string
	}{
		{name: "rows sorted", edit: func(m *memBook) {
			rows := m.annotate()
			body := rows[1:]
			sort.Slice(body, func(i, j int) bool { return body[i][0] > body[j][0] })
		}},
		{name: "columns reordered", edit: func(m *memBook) {
			for i := range m.annotate() {
				r := m.annotate()[i]
				r[3], r[8] = r[8], r[3] // Pick and Score change places
				r[0], r[1] = r[1], r[0] // so do ID and Text
			}
		}},
		{name: "a row deleted", edit: func(m *memBook) {
			m.sheets[backend.SheetAnnotate] = slices.Delete(m.annotate(), 2, 3)
		}, missing: []string{"r2"}, probs: []prob{
			{"error", "", "r2", `unit "r2" (row 3 when generated) is not in the sheet: was its row deleted?`, decode.ErrMissingUnit},
		}},
		{name: "a row copied below", edit: func(m *memBook) {
			m.sheets[backend.SheetAnnotate] = append(m.annotate(), slices.Clone(m.annotate()[1]))
		}, probs: []prob{{"warning", "5:5", "r1", `row 5 repeats unit "r1" of row 2; it is read once`, decode.ErrLayout}}},
		{name: "a row copied and changed", edit: func(m *memBook) {
			c := slices.Clone(m.annotate()[1])
			m.sheets[backend.SheetAnnotate] = append(m.annotate(), c)
			m.setRow(5, "q:score", "5")
		}, probs: []prob{{"error", "5:5", "r1", `unit "r1" is on rows 2 and 5 with different answers; row 2 is read, row 5 is not`, decode.ErrLayout}}},
		{name: "a column added", edit: func(m *memBook) {
			for i := range m.annotate() {
				v := ""
				if i == 0 {
					v = "My notes"
				} else if i == 1 {
					v = "check again"
				}
				m.annotate()[i] = slices.Insert(m.annotate()[i], 5, v)
			}
		}, probs: []prob{{"warning", "F1", "", `column F ("My notes") is not part of the template; it is ignored`, decode.ErrLayout}}},
		{name: "a header renamed", edit: func(m *memBook) {
			m.annotate()[0][2] = "Decision"
		}, probs: []prob{{"warning", "C1", "", `the header "Pick" was renamed to "Decision"; the column is read by its position`, decode.ErrLayout}}},
		{name: "a blank row inserted", edit: func(m *memBook) {
			m.sheets[backend.SheetAnnotate] = slices.Insert(m.annotate(), 2, make([]string, 20))
		}},
		{name: "a row of answers with no unit", edit: func(m *memBook) {
			r := make([]string, 17)
			r[2], r[15] = "Yes", "BT"
			m.sheets[backend.SheetAnnotate] = append(m.annotate(), r)
		}, probs: []prob{{"error", "5:5", "", `the row's answers cannot be read: it belongs to no unit (an inserted row?); they are C5="Yes", P5="BT"`, decode.ErrLayout}}},
		{name: "the hidden unit column cleared", edit: func(m *memBook) {
			for i := range m.annotate() {
				m.annotate()[i] = m.annotate()[i][:16]
			}
		}, probs: []prob{
			{"warning", "1:1", "", `the hidden "Unit" column is gone; rows are matched to units by ID and position`, decode.ErrLayout},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMemBook(t, tp, ksRecords)
			answerAll(m)
			c.edit(m)
			p := pullMem(t, m, decode.PullOptions{})
			got := valuesByUnit(p)
			for u, v := range want {
				if slices.Contains(c.missing, u) {
					if r := record(p, u); r.Status != records.StatusMissing || len(r.Values) != 0 {
						t.Errorf("%s: status %s, values %v; want missing", u, r.Status, r.Values)
					}
					continue
				}
				if diff := cmp.Diff(v, got[u]); diff != "" {
					t.Errorf("%s values (-want +got):\n%s", u, diff)
				}
			}
			if diff := cmp.Diff(c.probs, probs(p.Problems), cmpErr, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPullRefuses checks that workbooks that are not what is asked for are
// refused with a clear error.
func TestPullRefuses(t *testing.T) {
	tp, _ := templates.Load("ks.yaml", []byte(kitchenSink))
	m := newMemBook(t, tp, ksRecords)
	cases := []struct {
		opt  decode.PullOptions
		edit func(*memBook)
		err  error
		msg  string
	}{
		{opt: decode.PullOptions{Template: "legal-gaps"}, err: decode.ErrOtherStudy,
			msg: "book.xlsx: workbook of another template or study: made with template ks, not legal-gaps"},
		{opt: decode.PullOptions{Template: "ks", Version: 2}, err: decode.ErrOtherStudy,
			msg: "book.xlsx: workbook of another template or study: made with ks version 1, not version 2"},
		{opt: decode.PullOptions{Study: "other"}, err: decode.ErrOtherStudy,
			msg: "book.xlsx: workbook of another template or study: it belongs to study s1, not other"},
		{edit: func(m *memBook) {
			m.names = slices.DeleteFunc(m.names, func(s string) bool { return s == backend.SheetMeta })
		}, err: decode.ErrNotWorkbook,
			msg: "book.xlsx: not an annosheet workbook: it has no _annosheet sheet; pull reads workbooks made by annosheet generate"},
		{edit: func(m *memBook) { m.sheets[backend.SheetMeta][1][1] = "name: ks\nversion: 1\n" }, err: decode.ErrNotWorkbook},
	}
	for _, c := range cases {
		mm := *m
		mm.names = slices.Clone(m.names)
		mm.sheets = map[string][][]string{}
		for k, v := range m.sheets {
			for _, r := range v {
				mm.sheets[k] = append(mm.sheets[k], slices.Clone(r))
			}
		}
		if c.edit != nil {
			c.edit(&mm)
		}
		_, err := decode.Pull(mm.grid(), c.opt)
		if !errors.Is(err, c.err) || c.msg != "" && err.Error() != c.msg {
			t.Errorf("err = %v, want %v %q", err, c.err, c.msg)
		}
	}
}

const blockTemplate = `name: blocks
version: 1
title: Blocks
instructions: Mark errors.
input: {format: jsonl, id: "{id}"}
rows: {per: block, answer_rows: 3, spans: errors, label: kind}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: done, header: Done, type: bool, scope: block, required: true}
  - {name: span, header: Span, type: span, field: text}
  - {name: kind, header: Kind, type: choice, required: true, options: [{code: bad, label: Bad}, {code: odd, label: Odd}]}
annotator: {claim: instance}
`

const blockRecords = `{"id": "b1", "text": "one two three"}
{"id": "b2", "text": "four five"}
`

// TestPullBlocks covers the block layout: answer rows as spans, rows
// inserted inside a block, the block question on a moved row, and one
// annotator per instance.
func TestPullBlocks(t *testing.T) {
	tp, err := templates.Load("blocks.yaml", []byte(blockTemplate))
	if err != nil {
		t.Fatal(err)
	}
	m := newMemBook(t, tp, blockRecords)
	// b1: two errors, one in a row inserted inside the block; the block
	// question answered on its second row (the first was moved away).
	m.setRow(2, "q:span", "two")
	m.setRow(2, "q:kind", "Bad")
	m.setRow(3, "q:done", "TRUE")
	ins := make([]string, 7)
	ins[3], ins[4] = "three", "ODD"
	m.sheets[backend.SheetAnnotate] = slices.Insert(m.annotate(), 3, ins)
	m.setRow(2, "annotator", "AK")
	// b2: the block's rows disagree on the annotator.
	m.setRow(6, "q:done", "TRUE")
	m.setRow(6, "annotator", "AK")
	m.setRow(7, "q:span", "five")
	m.setRow(7, "q:kind", "Odd")
	m.setRow(7, "annotator", "BT")
	p := pullMem(t, m, decode.PullOptions{})
	b1 := record(p, "b1")
	wantSpans := []records.SpanAnswer{
		{Question: "errors", Row: 2, Field: "text", Start: ptr(4), End: ptr(7), Text: "two", Label: "Bad", Code: "bad"},
		{Question: "errors", Row: 4, Field: "text", Start: ptr(8), End: ptr(13), Text: "three", Label: "Odd", Code: "odd"},
	}
	if diff := cmp.Diff(wantSpans, b1.Spans); diff != "" {
		t.Errorf("b1 spans (-want +got):\n%s", diff)
	}
	if b1.Values["done"] != true || b1.Annotator != "AK" || b1.Status != records.StatusComplete || !slices.Equal(b1.Source.Rows, []int{2, 3, 4, 5}) {
		t.Errorf("b1: %+v", b1)
	}
	wantProbs := []prob{
		{"warning", "E4", "b1", `"ODD" read as "Odd"; pick it from the list`, decode.ErrNormalised},
		{"error", "F7", "b2", `instance "b2" has more than one annotator: AK (rows 6), BT (rows 7); one annotator takes a whole instance`, decode.ErrAnnotator},
	}
	if diff := cmp.Diff(wantProbs, probs(p.Problems), cmpErr); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if b2 := record(p, "b2"); b2.Status != records.StatusPartial || len(b2.Spans) != 1 {
		t.Errorf("b2: status %s, %d spans", b2.Status, len(b2.Spans))
	}
}

// TestPullDeterministic pulls the same sheet twice: the records must be
// identical, problems in the same order.
func TestPullDeterministic(t *testing.T) {
	tp, _ := templates.Load("ks.yaml", []byte(kitchenSink))
	m := newMemBook(t, tp, ksRecords)
	answerAll(m)
	m.set("r1", "q:pick", "maybe")
	m.set("r2", "q:tags=a", "TRUE")
	m.set("r2", "q:tags=c", "TRUE")
	a, b := pullMem(t, m, decode.PullOptions{}), pullMem(t, m, decode.PullOptions{})
	if diff := cmp.Diff(a.Records, b.Records); diff != "" {
		t.Errorf("two pulls differ:\n%s", diff)
	}
	if !strings.Contains(fmt.Sprint(a.Problems), "maybe") {
		t.Error("problem missing")
	}
}

// TestPullClaimedInstance checks the claim rules of a row-per-element
// layout: one annotator per instance, rows without an ID take the
// instance's, and a claimed instance with unjudged rows is reported.
func TestPullClaimedInstance(t *testing.T) {
	tp, err := templates.Load("claims.yaml", []byte(`name: claims
version: 1
title: Claims
instructions: Judge.
input: {format: jsonl, id: "{id}"}
rows: {per: element, path: items, unit: "{$id}#{$n}"}
context: [{name: t, header: T, path: "@.t"}]
questions: [{name: ok, header: OK, type: choice, required: true, options: [{code: y}, {code: n}]}]
annotator: {claim: instance}
`))
	if err != nil {
		t.Fatal(err)
	}
	m := newMemBook(t, tp, `{"id": "i1", "items": [{"t": "a"}, {"t": "b"}, {"t": "c"}]}
{"id": "i2", "items": [{"t": "d"}]}
`)
	m.set("i1#1", "q:ok", "y")
	m.set("i1#1", "annotator", "AK")
	m.set("i1#2", "q:ok", "n")
	m.set("i2#1", "q:ok", "y")
	m.set("i2#1", "annotator", "BT")
	p := pullMem(t, m, decode.PullOptions{})
	want := []prob{
		{"warning", "D3", "i1#2", "no annotator ID; the instance's annotator AK is assumed", decode.ErrAnnotator},
		{"warning", "4:4", "i1#3", `instance "i1" is claimed by AK, but this row is not judged yet`, decode.ErrRequired},
	}
	if diff := cmp.Diff(want, probs(p.Problems), cmpErr); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	var got []string
	for _, r := range p.Records {
		got = append(got, r.Unit+" "+r.Annotator+" "+r.Status)
	}
	if diff := cmp.Diff([]string{"i1#1 AK complete", "i1#2 AK complete", "i1#3 AK empty", "i2#1 BT complete"}, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// TestPullEdgeCases covers what a review found: ids with spaces, a cleared
// unit column with unanswered rows, a copied row read from the right copy,
// a header renamed to another's, the scale's "not yet" value alone.
func TestPullEdgeCases(t *testing.T) {
	tp, _ := templates.Load("ks.yaml", []byte(kitchenSink))
	t.Run("ids with surrounding spaces", func(t *testing.T) {
		m := newMemBook(t, tp, `{"id": "r1 ", "text": "a", "passages": []}`+"\n"+`{"id": "r2\u00a0", "text": "b", "passages": []}`+"\n")
		m.set("r1 ", "q:pick", "Yes")
		m.set("r1 ", "annotator", "AK")
		// A spreadsheet that trims the unit cell.
		m.setRow(m.rows["r2\u00a0"], "unit", "r2")
		m.set("r2\u00a0", "q:pick", "No")
		m.set("r2\u00a0", "annotator", "AK")
		p := pullMem(t, m, decode.PullOptions{})
		for _, u := range []string{"r1 ", "r2\u00a0"} {
			if r := record(p, u); r.Status != records.StatusComplete {
				t.Errorf("%q: %s %v", u, r.Status, r.Problems)
			}
		}
	})
	t.Run("unit column cleared, some rows unanswered", func(t *testing.T) {
		m := newMemBook(t, tp, ksRecords)
		m.set("r1", "q:pick", "Yes")
		m.set("r1", "annotator", "AK")
		for i := range m.annotate() {
			m.annotate()[i] = m.annotate()[i][:16]
		}
		p := pullMem(t, m, decode.PullOptions{})
		var got []string
		for _, r := range p.Records {
			got = append(got, r.Unit+" "+r.Status)
		}
		if diff := cmp.Diff([]string{"r1 complete", "r2 empty", "r3 empty"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("a blank row copied above the answered one", func(t *testing.T) {
		m := newMemBook(t, tp, ksRecords)
		blank := slices.Clone(m.annotate()[1])
		m.set("r1", "q:pick", "No")
		m.set("r1", "q:note", "n")
		m.set("r1", "annotator", "AK")
		m.sheets[backend.SheetAnnotate] = slices.Insert(m.annotate(), 1, blank)
		p := pullMem(t, m, decode.PullOptions{})
		r := record(p, "r1")
		if r.Status != records.StatusComplete || r.Values["pick"] != "n" || r.Annotator != "AK" {
			t.Errorf("r1: %s %v %q", r.Status, r.Values, r.Annotator)
		}
		want := []prob{{"warning", "2:2", "r1", `row 2 repeats unit "r1" of row 3; it is read once`, decode.ErrLayout}}
		if diff := cmp.Diff(want, probs(p.Problems), cmpErr); diff != "" {
			t.Errorf("problems (-want +got):\n%s", diff)
		}
	})
	t.Run("a header renamed to another column's", func(t *testing.T) {
		m := newMemBook(t, tp, ksRecords)
		m.set("r1", "q:pick", "Yes")
		m.set("r1", "q:note", "kept")
		m.set("r1", "annotator", "AK")
		m.annotate()[0][9] = "pick"
		p := pullMem(t, m, decode.PullOptions{})
		if v := record(p, "r1").Values; v["note"] != "kept" || v["pick"] != "y" {
			t.Errorf("values %v", v)
		}
	})
	t.Run("the scale's not-yet value alone", func(t *testing.T) {
		m := newMemBook(t, tp, ksRecords)
		m.set("r1", "q:score", "0")
		p := pullMem(t, m, decode.PullOptions{})
		if r := record(p, "r1"); r.Status != records.StatusEmpty || len(p.Problems) != 0 {
			t.Errorf("r1: %s, problems %v", r.Status, p.Problems)
		}
	})
}

// TestPullInsertedBlockRows places rows inserted inside blocks: between two
// blocks a span decides; after a sort, the place the workbook recorded, or
// else the block above, with a warning.
func TestPullInsertedBlockRows(t *testing.T) {
	tp, _ := templates.Load("blocks.yaml", []byte(blockTemplate))
	t.Run("between two blocks, the span decides", func(t *testing.T) {
		m := newMemBook(t, tp, blockRecords)
		ins := make([]string, 7)
		ins[3], ins[4], ins[5] = "five", "Odd", "AK"
		// Row 5 starts block b2; the inserted row lands just above it.
		m.sheets[backend.SheetAnnotate] = slices.Insert(m.annotate(), 4, ins)
		p := pullMem(t, m, decode.PullOptions{})
		if b2 := record(p, "b2"); len(b2.Spans) != 1 || b2.Spans[0].Text != "five" {
			t.Errorf("b2 spans %+v, problems %v", b2.Spans, p.Problems)
		}
	})
	t.Run("between two blocks, nothing decides", func(t *testing.T) {
		m := newMemBook(t, tp, blockRecords)
		ins := make([]string, 7)
		ins[4], ins[5] = "Odd", "AK"
		m.sheets[backend.SheetAnnotate] = slices.Insert(m.annotate(), 4, ins)
		p := pullMem(t, m, decode.PullOptions{})
		want := []prob{{"warning", "5:5", "b1", `the row was inserted between blocks "b1" and "b2"; it is read as part of "b1"`, decode.ErrLayout}}
		var moved []prob
		for _, pr := range probs(p.Problems) {
			if errors.Is(pr.Err, decode.ErrLayout) {
				moved = append(moved, pr)
			}
		}
		if diff := cmp.Diff(want, moved, cmpErr); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	// A row inserted in b1, then the sheet sorted by ID, descending: the
	// row, which has no ID, sorts last, below b1's rows.
	sorted := func(t *testing.T, places bool) *decode.Pulled {
		m := newMemBook(t, tp, blockRecords)
		if !places {
			withoutPlaces(m)
		}
		ins := make([]string, 7)
		ins[3], ins[4], ins[5] = "two", "Bad", "AK"
		m.sheets[backend.SheetAnnotate] = slices.Insert(m.annotate(), 2, ins)
		m.recalc()
		body := m.annotate()[1:]
		sort.SliceStable(body, func(i, j int) bool { return body[i][0] > body[j][0] })
		return pullMem(t, m, decode.PullOptions{})
	}
	t.Run("after a sort, back in its place", func(t *testing.T) {
		p := sorted(t, true)
		if b1 := record(p, "b1"); len(b1.Spans) != 1 || b1.Spans[0].Text != "two" || b1.Spans[0].Row != 8 {
			t.Errorf("b1 spans %+v", b1.Spans)
		}
		want := []prob{{"warning", "C5", "b1", `"Done" is required and not answered yet`, decode.ErrRequired}}
		if diff := cmp.Diff(want, probs(p.Problems), cmpErr); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("after a sort, without places: read with the block above, said", func(t *testing.T) {
		p := sorted(t, false)
		if b1 := record(p, "b1"); len(b1.Spans) != 1 || b1.Spans[0].Text != "two" || b1.Spans[0].Row != 8 {
			t.Errorf("b1 spans %+v", b1.Spans)
		}
		want := []prob{
			{"warning", "C5", "b1", `"Done" is required and not answered yet`, decode.ErrRequired},
			{"warning", "8:8", "b1", `the row was inserted in block "b1", and the sheet has been sorted since: where in the block it was cannot be known (the workbook does not record where its rows were), so it is read where the sheet has it now`, decode.ErrLayout},
		}
		if diff := cmp.Diff(want, probs(p.Problems), cmpErr); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestPullRenamedSheet: an Annotate sheet renamed by the annotator is
// found by its header row and read, with a warning; two candidates are
// an error, never a guess.
func TestPullRenamedSheet(t *testing.T) {
	t.Parallel()
	tp, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	rename := func(m *memBook, to ...string) {
		rows := m.sheets[backend.SheetAnnotate]
		delete(m.sheets, backend.SheetAnnotate)
		i := slices.Index(m.names, backend.SheetAnnotate)
		m.names = slices.Delete(m.names, i, i+1)
		for _, name := range to {
			m.sheets[name] = rows
			m.names = append(m.names, name)
		}
	}
	m := newMemBook(t, tp, ksRecords)
	m.set("r1", "q:pick", "Yes")
	m.set("r1", "annotator", "AK")
	rename(m, "Mine")
	p := pullMem(t, m, decode.PullOptions{})
	if r := record(p, "r1"); r.Status != records.StatusComplete || r.Values["pick"] != "y" || r.Source.Sheet != "Mine" {
		t.Errorf("r1: %s %v from sheet %q", r.Status, r.Values, r.Source.Sheet)
	}
	want := []prob{{Severity: "warning", Message: `the sheet Annotate was renamed "Mine"; it is read as Annotate`, Err: decode.ErrLayout}}
	if diff := cmp.Diff(want, probs(p.Problems), cmpErr); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}

	m = newMemBook(t, tp, ksRecords)
	rename(m, "Mine", "Mine (2)")
	_, err = decode.Pull(m.grid(), decode.PullOptions{})
	if !errors.Is(err, decode.ErrNotWorkbook) || !strings.Contains(err.Error(), `sheets ["Mine" "Mine (2)"] all look like it`) {
		t.Errorf("two renamed copies: %v", err)
	}
}

// TestPullIgnoresReadSheet checks that the Read sheet, which holds long
// context whole, is a sheet of ours that pull never reads: not as
// answers, not as a sheet it did not make, not as a renamed Annotate
// sheet, whatever it holds.
func TestPullIgnoresReadSheet(t *testing.T) {
	t.Parallel()
	tp, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("the cat sat on the mat. ", 200)
	m := newMemBook(t, tp, `{"id": "r1", "text": "`+long+`", "passages": [["T1", "s1"]]}`+"\n")
	if !slices.Contains(m.names, backend.SheetRead) || len(m.sheets[backend.SheetRead]) < 3 {
		t.Fatalf("sheets %q: no Read sheet for a text of %d characters", m.names, len(long))
	}
	m.set("r1", "q:pick", "Yes")
	m.set("r1", "annotator", "AK")
	// What looks like answers, pasted into the Read sheet.
	hdr, row := slices.Clone(m.annotate()[0]), slices.Clone(m.annotate()[1])
	row[m.col("q:pick")] = "No"
	m.sheets[backend.SheetRead] = append(m.sheets[backend.SheetRead], hdr, row)
	p := pullMem(t, m, decode.PullOptions{})
	if r := record(p, "r1"); r == nil || r.Status != records.StatusComplete || r.Values["pick"] != "y" {
		t.Errorf("r1 = %+v", r)
	}
	if len(p.Problems) != 0 {
		t.Errorf("problems: %v", p.Problems)
	}
	// Without an Annotate sheet, the Read sheet is not taken for it.
	delete(m.sheets, backend.SheetAnnotate)
	m.names = slices.DeleteFunc(m.names, func(s string) bool { return s == backend.SheetAnnotate })
	if _, err := decode.Pull(m.grid(), decode.PullOptions{}); !errors.Is(err, decode.ErrNotWorkbook) {
		t.Errorf("without Annotate: %v", err)
	}
}
