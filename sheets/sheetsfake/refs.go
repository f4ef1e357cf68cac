package sheetsfake

import (
	"regexp"
	"strconv"
	"strings"
)

// ref is a cell or range reference in a formula, with the sheet it names
// if any: Annotate!$P$5, 'My sheet'!A1:B2, C3.
var ref = regexp.MustCompile(`((?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!)?(\$?[A-Z]{1,3}\$?)([0-9]+)(?::(\$?[A-Z]{1,3}\$?)([0-9]+))?`)

// shiftFormulas moves the references of every formula of the book that
// point at rows of sheet sh from row at (0-based) on down by n rows, as
// Google does when rows are inserted: a reference follows its cell, and a
// range across the inserted rows grows. Cells are replaced, not changed
// in place, so that the transaction can undo it.
func shiftFormulas(t *tx, b *book, sh *sheet, at, n int64) {
	target := sh.props.Title
	for _, s := range b.sheets {
		for _, row := range s.cells {
			for c, cl := range row {
				if cl == nil || cl.value == nil || cl.value.FormulaValue == nil {
					continue
				}
				f := shiftRefs(*cl.value.FormulaValue, s == sh, target, at, n)
				if f == *cl.value.FormulaValue {
					continue
				}
				nc, nv := *cl, *cl.value
				nv.FormulaValue = &f
				nc.value = &nv
				old := cl
				row[c] = &nc
				t.undo = append(t.undo, func() { row[c] = old })
			}
		}
	}
}

// shiftRefs is a formula whose references to rows of sheet target from
// row at (0-based) on are moved down by n; own says the formula is on
// that sheet, where references without a sheet name are to it. Text in
// quotes is left alone, and so are names that merely look like cells
// (a function such as LOG10).
func shiftRefs(formula string, own bool, target string, at, n int64) string {
	parts := strings.Split(formula, `"`)
	for i := 0; i < len(parts); i += 2 {
		p := parts[i]
		var out strings.Builder
		last := 0
		for _, m := range ref.FindAllStringSubmatchIndex(p, -1) {
			start, end := m[0], m[1]
			if start > 0 && isNameChar(p[start-1]) || end < len(p) && (isNameChar(p[end]) || p[end] == '(') {
				continue
			}
			sheet := ""
			if m[2] >= 0 {
				sheet = strings.TrimSuffix(p[m[2]:m[3]], "!")
				if strings.HasPrefix(sheet, "'") {
					sheet = strings.ReplaceAll(sheet[1:len(sheet)-1], "''", "'")
				}
			}
			if sheet == "" && !own || sheet != "" && sheet != target {
				continue
			}
			out.WriteString(p[last:m[6]])
			out.WriteString(shiftRow(p[m[6]:m[7]], at, n))
			if m[8] >= 0 {
				out.WriteString(p[m[7]:m[10]])
				out.WriteString(shiftRow(p[m[10]:m[11]], at, n))
			}
			last = end
		}
		out.WriteString(p[last:])
		parts[i] = out.String()
	}
	return strings.Join(parts, `"`)
}

// shiftRow is a 1-based row number moved down by n if it is at or below
// row at (0-based).
func shiftRow(row string, at, n int64) string {
	r, err := strconv.ParseInt(row, 10, 64)
	if err != nil || r <= at {
		return row
	}
	return strconv.FormatInt(r+n, 10)
}

func isNameChar(c byte) bool {
	return c == '_' || c == '.' || c == '$' || c == '\'' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}
