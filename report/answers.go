package report

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Answers are the answers one question got, annotator by annotator, from
// every complete and partial record: a unit's answer, or for a question
// asked on every answer row of a block, each row's.
type Answers struct {
	Name   string `json:"name"`
	Header string `json:"header"`
	Type   string `json:"type"`
	// Per is what one answer belongs to: "unit", or "row" (an answer row
	// of a block).
	Per string `json:"per"`
	// Answered counts each annotator's answers (in the order of
	// Report.Annotators).
	Answered []int   `json:"answered"`
	Charts   []Chart `json:"charts"`
}

// Chart is a distribution: how many of each annotator's answers fall in
// each category.
type Chart struct {
	Title string `json:"title"`
	// Histogram says the categories are ordered values (a scale's
	// levels, lengths), drawn as columns.
	Histogram  bool       `json:"histogram,omitempty"`
	Categories []Category `json:"categories"`
	// Counts[c][a] counts category c among annotator a's answers.
	Counts [][]int `json:"counts"`
	// Totals[a] is what annotator a's counts are shares of.
	Totals []int `json:"totals"`
}

// Category is one bar of a chart: a code (an option's, a level) and what
// the page calls it.
type Category struct {
	Code  string `json:"code,omitempty"`
	Label string `json:"label"`
}

// lengthBuckets bound the lengths, in characters, that charts of text
// and span lengths group: up to 5, 6 to 10, and so on, and more than the
// last.
var lengthBuckets = []int{5, 10, 20, 50, 100, 200, 500}

// lengthCategories name the buckets.
func lengthCategories() []Category {
	var out []Category
	lo := 1
	for _, hi := range lengthBuckets {
		out = append(out, Category{Label: fmt.Sprintf("%d–%d", lo, hi)})
		lo = hi + 1
	}
	return append(out, Category{Label: fmt.Sprintf("over %d", lengthBuckets[len(lengthBuckets)-1])})
}

// lengthBucket is the bucket of a length of at least 1.
func lengthBucket(n int) int {
	for i, hi := range lengthBuckets {
		if n <= hi {
			return i
		}
	}
	return len(lengthBuckets)
}

// tally counts the answers of one chart while they are read: categories
// known in advance, and others as they come (sorted at the end).
type tally struct {
	chart   Chart
	at      map[string]int
	fixed   int // categories declared; later ones are sorted
	numeric bool
}

func newTally(title string, annotators int, cats []Category) *tally {
	t := &tally{chart: Chart{Title: title, Totals: make([]int, annotators)}, at: map[string]int{}}
	for _, c := range cats {
		t.category(c.Code, c.Label)
	}
	t.fixed = len(t.chart.Categories)
	return t
}

// category is the index of the category with a code (made on first use).
func (t *tally) category(code, label string) int {
	key := code
	if key == "" {
		key = "\x00" + label
	}
	if i, ok := t.at[key]; ok {
		return i
	}
	t.at[key] = len(t.chart.Categories)
	t.chart.Categories = append(t.chart.Categories, Category{Code: code, Label: label})
	t.chart.Counts = append(t.chart.Counts, make([]int, len(t.chart.Totals)))
	return t.at[key]
}

func (t *tally) add(cat, annotator int) { t.chart.Counts[cat][annotator]++ }

// done sorts the categories found beyond the declared ones (by number
// when numeric) and returns the chart.
func (t *tally) done() Chart {
	c := t.chart
	extra := make([]int, 0, len(c.Categories)-t.fixed)
	for i := t.fixed; i < len(c.Categories); i++ {
		extra = append(extra, i)
	}
	slices.SortFunc(extra, func(a, b int) int {
		if t.numeric {
			x, _ := strconv.Atoi(c.Categories[a].Code)
			y, _ := strconv.Atoi(c.Categories[b].Code)
			if x != y {
				return x - y
			}
		}
		if c.Categories[a].Label < c.Categories[b].Label {
			return -1
		}
		if c.Categories[a].Label > c.Categories[b].Label {
			return 1
		}
		return 0
	})
	cats, counts := c.Categories[:t.fixed:t.fixed], c.Counts[:t.fixed:t.fixed]
	for _, i := range extra {
		cats = append(cats, c.Categories[i])
		counts = append(counts, c.Counts[i])
	}
	c.Categories, c.Counts = cats, counts
	if c.Categories == nil {
		c.Categories, c.Counts = []Category{}, [][]int{}
	}
	return c
}

// answers counts every question's answers, annotator by annotator.
func answers(t *templates.Template, recs []*records.Annotation, annotators []string) []Answers {
	at := map[string]int{}
	for i, a := range annotators {
		at[a] = i
	}
	var primary, rowEvidence string
	for _, q := range t.Questions {
		if t.Rows.Per != templates.PerBlock || q.Scope != "row" {
			continue
		}
		if q.Type == templates.TypeSpan && q.Before == "" && primary == "" {
			primary = q.Name
		}
		if q.Type == templates.TypeEvidence && rowEvidence == "" {
			rowEvidence = q.Name
		}
	}
	out := []Answers{}
	for i := range t.Questions {
		q := &t.Questions[i]
		rows := t.Rows.Per == templates.PerBlock && q.Scope == "row"
		a := Answers{Name: q.Name, Header: q.Header, Type: q.Type, Per: "unit", Answered: make([]int, len(annotators))}
		if rows {
			a.Per = "row"
		}
		c := newCounter(t, q, len(annotators))
		for _, r := range recs {
			if !counted(r) {
				continue
			}
			who := at[r.Annotator]
			if !rows {
				v, ok := r.Values[q.Name]
				if !ok && q.Type == templates.TypeMulti && r.Status == records.StatusComplete {
					v, ok = []string{}, true // nothing ticked on a complete unit: the empty selection
				}
				if ok && c.add(v, "", who) {
					a.Answered[who]++
				}
				continue
			}
			for _, s := range r.Spans {
				v, ok, label := rowAnswer(t, q, s, primary, rowEvidence)
				if ok && c.add(v, label, who) {
					a.Answered[who]++
				}
			}
		}
		a.Charts = c.charts()
		out = append(out, a)
	}
	return out
}

// rowAnswer is an answer row's answer to question q (the block's span
// question, its label question, its evidence question, or another): its
// value, whether it has one, and for the span question the row's label.
func rowAnswer(t *templates.Template, q *templates.Question, s records.SpanAnswer, primary, evidence string) (any, bool, string) {
	switch q.Name {
	case primary:
		if s.Start == nil && s.Text == "" {
			return nil, false, ""
		}
		return records.SpanValue{Field: s.Field, Start: s.Start, End: s.End, Text: s.Text}, true, s.Code
	case t.Rows.Label:
		return s.Code, s.Code != "", ""
	case evidence:
		return s.Evidence, s.Evidence != nil, ""
	}
	v, ok := s.Values[q.Name]
	return v, ok, ""
}

// counter makes the charts of one question.
type counter struct {
	q       *templates.Question
	t       *templates.Template
	main    *tally // the answers' distribution
	lengths *tally // text and span lengths
}

func newCounter(t *templates.Template, q *templates.Question, annotators int) *counter {
	c := &counter{q: q, t: t}
	var cats []Category
	for _, o := range q.Options {
		cats = append(cats, Category{Code: o.Code, Label: optionLabel(q, o.Code)})
	}
	switch q.Type {
	case templates.TypeChoice:
		c.main = newTally("answers", annotators, cats)
	case templates.TypeMulti:
		c.main = newTally("units selecting each option", annotators, append(cats, Category{Code: "", Label: "(none selected)"}))
	case templates.TypeBool:
		c.main = newTally("answers", annotators, []Category{{Code: "true", Label: "yes"}, {Code: "false", Label: "no"}})
	case templates.TypeScale:
		var levels []Category
		if q.Min != nil && q.Max != nil {
			for v := *q.Min; v <= *q.Max; v++ {
				if q.Unanswered == nil || v != *q.Unanswered {
					levels = append(levels, Category{Code: strconv.Itoa(v), Label: strconv.Itoa(v)})
				}
			}
		}
		c.main = newTally("ratings", annotators, levels)
		c.main.numeric = true
		c.main.chart.Histogram = true
	case templates.TypeEvidence:
		c.main = newTally("passages cited", annotators, nil)
		c.main.numeric = true
	case templates.TypeText:
		c.lengths = newTally("length of the answer (characters)", annotators, lengthCategories())
	case templates.TypeSpan:
		if label := t.QuestionByName(t.Rows.Label); label != nil && q.Name == primarySpan(t) {
			var types []Category
			for _, o := range label.Options {
				types = append(types, Category{Code: o.Code, Label: optionLabel(label, o.Code)})
			}
			c.main = newTally("spans per "+label.Header, annotators, types)
		}
		c.lengths = newTally("span length (characters)", annotators, lengthCategories())
	}
	if c.lengths != nil {
		c.lengths.chart.Histogram = true
	}
	return c
}

// primarySpan is the span question of a block's answer rows (the one the
// records' spans carry), "" when the template has no block.
func primarySpan(t *templates.Template) string {
	if t.Rows.Per != templates.PerBlock {
		return ""
	}
	for _, q := range t.Questions {
		if q.Type == templates.TypeSpan && q.Scope == "row" && q.Before == "" {
			return q.Name
		}
	}
	return ""
}

// add counts one answer of annotator who; label is a span row's label.
// It reports whether the value is an answer (a scale's "not yet
// answered" value is not).
func (c *counter) add(v any, label string, who int) bool {
	switch x := v.(type) {
	case string:
		if c.q.Type == templates.TypeText {
			if n := utf8.RuneCountInString(x); n > 0 {
				c.lengths.add(lengthBucket(n), who)
				c.lengths.chart.Totals[who]++
				return true
			}
			return false
		}
		c.count(c.main.category(x, optionLabel(c.q, x)), who)
	case bool:
		c.count(c.main.category(strconv.FormatBool(x), strconv.FormatBool(x)), who)
	case int:
		if c.q.Unanswered != nil && x == *c.q.Unanswered {
			return false
		}
		c.count(c.main.category(strconv.Itoa(x), strconv.Itoa(x)), who)
	case []string:
		if len(x) == 0 {
			c.main.add(c.main.category("", "(none selected)"), who)
		}
		for _, code := range x {
			c.main.add(c.main.category(code, optionLabel(c.q, code)), who)
		}
		c.main.chart.Totals[who]++
	case records.Evidence:
		c.evidence(x, who)
	case *records.Evidence:
		if x == nil {
			return false
		}
		c.evidence(*x, who)
	case records.SpanValue:
		c.span(x, label, who)
	case *records.SpanValue:
		if x == nil {
			return false
		}
		c.span(*x, label, who)
	default:
		return false
	}
	return true
}

// count counts a one-category answer.
func (c *counter) count(cat, who int) {
	c.main.add(cat, who)
	c.main.chart.Totals[who]++
}

func (c *counter) evidence(e records.Evidence, who int) {
	p := strconv.Itoa(e.Passage)
	c.count(c.main.category(p, "passage "+p), who)
}

// span counts a span by its label (when the question has labels) and by
// its length: the characters between its offsets, or of its text when it
// was not found.
func (c *counter) span(s records.SpanValue, label string, who int) {
	if c.main != nil {
		code, name := label, optionLabel(c.t.QuestionByName(c.t.Rows.Label), label)
		if label == "" {
			name = "(no type)"
		}
		c.count(c.main.category(code, name), who)
	}
	n := utf8.RuneCountInString(s.Text)
	if s.Start != nil && s.End != nil {
		n = *s.End - *s.Start
	}
	if n > 0 {
		c.lengths.add(lengthBucket(n), who)
		c.lengths.chart.Totals[who]++
	}
}

// charts are the question's charts, made.
func (c *counter) charts() []Chart {
	out := []Chart{}
	for _, t := range []*tally{c.main, c.lengths} {
		if t != nil {
			out = append(out, t.done())
		}
	}
	return out
}
