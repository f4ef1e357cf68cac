package report

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/builtin"
)

// withPrefill is r with what its annotator did with the suggestions of
// from.
func withPrefill(r *records.Annotation, from string, qs map[string]string, spans *records.SpanTrace) *records.Annotation {
	r.Prefill = &records.PrefillTrace{From: from, Questions: qs, Spans: spans}
	return r
}

// TestReportSuggestions checks the suggestions kept: a table per source,
// each annotator's questions in the template's order with their headers,
// the block's spans last under the name their records give them, units
// with no trace left out; and the page's section with those numbers.
func TestReportSuggestions(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "qa-span-errors")
	res := &study.Result{Records: []*records.Annotation{
		withPrefill(rec(tp, "q1", "ak", "complete", nil), "judge",
			map[string]string{"corrected_prediction": records.PrefillChanged, "checked": records.PrefillKept},
			&records.SpanTrace{Kept: 2, Changed: 1, Removed: 1, Added: 1}),
		withPrefill(rec(tp, "q2", "ak", "partial", nil), "judge",
			map[string]string{"checked": records.PrefillCleared}, &records.SpanTrace{Kept: 1}),
		withPrefill(rec(tp, "q1", "bt", "complete", nil), "judge",
			map[string]string{"checked": records.PrefillKept}, &records.SpanTrace{Added: 2}),
		rec(tp, "q2", "bt", "complete", nil),
	}}
	rep, err := Build(context.Background(), tp, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Suggestions{{From: "judge", Annotators: []KeptBy{
		{Annotator: "ak", Units: 2, Rows: []KeptRow{
			{Question: "checked", Header: "Checked", Kept: 1, Cleared: 1},
			{Question: "corrected_prediction", Header: "Corrected prediction", Changed: 1},
			{Question: "errors", Header: "Error span", Spans: true, Kept: 3, Changed: 1, Cleared: 1, Added: 1},
		}},
		{Annotator: "bt", Units: 1, Rows: []KeptRow{
			{Question: "checked", Header: "Checked", Kept: 1},
			{Question: "errors", Header: "Error span", Spans: true, Added: 2},
		}},
	}}}
	if d := cmp.Diff(want, rep.Suggestions); d != "" {
		t.Errorf("Suggestions (-want +got):\n%s", d)
	}
	page := checkedPage(t, rep)
	for _, s := range []string{
		`<a href="#suggestions">Suggestions</a>`,
		`<h2>Suggestions kept</h2>`,
		`<h3>Suggestions from <code>judge</code></h3>`,
		// ak: checked 1 of 2 kept; spans 3 of 5 (the one added apart).
		`<tr class="first"><td><i class="sw a0"></i> ak</td><td class="n">2</td><td>Checked <span class="muted">· <code>checked</code></span></td><td class="n">1</td><td class="n">0</td><td class="n">1</td><td class="n"></td><td class="n">50%</td></tr>`,
		`<tr><td></td><td></td><td>Corrected prediction <span class="muted">· <code>corrected_prediction</code></span></td><td class="n">0</td><td class="n">1</td><td class="n">0</td><td class="n"></td><td class="n">0%</td></tr>`,
		`<tr><td></td><td></td><td>Error span <span class="muted">· the block's spans, <code>errors</code></span></td><td class="n">3</td><td class="n">1</td><td class="n">1</td><td class="n">1</td><td class="n">60%</td></tr>`,
		// bt: no span suggested, two added.
		`<td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">2</td><td class="n">—</td></tr>`,
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page has no %s", s)
		}
	}
	// The section comes after the progress, before the answers.
	if p, s, a := strings.Index(page, `<section id="progress">`), strings.Index(page, `<section id="suggestions">`), strings.Index(page, `<section id="answers">`); !(p < s && s < a) {
		t.Errorf("sections at %d (progress), %d (suggestions), %d (answers)", p, s, a)
	}
}

// TestReportNoSuggestions checks that a study with no prefilled unit
// answered has no section, nor link, nor data of suggestions.
func TestReportNoSuggestions(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	res := &study.Result{Records: []*records.Annotation{
		rec(tp, "g1", "ak", "complete", map[string]any{"gaps": []string{"0"}}),
		rec(tp, "g2", "ak", "empty", nil),
	}}
	rep, err := Build(context.Background(), tp, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Suggestions != nil {
		t.Errorf("suggestions %+v", rep.Suggestions)
	}
	if page := checkedPage(t, rep); strings.Contains(page, "suggestions") || strings.Contains(page, "Suggestions") {
		t.Error("the page has a section of suggestions")
	}
}

// TestReportSuggestionsEscapes checks that the names of annotators and of
// the source of suggestions are shown as text.
func TestReportSuggestionsEscapes(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	who, from := `<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`
	res := &study.Result{Records: []*records.Annotation{
		withPrefill(rec(tp, "g1", who, "complete", map[string]any{"gaps": []string{"0"}}), from, map[string]string{"gaps": records.PrefillKept}, nil),
	}}
	rep, err := Build(context.Background(), tp, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := checkedPage(t, rep)
	for _, s := range []string{
		`<i class="sw a0"></i> &lt;script&gt;alert(1)&lt;/script&gt;</td><td class="n">1</td><td>Gaps <span class="muted">· <code>gaps</code></span></td><td class="n">1</td>`,
		`<h3>Suggestions from <code>&#34;&gt;&lt;img src=x onerror=alert(1)&gt;</code></h3>`,
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page has no %s", s)
		}
	}
	for _, s := range []string{who, from} {
		if strings.Contains(page, s) {
			t.Errorf("the page holds %q as it is", s)
		}
	}
}
