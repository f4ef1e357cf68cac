package backendtest

import (
	"fmt"
	"strings"

	"github.com/annosheet/annosheet/backend"
)

// PlanCells lays a plan out as a backend reads it back: text as text,
// numbers as numbers, ticks as TRUE or FALSE; the sheets in tab order,
// and each sheet's rows. A value of another kind (a formula) is an error.
func PlanCells(p *backend.Plan) (order []string, sheets map[string][][]backend.ReadCell, err error) {
	sheets = map[string][][]backend.ReadCell{}
	for _, s := range p.Sheets {
		order = append(order, s.Name)
		rows := [][]backend.ReadCell{}
		err := s.Rows(func(r backend.Row) error {
			cells := make([]backend.ReadCell, len(r.Cells))
			for i, c := range r.Cells {
				switch v := c.Value.(type) {
				case nil:
				case string:
					cells[i] = backend.ReadCell{Value: v}
				case bool:
					cells[i] = backend.ReadCell{Value: strings.ToUpper(fmt.Sprint(v)), Type: backend.CellBool}
				case int, int64, float64:
					cells[i] = backend.ReadCell{Value: fmt.Sprint(v), Type: backend.CellNumber}
				default:
					return fmt.Errorf("sheet %s: a cell of type %T", s.Name, v)
				}
			}
			rows = append(rows, cells)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		sheets[s.Name] = rows
	}
	return order, sheets, nil
}
