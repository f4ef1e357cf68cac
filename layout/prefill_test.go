package layout_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

const prefillTemplate = `name: pf
version: 1
title: Prefill
instructions: Mark what is wrong.
input: {format: jsonl, id: "{id}"}
rows: {per: block, answer_rows: 2, spans: errors, label: kind}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: done, header: Done, type: bool, scope: block}
  - {name: note, header: Note, type: text, scope: block}
  - {name: span, header: Span, type: span, field: text, occurrence: true}
  - {name: kind, header: Kind, type: choice, options: [{code: bad, label: Bad}, {code: odd, label: Odd}]}
  - {name: ev, header: Evidence, type: evidence, passages: passages}
annotator: {claim: instance}
`

const prefillInputs = `{"id": "b1", "text": "one two one", "passages": [["T", "s1"]]}
{"id": "b2", "text": "three four", "passages": [["T"]]}
`

// given is a record of the pf template, its values and spans as JSON.
func given(unit, values, spans string) string {
	return `{"schema": "annosheet.annotation/1", "template": {"name": "pf", "version": 1}, "batch": "m", "unit": "` + unit + `", "item": "` + unit +
		`", "annotator": "gpt4o", "status": "complete", "values": ` + values + `, "spans": ` + spans + `, "source": {"kind": "model", "file": "", "sheet": "", "rows": []}, "problems": []}` + "\n"
}

// buildPrefilled builds the pf template's workbook over prefillInputs,
// prefilled with the records given.
func buildPrefilled(t *testing.T, recs string, limit int) (*templates.Template, *layout.Result, error) {
	t.Helper()
	tp, err := templates.Load("pf.yaml", []byte(prefillTemplate))
	if err != nil {
		t.Fatal(err)
	}
	g, bad := records.ReadGivenFrom(strings.NewReader(recs), "model.jsonl", tp, "")
	if len(bad) > 0 {
		t.Fatal(bad)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(prefillInputs), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := input.Open("jsonl", []string{in})
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, src, layout.Options{Seed: 1, Prefill: g, CellLimit: limit})
	if err == nil {
		t.Cleanup(func() { res.Close() })
	}
	return tp, res, err
}

// TestPrefillRefused: given answers that could not be written so that
// pull reads them back as given are refused, every one at its line.
func TestPrefillRefused(t *testing.T) {
	t.Parallel()
	recs := given("b1", `{"done": true}`, `[{"question": "errors", "row": 1, "field": "text", "text": "one", "code": "bad"}]`) + // "one" twice, no offsets
		given("b2", `{"note": "`+strings.Repeat("x", 60)+`"}`, `[{"question": "errors", "row": 1, "field": "text", "start": 0, "end": 5, "text": "three", "code": "odd", "evidence": {"passage": 2, "sentences": [0]}},`+
			`{"question": "errors", "row": 2, "field": "text", "start": 6, "end": 10, "text": "FOUR", "code": "odd"},`+
			`{"question": "errors", "row": 3, "code": "bad"}]`) +
		given("b9", `{"done": false}`, `[]`)
	_, _, err := buildPrefilled(t, recs, 50)
	var ps records.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v, want problems", err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Error())
		if !errors.Is(p, records.ErrBadValue) {
			t.Errorf("%v: not ErrBadValue", p)
		}
	}
	want := []string{
		`model.jsonl:1: record "b1": question "span": "one" occurs 2 times in "text"; the record must give its offsets to say which`,
		`model.jsonl:2: record "b2": 3 spans, but a block has 2 answer rows (rows.answer_rows of the template)`,
		`model.jsonl:2: record "b2": span 1: evidence passage 2: the unit has passages 1 to 1`,
		`model.jsonl:2: record "b2": span 2 (row 2) says "FOUR", but text has "four" at 6 to 10`,
		`model.jsonl:2: record "b2": the answer for column "Note" is 60 characters long, more than a cell holds (50)`,
		`model.jsonl:3: record "b9": no unit of the inputs has this ID`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestPrefillLayout: a block's spans go on its answer rows, its block
// questions on the first; each answer column has a hidden, locked copy
// beside it, and the sheet shows an answer that still holds its
// suggestion in blue italics; the annotator column is left to fill in.
func TestPrefillLayout(t *testing.T) {
	t.Parallel()
	recs := given("b1", `{"done": true, "note": "=1+1"}`, `[{"question": "errors", "row": 1, "field": "text", "start": 8, "end": 11, "text": "one", "code": "bad", "evidence": {"passage": 1, "sentences": [1]}},`+
		`{"question": "errors", "row": 2, "code": "odd"}]`)
	tp, res, err := buildPrefilled(t, recs, 0)
	if err != nil {
		t.Fatal(err)
	}
	cols := tp.ColumnsWith(templates.ColumnOptions{Suggested: true})
	var sheet *backend.Sheet
	for _, sh := range res.Plan.Sheets {
		if sh.Name == backend.SheetAnnotate {
			sheet = sh
		}
	}
	var rows [][]any
	if err := sheet.Rows(func(r backend.Row) error {
		var cells []any
		for _, c := range r.Cells {
			cells = append(cells, c.Value)
		}
		rows = append(rows, cells)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	at := func(row int, key string) any {
		for i, c := range cols {
			if c.Key == key {
				if i < len(rows[row]) {
					return rows[row][i]
				}
				return nil
			}
		}
		t.Fatalf("no column %s", key)
		return nil
	}
	for _, c := range []struct {
		row  int
		key  string
		want any
	}{
		{1, "q:done", true}, {1, "s:q:done", true}, {1, "q:note", "=1+1"}, {1, "q:span", "one"}, {1, "q:span#occurrence", 2}, {1, "q:kind", "Bad"},
		{1, "q:ev#passage", 1}, {1, "q:ev#sentences", "1"}, {1, "annotator", nil},
		{2, "q:done", nil}, {2, "q:span", nil}, {2, "q:kind", "Odd"}, {2, "s:q:kind", "Odd"},
		{3, "q:done", nil}, {3, "q:kind", nil}, // b2: given nothing
	} {
		if got := at(c.row, c.key); got != c.want {
			t.Errorf("row %d %s = %#v, want %#v", c.row+1, c.key, got, c.want)
		}
	}
	var copies, formats int
	for i, c := range cols {
		if c.Role != templates.RoleSuggestion {
			continue
		}
		copies++
		if !sheet.Columns[i].Hidden || sheet.Columns[i].Style.Unlocked {
			t.Errorf("copy column %s: hidden %v, unlocked %v", c.Key, sheet.Columns[i].Hidden, sheet.Columns[i].Style.Unlocked)
		}
		for _, cf := range sheet.ConditionalFormats {
			if cf.Italic && cf.Color != "" && cf.FirstCol == i-1 && cf.LastCol == i-1 &&
				cf.Formula == "AND(LEN($"+backend.ColumnLetter(i)+"2)>0,EXACT("+backend.ColumnLetter(i-1)+"2,$"+backend.ColumnLetter(i)+"2))" {
				formats++
			}
		}
	}
	if copies != 7 || formats != copies {
		t.Errorf("%d copy columns, %d with their format; want 7 and 7", copies, formats)
	}
	for i, c := range cols {
		if c.Role == templates.RoleAnnotator && !sheet.Columns[i].Style.Unlocked {
			t.Error("the annotator column is locked")
		}
	}
}
