package report

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/builtin"
)

// asControl is r as the record of a control unit, scored as score says
// (nil for one not scored).
func asControl(r *records.Annotation, score map[string]float64) *records.Annotation {
	r.Control, r.ControlScore = true, score
	return r
}

func fptr(x float64) *float64 { return &x }

// TestReportControls checks the section of control units: ak's units
// score (1+0.5)/2 and 0, a mean of 0.375, below the 0.5 given; bt's 1;
// per question, in the template's order with the block's spans last,
// ak's checked (1+0)/2 and spans 0.5 in the one unit that scores them.
// Records of units that are no control, or not scored, count for none.
func TestReportControls(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "qa-span-errors")
	res := &study.Result{Records: []*records.Annotation{
		asControl(rec(tp, "q1", "ak", "complete", nil), map[string]float64{"errors": 0.5, "checked": 1}),
		asControl(rec(tp, "q2", "ak", "partial", nil), map[string]float64{"checked": 0}),
		asControl(rec(tp, "q1", "bt", "complete", nil), map[string]float64{"checked": 1, "errors": 1}),
		asControl(rec(tp, "q2", "bt", "empty", nil), nil),
		rec(tp, "q3", "ak", "complete", nil),
		rec(tp, "q3", "bt", "complete", nil),
	}}
	rep, err := Build(context.Background(), tp, res, Options{MinControlAccuracy: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := &Controls{
		Min: 0.5,
		Annotators: []ControlAccuracy{
			{Annotator: "ak", Units: 2, Score: 0.375, Below: true},
			{Annotator: "bt", Units: 1, Score: 1},
		},
		Questions: []ControlQuestion{
			{Question: "checked", Header: "Checked", Scores: []*float64{fptr(0.5), fptr(1)}},
			{Question: "errors", Header: "Error span", Spans: true, Scores: []*float64{fptr(0.5), fptr(1)}},
		},
	}
	if d := cmp.Diff(want, rep.Controls); d != "" {
		t.Errorf("Controls (-want +got):\n%s", d)
	}
	page := checkedPage(t, rep)
	for _, s := range []string{
		`<a href="#controls">Control units</a>`,
		`<h2>Control units</h2>`,
		`Annotators below 0.500 (<code>--min-control-accuracy</code>) are marked.`,
		`<th class="n">accuracy</th><th class="n">Checked <span class="muted">· <code>checked</code></span></th><th class="n">Error span <span class="muted">· the block's spans, <code>errors</code></span></th></tr>`,
		`<tr><td><i class="sw a0"></i> ak</td><td class="n">2</td><td class="n sev-warning">0.375 (below 0.500)</td><td class="n">0.500</td><td class="n">0.500</td></tr>`,
		`<tr><td><i class="sw a1"></i> bt</td><td class="n">1</td><td class="n">1.000</td><td class="n">1.000</td><td class="n">1.000</td></tr>`,
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page has no %s", s)
		}
	}
	// The section comes after the progress, before the answers.
	if p, c, a := strings.Index(page, `<section id="progress">`), strings.Index(page, `<section id="controls">`), strings.Index(page, `<section id="answers">`); !(p < c && c < a) {
		t.Errorf("sections at %d (progress), %d (controls), %d (answers)", p, c, a)
	}
	// With no threshold, nobody is marked.
	if rep, err = Build(context.Background(), tp, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if page := section(t, checkedPage(t, rep), "controls"); strings.Contains(page, "below") || strings.Contains(page, "sev-warning") {
		t.Errorf("marks with no threshold:\n%s", page)
	}
}

// TestReportControlsApart checks a report made from records whose
// control units are set apart (as commands load them): the section
// scores ak's 0.25 and 0.5 and bt's 1, the progress counts the other
// records only, and ak, below 0.5, is warned about.
func TestReportControlsApart(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	recs := legalRecords(tp, []string{"gpt4o", "llama3"}, 4)
	controls := []*records.Annotation{
		asControl(rec(tp, "c1", "ak", "complete", map[string]any{"gaps": []string{"2"}}), map[string]float64{"gaps": 0.25}),
		asControl(rec(tp, "c2", "ak", "complete", map[string]any{"gaps": []string{"0"}}), map[string]float64{"gaps": 0.5}),
		asControl(rec(tp, "c1", "bt", "complete", map[string]any{"gaps": []string{"2", "3"}}), map[string]float64{"gaps": 1}),
	}
	rep, warnings, err := FromStudy(context.Background(), Study{Template: tp, Records: recs, Controls: controls}, Options{MinControlAccuracy: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := []ControlAccuracy{{Annotator: "ak", Units: 2, Score: 0.375, Below: true}, {Annotator: "bt", Units: 1, Score: 1}}
	if rep.Controls == nil {
		t.Fatal("no section of control units")
	}
	if d := cmp.Diff(want, rep.Controls.Annotators); d != "" {
		t.Errorf("annotators (-want +got):\n%s", d)
	}
	if rep.Progress.Total.Units != len(recs) {
		t.Errorf("progress counts %d units, want the %d records that are no control", rep.Progress.Total.Units, len(recs))
	}
	if w := "annotator ak: control accuracy 0.38 over 2 units, below 0.50"; !slices.Contains(warnings, w) {
		t.Errorf("warnings %q, want %q", warnings, w)
	}
	for _, w := range warnings {
		if strings.Contains(w, "annotator bt") {
			t.Errorf("bt, above the threshold, is warned about: %q", w)
		}
	}
}

// TestReportNoControls checks that a study with no scored control unit
// has no section, nor link, nor data of them.
func TestReportNoControls(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	res := &study.Result{Records: []*records.Annotation{
		rec(tp, "g1", "ak", "complete", map[string]any{"gaps": []string{"0"}}),
		// A control unit not answered has no score.
		asControl(rec(tp, "g2", "ak", "empty", nil), nil),
	}}
	rep, err := Build(context.Background(), tp, res, Options{MinControlAccuracy: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Controls != nil {
		t.Errorf("controls %+v", rep.Controls)
	}
	if page := checkedPage(t, rep); strings.Contains(page, "controls") || strings.Contains(page, "Control units") {
		t.Error("the page has a section of control units")
	}
}

// TestReportControlsEscapes checks that annotators' IDs and the names of
// questions the template does not have are shown as text.
func TestReportControlsEscapes(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	who, question := `<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`
	res := &study.Result{Records: []*records.Annotation{
		asControl(rec(tp, "g1", who, "complete", map[string]any{"gaps": []string{"0"}}), map[string]float64{"gaps": 1, question: 0}),
	}}
	rep, err := Build(context.Background(), tp, res, Options{MinControlAccuracy: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	page := checkedPage(t, rep)
	for _, s := range []string{
		`<tr><td><i class="sw a0"></i> &lt;script&gt;alert(1)&lt;/script&gt;</td><td class="n">1</td><td class="n sev-warning">0.500 (below 0.800)</td><td class="n">1.000</td><td class="n">0.000</td></tr>`,
		`<th class="n">Gaps <span class="muted">· <code>gaps</code></span></th><th class="n">&#34;&gt;&lt;img src=x onerror=alert(1)&gt; <span class="muted">· <code>&#34;&gt;&lt;img src=x onerror=alert(1)&gt;</code></span></th>`,
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page has no %s", s)
		}
	}
	for _, s := range []string{who, question} {
		if strings.Contains(page, s) {
			t.Errorf("the page holds %q as it is", s)
		}
	}
}
