package adjudicate

import (
	"fmt"
	"testing"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/backendtest"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// recordTemplate asks one row per record: a required choice, a multi of
// checkboxes, an optional tick whose header makes a sheet name that needs
// quotes, a scale and a free text.
const recordTemplate = `name: rec
version: 1
title: Records
instructions: Judge each text.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: verdict, header: Verdict, type: choice, required: true, options: [{code: good, label: Good}, {code: bad, label: Bad}, {code: meh, label: Meh}]}
  - {name: tags, header: Tags, type: multi, options: [{code: a, label: Alpha}, {code: b, label: Beta}]}
  - {name: fine, header: "It's fine!", type: bool}
  - {name: score, header: Score, type: scale, min: 1, max: 5}
  - {name: remark, header: Remark, type: text}
annotator: {claim: instance}
`

// blockTemplate marks spans of a text, one answer row each, typed by
// kind; done is asked once per block. The title is a second field spans
// could be of.
const blockTemplate = `name: spans
version: 2
title: Errors in a text
instructions: Mark each error of the text on a row of its own.
input: {format: jsonl, id: "{id}"}
rows: {per: block, answer_rows: 2, spans: errors, label: kind}
context:
  - {name: title, header: Title, path: title}
  - {name: text, header: Text, path: text}
questions:
  - {name: done, header: Finished, type: bool, scope: block, required: true}
  - {name: span, header: Error span, type: span, field: text}
  - name: kind
    header: Error type
    type: choice
    required: true
    options: [{code: bad, label: Bad}, {code: odd, label: Odd}]
annotator: {claim: instance, header: Annotator}
`

// blockText is the text of every unit of blockTemplate in these tests.
const blockText = "one two three one four"

func loadTemplate(t *testing.T, src string) *templates.Template {
	t.Helper()
	tp, err := templates.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// rec is a complete record of a unit by an annotator.
func rec(tp *templates.Template, unit, who string, vals map[string]any, spans ...records.SpanAnswer) *records.Annotation {
	if vals == nil {
		vals = map[string]any{}
	}
	return &records.Annotation{
		Schema: records.AnnotationSchema, Template: records.TemplateID{Name: tp.Name, Version: tp.Version},
		Unit: unit, Item: unit, Annotator: who, Status: records.StatusComplete, Values: vals, Spans: spans,
	}
}

func ptr(n int) *int { return &n }

// sp is a span of blockText's field, [start, end) in code points.
func sp(start, end int, code string) records.SpanAnswer {
	return records.SpanAnswer{Question: "errors", Field: "text", Start: ptr(start), End: ptr(end), Text: decode.Substring(blockText, start, end), Code: code, Label: label(code)}
}

// missing is an answer row without a span, of a kind.
func missing(code string) records.SpanAnswer {
	return records.SpanAnswer{Question: "errors", Code: code, Label: label(code)}
}

func label(code string) string {
	return map[string]string{"bad": "Bad", "odd": "Odd"}[code]
}

// memGrid is a workbook held in memory as a backend reads one, to be
// tampered with as adjudicators do.
type memGrid struct {
	order  []string
	sheets map[string][][]backend.ReadCell
}

// render lays a plan out as cells: text as text, numbers as numbers,
// ticks as TRUE or FALSE.
func render(t *testing.T, p *backend.Plan) *memGrid {
	t.Helper()
	order, sheets, err := backendtest.PlanCells(p)
	if err != nil {
		t.Fatal(err)
	}
	return &memGrid{order: order, sheets: sheets}
}

func (m *memGrid) grid() *backend.Grid {
	return &backend.Grid{Kind: backend.KindXLSX, Name: "adj.xlsx", Sheets: m.order, Rows: func(sheet string, fn func(int, []backend.ReadCell) error) error {
		for i, r := range m.sheets[sheet] {
			if err := fn(i+1, r); err != nil {
				return err
			}
		}
		return nil
	}}
}

// col is the 0-based column of a header on a sheet.
func (m *memGrid) col(t *testing.T, sheet, header string) int {
	t.Helper()
	for i, c := range m.sheets[sheet][0] {
		if c.Value == header {
			return i
		}
	}
	t.Fatalf("sheet %s has no column %q", sheet, header)
	return -1
}

// row is the 1-based row of a decision ID on a sheet.
func (m *memGrid) row(t *testing.T, sheet, id string) int {
	t.Helper()
	for i, r := range m.sheets[sheet] {
		if len(r) > 0 && r[0].Value == id {
			return i + 1
		}
	}
	t.Fatalf("sheet %s has no row %s", sheet, id)
	return -1
}

// set fills the cell of a decision's row under a header.
func (m *memGrid) set(t *testing.T, sheet, id, header string, c backend.ReadCell) {
	t.Helper()
	r, i := m.row(t, sheet, id)-1, m.col(t, sheet, header)
	m.sheets[sheet][r][i] = c
}

func (m *memGrid) setText(t *testing.T, sheet, id, header, text string) {
	t.Helper()
	m.set(t, sheet, id, header, backend.ReadCell{Value: text})
}

// cellOf is the A1 name of a decision's cell under a header.
func (m *memGrid) cellOf(t *testing.T, sheet, id, header string) string {
	t.Helper()
	return backend.CellName(m.col(t, sheet, header), m.row(t, sheet, id))
}

// number gives items the IDs d0001 … in order, all in workbook 0.
func number(items []*Item) []*Item {
	for k, it := range items {
		it.ID, it.Workbook = fmt.Sprintf("d%04d", k+1), 0
	}
	return items
}

// find is Find that fails the test on an error.
func find(t *testing.T, tp *templates.Template, opt Options, recs ...*records.Annotation) *Found {
	t.Helper()
	f, err := Find(tp, recs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// book is an adjudication workbook of found's items for adjudicator
// "lead", with annotators shown as "Annotator 1" …, rendered as cells.
func book(t *testing.T, tp *templates.Template, f *Found) (*memGrid, *Reading) {
	t.Helper()
	items := number(f.Items)
	names := make([]string, len(f.Annotators))
	for k := range names {
		names[k] = fmt.Sprintf("Annotator %d", k+1)
	}
	for _, it := range items {
		if it.Cluster != nil && it.Cluster.Start >= 0 {
			text := blockText
			it.Cluster.Text = &text
		}
	}
	p, err := Plan(&Book{Template: tp, Adjudication: "adj1", Adjudicator: "lead", Items: items, Annotators: f.Annotators, Names: names, Limits: backend.XLSX})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	return render(t, p), &Reading{Template: tp, Items: byID, Annotators: f.Annotators, Names: names, File: "adj.xlsx"}
}

// read reads a workbook's decisions, failing the test on an error.
func read(t *testing.T, m *memGrid, rd *Reading) (map[string]*Decision, records.Problems) {
	t.Helper()
	g := m.grid()
	meta, err := ReadMeta(g)
	if err != nil {
		t.Fatal(err)
	}
	r := *rd
	r.Meta = meta
	d, probs, err := r.Read(g)
	if err != nil {
		t.Fatal(err)
	}
	return d, probs
}

// problemsOf names problems as "severity Sheet!Cell unit: message".
func problemsOf(ps records.Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s %s!%s %s: %s", p.Severity, p.Sheet, p.Cell, p.Record, p.Message))
	}
	return out
}
