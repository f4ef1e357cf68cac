package decode_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ksGiven are a model's answers to the kitchen sink's r1 (every type; the
// quote is the second "the cat") and r2, as canonical records.
const ksGiven = `{"schema": "annosheet.annotation/1", "template": {"name": "ks", "version": 1}, "batch": "m", "unit": "r1", "item": "r1", "annotator": "gpt4o", "status": "complete", "values": {"pick": "y", "tags": ["b", "c"], "codes": ["1", "3"], "score": 4, "ok": true, "note": "as the model saw it", "quote": {"field": "text", "start": 24, "end": 31, "text": "the cat"}, "earlier": {"field": "text", "text": "mat"}, "ev": {"passage": 1, "sentences": [1, 2]}}, "source": {"kind": "model", "file": "", "sheet": "", "rows": []}, "problems": []}
{"schema": "annosheet.annotation/1", "template": {"name": "ks", "version": 1}, "batch": "m", "unit": "r2", "item": "r2", "annotator": "gpt4o", "status": "complete", "values": {"pick": "n", "note": "why not"}, "source": {"kind": "model", "file": "", "sheet": "", "rows": []}, "problems": []}
`

// prefilledBook is the kitchen sink's workbook with ksGiven prefilled as
// answers, made for annotator ("" for a shared one).
func prefilledBook(t *testing.T, annotator string) (*templates.Template, *memBook) {
	t.Helper()
	return prefilledBookAs(t, annotator, layout.PrefillAnswers)
}

// prefilledBookAs is prefilledBook with ksGiven shown as given.
func prefilledBookAs(t *testing.T, annotator, as string) (*templates.Template, *memBook) {
	t.Helper()
	tp, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	g, bad := records.ReadGivenFrom(strings.NewReader(ksGiven), "model.jsonl", tp, "")
	if len(bad) > 0 {
		t.Fatal(bad)
	}
	return tp, newMemBookWith(t, tp, ksRecords, layout.Options{Seed: 1, Study: "s1", Prefill: g, PrefillAs: as, Annotator: annotator})
}

// TestPrefillCells: each type's given answer is in its cells as an
// annotator would have written it, and again in its hidden copy column.
func TestPrefillCells(t *testing.T) {
	t.Parallel()
	_, m := prefilledBook(t, "")
	want := map[string]string{
		"q:pick": "Yes", "q:tags=a": "FALSE", "q:tags=b": "TRUE", "q:tags=c": "TRUE", "q:codes": "1,3", "q:score": "4", "q:ok": "TRUE",
		"q:note": "as the model saw it", "q:quote": "the cat", "q:quote#occurrence": "2", "q:earlier": "mat", "q:ev#passage": "1", "q:ev#sentences": "1, 2",
		"annotator": "",
	}
	row := m.annotate()[m.rows["r1"]-1]
	for key, w := range want {
		if got := row[m.col(key)]; got != w {
			t.Errorf("r1 %s = %q, want %q", key, got, w)
		}
		if key == "annotator" {
			continue
		}
		if got := row[m.col("s:"+key)]; got != w {
			t.Errorf("r1's copy of %s = %q, want %q", key, got, w)
		}
	}
	for i, c := range m.annotate()[m.rows["r3"]-1] {
		if c != "" && m.annotate()[0][i] != "ID" && m.annotate()[0][i] != "Text" && m.annotate()[0][i] != "Check" && !strings.HasPrefix(m.annotate()[0][i], "Unit") {
			t.Errorf("r3, given nothing, has %q in %q", c, m.annotate()[0][i])
		}
	}
}

// TestPrefillPull: what pull makes of prefilled rows, as annotators leave
// them: untouched rows are not answered; the annotator's ID marks a row
// checked; each given question is kept, changed or cleared.
func TestPrefillPull(t *testing.T) {
	t.Parallel()
	allKept := map[string]string{"pick": "kept", "tags": "kept", "codes": "kept", "score": "kept", "ok": "kept", "note": "kept", "quote": "kept", "earlier": "kept", "ev": "kept"}
	for _, c := range []struct {
		name      string
		annotator string // the workbook's
		edit      func(m *memBook)
		status    string
		trace     map[string]string // r1's; nil for none
		values    map[string]any    // r1's, the ones checked
		probs     []prob
	}{
		{name: "untouched", edit: func(m *memBook) {}, status: records.StatusEmpty},
		{name: "untouched, for one annotator", annotator: "ak", edit: func(m *memBook) {}, status: records.StatusEmpty},
		{name: "checked, every suggestion kept", edit: func(m *memBook) { m.set("r1", "annotator", "ak") },
			status: records.StatusComplete, trace: allKept, values: map[string]any{"pick": "y", "score": 4, "tags": []string{"b", "c"}}},
		{name: "checked, some changed and one cleared", edit: func(m *memBook) {
			m.set("r1", "annotator", "ak")
			m.set("r1", "q:pick", "Unsure, really")
			m.set("r1", "q:tags=b", "FALSE")
			m.set("r1", "q:note", "")
			m.set("r1", "q:quote", "left")
			m.set("r1", "q:quote#occurrence", "")
		}, status: records.StatusComplete,
			trace:  map[string]string{"pick": "changed", "tags": "changed", "codes": "kept", "score": "kept", "ok": "kept", "note": "cleared", "quote": "changed", "earlier": "kept", "ev": "kept"},
			values: map[string]any{"pick": "u", "tags": []string{"c"}, "quote": records.SpanValue{Field: "text", Start: ptr(32), End: ptr(36), Text: "left"}}},
		{name: "changed in a shared workbook without an ID", edit: func(m *memBook) { m.set("r1", "q:score", "2") }, status: records.StatusPartial,
			trace: map[string]string{"pick": "kept", "tags": "kept", "codes": "kept", "score": "changed", "ok": "kept", "note": "kept", "quote": "kept", "earlier": "kept", "ev": "kept"},
			probs: []prob{{"error", "AC2", "r1", "the row has answers but no annotator ID", decode.ErrAnnotator}}},
		{name: "changed in an annotator's workbook without an ID", annotator: "ak", edit: func(m *memBook) { m.set("r1", "q:score", "2") }, status: records.StatusComplete,
			trace:  map[string]string{"pick": "kept", "tags": "kept", "codes": "kept", "score": "changed", "ok": "kept", "note": "kept", "quote": "kept", "earlier": "kept", "ev": "kept"},
			values: map[string]any{"score": 2},
			probs:  []prob{{"warning", "AC2", "r1", "the suggested answers were changed, but no annotator ID says the row was checked; the answers are counted as ak's", decode.ErrAnnotator}}},
		{name: "checked, every answer cleared", edit: func(m *memBook) {
			for key := range m.cols {
				if strings.HasPrefix(key, "q:") {
					m.set("r1", key, "")
				}
			}
			m.set("r1", "annotator", "ak")
		}, status: records.StatusEmpty,
			probs: []prob{{"warning", "2:2", "r1", "every suggested answer was cleared and none given: the unit counts as not answered yet", decode.ErrRequired}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, m := prefilledBook(t, c.annotator)
			c.edit(m)
			p := pullMem(t, m, decode.PullOptions{})
			r1 := record(p, "r1")
			if r1.Status != c.status {
				t.Errorf("r1 status %s, want %s (problems %v)", r1.Status, c.status, r1.Problems)
			}
			if c.trace == nil {
				if r1.Prefill != nil || len(r1.Values) > 0 {
					t.Errorf("r1, not answered, has values %v and trace %+v", r1.Values, r1.Prefill)
				}
			} else if r1.Prefill == nil {
				t.Errorf("r1 has no trace")
			} else {
				if r1.Prefill.From != "gpt4o" {
					t.Errorf("trace from %q", r1.Prefill.From)
				}
				if diff := cmp.Diff(c.trace, r1.Prefill.Questions); diff != "" {
					t.Errorf("trace (-want +got):\n%s", diff)
				}
			}
			for q, v := range c.values {
				if diff := cmp.Diff(v, r1.Values[q]); diff != "" {
					t.Errorf("r1 %s (-want +got):\n%s", q, diff)
				}
			}
			var mine []prob
			for _, pr := range probs(p.Problems) {
				if pr.Unit == "r1" {
					mine = append(mine, pr)
				}
			}
			if diff := cmp.Diff(c.probs, mine, cmpErr); diff != "" {
				t.Errorf("r1's problems (-want +got):\n%s", diff)
			}
			// r2 is left untouched in every case.
			if r2 := record(p, "r2"); r2.Status != records.StatusEmpty || len(r2.Values) > 0 || r2.Prefill != nil {
				t.Errorf("r2, untouched: %+v", r2)
			}
		})
	}
}

// TestPrefillCopiesNotRead: the hidden copies are a help to the eye only:
// deleting one, or writing into one, changes nothing pulled; the
// metadata's suggestions are what answers are compared with.
func TestPrefillCopiesNotRead(t *testing.T) {
	t.Parallel()
	_, m := prefilledBook(t, "")
	m.set("r1", "annotator", "ak")
	m.set("r1", "s:q:pick", "No")
	copyCol := m.col("s:q:score")
	for i := range m.annotate() {
		m.annotate()[i] = append(m.annotate()[i][:copyCol:copyCol], m.annotate()[i][copyCol+1:]...)
	}
	p := pullMem(t, m, decode.PullOptions{})
	r1 := record(p, "r1")
	if r1.Status != records.StatusComplete || r1.Prefill == nil || r1.Prefill.Questions["pick"] != "kept" || r1.Prefill.Questions["score"] != "kept" {
		t.Errorf("r1: %s, trace %+v, problems %v", r1.Status, r1.Prefill, r1.Problems)
	}
	if len(p.Problems) > 0 {
		t.Errorf("problems: %v", p.Problems)
	}
}

// TestPrefillMetaEdited: suggestions in the metadata that no longer fit
// the template are an error of the unit, whose answers still stand.
func TestPrefillMetaEdited(t *testing.T) {
	t.Parallel()
	_, m := prefilledBook(t, "")
	m.set("r1", "annotator", "ak")
	meta := m.sheets[backend.SheetMeta]
	edited := false
	for i, r := range meta {
		if len(r) > 1 && r[0] == layout.MetaUnit && r[1] == "r1" {
			for j := 5; j < len(r); j++ {
				if strings.Contains(r[j], `"pick":"y"`) {
					meta[i][j] = strings.Replace(r[j], `"pick":"y"`, `"pick":"zz"`, 1)
					edited = true
				}
			}
		}
	}
	if !edited {
		t.Fatal("no suggestion of r1 in the metadata")
	}
	p := pullMem(t, m, decode.PullOptions{})
	r1 := record(p, "r1")
	if r1.Prefill != nil || r1.Values["pick"] != "y" || r1.Status != records.StatusPartial {
		t.Errorf("r1: %s, values %v, trace %+v", r1.Status, r1.Values, r1.Prefill)
	}
	want := []prob{{"error", "2:2", "r1", `the suggested answers this unit started from cannot be read from the workbook's metadata (question "pick": "zz" is not one of the codes "y", "n", "u"); its answers are read without saying which were kept`, decode.ErrLayout}}
	if diff := cmp.Diff(want, probs(p.Problems), cmpErr); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestPrefillSuggestions: shown beside empty answer cells, suggestions
// are read-only words; the answers are the annotator's alone, a unit left
// empty is not answered, and an answered one says what became of each
// suggestion.
func TestPrefillSuggestions(t *testing.T) {
	t.Parallel()
	tp, m := prefilledBookAs(t, "", layout.PrefillSuggestions)
	cols := tp.ColumnsWith(templates.ColumnOptions{Suggestions: true})
	row := m.annotate()[m.rows["r1"]-1]
	shown := map[string]string{}
	for i, c := range cols {
		switch c.Role {
		case templates.RoleSuggestion:
			shown[c.Question.Name] = row[i]
			if cols[i+1].Question != c.Question || cols[i+1].Role != templates.RoleAnswer {
				t.Errorf("%s is not right before its question's columns", c.Key)
			}
		case templates.RoleAnswer:
			if row[i] != "" {
				t.Errorf("answer cell %s holds %q", c.Key, row[i])
			}
		}
	}
	want := map[string]string{"pick": "Yes", "tags": "Tags: Beta; Tags: Gamma", "codes": "1,3", "score": "4", "ok": "ticked", "note": "as the model saw it",
		"quote": "«the cat» (occurrence 2 of 2)", "earlier": "«mat»", "ev": "P1 S1, 2"}
	if diff := cmp.Diff(want, shown); diff != "" {
		t.Errorf("suggestions shown (-want +got):\n%s", diff)
	}

	m.set("r1", "q:pick", "Yes")
	m.set("r1", "q:score", "5")
	m.set("r1", "annotator", "ak")
	p := pullMem(t, m, decode.PullOptions{})
	r1 := record(p, "r1")
	wantTrace := map[string]string{"pick": "kept", "score": "changed", "tags": "cleared", "codes": "cleared", "ok": "cleared", "note": "cleared", "quote": "cleared", "earlier": "cleared", "ev": "cleared"}
	if r1.Prefill == nil || r1.Prefill.From != "gpt4o" {
		t.Fatalf("r1: %+v", r1.Prefill)
	}
	if diff := cmp.Diff(wantTrace, r1.Prefill.Questions); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"pick": "y", "score": 5}, r1.Values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if r2 := record(p, "r2"); r2.Status != records.StatusEmpty || r2.Prefill != nil {
		t.Errorf("r2, untouched: %+v", r2)
	}
}

// TestPrefillUnsuggested: an answer to a question the suggestions left
// open is the annotator's own, whether or not they wrote their ID: it is
// never taken for an untouched row and dropped, nor is a cell that cannot
// be read.
func TestPrefillUnsuggested(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, annotator, key, value string
		status                      string
		probs                       []prob
	}{
		{"shared workbook", "", "q:score", "3", records.StatusPartial,
			[]prob{{"error", "AC3", "r2", "the row has answers but no annotator ID", decode.ErrAnnotator}}},
		{"an annotator's workbook", "ak", "q:score", "3", records.StatusComplete,
			[]prob{{"warning", "AC3", "r2", "the suggested answers were changed, but no annotator ID says the row was checked; the answers are counted as ak's", decode.ErrAnnotator}}},
		{"a cell that cannot be read", "ak", "q:ok", "perhaps", records.StatusPartial,
			[]prob{
				{"error", "O3", "r2", `"perhaps" is not a checkbox value; use TRUE or FALSE`, decode.ErrInvalidAnswer},
				{"warning", "AC3", "r2", "the suggested answers were changed, but no annotator ID says the row was checked; the answers are counted as ak's", decode.ErrAnnotator},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, m := prefilledBook(t, c.annotator)
			m.set("r2", c.key, c.value) // r2 was given pick and note only
			p := pullMem(t, m, decode.PullOptions{})
			r2 := record(p, "r2")
			if r2.Status != c.status || r2.Prefill == nil || r2.Prefill.Questions["pick"] != "kept" {
				t.Errorf("r2: %s, values %v, trace %+v", r2.Status, r2.Values, r2.Prefill)
			}
			var mine []prob
			for _, pr := range probs(p.Problems) {
				if pr.Unit == "r2" {
					mine = append(mine, pr)
				}
			}
			if diff := cmp.Diff(c.probs, mine, cmpErr); diff != "" {
				t.Errorf("r2's problems (-want +got):\n%s", diff)
			}
		})
	}
}
