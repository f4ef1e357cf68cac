package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// quick are draws enough to test wiring with, few enough to run fast.
var quick = []string{"--resamples", "200", "--permutations", "200"}

// resultsJSON runs results --json and returns the report, checked
// against the shipped schema.
func resultsJSON(t *testing.T, args ...string) (*results.Report, []byte) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append(append([]string{"results", "--json"}, quick...), args...)...)
	if code != 0 {
		t.Fatalf("results %v: exit %d: %s", args, code, stderr)
	}
	goldtest.ValidateResults(t, []byte(stdout))
	var rep results.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	return &rep, []byte(stdout)
}

// readPulled reads a file of records as JSON objects, their values
// untyped.
func readPulled(t *testing.T, path string) []records.Annotation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []records.Annotation
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r records.Annotation
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestResultsBuiltins runs results on a filled study of each built-in:
// the groups each declares, the same report from the study and from its
// records with the manifest, byte for byte at every run, valid against
// the schema.
func TestResultsBuiltins(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		template, by string
		paired       bool
		groups       []string
	}{
		{"legal-gaps", "system", true, []string{"gpt4o", "llama3"}},
		{"preference-likert", "candidate", true, []string{"first", "second", "third"}},
		{"qa-span-errors", "all", false, []string{"all"}},
		{"factgenie-meta-eval", "evaluator", false, []string{"claude-3-7-sonnet", "gpt4o", "llama3-3"}},
	} {
		t.Run(c.template, func(t *testing.T) {
			t.Parallel()
			s := makeTableStudy(t, c.template)
			rep, fromStudy := resultsJSON(t, s.dir)
			if len(rep.Questions) == 0 {
				t.Fatal("no question reported")
			}
			for _, q := range rep.Questions {
				if q.By != c.by || q.Paired != c.paired {
					t.Errorf("%s: by %s, paired %v; want %s, %v", q.Question, q.By, q.Paired, c.by, c.paired)
				}
				for _, e := range q.Estimates {
					if e.Group != nil && !contains(c.groups, *e.Group) {
						t.Errorf("%s: group %q, want one of %q (never a label annotators saw)", q.Question, *e.Group, c.groups)
					}
				}
			}
			_, again := resultsJSON(t, s.dir)
			if !bytes.Equal(fromStudy, again) {
				t.Error("the same study and seed gave other bytes")
			}
			_, fromRecords := resultsJSON(t, s.records, "--manifest", filepath.Join(s.dir, "manifest.json"))
			if !bytes.Equal(fromStudy, fromRecords) {
				t.Errorf("from the study and from its records with the manifest, two reports:\n%s\n%s", fromStudy, fromRecords)
			}
			gold, _ := resultsJSON(t, s.records, "--manifest", filepath.Join(s.dir, "manifest.json"), "--gold", s.gold)
			if gold.Basis != results.BasisGold {
				t.Errorf("basis %s with --gold", gold.Basis)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestResultsLegalShares checks legal-gaps' shares against a count made
// here from the pulled records, and, with the gold set of adjudicate,
// from the gold values instead.
func TestResultsLegalShares(t *testing.T) {
	t.Parallel()
	s := makeTableStudy(t, "legal-gaps")
	rep, _ := resultsJSON(t, s.records)
	checkLegalShares(t, rep, results.BasisAnnotators, s.records)
	rep, _ = resultsJSON(t, s.records, "--gold", s.gold)
	checkLegalShares(t, rep, results.BasisGold, s.gold)
}

// TestResultsOpenpyxl: the shared data's legal-gaps study, three
// annotators at overlap 2, each workbook filled by openpyxl (another
// program than the one that wrote it): the shares results gives are
// those counted here from the records pull reads.
func TestResultsOpenpyxl(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	annotators := []string{"ak", "bt", "cm"}
	study := generateStudy(t, "legal-gaps", legalData, strings.Join(annotators, ","), 2)
	gold, _ := legalGold(t)
	fillLegal(t, py, study, annotators, func(unit, who string) ([]int, string) {
		codes := gold[unit]
		if who == "bt" && strings.HasPrefix(unit, "llama3") {
			codes = []int{2} // bt reads llama3's analyses otherwise
		}
		return codes, ""
	})
	recs := filepath.Join(t.TempDir(), "records.jsonl")
	if code, _, stderr := runCLI(t, "pull", study, "--out", recs); code != 0 {
		t.Fatalf("pull: %s", stderr)
	}
	rep, _ := resultsJSON(t, study)
	checkLegalShares(t, rep, results.BasisAnnotators, recs)
}

// checkLegalShares checks a report's shares of legal-gaps' codes against
// a count made here from the records in file: per system (the id's
// prefix), each unit's share of its records that selected a code,
// averaged over the units.
func checkLegalShares(t *testing.T, rep *results.Report, basis, file string) {
	t.Helper()
	if rep.Basis != basis {
		t.Errorf("basis %s, want %s", rep.Basis, basis)
	}
	type key struct{ system, code string }
	sum := map[key]float64{}
	units := map[string]int{}
	perUnit := map[string][]records.Annotation{}
	for _, r := range readPulled(t, file) {
		if r.Status == records.StatusComplete && r.Values["gaps"] != nil {
			perUnit[r.Unit] = append(perUnit[r.Unit], r)
		}
	}
	for unit, rs := range perUnit {
		system := strings.SplitN(unit, "-", 2)[0]
		units[system]++
		for _, code := range []string{"0", "1", "2", "3"} {
			n := 0.0
			for _, r := range rs {
				for _, v := range r.Values["gaps"].([]any) {
					if v == code {
						n++
					}
				}
			}
			sum[key{system, code}] += n / float64(len(rs))
		}
	}
	checked := 0
	for _, q := range rep.Questions {
		if q.Question != "gaps" {
			continue
		}
		for _, e := range q.Estimates {
			want := sum[key{*e.Group, *e.Option}] / float64(units[*e.Group])
			if d := e.Value - want; d > 1e-12 || d < -1e-12 || e.Units != units[*e.Group] {
				t.Errorf("%s: %s %s: %v over %d units, want %v over %d", basis, *e.Group, *e.Option, e.Value, e.Units, want, units[*e.Group])
			}
			checked++
		}
	}
	if checked != 4*len(units) || len(units) != 2 {
		t.Errorf("%s: %d estimates of gaps for %d systems, want 4 codes for each of gpt4o and llama3", basis, checked, len(units))
	}
}

// TestResultsOutputs: text, CSV and LaTeX carry the same estimates; --out
// writes the file, and refuses to replace it without --force.
func TestResultsOutputs(t *testing.T) {
	t.Parallel()
	s := makeTableStudy(t, "legal-gaps")
	code, text, stderr := runCLI(t, append([]string{"results", s.dir}, quick...)...)
	if code != 0 || !strings.Contains(text, "gaps (multi), by system, paired") || !strings.Contains(text, "gpt4o − llama3") {
		t.Errorf("text: exit %d: %s\n%s", code, text, stderr)
	}
	out := filepath.Join(t.TempDir(), "results.csv")
	if code, stdout, stderr := runCLI(t, append([]string{"results", s.dir, "--csv", "--out", out}, quick...)...); code != 0 || !strings.HasPrefix(stdout, "wrote "+out) {
		t.Fatalf("csv: exit %d: %s %s", code, stdout, stderr)
	}
	header, rows := readCSV(t, readBytes(t, out))
	if header[0] != "question" || len(rows) == 0 {
		t.Errorf("csv: header %q, %d rows", header, len(rows))
	}
	if code, _, stderr := runCLI(t, append([]string{"results", s.dir, "--csv", "--out", out}, quick...)...); code != exitFailure || !strings.Contains(stderr, "--force") {
		t.Errorf("again without --force: exit %d: %s", code, stderr)
	}
	code, tex, _ := runCLI(t, append([]string{"results", s.dir, "--latex"}, quick...)...)
	if code != 0 || !strings.Contains(tex, `\toprule`) || !strings.Contains(tex, `\caption{gaps (multi), by system}`) {
		t.Errorf("latex: exit %d:\n%s", code, tex)
	}
}

// TestResultsUsage: mistakes of the command line, each said with what to
// do, before anything is read or written.
func TestResultsUsage(t *testing.T) {
	t.Parallel()
	recs := legalRecords(t, t.TempDir(), "r.jsonl", "gpt4o-1 ak 1", "llama3-1 ak 2")
	fg := filepath.Join(t.TempDir(), "fg.jsonl")
	if err := os.WriteFile(fg, []byte(`{"schema":"annosheet.annotation/1","template":{"name":"factgenie-meta-eval","version":1},"batch":"b01","unit":"d/t/0/S1#A1","item":"d/t/0/S1","annotator":"ak","status":"complete","values":{"span_ok":"Error","explanation_ok":"Correct"},"source":{"kind":"xlsx","file":"x.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"results"}, exitUsage, "results needs a SOURCE"},
		{[]string{"results", recs, "--json", "--latex"}, exitUsage, "give one of --json, --csv and --latex"},
		{[]string{"results", recs, "--resamples", "0"}, exitUsage, "--resamples 0: give a whole number from 1 to 1,000,000"},
		{[]string{"results", recs, "--permutations", "2000000"}, exitUsage, "--permutations 2000000: give a whole number from 1 to 1,000,000"},
		{[]string{"results", recs, "--level", "1"}, exitUsage, "--level 1: give a level between 0 and 1"},
		{[]string{"results", recs, "--by", "model"}, exitFailure, "--by model: cannot compute results: template legal-gaps has no such group (it has system)"},
		{[]string{"results", recs, "--question", "gap"}, exitFailure, "--question gap: cannot compute results: template legal-gaps has no such question"},
		{[]string{"results", fg}, exitFailure, "group evaluator: the group is read from the study's inputs (its from is {@.evaluator}), not from the records' ids (give the study's manifest with --manifest"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d: %s\nwant exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestResultsREADME: the README's results of its legal study are what
// results says of that study, as typed there.
func TestResultsREADME(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, shown, ok := strings.Cut(string(readme), "```sh\n./annosheet results legal/\n```\n```\n")
	if !ok {
		t.Fatal("the README does not show ./annosheet results legal/ and its output")
	}
	shown, _, _ = strings.Cut(shown, "```\n")
	code, got, stderr := runCLI(t, "results", legalReportStudy(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got != shown {
		t.Errorf("the README shows\n%s\nresults says\n%s", shown, got)
	}
}
