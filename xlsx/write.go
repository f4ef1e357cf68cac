package xlsx

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
)

// WriteOptions tune Write.
type WriteOptions struct {
	// Created is recorded in the document properties; the zero time leaves
	// the library's fixed date, which keeps output reproducible.
	Created time.Time
	// Compression chooses the zip compressor; see Compression.
	Compression Compression
}

// Write renders a plan as an XLSX workbook to w. excelize lays out the
// workbook's structure; each sheet's rows are rendered straight into its
// zip entry as the file is written (see zipSink), and the parts are
// deflated on all cores, so memory stays bounded however many rows the
// plan has and the file is never held whole.
func Write(p *backend.Plan, w io.Writer, opt WriteOptions) error {
	f := excelize.NewFile()
	defer f.Close()
	sink := newZipSink(w, opt.Compression)
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return sink })
	wr := &writer{f: f, sink: sink, styles: map[backend.Style]int{}, looks: map[cfLook]int{}}
	for i, sh := range p.Sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", sh.Name); err != nil {
				return err
			}
		} else if _, err := f.NewSheet(sh.Name); err != nil {
			return err
		}
	}
	// Sheet-wide settings go in before streaming: afterwards excelize would
	// parse every streamed sheet back into memory to apply them.
	f.SetActiveSheet(p.Active)
	for _, sh := range p.Sheets {
		if sh.Visibility != backend.Visible {
			if err := f.SetSheetVisible(sh.Name, false, sh.Visibility == backend.VeryHidden); err != nil {
				return err
			}
		}
	}
	parts := map[string]string{}
	for id, name := range f.GetSheetMap() {
		parts[name] = fmt.Sprintf("xl/worksheets/sheet%d.xml", id)
	}
	for _, sh := range p.Sheets {
		if err := wr.sheet(sh, parts[sh.Name]); err != nil {
			return fmt.Errorf("sheet %s: %w", sh.Name, err)
		}
	}
	if err := calcOnLoad(f, wr); err != nil {
		return err
	}
	props := &excelize.DocProperties{Creator: "annosheet", Title: p.Title}
	if !opt.Created.IsZero() {
		ts := opt.Created.UTC().Format(time.RFC3339)
		props.Created, props.Modified = ts, ts
	}
	if err := f.SetDocProps(props); err != nil {
		return err
	}
	// The sink writes to w; excelize's own buffer stays empty.
	return f.Write(io.Discard)
}

type writer struct {
	f      *excelize.File
	sink   *zipSink
	styles map[backend.Style]int
	looks  map[cfLook]int // conditional formats' styles, by how they look
	// formulas: some cell is a formula.
	formulas bool
}

func (wr *writer) style(s backend.Style) (int, error) {
	if id, ok := wr.styles[s]; ok {
		return id, nil
	}
	st := &excelize.Style{
		Font:       &excelize.Font{Bold: s.Bold, Italic: s.Italic, Size: s.Size, Color: s.Color},
		Alignment:  &excelize.Alignment{Vertical: "top", WrapText: s.Wrap},
		Protection: &excelize.Protection{Locked: !s.Unlocked},
	}
	if s.Fill != "" {
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{s.Fill}}
	}
	if s.Text {
		st.NumFmt = 49 // "@": what is typed stays text
	}
	id, err := wr.f.NewStyle(st)
	if err != nil {
		return 0, err
	}
	wr.styles[s] = id
	return id, nil
}

func (wr *writer) sheet(sh *backend.Sheet, part string) error {
	f := wr.f
	last := backend.CellName(sh.ColCount()-1, max(1, sh.RowCount))
	// The dimension must be declared before streaming, or readers that
	// trust it (openpyxl's read-only mode) see a single row.
	if err := f.SetSheetDimension(sh.Name, "A1:"+last); err != nil {
		return err
	}
	// Page setup lives before the sheet data, so it must be in place
	// before streaming starts.
	if sh.FitWidth {
		landscape, one, any := "landscape", 1, 0
		if err := f.SetPageLayout(sh.Name, &excelize.PageLayoutOptions{Orientation: &landscape, FitToWidth: &one, FitToHeight: &any}); err != nil {
			return err
		}
		fit := true
		if err := f.SetSheetProps(sh.Name, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
			return err
		}
	}
	sw, err := f.NewStreamWriter(sh.Name)
	if err != nil {
		return err
	}
	for i, c := range sh.Columns {
		if c.Width > 0 {
			if err := sw.SetColWidth(i+1, i+1, c.Width); err != nil {
				return err
			}
		}
		id, err := wr.style(c.Style)
		if err != nil {
			return err
		}
		if err := sw.SetColStyle(i+1, i+1, id); err != nil {
			return err
		}
		if c.Hidden {
			if err := sw.SetColVisible(i+1, i+1, false); err != nil {
				return err
			}
		}
	}
	if sh.FreezeRows > 0 || sh.FreezeCols > 0 {
		err := sw.SetPanes(&excelize.Panes{
			Freeze: true, XSplit: sh.FreezeCols, YSplit: sh.FreezeRows,
			TopLeftCell: backend.CellName(sh.FreezeCols, sh.FreezeRows+1),
			ActivePane:  activePane(sh.FreezeRows, sh.FreezeCols),
		})
		if err != nil {
			return err
		}
	}
	colStyle := make([]int, len(sh.Columns))
	for i, c := range sh.Columns {
		colStyle[i] = wr.styles[c.Style]
	}
	if err := wr.rowStyles(sh); err != nil {
		return err
	}
	wr.sink.add(part, sh, &rowsWriter{colStyle: colStyle, styles: wr.styles, merges: sh.Merges})
	for _, m := range sh.Merges {
		if err := sw.MergeCell(backend.CellName(m.FirstCol, m.FirstRow), backend.CellName(m.LastCol, m.LastRow)); err != nil {
			return err
		}
	}
	// Sheet-level settings go in before Flush; afterwards they are lost.
	for _, v := range sh.Validations {
		if err := f.AddDataValidation(sh.Name, validation(v)); err != nil {
			return fmt.Errorf("validation of column %s: %w", backend.ColumnLetter(v.Col), err)
		}
	}
	if err := wr.conditionalFormats(sh); err != nil {
		return err
	}
	for _, nt := range sh.Notes {
		lines := strings.Count(nt.Text, "\n") + utf8.RuneCountInString(nt.Text)/40 + 2
		err := f.AddComment(sh.Name, excelize.Comment{
			Author: "annosheet", Cell: backend.CellName(nt.Col, nt.Row), Text: nt.Text,
			Width: 300, Height: uint(min(lines*15, 400)),
		})
		if err != nil {
			return err
		}
	}
	if sh.AutoFilter && sh.RowCount > 0 {
		if err := f.AutoFilter(sh.Name, "A1:"+last, nil); err != nil {
			return err
		}
	}
	if p := sh.Protect; p != nil {
		err := f.ProtectSheet(sh.Name, &excelize.SheetProtectionOptions{
			AutoFilter: p.AutoFilter, Sort: p.Sort, FormatColumns: p.FormatColumns,
			FormatRows: p.FormatRows, InsertRows: p.InsertRows,
			SelectLockedCells: true, SelectUnlockedCells: true,
		})
		if err != nil {
			return err
		}
	}
	return sw.Flush()
}

// rowStyles registers the styles of the sheet's rows before the file is
// written, in the order of first use: from the facts the sheet declares,
// or else by producing its rows once more.
func (wr *writer) rowStyles(sh *backend.Sheet) error {
	facts := sh.Facts
	if facts == nil {
		facts = &backend.RowFacts{}
		if err := sh.Rows(func(r backend.Row) error { facts.Note(r); return nil }); err != nil {
			return err
		}
	}
	for _, s := range facts.Styles {
		if _, err := wr.style(s); err != nil {
			return err
		}
	}
	wr.formulas = wr.formulas || facts.Formulas
	return nil
}

func activePane(rows, cols int) string {
	switch {
	case rows > 0 && cols > 0:
		return "bottomRight"
	case rows > 0:
		return "bottomLeft"
	}
	return "topRight"
}

// validation translates a plan's validation into excelize's.
func validation(v backend.Validation) *excelize.DataValidation {
	dv := excelize.NewDataValidation(true)
	dv.Sqref = fmt.Sprintf("%s:%s", backend.CellName(v.Col, v.FirstRow), backend.CellName(v.Col, v.LastRow))
	switch v.Kind {
	case backend.ValidList:
		if v.Inline() {
			// Checked by Inline, so it cannot fail.
			_ = dv.SetDropList(v.Values)
		} else {
			dv.SetSqrefDropList(v.Source)
		}
	case backend.ValidCheckbox:
		_ = dv.SetDropList([]string{"TRUE", "FALSE"})
	case backend.ValidWhole:
		_ = dv.SetRange(v.Min, v.Max, excelize.DataValidationTypeWhole, excelize.DataValidationOperatorBetween)
	}
	if v.Prompt != "" {
		dv.SetInput(shorten(v.PromptTitle, backend.XLSX.PromptTitle), shorten(v.Prompt, backend.XLSX.Prompt))
	}
	if v.Kind != backend.ValidAny {
		style := excelize.DataValidationErrorStyleWarning
		if v.Strict {
			style = excelize.DataValidationErrorStyleStop
		}
		dv.SetError(style, shorten(v.ErrorTitle, backend.XLSX.PromptTitle), shorten(v.Error, backend.XLSX.Prompt))
	}
	return dv
}

// shorten cuts s to n characters, ending in an ellipsis when cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
