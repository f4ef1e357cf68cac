package report

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// ResultsInfo is what the Results section shows besides the numbers:
// why there are none, and what the page calls the questions and options
// the results name.
type ResultsInfo struct {
	// Missing says why there are no results, when there are none.
	Missing string `json:"missing,omitempty"`
	// Headers are the questions' headers, by name.
	Headers map[string]string `json:"headers,omitempty"`
	// Options are the options' labels, by question and code, where a
	// label is not the code itself.
	Options map[string]map[string]string `json:"options,omitempty"`
}

// The draws of the results: results' defaults (results.DefaultOptions)
// for a study of up to 2,000 units, as annosheet results computes them;
// a bigger study gets fewer, in proportion to its size, so that its
// report stays a matter of seconds, but never fewer than 200 resamples
// and 1,000 permutations (from 20,000 units on).
const (
	resultsResampleBudget    = 4_000_000  // units × resamples
	resultsPermutationBudget = 20_000_000 // units × permutations
	minResultsResamples      = 200
	minResultsPermutations   = 1000
)

// resultsOptions are the options the report computes the results of a
// study of that many units with: results.DefaultOptions, with fewer
// draws for a study of more than 2,000 units.
func resultsOptions(units int) results.Options {
	o := results.DefaultOptions()
	units = max(units, 1)
	o.Resamples = min(o.Resamples, max(minResultsResamples, resultsResampleBudget/units))
	o.Permutations = min(o.Permutations, max(minResultsPermutations, resultsPermutationBudget/units))
	return o
}

// studyResults computes what the study found, as annosheet results does
// with its default options (fewer draws for a big study; see
// resultsOptions): on the gold set when there is one, the groups read
// from the study's inputs through its manifest when they need them. When
// they cannot be computed, it says why (for the page and a warning); it
// returns an error only when ctx is done.
func studyResults(ctx context.Context, s Study, gold *study.Gold) (*results.Report, string, error) {
	opt := study.ResultsOptions{Gold: gold, Options: resultsOptions(unitCount(s.Records, gold))}
	if s.Manifest != nil && study.GroupNeedsInputs(s.Template, "") {
		items, _, err := s.Manifest.Context(s.Template)
		if err != nil {
			return nil, fmt.Sprintf("%s: the study's inputs, which the groups are read from, cannot be read (%v)", s.Manifest.Path, err), nil
		}
		opt.Items = items
	}
	rep, err := study.Results(ctx, s.Template, s.Records, opt)
	switch {
	case err == nil:
		return rep, "", nil
	case ctx.Err() != nil:
		return nil, "", ctx.Err()
	}
	why := strings.TrimPrefix(err.Error(), study.ErrResults.Error()+": ")
	if errors.Is(err, study.ErrNeedsInputs) {
		why += "; report the study's folder or manifest, whose inputs give the groups"
	}
	return nil, why, nil
}

// unitCount counts the units of the records and of the gold set.
func unitCount(recs []*records.Annotation, gold *study.Gold) int {
	units := map[string]bool{}
	for _, r := range recs {
		units[r.Unit] = true
	}
	if gold != nil {
		for _, r := range gold.Records {
			units[r.Unit] = true
		}
	}
	return len(units)
}

// resultsInfo names the questions of the results and their options as
// the template does.
func resultsInfo(t *templates.Template, rep *results.Report) *ResultsInfo {
	info := &ResultsInfo{Headers: map[string]string{}, Options: map[string]map[string]string{}}
	question := func(name string) *templates.Question {
		if tq := t.QuestionByName(name); tq != nil || name != t.Rows.Spans {
			return tq
		}
		return t.QuestionByName(primarySpan(t))
	}
	for _, q := range rep.Questions {
		for _, name := range append([]string{q.Question}, q.Questions...) {
			if tq := question(name); tq != nil {
				info.Headers[name] = tq.Header
			}
		}
		tq := question(q.Question)
		if tq == nil {
			continue
		}
		for _, e := range q.Estimates {
			if e.Option == nil {
				continue
			}
			if l := optionLabel(tq, *e.Option); l != *e.Option {
				if info.Options[q.Question] == nil {
					info.Options[q.Question] = map[string]string{}
				}
				info.Options[q.Question][*e.Option] = l
			}
		}
	}
	return info
}
