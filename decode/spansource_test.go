package decode_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

const blockSpans = `name: bs
version: 1
title: Block spans
instructions: Copy the errors.
input: {format: jsonl, id: "{id}"}
rows: {per: block, answer_rows: 3}
context:
  - {name: text, header: Text, path: text}
  - {name: other, header: Other, path: other}
questions:
  - {name: quote, header: Quote, type: span, field: text}
annotator: {claim: instance}
`

// TestSpanSources checks the context columns spans are copied from: open
// to select in, with a note that says edits are ignored, while other
// context stays locked; and on pull, spans found in the text as generated
// and a warning on every cell whose text is not what was generated there.
func TestSpanSources(t *testing.T) {
	t.Parallel()
	ks, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := templates.Load("bs.yaml", []byte(blockSpans))
	if err != nil {
		t.Fatal(err)
	}
	const bsRecords = `{"id": "b1", "text": "one two\nthree two", "other": "x"}
{"id": "b2", "text": "four", "other": "y"}
`
	bsTail, err := templates.Load("bs.yaml", []byte(strings.Replace(blockSpans, "path: text}", "path: text, show: tail}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	long := `{"id": "long", "text": "start ` + strings.Repeat("word ", 8000) + `end", "other": "x"}` + "\n"
	const changed = `the text of "Text" was changed here; the change is ignored: spans are found in the text as it was generated`
	type edit struct {
		row       int // 1-based, on the Annotate sheet
		key, text string
		change    func(string) string // when set, makes the text from the cell's
	}
	type prob struct{ Cell, Unit, Message string }
	cases := []struct {
		name    string
		tp      *templates.Template
		records string
		edits   []edit
		probs   []prob
		spans   map[string]records.SpanValue // unit -> its quote
	}{
		{
			name: "untouched", tp: ks, records: ksRecords,
			edits: []edit{{row: 2, key: "q:quote", text: "the mat"}, {row: 2, key: "annotator", text: "AK"}, {row: 2, key: "q:pick", text: "Yes"}},
			spans: map[string]records.SpanValue{"r1": {Field: "text", Start: ptr(15), End: ptr(22), Text: "the mat"}},
		},
		{
			name: "changed: the span is found in the text as generated", tp: ks, records: ksRecords,
			edits: []edit{{row: 2, key: "context:text", text: "the dog sat"}, {row: 2, key: "q:quote", text: "the mat"}, {row: 2, key: "annotator", text: "AK"}, {row: 2, key: "q:pick", text: "Yes"}},
			probs: []prob{{"B2", "r1", `the text of "Text" was changed here; the change is ignored: spans are found in the text as it was generated`}},
			spans: map[string]records.SpanValue{"r1": {Field: "text", Start: ptr(15), End: ptr(22), Text: "the mat"}},
		},
		{
			name: "deleted on a row that showed it", tp: ks, records: ksRecords,
			edits: []edit{{row: 3, key: "context:text", text: ""}},
			probs: []prob{{"B3", "r2", `the text of "Text" was deleted here; the change is ignored: spans are found in the text as it was generated`}},
		},
		{
			name: "other line breaks are the same text", tp: bs, records: bsRecords,
			edits: []edit{{row: 2, key: "context:text", text: "one two\r\nthree two"}, {row: 2, key: "q:quote", text: "three"}},
			spans: map[string]records.SpanValue{"b1": {Field: "text", Start: ptr(8), End: ptr(13), Text: "three"}},
		},
		{
			name: "typed below a block's first row, and deleted on a first row", tp: bs, records: bsRecords,
			edits: []edit{{row: 3, key: "context:text", text: "a note of mine"}, {row: 5, key: "context:text", text: ""}},
			probs: []prob{
				{"B3", "b1", `the text of "Text" was changed here; the change is ignored: spans are found in the text as it was generated`},
				{"B5", "b2", `the text of "Text" was deleted here; the change is ignored: spans are found in the text as it was generated`},
			},
		},
		{
			name: "text cut to fit its cell is the text generated", tp: bs, records: long,
			edits: []edit{{row: 2, key: "q:quote", text: "end"}},
			spans: map[string]records.SpanValue{"long": {Field: "text", Start: ptr(40006), End: ptr(40009), Text: "end"}},
		},
		{
			name: "its tail, saved with other line breaks, too", tp: bsTail, records: long,
			edits: []edit{{row: 2, key: "context:text", change: func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }}},
		},
		{
			name: "an edit in the part a cut cell shows", tp: bs, records: long,
			edits: []edit{{row: 2, key: "context:text", change: func(s string) string { return strings.Replace(s, "start", "begin", 1) }}},
			probs: []prob{{"B2", "long", changed}},
		},
		{
			name: "an edit in the tail a cut cell shows", tp: bsTail, records: long,
			edits: []edit{{row: 2, key: "context:text", change: func(s string) string { return strings.Replace(s, "end\n", "fin\n", 1) }}},
			probs: []prob{{"B2", "long", changed}},
		},
		{
			name: "a cut cell's last line edited", tp: bsTail, records: long,
			edits: []edit{{row: 2, key: "context:text", change: func(s string) string { return strings.Replace(s, "characters are shown", "characters shown", 1) }}},
			probs: []prob{{"B2", "long", changed}},
		},
		{
			name: "other context is not compared", tp: bs, records: bsRecords,
			edits: []edit{{row: 2, key: "context:other", text: "changed"}, {row: 5, key: "context:other", text: ""}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMemBook(t, c.tp, c.records)
			for _, e := range c.edits {
				if e.change != nil {
					before := m.annotate()[e.row-1][m.col(e.key)]
					if e.text = e.change(before); e.text == before {
						t.Fatalf("the edit of row %d changes nothing: %.80q", e.row, before)
					}
				}
				m.setRow(e.row, e.key, e.text)
			}
			p := pullMem(t, m, decode.PullOptions{})
			var got []prob
			for _, pr := range p.Problems {
				if errors.Is(pr.Err, decode.ErrContextEdited) {
					got = append(got, prob{pr.Cell, pr.Record, pr.Message})
				}
			}
			if diff := cmp.Diff(c.probs, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for unit, want := range c.spans {
				r := record(p, unit)
				var quote any = r.Values["quote"]
				if len(r.Spans) > 0 {
					s := r.Spans[0]
					quote = records.SpanValue{Field: s.Field, Start: s.Start, End: s.End, Text: s.Text}
				}
				if diff := cmp.Diff(want, quote); diff != "" {
					t.Errorf("%s: quote (-want +got):\n%s", unit, diff)
				}
			}
		})
	}
}
