package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/builtin"
)

// legalRecords are the records of a legal-gaps study of n passages, each
// analysed by every one of systems (units system-1 …, paired by the
// number), each unit answered by ak and bt; the first system ticks more
// gaps than the others. ak leaves the last unit partial, and the second
// system lacks the last passage: an unpaired item.
func legalRecords(tp *templates.Template, systems []string, n int) []*records.Annotation {
	var recs []*records.Annotation
	for k := 1; k <= n; k++ {
		for s, sys := range systems {
			if s == 1 && k == n {
				continue
			}
			unit := fmt.Sprintf("%s-%d", sys, k)
			for a, who := range []string{"ak", "bt"} {
				gaps := []string{fmt.Sprint((k + a + s) % 4)}
				if s == 0 && k%2 == 0 {
					gaps = append(gaps, "3")
				}
				values := map[string]any{"gaps": gaps}
				if (k+a)%3 == 0 {
					values["note"] = "a note"
				}
				status := "complete"
				if a == 0 && s == 0 && k == n {
					status = "partial"
				}
				recs = append(recs, rec(tp, unit, who, status, values))
			}
		}
	}
	return recs
}

// reportResults is the Results of a report's JSON.
func reportResults(t *testing.T, rep *Report) *results.Report {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Results *results.Report `json:"results"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	return got.Results
}

// TestReportResults checks that the report's results, in its JSON, are
// what study.Results gives for the same records with results' default
// options: on the annotators' records, and on a gold set when the report
// has one.
func TestReportResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tp := builtin.Template(t, "legal-gaps")
	recs := legalRecords(tp, []string{"gpt4o", "llama3"}, 8)
	var goldRecs []*records.Annotation
	for _, r := range recs[:10] {
		if r.Annotator == "ak" {
			g := rec(tp, r.Unit, records.GoldAnnotator, "complete", r.Values)
			g.Provenance = map[string]*records.Provenance{"gaps": {Kind: "unanimous"}}
			goldRecs = append(goldRecs, g)
		}
	}
	for _, gold := range []*study.Gold{nil, {Name: "gold.jsonl", Records: goldRecs}} {
		rep, warnings, err := FromStudy(ctx, Study{Template: tp, Records: recs}, Options{Gold: gold})
		if err != nil {
			t.Fatal(err)
		}
		if len(warnings) > 0 {
			t.Errorf("warnings %q", warnings)
		}
		want, err := study.Results(ctx, tp, recs, study.ResultsOptions{Gold: gold, Options: results.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		if got := reportResults(t, rep); !reflect.DeepEqual(got, want) {
			t.Errorf("gold %v: the report's results\n%+v\nwant\n%+v", gold != nil, got, want)
		}
		if wantBasis := map[bool]string{false: results.BasisAnnotators, true: results.BasisGold}[gold != nil]; rep.Results.Basis != wantBasis {
			t.Errorf("basis %s, want %s", rep.Results.Basis, wantBasis)
		}
		if len(want.Questions) != 2 || len(want.Questions[0].Comparisons) == 0 || want.Params != (results.Params{Level: 0.95, Resamples: 2000, Permutations: 10000, Seed: 1}) {
			t.Fatalf("results %+v", want)
		}
		if rep.ResultsInfo == nil || rep.ResultsInfo.Headers["gaps"] != "Gaps" || rep.ResultsInfo.Options["gaps"]["2"] != "Target Mismatch" || rep.ResultsInfo.Missing != "" {
			t.Errorf("results info %+v", rep.ResultsInfo)
		}
	}
}

// section is a page's section of that id.
func section(t *testing.T, page, id string) string {
	t.Helper()
	_, s, ok := strings.Cut(page, `<section id="`+id+`">`)
	if !ok {
		t.Fatalf("no section %s in the page", id)
	}
	s, _, _ = strings.Cut(s, "</section>")
	return s
}

// TestReportResultsPage checks the Results section: a forest plot per
// question with a dot per estimate, and each comparison's difference,
// interval and p-values as the page writes them.
func TestReportResultsPage(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	rep, _, err := FromStudy(context.Background(), Study{Template: tp, Records: legalRecords(tp, []string{"gpt4o", "llama3", "mistral"}, 8)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := checkedPage(t, rep)
	if !strings.Contains(page, `<a href="#results">Results</a>`) {
		t.Error("the page's menu has no Results")
	}
	s := section(t, page, "results")
	qs := strings.Split(s, `<div class="question">`)[1:]
	if len(qs) != len(rep.Results.Questions) {
		t.Fatalf("%d questions in the section, want %d", len(qs), len(rep.Results.Questions))
	}
	for i, q := range rep.Results.Questions {
		if n := strings.Count(qs[i], "<svg"); n != 1 {
			t.Errorf("%s: %d plots, want 1", q.Question, n)
		}
		if n := strings.Count(qs[i], "<circle"); n != len(q.Estimates) {
			t.Errorf("%s: %d dots, want one per estimate, %d", q.Question, n, len(q.Estimates))
		}
		if n := strings.Count(qs[i], "<tr"); n != len(q.Comparisons)+1 {
			t.Errorf("%s: %d rows in the table of comparisons, want %d and a heading", q.Question, n, len(q.Comparisons))
		}
		for _, c := range q.Comparisons {
			row := fmt.Sprintf(`%s − <i class="sw a%d"></i> %s</td><td class="n">%s</td><td class="n">%s</td><td class="n">%s</td><td class="n">%s</td></tr>`,
				c.A, map[string]int{"gpt4o": 0, "llama3": 1, "mistral": 2}[c.B], c.B, agreement.Number(c.Difference), ciText(c.CI, c.Note), pValue(c.P), pValue(c.PHolm))
			if !strings.Contains(qs[i], row) {
				t.Errorf("%s: no row %s", q.Question, row)
			}
		}
		for _, e := range q.Estimates {
			title := fmt.Sprintf("<title>%s · %s: %s, 95%% interval %s; %d units</title>", *e.Group, newView(rep).statistic(q.Question, e.Statistic, e.Option), agreement.Number(e.Value), ciText(e.CI, e.Note), e.Units)
			if !strings.Contains(qs[i], title) {
				t.Errorf("%s: no dot titled %s", q.Question, title)
			}
		}
	}
	if !strings.Contains(s, "share · 2 (Target Mismatch)") || !strings.Contains(s, "Left out: 1 partial record, 1 unpaired item.") {
		t.Errorf("the section names no option, or leaves nothing out:\n%s", s)
	}
	if !strings.Contains(s, "<code>annosheet results --json</code>") || strings.Contains(s, "fewer draws") {
		t.Errorf("the section does not say how to get its numbers:\n%s", s)
	}
}

// TestReportResultsForest checks a forest plot's rows and axis: a row per
// estimate under a heading per statistic and option, an estimate of no
// group labelled as such, an estimate without an interval as a dot alone
// that says why, and a scale's axis from its lowest value.
func TestReportResultsForest(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	q := results.Question{Question: "best", Type: "choice", By: "candidate", Estimates: []results.Estimate{
		{Group: str("first"), Statistic: results.WinRate, Value: 0.6, Units: 10, CI: &[2]float64{0.4, 0.8}},
		{Group: str("second"), Statistic: results.WinRate, Value: 0.3, Units: 10, CI: &[2]float64{0.1, 0.5}},
		{Statistic: results.Share, Option: str("tie"), Value: 0.1, Units: 1, Note: "no interval: fewer than two units"},
	}}
	rep, err := Build(context.Background(), builtin.Template(t, "preference-likert"), &study.Result{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep.Results = &results.Report{Params: results.Params{Level: 0.9, Resamples: 200, Permutations: 1000, Seed: 1}, Questions: []results.Question{q}}
	rep.ResultsInfo = &ResultsInfo{Options: map[string]map[string]string{"best": {"tie": "A tie"}}}
	v := newView(rep)
	f := v.Forest(q)
	if len(f.Dots) != 3 || f.Dots[0].Class != "a0" || f.Dots[1].Class != "a1" || f.Dots[2].Class != "ax" {
		t.Fatalf("dots %+v", f.Dots)
	}
	if want := "(no group) · share · tie (A tie): 0.100; no interval: fewer than two units; 1 unit"; f.Dots[2].Title != want {
		t.Errorf("title %q, want %q", f.Dots[2].Title, want)
	}
	if want := "first · win_rate: 0.600, 90% interval [0.400, 0.800]; 10 units"; f.Dots[0].Title != want {
		t.Errorf("title %q, want %q", f.Dots[0].Title, want)
	}
	var texts []string
	for _, l := range f.Labels {
		texts = append(texts, l.Text)
	}
	if want := "0.00 0.25 0.50 0.75 1.00 win_rate first 0.600 [0.400, 0.800] second 0.300 [0.100, 0.500] share · tie (A tie) (no group) 0.100"; strings.Join(texts, " ") != want {
		t.Errorf("labels %q, want %q", strings.Join(texts, " "), want)
	}
	whiskers := 0
	for _, l := range f.Lines {
		if l.Class == "whisker" {
			whiskers++
		}
	}
	if whiskers != 6 {
		t.Errorf("%d whiskers, want 3 for each of the 2 intervals", whiskers)
	}
	// A scale's axis starts near its lowest value, in round steps.
	a := forestAxis([]results.Estimate{{Statistic: results.Mean, Value: 3.6, CI: &[2]float64{2.9, 4.2}}, {Statistic: results.Mean, Value: 2.3, CI: &[2]float64{1.7, 2.9}}})
	if a.lo != 1 || a.hi != 5 || len(a.ticks) != 5 || a.digits != 0 {
		t.Errorf("axis %+v", a)
	}
	// Spans per unit start at 0.
	if a := forestAxis([]results.Estimate{{Statistic: results.SpansPerUnit, Value: 2.4, CI: &[2]float64{1.9, 2.9}}}); a.lo != 0 || a.hi != 3 {
		t.Errorf("axis %+v", a)
	}
	if !v.FewerDraws() {
		t.Error("200 resamples are not fewer than results draws")
	}
	var b bytes.Buffer
	if err := Write(&b, rep); err != nil {
		t.Fatal(err)
	}
	s := section(t, b.String(), "results")
	if !strings.Contains(s, "A study this big gets fewer draws here than <code>annosheet results</code> makes by default (2000 resamples, 10000 permutations)") ||
		!strings.Contains(s, "<code>annosheet results --resamples 200 --permutations 1000 --json</code>") {
		t.Errorf("the section does not say it draws fewer:\n%s", s)
	}
}

// TestReportResultsDraws checks the draws of a big study's results:
// results' defaults up to 2,000 units, fewer above, never fewer than 200
// resamples and 1,000 permutations.
func TestReportResultsDraws(t *testing.T) {
	t.Parallel()
	for units, want := range map[int][2]int{0: {2000, 10000}, 10: {2000, 10000}, 2000: {2000, 10000}, 4000: {1000, 5000}, 20_000: {200, 1000}, 100_000: {200, 1000}} {
		o := resultsOptions(units)
		if o.Resamples != want[0] || o.Permutations != want[1] || o.Level != results.DefaultLevel || o.Seed != results.DefaultSeed {
			t.Errorf("%d units: %+v, want %v", units, o, want)
		}
	}
}

// TestReportResultsEscapes makes the report of a study whose groups
// (read from the ids with a template's pattern) are markup: the page
// shows them as text.
func TestReportResultsEscapes(t *testing.T) {
	t.Parallel()
	src, ok := templates.BuiltinSource("legal-gaps")
	if !ok {
		t.Fatal("no legal-gaps")
	}
	yaml := strings.Replace(string(src), `pattern: "^([A-Za-z0-9.]+)-"`, `pattern: "^(.+)-"`, 1)
	tp, err := templates.Load("hostile.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	hostile := []string{`<script>alert(1)</script>`, `" onload="alert(1)`}
	rep, warnings, err := FromStudy(context.Background(), Study{Template: tp, Records: legalRecords(tp, hostile, 4)}, Options{})
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	if len(rep.Results.Questions) == 0 || len(rep.Results.Questions[0].Comparisons) == 0 {
		t.Fatalf("results %+v", rep.Results)
	}
	page := checkedPage(t, rep)
	s := section(t, page, "results")
	for _, want := range []string{`>&lt;script&gt;alert(1)&lt;/script&gt;<title>`, `<title>&lt;script&gt;alert(1)&lt;/script&gt; · share · 0 (No gap): `, `&#34; onload=&#34;alert(1) − <i class="sw a1"></i> &lt;script&gt;alert(1)&lt;/script&gt;</td>`} {
		if !strings.Contains(s, want) {
			t.Errorf("the section does not show a group as text: no %s", want)
		}
	}
}

// TestReportResultsMissing checks a report whose results cannot be
// computed: records alone of a template whose group is read from the
// study's inputs. The report is made all the same, with a warning that
// says why, and the section says it in a line.
func TestReportResultsMissing(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "qa-span-errors")
	recs := []*records.Annotation{rec(tp, "q1", "ak", "complete", map[string]any{"checked": true}), rec(tp, "q1", "bt", "complete", map[string]any{"checked": true})}
	rep, warnings, err := FromStudy(context.Background(), Study{Template: tp, Records: recs}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const why = "group all: the group is read from the study's inputs (its from is all), not from the records' ids; report the study's folder or manifest, whose inputs give the groups"
	if len(warnings) != 1 || warnings[0] != "the results cannot be computed ("+why+"): the page shows none" {
		t.Errorf("warnings %q", warnings)
	}
	if rep.Results != nil || rep.ResultsInfo == nil || rep.ResultsInfo.Missing != why || len(rep.Agreement.Questions) == 0 {
		t.Errorf("results %+v, %+v", rep.Results, rep.ResultsInfo)
	}
	var b bytes.Buffer
	if err := Write(&b, rep); err != nil {
		t.Fatal(err)
	}
	s := section(t, b.String(), "results")
	if want := "\n<h2>Results</h2>\n<p class=\"sev-warning\">The results cannot be computed: " + strings.ReplaceAll(why, "'", "&#39;") + ".</p>\n"; s != want {
		t.Errorf("section %q, want %q", s, want)
	}

	// A report Build makes alone has no Results section.
	rep, err = Build(context.Background(), tp, &study.Result{Records: recs}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := Write(&b, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="results"`) || strings.Contains(b.String(), "#results") {
		t.Error("a report without results has a Results section")
	}
}
