package study

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
)

// prefilled is a record of unit by who, with what the annotator did with
// the unit's suggestions (nil for a unit not prefilled).
func prefilled(unit, who, status string, p *records.PrefillTrace) *records.Annotation {
	return &records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: "legal-gaps", Version: 1},
		Batch: who + "-b01", Unit: unit, Item: unit, Annotator: who, Status: status, Values: map[string]any{}, Prefill: p,
		Source: records.RecordSource{Kind: "xlsx", File: who + ".xlsx", Sheet: "Annotate"}}
}

// TestCountProgressPrefill: the suggestions kept are counted per
// annotator (in status's order, named as status names them) and source,
// per question and, for a block, the spans summed; records with no trace,
// of nobody, or not answered count for none.
func TestCountProgressPrefill(t *testing.T) {
	t.Parallel()
	judge := func(qs map[string]string, spans *records.SpanTrace) *records.PrefillTrace {
		return &records.PrefillTrace{From: "judge", Questions: qs, Spans: spans}
	}
	res := &Result{Records: []*records.Annotation{
		prefilled("u1", "bt", records.StatusComplete, judge(map[string]string{"gaps": records.PrefillCleared}, &records.SpanTrace{Kept: 3, Changed: 1, Added: 2})),
		prefilled("u2", "bt", records.StatusComplete, judge(map[string]string{"gaps": records.PrefillKept}, &records.SpanTrace{Kept: 2, Removed: 1})),
		// Answered with no trace (its metadata edited): not counted.
		prefilled("u3", "bt", records.StatusComplete, nil),
		prefilled("u1", "ak", records.StatusComplete, judge(map[string]string{"gaps": records.PrefillKept, "note": records.PrefillKept}, nil)),
		prefilled("u2", "ak", records.StatusPartial, judge(map[string]string{"gaps": records.PrefillChanged}, nil)),
		prefilled("u3", "ak", records.StatusEmpty, nil),
		// Another source, the annotator's ID typed in another case.
		prefilled("u4", "AK", records.StatusComplete, &records.PrefillTrace{From: "gpt", Questions: map[string]string{"note": records.PrefillChanged}}),
		// A unit nobody has claimed, and one not read: no annotator's.
		prefilled("u5", "", records.StatusComplete, judge(map[string]string{"gaps": records.PrefillKept}, nil)),
		prefilled("u6", "ak", records.StatusMissing, judge(map[string]string{"gaps": records.PrefillKept}, nil)),
	}}
	got := CountProgress(res).Prefill
	want := []*PrefillTally{
		{Annotator: "bt", From: "judge", Units: 2, Questions: map[string]*KeptCounts{"gaps": {Kept: 1, Cleared: 1}},
			Spans: &records.SpanTrace{Kept: 5, Changed: 1, Removed: 1, Added: 2}},
		{Annotator: "ak", From: "judge", Units: 2, Questions: map[string]*KeptCounts{"gaps": {Kept: 1, Changed: 1}, "note": {Kept: 1}}},
		{Annotator: "ak", From: "gpt", Units: 1, Questions: map[string]*KeptCounts{"note": {Changed: 1}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Prefill (-want +got):\n%s", d)
	}
}

// TestCountProgressPrefillStudies: when the sources hold several studies,
// each study's suggestions are counted apart, and named.
func TestCountProgressPrefillStudies(t *testing.T) {
	t.Parallel()
	a := prefilled("u1", "ak", records.StatusComplete, &records.PrefillTrace{From: "judge", Questions: map[string]string{"gaps": records.PrefillKept}})
	b := prefilled("u1", "ak", records.StatusComplete, &records.PrefillTrace{From: "judge", Questions: map[string]string{"gaps": records.PrefillCleared}})
	res := &Result{Records: []*records.Annotation{a, b}, studyOf: map[*records.Annotation]string{a: "s1", b: "s2"}}
	want := []*PrefillTally{
		{Study: "s1", Annotator: "ak", From: "judge", Units: 1, Questions: map[string]*KeptCounts{"gaps": {Kept: 1}}},
		{Study: "s2", Annotator: "ak", From: "judge", Units: 1, Questions: map[string]*KeptCounts{"gaps": {Cleared: 1}}},
	}
	if d := cmp.Diff(want, CountProgress(res).Prefill); d != "" {
		t.Errorf("Prefill (-want +got):\n%s", d)
	}
}

// TestStatusPrefillJSON: the status of a study with no prefilled unit
// answered has no "prefill" at all; one with has an entry as its JSON
// names it.
func TestStatusPrefillJSON(t *testing.T) {
	t.Parallel()
	plain := &Result{Records: []*records.Annotation{
		prefilled("u1", "ak", records.StatusComplete, nil),
		// Untouched prefilled rows are empty, with no trace.
		prefilled("u2", "ak", records.StatusEmpty, nil),
	}}
	b, err := json.Marshal(CountProgress(plain))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "prefill") {
		t.Errorf("a status with no prefill names it: %s", b)
	}
	withPrefill := &Result{Records: []*records.Annotation{prefilled("u1", "ak", records.StatusComplete,
		&records.PrefillTrace{From: "judge", Questions: map[string]string{"gaps": records.PrefillKept}, Spans: &records.SpanTrace{Kept: 1, Added: 1}})}}
	b, err = json.Marshal(CountProgress(withPrefill).Prefill)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"annotator":"ak","from":"judge","units":1,"questions":{"gaps":{"kept":1,"changed":0,"cleared":0}},"spans":{"kept":1,"changed":0,"removed":0,"added":1}}]`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// TestKeptShare: the share kept of questions is of those kept, changed
// and cleared; of spans, of those kept, changed and removed (the ones
// added were never suggested); none when nothing was suggested.
func TestKeptShare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		counts KeptCounts
		want   float64
		ok     bool
	}{
		{KeptCounts{Kept: 1, Changed: 2, Cleared: 1}, 0.25, true},
		{KeptCounts{Kept: 3}, 1, true},
		{KeptCounts{}, 0, false},
	} {
		if got, ok := c.counts.Share(); got != c.want || ok != c.ok {
			t.Errorf("%+v: %v, %v; want %v, %v", c.counts, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		spans records.SpanTrace
		want  float64
		ok    bool
	}{
		{records.SpanTrace{Kept: 3, Removed: 1, Added: 5}, 0.75, true},
		{records.SpanTrace{Kept: 1, Changed: 1}, 0.5, true},
		{records.SpanTrace{Added: 2}, 0, false},
	} {
		if got, ok := SpansKept(&c.spans); got != c.want || ok != c.ok {
			t.Errorf("spans %+v: %v, %v; want %v, %v", c.spans, got, ok, c.want, c.ok)
		}
	}
}
