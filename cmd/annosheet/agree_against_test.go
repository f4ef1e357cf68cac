package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/google/go-cmp/cmp"
)

// againstReport is the part of agree's JSON with --against the tests
// read.
type againstReport struct {
	Questions []struct {
		Name     string `json:"name"`
		Pairable int    `json:"pairable"`
		Pairs    []struct {
			A, B    string
			Metrics []agreement.Metric `json:"metrics"`
		} `json:"pairs"`
	} `json:"questions"`
	Against study.Against `json:"against"`
}

// pulledLines pulls a study and returns its records as JSON objects, one
// per line as pull writes them.
func pulledLines(t *testing.T, study string) []map[string]any {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pulled.jsonl")
	if code, _, stderr := runCLI(t, "pull", study, "--out", out); code != 0 {
		t.Fatalf("pull: %s", stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// writeLines writes records as JSON Lines into a new file named name.
func writeLines(t *testing.T, name string, recs []map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		b.Write(append(mustJSON(r), '\n'))
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// goldOf is the records of one annotator made gold's: copies, with the
// annotator rewritten and change applied to each.
func goldOf(recs []map[string]any, annotator string, change func(r map[string]any) bool) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if r["annotator"] != annotator {
			continue
		}
		g := map[string]any{}
		for k, v := range r {
			g[k] = v
		}
		g["annotator"] = "gold"
		if change(g) {
			out = append(out, g)
		}
	}
	return out
}

// agreeAgainst runs agree --json with args, checks the report against the
// schema and reads it.
func agreeAgainst(t *testing.T, args ...string) againstReport {
	t.Helper()
	report := agreeValid(t, &schemaSeen{values: map[string]bool{}}, args...)
	var rep againstReport
	if err := json.Unmarshal(report, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func show(v *float64) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprint(*v)
}

// valueIs says whether a value is there and is want.
func valueIs(got *float64, want float64) bool { return got != nil && math.Abs(*got-want) < 1e-12 }

// TestAgreeAgainst runs agree --against on studies pulled and filled as
// annotators would, with a gold set made from one annotator's pulled
// records: on legal-gaps, accuracy and mean Jaccard computed by hand per
// annotator and pooled, the units the gold set and the sources do not
// share, the text and the CSV; on qa-span-errors, a gold set that is
// exactly bt's complete records, so that bt scores 1 everywhere and ak
// scores what agree reports for the pair of ak and bt.
func TestAgreeAgainst(t *testing.T) {
	t.Parallel()
	t.Run("legal-gaps", func(t *testing.T) {
		t.Parallel()
		study := generateStudy(t, "legal-gaps", legalData, "ak,bt", 2)
		answers := map[string][][]string{ // unit -> ak's, bt's codes
			"gpt4o-11":  {{"2", "3"}, {"2", "3"}},
			"llama3-11": {{"1"}, {"1", "2"}},
			"gpt4o-12":  {{"0"}, {"0"}},
			"llama3-12": {{"2"}, {"3"}},
			"gpt4o-13":  {{"1", "3"}, {"0"}},
		}
		fillStudy(t, study, "legal-gaps", []string{"ak", "bt"}, func(w *goldtest.Workbook, who int, name string) error {
			for _, u := range w.Units {
				for _, code := range []string{"0", "1", "2", "3"} {
					if err := w.Set(w.Rows[u][0], "q:gaps="+code, slices.Contains(answers[realID(t, study, u)][who], code)); err != nil {
						return err
					}
				}
			}
			return nil
		})
		// Gold: bt's, but ak's reading of gpt4o-13, nothing of
		// gpt4o-12, and a unit the study does not have.
		pulled := pulledLines(t, study)
		gold := goldOf(pulled, "bt", func(r map[string]any) bool {
			switch r["unit"] {
			case "gpt4o-13":
				r["values"] = map[string]any{"gaps": []string{"1", "3"}}
			case "gpt4o-12":
				return false
			}
			return true
		})
		extra := map[string]any{}
		for k, v := range gold[0] {
			extra[k] = v
		}
		extra["unit"], extra["item"] = "elsewhere-1", "elsewhere-1"
		file := writeLines(t, "gold.jsonl", append(gold, extra))

		rep := agreeAgainst(t, study, "--against", file, "-q", "gaps")
		a := rep.Against
		if a.Gold != file || a.Units != 5 || a.SharedUnits != 4 || a.GoldOnly != 1 || a.SourcesOnly != 1 {
			t.Errorf("gold %s: %d units, %d shared, %d only in gold, %d only in the sources; want 5, 4, 1, 1", a.Gold, a.Units, a.SharedUnits, a.GoldOnly, a.SourcesOnly)
		}
		if len(a.Questions) != 1 || a.Questions[0].Name != "gaps" || a.Questions[0].GoldUnits != 5 {
			t.Fatalf("questions %+v, want gaps alone, with 5 gold values", a.Questions)
		}
		// ak against gold on gpt4o-11, llama3-11, llama3-12, gpt4o-13:
		// right on the first and last; Jaccard 1, 1/2, 0, 1. bt: right
		// but on gpt4o-13; Jaccard 1, 1, 1, 0.
		q := a.Questions[0]
		want := []struct {
			who          string
			units        int
			acc, jaccard float64
		}{
			{who: "ak", units: 4, acc: 0.5, jaccard: 2.5 / 4},
			{who: "bt", units: 4, acc: 0.75, jaccard: 0.75},
			{who: "*", units: 8, acc: 5.0 / 8, jaccard: 5.5 / 8},
		}
		scores := q.Scores()
		if len(scores) != len(want) {
			t.Fatalf("scores %+v, want ak, bt and pooled", scores)
		}
		for i, w := range want {
			s := scores[i]
			if s.Annotator != w.who || s.Units != w.units || !valueIs(s.Accuracy, w.acc) || !valueIs(s.MeanJaccard, w.jaccard) {
				t.Errorf("score %+v, want %s: %d units, accuracy %v, mean Jaccard %v", s, w.who, w.units, w.acc, w.jaccard)
			}
		}

		// The text: the units not scored, and a line per annotator.
		code, text, stderr := runCLI(t, "agree", study, "--against", file, "-q", "gaps")
		if code != 0 {
			t.Fatalf("agree: exit %d: %s", code, stderr)
		}
		for _, line := range []string{
			"Against gold (" + file + "): 5 units, 4 of them in the sources; not scored: 1 unit only in the gold set, 1 unit only in the sources",
			"gaps (multi): the gold set gives 5 units",
			"  ak              4 units  accuracy 0.500  mean Jaccard 0.625",
			"  bt              4 units  accuracy 0.750  mean Jaccard 0.750",
			"  all, pooled     8 units  accuracy 0.625  mean Jaccard 0.688",
		} {
			if !strings.Contains(text, line+"\n") {
				t.Errorf("the text lacks %q:\n%s", line, text)
			}
		}

		// A question the gold set gives no value (the note, which nobody
		// wrote) is one line, not a line of "undefined" per annotator.
		code, text, stderr = runCLI(t, "agree", study, "--against", file)
		if code != 0 {
			t.Fatalf("agree: exit %d: %s", code, stderr)
		}
		note := "note (text): the gold set gives no unit a value (a question not adjudicated has none); not scored\n"
		if !strings.Contains(text, note) || strings.Contains(text, "accuracy undefined") || !strings.Contains(text, "gaps (multi): the gold set gives 5 units\n") {
			t.Errorf("the text, every question:\n%s", text)
		}

		// The CSV: rows of scope against, by annotator.
		code, out, stderr := runCLI(t, "agree", study, "--against", file, "-q", "gaps", "--csv")
		if code != 0 {
			t.Fatalf("agree --csv: exit %d: %s", code, stderr)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range rows[1:] {
			if r[2] == "against" && r[5] == "" {
				got[r[3]+" "+r[4]+" "+r[7]+" "+r[8]] = r[10]
			}
		}
		for k, v := range map[string]string{
			"ak gold units_scored {}": "4", "ak gold accuracy {}": "0.5", "bt gold accuracy {}": "0.75",
			"* gold units_scored {}": "8", "* gold mean_jaccard {}": "0.6875",
		} {
			if got[k] != v {
				t.Errorf("CSV %s: %q, want %q", k, got[k], v)
			}
		}

		// The same values as a model's labels (annotator gpt4o): the
		// same scores, against gpt4o, named so in the JSON and the text.
		var labels []map[string]any
		for _, r := range append(gold, extra) {
			m := map[string]any{}
			for k, v := range r {
				m[k] = v
			}
			m["annotator"] = "gpt4o"
			delete(m, "provenance")
			labels = append(labels, m)
		}
		modelFile := writeLines(t, "model.jsonl", labels)
		byModel := agreeAgainst(t, study, "--against", modelFile, "-q", "gaps")
		if byModel.Against.Reference != "gpt4o" || byModel.Against.Gold != modelFile {
			t.Errorf("against the model: reference %q, file %q", byModel.Against.Reference, byModel.Against.Gold)
		}
		byModel.Against.Reference, byModel.Against.Gold = "", a.Gold
		if d := cmp.Diff(a, byModel.Against); d != "" {
			t.Errorf("scores against the model differ from those against the same values as gold's (-gold +model):\n%s", d)
		}
		code, text, stderr = runCLI(t, "agree", study, "--against", modelFile, "-q", "gaps")
		if want := "Against gpt4o (" + modelFile + "): 5 units, 4 of them in the sources; not scored: 1 unit only in gpt4o's records, 1 unit only in the sources\n"; code != 0 || !strings.Contains(text, want) {
			t.Errorf("agree --against a model: exit %d: %s%s\nwant %q", code, text, stderr, want)
		}
	})
	t.Run("qa-span-errors", func(t *testing.T) {
		t.Parallel()
		study := generateStudy(t, "qa-span-errors", qaData, "ak,bt", 2)
		fillQA(t, study, []string{"ak", "bt"}, func(who, k int, r *goldtest.QARecord) {
			if who == 1 && k%3 == 0 && len(r.Feedback.Errors) > 0 {
				r.Feedback.Errors = r.Feedback.Errors[1:] // bt misses an error
			}
		})
		file := writeLines(t, "gold.jsonl", goldOf(pulledLines(t, study), "bt", func(r map[string]any) bool { return r["status"] == "complete" }))
		rep := agreeAgainst(t, study, "--against", file, "--reference", "bt")
		if len(rep.Against.Questions) != len(rep.Questions) || len(rep.Questions) == 0 {
			t.Fatalf("%d questions against gold, %d compared", len(rep.Against.Questions), len(rep.Questions))
		}
		// Params as text, but for the direction, which names gold for
		// bt.
		key := func(m agreement.Metric) string {
			p := map[string]any{}
			for k, v := range m.Params {
				if k != "reference" && k != "hypothesis" {
					p[k] = v
				}
			}
			return m.Metric + string(mustJSON(p))
		}
		spans := 0
		for i, q := range rep.Against.Questions {
			agreed := rep.Questions[i]
			if q.Name != agreed.Name || len(q.Annotators) != 2 || q.Pooled == nil || len(agreed.Pairs) != 1 {
				t.Fatalf("%s: %d annotators against gold; agreement of %s: %d pairs", q.Name, len(q.Annotators), agreed.Name, len(agreed.Pairs))
			}
			ak, bt := q.Annotators[0], q.Annotators[1]
			if ak.Units != agreed.Pairable/2 || bt.Units < ak.Units {
				t.Errorf("%s: ak %d units, bt %d, want %d (the pair's)", q.Name, ak.Units, bt.Units, agreed.Pairable/2)
			}
			if bt.Units > 0 && !valueIs(bt.Accuracy, 1) {
				t.Errorf("%s: bt's accuracy against their own answers %v", q.Name, *bt.Accuracy)
			}
			if q.Type == "span" {
				spans++
				// bt missed some of ak's errors: ak marked all that gold
				// did, and more.
				if !valueIs(bt.Precision, 1) || !valueIs(bt.Recall, 1) || !valueIs(bt.F1, 1) || q.Name == "errors" && (!valueIs(ak.Recall, 1) || ak.Precision == nil || *ak.Precision >= 1) {
					t.Errorf("%s: bt P %s R %s F1 %s, want 1; ak P %s, want below 1, R %s, want 1", q.Name, show(bt.Precision), show(bt.Recall), show(bt.F1), show(ak.Precision), show(ak.Recall))
				}
			}
			pair := map[string]string{}
			for _, m := range agreed.Pairs[0].Metrics {
				pair[key(m)] = fmt.Sprint(m.Value)
			}
			for _, m := range ak.Metrics {
				if v, ok := pair[key(m)]; ok && v != fmt.Sprint(m.Value) {
					t.Errorf("%s: ak's %s against gold is %v, against bt %s", q.Name, key(m), m.Value, v)
				}
				if m.Metric == "span_char_overlap_prf" && (m.Params["reference"] != "gold" || m.Params["hypothesis"] != "ak") {
					t.Errorf("%s: %s params %v, want gold the reference", q.Name, m.Metric, m.Params)
				}
			}
		}
		if spans != 2 {
			t.Errorf("%d span questions against gold, want errors and repeated", spans)
		}
	})
}

// TestAgreeAgainstScale checks a choice and a scale against gold from
// pulled records, through the schema: the scale's κ unweighted over its
// declared levels and linear, computed by hand in the study's tests
// (gold's last unit is not yet rated: no value).
func TestAgreeAgainstScale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var src, gold strings.Builder
	for i, r := range [][2]int{{5, 5}, {4, 4}, {2, 3}, {2, 2}, {1, 1}, {3, 0}} {
		for who, b := range map[string]*strings.Builder{"ak": &src, "gold": &gold} {
			v := r[0]
			if who == "gold" {
				v = r[1]
			}
			likert := fmt.Sprintf(`,"first_prediction_likert":%d`, v)
			if v == 0 {
				likert = "" // not yet rated: pull writes no value
			}
			fmt.Fprintf(b, `{"schema":"annosheet.annotation/1","template":{"name":"preference-likert","version":1},"batch":"b01","unit":"u%d","item":"u%d","annotator":%q,"status":"complete","values":{"best_prediction_reference":"first"%s},"source":{"kind":"xlsx","file":"x.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`+"\n", i, i, who, likert)
		}
	}
	recs, goldFile := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "gold.jsonl")
	for path, b := range map[string]*strings.Builder{recs: &src, goldFile: &gold} {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep := agreeAgainst(t, recs, "--against", goldFile, "-q", "best_prediction_reference,first_prediction_likert")
	if len(rep.Against.Questions) != 2 {
		t.Fatalf("questions %+v", rep.Against.Questions)
	}
	choice, scale := rep.Against.Questions[0].Annotators[0], rep.Against.Questions[1].Annotators[0]
	if choice.Units != 6 || !valueIs(choice.Accuracy, 1) || choice.Kappa != nil {
		t.Errorf("choice: %+v, want 6 units right and no κ (one category used)", choice)
	}
	if scale.Units != 5 || !valueIs(scale.Accuracy, 0.8) || !valueIs(scale.Kappa, 0.75) || !valueIs(scale.KappaLinear, 0.36/0.41) {
		t.Errorf("scale: %d units, accuracy %s, κ %s, linear %s; want 5, 0.8, 0.75, 0.36/0.41", scale.Units, show(scale.Accuracy), show(scale.Kappa), show(scale.KappaLinear))
	}
}

// TestAgreeAgainstRefuses checks the gold sets agree refuses, each with
// exit 1 and an error that names the file, and the line where one
// record is at fault.
func TestAgreeAgainstRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := func(template, unit, annotator, values string) string {
		return fmt.Sprintf(`{"schema":"annosheet.annotation/1","template":{"name":%q,"version":1},"batch":"b01","unit":%q,"item":%q,"annotator":%q,"status":"complete","values":%s,"source":{"kind":"xlsx","file":"x.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`+"\n", template, unit, unit, annotator, values)
	}
	write := func(name string, lines ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	sources := write("a.jsonl", rec("legal-gaps", "u1", "ak", `{"gaps":["1"]}`), rec("legal-gaps", "u1", "bt", `{"gaps":["2"]}`))
	gold := rec("legal-gaps", "u1", "gold", `{"gaps":["1"]}`)
	for _, c := range []struct {
		name, file, want string
	}{
		{"not JSON Lines", write("notjson.jsonl", gold, "u1,ak,1\n"), "notjson.jsonl:2: not a canonical record: invalid character"},
		{"not a canonical record", write("other.jsonl", `{"schema":"something/1"}`+"\n"), `other.jsonl:1: not a canonical record: schema "something/1", want "annosheet.annotation/1"`},
		{"another template", write("pref.jsonl", rec("preference-likert", "u1", "gold", `{"first_prediction_likert":3}`)),
			"pref.jsonl:1: cannot score against the gold set: its records are of template preference-likert version 1; the sources are of legal-gaps version 1"},
		{"not gold's", write("ak.jsonl", gold, rec("legal-gaps", "u2", "ak", `{"gaps":["1"]}`)),
			`ak.jsonl:2: cannot score against the gold set: unit u2 is a record of annotator "ak"; a gold set's records are annotator "gold"'s`},
		{"no unit shared", write("far.jsonl", rec("legal-gaps", "v1", "gold", `{"gaps":["1"]}`)),
			"far.jsonl: cannot score against the gold set: it shares no unit with the sources (its units: v1; theirs: u1)"},
		{"not there", filepath.Join(dir, "missing.jsonl"), "missing.jsonl: no such file or directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, "agree", sources, "--against", c.file)
			if code != exitFailure || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", code, stdout, stderr, c.want)
			}
		})
	}
}
