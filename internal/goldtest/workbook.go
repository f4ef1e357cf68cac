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

	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
)

// Workbook is a generated workbook opened for filling in.
type Workbook struct {
	Path string
	F    *excelize.File
	// Col maps column keys ("q:gaps=2", "annotator") to 0-based columns.
	Col map[string]int
	// Rows maps each unit to its rows, in order.
	Rows map[string][]int
	// Units lists the units in sheet order.
	Units []string
}

// OpenWorkbook opens a workbook that annosheet generated.
func OpenWorkbook(path string) (*Workbook, error) {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return nil, err
	}
	w := &Workbook{Path: path, F: f, Col: map[string]int{}, Rows: map[string][]int{}}
	meta, err := f.GetRows(mapping.SheetMeta)
	if err != nil {
		return nil, err
	}
	var wm mapping.WorkbookMeta
	if err := jsonUnmarshal(strings.Join(meta[0][1:], ""), &wm); err != nil {
		return nil, err
	}
	for _, c := range wm.Columns {
		w.Col[c.Key] = c.Index
	}
	rows, err := f.GetRows(mapping.SheetAnnotate)
	if err != nil {
		return nil, err
	}
	uc := w.Col[templates.RoleUnit]
	for i, r := range rows[1:] {
		if uc < len(r) && r[uc] != "" {
			if len(w.Rows[r[uc]]) == 0 {
				w.Units = append(w.Units, r[uc])
			}
			w.Rows[r[uc]] = append(w.Rows[r[uc]], i+2)
		}
	}
	return w, nil
}

// Cell is the A1 name of a column key on a row.
func (w *Workbook) Cell(row int, key string) (string, error) {
	c, ok := w.Col[key]
	if !ok {
		return "", fmt.Errorf("no column %q", key)
	}
	return mapping.CellName(c, row), nil
}

// Set writes a value into a row's cell, as a spreadsheet stores it: strings
// as text, bools as booleans, ints as numbers.
func (w *Workbook) Set(row int, key string, v any) error {
	cell, err := w.Cell(row, key)
	if err != nil {
		return err
	}
	return w.F.SetCellValue(mapping.SheetAnnotate, cell, v)
}

// InsertRows inserts n empty rows before row, as an annotator does inside a
// block, and keeps Rows up to date.
func (w *Workbook) InsertRows(row, n int) error {
	if err := w.F.InsertRows(mapping.SheetAnnotate, row, n); err != nil {
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

// Save writes the workbook back and closes it.
func (w *Workbook) Save() error {
	if err := w.F.Save(); err != nil {
		return err
	}
	return w.F.Close()
}
