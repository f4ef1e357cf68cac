package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/templates"
	"github.com/xuri/excelize/v2"
)

// The recipe is the workbook annosheet generated, told as JSON Lines so
// that a peer can write it without knowing anything about annosheet: a
// first line with the sheets' layout and the styles, then one line per
// row, sheet after sheet, rows in order.
type recipe struct {
	Active int           `json:"active"`
	Styles []recipeStyle `json:"styles"`
	Sheets []recipeSheet `json:"sheets"`
}

// recipeStyle is backend.Style. Every cell is aligned to the top, as
// annosheet aligns them.
type recipeStyle struct {
	Bold     bool    `json:"bold,omitempty"`
	Italic   bool    `json:"italic,omitempty"`
	Size     float64 `json:"size,omitempty"`
	Color    string  `json:"color,omitempty"` // RRGGBB
	Fill     string  `json:"fill,omitempty"`  // RRGGBB
	Wrap     bool    `json:"wrap,omitempty"`
	Unlocked bool    `json:"unlocked,omitempty"`
	Text     bool    `json:"text,omitempty"` // the "@" number format
}

type recipeSheet struct {
	Name       string         `json:"name"`
	Visibility string         `json:"visibility"` // visible, hidden, veryHidden
	Columns    []recipeColumn `json:"columns"`
	FreezeRows int            `json:"freeze_rows"`
	FreezeCols int            `json:"freeze_cols"`
	// Protect is nil for an unprotected sheet; its fields say what
	// annotators may still do.
	Protect     *recipeProtect `json:"protect"`
	AutoFilter  bool           `json:"auto_filter"`
	Validations []recipeValid  `json:"validations"`
	Notes       []recipeNote   `json:"notes"`
	Merges      []recipeRange  `json:"merges"`
	CondFormats []recipeCond   `json:"conditional_formats"`
	FitWidth    bool           `json:"fit_width"`
	Rows        int            `json:"rows"`  // rows, header included
	Width       int            `json:"width"` // columns
}

type recipeColumn struct {
	Width  float64 `json:"width"`
	Hidden bool    `json:"hidden,omitempty"`
	Style  int     `json:"style"`
}

type recipeProtect struct {
	Sort          bool `json:"sort"`
	AutoFilter    bool `json:"auto_filter"`
	FormatColumns bool `json:"format_columns"`
	FormatRows    bool `json:"format_rows"`
	InsertRows    bool `json:"insert_rows"`
}

// recipeValid is a validation of one column's rows. Ranges are A1 refs.
type recipeValid struct {
	Range       string   `json:"range"`
	Kind        string   `json:"kind"` // any, list, whole, checkbox
	Values      []string `json:"values,omitempty"`
	Source      string   `json:"source,omitempty"` // a range holding the list, when not inline
	Min         int      `json:"min,omitempty"`
	Max         int      `json:"max,omitempty"`
	Strict      bool     `json:"strict"`
	PromptTitle string   `json:"prompt_title,omitempty"`
	Prompt      string   `json:"prompt,omitempty"`
	ErrorTitle  string   `json:"error_title,omitempty"`
	Error       string   `json:"error,omitempty"`
}

type recipeNote struct {
	Cell string `json:"cell"`
	Text string `json:"text"`
}

type recipeRange struct {
	Range string `json:"range"`
}

type recipeCond struct {
	Range   string `json:"range"`
	Formula string `json:"formula"` // for the range's top-left cell, no "="
	Fill    string `json:"fill"`
}

// recipeRow is one row: the sheet's index, the height in points (0: the
// application's), and the cells from column A, each [value, style]. A
// value is null, a string, a bool, a number, {"f": formula without "="}
// or {"text": string, "link": "'Sheet'!A1"} (a link within the workbook).
type recipeRow struct {
	Sheet  int      `json:"s"`
	Height float64  `json:"h"`
	Cells  [][2]any `json:"c"`
}

// recipeCmd writes the recipe of the workbook a run of annosheet generate
// wrote, from its manifest (study, seed, batch) and input: the plan
// annosheet rendered is built again, the same cell for cell, and `kit
// check` compares what the peers write with the workbook itself.
func recipeCmd(args []string, stdout io.Writer) error {
	fs := flags("recipe")
	man := fs.String("manifest", "", "the generated study's manifest.json")
	in := fs.String("input", "", "the input JSON Lines")
	out := fs.String("out", "", "the recipe to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *man == "" || *in == "" || *out == "" {
		return fmt.Errorf("recipe: -manifest, -input and -out are needed")
	}
	m, err := manifest.Read(*man)
	if err != nil {
		return err
	}
	if len(m.Batches) != 1 {
		return fmt.Errorf("%s: %d batches, want one", *man, len(m.Batches))
	}
	tmpl, err := templates.Builtin(m.Template.Name)
	if err != nil {
		return err
	}
	src, err := input.Open("jsonl", []string{*in})
	if err != nil {
		return err
	}
	res, err := layout.Build(context.Background(), tmpl, src, layout.Options{Batch: m.Batches[0].ID, Study: m.Study, CellLimit: backend.XLSXCellLimit, Seed: m.Seed})
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := writeRecipe(res.Plan, w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func writeRecipe(p *backend.Plan, w io.Writer) error {
	styles := map[backend.Style]int{}
	var rs recipe
	style := func(s backend.Style) int {
		i, ok := styles[s]
		if !ok {
			i = len(rs.Styles)
			styles[s] = i
			rs.Styles = append(rs.Styles, recipeStyle(s))
		}
		return i
	}
	style(backend.Style{})
	rs.Active = p.Active
	for _, s := range p.Sheets {
		rs.Sheets = append(rs.Sheets, sheetRecipe(s, style))
	}
	// The rows are rendered once before the layout is written, for their
	// styles; and again as they are written, a row at a time.
	for _, s := range p.Sheets {
		if err := s.Rows(func(r backend.Row) error {
			for _, c := range r.Cells {
				style(c.Style)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(w)
	if err := enc.Encode(rs); err != nil {
		return err
	}
	for i, s := range p.Sheets {
		err := s.Rows(func(r backend.Row) error {
			row := recipeRow{Sheet: i, Height: r.Height, Cells: make([][2]any, len(r.Cells))}
			for j, c := range r.Cells {
				v, err := recipeValue(c)
				if err != nil {
					return fmt.Errorf("sheet %s: %w", s.Name, err)
				}
				row.Cells[j] = [2]any{v, style(c.Style)}
			}
			return enc.Encode(row)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func recipeValue(c backend.Cell) (any, error) {
	switch v := c.Value.(type) {
	case nil, bool, int, int64, float64:
		return v, nil
	case string:
		if l := c.Link; l != nil && l.From == 0 {
			cell, err := excelize.CoordinatesToCellName(l.Col+1, l.Row)
			if err != nil {
				return nil, err
			}
			return map[string]string{"text": v, "link": quoteSheet(l.Sheet) + "!" + cell}, nil
		}
		return v, nil
	case backend.Formula:
		return map[string]string{"f": v.Text}, nil
	case *backend.Formula:
		return map[string]string{"f": v.Text}, nil
	}
	return nil, fmt.Errorf("a cell of type %T", c.Value)
}

func quoteSheet(name string) string {
	return "'" + strings.ReplaceAll(name, "'", "''") + "'"
}

// ref is an A1 range of rows and 0-based columns.
func ref(firstRow, firstCol, lastRow, lastCol int) string {
	a, _ := excelize.CoordinatesToCellName(firstCol+1, firstRow)
	b, _ := excelize.CoordinatesToCellName(lastCol+1, lastRow)
	if a == b {
		return a
	}
	return a + ":" + b
}

func sheetRecipe(s *backend.Sheet, style func(backend.Style) int) recipeSheet {
	out := recipeSheet{
		Name: s.Name, Visibility: "visible",
		FreezeRows: s.FreezeRows, FreezeCols: s.FreezeCols,
		AutoFilter: s.AutoFilter, FitWidth: s.FitWidth,
		Rows: s.RowCount, Width: s.ColCount(),
		Columns: []recipeColumn{}, Validations: []recipeValid{}, Notes: []recipeNote{},
		Merges: []recipeRange{}, CondFormats: []recipeCond{},
	}
	switch s.Visibility {
	case backend.Hidden:
		out.Visibility = "hidden"
	case backend.VeryHidden:
		out.Visibility = "veryHidden"
	}
	for _, c := range s.Columns {
		out.Columns = append(out.Columns, recipeColumn{Width: c.Width, Hidden: c.Hidden, Style: style(c.Style)})
	}
	if p := s.Protect; p != nil {
		out.Protect = &recipeProtect{Sort: p.Sort, AutoFilter: p.AutoFilter, FormatColumns: p.FormatColumns, FormatRows: p.FormatRows, InsertRows: p.InsertRows}
	}
	for _, v := range s.Validations {
		rv := recipeValid{
			Range: ref(v.FirstRow, v.Col, v.LastRow, v.Col), Strict: v.Strict,
			PromptTitle: v.PromptTitle, Prompt: v.Prompt, ErrorTitle: v.ErrorTitle, Error: v.Error,
		}
		switch v.Kind {
		case backend.ValidAny:
			rv.Kind = "any"
		case backend.ValidList:
			rv.Kind, rv.Values = "list", v.Values
			if !v.Inline() {
				rv.Source = v.Source
			}
		case backend.ValidWhole:
			rv.Kind, rv.Min, rv.Max = "whole", v.Min, v.Max
		case backend.ValidCheckbox:
			rv.Kind, rv.Values = "checkbox", []string{"TRUE", "FALSE"}
		}
		out.Validations = append(out.Validations, rv)
	}
	for _, n := range s.Notes {
		out.Notes = append(out.Notes, recipeNote{Cell: ref(n.Row, n.Col, n.Row, n.Col), Text: n.Text})
	}
	for _, m := range s.Merges {
		out.Merges = append(out.Merges, recipeRange{ref(m.FirstRow, m.FirstCol, m.LastRow, m.LastCol)})
	}
	for _, c := range s.ConditionalFormats {
		out.CondFormats = append(out.CondFormats, recipeCond{Range: ref(c.FirstRow, c.FirstCol, c.LastRow, c.LastCol), Formula: c.Formula, Fill: c.Fill})
	}
	return out
}
