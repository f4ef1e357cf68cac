package compare

import (
	"reflect"
	"slices"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Trace says what the annotator whose record is got did with the answers
// the unit started from, sugg. From is left empty: the caller names the
// records sugg came from.
//
// Questions holds a state for every question of the template that sugg
// answers: kept when got has the same value, cleared when got has none,
// changed otherwise. A question only got answers is not in it: a trace is
// about what was given. Questions is never nil.
//
// Spans is nil unless the template is a block template; then it is
// always set, all zero when neither record has an answer row (no rows
// given, and none added, is a result too). The rows of the two blocks
// pair as pairRows says; a pair is kept when the two rows are the same in
// everything the annotator answers (field, offsets, text, type, evidence
// and other answers), changed otherwise. Given rows left unpaired were
// removed; the annotator's rows left unpaired were added.
//
// A nil record counts as one with no answers.
func Trace(t *templates.Template, sugg, got *records.Annotation) *records.PrefillTrace {
	given, have := valuesOf(sugg), valuesOf(got)
	tr := &records.PrefillTrace{Questions: map[string]string{}}
	for name, v := range given {
		if v == nil || t.QuestionByName(name) == nil {
			continue // not an answer to a question of the template
		}
		w, ok := have[name]
		switch {
		case !ok || w == nil:
			tr.Questions[name] = records.PrefillCleared
		case sameValue(v, w):
			tr.Questions[name] = records.PrefillKept
		default:
			tr.Questions[name] = records.PrefillChanged
		}
	}
	if t.Rows.Per == templates.PerBlock {
		a, b := spansOf(sugg), spansOf(got)
		pairs := pairRows(a, b)
		st := &records.SpanTrace{Removed: len(a) - len(pairs), Added: len(b) - len(pairs)}
		for _, p := range pairs {
			if sameRow(a[p[0]], b[p[1]]) {
				st.Kept++
			} else {
				st.Changed++
			}
		}
		tr.Spans = st
	}
	return tr
}

// Score says how well got matches the known answers gold, from 0 to 1,
// per question gold answers:
//
//   - choice, bool and scale: 1 for the same value, 0 for another;
//   - multi: the Jaccard index of the two sets of codes (two empty sets
//     are the same answer: 1);
//   - span (a question answered once per unit): 1 for the same field,
//     offsets and text, 0 otherwise;
//   - text and evidence questions are not scored: a free text, or the
//     sentences chosen to back an answer, has no one right value.
//
// A question gold answers and got does not scores 0; a question gold
// leaves unanswered is not scored.
//
// For a block template, the block's answer rows score under the name of
// the block's spans (t.Rows.Spans) as span F1: 2·pairs / (gold's rows +
// got's rows), rows paired as pairRows says. For rows that all have
// offsets, that is agreement.PairF1 with labels; a row without offsets
// (missing information) counts too, paired by its type. Two blocks with
// no row agree: 1, since gold saying there is nothing to mark is a known
// answer that an annotator who marks nothing matches.
//
// Score returns nil for a nil gold; a nil got counts as a record with no
// answers.
func Score(t *templates.Template, gold, got *records.Annotation) map[string]float64 {
	if gold == nil {
		return nil
	}
	have := valuesOf(got)
	out := map[string]float64{}
	for name, v := range gold.Values {
		q := t.QuestionByName(name)
		if v == nil || q == nil || q.Type == templates.TypeText || q.Type == templates.TypeEvidence {
			continue
		}
		w, ok := have[name]
		switch {
		case !ok || w == nil:
			out[name] = 0
		case q.Type == templates.TypeMulti:
			out[name] = setScore(v, w)
		case sameValue(v, w):
			out[name] = 1
		default:
			out[name] = 0
		}
	}
	if t.Rows.Per == templates.PerBlock && t.Rows.Spans != "" {
		out[t.Rows.Spans] = rowsF1(gold.Spans, spansOf(got))
	}
	return out
}

// valuesOf is a record's answers, none for a nil record.
func valuesOf(a *records.Annotation) map[string]any {
	if a == nil {
		return nil
	}
	return a.Values
}

// spansOf is a record's answer rows, none for a nil record.
func spansOf(a *records.Annotation) []records.SpanAnswer {
	if a == nil {
		return nil
	}
	return a.Spans
}

// setScore is the Jaccard index of two multi answers; 0 when either is
// not a list of codes.
func setScore(a, b any) float64 {
	x, okA := a.([]string)
	y, okB := b.([]string)
	if !okA || !okB {
		return 0
	}
	return agreement.JaccardIndex(x, y)
}

// sameValue reports whether two typed answers are the same: a multi's
// codes in any order, a span by field, offsets and text, evidence by
// passage and sentences (in any order); anything else by deep equality.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case []string:
		y, ok := b.([]string)
		// Equal sets have index 1 exactly: |a∩b| and |a∪b| are the same
		// integer.
		return ok && agreement.JaccardIndex(x, y) == 1
	case records.SpanValue:
		y, ok := b.(records.SpanValue)
		return ok && x.Field == y.Field && sameOffset(x.Start, y.Start) && sameOffset(x.End, y.End) && x.Text == y.Text
	case records.Evidence:
		y, ok := b.(records.Evidence)
		return ok && sameEvidence(&x, &y)
	}
	return reflect.DeepEqual(a, b)
}

// sameOffset reports whether two offsets are both absent, or both there
// and equal.
func sameOffset(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// sameEvidence reports whether two pieces of evidence point at the same
// sentences of the same passage; both absent is the same too.
func sameEvidence(a, b *records.Evidence) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Passage == b.Passage && slices.Equal(sentenceSet(a.Sentences), sentenceSet(b.Sentences))
}

// sentenceSet is the sentence numbers sorted, without repeats.
func sentenceSet(s []int) []int {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// sameRow reports whether two answer rows of a block say the same: the
// same span (field, offsets, text), type, evidence and other answers.
// Where the row sits on the sheet, and the type's label (which follows
// from its code), do not count.
func sameRow(a, b records.SpanAnswer) bool {
	if a.Field != b.Field || !sameOffset(a.Start, b.Start) || !sameOffset(a.End, b.End) ||
		a.Text != b.Text || a.Code != b.Code || !sameEvidence(a.Evidence, b.Evidence) ||
		len(a.Values) != len(b.Values) {
		return false
	}
	for name, v := range a.Values {
		w, ok := b.Values[name]
		if !ok || !sameValue(v, w) {
			return false
		}
	}
	return true
}

// hasOffsets reports whether a row marks a span where it stands in its
// field.
func hasOffsets(r records.SpanAnswer) bool {
	return r.Start != nil && r.End != nil
}

// pairRows pairs the answer rows of two blocks one to one, as indexes
// into a and b. Rows with offsets pair by agreement.PairSpans with
// labels, as span_f1 with match overlap pairs spans: by the most
// characters in common, and only within the same field and the same type
// (code), so a span whose type changed counts as removed and another
// added. Rows without offsets (missing information, or a text not found
// in its field) have no place to overlap: each pairs with the first row
// without offsets of the same type not yet paired, in row order.
func pairRows(a, b []records.SpanAnswer) [][2]int {
	var spansA, spansB []agreement.Span
	var atA, atB, bareA, bareB []int
	split := func(rows []records.SpanAnswer, spans *[]agreement.Span, at, bare *[]int) {
		for i, r := range rows {
			if !hasOffsets(r) {
				*bare = append(*bare, i)
				continue
			}
			// The label is the field and the code: spans of different
			// fields never pair, whatever their offsets.
			*spans = append(*spans, agreement.Span{Start: *r.Start, End: *r.End, Label: r.Field + "\x00" + r.Code})
			*at = append(*at, i)
		}
	}
	split(a, &spansA, &atA, &bareA)
	split(b, &spansB, &atB, &bareB)

	var out [][2]int
	for _, p := range agreement.PairSpans(spansA, spansB, true) {
		out = append(out, [2]int{atA[p[0]], atB[p[1]]})
	}
	used := make([]bool, len(b))
	for _, i := range bareA {
		for _, j := range bareB {
			if !used[j] && a[i].Code == b[j].Code {
				used[j] = true
				out = append(out, [2]int{i, j})
				break
			}
		}
	}
	return out
}

// rowsF1 is the span F1 of two blocks' rows paired by pairRows; two
// blocks with no row agree: 1.
func rowsF1(a, b []records.SpanAnswer) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	return 2 * float64(len(pairRows(a, b))) / float64(len(a)+len(b))
}
