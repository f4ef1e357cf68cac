package backendtest

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// The live checks are computed by the spreadsheet application: the suite
// compares their formulas and conditional formats, which every backend
// writes the same, and leaves out the values their cells hold, which
// depend on whether an application has computed them yet (a file just
// written holds none; Google computes at once).

// withoutComputed blanks the Annotate sheet's Check cells below the
// header, and the places on the metadata sheet, in rows read from a grid
// whose Annotate sheet has the columns cols.
func withoutComputed(rows [][]string, cols []templates.ColumnSpec) [][]string {
	col := -1
	for i, c := range cols {
		if c.Role == templates.RoleCheck {
			col = i + 1 // rows start with the row's name
		}
	}
	var out [][]string
	for _, row := range rows {
		if col > 0 && col < len(row) && strings.HasPrefix(row[0], backend.SheetAnnotate+"!") && row[0] != backend.SheetAnnotate+"!1" {
			row = append([]string(nil), row...)
			row[col] = ""
			for len(row) > 1 && row[len(row)-1] == "" {
				row = row[:len(row)-1]
			}
		}
		if strings.HasPrefix(row[0], backend.SheetMeta+"!") && len(row) > 3 && row[1] == "places" {
			row = row[:3] // the formulas are in the offer
		}
		out = append(out, row)
	}
	return out
}

// annotateColumns are the columns of the Annotate sheet of a template's
// workbook built with opt: the template's, and those a prefill adds, as
// layout.Build lays them out.
func annotateColumns(tp *templates.Template, opt layout.Options) []templates.ColumnSpec {
	as := opt.PrefillAs
	if opt.Prefill != nil && as == "" {
		as = layout.PrefillAnswers
	}
	return tp.ColumnsWith(templates.ColumnOptions{Suggested: as == layout.PrefillAnswers, Suggestions: as == layout.PrefillSuggestions})
}

// cellRef is an A1 reference in a formula, its row relative or not.
var cellRef = regexp.MustCompile(`(\$?[A-Z]{1,3}\$?)([0-9]+)\b`)

// relative spells the row numbers of a cell's formula as offsets from its
// row ("L[0]", "$C$[-2]"), so that the formulas of every row read the same
// and the dump gathers them into ranges.
func relative(formula string, row int) string {
	return cellRef.ReplaceAllStringFunc(formula, func(ref string) string {
		m := cellRef.FindStringSubmatch(ref)
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return ref
		}
		return m[1] + "[" + strconv.Itoa(n-row) + "]"
	})
}

// dumpComputed writes the formulas, gathered by their relative text, and
// the conditional formats in order.
func dumpComputed(b *bytes.Buffer, t *testing.T, o *Offer) {
	rel := map[string]string{}
	for cell, f := range o.Formulas {
		_, row := split(t, cell)
		rel[cell] = relative(f, row)
	}
	for _, l := range byValue(t, rel) {
		fmt.Fprintf(b, "formula %s\n", l)
	}
	for _, c := range o.Conditional {
		fmt.Fprintf(b, "conditional %s\n", short(c))
	}
	// The metadata sheet's formulas, a row a line.
	byRow := map[int][]string{}
	var rows []int
	for cell := range o.MetaFormulas {
		_, row := split(t, cell)
		if byRow[row] == nil {
			rows = append(rows, row)
		}
		byRow[row] = append(byRow[row], cell)
	}
	slices.Sort(rows)
	for _, row := range rows {
		cells := byRow[row]
		slices.SortFunc(cells, func(a, b string) int { return cellCompare(t, a, b) })
		fs := make([]string, len(cells))
		for i, c := range cells {
			fs[i] = c + "=" + o.MetaFormulas[c]
		}
		fmt.Fprintf(b, "%s formulas %s\n", backend.SheetMeta, strings.Join(fs, " "))
	}
}
