package layout

import (
	"fmt"
	"strings"

	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/templates"
)

// What the Instructions sheet says about the Annotate sheet follows from
// how the sheet is drawn: the fills and locks of its cells (the same
// style values annotateSheet uses), its frozen columns, and its columns.

// colourGuide says which cells take answers and what the colours mean.
func (b *builder) colourGuide() string {
	t := b.t
	var s strings.Builder
	var answer *templates.ColumnSpec
	for i := range b.cols {
		if b.cols[i].Role == templates.RoleAnswer {
			answer = &b.cols[i]
			break
		}
	}
	bands := wordList(colourNames(t.Bands.Palette), "and")
	ctx := colourName(styleContext.Fill)
	if t.Bands.Columns == "row" {
		// Answer cells take the band's fill (itemRows).
		fmt.Fprintf(&s, "Answer in the coloured cells. Each group of rows has a colour of its own (%s, in turn), from its %q cell across its answer cells and its %q cell; the colour changes with the next group.", bands, t.Rows.IDHeader, t.Annotator.Header)
	} else {
		fill := ""
		if answer != nil {
			fill = answerStyle(*answer).Fill
		}
		fmt.Fprintf(&s, "Answer in the %s cells. The colour of the %q column (%s, in turn) changes whenever a new group of rows starts.", colourName(fill), t.Rows.IDHeader, bands)
	}
	var open []string
	for _, c := range b.cols {
		if c.Role == templates.RoleContext && t.SpanSource(c.Context) {
			open = append(open, fmt.Sprintf("%q", c.Header))
		}
	}
	fmt.Fprintf(&s, " The %s columns show what you judge; they are locked", ctx)
	if len(open) > 0 {
		fmt.Fprintf(&s, ", except %s, from which you copy text", wordList(open, "and"))
	}
	s.WriteString(".")
	var once []string
	for _, q := range t.Questions {
		if q.Scope == "block" {
			once = append(once, fmt.Sprintf("%q", q.Header))
		}
	}
	if len(once) > 0 && t.Rows.Per == templates.PerBlock {
		fmt.Fprintf(&s, " %s %s answered once per block, on its first row; below it the cells are %s and locked.", wordList(once, "and"), words.Pick(len(once), "is", "are"), colourName(fillNA))
	}
	return s.String()
}

// frozenGuide says what stays in view while the sheet scrolls.
func (b *builder) frozenGuide() string {
	freeze := b.t.FrozenColumnsWith(b.colOpt)
	var names []string
	answers := false
	for _, c := range b.cols[:min(freeze, len(b.cols))] {
		if c.Role == templates.RoleSuggestion {
			continue // hidden
		}
		if c.Role == templates.RoleAnswer {
			answers = true
			continue
		}
		names = append(names, fmt.Sprintf("%q", c.Header))
	}
	if answers {
		names = append(names, "answer")
		return fmt.Sprintf("The header row stays at the top, and the %s columns stay at the left while you scroll right through the texts.", wordList(names, "and"))
	}
	return fmt.Sprintf("The header row stays at the top, and the %s %s at the left, while you scroll.", wordList(names, "and"), words.Pick(len(names), "column stays", "columns stay"))
}

// annotatorGuide says what to do with the annotator column.
func (b *builder) annotatorGuide() string {
	t := b.t
	switch {
	case b.checkMark():
		return fmt.Sprintf("Once you have checked a row's answers, write your annotator ID in its %q column, even if you keep every suggested answer: a row without it counts as not yet done.", t.Annotator.Header)
	case b.opt.Annotator != "":
		return fmt.Sprintf("Your annotator ID, %s, is filled in for you in the %q column: this workbook is yours alone.", b.opt.Annotator, t.Annotator.Header)
	case t.Annotator.Claim == templates.ClaimInstance:
		return fmt.Sprintf("Write your annotator ID in the %q column on every row of each instance you take, so that nobody else takes it. One instance, one annotator.", t.Annotator.Header)
	}
	return fmt.Sprintf("Write your annotator ID in the %q column on every row you annotate.", t.Annotator.Header)
}

// spanGuide says how to copy spans from each context column they come
// from, and how to use the occurrence column.
func (b *builder) spanGuide() []string {
	t := b.t
	var out []string
	for _, cx := range t.Context {
		var spans, occ []string
		for _, q := range t.Questions {
			if q.Type != templates.TypeSpan || q.Field != cx.Name {
				continue
			}
			spans = append(spans, fmt.Sprintf("%q", q.Header))
			if q.Occurrence {
				occ = append(occ, fmt.Sprintf("%q", q.Header+": occurrence"))
			}
		}
		if len(spans) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("Copy the text of %s exactly from %q: click into the %q cell (or press F2), select the part you need and copy it; do not retype it. Changes you make to %q itself are ignored.", wordList(spans, "and"), cx.Header, cx.Header, cx.Header))
		if len(occ) > 0 {
			out = append(out, fmt.Sprintf("If the text you copy occurs more than once in %q, say which one you mean in %s, counting from the start: in \"the cat saw the dog\", the second \"the\" is occurrence 2. Leave it empty when the text occurs once.", cx.Header, wordList(occ, "or")))
		}
	}
	return out
}

// checkGuide explains the live "Check" column, where the sheet has one:
// one paragraph for the how-to, with an example from the template's own
// checks, and its row of the Columns table.
func (b *builder) checkGuide() (howTo string, kind, what string) {
	for _, c := range b.cols {
		if c.Role != templates.RoleCheck {
			continue
		}
		howTo = fmt.Sprintf("The %q column says, as you work, what a row still misses or breaks: a required answer missing, a rule broken, a span not found where it was copied from. The cells concerned turn %s (an error) or %s (missing, or worth a second look); both go away once the row is right.", c.Header, colourName(fillCheckError), colourName(fillCheckWarning))
		if ex := b.checkExample(); ex != "" {
			howTo += " " + ex
		}
		howTo += " It fills itself in, so leave it as it is; an application that does not compute formulas leaves it empty, and the coordinator's checks still run."
		return howTo, "check", "Filled in by the sheet as you work: what the row still misses or breaks; empty when the row is fine."
	}
	return "", "", ""
}

// checkExample is one of the template's live checks in words: a rule
// with a check of its own, else a required answer.
func (b *builder) checkExample() string {
	for _, r := range b.t.Rules {
		if r.Check != "" && r.Check != r.Message {
			return fmt.Sprintf("For example, %q means: %s.", r.Check, strings.TrimSuffix(r.Message, "."))
		}
	}
	for _, q := range b.t.Questions {
		if q.Required {
			return fmt.Sprintf("For example, %q means that a row you have started has no answer in %q yet.", q.Header+" missing", q.Header)
		}
	}
	return ""
}

// guide describes a column for the Columns table (kind "" skips it):
// columnGuide, with what the workbook itself decides (an annotator filled
// in, the live check).
func (b *builder) guide(c templates.ColumnSpec) (kind, what, req string) {
	switch {
	case c.Role == templates.RoleCheck:
		_, kind, what = b.checkGuide()
		return kind, what, ""
	case c.Role == templates.RoleSuggestion && b.colOpt.Suggestions:
		return "suggestion", "The answer suggested for the question to its right, to agree with or not; locked, and not filled in.", ""
	case c.Role == templates.RoleAnnotator && b.checkMark():
		return "your ID", "Your annotator ID, once you have checked the row's answers.", "yes"
	case c.Role == templates.RoleAnnotator && b.opt.Annotator != "":
		return "your ID", "Your annotator ID, filled in for you.", ""
	case c.Role == templates.RoleContext && b.t.SpanSource(c.Context):
		kind, what, req = columnGuide(b.t, c)
		return kind, what + " Not locked: select the part you need and copy it; changes made here are ignored.", req
	}
	return columnGuide(b.t, c)
}

// questionGuide is the row of the Columns table that stands for a
// question shown in several columns, above them: a multi question shown
// as checkboxes is required as a whole (at least one box ticked), never
// box by box. ok is false for other columns.
func questionGuide(t *templates.Template, c templates.ColumnSpec) (cells []string, ok bool) {
	q := c.Question
	if c.Role != templates.RoleAnswer || c.Option == nil || &q.Options[0] != c.Option {
		return nil, false
	}
	what := strings.TrimSpace(q.Description + " One checkbox column for each option, below: tick every one that applies.")
	req := requiredGuide(t, q)
	if req != "" {
		req += ": tick at least one"
	}
	return []string{q.Header, "checkboxes", what, req}, true
}

// requiredGuide is the Required cell of a question: what pull requires.
func requiredGuide(t *templates.Template, q *templates.Question) string {
	switch {
	case !q.Required:
		return ""
	case t.Rows.Per == templates.PerBlock && q.Scope == "row":
		return "yes, on each row you use"
	}
	return "yes"
}
