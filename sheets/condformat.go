package sheets

import (
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/backend"
)

// formulaValue is a Formula cell's value: the only way a formula enters a
// spreadsheet annosheet writes (strings are always string values).
func formulaValue(f backend.Formula) *sheetsapi.ExtendedValue {
	s := sheetsFormula(f.Text)
	return &sheetsapi.ExtendedValue{FormulaValue: &s}
}

// sheetsFormula spells a plan's formula for Google: with its "=", and
// semicolons between arguments. Google reads formulas in the
// spreadsheet's locale, and where a comma is the decimal mark (de_DE,
// fr_FR …) it takes only semicolons; every locale takes semicolons, and
// shows them as its own separator. Commas inside string constants stay;
// the plan's formulas have no decimal numbers or array constants.
func sheetsFormula(text string) string {
	b := []byte("=" + text)
	quoted := false
	for i, c := range b {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			b[i] = ';'
		}
	}
	return string(b)
}

// conditionalFormats are the requests that add a sheet's conditional
// formats, each at its place in the plan's order: Google applies the
// first rule that holds.
func conditionalFormats(sh *backend.Sheet, id int64) []*sheetsapi.Request {
	var reqs []*sheetsapi.Request
	for i, cf := range sh.ConditionalFormats {
		reqs = append(reqs, &sheetsapi.Request{AddConditionalFormatRule: &sheetsapi.AddConditionalFormatRuleRequest{
			Index: int64(i),
			Rule: &sheetsapi.ConditionalFormatRule{
				Ranges: []*sheetsapi.GridRange{{SheetId: id,
					StartRowIndex: int64(cf.FirstRow - 1), EndRowIndex: int64(cf.LastRow),
					StartColumnIndex: int64(cf.FirstCol), EndColumnIndex: int64(cf.LastCol + 1)}},
				BooleanRule: &sheetsapi.BooleanRule{
					Condition: &sheetsapi.BooleanCondition{Type: "CUSTOM_FORMULA", Values: []*sheetsapi.ConditionValue{{UserEnteredValue: sheetsFormula(cf.Formula)}}},
					Format:    cfFormat(cf),
				},
			},
			ForceSendFields: []string{"Index"},
		}})
	}
	return reqs
}

// cfFormat is how a conditional format changes a cell: its background,
// and its font's colour and slant.
func cfFormat(cf backend.ConditionalFormat) *sheetsapi.CellFormat {
	f := &sheetsapi.CellFormat{}
	if cf.Fill != "" {
		f.BackgroundColor = color(cf.Fill)
	}
	if cf.Color != "" || cf.Italic {
		f.TextFormat = &sheetsapi.TextFormat{Italic: cf.Italic}
		if cf.Color != "" {
			f.TextFormat.ForegroundColor = color(cf.Color)
		}
	}
	return f
}
