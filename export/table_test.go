package export_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/internal/csvsafe"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/recordtest"
)

// blockYAML marks errors in a text, an answer row each, typed by kind,
// with evidence and the earlier text a repetition repeats; done and note
// are asked once per block.
const blockYAML = `name: blk
version: 1
title: Errors
instructions: Mark each error on a row of its own.
input: {format: jsonl, id: "{id}"}
rows: {per: block, answer_rows: 2, spans: errors, label: kind}
context:
  - {name: text, header: Text, path: text}
  - {name: passages, header: Passages, path: passages, join: {item: "[P{$n1} S{$i2}] {$}"}}
questions:
  - {name: done, header: Done, type: bool, scope: block, required: true}
  - {name: note, header: Note, type: text, scope: block}
  - {name: span, header: Span, type: span, field: text}
  - {name: kind, header: Kind, type: choice, required: true, options: [{code: bad, label: Bad}, {code: odd, label: Odd one}]}
  - {name: evidence, header: Evidence, type: evidence, passages: passages}
  - {name: repeated, header: Repeated, type: span, field: text, before: span}
annotator: {claim: instance}
`

func load(t *testing.T, src string) *templates.Template {
	t.Helper()
	tp, err := templates.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func ptr(n int) *int { return &n }

// record is a record of tp.
func record(tp *templates.Template, unit, who, status string, vals map[string]any, spans ...records.SpanAnswer) *records.Annotation {
	if vals == nil {
		vals = map[string]any{}
	}
	return &records.Annotation{
		Schema: records.AnnotationSchema, Template: records.TemplateID{Name: tp.Name, Version: tp.Version},
		Batch: "b-" + who, Unit: unit, Item: unit, Annotator: who, Status: status, Values: vals, Spans: spans,
		Source: records.RecordSource{Kind: "xlsx", File: who + ".xlsx", Sheet: "Annotate", Rows: []int{2}},
	}
}

// gold makes a record a gold one, with the provenance of its values.
func gold(r *records.Annotation, prov map[string]string) *records.Annotation {
	r.Annotator, r.Batch = records.GoldAnnotator, "b-gold"
	r.Provenance = map[string]*records.Provenance{}
	for q, kind := range prov {
		r.Provenance[q] = &records.Provenance{Kind: kind}
	}
	return r
}

// project is the table's rows as text, the columns given only: a cell as
// CSV writes it, "∅" for an empty one.
func project(t *testing.T, tb *export.Table, cols ...string) [][]string {
	t.Helper()
	idx := map[string]int{}
	for i, c := range tb.Columns {
		idx[c.Name] = i
	}
	var out [][]string
	for _, row := range tb.Rows {
		var line []string
		for _, c := range cols {
			i, ok := idx[c]
			if !ok {
				t.Fatalf("no column %s in %v", c, tb.Columns)
			}
			switch v := row[i].(type) {
			case nil:
				line = append(line, "∅")
			case string:
				line = append(line, v)
			default:
				line = append(line, fmt.Sprintf("%T(%v)", v, v))
			}
		}
		out = append(out, line)
	}
	return out
}

// recordRecords: et records of two annotators and a gold set — every
// type of answer, an empty selection, an empty and a missing unit, and a
// value the gold set left unresolved.
func recordRecords(tp *templates.Template) ([]*records.Annotation, []*records.Annotation) {
	quote := records.SpanValue{Field: "text", Start: ptr(4), End: ptr(9), Text: "quick"}
	recs := []*records.Annotation{
		record(tp, "u1", "ak", records.StatusComplete, map[string]any{"pick": "y", "tags": []string{"1", "3"}, "score": 4, "quote": quote}),
		record(tp, "u1", "bt", records.StatusComplete, map[string]any{"pick": "n", "tags": []string{}, "score": 2}),
		record(tp, "u2", "ak", records.StatusEmpty, nil),
		record(tp, "u2", "bt", records.StatusMissing, nil),
	}
	g := []*records.Annotation{
		gold(record(tp, "u1", "", records.StatusPartial, map[string]any{"tags": []string{"1"}, "score": 3}),
			map[string]string{"pick": records.ProvenanceUnresolved, "tags": records.ProvenanceAdjudicated, "score": records.ProvenanceMajority}),
	}
	return recs, g
}

func TestLongRecordLayout(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	recs, g := recordRecords(tp)
	tb, err := export.Long(tp, recs, export.TableOptions{Gold: g})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range tb.Columns {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff(names, []string{"batch", "unit", "item", "annotator", "status", "question", "question_type", "value", "label", "number",
		"span_index", "span_field", "span_start", "span_end", "span_text", "evidence_passage", "evidence_sentences", "provenance"}); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	for _, c := range tb.Columns {
		if strings.Contains(c.Name, "values") || c.Doc == "" {
			t.Errorf("column %q: a name with \"values\", or no doc: %q", c.Name, c.Doc)
		}
	}
	got := project(t, tb, "unit", "annotator", "status", "question", "question_type", "value", "label", "number", "span_start", "span_end", "span_text", "provenance")
	want := [][]string{
		{"u1", "ak", "complete", "pick", "choice", "y", "Yes", "∅", "∅", "∅", "∅", "∅"},
		{"u1", "ak", "complete", "tags", "multi", "1", "One", "∅", "∅", "∅", "∅", "∅"},
		{"u1", "ak", "complete", "tags", "multi", "3", "Three", "∅", "∅", "∅", "∅", "∅"},
		{"u1", "ak", "complete", "score", "scale", "4", "∅", "int64(4)", "∅", "∅", "∅", "∅"},
		{"u1", "ak", "complete", "quote", "span", "∅", "∅", "∅", "int64(4)", "int64(9)", "quick", "∅"},
		{"u1", "bt", "complete", "pick", "choice", "n", "No", "∅", "∅", "∅", "∅", "∅"},
		{"u1", "bt", "complete", "tags", "multi", "", "∅", "∅", "∅", "∅", "∅", "∅"}, // an empty selection
		{"u1", "bt", "complete", "score", "scale", "2", "∅", "int64(2)", "∅", "∅", "∅", "∅"},
		{"u2", "ak", "empty", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅"},
		{"u2", "bt", "missing", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅"},
		{"u1", "gold", "partial", "tags", "multi", "1", "One", "∅", "∅", "∅", "∅", "adjudicated"},
		{"u1", "gold", "partial", "score", "scale", "3", "∅", "int64(3)", "∅", "∅", "∅", "majority"},
		{"u1", "gold", "partial", "pick", "choice", "∅", "∅", "∅", "∅", "∅", "∅", "unresolved"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("long table (-want +got):\n%s", diff)
	}
}

// blockRecords: blk records of two annotators and a gold set: spans with
// evidence and a repeated text, missing information without offsets, a
// block with no span, spans the gold set left unresolved, and gold spans
// decided in different ways.
func blockRecords(tp *templates.Template) ([]*records.Annotation, []*records.Annotation) {
	span := func(start, end int, text, code, label string) records.SpanAnswer {
		return records.SpanAnswer{Question: "errors", Field: "text", Start: ptr(start), End: ptr(end), Text: text, Code: code, Label: label}
	}
	repeated := span(10, 13, "two", "odd", "Odd one")
	repeated.Values = map[string]any{"repeated": records.SpanValue{Field: "text", Start: ptr(4), End: ptr(7), Text: "two"}}
	missing := records.SpanAnswer{Question: "errors", Code: "bad", Label: "Bad", Evidence: &records.Evidence{Passage: 2, Sentences: []int{0, 3}}}
	recs := []*records.Annotation{
		record(tp, "q1", "ak", records.StatusComplete, map[string]any{"done": true, "note": "=1+1"}, span(0, 3, "one", "bad", "Bad"), repeated, missing),
		record(tp, "q1", "bt", records.StatusComplete, map[string]any{"done": true}, span(0, 3, "one", "odd", "Odd one")),
		record(tp, "q2", "ak", records.StatusComplete, map[string]any{"done": true}),
		record(tp, "q2", "bt", records.StatusPartial, map[string]any{"done": false}),
	}
	kept := span(0, 3, "one", "bad", "Bad")
	kept.Provenance = &records.Provenance{Kind: records.ProvenanceAdjudicated}
	agreed := span(4, 7, "two", "odd", "Odd one")
	agreed.Provenance = &records.Provenance{Kind: records.ProvenanceUnanimous}
	g := []*records.Annotation{
		gold(record(tp, "q1", "", records.StatusPartial, map[string]any{"done": true}, kept),
			map[string]string{"done": records.ProvenanceUnanimous, "errors": records.ProvenanceUnresolved}),
		// Spans decided in different ways: "mixed" in the wide table.
		gold(record(tp, "q2", "", records.StatusComplete, map[string]any{"done": true}, kept, agreed),
			map[string]string{"done": records.ProvenanceMajority}),
	}
	return recs, g
}

func TestLongBlocks(t *testing.T) {
	t.Parallel()
	tp := load(t, blockYAML)
	recs, g := blockRecords(tp)
	tb, err := export.Long(tp, recs, export.TableOptions{Gold: g})
	if err != nil {
		t.Fatal(err)
	}
	got := project(t, tb, "unit", "annotator", "question", "question_type", "value", "label", "span_index", "span_field", "span_start", "span_end", "span_text", "evidence_passage", "evidence_sentences", "provenance")
	want := [][]string{
		{"q1", "ak", "done", "bool", "true", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅"},
		{"q1", "ak", "note", "text", "=1+1", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅"},
		{"q1", "ak", "errors", "span", "bad", "Bad", "int64(1)", "text", "int64(0)", "int64(3)", "one", "∅", "∅", "∅"},
		{"q1", "ak", "errors", "span", "odd", "Odd one", "int64(2)", "text", "int64(10)", "int64(13)", "two", "∅", "∅", "∅"},
		{"q1", "ak", "repeated", "span", "∅", "∅", "int64(2)", "text", "int64(4)", "int64(7)", "two", "∅", "∅", "∅"},
		{"q1", "ak", "errors", "span", "bad", "Bad", "int64(3)", "∅", "∅", "∅", "∅", "int64(2)", "0,3", "∅"},
		{"q1", "bt", "done", "bool", "true", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅"},
		{"q1", "bt", "errors", "span", "odd", "Odd one", "int64(1)", "text", "int64(0)", "int64(3)", "one", "∅", "∅", "∅"},
		{"q2", "ak", "done", "bool", "true", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅"},
		{"q2", "bt", "done", "bool", "false", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅"},
		{"q1", "gold", "done", "bool", "true", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "unanimous"},
		{"q1", "gold", "errors", "span", "bad", "Bad", "int64(1)", "text", "int64(0)", "int64(3)", "one", "∅", "∅", "adjudicated"},
		{"q1", "gold", "errors", "span", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "unresolved"},
		{"q2", "gold", "done", "bool", "true", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "∅", "majority"},
		{"q2", "gold", "errors", "span", "bad", "Bad", "int64(1)", "text", "int64(0)", "int64(3)", "one", "∅", "∅", "adjudicated"},
		{"q2", "gold", "errors", "span", "odd", "Odd one", "int64(2)", "text", "int64(4)", "int64(7)", "two", "∅", "∅", "unanimous"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("long table (-want +got):\n%s", diff)
	}
}

func TestWide(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		tp      *templates.Template
		records func(*templates.Template) ([]*records.Annotation, []*records.Annotation)
		// want has the columns, a column name followed by its cells in
		// each row.
		want [][]string
	}{
		{"record layout", recordtest.Template(t), recordRecords, [][]string{
			{"unit", "u1", "u2"},
			{"item", "u1", "u2"},
			{"batch__ak", "b-ak", "b-ak"}, {"batch__bt", "b-bt", "b-bt"}, {"batch__gold", "b-gold", "∅"},
			{"status__ak", "complete", "empty"}, {"status__bt", "complete", "missing"}, {"status__gold", "partial", "∅"},
			{"pick__ak", "y", "∅"}, {"pick__bt", "n", "∅"}, {"pick__gold", "∅", "∅"}, {"pick__gold_provenance", "unresolved", "∅"},
			{"tags=1__ak", "bool(true)", "∅"}, {"tags=1__bt", "bool(false)", "∅"}, {"tags=1__gold", "bool(true)", "∅"},
			{"tags=2__ak", "bool(false)", "∅"}, {"tags=2__bt", "bool(false)", "∅"}, {"tags=2__gold", "bool(false)", "∅"},
			{"tags=3__ak", "bool(true)", "∅"}, {"tags=3__bt", "bool(false)", "∅"}, {"tags=3__gold", "bool(false)", "∅"},
			{"tags__gold_provenance", "adjudicated", "∅"},
			{"score__ak", "int64(4)", "∅"}, {"score__bt", "int64(2)", "∅"}, {"score__gold", "int64(3)", "∅"}, {"score__gold_provenance", "majority", "∅"},
			{"quote__ak", "quick", "∅"}, {"quote__bt", "∅", "∅"}, {"quote__gold", "∅", "∅"}, {"quote__gold_provenance", "∅", "∅"},
		}},
		{"blocks", load(t, blockYAML), blockRecords, [][]string{
			{"unit", "q1", "q2"},
			{"item", "q1", "q2"},
			{"batch__ak", "b-ak", "b-ak"}, {"batch__bt", "b-bt", "b-bt"}, {"batch__gold", "b-gold", "b-gold"},
			{"status__ak", "complete", "complete"}, {"status__bt", "complete", "partial"}, {"status__gold", "partial", "complete"},
			{"done__ak", "bool(true)", "bool(true)"}, {"done__bt", "bool(true)", "bool(false)"}, {"done__gold", "bool(true)", "bool(true)"}, {"done__gold_provenance", "unanimous", "majority"},
			{"note__ak", "=1+1", "∅"}, {"note__bt", "∅", "∅"}, {"note__gold", "∅", "∅"}, {"note__gold_provenance", "∅", "∅"},
			{"errors__ak", "int64(3)", "int64(0)"}, {"errors__bt", "int64(1)", "int64(0)"}, {"errors__gold", "int64(1)", "int64(2)"},
			{"errors=bad__ak", "int64(2)", "int64(0)"}, {"errors=bad__bt", "int64(0)", "int64(0)"}, {"errors=bad__gold", "int64(1)", "int64(1)"},
			{"errors=odd__ak", "int64(1)", "int64(0)"}, {"errors=odd__bt", "int64(1)", "int64(0)"}, {"errors=odd__gold", "int64(0)", "int64(1)"},
			{"errors__gold_provenance", "unresolved", "mixed"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			recs, g := c.records(c.tp)
			tb, err := export.Wide(c.tp, recs, export.TableOptions{Gold: g})
			if err != nil {
				t.Fatal(err)
			}
			checkWide(t, tb, c.want)
		})
	}
}

// checkWide compares a wide table with its columns, as a column name
// followed by its cells in each row.
func checkWide(t *testing.T, tb *export.Table, want [][]string) {
	t.Helper()
	var names []string
	for _, c := range tb.Columns {
		names = append(names, c.Name)
	}
	rows := project(t, tb, names...)
	var got [][]string
	for i, n := range names {
		col := []string{n}
		for _, r := range rows {
			col = append(col, r[i])
		}
		got = append(got, col)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wide table, column by column (-want +got):\n%s", diff)
	}
}

// TestWideKinds: the wide table's columns are typed as their questions:
// a scale and a block's counts int64, a bool and a multi's codes bool,
// the rest strings.
func TestWideKinds(t *testing.T) {
	t.Parallel()
	tp := load(t, blockYAML)
	recs, _ := blockRecords(tp)
	tb, err := export.Wide(tp, recs, export.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]export.Kind{}
	for _, c := range tb.Columns {
		got[c.Name] = c.Kind
	}
	for name, kind := range map[string]export.Kind{"unit": export.KindString, "status__ak": export.KindString, "done__ak": export.KindBool, "note__bt": export.KindString, "errors__ak": export.KindInt, "errors=odd__bt": export.KindInt} {
		if got[name] != kind {
			t.Errorf("column %s is %v, want %v", name, got[name], kind)
		}
	}
	tb, err = export.Wide(recordtest.Template(t), nil, export.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 0 || len(tb.Columns) != 2 {
		t.Errorf("no records: %d rows and columns %v, want none and unit, item", len(tb.Rows), tb.Columns)
	}
}

// TestWideUnclaimedCopies: a unit nobody claimed, unanswered in two
// batches' copies, is one row of the wide table showing the first copy,
// and two rows of the long table.
func TestWideUnclaimedCopies(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	a := record(tp, "u1", "", records.StatusEmpty, nil)
	b := record(tp, "u1", "", records.StatusMissing, nil)
	a.Batch, b.Batch = "b01", "b02"
	wide, err := export.Wide(tp, []*records.Annotation{a, b}, export.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"u1", "b01", "empty"}}, project(t, wide, "unit", "batch__", "status__")); diff != "" {
		t.Errorf("wide (-want +got):\n%s", diff)
	}
	long, err := export.Long(tp, []*records.Annotation{a, b}, export.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"b01", "empty"}, {"b02", "missing"}}, project(t, long, "batch", "status")); diff != "" {
		t.Errorf("long (-want +got):\n%s", diff)
	}
}

func TestTableErrors(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	pref, err := templates.Builtin("preference-likert")
	if err != nil {
		t.Fatal(err)
	}
	shuffled := record(pref, "t1", "ak", records.StatusComplete, map[string]any{"first_prediction_likert": 3})
	shuffled.Shuffled = true
	opaque := record(tp, "item-0001", "ak", records.StatusEmpty, nil)
	opaque.OpaqueIDs = true
	status := load(t, strings.Replace(recordtest.YAML, "  - {name: score,", "  - {name: status, header: Status, type: text}\n  - {name: score,", 1))
	for _, c := range []struct {
		name  string
		tp    *templates.Template
		recs  []*records.Annotation
		opt   export.TableOptions
		want  error
		wants string
	}{
		{name: "another template", tp: tp, recs: []*records.Annotation{record(pref, "t1", "ak", records.StatusEmpty, nil)},
			want: export.ErrExport, wants: "ak.xlsx: Annotate row 2: cannot export: a record of template preference-likert version 1 among those of et version 2"},
		{name: "shuffled without the orders", tp: pref, recs: []*records.Annotation{shuffled},
			want: export.ErrExport, wants: "in the order its candidates were shown in; export with the study's manifest"},
		{name: "opaque IDs", tp: tp, recs: []*records.Annotation{opaque}, want: decode.ErrOpaqueIDs},
		{name: "a gold set of an annotator", tp: tp, opt: export.TableOptions{Gold: []*records.Annotation{record(tp, "u1", "ak", records.StatusEmpty, nil)}},
			want: export.ErrExport, wants: `unit u1 is a record of annotator "ak"; a gold set's records are annotator "gold"'s`},
		{name: "two different records of a unit", tp: tp, recs: []*records.Annotation{
			record(tp, "u1", "ak", records.StatusComplete, map[string]any{"pick": "y"}), record(tp, "u1", "ak", records.StatusComplete, map[string]any{"pick": "n"})},
			want: records.ErrConflict, wants: "recorded twice, differently"},
		{name: "two wide columns of one name", tp: status, recs: []*records.Annotation{record(status, "u1", "x", records.StatusEmpty, nil)},
			want: export.ErrExport, wants: `two columns named "status__x": from the status column and annotator "x" and from question "status" and annotator "x"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errLong := export.Long(c.tp, c.recs, c.opt)
			_, errWide := export.Wide(c.tp, c.recs, c.opt)
			if c.name == "two wide columns of one name" {
				if errLong != nil {
					t.Errorf("the long table: %v", errLong)
				}
				errLong = errWide
			}
			for _, err := range []error{errLong, errWide} {
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.wants) {
					t.Errorf("error %v, want %v with %q", err, c.want, c.wants)
				}
			}
		})
	}
}

// payloads are texts a spreadsheet could take for a formula, or that
// test the CSV's quoting.
var payloads = []string{"=cmd|' /C calc'!A0", "+1", "-1", "@SUM(1)", "\t=1", "\r=1", `say "hi", then`, "two\nlines", "<script>alert(1)</script>", "plain"}

// TestTableWriteCSVAndParquet: every text of a table goes through the CSV
// as itself, after csvsafe's prefix where a spreadsheet would read it as
// a formula, never as a formula; the Parquet file keeps it as it is and
// types its columns; numbers and booleans are written as such.
func TestTableWriteCSVAndParquet(t *testing.T) {
	t.Parallel()
	tb := &export.Table{Columns: []export.Column{{Name: "text", Kind: export.KindString}, {Name: "n", Kind: export.KindInt}, {Name: "ok", Kind: export.KindBool}, {Name: "=head", Kind: export.KindString}}}
	for i, p := range payloads {
		tb.Rows = append(tb.Rows, []any{p, int64(i - 3), i%2 == 0, nil})
	}
	tb.Rows = append(tb.Rows, []any{nil, nil, nil, ""})
	var b bytes.Buffer
	if err := tb.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	all, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"text", "n", "ok", "'=head"}}
	for i, p := range payloads {
		want = append(want, []string{csvsafe.Text(p), []string{"-3", "-2", "-1", "0", "1", "2", "3", "4", "5", "6"}[i], []string{"true", "false"}[i%2], ""})
	}
	want = append(want, []string{"", "", "", ""})
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("CSV read back (-want +got):\n%s", diff)
	}
	for _, rec := range all {
		for j, f := range rec {
			// Column n holds numbers, negative ones too.
			if j != 1 && f != "" && strings.IndexByte("=+-@\t\r", f[0]) >= 0 {
				t.Errorf("field %q starts like a formula", f)
			}
		}
	}
	// Parquet: the texts as they are, typed columns, nulls.
	b.Reset()
	if err := tb.WriteParquet(&b); err != nil {
		t.Fatal(err)
	}
	names, kinds, rows := readParquet(t, b.Bytes())
	if diff := cmp.Diff([]string{"text", "n", "ok", "=head"}, names); diff != "" {
		t.Errorf("Parquet columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"BYTE_ARRAY", "INT64", "BOOLEAN", "BYTE_ARRAY"}, kinds); diff != "" {
		t.Errorf("Parquet column types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(tb.Rows, rows); diff != "" {
		t.Errorf("Parquet rows (-want +got):\n%s", diff)
	}
}

// readParquet reads a Parquet file with parquet-go: its column names and
// physical types, and its rows as table cells.
func readParquet(t *testing.T, b []byte) ([]string, []string, [][]any) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names, kinds []string
	for _, field := range f.Schema().Fields() {
		names = append(names, field.Name())
		kinds = append(kinds, field.Type().Kind().String())
	}
	r := parquet.NewReader(f)
	defer r.Close()
	var out [][]any
	buf := make([]parquet.Row, 16)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			cells := make([]any, len(names))
			for _, v := range row {
				switch {
				case v.IsNull():
				case v.Kind() == parquet.ByteArray:
					cells[v.Column()] = string(v.ByteArray())
				case v.Kind() == parquet.Int64:
					cells[v.Column()] = v.Int64()
				case v.Kind() == parquet.Boolean:
					cells[v.Column()] = v.Boolean()
				}
			}
			out = append(out, cells)
		}
		if err != nil {
			break
		}
	}
	return names, kinds, out
}

// TestTableUnshuffles: a record still in the order its candidates were
// shown in is put back on its candidates with the study's orders: the
// likert of the first place shown belongs to the candidate shown there,
// and a choice of the first place means that candidate.
func TestTableUnshuffles(t *testing.T) {
	t.Parallel()
	pref, err := templates.Builtin("preference-likert")
	if err != nil {
		t.Fatal(err)
	}
	r := record(pref, "t1", "ak", records.StatusPartial, map[string]any{"best_prediction_topic": "first", "first_prediction_likert": 5, "third_prediction_likert": 1})
	r.Shuffled = true
	tb, err := export.Long(pref, []*records.Annotation{r}, export.TableOptions{Orders: map[string][]string{"t1": {"second", "third", "first"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"best_prediction_topic", "second"},
		{"second_prediction_likert", "5"},
		{"first_prediction_likert", "1"},
	}
	got := project(t, tb, "question", "value")
	slices.SortFunc(got, func(a, b []string) int { return strings.Compare(a[1], b[1]) })
	slices.SortFunc(want, func(a, b []string) int { return strings.Compare(a[1], b[1]) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unshuffled (-want +got):\n%s", diff)
	}
	if !r.Shuffled || r.Values["first_prediction_likert"] != 5 {
		t.Error("the caller's record was changed")
	}
}

// TestTableKeeps: CompleteOnly and Annotators leave records out of both
// tables, the gold set kept with any annotators named and left out,
// like any record, when it is not complete.
func TestTableKeeps(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	recs, g := recordRecords(tp)
	for _, c := range []struct {
		name string
		opt  export.TableOptions
		long []string // unit/annotator of the long table's records, once each
		wide []string // the wide table's status columns
	}{
		{"everything", export.TableOptions{}, []string{"u1/ak", "u1/bt", "u2/ak", "u2/bt", "u1/gold"}, []string{"status__ak", "status__bt", "status__gold"}},
		{"complete only", export.TableOptions{CompleteOnly: true}, []string{"u1/ak", "u1/bt"}, []string{"status__ak", "status__bt"}},
		{"one annotator, and gold", export.TableOptions{Annotators: []string{"bt"}}, []string{"u1/bt", "u2/bt", "u1/gold"}, []string{"status__bt", "status__gold"}},
	} {
		c.opt.Gold = g
		long, err := export.Long(tp, recs, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		seen := map[string]bool{}
		for _, row := range project(t, long, "unit", "annotator") {
			if k := row[0] + "/" + row[1]; !seen[k] {
				seen[k] = true
				got = append(got, k)
			}
		}
		if diff := cmp.Diff(c.long, got); diff != "" {
			t.Errorf("%s, long table (-want +got):\n%s", c.name, diff)
		}
		wide, err := export.Wide(tp, recs, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var status []string
		for _, col := range wide.Columns {
			if strings.HasPrefix(col.Name, "status__") {
				status = append(status, col.Name)
			}
		}
		if diff := cmp.Diff(c.wide, status); diff != "" {
			t.Errorf("%s, wide table (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestColumnsHelp: every long column is listed with its doc, wrapped so
// that no line of the list runs past the indent plus 70 characters, and
// the wide table's names follow.
func TestColumnsHelp(t *testing.T) {
	t.Parallel()
	h := export.ColumnsHelp()
	for _, c := range export.LongColumns() {
		if !strings.Contains(h, "   "+c.Name+" ") {
			t.Errorf("column %s is not listed", c.Name)
		}
	}
	long, _, _ := strings.Cut(h, "\nThe wide table")
	for _, line := range strings.Split(long, "\n") {
		if n := len([]rune(line)); n > 22+70 {
			t.Errorf("a line of %d characters: %q", n, line)
		}
	}
	if !strings.Contains(h, "\nThe wide table has a row per unit; its columns:\n   "+strings.SplitN(export.WideNames, "\n", 2)[0]+"\n") {
		t.Errorf("the wide table's names are not listed:\n%s", h)
	}
}
