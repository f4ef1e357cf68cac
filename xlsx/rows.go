package xlsx

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
)

// maxSheetLinks is the most hyperlinks Excel keeps on a sheet.
const maxSheetLinks = 65530

// rowsWriter renders a sheet's rows as the XML of its sheetData element.
// Cells are written as excelize's stream writer writes them (see
// cellxml.go), into a buffer that goes out in pieces of bufSize.
type rowsWriter struct {
	w        io.Writer
	buf      []byte
	refs     []string // column letters
	colStyle []int    // each column's style, for cells of style 0
	styles   map[backend.Style]int
	merges   []backend.Merge
	links    []link
	linkAt   map[string]int // index in links by cell
	num      []byte
}

// link is a hyperlink within the workbook, from a cell.
type link struct{ ref, location string }

const bufSize = 64 << 10

func (rw *rowsWriter) ref(col int) string {
	for len(rw.refs) <= col {
		rw.refs = append(rw.refs, backend.ColumnLetter(len(rw.refs)))
	}
	return rw.refs[col]
}

// row appends row n.
func (rw *rowsWriter) row(n int, r backend.Row) error {
	if r.Height > excelize.MaxRowHeight {
		return fmt.Errorf("row %d: %w", n, excelize.ErrMaxRowHeight)
	}
	rw.num = strconv.AppendInt(rw.num[:0], int64(n), 10)
	b := append(rw.buf, `<row r="`...)
	b = append(b, rw.num...)
	b = append(b, '"')
	if r.Height > 0 {
		b = append(b, ` ht="`...)
		b = strconv.AppendFloat(b, r.Height, 'f', -1, 64)
		b = append(b, `" customHeight="1"`...)
	}
	b = append(b, '>')
	for i, c := range r.Cells {
		id, ok := rw.styles[c.Style]
		if !ok {
			rw.buf = b
			return fmt.Errorf("cell %s%d: its style was not declared before the rows were written", rw.ref(i), n)
		}
		if id == 0 && i < len(rw.colStyle) {
			id = rw.colStyle[i]
		}
		b = append(b, `<c r="`...)
		b = append(b, rw.ref(i)...)
		b = append(b, rw.num...)
		b = append(b, '"')
		if id != 0 {
			b = append(b, ` s="`...)
			b = strconv.AppendInt(b, int64(id), 10)
			b = append(b, '"')
		}
		var err error
		if b, err = appendValue(b, c.Value); err != nil {
			rw.buf = b
			return fmt.Errorf("cell %s%d: %w", rw.ref(i), n, err)
		}
		b = append(b, `</c>`...)
		if c.Link != nil && c.Link.From == 0 {
			if _, ok := c.Value.(string); !ok {
				rw.buf = b
				return fmt.Errorf("cell %s%d links to %s but holds no text", rw.ref(i), n, c.Link.Ref())
			}
			if err := rw.addLink(i, n, c.Link.Ref()); err != nil {
				rw.buf = b
				return err
			}
		}
	}
	rw.buf = append(b, `</row>`...)
	if len(rw.buf) >= bufSize {
		return rw.flush()
	}
	return nil
}

// appendValue appends a cell's type attribute, the end of its start tag
// and its value.
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, '>'), nil
	case string:
		b = append(b, ` t="inlineStr">`...)
		return appendCellText(b, v), nil
	case backend.Formula:
		if v.Text == "" {
			return append(b, '>'), nil
		}
		b = append(b, ` t="str"><f>`...)
		b = appendEscaped(b, v.Text, true)
		return append(b, `</f>`...), nil
	case bool:
		if v {
			return append(b, ` t="b"><v>1</v>`...), nil
		}
		return append(b, ` t="b"><v>0</v>`...), nil
	case int:
		return appendNumber(b, strconv.Itoa(v)), nil
	case int64:
		return appendNumber(b, strconv.FormatInt(v, 10)), nil
	case int32:
		return appendNumber(b, strconv.FormatInt(int64(v), 10)), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, ` t="inlineStr">`...)
			return appendCellText(b, fmt.Sprint(v)), nil
		}
		return appendNumber(b, strconv.FormatFloat(v, 'f', -1, 64)), nil
	}
	return b, fmt.Errorf("a value of type %T cannot be written", v)
}

func appendNumber(b []byte, s string) []byte {
	b = append(b, `><v>`...)
	b = append(b, s...)
	return append(b, `</v>`...)
}

// addLink links cell (col, row), or the merged range it is in, to
// location; a later link of the same cell replaces the earlier.
func (rw *rowsWriter) addLink(col, row int, location string) error {
	for _, m := range rw.merges {
		if col >= m.FirstCol && col <= m.LastCol && row >= m.FirstRow && row <= m.LastRow {
			col, row = m.FirstCol, m.FirstRow
			break
		}
	}
	ref := rw.ref(col) + strconv.Itoa(row)
	if k, ok := rw.linkAt[ref]; ok {
		rw.links[k].location = location
		return nil
	}
	if len(rw.links) >= maxSheetLinks {
		return fmt.Errorf("cell %s: a sheet holds at most %d links", ref, maxSheetLinks)
	}
	if rw.linkAt == nil {
		rw.linkAt = map[string]int{}
	}
	rw.linkAt[ref] = len(rw.links)
	rw.links = append(rw.links, link{ref, location})
	return nil
}

func (rw *rowsWriter) flush() error {
	if len(rw.buf) == 0 {
		return nil
	}
	_, err := rw.w.Write(rw.buf)
	rw.buf = rw.buf[:0]
	return err
}

// appendLinks appends the hyperlinks element of the links written.
func (rw *rowsWriter) appendLinks(b []byte) []byte {
	if len(rw.links) == 0 {
		return b
	}
	b = append(b, `<hyperlinks>`...)
	for _, l := range rw.links {
		b = append(b, `<hyperlink ref="`...)
		b = append(b, l.ref...)
		b = append(b, `" location="`...)
		b = appendEscaped(b, l.location, true)
		b = append(b, `" tooltip="`...)
		b = appendEscaped(b, linkTip, true)
		b = append(b, `"></hyperlink>`...)
	}
	return append(b, `</hyperlinks>`...)
}
