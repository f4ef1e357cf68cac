package report

import (
	"context"
	"fmt"
	"slices"

	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// Schema tags a report's data as JSON.
const Schema = "annosheet.study-report/1"

// Report is everything the page shows, as plain data.
type Report struct {
	Schema   string       `json:"schema"`
	Template TemplateInfo `json:"template"`
	// Sources are the sources as the caller names them.
	Sources []string `json:"sources"`
	// Annotators are the annotators whose answers are in hand, sorted:
	// the order of the series of every chart, and of their colours.
	Annotators []string `json:"annotators"`
	Progress   Progress `json:"progress"`
	// Suggestions is what annotators did with the suggestions their
	// units started from (generate --prefill): absent when no unit
	// answered was prefilled.
	Suggestions []Suggestions `json:"suggestions,omitempty"`
	// Controls is each annotator's accuracy on the control units
	// (generate --controls): absent when no record of a control unit is
	// scored.
	Controls  *Controls `json:"controls,omitempty"`
	Answers   []Answers `json:"answers"`
	Agreement Agreement `json:"agreement"`
	Problems  Problems  `json:"problems"`
	// Gold is there when a gold set is given.
	Gold *Gold `json:"gold,omitempty"`
	// Results is what the study found, as annosheet results computes it
	// (see FromStudy), and ResultsInfo what the page calls its questions
	// and options, or why there are no results. Build leaves both nil.
	Results     *results.Report `json:"results,omitempty"`
	ResultsInfo *ResultsInfo    `json:"results_info,omitempty"`
}

// TemplateInfo names the study's template.
type TemplateInfo struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Title   string `json:"title"`
}

// Options shape a report.
type Options struct {
	// Sources name the study's sources on the page, as given.
	Sources []string
	// Gold, when set, is a gold set: each annotator is scored against it
	// (as agree --against does), and its values counted by provenance.
	Gold *study.Gold
	// Examples is the most units where annotators differ shown per span
	// question (5 when 0).
	Examples int
	// ProblemsShown is the most problems listed per kind and workbook
	// (100 when 0), ProblemsListed the most in all (2,000 when 0); the
	// others are counted.
	ProblemsShown, ProblemsListed int
	// MinControlAccuracy, from 0 to 1, marks the annotators whose
	// accuracy on the control units is below it (and FromStudy warns
	// about them); 0 marks nobody.
	MinControlAccuracy float64
}

// The interval of each headline: a bootstrap at this level, with this
// seed, over at most maxResamples resamples (fewer for big studies; see
// resamples).
const (
	Level        = 0.95
	Seed         = 1
	maxResamples = 1000
)

// Build computes a report of the study res pulled with template t: its
// records (those of pulled .jsonl files too, their IDs restored and copies
// kept once), problems and workbooks. Every record must be of template t.
// The records of control units among them give the section of control
// units. It stops with ctx's error when ctx is done.
func Build(ctx context.Context, t *templates.Template, res *study.Result, opt Options) (*Report, error) {
	return build(ctx, t, res, nil, opt)
}

// build is Build with the records of control units set apart from res's
// (records.Loaded.Controls): they count in the section of control units
// only.
func build(ctx context.Context, t *templates.Template, res *study.Result, controlRecs []*records.Annotation, opt Options) (*Report, error) {
	if opt.Examples <= 0 {
		opt.Examples = 5
	}
	if opt.ProblemsShown <= 0 {
		opt.ProblemsShown = 100
	}
	if opt.ProblemsListed <= 0 {
		opt.ProblemsListed = 2000
	}
	status := study.CountProgress(res)
	rep := &Report{
		Schema:      Schema,
		Template:    TemplateInfo{Name: t.Name, Version: t.Version, Title: t.Title},
		Sources:     append([]string{}, opt.Sources...),
		Annotators:  annotators(res.Records),
		Progress:    progress(status),
		Suggestions: suggestions(t, status.Prefill),
		Controls:    controls(t, controlRecords(res.Records, controlRecs), opt.MinControlAccuracy),
		Problems:    problems(res.Problems, opt.ProblemsShown, opt.ProblemsListed),
	}
	rep.Answers = answers(t, res.Records, rep.Annotators)
	ag, err := agree(ctx, t, res.Records, opt)
	if err != nil {
		return nil, err
	}
	rep.Agreement = ag.section
	if opt.Gold != nil {
		rep.Gold = gold(t, opt.Gold, ag.against)
		rep.Gold.Unscored = ag.unscored
	}
	return rep, nil
}

// annotators are the annotators of the records whose answers are in
// hand (not the unclaimed units of a shared workbook, nor gold), sorted.
func annotators(recs []*records.Annotation) []string {
	seen := map[string]bool{}
	for _, r := range recs {
		if counted(r) {
			seen[r.Annotator] = true
		}
	}
	out := make([]string, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// counted reports whether a record's answers count in the distributions:
// an annotator's, complete or partial.
func counted(r *records.Annotation) bool {
	return r.Annotator != "" && r.Annotator != records.GoldAnnotator &&
		(r.Status == records.StatusComplete || r.Status == records.StatusPartial)
}

// optionLabel is what the page shows for an option: its label, or its
// code when it has none.
func optionLabel(q *templates.Question, code string) string {
	if q != nil {
		if o := q.Option(code); o != nil && o.Label != "" {
			return o.Label
		}
	}
	return code
}

// Summary is the line that says what the page of r, written to file in
// size bytes, holds: its size in KB, the units done, the annotators,
// the questions compared, the problems, and the gold set.
func (r *Report) Summary(file string, size int64) string {
	t := r.Progress.Total
	gold := ""
	if r.Gold != nil {
		gold = ", and the gold set " + r.Gold.Name
	}
	return fmt.Sprintf("wrote %s (%d KB): %d of %d units done by %s; %s compared; %s, %s%s",
		file, (size+1023)/1024, t.Complete, t.Units, words.Count(len(r.Annotators), "annotator"),
		words.Count(len(r.Agreement.Questions), "question"), words.Count(r.Problems.Errors, "error"), words.Count(r.Problems.Warnings, "warning"), gold)
}
