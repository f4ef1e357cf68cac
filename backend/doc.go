// Package backend is the contract between the core (layout, decode) and the
// backends that render and read workbooks (package xlsx for Excel files,
// package sheets for Google Sheets). It holds plain data only: the Plan a
// backend renders, the Grid a backend reads back, the names of a generated
// workbook's sheets, and each backend's identity and limits. It imports
// nothing but the standard library, so that a backend needs nothing of
// templates, layout or decode, and they nothing of any backend.
//
// The smallest use: a backend renders a plan's sheets row by row, and
// hands back what it reads as a grid.
//
//	p := &backend.Plan{Sheets: []*backend.Sheet{{
//		Name:     backend.SheetAnnotate,
//		Columns:  []backend.Column{{Width: 20}},
//		RowCount: 1,
//		Rows: func(emit func(backend.Row) error) error {
//			return emit(backend.Row{Cells: []backend.Cell{{Value: "hello"}}})
//		},
//	}}}
//	err := xlsx.Write(p, w, xlsx.WriteOptions{})
//	g, closeFn, err := xlsx.Open(path) // g.Kind == backend.KindXLSX
package backend
