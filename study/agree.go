package study

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/editdistance"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// AgreementSchema tags the JSON that agree writes.
const AgreementSchema = "annosheet.agreement/1"

// ErrAgree: the records cannot be compared as they are.
var ErrAgree = errors.New("cannot compute agreement")

// ErrAgreeOptions: an AgreeOptions value is out of its range.
var ErrAgreeOptions = errors.New("agreement options out of range")

// MaxResamples bounds the bootstrap resamples of an interval: a million
// draws of every unit already give an interval far finer than any
// study's sampling error, and more only takes longer.
const MaxResamples = 1_000_000

// MaxListedPairs bounds AgreeOptions.MaxPairs: a hundred thousand pairs'
// metrics are some hundred megabytes of JSON per question, already more
// than a reader can use.
const MaxListedPairs = 100_000

// check reports an option out of its range.
func (o AgreeOptions) check() error {
	switch {
	case o.CI != 0 && !(o.CI > 0 && o.CI < 1):
		return fmt.Errorf("%w: the interval's level %v is not between 0 and 1", ErrAgreeOptions, o.CI)
	case o.Resamples < 0 || o.Resamples > MaxResamples:
		return fmt.Errorf("%w: %d resamples is not between 1 and %d", ErrAgreeOptions, o.Resamples, MaxResamples)
	case o.MaxPairs < 0 || o.MaxPairs > MaxListedPairs:
		return fmt.Errorf("%w: %d pairs listed is not between 1 and %d", ErrAgreeOptions, o.MaxPairs, MaxListedPairs)
	}
	return nil
}

// AgreeOptions narrow and shape an agreement report.
type AgreeOptions struct {
	// Questions, when set, are the only questions reported, by name.
	Questions []string
	// Annotators, when set, are the only annotators compared.
	Annotators []string
	// IncludePartial adds the answered values of partial units; by
	// default only complete units count.
	IncludePartial bool
	// CI, between 0 and 1, asks a bootstrap confidence interval of that
	// level for each question's headline metric, from Resamples
	// resamples of the units drawn with Seed (1,000 when 0; at most
	// MaxResamples).
	CI        float64
	Resamples int
	Seed      uint64
	// MaxPairs is the most pairs of annotators each question lists:
	// those that share the most units (agreement.DefaultMaxPairs when
	// 0).
	MaxPairs int
	// Reference is the annotator directional span metrics take as the
	// reference; the first in sorted order by default.
	Reference string
	// Gold, when set, is a gold set each annotator is scored against,
	// question by question, beside the agreement.
	Gold *Gold
}

// Agreement is a study's agreement, question by question, as agree
// writes it (schema annosheet.agreement/1).
type Agreement struct {
	Schema    string              `json:"schema"`
	Template  records.TemplateID  `json:"template"`
	Records   AgreeRecords        `json:"records"`
	Questions []QuestionAgreement `json:"questions"`
	Skipped   []SkippedQuestion   `json:"skipped,omitempty"`
	// Against scores each annotator against a gold set, when one is
	// given (AgreeOptions.Gold).
	Against  *Against        `json:"against,omitempty"`
	options  AgreeOptions    // as asked
	compared []agreeQuestion // how each of Questions is made
	set      *recordSet      // the records compared
}

// AgreeRecords counts the records agreement was computed on and those
// left out, by reason.
type AgreeRecords struct {
	Used    int `json:"used"`
	Partial int `json:"partial_left_out,omitempty"`
	Empty   int `json:"empty_or_missing"`
	// Annotators lists every annotator compared, sorted.
	Annotators []string `json:"annotators"`
}

// QuestionAgreement is one question's agreement: the agreement package's
// Result under the question's name and type. For spans, Name is the name
// the records' spans carry.
type QuestionAgreement struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Compared says what a value is, where it is not the question's
	// answer as such: "the set of error types a unit's rows give",
	// "evidence per (unit, error type)".
	Compared string `json:"compared,omitempty"`
	agreement.Result
}

// SkippedQuestion is a question agreement says nothing about, and why.
type SkippedQuestion struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// tableData is what one question is compared on.
type tableData struct {
	kind    string // the question type whose metrics it gets
	table   agreement.Table
	spans   agreement.SpanTable
	options []string
	levels  []float64
}

// Agree computes the agreement of every question of template t over the
// records: complete units by default, paired by unit and annotator. The
// records must be the values export writes: pulled through the study's
// manifest, so that shuffled candidates are back on their own, and with
// one record per (unit, annotator). It stops with ctx's error when ctx is
// done.
func Agree(ctx context.Context, t *templates.Template, recs []*records.Annotation, opt AgreeOptions) (*Agreement, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	// Questions is [] in the JSON where every question asked for is
	// skipped, as the schema has it, never null.
	out := &Agreement{Schema: AgreementSchema, Template: records.TemplateID{Name: t.Name, Version: t.Version}, Questions: []QuestionAgreement{}, options: opt}
	for _, name := range opt.Questions {
		if t.QuestionByName(name) == nil && name != t.Rows.Spans {
			return nil, &OptionError{Option: "question", Value: name, Err: fmt.Errorf("%w: template %s has no such question (it has %s)", ErrAgree, t.Name, strings.Join(questionNames(t), ", "))}
		}
	}
	set, err := agreeRecords(t, recs, opt, &out.Records)
	if err != nil {
		return nil, err
	}
	out.set = set
	out.compared, out.Skipped = agreeQuestions(t, opt.Questions)
	for _, q := range out.compared {
		out.Questions = append(out.Questions, QuestionAgreement{Name: q.name, Type: q.kind, Compared: q.compared})
	}
	if err := out.compute(ctx); err != nil {
		return nil, err
	}
	if opt.Gold != nil {
		if out.Against, err = against(ctx, t, recs, set, out.compared, opt.Gold); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// agreeQuestion is one question agree compares: its name, type and what
// a value is, as reported, and how its data is made from a set of
// records.
type agreeQuestion struct {
	name, kind, compared string
	data                 func(*recordSet) tableData
}

// agreeQuestions lists the questions of t that agree compares (those
// named, when any are), in the template's order, and those it skips,
// with why.
func agreeQuestions(t *templates.Template, names []string) ([]agreeQuestion, []SkippedQuestion) {
	want := func(name string) bool { return len(names) == 0 || slices.Contains(names, name) }
	block := t.Rows.Per == templates.PerBlock
	var out []agreeQuestion
	var skipped []SkippedQuestion
	for i := range t.Questions {
		q := &t.Questions[i]
		rowScoped := block && q.Scope != "block"
		name := q.Name
		if rowScoped && q.Type == templates.TypeSpan && blockSpanQuestion(t, q) {
			name = t.Rows.Spans // the name the records' spans carry
		}
		if !want(name) {
			continue
		}
		var kind, compared string
		var data func(*recordSet) tableData
		switch {
		case name == t.Rows.Spans && name != q.Name:
			kind = templates.TypeSpan
			data = func(s *recordSet) tableData {
				return tableData{spans: blockSpans(t.Rows.Spans, s.recs, s.coders), options: optionCodes(t.QuestionByName(t.Rows.Label))}
			}
		case rowScoped && q.Type == templates.TypeSpan:
			kind = templates.TypeSpan
			data = func(s *recordSet) tableData { return tableData{spans: rowSpans(q, s.recs, s.coders)} }
		case rowScoped && q.Name == t.Rows.Label:
			kind, compared = templates.TypeMulti, "the set of "+q.Header+" codes that a unit's rows give"
			data = func(s *recordSet) tableData {
				return tableData{table: labelSets(t.Rows.Spans, s.recs, s.coders), options: optionCodes(q)}
			}
		case rowScoped && q.Type == templates.TypeEvidence && t.Rows.Label != "":
			kind = templates.TypeEvidence
			compared = "the evidence of each (unit, " + t.QuestionByName(t.Rows.Label).Header + ") pair that annotators give, where any of them gives evidence"
			data = func(s *recordSet) tableData { return tableData{table: evidenceByLabel(s.recs, s.coders)} }
		case rowScoped:
			skipped = append(skipped, SkippedQuestion{Name: q.Name, Reason: "asked on every row of a block: its answers have no unit-level value to pair"})
			continue
		case q.Type == templates.TypeSpan:
			kind = templates.TypeSpan
			data = func(s *recordSet) tableData { return tableData{spans: rowSpans(q, s.recs, s.coders)} }
		default:
			kind = q.Type
			data = func(s *recordSet) tableData { return unitTable(q, s) }
		}
		out = append(out, agreeQuestion{name: name, kind: kind, compared: compared, data: func(s *recordSet) tableData {
			td := data(s)
			td.kind = kind
			return td
		}})
	}
	return out, skipped
}

// compute makes every question's data and computes its agreement, and its
// interval when asked.
func (a *Agreement) compute(ctx context.Context) error {
	return parallel(ctx, len(a.Questions), func(i int) error {
		q := &a.Questions[i]
		td := a.compared[i].data(a.set)
		var err error
		if q.Result, err = td.result(ctx, td.table, a.options); err != nil {
			return err
		}
		if a.options.CI > 0 {
			return a.interval(ctx, q, td)
		}
		return nil
	})
}

// parallel calls f for 0 ≤ i < n, spread over the machine's cores. The
// calls must be independent of one another, so that what they make is
// the same however they run. It returns the error of the first call (in
// order of i) that fails, and calls f no more once one has failed or ctx
// is done.
func parallel(ctx context.Context, n int, f func(i int) error) error {
	errs := make([]error, n)
	var failed atomic.Bool
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if failed.Load() {
					continue
				}
				if errs[i] = f(i); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil || failed.Load() {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// result is the agreement of a question of this kind on table t (on the
// spans, for a span question), as opt asks.
func (td tableData) result(ctx context.Context, t agreement.Table, opt AgreeOptions) (agreement.Result, error) {
	o := agreement.Options{MaxPairs: opt.MaxPairs}
	switch td.kind {
	case templates.TypeChoice, templates.TypeBool:
		return agreement.Choice(ctx, t, td.options, o)
	case templates.TypeScale:
		return agreement.Scale(ctx, t, td.levels, o)
	case templates.TypeMulti:
		return agreement.Multi(ctx, t, td.options, o)
	case templates.TypeEvidence:
		return agreement.Evidence(ctx, t, o)
	case templates.TypeText:
		return agreement.Text(ctx, t, o)
	case templates.TypeSpan:
		return agreement.Spans(ctx, td.spans, td.options, opt.Reference, o)
	}
	return agreement.Result{}, nil
}

// interval adds the bootstrap interval of a question's headline metric,
// over its units drawn with replacement.
func (a *Agreement) interval(ctx context.Context, q *QuestionAgreement, td tableData) error {
	if len(q.Metrics) == 0 {
		return nil
	}
	headline := func(r agreement.Result) (float64, bool) {
		if len(r.Metrics) == 0 {
			return 0, false
		}
		v, ok := r.Metrics[0].Value.(float64)
		return v, ok
	}
	resamples := a.options.Resamples
	if resamples <= 0 {
		resamples = 1000
	}
	var lo, hi float64
	var ok bool
	var err error
	if td.kind == templates.TypeSpan {
		// The headline, span F1, has no direction: the reference does
		// not change it.
		lo, hi, ok, err = agreement.BootstrapSpanF1(ctx, td.spans, a.options.CI, resamples, a.options.Seed)
	} else if r, stat, coded := td.headline(); coded {
		lo, hi, ok, err = agreement.BootstrapRatings(ctx, r, stat, a.options.CI, resamples, a.options.Seed)
	} else {
		// Each resample's Result lists no pair beyond the one its
		// headline may need.
		one := a.options
		one.MaxPairs = 1
		lo, hi, ok, err = agreement.Bootstrap(ctx, td.table, func(tb agreement.Table) (float64, bool) {
			res, err := td.result(ctx, tb, one)
			if err != nil {
				return 0, false // ctx is done: the bootstrap stops at once
			}
			return headline(res)
		}, a.options.CI, resamples, a.options.Seed)
	}
	if err != nil {
		return err
	}
	if ok {
		q.Metrics[0].CI = []float64{lo, hi}
	}
	return nil
}

// headline is the table coded once, and the statistic of the headline
// metric of its kind (the first metric result reports) on coded data:
// all a bootstrap resample needs. Coding once and computing the headline
// alone, rather than every metric of each resample's table, is what
// keeps the interval of a big study quick; a resample of the coded
// ratings is the same units as one of the table (agreement's
// BootstrapRatings). false for kinds without one (spans).
func (td tableData) headline() (agreement.Ratings, func(agreement.Ratings) (float64, bool), bool) {
	var r agreement.Ratings
	var stat func(agreement.Ratings) (float64, error)
	alpha := func(d agreement.Difference) func(agreement.Ratings) (float64, error) {
		return func(r agreement.Ratings) (float64, error) { return agreement.KrippendorffAlpha(r, d) }
	}
	switch td.kind {
	case templates.TypeChoice, templates.TypeBool:
		r, stat = agreement.ChoiceRatings(td.table, td.options), alpha(agreement.Nominal)
	case templates.TypeScale:
		r, stat = agreement.ScaleRatings(td.table, td.levels), alpha(agreement.Ordinal)
	case templates.TypeMulti, templates.TypeEvidence:
		r, stat = agreement.SetRatings(td.table), alpha(agreement.MASI)
	case templates.TypeText:
		r, stat = agreement.TextRatings(td.table), agreement.PercentAgreement
	default:
		return r, nil, false
	}
	return r, func(r agreement.Ratings) (float64, bool) {
		v, err := stat(r)
		return v, err == nil
	}, true
}

// questionNames lists the questions agree can be asked about.
func questionNames(t *templates.Template) []string {
	var out []string
	for _, q := range t.Questions {
		out = append(out, q.Name)
	}
	if t.Rows.Spans != "" {
		out = append(out, t.Rows.Spans)
	}
	return out
}

// agreeRecords picks the records agreement is computed on: complete ones
// (and partial ones with IncludePartial) of the annotators asked for,
// one per (unit, annotator); it fills in the counts.
func agreeRecords(t *templates.Template, recs []*records.Annotation, opt AgreeOptions, n *AgreeRecords) (*recordSet, error) {
	var used []*records.Annotation
	for _, r := range recs {
		if r.Template.Name != t.Name || r.Template.Version != t.Version {
			return nil, fmt.Errorf("%w: unit %s by %s is a record of template %s version %d, not %s version %d", ErrAgree, r.Unit, r.Annotator, r.Template.Name, r.Template.Version, t.Name, t.Version)
		}
		if r.Shuffled {
			return nil, fmt.Errorf("%w: unit %s by %s still has its candidates in the order shown; pull through the study's manifest, which puts them back", ErrAgree, r.Unit, r.Annotator)
		}
		switch r.Status {
		case records.StatusComplete:
		case records.StatusPartial:
			if !opt.IncludePartial {
				n.Partial++
				continue
			}
		default:
			n.Empty++
			continue
		}
		if r.Annotator == "" || len(opt.Annotators) > 0 && !slices.Contains(opt.Annotators, r.Annotator) {
			continue
		}
		used = append(used, r)
	}
	set, err := newRecordSet(used)
	if err != nil {
		return nil, err
	}
	for _, a := range opt.Annotators {
		if !slices.Contains(set.coders, a) {
			return nil, &OptionError{Option: "annotators", Value: a, Err: fmt.Errorf("%w: no record of that annotator counts%s", ErrAgree, AnnotatorHint(a, recs))}
		}
	}
	n.Used = len(set.recs)
	n.Annotators = set.coders
	return set, nil
}

// newRecordSet indexes records by unit and annotator, a record and its
// identical copies once; two different records of one unit and
// annotator are an error. It sorts recs in place.
func newRecordSet(recs []*records.Annotation) (*recordSet, error) {
	// Sorted by unit and annotator, copies of a record are neighbours.
	slices.SortStableFunc(recs, func(a, b *records.Annotation) int {
		if c := strings.Compare(a.Unit, b.Unit); c != 0 {
			return c
		}
		return strings.Compare(a.Annotator, b.Annotator)
	})
	set := &recordSet{}
	coders := map[string]bool{}
	for _, r := range recs {
		if k := len(set.recs) - 1; k >= 0 && set.recs[k].Unit == r.Unit && set.recs[k].Annotator == r.Annotator {
			if !sameAnswers(set.recs[k], r) {
				return nil, fmt.Errorf("%w: unit %s has two different records by %s; keep one (export says which lines)", ErrAgree, r.Unit, r.Annotator)
			}
			continue
		}
		if len(set.units) == 0 || set.units[len(set.units)-1] != r.Unit {
			set.units = append(set.units, r.Unit)
		}
		set.recs = append(set.recs, r)
		set.unit = append(set.unit, len(set.units)-1)
		coders[r.Annotator] = true
	}
	set.coders = sortedKeys(coders)
	at := map[string]int{}
	for i, c := range set.coders {
		at[c] = i
	}
	for _, r := range set.recs {
		set.coder = append(set.coder, at[r.Annotator])
	}
	return set, nil
}

// recordSet is the records agreement is computed on, one per (unit,
// annotator), sorted by unit and annotator, with each record's unit (an
// index into units, which are sorted) and annotator (into coders).
type recordSet struct {
	recs        []*records.Annotation
	units       []string
	coders      []string
	unit, coder []int
}

// sameAnswers reports whether two records of one unit and annotator say
// the same.
func sameAnswers(a, b *records.Annotation) bool {
	return fmt.Sprint(a.Values, a.Spans) == fmt.Sprint(b.Values, b.Spans)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// unitGrid gathers one cell per (unit, coder) given: units sorted on the
// way out, each with the cells of its coders only (in the order given,
// sorted), so that a study of many annotators takes room in proportion
// to its records.
type unitGrid[T any] struct {
	coders []string
	at     map[string]int
	units  map[string]*gridRow[T]
}

// gridRow is a unit's cells, by coder (ascending).
type gridRow[T any] struct {
	coders []int
	cells  []T
}

func newUnitGrid[T any](coders []string) *unitGrid[T] {
	g := &unitGrid[T]{coders: coders, at: map[string]int{}, units: map[string]*gridRow[T]{}}
	for i, c := range coders {
		g.at[c] = i
	}
	return g
}

// cell is the cell of a unit and coder, made on first use; it stays
// valid until another coder's cell of the unit is made.
func (g *unitGrid[T]) cell(unit, coder string) *T {
	row, ok := g.units[unit]
	if !ok {
		row = &gridRow[T]{}
		g.units[unit] = row
	}
	c := g.at[coder]
	// Records come by unit and coder: the cell is most often the last.
	if n := len(row.coders); n > 0 && row.coders[n-1] == c {
		return &row.cells[n-1]
	}
	i, found := slices.BinarySearch(row.coders, c)
	if !found {
		var zero T
		row.coders = slices.Insert(row.coders, i, c)
		row.cells = slices.Insert(row.cells, i, zero)
	}
	return &row.cells[i]
}

// ids are the units, sorted.
func (g *unitGrid[T]) ids() []string {
	ids := make([]string, 0, len(g.units))
	for id := range g.units {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// grid gathers values into a Table.
type grid struct{ *unitGrid[*agreement.Value] }

func newGrid(coders []string) grid { return grid{newUnitGrid[*agreement.Value](coders)} }

func (g grid) set(unit, coder string, v agreement.Value) { *g.cell(unit, coder) = &v }

func (g grid) table() agreement.Table {
	t := agreement.Table{Coders: g.coders}
	for _, id := range g.ids() {
		row := g.units[id]
		t.Units = append(t.Units, agreement.Unit{ID: id, Values: row.cells, Coders: row.coders})
	}
	return t
}

// unitTable is the table of a question answered once per unit. A
// multi-label question without a value on a complete record was left
// with nothing selected (its boxes blank): the empty selection, an
// answer, as export writes it.
func unitTable(q *templates.Question, set *recordSet) tableData {
	td := tableData{kind: q.Type, options: optionCodes(q)}
	if q.Type == templates.TypeBool {
		td.options = []string{"false", "true"}
	}
	if q.Type == templates.TypeScale {
		td.levels = scaleLevels(q)
	}
	// Every value in one slice, made once: cells point into it. Each unit
	// lists the coders who gave a value (the records come sorted by unit
	// and coder), so that the table grows with the records, not with
	// units × coders.
	n := len(set.recs)
	vals := make([]agreement.Value, 0, n)
	cells := make([]*agreement.Value, 0, n)
	coders := make([]int, 0, n)
	td.table = agreement.Table{Coders: set.coders, Units: make([]agreement.Unit, 0, len(set.units))}
	for i := 0; i < n; {
		u, from := set.unit[i], len(cells)
		for ; i < n && set.unit[i] == u; i++ {
			r := set.recs[i]
			v, ok := answerOf(r, q.Name)
			if !ok && q.Type == templates.TypeMulti && blankAnswers(r, q.Name) {
				v, ok = []string{}, true
			}
			if !ok {
				continue
			}
			if val, ok := tableValue(q, v); ok {
				vals = append(vals, val)
				cells = append(cells, &vals[len(vals)-1])
				coders = append(coders, set.coder[i])
			}
		}
		if to := len(cells); to > from {
			td.table.Units = append(td.table.Units, agreement.Unit{ID: set.units[u], Values: cells[from:to:to], Coders: coders[from:to:to]})
		}
	}
	return td
}

// answerOf is a record's answer to a question: none where a gold record
// says the question is still undecided.
func answerOf(r *records.Annotation, name string) (any, bool) {
	if p := r.Provenance[name]; p != nil && !p.Settled() {
		return nil, false
	}
	v, ok := r.Values[name]
	return v, ok
}

// blankAnswers reports whether a record without an answer to a question
// answers it all the same (the empty selection, no span): a complete
// record does; a gold record whose provenance says how the question was
// decided does whatever its status, unless it is still undecided, or
// carries the annotators' answers rather than one.
func blankAnswers(r *records.Annotation, name string) bool {
	if p := r.Provenance[name]; p != nil {
		return p.Settled()
	}
	return r.Status == records.StatusComplete
}

// rowsUndecided reports whether a gold record has a row nobody has
// decided on yet: its block's rows are then no answer, as long as one of
// them may still be kept or dropped.
func rowsUndecided(r *records.Annotation) bool {
	return slices.ContainsFunc(r.Spans, func(s records.SpanAnswer) bool {
		return s.Provenance != nil && s.Provenance.Kind == records.ProvenanceUnresolved
	})
}

// tableValue is an answer as the agreement package takes it; false for
// the template's "not yet answered" value, which is no answer.
func tableValue(q *templates.Question, v any) (agreement.Value, bool) {
	switch x := v.(type) {
	case string:
		if q.Type == templates.TypeText {
			return agreement.Value{Text: x}, true
		}
		return agreement.Value{Code: x}, true
	case bool:
		return agreement.Value{Code: strconv.FormatBool(x)}, true
	case int:
		if q.Unanswered != nil && x == *q.Unanswered {
			return agreement.Value{}, false
		}
		return agreement.Value{Num: float64(x)}, true
	case []string:
		return agreement.Value{Set: append([]string{}, x...)}, true // empty, not nil: an answer
	case records.Evidence:
		return agreement.Value{Set: evidenceIDs(x)}, true
	case *records.Evidence:
		if x == nil {
			return agreement.Value{}, false
		}
		return agreement.Value{Set: evidenceIDs(*x)}, true
	}
	return agreement.Value{}, false
}

// evidenceIDs names evidence sentences as "passage:sentence", sorted.
func evidenceIDs(e records.Evidence) []string {
	out := []string{}
	for _, s := range e.Sentences {
		out = append(out, fmt.Sprintf("%d:%d", e.Passage, s))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func optionCodes(q *templates.Question) []string {
	if q == nil {
		return nil
	}
	var out []string
	for _, o := range q.Options {
		out = append(out, o.Code)
	}
	return out
}

// scaleLevels are a scale's values, its "not yet answered" value left out.
func scaleLevels(q *templates.Question) []float64 {
	if q.Min == nil || q.Max == nil {
		return nil
	}
	var out []float64
	for v := *q.Min; v <= *q.Max; v++ {
		if q.Unanswered != nil && v == *q.Unanswered {
			continue
		}
		out = append(out, float64(v))
	}
	return out
}

// blockSpanQuestion reports whether q is the span question whose rows are
// the records' spans (the first span question of a block layout).
func blockSpanQuestion(t *templates.Template, q *templates.Question) bool {
	for i := range t.Questions {
		if t.Questions[i].Type == templates.TypeSpan && t.Questions[i].Scope != "block" {
			return &t.Questions[i] == q
		}
	}
	return false
}

// spanGrid gathers span lists per unit and coder; a coder with a
// complete record of the unit has a list, empty when they marked nothing.
type spanGrid struct{ *unitGrid[[]agreement.Span] }

func newSpanGrid(coders []string) spanGrid { return spanGrid{newUnitGrid[[]agreement.Span](coders)} }

func (g spanGrid) record(unit, coder string) {
	if c := g.cell(unit, coder); *c == nil {
		*c = []agreement.Span{}
	}
}

func (g spanGrid) add(unit, coder string, s agreement.Span) {
	c := g.cell(unit, coder)
	*c = append(*c, s)
}

func (g spanGrid) table() agreement.SpanTable {
	t := agreement.SpanTable{Coders: g.coders}
	for _, id := range g.ids() {
		row := g.units[id]
		for _, l := range row.cells {
			slices.SortFunc(l, func(a, b agreement.Span) int {
				if a.Start != b.Start {
					return a.Start - b.Start
				}
				if a.End != b.End {
					return a.End - b.End
				}
				return strings.Compare(a.Label, b.Label)
			})
		}
		t.Units = append(t.Units, agreement.SpanUnit{ID: id, Spans: row.cells, Coders: row.coders})
	}
	return t
}

// blockSpans are the spans of a block layout's rows (named name),
// labelled by the label question's code. Rows without a span (missing
// information) are no span.
func blockSpans(name string, recs []*records.Annotation, coders []string) agreement.SpanTable {
	g := newSpanGrid(coders)
	for _, r := range recs {
		if rowsUndecided(r) {
			continue
		}
		if blankAnswers(r, name) {
			g.record(r.Unit, r.Annotator)
		}
		for _, s := range r.Spans {
			if s.Start != nil && s.End != nil {
				g.add(r.Unit, r.Annotator, agreement.Span{Start: *s.Start, End: *s.End, Label: s.Code})
			}
		}
	}
	return g.table()
}

// rowSpans are the spans of a span question asked per row (of a block,
// or once per unit): each found span, unlabelled. A complete record
// without one marked no span, which is an answer.
func rowSpans(q *templates.Question, recs []*records.Annotation, coders []string) agreement.SpanTable {
	g := newSpanGrid(coders)
	add := func(r *records.Annotation, v any) {
		sv, ok := v.(records.SpanValue)
		if ok && sv.Start != nil && sv.End != nil {
			g.add(r.Unit, r.Annotator, agreement.Span{Start: *sv.Start, End: *sv.End})
		}
	}
	for _, r := range recs {
		if rowsUndecided(r) {
			continue
		}
		if blankAnswers(r, q.Name) {
			g.record(r.Unit, r.Annotator)
		}
		if v, ok := answerOf(r, q.Name); ok {
			add(r, v)
		}
		for _, s := range r.Spans {
			if v, ok := s.Values[q.Name]; ok {
				add(r, v)
			}
		}
	}
	return g.table()
}

// labelSets is, per unit, the set of label codes its rows (named rows)
// give: the error types an annotator found, spans or not.
func labelSets(rows string, recs []*records.Annotation, coders []string) agreement.Table {
	g := newGrid(coders)
	for _, r := range recs {
		if rowsUndecided(r) {
			continue
		}
		codes := []string{} // none is an answer: no error found
		for _, s := range r.Spans {
			if s.Code != "" {
				codes = append(codes, s.Code)
			}
		}
		if len(codes) == 0 && !blankAnswers(r, rows) {
			continue // a partial unit's no rows is no answer
		}
		slices.Sort(codes)
		g.set(r.Unit, r.Annotator, agreement.Value{Set: slices.Compact(codes)})
	}
	return g.table()
}

// evidenceByLabel is the evidence of each (unit, label) pair: the union
// of the evidence of the unit's rows of that label. An annotator who gave
// no row of that label has no value there; a pair where no annotator
// gives evidence is left out.
func evidenceByLabel(recs []*records.Annotation, coders []string) agreement.Table {
	g := newGrid(coders)
	for _, r := range recs {
		if rowsUndecided(r) {
			continue
		}
		by := map[string][]string{}
		var labels []string
		for _, s := range r.Spans {
			if s.Code == "" {
				continue
			}
			if _, ok := by[s.Code]; !ok {
				labels = append(labels, s.Code)
				by[s.Code] = []string{}
			}
			if s.Evidence != nil {
				by[s.Code] = append(by[s.Code], evidenceIDs(*s.Evidence)...)
			}
		}
		for _, l := range labels {
			set := by[l]
			slices.Sort(set)
			g.set(r.Unit+" / "+l, r.Annotator, agreement.Value{Set: slices.Compact(set)})
		}
	}
	// A pair where nobody gives evidence says nothing about evidence
	// (most types take none): it is left out, not counted as agreement.
	t := g.table()
	t.Units = slices.DeleteFunc(t.Units, func(u agreement.Unit) bool {
		return !slices.ContainsFunc(u.Values, func(v *agreement.Value) bool { return v != nil && len(v.Set) > 0 })
	})
	return t
}

// AnnotatorHint says, of an annotator ID no record has, which of the
// records' annotators was most likely meant, and who they are: "; did
// you mean "bb"? (the records' annotators: ak, bb)".
func AnnotatorHint(id string, recs []*records.Annotation) string {
	seen := map[string]bool{}
	var all []string
	for _, r := range recs {
		if r.Annotator != "" && !seen[r.Annotator] {
			seen[r.Annotator] = true
			all = append(all, r.Annotator)
		}
	}
	slices.Sort(all)
	out := ""
	if close := editdistance.Closest(id, all); len(close) > 0 {
		out = "; did you mean " + strconv.Quote(close[0])
		for _, c := range close[1:] {
			out += " or " + strconv.Quote(c)
		}
		out += "?"
	}
	if len(all) > 0 && len(all) <= 20 {
		out += " (the records' annotators: " + strings.Join(all, ", ") + ")"
	}
	return out
}

// An OptionError is an option of a run that the records or the template
// refuse: a question the template lacks, an annotator with no record.
// Option names the option as AgreeOptions does ("question",
// "annotators"); the command line says it as its flag.
type OptionError struct {
	Option, Value string
	Err           error
}

// Error says the option, its value and what is wrong with it.
func (e *OptionError) Error() string { return e.Option + " " + e.Value + ": " + e.Err.Error() }

// Unwrap gives what is wrong with the option.
func (e *OptionError) Unwrap() error { return e.Err }
