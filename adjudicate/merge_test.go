package adjudicate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
)

// firstRun is the items of a first adjudication: numbered by Merge, then
// placed in workbooks as the caller does.
func firstRun(t *testing.T, found []*Item) []*Item {
	t.Helper()
	c := Merge(nil, nil, found, nil)
	for k, it := range c.Items {
		if want := fmt.Sprintf("d%04d", k+1); it.ID != want || it.Workbook != -1 {
			t.Fatalf("first run: item %d is %s in workbook %d, want %s, -1", k, it.ID, it.Workbook, want)
		}
		it.Workbook = k % 2
	}
	return c.Items
}

// units is the set of units a run found complete records of.
func units(us ...string) map[string]bool {
	out := map[string]bool{}
	for _, u := range us {
		out[u] = true
	}
	return out
}

// filledCell is a decision's cells as read back.
func filledCell(text string) map[string]backend.ReadCell {
	return map[string]backend.ReadCell{colFinal: {Value: text}, colReason: {Value: "other"}}
}

// itemsOf names items as "ID workbook unit question" (and a cluster's
// place).
func itemsOf(items []*Item) []string {
	var out []string
	for _, it := range items {
		s := fmt.Sprintf("%s w%d %s %s", it.ID, it.Workbook, it.Unit, it.Question)
		if it.Cluster != nil {
			s += fmt.Sprintf(" %d-%d", it.Cluster.Start, it.Cluster.End)
		}
		out = append(out, s)
	}
	return out
}

// TestMergeValues resumes an adjudication of values: an item found again
// keeps its ID, workbook and filled cells even when the answers changed;
// a new disagreement is numbered after the highest ID; a decided item the
// annotators now agree on is kept with its decision, an undecided one is
// dropped; and merging the same records again changes nothing.
func TestMergeValues(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	v := func(verdict string, score int) map[string]any {
		return map[string]any{"verdict": verdict, "tags": []string{}, "score": score}
	}
	before := find(t, tp, Options{},
		rec(tp, "u1", "a", v("good", 1)), rec(tp, "u1", "b", v("bad", 1)), // d0001 u1 verdict
		rec(tp, "u2", "a", v("good", 1)), rec(tp, "u2", "b", v("bad", 2)), // d0002 u2 verdict, d0003 u2 score
		rec(tp, "u3", "a", v("good", 1)), rec(tp, "u3", "b", v("good", 2)), // d0004 u3 score
	).Items
	prev := firstRun(t, before)
	decided := map[string]*Decision{
		"d0001": {Item: "d0001", Cells: filledCell("Good")},
		"d0002": {Item: "d0002", Cells: filledCell("Bad")},
		"d0003": {Item: "d0003"}, // a row read back with nothing filled
	}
	// Since: u1's answers changed but still differ; u2's verdict is now
	// agreed on (decided: kept) and so is its score (undecided: dropped);
	// u3 is as it was; u4 is new, with two disagreements.
	now := func() []*Item {
		return find(t, tp, Options{},
			rec(tp, "u1", "a", v("meh", 1)), rec(tp, "u1", "b", v("bad", 1)),
			rec(tp, "u2", "a", v("bad", 2)), rec(tp, "u2", "b", v("bad", 2)),
			rec(tp, "u3", "a", v("good", 1)), rec(tp, "u3", "b", v("good", 2)),
			rec(tp, "u4", "a", v("good", 3)), rec(tp, "u4", "b", v("bad", 2)),
		).Items
	}
	c := Merge(prev, decided, now(), units("u1", "u2", "u3", "u4"))
	want := []string{"d0001 w0 u1 verdict", "d0004 w1 u3 score", "d0005 w-1 u4 verdict", "d0006 w-1 u4 score", "d0002 w1 u2 verdict"}
	if diff := cmp.Diff(want, itemsOf(c.Items)); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if got := key(c.Items[0].Answers[0].Value); got != `"meh"` {
		t.Errorf("d0001 shows a's answer %s, want the answer as it is now", got)
	}
	if got := key(c.Items[4].Answers[0].Value); got != `"good"` {
		t.Errorf("d0002, kept, shows a's answer %s, want the answer it was decided on", got)
	}
	wantFilled := map[string]map[string]backend.ReadCell{"d0001": filledCell("Good"), "d0002": filledCell("Bad")}
	if diff := cmp.Diff(wantFilled, c.Filled); diff != "" {
		t.Errorf("filled cells (-want +got):\n%s", diff)
	}
	if len(c.Notes) != 1 || !strings.HasPrefix(c.Notes[0], "d0002 (unit u2)") {
		t.Errorf("notes %q, want one of d0002 kept", c.Notes)
	}

	// The next run, on the same records, with the workbooks written and
	// read back as they were, changes nothing.
	for _, it := range c.Items {
		if it.Workbook < 0 {
			it.Workbook = 1
		}
	}
	again := Merge(c.Items, map[string]*Decision{"d0001": {Cells: c.Filled["d0001"]}, "d0002": {Cells: c.Filled["d0002"]}}, now(), units("u1", "u2", "u3", "u4"))
	if diff := cmp.Diff(itemsOf(c.Items), itemsOf(again.Items)); diff != "" {
		t.Errorf("the second merge of the same records (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(wantFilled, again.Filled); diff != "" {
		t.Errorf("filled cells of the second merge (-want +got):\n%s", diff)
	}
	// Without the decided item of u2, which is no longer a disagreement,
	// its number is not given again.
	last := Merge(again.Items[:4], nil, append(now(), find(t, tp, Options{}, rec(tp, "u5", "a", v("good", 1)), rec(tp, "u5", "b", v("bad", 1))).Items...), units("u1", "u2", "u3", "u4", "u5"))
	if got := last.Items[len(last.Items)-1].ID; got != "d0007" {
		t.Errorf("a new item after d0006 is %s", got)
	}
}

// TestMergeNumbers numbers new items after the highest ID of the earlier
// run, whatever its order or gaps.
func TestMergeNumbers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		prev []string
		want string
	}{
		{nil, "d0001"},
		{[]string{"d0003", "d0009", "d0002"}, "d0010"},
		{[]string{"d0099"}, "d0100"},
		{[]string{"d9999"}, "d10000"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.prev, ","), func(t *testing.T) {
			t.Parallel()
			var prev []*Item
			for k, id := range c.prev {
				prev = append(prev, &Item{ID: id, Unit: fmt.Sprint("old", k), Kind: KindValue, Question: "verdict"})
			}
			got := Merge(prev, nil, []*Item{{Unit: "new", Kind: KindValue, Question: "verdict"}}, units("new", "old0", "old1", "old2"))
			if len(got.Items) != 1 || got.Items[0].ID != c.want || got.Items[0].Workbook != -1 {
				t.Errorf("items %v, want only %s in workbook -1", itemsOf(got.Items), c.want)
			}
		})
	}
}

// TestMergeClusters resumes an adjudication of spans: a cluster that
// gained a span is a new item that carries the decision of the one it
// grew from, with a note; an undecided cluster that changed is new and
// the old one dropped; a cluster as it was keeps its ID.
func TestMergeClusters(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, blockTemplate)
	done := map[string]any{"done": true}
	r := func(who string, spans ...records.SpanAnswer) *records.Annotation {
		return rec(tp, "u1", who, done, spans...)
	}
	before := find(t, tp, Options{},
		r("a", sp(0, 3, "bad"), sp(8, 13, "odd"), missing("odd")),
		r("b", sp(0, 7, "bad"), sp(14, 17, "bad")),
	).Items
	prev := firstRun(t, before) // d0001 0-7, d0002 8-13, d0003 14-17, d0004 missing odd
	if diff := cmp.Diff([]string{"d0001 w0 u1 errors 0-7", "d0002 w1 u1 errors 8-13", "d0003 w0 u1 errors 14-17", "d0004 w1 u1 errors -1--1"}, itemsOf(prev)); diff != "" {
		t.Fatalf("first run (-want +got):\n%s", diff)
	}
	keep := map[string]backend.ReadCell{colDecision: {Value: "keep"}}
	decided := map[string]*Decision{"d0001": {Cells: keep}, "d0003": {Cells: keep}}
	// b adds a span to the first cluster (decided) and to the second
	// (undecided); the third and the missing odd are as they were.
	now := find(t, tp, Options{},
		r("a", sp(0, 3, "bad"), sp(8, 13, "odd"), missing("odd")),
		r("b", sp(0, 7, "bad"), sp(4, 9, "odd"), sp(14, 17, "bad")),
	).Items
	c := Merge(prev, decided, now, units("u1"))
	want := []string{"d0005 w-1 u1 errors 0-13", "d0003 w0 u1 errors 14-17", "d0004 w1 u1 errors -1--1"}
	if diff := cmp.Diff(want, itemsOf(c.Items)); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]map[string]backend.ReadCell{"d0005": keep, "d0003": keep}, c.Filled); diff != "" {
		t.Errorf("filled cells (-want +got):\n%s", diff)
	}
	if len(c.Notes) != 1 || !strings.HasPrefix(c.Notes[0], "d0001 (unit u1)") || !strings.Contains(c.Notes[0], "d0005") {
		t.Errorf("notes %q, want one that d0001's decision went to d0005", c.Notes)
	}
	// Run again on the same records: the carried decision stays with
	// d0005, and nothing is added or numbered anew.
	c.Items[0].Workbook = 1
	again := Merge(c.Items, map[string]*Decision{"d0005": {Cells: keep}, "d0003": {Cells: keep}}, find(t, tp, Options{},
		r("a", sp(0, 3, "bad"), sp(8, 13, "odd"), missing("odd")),
		r("b", sp(0, 7, "bad"), sp(4, 9, "odd"), sp(14, 17, "bad")),
	).Items, units("u1"))
	if diff := cmp.Diff([]string{"d0005 w1 u1 errors 0-13", "d0003 w0 u1 errors 14-17", "d0004 w1 u1 errors -1--1"}, itemsOf(again.Items)); diff != "" {
		t.Errorf("second merge (-want +got):\n%s", diff)
	}
	if len(again.Notes) != 0 {
		t.Errorf("second merge notes %q", again.Notes)
	}
}
