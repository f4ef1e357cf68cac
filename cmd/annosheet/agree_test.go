package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/goldtest"
)

// agreeReport is the part of agree's JSON the tests read.
type agreeReport struct {
	Schema    string `json:"schema"`
	Questions []struct {
		Name       string   `json:"name"`
		Units      int      `json:"units"`
		Pairable   int      `json:"pairable"`
		Annotators []string `json:"annotators"`
		Metrics    []struct {
			Metric string            `json:"metric"`
			Params map[string]string `json:"params"`
			Value  *float64          `json:"value"`
			CI     []float64         `json:"ci"`
		} `json:"metrics"`
		Pairs []struct {
			A, B string
		} `json:"pairs"`
	} `json:"questions"`
}

// metric finds a question's metric by name and parameters.
func (r agreeReport) metric(t *testing.T, question, name string, params map[string]string) float64 {
	t.Helper()
	for _, q := range r.Questions {
		if q.Name != question {
			continue
		}
		for _, m := range q.Metrics {
			if m.Metric == name && fmt.Sprint(m.Params) == fmt.Sprint(params) {
				if m.Value == nil {
					t.Fatalf("%s %s %v: no value", question, name, params)
				}
				return *m.Value
			}
		}
	}
	t.Fatalf("no %s %v for %s", name, params, question)
	return 0
}

// alpha is Krippendorff's α written out pair by pair, as the definition
// gives it (Krippendorff 2011): values of units with two or more, each
// unit's pairs weighted 1/(m-1), expected disagreement over every pair of
// values. It checks agree's α, which counts coincidences instead.
func alpha(units [][]any, delta func(a, b any) float64) float64 {
	var pairable [][]any
	n := 0
	for _, u := range units {
		if len(u) >= 2 {
			pairable = append(pairable, u)
			n += len(u)
		}
	}
	var do, de float64
	var all []any
	for _, u := range pairable {
		for i := range u {
			for j := range u {
				if i != j {
					do += delta(u[i], u[j]) / float64(len(u)-1)
				}
			}
		}
		all = append(all, u...)
	}
	for i := range all {
		for j := range all {
			if i != j {
				de += delta(all[i], all[j])
			}
		}
	}
	return 1 - (do/float64(n))/(de/float64(n*(n-1)))
}

func masi(a, b any) float64 {
	x, y := a.([]string), b.([]string)
	inter, union := 0, map[string]bool{}
	for _, s := range x {
		union[s] = true
		if slices.Contains(y, s) {
			inter++
		}
	}
	for _, s := range y {
		union[s] = true
	}
	if len(union) == 0 {
		return 0
	}
	j := float64(inter) / float64(len(union))
	var m float64
	switch {
	case inter == len(x) && inter == len(y):
		m = 1
	case inter == len(x) || inter == len(y):
		m = 2.0 / 3
	case inter > 0:
		m = 1.0 / 3
	}
	return 1 - j*m
}

// TestAgreeEndToEnd generates real studies with overlap, fills them as
// annotators would (with disagreements, an empty selection, and the
// likert "not yet rated" 0), and checks what agree reports against values
// the test computes itself: units and pairable values, α written out
// pair by pair, percent agreement; the same bytes twice; a subset of
// annotators; pulled records giving what the workbooks give.
func TestAgreeEndToEnd(t *testing.T) {
	t.Parallel()
	t.Run("legal-gaps, two annotators, label sets", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		out := filepath.Join(dir, "study")
		if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", "../../testdata/data/legal-gaps/examples.sample.jsonl", "-o", out, "--annotators", "ak,bt", "--overlap", "2"); code != 0 {
			t.Fatalf("generate: %s", stderr)
		}
		answers := map[string][][]string{ // unit -> ak's, bt's codes
			"gpt4o-11":  {{"2", "3"}, {"2", "3"}},
			"llama3-11": {{"1"}, {"1", "2"}},
			"gpt4o-12":  {{"0"}, {"0"}},
			"llama3-12": {{"2"}, {"3"}},
			"gpt4o-13":  {{"1", "3"}, {"0"}},
		}
		var units [][]any
		for i, who := range []string{"ak", "bt"} {
			w, err := goldtest.OpenWorkbook(filepath.Join(out, "legal-gaps-"+who+"-b01.xlsx"))
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Units) != len(answers) {
				t.Fatalf("%s has units %v", who, w.Units)
			}
			for _, u := range w.Units {
				row := w.Rows[u][0]
				for _, code := range []string{"0", "1", "2", "3"} {
					if err := w.Set(row, "q:gaps="+code, slices.Contains(answers[realID(t, out, u)][i], code)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Save(); err != nil {
				t.Fatal(err)
			}
		}
		for _, u := range slices.Sorted(mapKeys(answers)) {
			units = append(units, []any{answers[u][0], answers[u][1]})
		}
		code, stdout, stderr := runCLI(t, "agree", out, "--json")
		if code != 0 {
			t.Fatalf("agree: exit %d: %s", code, stderr)
		}
		var rep agreeReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		q := rep.Questions[0]
		if rep.Schema != "annosheet.agreement/1" || q.Name != "gaps" || q.Units != 5 || q.Pairable != 10 || !slices.Equal(q.Annotators, []string{"ak", "bt"}) {
			t.Errorf("schema %q, first question %s: %d units, %d pairable, %v", rep.Schema, q.Name, q.Units, q.Pairable, q.Annotators)
		}
		if got, want := rep.metric(t, "gaps", "krippendorff_alpha", map[string]string{"distance": "masi"}), alpha(units, masi); math.Abs(got-want) > 1e-12 {
			t.Errorf("α MASI %v, want %v", got, want)
		}
		if got := rep.metric(t, "gaps", "percent_agreement", map[string]string{}); math.Abs(got-2.0/5) > 1e-12 {
			t.Errorf("exact-set agreement %v, want 2/5", got)
		}
		// The same bytes again.
		if _, again, _ := runCLI(t, "agree", out, "--json"); again != stdout {
			t.Errorf("a second run differs")
		}
		// Pulled records give what the workbooks give.
		recs := filepath.Join(dir, "a.jsonl")
		if code, _, stderr := runCLI(t, "pull", out, "--out", recs); code != 0 {
			t.Fatalf("pull: %s", stderr)
		}
		if _, fromRecs, stderr := runCLI(t, "agree", recs, "--json"); fromRecs != stdout {
			t.Errorf("agree on pulled records differs from agree on the study: %s", stderr)
		}
	})
	t.Run("preference, three annotators, likert 0 not a rating", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		out := filepath.Join(dir, "study")
		if code, _, stderr := runCLI(t, "generate", "-t", "preference-likert", "-i", "../../testdata/data/preference/preference_json_1.json", "-o", out, "--annotators", "ak,bt,cm", "--overlap", "3"); code != 0 {
			t.Fatalf("generate: %s", stderr)
		}
		// Ratings of the first prediction by unit index and annotator; 0
		// is "not yet rated".
		ratings := [][]int{{5, 5, 4}, {3, 0, 3}, {1, 2, 1}, {4, 4, 4}, {2, 3, 0}, {5, 4, 5}, {0, 0, 3}, {3, 3, 2}, {1, 1, 1}, {4, 5, 5}}
		var order []string
		for i, who := range []string{"ak", "bt", "cm"} {
			w, err := goldtest.OpenWorkbook(filepath.Join(out, "preference-likert-"+who+"-b01.xlsx"))
			if err != nil {
				t.Fatal(err)
			}
			if order == nil {
				order = slices.Sorted(slices.Values(w.Units))
			}
			for _, u := range w.Units {
				k := slices.Index(order, u)
				// Candidates are shown in a shuffled order, which pull
				// undoes: every candidate gets the rating, so that the
				// first prediction has it whichever place it was shown in.
				for _, q := range []string{"first", "second", "third"} {
					if err := w.Set(w.Rows[u][0], "q:"+q+"_prediction_likert", ratings[k][i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Save(); err != nil {
				t.Fatal(err)
			}
		}
		var units [][]any
		pairable := 0
		for _, r := range ratings {
			var u []any
			for _, v := range r {
				if v != 0 {
					u = append(u, float64(v))
				}
			}
			if len(u) >= 2 {
				pairable += len(u)
			}
			units = append(units, u)
		}
		interval := func(a, b any) float64 { d := a.(float64) - b.(float64); return d * d }
		code, stdout, stderr := runCLI(t, "agree", out, "--json", "--include-partial", "-q", "first_prediction_likert")
		if code != 0 {
			t.Fatalf("agree: exit %d: %s", code, stderr)
		}
		var rep agreeReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Questions) != 1 || rep.Questions[0].Units != 10 || rep.Questions[0].Pairable != pairable || len(rep.Questions[0].Pairs) != 3 {
			t.Fatalf("questions %+v, want first_prediction_likert alone: 10 units, %d pairable values, 3 pairs", rep.Questions, pairable)
		}
		if got, want := rep.metric(t, "first_prediction_likert", "krippendorff_alpha", map[string]string{"level": "interval"}), alpha(units, interval); math.Abs(got-want) > 1e-12 {
			t.Errorf("α interval %v, want %v", got, want)
		}
		// Two annotators: Cohen's κ at question level, one pair.
		code, stdout, stderr = runCLI(t, "agree", out, "--json", "--include-partial", "-q", "first_prediction_likert", "--annotators", "ak,cm", "--ci", "0.9")
		if code != 0 {
			t.Fatalf("agree --annotators: exit %d: %s", code, stderr)
		}
		rep = agreeReport{}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		var two [][]any
		for _, r := range ratings {
			var u []any
			for _, v := range []int{r[0], r[2]} {
				if v != 0 {
					u = append(u, float64(v))
				}
			}
			two = append(two, u)
		}
		q := rep.Questions[0]
		if len(q.Pairs) != 1 || !slices.Equal(q.Annotators, []string{"ak", "cm"}) || len(q.Metrics[0].CI) != 2 {
			t.Errorf("annotators %v, %d pairs, headline interval %v", q.Annotators, len(q.Pairs), q.Metrics[0].CI)
		}
		if got, want := rep.metric(t, "first_prediction_likert", "krippendorff_alpha", map[string]string{"level": "interval"}), alpha(two, interval); math.Abs(got-want) > 1e-12 {
			t.Errorf("α interval of ak and cm %v, want %v", got, want)
		}
		if ci := q.Metrics[0].CI; len(ci) == 2 && !(ci[0] <= *q.Metrics[0].Value && *q.Metrics[0].Value <= ci[1]) {
			t.Errorf("interval %v does not hold the value %v", ci, *q.Metrics[0].Value)
		}
	})
	t.Run("usage", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{{"agree"}, {"agree", "x.jsonl", "--json", "--csv"}, {"agree", "x.jsonl", "--ci", "1.5"}} {
			if code, _, stderr := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, "agree") && !strings.Contains(stderr, "--") {
				t.Errorf("%v: exit %d: %s", args, code, stderr)
			}
		}
	})
}

// realID is a legal-gaps unit's own ID: its workbooks show opaque ones,
// and the manifest holds the key.
func realID(t *testing.T, study, opaque string) string {
	t.Helper()
	key := opaqueKey(t, study)
	if id, ok := key[opaque]; ok {
		return id
	}
	t.Fatalf("no real ID for %s", opaque)
	return ""
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// opaqueKey reads a study's manifest: opaque ID -> real ID.
// shownAs is a study's key the other way: the opaque ID each real one is
// shown as.
func shownAs(t *testing.T, study string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for o, real := range opaqueKey(t, study) {
		out[real] = o
	}
	return out
}

func opaqueKey(t *testing.T, study string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(study, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		OpaqueIDs map[string]string `json:"opaque_ids"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.OpaqueIDs
}

// TestAgreeCSV checks the CSV: a header, a row per value (question, pair,
// option, unit), and a unit ID that a spreadsheet would take for a
// formula quoted as text.
func TestAgreeCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := filepath.Join(dir, "a.jsonl")
	var b strings.Builder
	for _, r := range []struct{ unit, ann, gaps string }{
		{"=1+1", "ak", `["2"]`}, {"=1+1", "bt", `["2"]`}, {"u2", "ak", `["0"]`}, {"u2", "bt", `["1","3"]`},
	} {
		fmt.Fprintf(&b, `{"schema":"annosheet.annotation/1","template":{"name":"legal-gaps","version":1},"batch":"b01","unit":%q,"item":%q,"annotator":%q,"status":"complete","values":{"gaps":%s},"source":{"kind":"xlsx","file":"x.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`+"\n", r.unit, r.unit, r.ann, r.gaps)
	}
	if err := os.WriteFile(recs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "agree", recs, "--csv", "-q", "gaps")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "question,type,scope,annotator_a,annotator_b,option,unit,metric,params,part,value,ci_low,ci_high" {
		t.Errorf("header %v", rows[0])
	}
	scopes := map[string]int{}
	units := map[string]string{}
	for _, r := range rows[1:] {
		scopes[r[2]]++
		if r[2] == "unit" {
			units[r[6]] = r[10]
		}
	}
	if scopes["question"] == 0 || scopes["pair"] == 0 || scopes["option"] == 0 || scopes["unit"] != 2 {
		t.Errorf("rows by scope %v", scopes)
	}
	if units["'=1+1"] != "1" || units["u2"] != "0" {
		t.Errorf("unit rows %v: want '=1+1 agreeing, quoted, and u2 not", units)
	}
}
