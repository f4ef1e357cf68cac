package sheetsfake

import (
	"fmt"
	"slices"

	sheetsapi "google.golang.org/api/sheets/v4"
)

// addConditionalFormatRule adds a rule to a sheet at its index, refusing
// what Google refuses: no ranges, ranges on several sheets or past the
// grid, neither or both of a boolean and a gradient rule, a condition its
// type does not take, a format with more than the colours and font
// styles conditional formats may set, an index past the rules.
func addConditionalFormatRule(t *tx, b *book, a *sheetsapi.AddConditionalFormatRuleRequest) error {
	r := a.Rule
	if r == nil {
		return unset("rule")
	}
	if len(r.Ranges) == 0 {
		return fmt.Errorf("Invalid ConditionalFormatRule: ranges must not be empty")
	}
	var sh *sheet
	for _, g := range r.Ranges {
		if g == nil {
			return unset("rule.ranges")
		}
		s := b.sheetByID(g.SheetId)
		if s == nil {
			return fmt.Errorf("No grid with id: %d", g.SheetId)
		}
		if sh != nil && s != sh {
			return fmt.Errorf("Invalid ConditionalFormatRule: all ranges must be on the same sheet")
		}
		sh = s
		if _, _, _, _, err := sh.bounds(g); err != nil {
			return err
		}
	}
	switch {
	case (r.BooleanRule == nil) == (r.GradientRule == nil):
		return fmt.Errorf("Invalid ConditionalFormatRule: exactly one of booleanRule or gradientRule must be set")
	case r.GradientRule != nil:
		return fmt.Errorf("the fake does not take gradient rules")
	}
	br := r.BooleanRule
	if br.Condition == nil {
		return unset("rule.booleanRule.condition")
	}
	if err := checkCondition(br.Condition); err != nil {
		return err
	}
	if f := br.Format; f != nil {
		if f.NumberFormat != nil || f.Borders != nil || f.Padding != nil || f.HorizontalAlignment != "" || f.VerticalAlignment != "" ||
			f.WrapStrategy != "" || f.TextDirection != "" || f.TextRotation != nil || f.HyperlinkDisplayType != "" ||
			f.TextFormat != nil && (f.TextFormat.FontFamily != "" || f.TextFormat.FontSize != 0 || f.TextFormat.Link != nil) {
			return fmt.Errorf("Invalid ConditionalFormatRule: conditional formats may set only bold, italic, strikethrough, underline, the text colour and the background colour")
		}
	}
	if a.Index < 0 || a.Index > int64(len(sh.conditional)) {
		return fmt.Errorf("Invalid index %d: the sheet has %d conditional format rules", a.Index, len(sh.conditional))
	}
	old := sh.conditional
	sh.conditional = slices.Insert(slices.Clone(old), int(a.Index), r)
	t.undo = append(t.undo, func() { sh.conditional = old })
	return nil
}

// checkCondition refuses the conditions of conditional formats that
// Google refuses; those of data validations are checked alike.
func checkCondition(c *sheetsapi.BooleanCondition) error {
	if c.Type == "" {
		return unset("rule.booleanRule.condition.type")
	}
	return checkRule(&sheetsapi.DataValidationRule{Condition: c})
}

// shiftConditional moves a sheet's conditional formats down with the rows
// inserted at row at, as Google does: rules are replaced, not changed in
// place, so that an undo keeps the old ones.
func shiftConditional(t *tx, sh *sheet, at, n int64) {
	old := sh.conditional
	var moved []*sheetsapi.ConditionalFormatRule
	for _, r := range old {
		c := *r
		c.Ranges = nil
		for _, g := range r.Ranges {
			c.Ranges = append(c.Ranges, shiftRows(g, at, n))
		}
		moved = append(moved, &c)
	}
	sh.conditional = moved
	t.undo = append(t.undo, func() { sh.conditional = old })
}
