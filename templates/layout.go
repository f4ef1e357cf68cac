package templates

import "slices"

// Places of the answer columns (Rows.Answers).
const (
	AnswersLeft  = "left"  // right after the ID column, frozen with it
	AnswersRight = "right" // after the context
)

func (k *checker) answersAt() {
	switch r := &k.t.Rows; r.Answers {
	case "", AnswersLeft, AnswersRight:
	default:
		k.c.add(r.Line, "rows: answers %q is not left or right", r.Answers)
	}
}

// placeAnswers puts the context columns after every other column laid out
// so far when the answers go on the left: the ID (and the annotator, on
// the left), then the answers, then the context.
func (t *Template) placeAnswers(cols []ColumnSpec) []ColumnSpec {
	if t.Rows.Answers != AnswersLeft {
		return cols
	}
	isContext := func(c ColumnSpec) bool { return c.Role == RoleContext }
	out := slices.DeleteFunc(slices.Clone(cols), isContext)
	for _, c := range cols {
		if isContext(c) {
			out = append(out, c)
		}
	}
	return out
}
