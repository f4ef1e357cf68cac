package report

import (
	"context"
	"fmt"
	"slices"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// Study is what a report of a study is made from: the records read (as
// records.Load gives them), the pull they came from, the study's
// manifest, and a gold set.
type Study struct {
	Template *templates.Template
	Records  []*records.Annotation
	// Pulled is the pull of the sources that were not files of records,
	// when there were such sources.
	Pulled   *study.Result
	Manifest *study.Manifest
	// Controls are the records of control units set apart from Records
	// (records.Loaded.Controls): the page scores annotators on them, and
	// counts them nowhere else.
	Controls []*records.Annotation
	// GoldProblems are the problems of the gold set's pull.
	GoldProblems records.Problems
}

// FromStudy builds the report of a study: Build over what it counts (see
// Counted), with the texts its span examples show read from the study's
// inputs through its manifest, and its results as annosheet results
// computes them with its default options (on the gold set when opt has
// one; fewer draws for a study of more than 2,000 units, see
// resultsOptions). Warnings say what the page leaves out, and why: a gold
// set that scores nobody, inputs that cannot be read, results that
// cannot be computed; and each annotator whose accuracy on the control
// units is below opt.MinControlAccuracy (study.BelowAccuracy).
func FromStudy(ctx context.Context, s Study, opt Options) (*Report, []string, error) {
	res := Counted(s.Pulled, s.Records)
	res.Problems = append(res.Problems, s.GoldProblems...)
	rep, err := build(ctx, s.Template, res, s.Controls, opt)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if rep.Gold != nil && rep.Gold.Unscored != "" {
		warnings = append(warnings, rep.Gold.Unscored+"; the report shows no score against it")
	}
	if c := rep.Controls; c != nil {
		warnings = append(warnings, study.BelowAccuracy(c.Accuracy(), opt.MinControlAccuracy)...)
	}
	if want := rep.TextsWanted(); len(want) > 0 && s.Manifest != nil {
		texts, err := unitTexts(s.Template, s.Manifest, want)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: the study's inputs cannot be read (%v): the span examples show no text", s.Manifest.Path, err))
		} else {
			rep.AddTexts(texts)
		}
	}
	found, missing, err := studyResults(ctx, s, opt.Gold)
	if err != nil {
		return nil, nil, err
	}
	if found != nil {
		rep.Results, rep.ResultsInfo = found, resultsInfo(s.Template, found)
	} else {
		rep.ResultsInfo = &ResultsInfo{Missing: missing}
		warnings = append(warnings, "the results cannot be computed ("+missing+"): the page shows none")
	}
	return rep, warnings, nil
}

// Counted is what the report counts: the pull of the sources, its
// records replaced by every record read (with their real IDs, copies
// kept once), and the problems that the records of .jsonl files carry.
func Counted(pulled *study.Result, recs []*records.Annotation) *study.Result {
	res := &study.Result{}
	if pulled != nil {
		*res = *pulled
	}
	fromPull := map[*records.Annotation]bool{}
	for _, r := range res.Records {
		fromPull[r] = true
	}
	var files []*records.Annotation
	batches := map[string]bool{}
	for _, r := range recs {
		if fromPull[r] {
			continue
		}
		files = append(files, r)
		if !batches[r.Batch] && records.InHand(r.Status) {
			batches[r.Batch] = true
			res.Workbooks = append(res.Workbooks, study.Workbook{File: r.Source.File, Batch: r.Batch})
		}
	}
	res.Records = recs
	res.Problems = append(slices.Clone(res.Problems), RecordProblems(files)...)
	return res
}

// unitTexts reads the texts the report's span examples show from the
// study's inputs (through its manifest), one input record at a time:
// only the units and fields wanted are kept.
func unitTexts(t *templates.Template, man *study.Manifest, want map[string][]string) (func(unit, field string) (string, bool), error) {
	inputs, err := man.InputPaths()
	if err != nil {
		return nil, err
	}
	texts := map[[2]string]string{}
	err = study.EachItem(t, inputs, man.InputOptions(), man.Keys, func(it *layout.SourceItem) error {
		for unit, fields := range it.Fields {
			for _, f := range want[unit] {
				if s, ok := fields[f]; ok {
					texts[[2]string{unit, f}] = s
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func(unit, field string) (string, bool) {
		s, ok := texts[[2]string{unit, field}]
		return s, ok
	}, nil
}
