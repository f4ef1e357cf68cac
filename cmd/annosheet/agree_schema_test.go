package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/annosheet/annosheet/schema"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// schemaSeen gathers what the reports validated against the agreement
// schema hold: metric names, params as key=value, question types; so
// that the test can check that the schema's enums name nothing agree
// never writes.
type schemaSeen struct {
	mu     sync.Mutex
	values map[string]bool
}

func (s *schemaSeen) add(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.values[k] = true
	}
}

// seenReport is the part of a report schemaSeen reads.
type seenReport struct {
	Questions []struct {
		Type    string       `json:"type"`
		Metrics []seenMetric `json:"metrics"`
		Pairs   []struct {
			Metrics []seenMetric `json:"metrics"`
		} `json:"pairs"`
		Options []struct {
			Metrics []seenMetric `json:"metrics"`
		} `json:"options"`
	} `json:"questions"`
}

type seenMetric struct {
	Metric string         `json:"metric"`
	Params map[string]any `json:"params"`
	Value  any            `json:"value"`
	CI     []float64      `json:"ci"`
}

// record notes what one report holds: every metric name, param (a
// string param's value too), question type, and whether it has a null
// value or an interval.
func (s *schemaSeen) record(t *testing.T, report []byte) {
	t.Helper()
	var rep seenReport
	if err := json.Unmarshal(report, &rep); err != nil {
		t.Fatal(err)
	}
	for _, q := range rep.Questions {
		s.add("type=" + q.Type)
		lists := [][]seenMetric{q.Metrics}
		for _, p := range q.Pairs {
			lists = append(lists, p.Metrics)
		}
		for _, o := range q.Options {
			lists = append(lists, o.Metrics)
		}
		for _, list := range lists {
			for _, m := range list {
				s.add("metric=" + m.Metric)
				for k, v := range m.Params {
					s.add("param=" + k)
					if str, ok := v.(string); ok {
						s.add("param=" + k + "=" + str)
					}
				}
				if m.Value == nil {
					s.add("null")
				}
				if len(m.CI) == 2 {
					s.add("ci")
				}
			}
		}
	}
}

// agreeValid runs agree --json with args, checks its report against the
// schema, notes what it holds in seen, and returns it.
func agreeValid(t *testing.T, seen *schemaSeen, args ...string) []byte {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"agree", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("agree %v: exit %d: %s", args, code, stderr)
	}
	goldtest.ValidateAgreement(t, []byte(stdout))
	seen.record(t, []byte(stdout))
	var rep struct {
		Records   struct{ Used int }
		Questions []json.RawMessage
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("agree %v: %d records compared, %d questions, %d bytes checked", args, rep.Records.Used, len(rep.Questions), len(stdout))
	return []byte(stdout)
}

// generateStudy generates a study of a template for annotators with
// overlap, and returns its folder.
func generateStudy(t *testing.T, template, input, annotators string, overlap int) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "study")
	if code, _, stderr := runCLI(t, "generate", "-t", template, "-i", input, "-o", out, "--annotators", annotators, "--overlap", fmt.Sprint(overlap)); code != 0 {
		t.Fatalf("generate %s: %s", template, stderr)
	}
	return out
}

// fillStudy opens each annotator's workbook of a study, lets fill answer
// in it as annotator who (their index) named name, and saves it.
func fillStudy(t *testing.T, study, template string, annotators []string, fill func(w *goldtest.Workbook, who int, name string) error) {
	t.Helper()
	for i, who := range annotators {
		w, err := goldtest.OpenWorkbook(filepath.Join(study, template+"-"+who+"-b01.xlsx"))
		if err != nil {
			t.Fatal(err)
		}
		if err := fill(w, i, who); err != nil {
			t.Fatalf("%s: %v", who, err)
		}
		if err := w.Save(); err != nil {
			t.Fatal(err)
		}
	}
}

// fillQA fills a qa-span-errors study with the sample's answers, each
// annotator's record k as vary changes it for annotator who (a copy,
// its errors too).
func fillQA(t *testing.T, study string, annotators []string, vary func(who, k int, r *goldtest.QARecord)) {
	t.Helper()
	fillQAWith(t, study, annotators, func(who int, _ string, recs []goldtest.QARecord) {
		for k := range recs {
			vary(who, k, &recs[k])
		}
	})
}

// fillQAWith fills a qa-span-errors study from the sample's gold
// feedback, each annotator's copy of the records (their errors and missing
// information copied too) as change makes it; it returns the records as
// the data has them.
func fillQAWith(t *testing.T, study string, annotators []string, change func(who int, name string, recs []goldtest.QARecord)) []goldtest.QARecord {
	t.Helper()
	recs, err := goldtest.ReadQA(qaData)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := templates.Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	fillStudy(t, study, "qa-span-errors", annotators, func(w *goldtest.Workbook, who int, name string) error {
		mine := slices.Clone(recs)
		for k := range mine {
			mine[k].Feedback.Errors = slices.Clone(mine[k].Feedback.Errors)
			mine[k].Feedback.MissingInfo = slices.Clone(mine[k].Feedback.MissingInfo)
		}
		change(who, name, mine)
		return goldtest.FillQA(w, tp, mine, name)
	})
	return recs
}

// setCells writes a row's cells by column key.
func setCells(w *goldtest.Workbook, row int, cells map[string]any) error {
	for k, v := range cells {
		if err := w.Set(row, k, v); err != nil {
			return err
		}
	}
	return nil
}

// TestAgreeSchema checks real reports of `annosheet agree --json`
// against schema/agreement.schema.json: a study of every built-in
// template with overlap, generated and filled with disagreements (two
// and three annotators), before any answer and after; an interval
// (--ci 0.9); two annotators who rate alike everywhere, whose α is
// undefined (null, with a note); spans with a reference named; and a
// template whose question asked on every row of a block is skipped
// (alone with --question, no question is compared: [], not null).
// Together the reports must use every metric name, param value and
// question type the schema lists, so that the schema names nothing agree
// does not write.
func TestAgreeSchema(t *testing.T) {
	t.Parallel()
	seen := &schemaSeen{values: map[string]bool{}}
	covered := map[string]bool{}
	var mu sync.Mutex
	builtin := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		covered[name] = true
	}
	t.Run("reports", func(t *testing.T) {
		t.Run("legal-gaps", func(t *testing.T) {
			t.Parallel()
			builtin("legal-gaps")
			study := generateStudy(t, "legal-gaps", legalData, "ak,bt,cm", 2)
			agreeValid(t, seen, study) // nothing answered yet
			recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
			if err != nil {
				t.Fatal(err)
			}
			key := opaqueKey(t, study)
			fillStudy(t, study, "legal-gaps", []string{"ak", "bt", "cm"}, func(w *goldtest.Workbook, who int, name string) error {
				w.RealIDs(key)
				mine := legalReadings(w, recs, who)
				if err := goldtest.FillLegal(w, mine, name); err != nil {
					return err
				}
				for k, r := range mine {
					note := []string{"Cites the wrong case", " cites the wrong CASE ", "Reads well"}[(k+who)%3]
					if err := w.Set(w.Rows[r.ID][0], "q:note", note); err != nil {
						return err
					}
				}
				return nil
			})
			agreeValid(t, seen, study)
			agreeValid(t, seen, study, "--annotators", "ak,bt")
		})
		t.Run("preference-likert", func(t *testing.T) {
			t.Parallel()
			builtin("preference-likert")
			study := generateStudy(t, "preference-likert", prefData, "ak,bt,cm", 3)
			fillStudy(t, study, "preference-likert", []string{"ak", "bt", "cm"}, func(w *goldtest.Workbook, who int, name string) error {
				// The same answers on other topics: a few disagreements.
				units := slices.Sorted(slices.Values(w.Units))
				for k := 0; k+1 < len(units); k += 2 + who {
					if (k/2)%3 == who {
						units[k], units[k+1] = units[k+1], units[k]
					}
				}
				if err := goldtest.FillPreference(w, units, name); err != nil {
					return err
				}
				if who == 2 {
					return nil
				}
				// ak and bt rate every prediction 3 everywhere: between
				// the two of them, α has no variation to go on.
				for _, u := range units {
					for _, q := range []string{"first", "second", "third"} {
						if err := w.Set(w.Rows[u][0], "q:"+q+"_prediction_likert", 3); err != nil {
							return err
						}
					}
				}
				return nil
			})
			var rep seenReport
			if err := json.Unmarshal(agreeValid(t, seen, study, "--ci", "0.9", "--resamples", "200"), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Questions) != 5 || len(rep.Questions[0].Metrics[0].CI) != 2 || rep.Questions[2].Metrics[0].Value == nil {
				t.Errorf("want 5 questions, an interval on the first headline and an α of the first likert: %+v", rep.Questions)
			}
			// One pair listed of three: the others counted, and said so;
			// the question's metrics, means over every pair, the same.
			var all, one struct {
				Questions []struct {
					Metrics      json.RawMessage `json:"metrics"`
					Pairs        []struct{ A, B string }
					PairsLeftOut int    `json:"pairs_left_out"`
					PairsNote    string `json:"pairs_note"`
				}
			}
			if err := json.Unmarshal(agreeValid(t, seen, study), &all); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(agreeValid(t, seen, study, "--max-pairs", "1"), &one); err != nil {
				t.Fatal(err)
			}
			for i, q := range one.Questions {
				if len(q.Pairs) != 1 || q.PairsLeftOut != 2 || q.PairsNote == "" || len(all.Questions[i].Pairs) != 3 || all.Questions[i].PairsLeftOut != 0 {
					t.Errorf("question %d: %d pairs listed and %d left out (%q), want 1 and 2; without --max-pairs %d and %d, want 3 and 0",
						i, len(q.Pairs), q.PairsLeftOut, q.PairsNote, len(all.Questions[i].Pairs), all.Questions[i].PairsLeftOut)
				}
				if string(q.Metrics) != string(all.Questions[i].Metrics) {
					t.Errorf("question %d: metrics with one pair listed\n%s\nwith all\n%s", i, q.Metrics, all.Questions[i].Metrics)
				}
			}
			rep = seenReport{}
			if err := json.Unmarshal(agreeValid(t, seen, study, "--annotators", "ak,bt", "-q", "first_prediction_likert"), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Questions) != 1 || rep.Questions[0].Metrics[0].Value != nil {
				t.Errorf("want no α of the first likert between ak and bt: %+v", rep.Questions)
			}
		})
		t.Run("qa-span-errors", func(t *testing.T) {
			t.Parallel()
			builtin("qa-span-errors")
			study := generateStudy(t, "qa-span-errors", qaData, "ak,bt,cm", 3)
			agreeValid(t, seen, study) // nothing answered yet
			other := map[string]string{"Irrelevant": "Incoherent", "Incoherent": "Unverifiable", "Unverifiable": "Irrelevant"}
			fillQA(t, study, []string{"ak", "bt", "cm"}, func(who, k int, r *goldtest.QARecord) {
				errs := r.Feedback.Errors
				switch {
				case who == 1 && k%3 == 0 && len(errs) > 0:
					r.Feedback.Errors = errs[1:] // bt misses an error
				case who == 2 && k%2 == 0 && len(errs) > 0 && other[errs[0].Type] != "":
					errs[0].Type = other[errs[0].Type] // cm gives another type
				}
			})
			agreeValid(t, seen, study)
			agreeValid(t, seen, study, "--reference", "bt")
			agreeValid(t, seen, study, "--annotators", "ak,cm", "-q", "errors")
		})
		t.Run("factgenie-meta-eval", func(t *testing.T) {
			t.Parallel()
			builtin("factgenie-meta-eval")
			study := generateStudy(t, "factgenie-meta-eval", fgData, "ak,bt", 2)
			judgeFactgenie(t, study)
			agreeValid(t, seen, study)
		})
		t.Run("skipped question", func(t *testing.T) {
			t.Parallel()
			// qa-span-errors with a choice asked on every row of a
			// block, which agree does not compare.
			src, ok := templates.BuiltinSource("qa-span-errors")
			if !ok {
				t.Fatal("no qa-span-errors")
			}
			yaml := strings.Replace(strings.Replace(string(src), "name: qa-span-errors\n", "name: qa-severity\n", 1),
				"  - name: corrected_prediction\n",
				"  - name: severity\n    header: Severity\n    description: How bad the error is.\n    type: choice\n    options:\n      - code: minor\n      - code: major\n  - name: corrected_prediction\n", 1)
			file := filepath.Join(t.TempDir(), "qa-severity.yaml")
			if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			study := generateStudy(t, file, qaData, "ak,bt", 2)
			for _, args := range [][]string{{study}, {study, "-q", "severity"}} {
				var rep struct {
					Questions []json.RawMessage `json:"questions"`
					Skipped   []struct{ Name string }
				}
				if err := json.Unmarshal(agreeValid(t, seen, args...), &rep); err != nil {
					t.Fatal(err)
				}
				if len(rep.Skipped) != 1 || rep.Skipped[0].Name != "severity" {
					t.Errorf("agree %v: skipped %v, want severity", args, rep.Skipped)
				}
			}
		})
	})
	for _, name := range templates.BuiltinNames() {
		if !covered[name] {
			t.Errorf("no report of built-in %s was checked against the schema", name)
		}
	}
	var doc struct {
		Defs struct {
			Question struct {
				Properties struct {
					Type struct{ Enum []string } `json:"type"`
				} `json:"properties"`
			} `json:"question"`
			Metric struct {
				Properties struct {
					Metric struct{ Enum []string } `json:"metric"`
					Params struct {
						Properties map[string]struct{ Enum []string } `json:"properties"`
					} `json:"params"`
				} `json:"properties"`
			} `json:"metric"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema.Agreement, &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"null", "ci"}
	for _, typ := range doc.Defs.Question.Properties.Type.Enum {
		want = append(want, "type="+typ)
	}
	for _, m := range doc.Defs.Metric.Properties.Metric.Enum {
		want = append(want, "metric="+m)
	}
	for k, p := range doc.Defs.Metric.Properties.Params.Properties {
		want = append(want, "param="+k)
		for _, v := range p.Enum {
			want = append(want, "param="+k+"="+v)
		}
	}
	slices.Sort(want)
	for _, w := range want {
		if !seen.values[w] {
			t.Errorf("the schema lists %s, which no report checked has", w)
		}
	}
}

// TestAgreeSchemaRejects checks that the schema holds a report to what
// agree writes: a real report passes, and the same report fails once
// tampered with (a metric name agree does not have, a null value without
// its note, a key agree does not write, a param of another metric).
func TestAgreeSchemaRejects(t *testing.T) {
	t.Parallel()
	study := generateStudy(t, "legal-gaps", legalData, "ak,bt", 2)
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	key := opaqueKey(t, study)
	fillStudy(t, study, "legal-gaps", []string{"ak", "bt"}, func(w *goldtest.Workbook, who int, name string) error {
		return goldtest.FillLegal(w.RealIDs(key), recs, name)
	})
	report := agreeValid(t, &schemaSeen{values: map[string]bool{}}, study)
	// note: no annotator wrote one, so its metrics are null with a note.
	const gaps, note = 0, 1
	metric := func(r map[string]any, q, m int) map[string]any {
		return r["questions"].([]any)[q].(map[string]any)["metrics"].([]any)[m].(map[string]any)
	}
	for _, c := range []struct {
		name   string
		tamper func(r map[string]any)
	}{
		{"unknown metric name", func(r map[string]any) { metric(r, gaps, 0)["metric"] = "cronbach_alpha" }},
		{"null value without its note", func(r map[string]any) { delete(metric(r, note, 0), "note") }},
		{"a pair's null value without its note", func(r map[string]any) {
			// note's annotators share no unit where both wrote one, so
			// it lists no pair: gaps's has its value taken away.
			pair := r["questions"].([]any)[gaps].(map[string]any)["pairs"].([]any)[0].(map[string]any)
			m := pair["metrics"].([]any)[0].(map[string]any)
			m["value"] = nil
			delete(m, "note")
		}},
		{"a number where span_count_pearson has micro and macro", func(r map[string]any) { metric(r, gaps, 2)["metric"] = "span_count_pearson" }},
		{"extra key at the top", func(r map[string]any) { r["generated_by"] = "annosheet" }},
		{"extra key in a metric", func(r map[string]any) { metric(r, gaps, 0)["stderr"] = 0.1 }},
		{"extra key in a question", func(r map[string]any) { r["questions"].([]any)[gaps].(map[string]any)["weight"] = 1 }},
		{"unknown param", func(r map[string]any) { metric(r, gaps, 0)["params"].(map[string]any)["smoothing"] = "none" }},
		{"a param of another metric", func(r map[string]any) { metric(r, gaps, 0)["params"].(map[string]any)["weights"] = "linear" }},
		{"α without its level or distance", func(r map[string]any) { metric(r, gaps, 0)["params"] = map[string]any{} }},
		{"a share above 1", func(r map[string]any) { metric(r, gaps, 3)["value"] = 1.5 }},
		{"an interval of one number", func(r map[string]any) { metric(r, gaps, 0)["ci"] = []any{0.1} }},
		{"another version", func(r map[string]any) { r["schema"] = "annosheet.agreement/2" }},
	} {
		var r map[string]any
		if err := json.Unmarshal(report, &r); err != nil {
			t.Fatal(err)
		}
		c.tamper(r)
		err := goldtest.AgreementError(t, mustJSON(r))
		if err == nil {
			t.Errorf("%s: the schema accepts it", c.name)
			continue
		}
		t.Logf("%s: %v", c.name, strings.ReplaceAll(err.Error(), "\n", " "))
	}
}
