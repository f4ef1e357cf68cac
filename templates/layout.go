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

// placeCheck puts the Check column among the columns: last, or, with the
// answers on the left, right after them. There it is the first column
// past the frozen part, on screen when the sheet opens and beside the
// answers it speaks of; frozen too, it would leave too little room for
// the context.
func (t *Template) placeCheck(cols []ColumnSpec, check ColumnSpec) []ColumnSpec {
	if t.Rows.Answers != AnswersLeft {
		return append(cols, check)
	}
	context := slices.IndexFunc(cols, func(c ColumnSpec) bool { return c.Role == RoleContext })
	if context < 0 {
		return append(cols, check)
	}
	return slices.Insert(cols, context, check)
}

// FrozenColumns is how many columns of the Annotate sheet stay in view at
// the left: the ID, the annotator's on the left, and, with the answers on
// the left, the answers too, so that they stay beside whichever text is
// scrolled to.
func (t *Template) FrozenColumns() int { return t.FrozenColumnsWith(ColumnOptions{}) }

// FrozenColumnsWith is FrozenColumns for the columns opt adds.
func (t *Template) FrozenColumnsWith(opt ColumnOptions) int {
	n := 1
	if t.Annotator.Position == "left" {
		n = 2
	}
	if t.Rows.Answers != AnswersLeft {
		return n
	}
	cols := t.ColumnsWith(opt)
	if i := slices.IndexFunc(cols, func(c ColumnSpec) bool { return c.Role == RoleContext || c.Role == RoleCheck }); i > n {
		return i
	}
	return n
}

// PrimarySpan is the span question whose answer is a block row's span
// (the record's span entry's field, offsets and text): the first asked on
// every row that is not anchored before another. "" when there is none.
func (t *Template) PrimarySpan() string {
	for _, q := range t.Questions {
		if q.Type == TypeSpan && q.Scope == "row" && q.Before == "" {
			return q.Name
		}
	}
	return ""
}

// RowEvidence is the evidence question asked on every row of a block,
// whose answer is a span entry's evidence; "" when there is none.
func (t *Template) RowEvidence() string {
	for _, q := range t.Questions {
		if q.Type == TypeEvidence && q.Scope == "row" {
			return q.Name
		}
	}
	return ""
}
