package decode_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// blockRow is a row of blockTemplate's Annotate sheet: ID, Text, Done,
// Span, Kind, annotator, unit.
func blockRow(done, span, kind, who string) []string {
	return []string{"", "", done, span, kind, who, ""}
}

// filledBlocks is blockTemplate's workbook with answers: b1 (rows 2-4)
// has two errors, b2 (rows 5-7) one.
func filledBlocks(t *testing.T) *memBook {
	t.Helper()
	tp, err := templates.Load("blocks.yaml", []byte(blockTemplate))
	if err != nil {
		t.Fatal(err)
	}
	m := newMemBook(t, tp, blockRecords)
	for _, c := range []struct {
		row                   int
		done, span, kind, who string
	}{
		{2, "TRUE", "one", "Bad", "AK"},
		{3, "", "two", "Odd", "AK"},
		{5, "TRUE", "five", "Odd", "AK"},
	} {
		m.setRow(c.row, "q:done", c.done)
		m.setRow(c.row, "q:span", c.span)
		m.setRow(c.row, "q:kind", c.kind)
		m.setRow(c.row, "annotator", c.who)
	}
	return m
}

// moveRows moves the sheet rows [from, to] (1-based, inclusive) to just
// above row before, as an annotator cuts rows and inserts them elsewhere.
func moveRows(m *memBook, from, to, before int) {
	rows := m.annotate()
	cut := slices.Clone(rows[from-1 : to])
	rest := slices.Delete(slices.Clone(rows), from-1, to)
	at := before - 1
	if before > to {
		at -= to - from + 1
	}
	m.sheets[backend.SheetAnnotate] = slices.Insert(rest, at, cut...)
}

func insertRow(m *memBook, before int, row []string) {
	m.sheets[backend.SheetAnnotate] = slices.Insert(m.annotate(), before-1, row)
}

func span(row, start, end int, text, label string) records.SpanAnswer {
	return records.SpanAnswer{Question: "errors", Row: row, Field: "text", Start: ptr(start), End: ptr(end), Text: text, Label: label, Code: map[string]string{"Bad": "bad", "Odd": "odd"}[label]}
}

// TestPullBlockRows changes the rows of filled blocks the way annotators
// do: a deleted answer row is reported and the block is not complete;
// inserted rows stay with their block wherever the blocks are moved, and a
// block's spans keep the order they were written in.
func TestPullBlockRows(t *testing.T) {
	type unit struct {
		Status string
		Spans  []records.SpanAnswer
		Rows   []int
	}
	b1 := []records.SpanAnswer{span(2, 0, 3, "one", "Bad"), span(3, 4, 7, "two", "Odd")}
	b2 := []records.SpanAnswer{span(5, 5, 9, "five", "Odd")}
	cases := []struct {
		name  string
		edit  func(m *memBook)
		want  map[string]unit
		probs []prob
	}{
		{name: "as filled", edit: func(*memBook) {}, want: map[string]unit{
			"b1": {"complete", b1, []int{2, 3, 4}},
			"b2": {"complete", b2, []int{5, 6, 7}},
		}},
		{name: "an empty answer row deleted", edit: func(m *memBook) {
			m.sheets[backend.SheetAnnotate] = slices.Delete(m.annotate(), 3, 4)
		}, want: map[string]unit{
			"b1": {"partial", b1, []int{2, 3}},
			"b2": {"complete", []records.SpanAnswer{span(4, 5, 9, "five", "Odd")}, []int{4, 5, 6}},
		}, probs: []prob{
			{"error", "2:3", "b1", `block "b1" had 3 rows when generated (rows 2-4); 1 is not in the sheet: deleted, with any answers it held; the block is now on rows 2, 3`, decode.ErrDeletedRow},
		}},
		{name: "an answered row deleted", edit: func(m *memBook) {
			m.sheets[backend.SheetAnnotate] = slices.Delete(m.annotate(), 2, 3)
		}, want: map[string]unit{
			"b1": {"partial", b1[:1], []int{2, 3}},
			"b2": {"complete", []records.SpanAnswer{span(4, 5, 9, "five", "Odd")}, []int{4, 5, 6}},
		}, probs: []prob{
			{"error", "2:3", "b1", `block "b1" had 3 rows when generated (rows 2-4); 1 is not in the sheet: deleted, with any answers it held; the block is now on rows 2, 3`, decode.ErrDeletedRow},
		}},
		{name: "a row inserted, another deleted", edit: func(m *memBook) {
			insertRow(m, 3, blockRow("", "three", "Bad", "AK"))
			m.sheets[backend.SheetAnnotate] = slices.Delete(m.annotate(), 3, 4)
		}, want: map[string]unit{
			"b1": {"partial", []records.SpanAnswer{span(2, 0, 3, "one", "Bad"), span(3, 8, 13, "three", "Bad")}, []int{2, 3, 4}},
			"b2": {"complete", b2, []int{5, 6, 7}},
		}, probs: []prob{
			{"error", "2:4", "b1", `block "b1" had 3 rows when generated (rows 2-4); 1 is not in the sheet: deleted, with any answers it held; the block is now on rows 2, 3, 4`, decode.ErrDeletedRow},
		}},
		{name: "the blocks swapped", edit: func(m *memBook) {
			moveRows(m, 5, 7, 2)
		}, want: map[string]unit{
			"b1": {"complete", []records.SpanAnswer{span(5, 0, 3, "one", "Bad"), span(6, 4, 7, "two", "Odd")}, []int{5, 6, 7}},
			"b2": {"complete", []records.SpanAnswer{span(2, 5, 9, "five", "Odd")}, []int{2, 3, 4}},
		}},
		{name: "a row inserted, then the blocks swapped", edit: func(m *memBook) {
			insertRow(m, 3, blockRow("", "three", "Bad", "AK"))
			moveRows(m, 6, 8, 2)
		}, want: map[string]unit{
			"b1": {"complete", []records.SpanAnswer{span(5, 0, 3, "one", "Bad"), span(6, 8, 13, "three", "Bad"), span(7, 4, 7, "two", "Odd")}, []int{5, 6, 7, 8}},
			"b2": {"complete", []records.SpanAnswer{span(2, 5, 9, "five", "Odd")}, []int{2, 3, 4}},
		}},
		{name: "rows inserted in both blocks, then moved apart", edit: func(m *memBook) {
			insertRow(m, 3, blockRow("", "three", "Bad", "AK"))
			insertRow(m, 8, blockRow("", "four", "Bad", "AK"))
			moveRows(m, 6, 9, 2) // b2, its inserted row included, to the top
		}, want: map[string]unit{
			"b1": {"complete", []records.SpanAnswer{span(6, 0, 3, "one", "Bad"), span(7, 8, 13, "three", "Bad"), span(8, 4, 7, "two", "Odd")}, []int{6, 7, 8, 9}},
			"b2": {"complete", []records.SpanAnswer{span(2, 5, 9, "five", "Odd"), span(4, 0, 4, "four", "Bad")}, []int{2, 3, 4, 5}},
		}},
		{name: "a row inserted at the top", edit: func(m *memBook) {
			insertRow(m, 2, blockRow("", "three", "Bad", "AK"))
		}, want: map[string]unit{
			"b1": {"complete", []records.SpanAnswer{span(2, 8, 13, "three", "Bad"), span(3, 0, 3, "one", "Bad"), span(4, 4, 7, "two", "Odd")}, []int{2, 3, 4, 5}},
			"b2": {"complete", []records.SpanAnswer{span(6, 5, 9, "five", "Odd")}, []int{6, 7, 8}},
		}},
		{name: "an inserted row left with no block", edit: func(m *memBook) {
			m.sheets[backend.SheetAnnotate] = append(m.annotate()[:1], blockRow("", "three", "Bad", "AK"))
		}, want: map[string]unit{
			"b1": {"missing", nil, []int{}},
			"b2": {"missing", nil, []int{}},
		}, probs: []prob{
			{"error", "", "b1", `unit "b1" (row 2 when generated) is not in the sheet: was its row deleted?`, decode.ErrMissingUnit},
			{"error", "", "b2", `unit "b2" (row 5 when generated) is not in the sheet: was its row deleted?`, decode.ErrMissingUnit},
			{"error", "2:2", "", `the row's answers cannot be read: it belongs to no unit (an inserted row?); they are D2="three", E2="Bad", F2="AK"`, decode.ErrLayout},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := filledBlocks(t)
			c.edit(m)
			p := pullMem(t, m, decode.PullOptions{})
			got := map[string]unit{}
			for _, r := range p.Records {
				got[r.Unit] = unit{r.Status, r.Spans, r.Source.Rows}
			}
			if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.probs, probs(p.Problems), cmpErr, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, pr := range p.Problems {
				if r := record(p, pr.Record); r != nil && !slices.ContainsFunc(r.Problems, func(u records.UnitProblem) bool { return u.Message == pr.Message }) {
					t.Errorf("record %s lacks its problem %q", r.Unit, pr.Message)
				}
			}
		})
	}
}
