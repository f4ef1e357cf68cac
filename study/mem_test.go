package study

import (
	"context"
	"fmt"
	"strconv"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/manifest"
)

// memWriter is a backend that keeps workbooks in memory as the text of
// their cells, so the study's logic runs below any real backend.
type memWriter struct {
	books map[string]map[string][][]string // batch ID -> sheet -> rows
	order map[string][]string              // batch ID -> sheet names
	fail  error                            // Open fails with it when set
}

func (w *memWriter) Format() string { return FormatXLSX }
func (w *memWriter) CellLimit() int { return backend.XLSXCellLimit }

func (w *memWriter) Exists(_ context.Context, b *manifest.Batch) (bool, error) {
	_, ok := w.books[b.ID]
	return ok && b.File != "", nil
}

func (w *memWriter) Write(_ context.Context, plan *backend.Plan, b *manifest.Batch, saved func() error) (string, error) {
	if w.books == nil {
		w.books, w.order = map[string]map[string][][]string{}, map[string][]string{}
	}
	book := map[string][][]string{}
	var names []string
	for _, sh := range plan.Sheets {
		names = append(names, sh.Name)
		var rows [][]string
		err := sh.Rows(func(r backend.Row) error {
			cells := make([]string, len(r.Cells))
			for i, c := range r.Cells {
				switch v := c.Value.(type) {
				case nil:
				case string:
					cells[i] = v
				case bool:
					cells[i] = map[bool]string{true: "TRUE", false: "FALSE"}[v]
				default:
					cells[i] = fmt.Sprint(v)
				}
			}
			rows = append(rows, cells)
			return nil
		})
		if err != nil {
			return "", err
		}
		book[sh.Name] = rows
	}
	w.books[b.ID], w.order[b.ID] = book, names
	if err := saved(); err != nil {
		return "", err
	}
	return "mem:" + b.ID, nil
}

func (w *memWriter) Open(_ context.Context, b *manifest.Batch) (*backend.Grid, func() error, error) {
	if w.fail != nil {
		return nil, nil, w.fail
	}
	book, ok := w.books[b.ID]
	if !ok {
		return nil, nil, ErrNotFound
	}
	return &backend.Grid{Kind: "xlsx", Name: b.File, Sheets: w.order[b.ID], Rows: func(sheet string, fn func(int, []string) error) error {
		for i, r := range book[sheet] {
			if err := fn(i+1, r); err != nil {
				return err
			}
		}
		return nil
	}}, func() error { return nil }, nil
}

// set types into a cell of batch b's Annotate sheet (A1 form).
func (w *memWriter) set(batch, cell, value string) {
	col, row := 0, 0
	i := 0
	for ; i < len(cell) && cell[i] >= 'A' && cell[i] <= 'Z'; i++ {
		col = col*26 + int(cell[i]-'A'+1)
	}
	row, _ = strconv.Atoi(cell[i:])
	rows := w.books[batch][backend.SheetAnnotate]
	for len(rows) < row {
		rows = append(rows, nil)
	}
	for len(rows[row-1]) < col {
		rows[row-1] = append(rows[row-1], "")
	}
	rows[row-1][col-1] = value
	w.books[batch][backend.SheetAnnotate] = rows
}
