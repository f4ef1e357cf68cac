// Package goldtest plays the annotator in tests: it fills generated
// workbooks with the gold answers that the real data carries (or with
// answers a test chooses), the way an annotator's spreadsheet would store
// them, so that pull and export can be checked against the gold.
//
//	w, err := goldtest.OpenWorkbook(path)
//	w.Set(row, "q:gaps=2", true)
//	err = w.Save()
package goldtest

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// Workbook is a generated workbook opened for filling in: an XLSX file or
// a Google spreadsheet.
type Workbook struct {
	// Path is the file, or the spreadsheet's ID.
	Path string
	// F is the XLSX file; nil for a spreadsheet.
	F *excelize.File
	// Col maps column keys ("q:gaps=2", "annotator") to 0-based columns.
	Col map[string]int
	// Rows maps each unit to its rows, in order.
	Rows map[string][]int
	// Units lists the units in sheet order.
	Units []string
	cells cellStore
}

// cellStore is where a workbook's edits go.
type cellStore interface {
	set(cell string, v any) error
	insertRows(row, n int) error
	save() error
}

// OpenWorkbook opens an XLSX workbook that annosheet generated.
func OpenWorkbook(path string) (*Workbook, error) {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return nil, err
	}
	rows := func(sheet string) ([][]string, error) { return f.GetRows(sheet) }
	return newWorkbook(path, rows, &xlsxStore{f})
}

// newWorkbook reads a workbook's layout from its metadata and its units
// from the Annotate sheet.
func newWorkbook(path string, rows func(sheet string) ([][]string, error), cs cellStore) (*Workbook, error) {
	w := &Workbook{Path: path, Col: map[string]int{}, Rows: map[string][]int{}, cells: cs}
	if x, ok := cs.(*xlsxStore); ok {
		w.F = x.f
	}
	meta, err := rows(backend.SheetMeta)
	if err != nil {
		return nil, err
	}
	var wm layout.WorkbookMeta
	if err := jsonUnmarshal(strings.Join(meta[0][1:], ""), &wm); err != nil {
		return nil, err
	}
	for _, c := range wm.Columns {
		w.Col[c.Key] = c.Index
	}
	ann, err := rows(backend.SheetAnnotate)
	if err != nil {
		return nil, err
	}
	units := map[string]bool{}
	for _, r := range meta {
		if len(r) > 1 && r[0] == "unit" {
			units[r[1]] = true
		}
	}
	uc := w.Col[templates.RoleUnit]
	for i, r := range ann[1:] {
		if uc < len(r) && r[uc] != "" {
			u := unitOf(r[uc], wm.RowMark, units)
			if len(w.Rows[u]) == 0 {
				w.Units = append(w.Units, u)
			}
			w.Rows[u] = append(w.Rows[u], i+2)
		}
	}
	return w, nil
}

// unitOf is the unit of a hidden unit cell: the cell itself, or for a
// block's numbered row (see layout.WorkbookMeta.RowMark) what precedes
// the mark and the row's number.
func unitOf(cell, mark string, units map[string]bool) string {
	if units[cell] || mark == "" {
		return cell
	}
	base := strings.TrimRight(cell, "0123456789")
	if base != cell && strings.HasSuffix(base, mark) && units[strings.TrimSuffix(base, mark)] {
		return strings.TrimSuffix(base, mark)
	}
	return cell
}

// Cell is the A1 name of a column key on a row.
func (w *Workbook) Cell(row int, key string) (string, error) {
	c, ok := w.Col[key]
	if !ok {
		return "", fmt.Errorf("no column %q", key)
	}
	return backend.CellName(c, row), nil
}

// Set writes a value into a row's cell, as a spreadsheet stores it: strings
// as text, bools as booleans, ints as numbers.
func (w *Workbook) Set(row int, key string, v any) error {
	cell, err := w.Cell(row, key)
	if err != nil {
		return err
	}
	return w.cells.set(cell, v)
}

// InsertRows inserts n empty rows before row, as an annotator does inside a
// block, and keeps Rows up to date.
func (w *Workbook) InsertRows(row, n int) error {
	if err := w.cells.insertRows(row, n); err != nil {
		return err
	}
	for u, rs := range w.Rows {
		for i, r := range rs {
			if r >= row {
				w.Rows[u][i] = r + n
			}
		}
	}
	return nil
}

// Save writes the workbook back (and closes a file).
func (w *Workbook) Save() error { return w.cells.save() }

type xlsxStore struct{ f *excelize.File }

func (x *xlsxStore) set(cell string, v any) error {
	return x.f.SetCellValue(backend.SheetAnnotate, cell, v)
}

func (x *xlsxStore) insertRows(row, n int) error {
	return x.f.InsertRows(backend.SheetAnnotate, row, n)
}

func (x *xlsxStore) save() error {
	if err := x.f.Save(); err != nil {
		return err
	}
	return x.f.Close()
}
