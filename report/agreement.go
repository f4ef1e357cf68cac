package report

import (
	"cmp"
	"context"
	"errors"
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// Agreement is agree's report with its default options (complete units
// only), each headline with its bootstrap interval, and what the page
// draws of the values: a confusion matrix per annotator pair for choice,
// bool and scale questions, and for span questions the units where the
// annotators differ most.
type Agreement struct {
	Records study.AgreeRecords `json:"records"`
	// The interval: its level, resamples and seed.
	Level     float64                 `json:"level"`
	Resamples int                     `json:"resamples"`
	Seed      uint64                  `json:"seed"`
	Questions []QuestionAgreement     `json:"questions"`
	Skipped   []study.SkippedQuestion `json:"skipped"`
}

// QuestionAgreement is one question's agreement: agree's counts and
// question-level metrics (the headline first, with its interval), each
// pair of annotators' headline, and what the page draws.
type QuestionAgreement struct {
	Name     string `json:"name"`
	Header   string `json:"header"`
	Type     string `json:"type"`
	Compared string `json:"compared,omitempty"`
	Units    int    `json:"units"`
	Pairable int    `json:"pairable"`
	// PairableUnits counts the units two or more annotators gave a value,
	// Differ those of them where they do not all agree.
	PairableUnits int                `json:"pairable_units"`
	Differ        int                `json:"differ"`
	Annotators    []string           `json:"annotators"`
	Metrics       []agreement.Metric `json:"metrics"`
	// Pairs are the pairs of annotators that share a unit, as agree
	// lists them: those that share the most, past its bound;
	// PairsLeftOut counts the others.
	Pairs        []Pair `json:"pairs"`
	PairsLeftOut int    `json:"pairs_left_out,omitempty"`
	// Examples are, for a span question, the units where two annotators
	// differ most.
	Examples []SpanExample `json:"examples,omitempty"`
}

// Pair is one pair of annotators: their headline metric, and for a
// choice, bool or scale question the confusion matrix of their answers.
type Pair struct {
	A         string           `json:"a"`
	B         string           `json:"b"`
	Headline  agreement.Metric `json:"headline"`
	Confusion *Confusion       `json:"confusion,omitempty"`
}

// Confusion counts the units both annotators of a pair answered, by A's
// answer (row) and B's (column).
type Confusion struct {
	Categories []Category `json:"categories"`
	Counts     [][]int    `json:"counts"`
	Units      int        `json:"units"`
	Same       int        `json:"same"`
}

// SpanExample is a unit where annotators differ on a span question: the
// pair of them whose span F1 on the unit is lowest, and every
// annotator's spans.
type SpanExample struct {
	Unit string `json:"unit"`
	// Field is the text the spans are in; Text is that text, or the part
	// of it around the spans from code point Offset, when the caller has
	// it (see AddTexts).
	Field  string `json:"field,omitempty"`
	Text   string `json:"text,omitempty"`
	Offset int    `json:"offset,omitempty"`
	// Length is the whole text's, in code points.
	Length int `json:"length,omitempty"`
	// F1 is the lowest span F1 (exact, with labels) of a pair of the
	// unit's annotators, A and B.
	F1         *float64       `json:"f1"`
	A          string         `json:"a"`
	B          string         `json:"b"`
	Annotators []ExampleSpans `json:"annotators"`
	question   *templates.Question
}

// ExampleSpans are one annotator's spans on an example unit.
type ExampleSpans struct {
	Annotator string        `json:"annotator"`
	Spans     []ExampleSpan `json:"spans"`
}

// ExampleSpan is one span: code-point offsets into the field's text (End
// exclusive), its label, and its text as the record has it.
type ExampleSpan struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Code  string `json:"code,omitempty"`
	Label string `json:"label,omitempty"`
	Text  string `json:"text"`
}

// agreed is the agreement section, and the scores against gold, or why
// there are none.
type agreed struct {
	section  Agreement
	against  *study.Against
	unscored string
}

// resamplesBudget bounds the units drawn, over all resamples, for one
// question's interval: a study of up to 20,000 units gets 1,000
// resamples, a bigger one fewer (200 at 100,000 units, never fewer), so
// that its report stays a matter of seconds.
const (
	resamplesBudget = 20_000_000
	minResamples    = 200
)

// resamples is the number of bootstrap resamples for a study of that
// many units.
func resamples(units int) int {
	return max(minResamples, min(maxResamples, resamplesBudget/max(units, 1)))
}

// agree computes the agreement as agree does with its default options,
// and its interval, and what the page draws of each question.
func agree(ctx context.Context, t *templates.Template, recs []*records.Annotation, opt Options) (agreed, error) {
	units := map[string]bool{}
	for _, r := range recs {
		if r.Status == records.StatusComplete {
			units[r.Unit] = true
		}
	}
	n := resamples(len(units))
	a, err := study.Agree(ctx, t, recs, study.AgreeOptions{CI: Level, Resamples: n, Seed: Seed, Gold: opt.Gold})
	var unscored string
	if errors.Is(err, study.ErrGold) {
		// A gold set that cannot be scored yet (it shares no unit with
		// the sources, nothing in it is decided) leaves the rest of the
		// page as it is: the gold section says why.
		unscored = err.Error()
		a, err = study.Agree(ctx, t, recs, study.AgreeOptions{CI: Level, Resamples: n, Seed: Seed})
	}
	if err != nil {
		return agreed{}, err
	}
	out := Agreement{Records: a.Records, Level: Level, Resamples: n, Seed: Seed, Questions: []QuestionAgreement{}, Skipped: a.Skipped}
	if out.Records.Annotators == nil {
		out.Records.Annotators = []string{}
	}
	if out.Skipped == nil {
		out.Skipped = []study.SkippedQuestion{}
	}
	var examples []*SpanExample
	for i, q := range a.Questions {
		qa := QuestionAgreement{Name: q.Name, Header: q.Name, Type: q.Type, Compared: q.Compared, Units: q.Units, Pairable: q.Pairable,
			PairableUnits: len(q.UnitsDetail), Annotators: q.Annotators, Metrics: q.Metrics, Pairs: []Pair{}, PairsLeftOut: q.PairsLeftOut}
		tq := t.QuestionByName(q.Name)
		if tq == nil && q.Name == t.Rows.Spans {
			tq = t.QuestionByName(primarySpan(t))
		}
		if tq != nil {
			qa.Header = tq.Header
		}
		for _, u := range q.UnitsDetail {
			if !u.Agree {
				qa.Differ++
			}
		}
		// The values themselves, for what the page draws of them.
		var data study.QuestionData
		switch q.Type {
		case templates.TypeChoice, templates.TypeBool, templates.TypeScale, templates.TypeSpan:
			data = a.Data(i)
		}
		confusions, err := confusions(ctx, data, tq, q.Pairs)
		if err != nil {
			return agreed{}, err
		}
		for _, p := range q.Pairs {
			pair := Pair{A: p.A, B: p.B}
			if len(p.Metrics) > 0 {
				pair.Headline = p.Metrics[0]
			}
			if confusions != nil {
				pair.Confusion = confusions[[2]string{p.A, p.B}]
			}
			qa.Pairs = append(qa.Pairs, pair)
		}
		if data.Kind == templates.TypeSpan {
			if qa.Examples, err = spanExamples(ctx, data, q.UnitsDetail, tq, opt.Examples); err != nil {
				return agreed{}, err
			}
			for k := range qa.Examples {
				examples = append(examples, &qa.Examples[k])
			}
		}
		out.Questions = append(out.Questions, qa)
	}
	spanTexts(t, recs, examples)
	return agreed{section: out, against: a.Against, unscored: unscored}, nil
}

// confusions are the confusion matrices of the pairs of annotators of a
// choice, bool or scale question, by pair (sorted names); nil for other
// kinds. The answers are coded as the agreement coded them. Only the
// units each unit's annotators share are visited, so that a study of
// many annotators costs what its records do.
func confusions(ctx context.Context, d study.QuestionData, q *templates.Question, pairs []agreement.Pair) (map[[2]string]*Confusion, error) {
	var r agreement.Ratings
	var cats []Category
	switch d.Kind {
	case templates.TypeChoice, templates.TypeBool:
		r = agreement.ChoiceRatings(d.Table, d.Options)
		for _, code := range r.Labels {
			label := optionLabel(q, code)
			if d.Kind == templates.TypeBool {
				label = map[string]string{"true": "yes", "false": "no"}[code]
			}
			cats = append(cats, Category{Code: code, Label: label})
		}
	case templates.TypeScale:
		r = agreement.ScaleRatings(d.Table, d.Levels)
		for _, v := range r.Values {
			s := strconv.FormatFloat(v, 'g', -1, 64)
			cats = append(cats, Category{Code: s, Label: s})
		}
	default:
		return nil, nil
	}
	out := map[[2]string]*Confusion{}
	at := map[string]int{}
	for i, c := range d.Table.Coders {
		at[c] = i
	}
	// The matrix of each pair wanted, by its annotators' columns (A's
	// first).
	wanted := map[[2]int]*Confusion{}
	for _, p := range pairs {
		c := &Confusion{Categories: cats, Counts: make([][]int, r.Categories)}
		for k := range c.Counts {
			c.Counts[k] = make([]int, r.Categories)
		}
		out[[2]string{p.A, p.B}] = c
		wanted[[2]int{at[p.A], at[p.B]}] = c
	}
	if len(wanted) == 0 {
		return out, nil
	}
	for u := range r.Units() {
		if u%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		coders, values := r.Row(u)
		for i := range coders {
			for j := range coders {
				c := wanted[[2]int{coders[i], coders[j]}]
				if i == j || c == nil {
					continue
				}
				x, y := values[i], values[j]
				c.Counts[x][y]++
				c.Units++
				if x == y {
					c.Same++
				}
			}
		}
	}
	return out, nil
}

// spanExamples picks, among the units where annotators differ on a span
// question, the n where a pair of them differs most: the lowest span F1
// of a pair on the unit (exact, with labels: agree's headline, on that
// unit alone). Ties, which are many where spans are few, go to a
// deterministic sample of the units (by a hash of their IDs), so that
// the examples come from across the study rather than its first units.
func spanExamples(ctx context.Context, d study.QuestionData, detail []agreement.UnitDetail, q *templates.Question, n int) ([]SpanExample, error) {
	differ := map[string]bool{}
	for _, u := range detail {
		if !u.Agree {
			differ[u.Unit] = true
		}
	}
	type candidate struct {
		unit  *agreement.SpanUnit
		f1    float64
		a, b  int
		order uint64
	}
	var all []candidate
	var coders []int
	var lists [][]agreement.Span
	for k := range d.Spans.Units {
		u := &d.Spans.Units[k]
		if !differ[u.ID] {
			continue
		}
		// A unit of many annotators has many pairs to compare.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := candidate{unit: u, f1: 2, a: -1}
		coders, lists = coders[:0], lists[:0]
		for i, l := range u.All() {
			coders, lists = append(coders, i), append(lists, sortedSpans(l))
		}
		for i := range lists {
			for j := i + 1; j < len(lists); j++ {
				if f, ok := unitF1(lists[i], lists[j]); ok && f < c.f1 {
					c.f1, c.a, c.b = f, coders[i], coders[j]
				}
			}
		}
		if c.a < 0 {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(u.ID))
		c.order = h.Sum64()
		all = append(all, c)
	}
	slices.SortFunc(all, func(x, y candidate) int {
		return cmp.Or(cmp.Compare(x.f1, y.f1), cmp.Compare(x.order, y.order), cmp.Compare(x.unit.ID, y.unit.ID))
	})
	out := []SpanExample{}
	for _, c := range all[:min(n, len(all))] {
		f1 := c.f1
		a, b := d.Spans.Coders[c.a], d.Spans.Coders[c.b]
		if b < a {
			a, b = b, a
		}
		ex := SpanExample{Unit: c.unit.ID, F1: &f1, A: a, B: b, question: q}
		for i, spans := range c.unit.All() {
			es := ExampleSpans{Annotator: d.Spans.Coders[i], Spans: []ExampleSpan{}}
			for _, s := range spans {
				es.Spans = append(es.Spans, ExampleSpan{Start: s.Start, End: s.End, Code: s.Label})
			}
			ex.Annotators = append(ex.Annotators, es)
		}
		slices.SortFunc(ex.Annotators, func(x, y ExampleSpans) int { return cmp.Compare(x.Annotator, y.Annotator) })
		out = append(out, ex)
	}
	return out, nil
}

// sortedSpans is a copy of spans sorted by start, end and label (spans
// itself when it already is).
func sortedSpans(spans []agreement.Span) []agreement.Span {
	if slices.IsSortedFunc(spans, compareSpans) {
		return spans
	}
	spans = slices.Clone(spans)
	slices.SortFunc(spans, compareSpans)
	return spans
}

func compareSpans(a, b agreement.Span) int {
	return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), cmp.Compare(a.Label, b.Label))
}

// unitF1 is the span F1 of two annotators' spans on one unit, each
// sorted by start, end and label, exact and with labels, as agree
// computes it: 2·paired / (spans of a + spans of b), spans paired one to
// one when they have the same offsets and label; false when neither
// marked a span.
func unitF1(a, b []agreement.Span) (float64, bool) {
	if len(a)+len(b) == 0 {
		return 0, false
	}
	paired := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := compareSpans(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			paired++
			i++
			j++
		}
	}
	return 2 * float64(paired) / float64(len(a)+len(b)), true
}

// spanTexts gives the spans of the examples their labels and their text
// as the annotators' records have it, and names the field they are in.
func spanTexts(t *templates.Template, recs []*records.Annotation, examples []*SpanExample) {
	if len(examples) == 0 {
		return
	}
	type key struct{ unit, annotator string }
	want := map[key]bool{}
	for _, ex := range examples {
		for _, a := range ex.Annotators {
			want[key{ex.Unit, a.Annotator}] = true
		}
	}
	// The text of each span a wanted record marks, by field and offsets.
	type span struct {
		field      string
		start, end int
	}
	texts := map[key]map[span]string{}
	add := func(k key, field string, start, end *int, text string) {
		if start == nil || end == nil {
			return
		}
		if texts[k] == nil {
			texts[k] = map[span]string{}
		}
		texts[k][span{field, *start, *end}] = text
	}
	for _, r := range recs {
		k := key{r.Unit, r.Annotator}
		if !want[k] || r.Status != records.StatusComplete {
			continue
		}
		for _, v := range r.Values {
			if sv, ok := v.(records.SpanValue); ok {
				add(k, sv.Field, sv.Start, sv.End, sv.Text)
			}
		}
		for _, s := range r.Spans {
			add(k, s.Field, s.Start, s.End, s.Text)
			for _, v := range s.Values {
				if sv, ok := v.(records.SpanValue); ok {
					add(k, sv.Field, sv.Start, sv.End, sv.Text)
				}
			}
		}
	}
	label := t.QuestionByName(t.Rows.Label)
	for _, ex := range examples {
		if ex.question != nil {
			ex.Field = ex.question.Field
		}
		for i := range ex.Annotators {
			a := &ex.Annotators[i]
			for j := range a.Spans {
				s := &a.Spans[j]
				s.Text = texts[key{ex.Unit, a.Annotator}][span{ex.Field, s.Start, s.End}]
				if s.Code != "" {
					s.Label = optionLabel(label, s.Code)
				}
			}
		}
	}
}

// TextsWanted lists, per unit, the fields whose text the span examples
// show, for AddTexts.
func (r *Report) TextsWanted() map[string][]string {
	out := map[string][]string{}
	for _, q := range r.Agreement.Questions {
		for _, ex := range q.Examples {
			if ex.Field != "" && !slices.Contains(out[ex.Unit], ex.Field) {
				out[ex.Unit] = append(out[ex.Unit], ex.Field)
			}
		}
	}
	return out
}

// excerpt bounds the text an example shows: the spans and up to
// excerptContext code points either side, at most maxExcerpt in all.
const (
	excerptContext = 200
	maxExcerpt     = 3000
)

// AddTexts gives the span examples the text their spans are in: text
// looks up a unit's field (the study's input, as generate read it), and
// reports false when it has none. A long text is cut to the part around
// the spans.
func (r *Report) AddTexts(text func(unit, field string) (string, bool)) {
	for qi := range r.Agreement.Questions {
		for k := range r.Agreement.Questions[qi].Examples {
			ex := &r.Agreement.Questions[qi].Examples[k]
			if ex.Field == "" {
				continue
			}
			s, ok := text(ex.Unit, ex.Field)
			if !ok {
				continue
			}
			runes := []rune(s)
			lo, hi := len(runes), 0
			for _, a := range ex.Annotators {
				for _, sp := range a.Spans {
					lo, hi = min(lo, sp.Start), max(hi, sp.End)
				}
			}
			if hi < lo {
				lo, hi = 0, 0
			}
			lo, hi = max(0, lo-excerptContext), min(len(runes), hi+excerptContext)
			hi = min(hi, lo+maxExcerpt)
			ex.Text, ex.Offset, ex.Length = string(runes[lo:hi]), lo, len(runes)
		}
	}
}
