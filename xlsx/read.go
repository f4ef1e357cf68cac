package xlsx

import (
	"fmt"
	"path/filepath"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
)

// Open reads a filled workbook as a grid for pull. Rows are streamed with
// excelize's Rows iterator, so a large sheet is never held whole; values
// are read raw (numbers unformatted, booleans as 1 and 0), and formulas
// give their last computed value, never evaluated. Call close when done.
func Open(path string) (g *backend.Grid, close func() error, err error) {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: cannot read as an XLSX workbook: %w", path, err)
	}
	g = &backend.Grid{
		Kind:   backend.KindXLSX,
		Name:   filepath.Base(path),
		Sheets: f.GetSheetList(),
		Rows: func(sheet string, fn func(row int, cells []string) error) error {
			rows, err := f.Rows(sheet)
			if err != nil {
				return err
			}
			defer rows.Close()
			for n := 1; rows.Next(); n++ {
				cells, err := rows.Columns(excelize.Options{RawCellValue: true})
				if err != nil {
					return fmt.Errorf("row %d: %w", n, err)
				}
				if len(cells) == 0 {
					continue
				}
				if err := fn(n, cells); err != nil {
					return err
				}
			}
			return rows.Error()
		},
	}
	return g, f.Close, nil
}
