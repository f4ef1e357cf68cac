package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// TestResultsIndependent compares annosheet's results with an
// implementation of the same rules written apart from it, in Python's
// standard library (testkit/resultscheck), on filled studies of the
// shared data: point estimates and differences must be the same numbers;
// intervals and p-values, drawn from other random streams, must agree
// within Monte Carlo error.
//
// Tolerances, with R resamples and P permutations on both sides: a
// p-value estimated from P permutations has a standard error of at most
// sqrt(p(1-p)/P); two independent estimates differ by less than
// 4·sqrt(2)·that, plus 2/P for the (k+1)/(P+1) offset, all but once in
// tens of thousands of comparisons; Holm's adjustment multiplies a p-value
// by up to the number of pairs, and its tolerance with it. An interval bound is a quantile of a
// bootstrap distribution; on these small studies the distributions are
// discrete, and a bound estimated from R draws moves by at most a small
// part of the interval unless the quantile sits on a jump, which R =
// 20000 makes unlikely on the small studies (the 176 units of
// factgenie-meta-eval give smooth ones at R = 4000): bounds must agree
// within a tenth of the interval's
// width, or 0.02 of the scale of the values, whichever is more.
func TestResultsIndependent(t *testing.T) {
	t.Parallel()
	py := testreaders.Python(t)
	for _, c := range []struct {
		name, template, design string
		draws                  int // resamples and permutations on both sides
	}{
		{"legal-gaps", "legal-gaps", "legal-gaps", 20000},
		{"preference-likert", "preference-likert", "preference", 20000},
		{"qa-span-errors", "qa-span-errors", "all", 20000},
		// 176 units pooled in each of 48 permutation tests: fewer draws
		// keep the pure-Python side fast, their tolerance wider.
		{"factgenie-meta-eval", "factgenie-meta-eval", "given", 4000},
		{"legal-gaps, 120 items", "legal-gaps", "legal-gaps", 20000},
		// Filled by openpyxl, three annotators at overlap 2.
		{"preference-likert, openpyxl", "preference-likert", "preference", 20000},
		{"factgenie-meta-eval, openpyxl", "factgenie-meta-eval", "given", 4000},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var s tableStudy
			switch {
			case c.name == "legal-gaps, 120 items":
				s.records = syntheticLegal(t)
			case strings.HasSuffix(c.name, "openpyxl"):
				s = openpyxlStudy(t, c.template)
			default:
				s = makeTableStudy(t, c.template)
			}
			checkIndependently(t, py, s, c.template, c.design, c.draws)
		})
	}
}

// checkIndependently compares results on s's records with the
// independent checker's.
func checkIndependently(t *testing.T, py string, s tableStudy, template, design string, n int) {
	t.Helper()
	draws := fmt.Sprint(n)
	code, tmpl, stderr := runCLI(t, "templates", "show", template, "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	tfile := filepath.Join(t.TempDir(), "template.json")
	if err := os.WriteFile(tfile, []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"results", s.records, "--json", "--resamples", draws, "--permutations", draws}
	if s.dir != "" {
		args = append(args, "--manifest", filepath.Join(s.dir, "manifest.json"))
	}
	code, ours, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatal(stderr)
	}
	check := []string{"../../testkit/resultscheck/check_results.py", "--records", s.records, "--template", tfile,
		"--design", design, "--resamples", draws, "--permutations", draws, "--seed", "5"}
	if design == "given" {
		check = append(check, "--groups", evaluatorsByKey(t, s))
	}
	out, err := exec.Command(py, check...).Output()
	if err != nil {
		t.Fatalf("the independent check: %v", err)
	}
	var got, want results.Report
	if err := json.Unmarshal([]byte(ours), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("the independent check's JSON: %v\n%s", err, out)
	}
	compareResults(t, &got, &want, n)
}

// openpyxlStudy is the shared data's study of a template for ak, bt and
// cm at overlap 2, every workbook filled by openpyxl (another program than
// the one that wrote it) with answers that vary by annotator and unit,
// then pulled.
func openpyxlStudy(t *testing.T, template string) tableStudy {
	t.Helper()
	py := testreaders.Openpyxl(t)
	input := map[string]string{"preference-likert": prefData, "factgenie-meta-eval": fgData}[template]
	s := tableStudy{dir: seededStudy(t, template, input, "ak,bt,cm", 2)}
	key := opaqueKey(t, s.dir)
	for who, name := range []string{"ak", "bt", "cm"} {
		path := filepath.Join(s.dir, template+"-"+name+"-b01.xlsx")
		w := openLayout(t, path).RealIDs(key)
		var cells [][2]any
		for i, u := range slices.Sorted(slices.Values(w.Units)) {
			row := w.Rows[u][0]
			var set map[string]any
			switch template {
			case "preference-likert":
				labels := goldtest.PreferenceLabels
				set = map[string]any{
					"q:best_prediction_reference": labels[(i+who)%3], "q:best_prediction_topic": labels[(2*i+who)%3],
					"q:first_prediction_likert": (i*who)%5 + 1, "q:second_prediction_likert": (i+2*who)%5 + 1, "q:third_prediction_likert": (3*i+who)%5 + 1,
				}
			default:
				set = map[string]any{
					"q:span_ok":          []string{"Error", "Not an error", "No span given", "Hallucination"}[(i+who)%4],
					"q:explanation_ok":   []string{"Correct", "Partially correct", "Incomplete", "Vague", "Incorrect"}[(i*(who+1))%5],
					"q:flags=Too strict": (i+who)%3 == 0,
				}
			}
			set["annotator"] = name
			for k, v := range set {
				cells = append(cells, [2]any{mustCell(t, w, row, k), v})
			}
		}
		fillWithOpenpyxl(t, py, path, cells, "")
	}
	s.records = filepath.Join(t.TempDir(), "records.jsonl")
	if code, _, stderr := runCLI(t, "pull", s.dir, "--out", s.records); code != 0 {
		t.Fatalf("pull: %s", stderr)
	}
	return s
}

// compareResults matches estimates and comparisons by question,
// statistic, option and group(s), and checks each as
// TestResultsIndependent says.
func compareResults(t *testing.T, got, want *results.Report, p int) {
	t.Helper()
	str := func(s *string) string {
		if s == nil {
			return "<null>"
		}
		return *s
	}
	type estKey struct{ q, stat, opt, group string }
	type cmpKey struct{ q, stat, opt, a, b string }
	wantEst := map[estKey]results.Estimate{}
	wantCmp := map[cmpKey]results.Comparison{}
	scale := map[string]float64{} // per question, the spread of the values
	for _, q := range want.Questions {
		for _, e := range q.Estimates {
			wantEst[estKey{q.Question, e.Statistic, str(e.Option), str(e.Group)}] = e
		}
		for _, c := range q.Comparisons {
			wantCmp[cmpKey{q.Question, c.Statistic, str(c.Option), c.A, c.B}] = c
		}
	}
	estimates, comparisons := 0, 0
	for _, q := range got.Questions {
		scale[q.Question] = 1
		for _, e := range q.Estimates {
			if e.Statistic == results.Mean || e.Statistic == results.Median {
				scale[q.Question] = 4 // a 1-5 scale
			}
		}
		for _, e := range q.Estimates {
			k := estKey{q.Question, e.Statistic, str(e.Option), str(e.Group)}
			w, ok := wantEst[k]
			if !ok {
				t.Errorf("%v: no such estimate in the independent check", k)
				continue
			}
			estimates++
			if !sameNumber(e.Value, w.Value) || e.Units != w.Units {
				t.Errorf("%v: %v over %d units, the check says %v over %d", k, e.Value, e.Units, w.Value, w.Units)
			}
			closeInterval(t, fmt.Sprint(k), e.CI, w.CI, scale[q.Question])
		}
		for _, c := range q.Comparisons {
			k := cmpKey{q.Question, c.Statistic, str(c.Option), c.A, c.B}
			w, ok := wantCmp[k]
			if !ok {
				t.Errorf("%v: no such comparison in the independent check", k)
				continue
			}
			comparisons++
			if !sameNumber(c.Difference, w.Difference) {
				t.Errorf("%v: difference %v, the check says %v", k, c.Difference, w.Difference)
			}
			closeInterval(t, fmt.Sprint(k), c.CI, w.CI, scale[q.Question])
			// Holm multiplies a p-value by up to the number of pairs
			// compared, and its Monte Carlo error with it.
			pairs := 0
			for _, o := range q.Comparisons {
				if o.Statistic == c.Statistic && str(o.Option) == str(c.Option) {
					pairs++
				}
			}
			for _, pp := range []struct {
				what      string
				got, want float64
				scale     float64
			}{{"p", c.P, w.P, 1}, {"Holm's p", c.PHolm, w.PHolm, float64(pairs)}} {
				raw := math.Min(1, (pp.got+pp.want)/2/pp.scale)
				if tol := pp.scale * (4*math.Sqrt2*math.Sqrt(raw*(1-raw)/float64(p)) + 2/float64(p)); math.Abs(pp.got-pp.want) > tol {
					t.Errorf("%v: %s %v, the check says %v (tolerance %.4f)", k, pp.what, pp.got, pp.want, tol)
				}
			}
		}
	}
	if estimates == 0 || comparisons == 0 && len(wantCmp) > 0 {
		t.Errorf("%d estimates and %d comparisons compared", estimates, comparisons)
	}
	t.Logf("%d estimates and %d comparisons agree", estimates, comparisons)
}

// sameNumber: the same value, up to the last bits that the order of a
// sum may change.
func sameNumber(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func closeInterval(t *testing.T, what string, got, want *[2]float64, scale float64) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Errorf("%s: interval %v, the check says %v", what, got, want)
		return
	}
	if got == nil {
		return
	}
	tol := math.Max(0.1*(want[1]-want[0]), 0.02*scale)
	if math.Abs(got[0]-want[0]) > tol || math.Abs(got[1]-want[1]) > tol {
		t.Errorf("%s: interval %v, the check says %v (tolerance %.4f)", what, *got, *want, tol)
	}
}

// syntheticLegal writes the records of a larger legal-gaps study: 60
// pairs of items (gpt4o-N, llama3-N) and 5 more of gpt4o alone, three
// annotators each, some partial; gpt4o finds code 2 more often than
// llama3, and the other codes as often.
func syntheticLegal(t *testing.T) string {
	t.Helper()
	var lines []string
	state := uint64(12345)
	next := func(n int) int { // a small LCG: the same records at every run
		state = state*6364136223846793005 + 1442695040888963407
		return int((state >> 33) % uint64(n))
	}
	for n := 1; n <= 65; n++ {
		for _, system := range []string{"gpt4o", "llama3"} {
			if system == "llama3" && n > 60 {
				continue
			}
			for _, who := range []string{"ak", "bt", "cm"} {
				var codes []string
				for code := 0; code < 4; code++ {
					chance := 30
					if code == 2 && system == "gpt4o" {
						chance = 60
					}
					if next(100) < chance {
						codes = append(codes, fmt.Sprint(code))
					}
				}
				if len(codes) == 0 {
					codes = []string{"0"}
				}
				status := "complete"
				if next(20) == 0 {
					status = "partial"
				}
				lines = append(lines, fmt.Sprintf("%s-%d %s %s %s", system, n, who, strings.Join(codes, ","), status))
			}
		}
	}
	return legalRecords(t, t.TempDir(), "synthetic.jsonl", lines...)
}

// evaluatorsByKey writes each unit's evaluator, by its real name, as the
// checker's --groups file: a factgenie-meta-eval unit "…/S1#A2" is
// evaluator label A's second span, and the study's key maps A back.
func evaluatorsByKey(t *testing.T, s tableStudy) string {
	t.Helper()
	name := map[string]string{}
	for real, label := range readManifest(t, s.dir).Keys["evaluator_label"] {
		name[label] = real
	}
	units := map[string]string{}
	for _, r := range readPulled(t, s.records) {
		_, tail, ok := strings.Cut(r.Unit, "#")
		label := strings.TrimRight(tail, "0123456789")
		if !ok || name[label] == "" {
			t.Fatalf("unit %s: no evaluator label the key knows", r.Unit)
		}
		units[r.Unit] = name[label]
	}
	b, err := json.Marshal(map[string]any{"by": "evaluator", "units": units})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "groups.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestResultsCheckerSelf runs the independent checker's own tests: its
// methods on cases computed by hand.
func TestResultsCheckerSelf(t *testing.T) {
	t.Parallel()
	py := testreaders.Python(t)
	if out, err := exec.Command(py, "../../testkit/resultscheck/selftest.py").CombinedOutput(); err != nil {
		t.Errorf("the checker's self-test: %v\n%s", err, out)
	}
}
