// Package xlsxdump renders a workbook as readable text: sheets and their
// visibility, panes, protection, columns, validations, merges, notes, and
// every cell with its value, its link within the workbook and, where it
// differs from its column, its style. Tests compare dumps with golden files instead of zip bytes, and a
// person can read a diff of them.
//
//	text, err := xlsxdump.File("study/legal-gaps-b01.xlsx", xlsxdump.Options{})
package xlsxdump

import (
	"fmt"
	"sort"
	"strings"

	"github.com/annosheet/annosheet/testkit/pin"
	"github.com/xuri/excelize/v2"
)

// Options tune a dump.
type Options struct {
	// MaxText pins cell text longer than this many characters (0: 48) by
	// a prefix, its length and a hash of the whole, so that dumps of long
	// context stay readable and any edit of it still shows.
	MaxText int
}

// File dumps the workbook at path.
func File(path string, opt Options) (string, error) {
	raw, err := readRaw(path)
	if err != nil {
		return "", err
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if opt.MaxText == 0 {
		opt.MaxText = 48
	}
	d := &dumper{f: f, opt: opt, b: &strings.Builder{}, raw: raw}
	props, err := f.GetDocProps()
	if err == nil {
		d.printf("workbook title=%q creator=%q\n", props.Title, props.Creator)
	}
	active := f.GetActiveSheetIndex()
	for i, name := range f.GetSheetList() {
		if err := d.sheet(name, i == active); err != nil {
			return "", fmt.Errorf("sheet %s: %w", name, err)
		}
	}
	return d.b.String(), nil
}

type dumper struct {
	f   *excelize.File
	opt Options
	b   *strings.Builder
	raw *rawBook
}

func (d *dumper) printf(format string, args ...any) { fmt.Fprintf(d.b, format, args...) }

func (d *dumper) sheet(name string, active bool) error {
	f := d.f
	visible, err := f.GetSheetVisible(name)
	if err != nil {
		return err
	}
	state := "visible"
	if !visible {
		state = "hidden"
		if d.raw.states[name] == "veryHidden" {
			state = "very hidden"
		}
	}
	if active {
		state += ", active"
	}
	d.printf("\nsheet %q (%s)\n", name, state)
	dim, _ := f.GetSheetDimension(name)
	d.printf("  dimension %s\n", dim)
	if p, err := f.GetPanes(name); err == nil && p.Freeze {
		d.printf("  freeze rows=%d cols=%d top-left=%s\n", p.YSplit, p.XSplit, p.TopLeftCell)
	}
	if pl, err := f.GetPageLayout(name); err == nil && pl.Orientation != nil && pl.FitToWidth != nil {
		d.printf("  print %s, fit to %d page(s) wide\n", *pl.Orientation, *pl.FitToWidth)
	}
	if p, err := f.GetSheetProtection(name); err == nil && d.raw.protected[name] {
		var allowed []string
		for _, a := range []struct {
			ok   bool
			name string
		}{{p.Sort, "sort"}, {p.AutoFilter, "autofilter"}, {p.FormatColumns, "format-columns"}, {p.FormatRows, "format-rows"},
			{p.InsertRows, "insert-rows"}, {p.DeleteRows, "delete-rows"}, {p.FormatCells, "format-cells"}, {p.InsertColumns, "insert-columns"},
			{p.SelectLockedCells, "select-locked"}, {p.SelectUnlockedCells, "select-unlocked"}} {
			if a.ok {
				allowed = append(allowed, a.name)
			}
		}
		d.printf("  protected; allowed: %s\n", strings.Join(allowed, " "))
	}
	for _, dn := range f.GetDefinedName() {
		if dn.Scope == name && dn.Name == "_xlnm._FilterDatabase" {
			d.printf("  autofilter %s\n", dn.RefersTo)
		}
	}
	rows, err := f.GetRows(name, excelize.Options{RawCellValue: true})
	if err != nil {
		return err
	}
	ncols := 0
	for _, r := range rows {
		ncols = max(ncols, len(r))
	}
	colStyles := map[string]string{}
	for c := 1; c <= ncols; c++ {
		col, _ := excelize.ColumnNumberToName(c)
		w, _ := f.GetColWidth(name, col)
		vis, _ := f.GetColVisible(name, col)
		sid, _ := f.GetColStyle(name, col)
		st := d.style(sid)
		colStyles[col] = st
		extra := ""
		if !vis {
			extra = " hidden"
		}
		d.printf("  column %s width=%g%s style{%s}\n", col, w, extra, st)
	}
	dvs, err := f.GetDataValidations(name)
	if err != nil {
		return err
	}
	sort.Slice(dvs, func(i, j int) bool { return dvs[i].Sqref < dvs[j].Sqref })
	for _, v := range dvs {
		d.printf("  validation %s type=%s op=%s f1=%s f2=%s", v.Sqref, v.Type, v.Operator, v.Formula1, v.Formula2)
		if v.ErrorStyle != nil {
			d.printf(" error-style=%s", *v.ErrorStyle)
		}
		if v.PromptTitle != nil || v.Prompt != nil {
			d.printf(" prompt=%q/%s", deref(v.PromptTitle), d.cut(deref(v.Prompt)))
		}
		if v.Error != nil {
			d.printf(" error=%s", d.cut(deref(v.Error)))
		}
		d.printf("\n")
	}
	if err := d.conditionalFormats(name); err != nil {
		return err
	}
	merges, _ := f.GetMergeCells(name, true)
	for _, m := range merges {
		d.printf("  merge %s:%s\n", m.GetStartAxis(), m.GetEndAxis())
	}
	comments, _ := f.GetComments(name)
	sort.Slice(comments, func(i, j int) bool { return cellLess(comments[i].Cell, comments[j].Cell) })
	for _, c := range comments {
		text := c.Text
		for _, p := range c.Paragraph {
			text += p.Text
		}
		d.printf("  note %s %s\n", c.Cell, d.cut(text))
	}
	for i, r := range rows {
		row := i + 1
		h, _ := f.GetRowHeight(name, row)
		var cells []string
		for j, v := range r {
			col, _ := excelize.ColumnNumberToName(j + 1)
			cell := fmt.Sprintf("%s%d", col, row)
			sid, _ := f.GetCellStyle(name, cell)
			st := d.style(sid)
			typ, _ := f.GetCellType(name, cell)
			formula, _ := f.GetCellFormula(name, cell)
			if v == "" && st == colStyles[col] && formula == "" {
				continue
			}
			s := fmt.Sprintf("%s=%s", col, d.value(v, typ))
			if formula != "" {
				s += fmt.Sprintf(" formula=%q", formula)
			}
			if ok, target, _ := f.GetCellHyperLink(name, cell); ok {
				s += fmt.Sprintf(" link=%s", target)
			}
			if st != colStyles[col] {
				s += "{" + st + "}"
			}
			cells = append(cells, s)
		}
		if len(cells) == 0 && h == 15 {
			continue
		}
		d.printf("  row %d h=%g: %s\n", row, h, strings.Join(cells, " | "))
	}
	return nil
}

func (d *dumper) value(v string, typ excelize.CellType) string {
	kind := ""
	switch typ {
	case excelize.CellTypeBool:
		kind = "bool:"
	case excelize.CellTypeNumber:
		kind = "num:"
	case excelize.CellTypeUnset:
		if v == "" {
			return `""`
		}
	}
	return kind + d.cut(v)
}

// cut quotes text, pinning long text by a prefix, its length and a hash
// of the whole.
func (d *dumper) cut(s string) string { return pin.Text(s, d.opt.MaxText) }

// style renders the parts of a style that matter to annotators.
func (d *dumper) style(id int) string {
	st, err := d.f.GetStyle(id)
	if err != nil || st == nil {
		return "?"
	}
	var parts []string
	if st.Font != nil {
		if st.Font.Bold {
			parts = append(parts, "bold")
		}
		if st.Font.Italic {
			parts = append(parts, "italic")
		}
		if st.Font.Size != 0 && st.Font.Size != 11 {
			parts = append(parts, fmt.Sprintf("size=%g", st.Font.Size))
		}
		if st.Font.Color != "" {
			parts = append(parts, "color="+st.Font.Color)
		}
	}
	if len(st.Fill.Color) > 0 && st.Fill.Pattern == 1 {
		parts = append(parts, "fill="+st.Fill.Color[0])
	}
	if st.Alignment != nil && st.Alignment.WrapText {
		parts = append(parts, "wrap")
	}
	if st.NumFmt == 49 {
		parts = append(parts, "text")
	}
	if st.Protection == nil || st.Protection.Locked {
		parts = append(parts, "locked")
	} else {
		parts = append(parts, "unlocked")
	}
	return strings.Join(parts, " ")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func cellLess(a, b string) bool {
	ca, ra, _ := excelize.CellNameToCoordinates(a)
	cb, rb, _ := excelize.CellNameToCoordinates(b)
	if ra != rb {
		return ra < rb
	}
	return ca < cb
}
