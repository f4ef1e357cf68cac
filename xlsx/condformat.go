package xlsx

import (
	"fmt"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
)

// calcOnLoad asks spreadsheet applications to compute every formula when
// they open the workbook, when it has any: formulas are written without
// a saved value (nothing here computes them).
func calcOnLoad(f *excelize.File, wr *writer) error {
	if !wr.formulas {
		return nil
	}
	yes := true
	return f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &yes})
}

// conditionalFormats adds a sheet's conditional formats, in the plan's
// order of precedence: excelize gives each rule the next priority.
func (wr *writer) conditionalFormats(sh *backend.Sheet) error {
	for _, cf := range sh.ConditionalFormats {
		look := cfLook{cf.Fill, cf.Color, cf.Italic}
		id, ok := wr.looks[look]
		if !ok {
			st := &excelize.Style{}
			if cf.Fill != "" {
				st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{cf.Fill}}
			}
			if cf.Color != "" || cf.Italic {
				st.Font = &excelize.Font{Color: cf.Color, Italic: cf.Italic}
			}
			var err error
			id, err = wr.f.NewConditionalStyle(st)
			if err != nil {
				return err
			}
			wr.looks[look] = id
		}
		ref := backend.CellName(cf.FirstCol, cf.FirstRow) + ":" + backend.CellName(cf.LastCol, cf.LastRow)
		err := wr.f.SetConditionalFormat(sh.Name, ref, []excelize.ConditionalFormatOptions{{Type: "formula", Criteria: cf.Formula, Format: &id}})
		if err != nil {
			return fmt.Errorf("conditional format of %s: %w", ref, err)
		}
	}
	return nil
}

// cfLook is what a conditional format changes of a cell: its fill, its
// font's colour and slant. Formats that look the same share one style.
type cfLook struct {
	fill, color string
	italic      bool
}
