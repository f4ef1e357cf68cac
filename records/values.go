package records

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annosheet/annosheet/templates"
)

// ValueError is an answer in a canonical record that its question cannot
// have: a scale of "abc", a multi that is not a list, a code that is not
// among the options.
type ValueError struct {
	Question string // the question's name
	Value    any    // the answer as given
	Reason   string // what is wrong with it
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("question %q: %s %s", e.Question, valueText(e.Value), e.Reason)
}

// valueText shows a value as JSON, as the record has it.
func valueText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// TypedRecord returns a record read back from JSON with its answers in the
// forms Pull gives them (see TypedValues): its values and the values of
// each span row. The record passed in is not changed.
func TypedRecord(t *templates.Template, a *Annotation) (*Annotation, error) {
	out := *a
	var err error
	if out.Values, err = TypedValues(t, a.Values); err != nil {
		return nil, err
	}
	if a.Spans != nil {
		out.Spans = make([]SpanAnswer, len(a.Spans))
		for i, s := range a.Spans {
			if reason := spanAnswerProblem(t, s); reason != "" {
				return nil, &SpanError{Index: i, Row: s.Row, Reason: reason}
			}
			if s.Values, err = TypedValues(t, s.Values); err != nil {
				return nil, fmt.Errorf("span row %d: %w", s.Row, err)
			}
			out.Spans[i] = s
		}
	}
	if err := checkTrace(t, a); err != nil {
		return nil, err
	}
	return &out, nil
}

// checkTrace refuses a prefill trace or a control score that pull cannot
// have made: a question the template does not have, a state other than
// kept, changed or cleared, a negative span count, a score outside 0 to 1.
func checkTrace(t *templates.Template, a *Annotation) error {
	if p := a.Prefill; p != nil {
		if p.From == "" {
			return fmt.Errorf("prefill: no \"from\": the records the unit started from are not named")
		}
		for _, q := range slices.Sorted(maps.Keys(p.Questions)) {
			if t.QuestionByName(q) == nil {
				return fmt.Errorf("prefill: question %q is no question of template %s", q, t.Name)
			}
			switch st := p.Questions[q]; st {
			case PrefillKept, PrefillChanged, PrefillCleared:
			default:
				return fmt.Errorf("prefill: question %q is %q, not kept, changed or cleared", q, st)
			}
		}
		if s := p.Spans; s != nil && (s.Kept < 0 || s.Changed < 0 || s.Removed < 0 || s.Added < 0) {
			return fmt.Errorf("prefill: a negative count of spans (%d kept, %d changed, %d removed, %d added)", s.Kept, s.Changed, s.Removed, s.Added)
		}
	}
	for _, q := range slices.Sorted(maps.Keys(a.ControlScore)) {
		// A block's spans are scored under the name the records give
		// them (rows.spans), which is no question's.
		if t.QuestionByName(q) == nil && (q != t.Rows.Spans || t.Rows.Spans == "") {
			return fmt.Errorf("control_score: question %q is no question of template %s", q, t.Name)
		}
		if v := a.ControlScore[q]; !(v >= 0 && v <= 1) {
			return fmt.Errorf("control_score: question %q scores %v, not between 0 and 1", q, v)
		}
	}
	return nil
}

// MaxOffset bounds a span's offsets as a record gives them: no text an
// annotator reads is a billion characters long.
const MaxOffset = 1 << 30

// SpanError is a record's span that cannot be what pull makes: offsets
// out of order or of another length than its text, another template's
// spans, a label or evidence the template does not have.
type SpanError struct {
	Index  int // in the record's spans, from 0
	Row    int // the row it says it came from
	Reason string
}

func (e *SpanError) Error() string {
	return fmt.Sprintf("span %d (row %d) %s", e.Index+1, e.Row, e.Reason)
}

// spanAnswerProblem says what is wrong with one span of a record, as the
// template reads spans; "" when nothing is.
func spanAnswerProblem(t *templates.Template, s SpanAnswer) string {
	if t.Rows.Spans == "" || t.Rows.Per != templates.PerBlock {
		return fmt.Sprintf("is a span of a block, which template %s does not have", t.Name)
	}
	if s.Question != t.Rows.Spans {
		return fmt.Sprintf("is of %q, not of the template's spans %q", s.Question, t.Rows.Spans)
	}
	if (s.Start == nil) != (s.End == nil) {
		return "has a start without an end, or an end without a start"
	}
	if s.Start != nil {
		start, end := *s.Start, *s.End
		switch {
		case start < 0 || end < start:
			return fmt.Sprintf("has offsets %d to %d: they must be 0 <= start <= end", start, end)
		case end > MaxOffset:
			return fmt.Sprintf("has offsets %d to %d, past any text", start, end)
		case utf8.RuneCountInString(s.Text) != end-start:
			return fmt.Sprintf("has offsets %d to %d for a text of %d characters", start, end, utf8.RuneCountInString(s.Text))
		}
		var field string
		for i := range t.Questions {
			if q := &t.Questions[i]; q.Type == templates.TypeSpan && q.Scope != "block" {
				field = q.Field
				break
			}
		}
		if s.Field != field {
			return fmt.Sprintf("is in %q, not in the field %q the template's spans are in", s.Field, field)
		}
	}
	if s.Code != "" && t.Rows.Label != "" {
		if q := t.QuestionByName(t.Rows.Label); q != nil && q.Option(s.Code) == nil {
			return fmt.Sprintf("has the label %q, which is not one of the codes %s", s.Code, codeList(q))
		}
	}
	if e := s.Evidence; e != nil {
		if e.Passage < 1 {
			return fmt.Sprintf("has evidence in passage %d; passages are numbered from 1", e.Passage)
		}
		for _, k := range e.Sentences {
			if k < 0 {
				return fmt.Sprintf("has evidence in sentence %d; sentences are numbered from 0", k)
			}
		}
	}
	return ""
}

// TypedValues types the answers of a canonical record as a JSON decoder
// gives them (strings, bools, json.Number or float64, []any and
// map[string]any) into the forms Pull puts in Annotation.Values, driven by
// the template's questions: a choice's code as a string, a multi's codes
// as a sorted []string, a scale's int, a bool, a text's string, a span's
// SpanValue and an evidence question's Evidence. Answers already in those
// forms are kept. The result is a new map (nil for nil); the error is a
// *ValueError, for the first bad answer in the order of the questions'
// names.
func TypedValues(t *templates.Template, values map[string]any) (map[string]any, error) {
	if values == nil {
		return nil, nil
	}
	out := make(map[string]any, len(values))
	for _, name := range slices.Sorted(maps.Keys(values)) {
		v := values[name]
		q := t.QuestionByName(name)
		if q == nil {
			return nil, &ValueError{Question: name, Value: v, Reason: fmt.Sprintf("answers no question of template %s", t.Name)}
		}
		tv, reason := typedValue(q, v)
		if reason != "" {
			return nil, &ValueError{Question: name, Value: v, Reason: reason}
		}
		out[name] = tv
	}
	return out, nil
}

// codeAsText says, of a number or a bool given where a code goes, the
// code it would be as text, when the question has one: codes are text,
// and a model's labels often write them as numbers.
func codeAsText(q *templates.Question, v any) string {
	switch v.(type) {
	case json.Number, float64, int, bool:
		if t := valueText(v); q.Option(t) != nil {
			return fmt.Sprintf("; codes are text: write %q", t)
		}
	}
	return ""
}

// typedValue types one answer, or says why it cannot.
func typedValue(q *templates.Question, v any) (any, string) {
	switch q.Type {
	case templates.TypeChoice:
		code, ok := v.(string)
		if !ok {
			return nil, "is not a code" + codeAsText(q, v)
		}
		if q.Option(code) == nil {
			return nil, "is not one of the codes " + codeList(q) + q.SuggestCode(code)
		}
		return code, ""
	case templates.TypeMulti:
		var codes []string
		switch l := v.(type) {
		case []string:
			codes = slices.Clone(l)
		case []any:
			for _, x := range l {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Sprintf("holds %s, which is not a code%s", valueText(x), codeAsText(q, x))
				}
				codes = append(codes, s)
			}
		default:
			return nil, "is not a list of codes"
		}
		for i, c := range codes {
			if q.Option(c) == nil {
				return nil, fmt.Sprintf("holds %q, which is not one of the codes %s%s", c, codeList(q), q.SuggestCode(c))
			}
			if slices.Contains(codes[:i], c) {
				return nil, fmt.Sprintf("holds %q twice", c)
			}
		}
		slices.Sort(codes)
		if codes == nil {
			codes = []string{}
		}
		return codes, ""
	case templates.TypeScale:
		n, ok := wholeNumber(v)
		if !ok {
			return nil, "is not a whole number"
		}
		if q.Min != nil && q.Max != nil && (n < *q.Min || n > *q.Max) {
			return nil, fmt.Sprintf("is outside the scale %d to %d", *q.Min, *q.Max)
		}
		return n, ""
	case templates.TypeBool:
		b, ok := v.(bool)
		if !ok {
			return nil, "is not true or false"
		}
		return b, ""
	case templates.TypeText:
		s, ok := v.(string)
		if !ok {
			return nil, "is not a text"
		}
		return s, ""
	case templates.TypeSpan:
		return typedSpan(q, v)
	case templates.TypeEvidence:
		return typedEvidence(v)
	}
	return nil, fmt.Sprintf("is the answer to a question of type %q, which a record cannot hold", q.Type)
}

func codeList(q *templates.Question) string {
	var codes []string
	for _, o := range q.Options {
		codes = append(codes, strconv.Quote(o.Code))
	}
	return strings.Join(codes, ", ")
}

// wholeNumber reads an integer as JSON decoding gives it.
func wholeNumber(v any) (int, bool) {
	var f float64
	switch v := v.(type) {
	case int:
		return v, true
	case json.Number:
		if n, err := strconv.Atoi(string(v)); err == nil {
			return n, true
		}
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = v
	default:
		return 0, false
	}
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) || math.Abs(f) > 1e15 {
		return 0, false
	}
	return int(f), true
}

// fields checks that an object has only the keys given, and the required
// ones among them.
func fields(v any, required []string, optional ...string) (map[string]any, string) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "is not an object"
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return nil, fmt.Sprintf("has no %q", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(required, k) && !slices.Contains(optional, k) {
			return nil, fmt.Sprintf("has %q, which a %s has not", k, strings.Join(slices.Concat(required, optional), "/"))
		}
	}
	return m, ""
}

// typedSpan reads a span answer: {field, start, end, text}, offsets in
// code points, both or neither.
func typedSpan(q *templates.Question, v any) (any, string) {
	if s, ok := v.(SpanValue); ok {
		return s, ""
	}
	m, reason := fields(v, []string{"field", "text"}, "start", "end")
	if reason != "" {
		return nil, reason
	}
	var s SpanValue
	var ok bool
	if s.Field, ok = m["field"].(string); !ok || s.Field != q.Field {
		return nil, fmt.Sprintf("is not in the question's field %q", q.Field)
	}
	if s.Text, ok = m["text"].(string); !ok {
		return nil, "has a text that is not a string"
	}
	_, hasStart := m["start"]
	_, hasEnd := m["end"]
	if hasStart != hasEnd {
		return nil, "has a start without an end, or an end without a start"
	}
	if hasStart {
		start, ok1 := wholeNumber(m["start"])
		end, ok2 := wholeNumber(m["end"])
		if !ok1 || !ok2 || start < 0 || end < start {
			return nil, "has no offsets 0 <= start <= end"
		}
		s.Start, s.End = &start, &end
	}
	return s, ""
}

// typedEvidence reads an evidence answer: {passage, sentences}, passages
// numbered from 1, sentences from 0; the sentences come back sorted.
func typedEvidence(v any) (any, string) {
	if e, ok := v.(Evidence); ok {
		return e, ""
	}
	m, reason := fields(v, []string{"passage", "sentences"})
	if reason != "" {
		return nil, reason
	}
	var e Evidence
	var ok bool
	if e.Passage, ok = wholeNumber(m["passage"]); !ok || e.Passage < 1 {
		return nil, "has no passage number from 1"
	}
	switch l := m["sentences"].(type) {
	case nil:
	case []any:
		e.Sentences = []int{}
		for _, x := range l {
			n, ok := wholeNumber(x)
			if !ok || n < 0 {
				return nil, fmt.Sprintf("has sentence %s, which is not a sentence number from 0", valueText(x))
			}
			e.Sentences = append(e.Sentences, n)
		}
		slices.Sort(e.Sentences)
	default:
		return nil, "has sentences that are not a list"
	}
	return e, ""
}

// SpanTextProblems says which spans of a record do not stand where they
// say in the texts they were found in: fields are the unit's span fields
// by name (SourceItem.Fields of the unit), as the study's inputs give
// them. A span whose offsets run past its field's end, or whose text is
// not the field's text at its offsets, is a problem; so is a span of a
// field the unit does not have. Spans without offsets are not checked.
func SpanTextProblems(rec *Annotation, fields map[string]string) []string {
	runes := map[string][]rune{}
	var out []string
	check := func(what, field string, start, end *int, text string) {
		if start == nil || end == nil {
			return
		}
		f, ok := fields[field]
		if !ok {
			out = append(out, fmt.Sprintf("%s is in %q, a field the unit's input does not have", what, field))
			return
		}
		r, ok := runes[field]
		if !ok {
			r = []rune(f)
			runes[field] = r
		}
		switch {
		case *start < 0 || *end < *start:
			out = append(out, fmt.Sprintf("%s has offsets %d to %d", what, *start, *end))
		case *end > len(r):
			out = append(out, fmt.Sprintf("%s ends at %d, past the end of %s (%d characters)", what, *end, field, len(r)))
		case string(r[*start:*end]) != text:
			out = append(out, fmt.Sprintf("%s says %q, but %s has %q at %d to %d", what, text, field, string(r[*start:*end]), *start, *end))
		}
	}
	values := func(where string, vs map[string]any) {
		for _, name := range slices.Sorted(maps.Keys(vs)) {
			if v, ok := vs[name].(SpanValue); ok {
				check(where+fmt.Sprintf("question %q", name), v.Field, v.Start, v.End, v.Text)
			}
		}
	}
	values("", rec.Values)
	for i, s := range rec.Spans {
		what := fmt.Sprintf("span %d (row %d)", i+1, s.Row)
		check(what, s.Field, s.Start, s.End, s.Text)
		values(what+": ", s.Values)
	}
	return out
}
