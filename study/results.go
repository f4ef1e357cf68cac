package study

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/templates"
)

// ErrResults is wrapped by the errors of Results.
var ErrResults = errors.New("cannot compute results")

// ErrNeedsInputs is wrapped when a group is read from the study's input
// records, which only its manifest names: records alone do not say it.
var ErrNeedsInputs = errors.New("the group is read from the study's inputs")

// MaxPermutations bounds the permutations of a test, as MaxResamples
// bounds the bootstrap's draws.
const MaxPermutations = 1_000_000

// CandidateGroup is the group of a template that shuffles candidates:
// each candidate, by its code.
const CandidateGroup = templates.CandidateGroup

// AllGroup is the one group of a template that declares none: every unit.
const AllGroup = "all"

// ResultsOptions say what Results computes, and over what.
type ResultsOptions struct {
	// By is the group compared: one the template declares, or
	// CandidateGroup for a template that shuffles candidates; "" is the
	// first the template declares (CandidateGroup when it shuffles,
	// AllGroup when it declares none).
	By string
	// Questions, when given, are the only questions reported.
	Questions []string
	// IncludePartial counts the answered values of partial records.
	IncludePartial bool
	// Gold, when set, is the basis: each unit's value is the gold
	// record's. Gold records among the records are a basis too.
	Gold *Gold
	results.Options
	// Items are the study's input records with each unit's groups (see
	// layout.SourceItem): a group that is not read from the id itself
	// needs them.
	Items []*layout.SourceItem
}

func (opt ResultsOptions) check() error {
	switch {
	case !(opt.Level > 0 && opt.Level < 1):
		return fmt.Errorf("%w: the level %v is not between 0 and 1", ErrResults, opt.Level)
	case opt.Resamples < 1 || opt.Resamples > MaxResamples:
		return fmt.Errorf("%w: %d resamples, not from 1 to %d", ErrResults, opt.Resamples, MaxResamples)
	case opt.Permutations < 1 || opt.Permutations > MaxPermutations:
		return fmt.Errorf("%w: %d permutations, not from 1 to %d", ErrResults, opt.Permutations, MaxPermutations)
	}
	return nil
}

// Results computes what a study found (see package results): for each
// question, each group's estimate of the statistics of its type with a
// bootstrap interval, and every comparison of two groups with a
// permutation test. Each unit weighs the same: its value is the mean over
// its annotators' complete records, or the gold record's value when the
// basis is gold; what is left out is resultRecords per question.
func Results(ctx context.Context, t *templates.Template, recs []*records.Annotation, opt ResultsOptions) (*results.Report, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	for _, name := range opt.Questions {
		if t.QuestionByName(name) == nil && name != t.Rows.Spans {
			return nil, &OptionError{Option: "question", Value: name, Err: fmt.Errorf("%w: template %s has no such question (it has %s)", ErrResults, t.Name, strings.Join(questionNames(t), ", "))}
		}
	}
	g, err := grouping(t, opt)
	if err != nil {
		return nil, err
	}
	c, err := countRecords(t, recs, opt)
	if err != nil {
		return nil, err
	}
	if err := g.assign(t, c.units()); err != nil {
		return nil, err
	}
	rep := &results.Report{Schema: results.Schema, Template: results.Template{Name: t.Name, Version: t.Version}, Basis: c.basis,
		Params: results.Params{Level: opt.Level, Resamples: opt.Resamples, Permutations: opt.Permutations, Seed: opt.Seed}, Questions: []results.Question{}}
	// Each question's numbers come from draws of its own, seeded alike:
	// the questions are computed side by side, and give the same numbers
	// in any order.
	entries := resultEntries(t, g, opt.Questions)
	rep.Questions = make([]results.Question, len(entries))
	err = parallel(ctx, len(entries), func(i int) error {
		e := entries[i]
		q := results.Question{Question: e.name, Questions: e.names, Type: e.kind, By: g.by, Paired: g.paired || e.candidates,
			Estimates: []results.Estimate{}, Comparisons: []results.Comparison{}, LeftOut: c.leftOut(e.name)}
		all, err := results.AnalyzeAll(ctx, e.series(c, g), opt.Options)
		if err != nil {
			return err
		}
		for _, r := range all {
			q.Estimates = append(q.Estimates, r.Estimates...)
			q.Comparisons = append(q.Comparisons, r.Comparisons...)
			q.LeftOut.Unpaired = max(q.LeftOut.Unpaired, r.Unpaired)
		}
		rep.Questions[i] = q
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// groups is how units are grouped: by a group the template declares, by
// candidate, or all in one.
type groups struct {
	by         string
	def        *templates.Group // nil for CandidateGroup and AllGroup
	paired     bool
	candidates []string // the candidates' codes, for CandidateGroup
	items      []*layout.SourceItem
	// of is each unit's group and item (its pair key in a paired design,
	// the unit otherwise); order the groups, sorted.
	of    map[string][2]string
	order []string
}

func grouping(t *templates.Template, opt ResultsOptions) (*groups, error) {
	g := &groups{by: opt.By, items: opt.Items}
	shuffled := t.Shuffle != nil
	switch {
	case g.by == "" && shuffled, g.by == CandidateGroup && shuffled:
		g.by = CandidateGroup
		for _, c := range t.Shuffle.Candidates {
			g.candidates = append(g.candidates, c.Code)
		}
		g.order = g.candidates
		return g, nil
	case g.by == "" && len(t.Groups) > 0:
		g.by = t.Groups[0].Name
	case g.by == "" || g.by == AllGroup && t.Group(AllGroup) == nil:
		g.by = AllGroup
		return g, nil
	}
	if g.def = t.Group(g.by); g.def == nil {
		names := []string{}
		for _, d := range t.Groups {
			names = append(names, d.Name)
		}
		if shuffled {
			names = append(names, CandidateGroup)
		}
		if len(names) == 0 {
			names = append(names, AllGroup)
		}
		return nil, &OptionError{Option: "by", Value: g.by, Err: fmt.Errorf("%w: template %s has no such group (it has %s)", ErrResults, t.Name, strings.Join(names, ", "))}
	}
	g.paired = g.def.Paired()
	return g, nil
}

// assign finds each unit's group and item: from the study's input records
// when given, else from the item's ID, when the group is read from the
// ID itself.
func (g *groups) assign(t *templates.Template, units map[string]string) error {
	if g.def == nil {
		return nil
	}
	g.of = map[string][2]string{}
	seen := map[string]bool{}
	var fromItems map[string][2]string
	if g.items != nil {
		fromItems = map[string][2]string{}
		for _, it := range g.items {
			if it.GroupErr != nil {
				return fmt.Errorf("%w: %w", ErrResults, it.GroupErr)
			}
			for u, gs := range it.Groups {
				v := [2]string{gs[g.by], u}
				if g.paired {
					v[1] = it.Pairs[u][g.by]
				}
				fromItems[u] = v
			}
		}
	}
	for u, item := range units {
		var v [2]string
		if fromItems != nil {
			var ok bool
			if v, ok = fromItems[u]; !ok {
				return fmt.Errorf("%w: unit %s is not in the study's inputs, which group %s is read from", ErrResults, u, g.by)
			}
		} else {
			var err error
			if v, err = g.fromID(t, u, item); err != nil {
				return err
			}
		}
		g.of[u] = v
		if !seen[v[0]] {
			seen[v[0]] = true
			g.order = append(g.order, v[0])
		}
	}
	slices.Sort(g.order)
	return nil
}

// fromID is a unit's group and item read from its item's ID, which holds
// them when the group (and its pair key) is written as the template's
// input.id is.
func (g *groups) fromID(t *templates.Template, unit, item string) ([2]string, error) {
	d := g.def
	need := func(key, expr string) error {
		return fmt.Errorf("group %s: %w (its %s is %s), not from the records' ids", d.Name, ErrNeedsInputs, key, expr)
	}
	if d.From != t.Input.ID {
		return [2]string{}, need("from", d.From)
	}
	group, err := capture(d.Pattern, item, d.Name)
	if err != nil {
		return [2]string{}, err
	}
	if !g.paired {
		return [2]string{group, unit}, nil
	}
	if d.PairBy != t.Input.ID {
		return [2]string{}, need("pair_by", d.PairBy)
	}
	pair, err := capture(d.PairPattern, item, d.Name+"'s pair key")
	return [2]string{group, pair}, err
}

// capture is the first capture group of pattern in text, or the text
// itself without a pattern.
func capture(pattern, text, what string) (string, error) {
	if pattern == "" {
		return text, nil
	}
	m := compiled(pattern).FindStringSubmatch(text)
	if m == nil || m[1] == "" {
		return "", fmt.Errorf("%w: %s: %q does not match %q", ErrResults, what, text, pattern)
	}
	return m[1], nil
}

// resultRecords are the records Results reads, by unit: the annotators' or the
// gold set's, and what is left out of them.
type resultRecords struct {
	basis string
	// recs are the records that count, by unit, in unit order.
	recs  map[string][]*records.Annotation
	order []string
	// item is each unit's item.
	item           map[string]string
	partial, empty int
	noGold         int
	unresolved     map[string]int // by question
}

func (c *resultRecords) units() map[string]string { return c.item }

func (c *resultRecords) leftOut(question string) results.LeftOut {
	return results.LeftOut{Partial: c.partial, Empty: c.empty, Unresolved: c.unresolved[question], NoGold: c.noGold}
}

// countRecords keeps the records whose values count: the gold set's when
// there is one (among the records, or given), the annotators' complete
// records otherwise (and partial ones with IncludePartial).
func countRecords(t *templates.Template, recs []*records.Annotation, opt ResultsOptions) (*resultRecords, error) {
	var gold, own []*records.Annotation
	for _, r := range recs {
		if r.Annotator == records.GoldAnnotator {
			gold = append(gold, r)
		} else {
			own = append(own, r)
		}
	}
	if opt.Gold != nil {
		gold = append(gold, opt.Gold.Records...)
	}
	c := &resultRecords{basis: results.BasisAnnotators, recs: map[string][]*records.Annotation{}, item: map[string]string{}, unresolved: map[string]int{}}
	use := own
	if len(gold) > 0 {
		c.basis, use = results.BasisGold, gold
	}
	for _, r := range append(slices.Clone(own), gold...) {
		if r.Template.Name != t.Name || r.Template.Version != t.Version {
			return nil, fmt.Errorf("%w: unit %s by %s is a record of template %s version %d, not %s version %d", ErrResults, r.Unit, r.Annotator, r.Template.Name, r.Template.Version, t.Name, t.Version)
		}
		if r.Shuffled {
			return nil, fmt.Errorf("%w: unit %s by %s still has its candidates in the order shown; pull through the study's manifest, which puts them back", ErrResults, r.Unit, r.Annotator)
		}
	}
	seen := map[string]bool{}
	for _, r := range use {
		switch r.Status {
		case records.StatusComplete:
		case records.StatusPartial:
			if !opt.IncludePartial && c.basis == results.BasisAnnotators {
				c.partial++
				continue
			}
		case records.StatusMissing:
			continue
		default:
			c.empty++
			continue
		}
		if r.Annotator == "" {
			continue
		}
		if c.basis == results.BasisGold {
			for name, p := range r.Provenance {
				if !p.Settled() {
					c.unresolved[name]++
				}
			}
		}
		if !seen[r.Unit] {
			seen[r.Unit] = true
			c.order = append(c.order, r.Unit)
		}
		c.recs[r.Unit] = append(c.recs[r.Unit], r)
		c.item[r.Unit] = r.Item
	}
	if c.basis == results.BasisGold {
		// Units the annotators have and the gold set lacks are left out,
		// never given the annotators' values.
		inGold := map[string]bool{}
		for _, r := range gold {
			inGold[r.Unit] = true
		}
		for _, r := range own {
			if !inGold[r.Unit] {
				inGold[r.Unit] = true // resultRecords once
				c.noGold++
			}
		}
	}
	slices.Sort(c.order)
	return c, nil
}

// entry is one question's place in the results: its name, type and the
// series of its statistics.
type entry struct {
	name       string
	names      []string // a candidate question's questions, in candidate order
	kind       string
	candidates bool // grouped by candidate: paired by unit
	series     func(*resultRecords, *groups) []results.Series
}

// resultEntries lists the entries of t's questions (those named, when
// any are), in the template's order.
func resultEntries(t *templates.Template, g *groups, names []string) []entry {
	want := func(name string) bool { return len(names) == 0 || slices.Contains(names, name) }
	block := t.Rows.Per == templates.PerBlock
	candidateOf := map[string]int{} // a candidate question -> its place among the candidate's questions
	var candQuestions [][]string    // per place, the candidates' questions
	if g.by == CandidateGroup {
		for ci, cand := range t.Shuffle.Candidates {
			for k, qn := range cand.Questions {
				candidateOf[qn] = k
				if ci == 0 {
					candQuestions = append(candQuestions, nil)
				}
				if k < len(candQuestions) {
					candQuestions[k] = append(candQuestions[k], qn)
				}
			}
		}
	}
	var out []entry
	done := map[string]bool{}
	for i := range t.Questions {
		q := &t.Questions[i]
		rowScoped := block && q.Scope != "block"
		switch {
		case q.Type == templates.TypeEvidence:
			continue
		case rowScoped && q.Type == templates.TypeSpan && blockSpanQuestion(t, q):
			if done[t.Rows.Spans] || !want(t.Rows.Spans) {
				continue
			}
			done[t.Rows.Spans] = true
			label := t.QuestionByName(t.Rows.Label)
			out = append(out, entry{name: t.Rows.Spans, kind: templates.TypeSpan, series: func(c *resultRecords, g *groups) []results.Series {
				return spanSeries(c, g, optionCodes(label), func(r *records.Annotation) ([]string, bool) { return blockSpanLabels(t.Rows.Spans, r) })
			}})
		case rowScoped && q.Type == templates.TypeSpan:
			if want(q.Name) {
				out = append(out, entry{name: q.Name, kind: templates.TypeSpan, series: func(c *resultRecords, g *groups) []results.Series {
					return spanSeries(c, g, nil, func(r *records.Annotation) ([]string, bool) { return rowSpanLabels(q, r) })
				}})
			}
		case rowScoped:
			continue // a row's answer has no unit-level value (the label is the block's spans')
		case g.by == CandidateGroup && slices.Contains(t.Shuffle.Choices, q.Name):
			if want(q.Name) {
				out = append(out, entry{name: q.Name, kind: q.Type, candidates: true, series: func(c *resultRecords, g *groups) []results.Series {
					return choiceSeries(c, g, q)
				}})
			}
		case g.by == CandidateGroup && candQuestions != nil && hasKey(candidateOf, q.Name):
			k := candidateOf[q.Name]
			if done["cand/"+fmt.Sprint(k)] {
				continue
			}
			done["cand/"+fmt.Sprint(k)] = true
			qs := candQuestions[k]
			if !want(qs[0]) {
				continue
			}
			out = append(out, entry{name: qs[0], names: qs, kind: q.Type, candidates: true, series: func(c *resultRecords, g *groups) []results.Series {
				return candidateSeries(t, c, g, qs)
			}})
		case q.Type == templates.TypeSpan:
			if want(q.Name) {
				out = append(out, entry{name: q.Name, kind: templates.TypeSpan, series: func(c *resultRecords, g *groups) []results.Series {
					return spanSeries(c, g, nil, func(r *records.Annotation) ([]string, bool) { return rowSpanLabels(q, r) })
				}})
			}
		default:
			if want(q.Name) {
				out = append(out, entry{name: q.Name, kind: q.Type, series: func(c *resultRecords, g *groups) []results.Series {
					return questionSeries(c, g, q)
				}})
			}
		}
	}
	return out
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// perRecord is one record's value of a statistic, false when the record
// gives none.
type perRecord func(r *records.Annotation) (float64, bool)

// unitValues are the units' values of a statistic: the mean over each
// unit's records that give one, by unit, in unit order.
func unitValues(c *resultRecords, f perRecord) (units []string, vals []float64) {
	for _, u := range c.order {
		sum, n := 0.0, 0
		for _, r := range c.recs[u] {
			if v, ok := f(r); ok {
				sum += v
				n++
			}
		}
		if n > 0 {
			units = append(units, u)
			vals = append(vals, sum/float64(n))
		}
	}
	return units, vals
}

// series is the series of a statistic over the groups of g.
func (g *groups) series(c *resultRecords, statistic string, option *string, f perRecord) results.Series {
	s := results.Series{Statistic: statistic, Option: option, Paired: g.paired}
	units, vals := unitValues(c, f)
	switch {
	case g.def != nil:
		s.Groups = g.order
		for i, u := range units {
			v := g.of[u]
			s.Obs = append(s.Obs, results.Obs{Group: v[0], Item: v[1], Value: vals[i]})
		}
	default:
		// One group, or (for candidates) no group: a choice's option
		// that is not a candidate, or a question that is none's.
		name := AllGroup
		if g.by == CandidateGroup {
			name = ""
		}
		s.Groups = []string{name}
		for i, u := range units {
			s.Obs = append(s.Obs, results.Obs{Group: name, Item: u, Value: vals[i]})
		}
	}
	return s
}

func opt(s string) *string { return &s }

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// questionSeries are the series of a question with one answer per unit:
// the share of each option (choice, bool, multi), the mean and median
// (scale), the share answered (text).
func questionSeries(c *resultRecords, g *groups, q *templates.Question) []results.Series {
	var out []results.Series
	switch q.Type {
	case templates.TypeChoice:
		for _, code := range optionCodes(q) {
			out = append(out, g.series(c, results.Share, opt(code), func(r *records.Annotation) (float64, bool) {
				v, ok := answerOf(r, q.Name)
				s, isStr := v.(string)
				return indicator(s == code), ok && isStr
			}))
		}
	case templates.TypeBool:
		out = append(out, g.series(c, results.Share, opt("true"), func(r *records.Annotation) (float64, bool) {
			v, ok := answerOf(r, q.Name)
			b, isBool := v.(bool)
			return indicator(b), ok && isBool
		}))
	case templates.TypeMulti:
		for _, code := range optionCodes(q) {
			out = append(out, g.series(c, results.Share, opt(code), func(r *records.Annotation) (float64, bool) {
				set, ok := multiAnswer(r, q.Name)
				return indicator(slices.Contains(set, code)), ok
			}))
		}
	case templates.TypeScale:
		f := func(r *records.Annotation) (float64, bool) { return scaleAnswer(q, r, q.Name) }
		out = append(out, g.series(c, results.Mean, nil, f), g.series(c, results.Median, nil, f))
	case templates.TypeText:
		out = append(out, g.series(c, results.Answered, nil, func(r *records.Annotation) (float64, bool) {
			v, ok := answerOf(r, q.Name)
			s, _ := v.(string)
			return indicator(ok && strings.TrimSpace(s) != ""), ok || blankAnswers(r, q.Name)
		}))
	}
	return out
}

// multiAnswer is a multi's set of codes; a complete record without one
// selected none, which is an answer.
func multiAnswer(r *records.Annotation, name string) ([]string, bool) {
	v, ok := answerOf(r, name)
	if set, isSet := v.([]string); ok && isSet {
		return set, true
	}
	if !ok && blankAnswers(r, name) {
		return nil, true
	}
	return nil, false
}

// scaleAnswer is a scale's value; the template's "not yet answered"
// value is none.
func scaleAnswer(q *templates.Question, r *records.Annotation, name string) (float64, bool) {
	v, ok := answerOf(r, name)
	n, isInt := v.(int)
	if !ok || !isInt || q.Unanswered != nil && n == *q.Unanswered {
		return 0, false
	}
	return float64(n), true
}

// candidateSeries are the mean and median of the candidates' k-th scale
// questions (qs, in candidate order), the groups the candidates, paired
// by unit.
func candidateSeries(t *templates.Template, c *resultRecords, g *groups, qs []string) []results.Series {
	var out []results.Series
	q0 := t.QuestionByName(qs[0])
	for _, statistic := range []string{results.Mean, results.Median} {
		s := results.Series{Statistic: statistic, Groups: g.candidates, Paired: true}
		if q0.Type != templates.TypeScale {
			continue
		}
		for k, cand := range g.candidates {
			q := t.QuestionByName(qs[k])
			units, vals := unitValues(c, func(r *records.Annotation) (float64, bool) { return scaleAnswer(q, r, q.Name) })
			for i, u := range units {
				s.Obs = append(s.Obs, results.Obs{Group: cand, Item: u, Value: vals[i]})
			}
		}
		out = append(out, s)
	}
	return out
}

// choiceSeries are a choice among the candidates: each candidate's win
// rate (the share of units choosing it, paired by unit), and the share
// of each option that is no candidate (a tie, "none"), with no group.
func choiceSeries(c *resultRecords, g *groups, q *templates.Question) []results.Series {
	chose := func(code string) perRecord {
		return func(r *records.Annotation) (float64, bool) {
			if q.Type == templates.TypeMulti {
				set, ok := multiAnswer(r, q.Name)
				return indicator(slices.Contains(set, code)), ok
			}
			v, ok := answerOf(r, q.Name)
			s, isStr := v.(string)
			return indicator(s == code), ok && isStr
		}
	}
	win := results.Series{Statistic: results.WinRate, Groups: g.candidates, Paired: true}
	for _, cand := range g.candidates {
		units, vals := unitValues(c, chose(cand))
		for i, u := range units {
			win.Obs = append(win.Obs, results.Obs{Group: cand, Item: u, Value: vals[i]})
		}
	}
	out := []results.Series{win}
	for _, code := range optionCodes(q) {
		if !slices.Contains(g.candidates, code) {
			out = append(out, g.series(c, results.Share, opt(code), chose(code)))
		}
	}
	return out
}

// spanSeries are the spans per unit, overall and per label (labels), and
// the share of units with a span; labelsOf gives a record's spans' labels
// ("" for none), false when the record gives no answer.
func spanSeries(c *resultRecords, g *groups, labels []string, labelsOf func(*records.Annotation) ([]string, bool)) []results.Series {
	count := func(label *string) perRecord {
		return func(r *records.Annotation) (float64, bool) {
			ls, ok := labelsOf(r)
			n := 0
			for _, l := range ls {
				if label == nil || l == *label {
					n++
				}
			}
			return float64(n), ok
		}
	}
	out := []results.Series{g.series(c, results.SpansPerUnit, nil, count(nil))}
	for _, l := range labels {
		out = append(out, g.series(c, results.SpansPerUnit, opt(l), count(opt(l))))
	}
	out = append(out, g.series(c, results.UnitsWithSpan, nil, func(r *records.Annotation) (float64, bool) {
		ls, ok := labelsOf(r)
		return indicator(len(ls) > 0), ok
	}))
	return out
}

// blockSpanLabels are the labels of a block's spans (its rows with a
// span); none on a complete record is an answer.
func blockSpanLabels(name string, r *records.Annotation) ([]string, bool) {
	if rowsUndecided(r) {
		return nil, false
	}
	var out []string
	for _, s := range r.Spans {
		if s.Start != nil && s.End != nil {
			out = append(out, s.Code)
		}
	}
	return out, len(out) > 0 || blankAnswers(r, name)
}

// rowSpanLabels are the spans of a span question asked per unit or per
// row, unlabelled.
func rowSpanLabels(q *templates.Question, r *records.Annotation) ([]string, bool) {
	if rowsUndecided(r) {
		return nil, false
	}
	var out []string
	add := func(v any) {
		if sv, ok := v.(records.SpanValue); ok && sv.Start != nil && sv.End != nil {
			out = append(out, "")
		}
	}
	if v, ok := answerOf(r, q.Name); ok {
		add(v)
	}
	for _, s := range r.Spans {
		if v, ok := s.Values[q.Name]; ok {
			add(v)
		}
	}
	return out, len(out) > 0 || blankAnswers(r, q.Name)
}

// GroupNeedsInputs reports whether the group by (as ResultsOptions.By
// names it) is read from the study's input records, which only its
// manifest names; a group read from the id itself is read from the
// records.
func GroupNeedsInputs(t *templates.Template, by string) bool {
	if by == "" && t.Shuffle == nil && len(t.Groups) > 0 {
		by = t.Groups[0].Name
	}
	g := t.Group(by)
	if g == nil {
		return false
	}
	return g.From != t.Input.ID || g.Paired() && g.PairBy != t.Input.ID
}

// patterns are the groups' patterns, compiled once (each was checked when
// its template loaded).
var patterns sync.Map

func compiled(pattern string) *regexp.Regexp {
	if re, ok := patterns.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(pattern)
	patterns.Store(pattern, re)
	return re
}
