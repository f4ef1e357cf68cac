package mapping

import "github.com/annosheet/annosheet/templates"

// frozenCols is how many columns of the Annotate sheet stay in view at the
// left: those the layout freezes anyway (the ID, and the annotator's on
// the left) and, with the answers on the left, every column before the
// context, so that the answers stay beside whichever text is scrolled to.
func (b *builder) frozenCols(freeze int) int {
	if b.t.Rows.Answers != templates.AnswersLeft {
		return freeze
	}
	for i, c := range b.cols {
		if c.Role == templates.RoleContext {
			return max(freeze, i)
		}
	}
	return freeze
}
