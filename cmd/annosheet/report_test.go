package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/report"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// generateSeeded generates a study with a fixed seed (the same
// assignment every run) and returns its folder.
func generateSeeded(t *testing.T, template, input string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "study")
	if code, _, stderr := runCLI(t, append([]string{"generate", "-t", template, "-i", input, "-o", out, "--seed", "1"}, args...)...); code != 0 {
		t.Fatalf("generate %s: %s", template, stderr)
	}
	return out
}

// workbooks are a study's workbooks, sorted.
func workbooks(t *testing.T, study string) []string {
	t.Helper()
	books, err := filepath.Glob(filepath.Join(study, "*.xlsx"))
	if err != nil || len(books) == 0 {
		t.Fatalf("no workbook in %s (%v)", study, err)
	}
	return books
}

// edit opens a workbook of a study, lets fill change it, and saves it.
func edit(t *testing.T, path string, fill func(w *goldtest.Workbook) error) {
	t.Helper()
	w, err := goldtest.OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fill(w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
}

// legalReportStudy is the README's legal study (five analyses, each for
// two of ak, bt and cm, in batches of two) filled with the data's gold
// labels, some of them read otherwise, a note or two, and one answer
// that is not a checkbox value; cm has not started their second batch.
func legalReportStudy(t *testing.T) string {
	t.Helper()
	study := generateSeeded(t, "legal-gaps", legalData, "--annotators", "ak,bt,cm", "--overlap", "2", "--batch-size", "2")
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	key := opaqueKey(t, study)
	for i, path := range workbooks(t, study) {
		name := filepath.Base(path)
		if strings.HasSuffix(name, "-cm-b02.xlsx") {
			continue // not started
		}
		who := strings.Split(strings.TrimPrefix(name, "legal-gaps-"), "-")[0]
		edit(t, path, func(w *goldtest.Workbook) error {
			w.RealIDs(key)
			mine := legalReadings(w, recs, i)
			if err := goldtest.FillLegal(w, mine, who); err != nil {
				return err
			}
			for k, r := range mine {
				if note := []string{"Cites the wrong case", "", "Reads well"}[(k+i)%3]; note != "" {
					if err := w.Set(w.Rows[r.ID][0], "q:note", note); err != nil {
						return err
					}
				}
			}
			if i == 1 && len(mine) > 0 {
				return w.Set(w.Rows[mine[0].ID][0], "q:gaps=2", "maybe")
			}
			return nil
		})
	}
	return study
}

// legalReadings are the records of the legal study that workbook w
// holds, with their gold labels, but every third (counted from shift)
// read otherwise: another annotator's reading.
func legalReadings(w *goldtest.Workbook, recs []goldtest.LegalRecord, shift int) []goldtest.LegalRecord {
	var mine []goldtest.LegalRecord
	for k, r := range recs {
		if _, ok := w.Rows[r.ID]; !ok {
			continue
		}
		if (k+shift)%3 == 0 {
			r.GoldLabels = []int{(k + shift) % 4}
		}
		mine = append(mine, r)
	}
	return mine
}

// prefReportStudy is the README's preference study: three annotators
// rate all three topics, a few answers swapped between topics.
func prefReportStudy(t *testing.T) string {
	t.Helper()
	study := generateSeeded(t, "preference-likert", prefData, "--annotators", "ak,bt,cm", "--overlap", "3")
	fillStudy(t, study, "preference-likert", []string{"ak", "bt", "cm"}, func(w *goldtest.Workbook, who int, name string) error {
		units := slices.Sorted(slices.Values(w.Units))
		for k := 0; k+1 < len(units); k += 2 + who {
			if (k/2)%3 == who {
				units[k], units[k+1] = units[k+1], units[k]
			}
		}
		return goldtest.FillPreference(w, units, name)
	})
	return study
}

// qaReportStudy is qa-span-errors for three annotators: the data's own
// feedback, bt missing an error in every third question and cm giving
// another type to the first error of every other.
func qaReportStudy(t *testing.T) string {
	t.Helper()
	study := generateSeeded(t, "qa-span-errors", qaData, "--annotators", "ak,bt,cm", "--overlap", "3")
	other := map[string]string{"Irrelevant": "Incoherent", "Incoherent": "Unverifiable", "Unverifiable": "Irrelevant"}
	fillQA(t, study, []string{"ak", "bt", "cm"}, func(who, k int, r *goldtest.QARecord) {
		errs := r.Feedback.Errors
		switch {
		case who == 1 && k%3 == 0 && len(errs) > 0:
			r.Feedback.Errors = errs[1:]
		case who == 2 && k%2 == 0 && len(errs) > 0 && other[errs[0].Type] != "":
			errs[0].Type = other[errs[0].Type]
		}
	})
	return study
}

// fgReportStudy is the factgenie meta-evaluation for two annotators,
// judged (see judgeFactgenie).
func fgReportStudy(t *testing.T) string {
	t.Helper()
	study := generateSeeded(t, "factgenie-meta-eval", fgData, "--annotators", "ak,bt", "--overlap", "2")
	judgeFactgenie(t, study)
	return study
}

// judgeFactgenie fills a factgenie study of ak and bt: both judge every
// span, with a flag or a comment here and there, bt every fifth span
// otherwise.
func judgeFactgenie(t *testing.T, study string) {
	t.Helper()
	ok := []string{"Error", "Not an error", "No span given", "Hallucination"}
	expl := []string{"Correct", "Partially correct", "Incomplete", "Vague", "Incorrect"}
	fillStudy(t, study, "factgenie-meta-eval", []string{"ak", "bt"}, func(w *goldtest.Workbook, who int, name string) error {
		for i, u := range slices.Sorted(slices.Values(w.Units)) {
			k := i
			if who == 1 && i%5 == 0 {
				k++
			}
			if err := setCells(w, w.Rows[u][0], map[string]any{
				"q:span_ok": ok[k%len(ok)], "q:explanation_ok": expl[k%len(expl)],
				"q:flags=Too strict": k%3 == 0, "q:flags=Repeated": k%7 == 0,
				"q:comments": []string{"", "unsure", "Unsure "}[k%3], "annotator": name,
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

// reportOf makes the report's data as the command does.
func reportOf(t *testing.T, opt reportOptions) *report.Report {
	t.Helper()
	var stderr bytes.Buffer
	rep, err := studyReport(context.Background(), opt, &stderr)
	if err != nil {
		t.Fatalf("report %v: %v\n%s", opt.Sources, err, stderr.String())
	}
	return rep
}

// reportJSON is a report's data as the golden files hold it: indented,
// the test's folders replaced by names.
func reportJSON(t *testing.T, rep *report.Report, dirs map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for dir, name := range dirs {
		s = strings.ReplaceAll(s, dir, name)
	}
	return []byte(s)
}

// artifacts is where a test keeps what a person should look at: under
// $ANNOSHEET_ARTIFACTS/sub when set, else a temporary folder.
func artifacts(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), sub)
	if keep := os.Getenv(ArtifactsEnv); keep != "" {
		dir = filepath.Join(keep, sub)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pageChecks are what the browser evaluates in a report's page: that it
// holds no script, frame, object, image or form, that no element has an
// event handler, every section it should, and every chart drawn.
var pageChecks = []string{
	`document.querySelectorAll('script, iframe, frame, object, embed, img, form, link, base, meta[http-equiv=refresh]').length`,
	`[...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.toLowerCase().startsWith('on'))).length`,
	`[...document.querySelectorAll('section')].map(s => s.id).join(',')`,
	`document.querySelectorAll('svg rect').length`,
	`document.title`,
	`document.body.innerText`,
}

// openReport opens a report's page in Chromium, offline, and checks that
// it renders with no console error, dialog or request: a page that holds
// no active content. It saves a picture of the window (and a PDF) in
// dir, and returns what the browser evaluated.
func openReport(t *testing.T, page, dir, name string) []json.RawMessage {
	t.Helper()
	chromium := testreaders.Chromium(t)
	shot := filepath.Join(dir, name+".png")
	p := testreaders.Browse(t, chromium, page, testreaders.BrowseOptions{Screenshot: shot, FullPage: filepath.Join(dir, name+"-full.png"), PDF: filepath.Join(dir, name+".pdf"), Eval: pageChecks})
	if len(p.Errors) > 0 || len(p.Dialogs) > 0 || len(p.Requests) > 0 {
		t.Errorf("%s: the browser saw errors %q, dialogs %q, requests %q", name, p.Errors, p.Dialogs, p.Requests)
	}
	var active, handlers, rects int
	for i, v := range []*int{&active, &handlers} {
		if err := json.Unmarshal(p.Eval[i], v); err != nil {
			t.Fatal(err)
		}
	}
	if err := json.Unmarshal(p.Eval[3], &rects); err != nil {
		t.Fatal(err)
	}
	if active != 0 || handlers != 0 {
		t.Errorf("%s: %d active elements and %d with event handlers in the page", name, active, handlers)
	}
	if rects == 0 {
		t.Errorf("%s: no chart drawn", name)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", shot, err)
	}
	if b := img.Bounds(); b.Dx() != 1366 || b.Dy() != 900 {
		t.Errorf("%s: a picture of %v, want 1366×900", shot, b)
	}
	t.Logf("%s: a picture of the page in %s", name, shot)
	return p.Eval
}

// TestReportGolden makes the report of a study of every built-in
// template, generated with overlap on the shared data and filled, and
// compares its data (the JSON of what the page shows) with the golden
// files; legal-gaps with its adjudication as the gold set (the
// unanimous answers decided, the rest unresolved), preference with a
// silver set (majorities). Its results must be what annosheet results
// --json gives for the same sources and gold set. Then Chromium opens
// each page offline.
func TestReportGolden(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		study func(*testing.T) string
		gold  func(t *testing.T, study string, opt *reportOptions)
		// sections the page must have.
		sections string
	}{
		{"legal-gaps", legalReportStudy, func(t *testing.T, study string, opt *reportOptions) {
			adj := filepath.Join(filepath.Dir(study), "adj")
			if code, _, stderr := runCLI(t, "adjudicate", study, "--out", adj, "--adjudicator", "lead"); code != 0 {
				t.Fatalf("adjudicate: %s", stderr)
			}
			opt.Adjudication = adj
		}, "progress,answers,agreement,results,problems,gold"},
		{"preference-likert", prefReportStudy, func(t *testing.T, study string, opt *reportOptions) {
			silver := filepath.Join(filepath.Dir(study), "silver.jsonl")
			if code, _, stderr := runCLI(t, "adjudicate", study, "--resolve", "majority", "--out", silver); code != 0 {
				t.Fatalf("adjudicate --resolve majority: %s", stderr)
			}
			opt.recordsFrom.Gold = silver
		}, "progress,answers,agreement,results,problems,gold"},
		{"qa-span-errors", qaReportStudy, nil, "progress,answers,agreement,results,problems"},
		{"factgenie-meta-eval", fgReportStudy, nil, "progress,answers,agreement,results,problems"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.name] = true
	}
	for _, name := range templates.BuiltinNames() {
		if !covered[name] {
			t.Errorf("no golden report of built-in %s", name)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			study := c.study(t)
			opt := reportOptions{agreeOptions: agreeOptions{recordsFrom: recordsFrom{Sources: []string{study}}}}
			if c.gold != nil {
				c.gold(t, study, &opt)
			}
			rep := reportOf(t, opt)
			golden(t, "report", c.name+".json", reportJSON(t, rep, map[string]string{filepath.Dir(study): "TMP"}))
			sameResults(t, rep, study, opt)

			dir := artifacts(t, "report")
			page := filepath.Join(dir, c.name+".html")
			args := []string{"report", study, "--out", page}
			if opt.Adjudication != "" {
				args = append(args, "--adjudication", opt.Adjudication)
			}
			if opt.recordsFrom.Gold != "" {
				args = append(args, "--gold", opt.recordsFrom.Gold)
			}
			code, stdout, stderr := runCLI(t, append(args, "--force")...)
			if code != 0 || !strings.HasPrefix(stdout, "wrote "+page+" (") {
				t.Fatalf("report: exit %d: %s%s", code, stdout, stderr)
			}
			eval := openReport(t, page, dir, c.name)
			var sections string
			if err := json.Unmarshal(eval[2], &sections); err != nil {
				t.Fatal(err)
			}
			if sections != c.sections {
				t.Errorf("sections %s, want %s", sections, c.sections)
			}
		})
	}
}

// sameResults checks that a report's results are what annosheet results
// --json gives for the same sources, with the same gold set (an
// adjudication's, pulled).
func sameResults(t *testing.T, rep *report.Report, study string, opt reportOptions) {
	t.Helper()
	args := []string{"results", study, "--json"}
	if opt.Adjudication != "" {
		gold := filepath.Join(t.TempDir(), "gold.jsonl")
		if code, _, stderr := runCLI(t, "pull", opt.Adjudication, "--out", gold); code != 0 {
			t.Fatalf("pull %s: %s", opt.Adjudication, stderr)
		}
		args = append(args, "--gold", gold)
	}
	if opt.recordsFrom.Gold != "" {
		args = append(args, "--gold", opt.recordsFrom.Gold)
	}
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("results: exit %d: %s", code, stderr)
	}
	var want, got results.Report
	if err := json.Unmarshal([]byte(stdout), &want); err != nil {
		t.Fatal(err)
	}
	if rep.Results == nil {
		t.Fatalf("the report has no results: %+v", rep.ResultsInfo)
	}
	if err := json.Unmarshal(mustJSON(rep.Results), &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the report's results differ from annosheet results --json (-command +report):\n%s", d)
	}
}

// injection is text that would be markup, script or a formula if the
// page wrote it as it is.
var injection = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`=cmd|' /C calc'!A0`,
	`" onload="alert(2)`,
}

// TestReportInjection makes the report of a study whose template (a
// user's, YAML only) has a payload in its title, an error type's label
// and a question's header, whose annotators mark spans that are payloads
// in the text (and give them different types, so that the page shows
// them as an example), and whose corrected predictions are payloads.
// The page must show every one of them as text: nothing in its markup,
// no dialog, console error or request in Chromium, no element the page
// does not write itself.
func TestReportInjection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, ok := templates.BuiltinSource("qa-span-errors")
	if !ok {
		t.Fatal("no qa-span-errors")
	}
	yaml := string(src)
	for _, r := range [][2]string{
		{"name: qa-span-errors\n", "name: qa-injection\n"},
		{"title: Fine-grained errors in answers to questions\n", "title: 'Errors " + strings.ReplaceAll(injection[0]+" "+injection[1], "'", "''") + "'\n"},
		{"        label: Irrelevant\n", "        label: '" + injection[0] + "'\n"},
		{"        label: Incoherent\n", "        label: '" + strings.ReplaceAll(injection[2], "'", "''") + "'\n"},
		{"    header: Corrected prediction\n", "    header: '" + injection[3] + "'\n"},
	} {
		if !strings.Contains(yaml, r[0]) {
			t.Fatalf("the template has no %q", r[0])
		}
		yaml = strings.Replace(yaml, r[0], r[1], 1)
	}
	tmpl := filepath.Join(dir, "qa-injection.yaml")
	if err := os.WriteFile(tmpl, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	pred := "It opens. " + strings.Join(injection, " and ") + " it ends."
	start := func(s string) int { return len([]rune(pred[:strings.Index(pred, s)])) }
	span := func(s, typ string) map[string]any {
		return map[string]any{"error type": typ, "explanation": "", "start": start(s), "end": start(s) + len([]rune(s))}
	}
	record := map[string]any{
		"question": "What does " + injection[0] + " do?", "passages": [][]string{{"Title " + injection[1], "A sentence."}},
		"gold": injection[2], "prediction 1": pred,
		"feedback": map[string]any{"errors": []any{span(injection[0], "Irrelevant"), span(injection[1], "Incoherent"), span(injection[2], "Irrelevant")}, "missing-info": []any{}, "corrected-prediction": injection[1]},
	}
	input := filepath.Join(dir, "qa.json")
	if err := os.WriteFile(input, mustJSON([]any{record}), 0o644); err != nil {
		t.Fatal(err)
	}
	study := generateSeeded(t, tmpl, input, "--annotators", "ak,bt", "--overlap", "2")
	tp, err := templates.LoadWithParams(tmpl, []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []goldtest.QARecord
	if err := json.Unmarshal(mustJSON([]any{record}), &recs); err != nil {
		t.Fatal(err)
	}
	fillStudy(t, study, "qa-injection", []string{"ak", "bt"}, func(w *goldtest.Workbook, who int, name string) error {
		mine := slices.Clone(recs)
		mine[0].Feedback.Errors = slices.Clone(recs[0].Feedback.Errors)
		if who == 1 {
			mine[0].Feedback.Errors[0].Type = "Incoherent" // another type: the unit is an example
		}
		return goldtest.FillQA(w, tp, mine, name)
	})
	page := filepath.Join(artifacts(t, "report"), "injection.html")
	if code, stdout, stderr := runCLI(t, "report", study, "--out", page, "--force"); code != 0 {
		t.Fatalf("report: exit %d: %s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, p := range injection {
		if strings.ContainsAny(p, `<>"`) && strings.Contains(html, p) {
			t.Errorf("the page holds %q as it is", p)
		}
	}
	if !strings.Contains(html, "Where annotators differ most") || !strings.Contains(html, "<mark") {
		t.Error("the page shows no span example")
	}
	eval := openReport(t, page, filepath.Dir(page), "injection")
	var title, text string
	if err := json.Unmarshal(eval[4], &title); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(eval[5], &text); err != nil {
		t.Fatal(err)
	}
	if want := "Study report: Errors " + injection[0] + " " + injection[1]; title != want {
		t.Errorf("title %q, want %q", title, want)
	}
	// Each payload is on the page as text: a label, a header, a span.
	for _, p := range injection {
		if !strings.Contains(text, p) {
			t.Errorf("the page does not show %q as text", p)
		}
	}
}

// TestReportFromRecords makes the report of the records pull wrote of a
// study: its progress from the records' statuses, its problems from
// theirs (with sheet and cell), and the same answers and agreement as
// the report of the study itself.
func TestReportFromRecords(t *testing.T) {
	t.Parallel()
	study := legalReportStudy(t)
	recs := filepath.Join(t.TempDir(), "legal.jsonl")
	if code, _, stderr := runCLI(t, "pull", study, "--out", recs); code != 0 {
		t.Fatalf("pull: %s", stderr)
	}
	fromStudy := reportOf(t, reportOptions{agreeOptions: agreeOptions{recordsFrom: recordsFrom{Sources: []string{study}}}})
	fromRecs := reportOf(t, reportOptions{agreeOptions: agreeOptions{recordsFrom: recordsFrom{Sources: []string{recs}}}})
	if d := cmp.Diff(fromStudy.Answers, fromRecs.Answers); d != "" {
		t.Errorf("answers (-study +records):\n%s", d)
	}
	if d := cmp.Diff(fromStudy.Agreement, fromRecs.Agreement); d != "" {
		t.Errorf("agreement (-study +records):\n%s", d)
	}
	s, r := *fromStudy.Progress.Total, *fromRecs.Progress.Total
	s.Errors, s.Warnings, r.Errors, r.Warnings = 0, 0, 0, 0
	if s != r || len(fromRecs.Progress.Batches) != len(fromStudy.Progress.Batches) {
		t.Errorf("progress from the records %+v (%d batches), from the study %+v (%d)", r, len(fromRecs.Progress.Batches), s, len(fromStudy.Progress.Batches))
	}
	var found bool
	for _, k := range fromRecs.Problems.Kinds {
		for _, g := range k.Workbooks {
			for _, p := range g.Problems {
				if p.Severity == "error" && p.Sheet == "Annotate" && p.Cell != "" && strings.Contains(p.Message, `"maybe"`) && strings.HasSuffix(g.Workbook, ".xlsx") {
					found = true
				}
			}
		}
	}
	if !found || fromRecs.Problems.Errors != 1 {
		t.Errorf("the records' problems: %+v", fromRecs.Problems)
	}
}

// TestReportCLI checks the command line: --help with an example, the
// usage errors, an existing page kept without --force, and what it says.
func TestReportCLI(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, "report", "--help")
	if code != 0 || !strings.Contains(stdout, "Example:") || !strings.Contains(stdout, "annosheet report my-study/ --out report.html") {
		t.Errorf("--help: exit %d\n%s", code, stdout)
	}
	study := generateSeeded(t, "legal-gaps", legalData, "--annotators", "ak,bt", "--overlap", "2")
	out := filepath.Join(t.TempDir(), "report.html")
	// An adjudication made before any unit was done: a gold set of no unit.
	adj := filepath.Join(t.TempDir(), "adj")
	if code, _, stderr := runCLI(t, "adjudicate", study, "--out", adj, "--adjudicator", "lead"); code != 0 {
		t.Fatalf("adjudicate: %s", stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, 2, "report needs a SOURCE"},
		{[]string{"report", study}, 2, "report needs --out FILE.html"},
		{[]string{"report", study, "--out", out, "--gold", "g.jsonl", "--adjudication", "adj/"}, 2, "give --gold or --adjudication, not both"},
		{[]string{"report", study, "--out", out}, 0, ""},
		{[]string{"report", study, "--out", out}, 1, "--force"},
		{[]string{"report", study, "--out", out, "--force"}, 0, ""},
		{[]string{"report", study, "--out", out, "--force", "--gold", filepath.Join(study, "nothing.jsonl")}, 1, "nothing.jsonl"},
		// Nobody has answered: every unit of the gold set is empty.
		{[]string{"report", study, "--out", out, "--force", "--adjudication", adj}, 0, "cannot score against the gold set: none of its records is complete or partial; the report shows no score against it"},
		// --adjudication is the adjudication itself: not the records its
		// pull wrote (--gold reads those), nor one of its workbooks.
		{[]string{"report", study, "--out", out, "--force", "--adjudication", filepath.Join(study, "manifest.json")}, 1, `adjudication: format "xlsx", want "annosheet.adjudication/1"`},
		{[]string{"report", study, "--out", out, "--force", "--adjudication", study}, 1, filepath.Join(study, "adjudication.json") + ": no such file or directory"},
	} {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s%s", c.args[1:], code, c.code, c.want, stdout, stderr)
		}
		if code == 0 && !strings.Contains(stdout, "wrote "+out+" (") || code == 0 && !strings.Contains(stdout, "0 of 10 units done by 0 annotators; 2 questions compared; 0 errors, 0 warnings") {
			t.Errorf("%v: %s", c.args[1:], stdout)
		}
		if b, err := os.ReadFile(out); code == 0 && (err != nil || !strings.Contains(string(b), "</html>")) {
			t.Errorf("%v: %s", c.args[1:], stdout)
		}
	}
}

// TestReportREADME makes the README's picture of a report: the page of
// its legal study (`annosheet report legal/ --out report.html`) as
// Chromium shows it in a window of 1366×900. -update writes it to
// docs/report.png; without, the test checks that the picture is there.
func TestReportREADME(t *testing.T) {
	t.Parallel()
	study := legalReportStudy(t)
	dir := artifacts(t, "report")
	code, stdout, stderr := runCLI(t, "report", study, "--out", filepath.Join(dir, "legal.html"), "--force")
	if want := "KB): 8 of 10 units done by 3 annotators; 2 questions compared; 1 error, 1 warning\n"; code != 0 || !strings.HasSuffix(stdout, want) {
		t.Errorf("report: exit %d: %s%s; want a line ending %q", code, stdout, stderr, want)
	}
	t.Log(stdout)
	rep := reportOf(t, reportOptions{agreeOptions: agreeOptions{recordsFrom: recordsFrom{Sources: []string{study}}}})
	rep.Sources = []string{"legal/"} // as the README's command names it
	page := filepath.Join(dir, "readme.html")
	var b bytes.Buffer
	if err := report.Write(&b, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	const docs = "../../docs/report.png"
	if *update {
		openReport(t, page, dir, "readme")
		shot, err := os.ReadFile(filepath.Join(dir, "readme.png"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(docs, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(docs)
	if err != nil {
		t.Fatalf("%v (go test -run TestReportREADME -update makes it)", err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 1366 || cfg.Height != 900 {
		t.Errorf("%s: %v, %d×%d; want a PNG of 1366×900", docs, err, cfg.Width, cfg.Height)
	}
	if st, err := f.Stat(); err != nil || st.Size() > 300<<10 {
		t.Errorf("%s: %v; want under 300 KB", docs, err)
	}
}
