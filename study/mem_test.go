package study

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
)

// memWriter is a backend.Store that keeps workbooks in memory as the text
// of their cells, so the study's logic runs below any real backend. It
// keeps each workbook under its batch's ID, read off the file name a
// legal-gaps study gives it (legal-gaps-ak-b01.xlsx is ak-b01).
type memWriter struct {
	books map[string]map[string][][]string // batch ID -> sheet -> rows
	order map[string][]string              // batch ID -> sheet names
	fail  error                            // Open fails with it when set
	// failWrite names a batch whose Write fails.
	failWrite string
	// saves counts the saves of each batch's workbook: its version.
	saves map[string]int
	// beforeWrite, when set, is called at the start of each Write.
	beforeWrite func(at backend.Location)
}

func (w *memWriter) Version(_ context.Context, at backend.Location) (string, error) {
	if _, ok := w.books[batch(at)]; !ok {
		return "", nil
	}
	return strconv.Itoa(w.saves[batch(at)]), nil
}

func (w *memWriter) Limits() backend.Limits { return backend.XLSX }

// batch is the batch ID a location's file name gives.
func batch(at backend.Location) string {
	return strings.TrimPrefix(strings.TrimSuffix(filepath.Base(at.Path), ".xlsx"), "legal-gaps-")
}

func (w *memWriter) Exists(_ context.Context, at backend.Location) (bool, error) {
	_, ok := w.books[batch(at)]
	return ok, nil
}

func (w *memWriter) Write(_ context.Context, plan *backend.Plan, at backend.Location, opt backend.WriteOptions) (backend.Location, error) {
	if w.books == nil {
		w.books, w.order = map[string]map[string][][]string{}, map[string][]string{}
	}
	if w.beforeWrite != nil {
		w.beforeWrite(at)
	}
	if id := batch(at); id == w.failWrite {
		return at, fmt.Errorf("write %s: the disk is full", id)
	}
	if v, _ := w.Version(context.Background(), at); opt.Expect != nil && v != *opt.Expect {
		return at, fmt.Errorf("%s: %w", at, backend.ErrChanged)
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
			return at, err
		}
		book[sh.Name] = rows
	}
	id := batch(at)
	w.books[id], w.order[id] = book, names
	if w.saves == nil {
		w.saves = map[string]int{}
	}
	w.saves[id]++
	if opt.Created != nil {
		if err := opt.Created(at); err != nil {
			return at, err
		}
	}
	return at, nil
}

func (w *memWriter) Open(_ context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	if w.fail != nil {
		return nil, nil, w.fail
	}
	id := batch(at)
	book, ok := w.books[id]
	if !ok {
		return nil, nil, ErrNotFound
	}
	return &backend.Grid{Kind: "xlsx", Name: filepath.Base(at.Path), Sheets: w.order[id], Rows: func(sheet string, fn func(int, []backend.ReadCell) error) error {
		for i, r := range book[sheet] {
			if err := fn(i+1, backend.StringCells(r...)); err != nil {
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
	if w.saves == nil {
		w.saves = map[string]int{}
	}
	w.saves[batch]++ // saved, as a person saves it
}
