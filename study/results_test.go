package study

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/results"
)

var quickResults = results.Options{Level: 0.95, Resamples: 100, Permutations: 100, Seed: 1}

// estimate finds an estimate of a report.
func estimate(rep *results.Report, question, statistic, option, group string) *results.Estimate {
	for _, q := range rep.Questions {
		if q.Question != question {
			continue
		}
		for i, e := range q.Estimates {
			if e.Statistic == statistic && (e.Option == nil && option == "" || e.Option != nil && *e.Option == option) &&
				(e.Group == nil && group == "" || e.Group != nil && *e.Group == group) {
				return &q.Estimates[i]
			}
		}
	}
	return nil
}

// TestResultsGold: on a gold basis each unit's value is the gold
// record's; units the gold set lacks are left out and counted, never
// given the annotators' values; values nobody decided are counted.
func TestResultsGold(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	recs := gapsRecords(tp, [3]string{"gpt4o-1", "ak", "1"}, [3]string{"gpt4o-1", "bt", "2"}, [3]string{"llama3-1", "ak", "2"},
		[3]string{"gpt4o-2", "ak", "2"}, [3]string{"llama3-2", "ak", "1"})
	gold := gapsRecords(tp, [3]string{"gpt4o-1", records.GoldAnnotator, "1"}, [3]string{"llama3-1", records.GoldAnnotator, "2"}, [3]string{"gpt4o-2", records.GoldAnnotator, "2"})
	gold[2].Provenance = map[string]*records.Provenance{"gaps": {Kind: records.ProvenanceUnresolved}}
	delete(gold[2].Values, "gaps")
	rep, err := Results(context.Background(), tp, recs, ResultsOptions{Gold: &Gold{Name: "gold.jsonl", Records: gold}, Options: quickResults})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Basis != results.BasisGold {
		t.Errorf("basis %s", rep.Basis)
	}
	if e := estimate(rep, "gaps", results.Share, "1", "gpt4o"); e == nil || e.Value != 1 || e.Units != 1 {
		t.Errorf("gpt4o's share of 1 on the gold basis: %+v, want 1 over 1 unit (gpt4o-2's gold value is undecided)", e)
	}
	lo := rep.Questions[0].LeftOut
	if lo.NoGold != 1 || lo.Unresolved != 1 {
		t.Errorf("left out %+v, want llama3-2 without gold and gpt4o-2's gaps unresolved", lo)
	}
	// The annotators' basis: gpt4o-1's share of 1 is one of two.
	own, err := Results(context.Background(), tp, recs, ResultsOptions{Options: quickResults})
	if err != nil {
		t.Fatal(err)
	}
	if e := estimate(own, "gaps", results.Share, "1", "gpt4o"); e == nil || e.Value != 0.25 || e.Units != 2 {
		t.Errorf("gpt4o's share of 1: %+v, want (1/2 + 0)/2 over 2 units", e)
	}
}

// TestResultsGroups: a group is read from the study's input records when
// given; their problems stop the results; an unknown group is an option
// error naming those the template has.
func TestResultsGroups(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "legal-gaps")
	recs := gapsRecords(tp, [3]string{"gpt4o-1", "ak", "1"}, [3]string{"llama3-1", "ak", "2"})
	items := []*layout.SourceItem{
		{ID: "gpt4o-1", Groups: map[string]map[string]string{"gpt4o-1": {"system": "A"}}, Pairs: map[string]map[string]string{"gpt4o-1": {"system": "p1"}}},
		{ID: "llama3-1", Groups: map[string]map[string]string{"llama3-1": {"system": "B"}}, Pairs: map[string]map[string]string{"llama3-1": {"system": "p1"}}},
	}
	rep, err := Results(context.Background(), tp, recs, ResultsOptions{Items: items, Options: quickResults})
	if err != nil {
		t.Fatal(err)
	}
	if e := estimate(rep, "gaps", results.Share, "2", "B"); e == nil || e.Value != 1 || len(rep.Questions[0].Comparisons) != 4 {
		t.Errorf("B's share of 2: %+v; comparisons %d, want the inputs' groups, paired", e, len(rep.Questions[0].Comparisons))
	}
	bad := append(items[:1:1], &layout.SourceItem{ID: "llama3-1", GroupErr: records.Problems{{Severity: records.Error, File: "in.jsonl", Line: 2, Message: `group "system": "x" does not match the pattern`}}})
	if _, err := Results(context.Background(), tp, recs, ResultsOptions{Items: bad, Options: quickResults}); !errors.Is(err, ErrResults) || !errors.As(err, new(records.Problems)) {
		t.Errorf("an item whose group cannot be read: %v, want its problems", err)
	}
	_, err = Results(context.Background(), tp, recs, ResultsOptions{By: "model", Options: quickResults})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "by" || oe.Value != "model" {
		t.Errorf("--by model: %v, want an option error", err)
	}
	if GroupNeedsInputs(tp, "") {
		t.Error("legal-gaps' system is read from the id: it needs no inputs")
	}
	if !GroupNeedsInputs(builtin.Template(t, "factgenie-meta-eval"), "system") {
		t.Error("factgenie-meta-eval's system is read from the inputs")
	}
}

// TestResultsCandidates: a template that shuffles candidates compares
// them: the k-th question of each as one entry, and a choice among them
// as win rates, paired by unit.
func TestResultsCandidates(t *testing.T) {
	t.Parallel()
	tp := builtin.Template(t, "preference-likert")
	rec := func(unit, who, best string, first, second, third int) *records.Annotation {
		return &records.Annotation{Template: records.TemplateID{Name: tp.Name, Version: tp.Version}, Unit: unit, Item: unit, Annotator: who, Status: records.StatusComplete,
			Values: map[string]any{"best_prediction_reference": best, "best_prediction_topic": best,
				"first_prediction_likert": first, "second_prediction_likert": second, "third_prediction_likert": third}}
	}
	recs := []*records.Annotation{rec("t1", "ak", "first", 5, 3, 1), rec("t1", "bt", "second", 4, 4, 2), rec("t2", "ak", "first", 3, 2, 0)}
	rep, err := Results(context.Background(), tp, recs, ResultsOptions{Options: quickResults})
	if err != nil {
		t.Fatal(err)
	}
	var likert *results.Question
	for i, q := range rep.Questions {
		if q.Question == "first_prediction_likert" {
			likert = &rep.Questions[i]
		}
	}
	if likert == nil || len(likert.Questions) != 3 || likert.Questions[2] != "third_prediction_likert" || likert.By != CandidateGroup || !likert.Paired {
		t.Fatalf("the likert entry: %+v", likert)
	}
	// third: t1's mean of 1 and 2; t2's 0 is "not yet answered".
	if e := estimate(rep, "first_prediction_likert", results.Mean, "", "third"); e == nil || e.Value != 1.5 || e.Units != 1 {
		t.Errorf("third's mean: %+v, want 1.5 over 1 unit", e)
	}
	if e := estimate(rep, "best_prediction_topic", results.WinRate, "", "first"); e == nil || e.Value != 0.75 || e.Units != 2 {
		t.Errorf("first's win rate: %+v, want (1/2 + 1)/2 over 2 units", e)
	}
	for _, q := range rep.Questions {
		if q.Question == "second_prediction_likert" {
			t.Error("a candidate's question reported again on its own")
		}
	}
}

// TestResultsTie: a choice among the candidates that offers a tie gives
// each candidate's win rate, and the tie as a share with no group, not
// compared.
func TestResultsTie(t *testing.T) {
	t.Parallel()
	base := builtin.Template(t, "preference-likert")
	src := strings.Replace(string(base.Source), "      - {code: third, label: Third prediction}\n", "      - {code: third, label: Third prediction}\n      - {code: tie, label: No difference}\n", 1)
	tp, err := templates.Load("tie.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rec := func(unit, who, best string) *records.Annotation {
		return &records.Annotation{Template: records.TemplateID{Name: tp.Name, Version: tp.Version}, Unit: unit, Item: unit, Annotator: who, Status: records.StatusComplete,
			Values: map[string]any{"best_prediction_reference": best, "best_prediction_topic": best, "first_prediction_likert": 3, "second_prediction_likert": 3, "third_prediction_likert": 3}}
	}
	recs := []*records.Annotation{rec("t1", "ak", "tie"), rec("t1", "bt", "first"), rec("t2", "ak", "tie"), rec("t3", "ak", "second")}
	rep, err := Results(context.Background(), tp, recs, ResultsOptions{Options: quickResults})
	if err != nil {
		t.Fatal(err)
	}
	if e := estimate(rep, "best_prediction_topic", results.Share, "tie", ""); e == nil || e.Value != 0.5 || e.Units != 3 || e.Group != nil {
		t.Errorf("the tie: %+v, want a share of (1/2 + 1 + 0)/3 with no group", e)
	}
	if e := estimate(rep, "best_prediction_topic", results.WinRate, "", "first"); e == nil || e.Value != 0.5/3 {
		t.Errorf("first's win rate: %+v, want (1/2 + 0 + 0)/3", e)
	}
	for _, q := range rep.Questions {
		for _, c := range q.Comparisons {
			if c.A == "" || c.B == "" || c.Statistic != results.WinRate && q.Question == "best_prediction_topic" {
				t.Errorf("%s: a comparison of %s between %q and %q", q.Question, c.Statistic, c.A, c.B)
			}
		}
	}
}
