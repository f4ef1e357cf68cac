package xlsx

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
)

// sheetReader streams the rows of one worksheet part: <sheetData> holds
// <row> elements, each of <c> cells, each with a value <v>, a formula
// <f> or an inline string <is>. Everything else in the part is checked
// and passed over.
type sheetReader struct {
	b      *book
	s      *xmlScanner
	sst    *sharedStrings // a table read whole, or nil
	styles *styles

	// A table read as needed (when sst is nil): what it held when last
	// looked at, the cells of the row being read that name strings not
	// held yet, the rows queued until a pass over it, and the number of
	// header rows it was read for alone.
	lazy  *lazyStrings
	view  sstView
	refs  []sstRef
	win   window
	early int

	fn func(row int, cells []backend.ReadCell) error
	// keep, when set, says which columns to read once fn has had a row;
	// the cells of the others are passed over, their text not decoded.
	keep      func(col int) bool
	delivered bool // fn has had a row

	row      int  // the number of the row being read, or the last one
	inRow    bool // within a <row>
	col      int  // 0-based column of the cell being read, or the last one
	inCell   bool
	cells    []backend.ReadCell
	rowBytes int
}

// callbackError carries the error of the caller's fn through the reader
// untouched.
type callbackError struct{ err error }

func (e *callbackError) Error() string { return e.err.Error() }

func (b *book) readSheet(part string, t tables, keep func(int) bool, fn func(int, []backend.ReadCell) error) error {
	s, rc, err := b.openPart(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	r := &sheetReader{b: b, s: s, sst: t.sst, lazy: t.lazy, styles: t.styles, keep: keep, fn: fn}
	if r.lazy != nil {
		r.view = r.lazy.view()
	}
	err = r.read()
	var ce *callbackError
	switch {
	case err == nil:
		b.check.readWhole(b.parts[partKey(part)])
		return nil
	case errors.As(err, &ce):
		return ce.err
	}
	return r.locate(part, err)
}

// locate gives an error the file, part, row and cell where it was met.
func (r *sheetReader) locate(part string, err error) error {
	var re *readError
	if !errors.As(err, &re) {
		if isTextLimit(err) {
			err = &readError{kind: ErrTooLarge, msg: fmt.Sprintf("more than %d bytes of text in one cell (MaxCellBytes)", r.b.lim.cell), cause: err}
		}
	}
	err = r.b.partErr(part, err)
	// An error of the shared strings, read while the sheet is, names
	// their part, not a cell of the sheet.
	if errors.As(err, &re) && re.part == part && re.row == 0 && re.cell == "" {
		switch {
		case r.inCell:
			re.cell = backend.CellName(r.col, r.row)
		case r.inRow:
			re.row = r.row
		}
	}
	return err
}

func isTextLimit(err error) bool { return errors.Is(err, errTextLimit) }

func (r *sheetReader) damaged(format string, args ...any) error {
	return &readError{kind: ErrDamaged, msg: fmt.Sprintf(format, args...)}
}

func (r *sheetReader) tooLarge(format string, args ...any) error {
	return &readError{kind: ErrTooLarge, msg: fmt.Sprintf(format, args...)}
}

func (r *sheetReader) read() error {
	s := r.s
	if err := rootIs(s, "worksheet"); err != nil {
		return err
	}
	err := s.children(func(local []byte) error {
		if string(local) != "sheetData" {
			return nil
		}
		if err := r.sheetData(); err != nil {
			return err
		}
		return r.flush()
	})
	if err != nil {
		return err
	}
	// The rest of the part is read too: a damaged end, or a bad
	// checksum, is an error even after the last row.
	return s.finish()
}

func (r *sheetReader) sheetData() error {
	return r.s.children(func(local []byte) error {
		if string(local) == "row" {
			return r.readRow()
		}
		return nil
	})
}

func (r *sheetReader) readRow() error {
	s := r.s
	n := r.row + 1
	if v, ok := s.attrValue("r"); ok {
		var valid bool
		if n, valid = parseNumber(v); !valid {
			return r.damaged("a row numbered %q", v)
		}
	}
	if n > r.b.lim.rows {
		return r.tooLarge("row %d is beyond the last row a sheet has, %d (MaxRows)", n, r.b.lim.rows)
	}
	if n <= r.row {
		return r.damaged("row %d comes after row %d", n, r.row)
	}
	r.row, r.inRow, r.col = n, true, -1
	r.cells, r.rowBytes, r.refs = r.cells[:0], 0, r.refs[:0]
	err := s.children(func(local []byte) error {
		if string(local) == "c" {
			return r.readCell()
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.inRow = false
	if len(r.refs) > 0 || !r.win.empty() {
		return r.queue(n)
	}
	return r.deliver(n, r.cells)
}

// deliver gives row n to the caller, unless it has no cell.
func (r *sheetReader) deliver(n int, cells []backend.ReadCell) error {
	for len(cells) > 0 && cells[len(cells)-1] == (backend.ReadCell{}) {
		cells = cells[:len(cells)-1]
	}
	if len(cells) == 0 {
		return nil
	}
	// A row of its own for the caller, which may keep it.
	out := make([]backend.ReadCell, len(cells))
	copy(out, cells)
	if err := r.fn(n, out); err != nil {
		return &callbackError{err}
	}
	r.delivered = true
	return nil
}

// queue holds row n, which names shared strings not held yet, until
// they are fetched. A first row is not queued: what keep says of the
// rows after it may depend on it. Rows are queued in order, so once one
// is, every row is until they are given.
func (r *sheetReader) queue(n int) error {
	if !r.delivered && r.keep != nil && r.win.empty() && r.early < 2 {
		// At most twice: a sheet of rows that all turn out empty would
		// otherwise cost a pass over the table for each.
		r.early++
		need := make([]uint32, 0, len(r.refs))
		for _, ref := range r.refs {
			need = append(need, ref.id)
		}
		slices.Sort(need)
		if err := r.lazy.fetch(slices.Compact(need)); err != nil {
			return err
		}
		r.view = r.lazy.view()
		for _, ref := range r.refs {
			text, err := r.sharedString(int(ref.id), int32(ref.pos), n)
			if err != nil {
				return err
			}
			if r.rowBytes += len(text); r.rowBytes > r.b.lim.row {
				return r.rowTooLarge()
			}
			r.cells[ref.pos].Value = string(text)
		}
		return r.deliver(n, r.cells)
	}
	r.win.add(n, r.cells, r.refs)
	if r.win.full(r.b.lim) {
		return r.flush()
	}
	return nil
}

// parseIndex reads a decimal number of 0 or more; one too large to
// matter reads as 1<<31.
func parseIndex(v []byte) (int, bool) {
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = min(n*10+int(c-'0'), 1<<31)
	}
	return n, len(v) > 0
}

// xmlSpace is XML's white space, which a shared string's number may have
// around it.
const xmlSpace = " \t\r\n"

// parseNumber reads a decimal number of 1 or more, as row numbers are.
func parseNumber(v []byte) (int, bool) {
	n, ok := parseIndex(v)
	return n, ok && n > 0
}

// parseCellRef reads an A1 reference as a 0-based column and a row.
func parseCellRef(v []byte) (col, row int, ok bool) {
	i := 0
	for ; i < len(v); i++ {
		c := v[i] &^ 0x20 // upper case
		if c < 'A' || c > 'Z' {
			break
		}
		col = min(col*26+int(c-'A'+1), 1<<31)
	}
	if i == 0 {
		return 0, 0, false
	}
	row, ok = parseNumber(v[i:])
	return col - 1, row, ok
}

// Cell types, from the t attribute.
const (
	tNumber = iota
	tShared
	tInline
	tStr
	tBool
	tError
	tDate
)

func (r *sheetReader) readCell() error {
	s := r.s
	col := r.col + 1
	if ref, ok := s.attrValue("r"); ok {
		c, row, valid := parseCellRef(ref)
		switch {
		case !valid:
			return r.damaged("a cell named %q", ref)
		case row != r.row:
			return r.damaged("a cell named %s in row %d", ref, r.row)
		}
		col = c
	}
	if col >= r.b.lim.cols {
		return r.tooLarge("a cell beyond the last column a sheet has, %s (MaxColumns)", backend.ColumnLetter(r.b.lim.cols-1))
	}
	if col <= r.col {
		return r.damaged("cell %s comes after %s in its row", backend.CellName(col, r.row), backend.CellName(r.col, r.row))
	}
	r.col, r.inCell = col, true
	style := 0
	if v, ok := s.attrValue("s"); ok {
		var valid bool
		if style, valid = parseIndex(v); !valid {
			return r.damaged("a cell format numbered %q", v)
		}
	}
	typ := tNumber
	t, hasT := s.attrValue("t")
	if r.delivered && r.keep != nil && !r.keep(col) {
		// Passed over, but checked: its type, and the XML within.
		if hasT && !knownType(t) {
			return r.damaged("a cell of the unknown type %q", t)
		}
		if err := s.skip(); err != nil {
			return err
		}
		r.inCell = false
		return nil
	}
	if hasT {
		switch string(t) {
		case "n":
		case "s":
			typ = tShared
		case "inlineStr":
			typ = tInline
		case "str":
			typ = tStr
		case "b":
			typ = tBool
		case "e":
			typ = tError
		case "d":
			typ = tDate
		default:
			return r.damaged("a cell of the unknown type %q", t)
		}
	}
	s.text, s.textLimit = s.text[:0], r.b.lim.cell
	var v0, v1, f0, f1, is0, is1 int
	var hasV, hasF, hasIS bool
	err := s.children(func(local []byte) (err error) {
		switch string(local) {
		case "v":
			v0 = len(s.text)
			err = readText(s)
			v1, hasV = len(s.text), true
		case "f":
			f0 = len(s.text)
			err = readText(s)
			f1, hasF = len(s.text), true
		case "is":
			is0 = len(s.text)
			if err = readRichText(s); err == errRichText {
				err = r.damaged("an inline string: %v", err)
			}
			is1, hasIS = len(s.text), true
		}
		return err
	})
	if err != nil {
		return err
	}
	var c backend.ReadCell
	v := s.text[v0:v1]
	// An empty <v/> is no value but in a text cell (openpyxl writes one
	// after every formula; Excel writes one for a formula giving "").
	text := typ == tStr || typ == tInline
	noValue := !hasV || len(v) == 0 && !text
	switch {
	case hasF && noValue && !(typ == tInline && hasIS):
		// A formula whose value was never computed.
		c = backend.ReadCell{Type: backend.CellNoValue, Formula: string(s.text[f0:f1])}
	case typ == tInline:
		if hasIS {
			v = s.text[is0:is1]
		}
		c.Value = string(decodeEscapes(v))
	case noValue:
		// An empty cell, perhaps with a format.
	case typ == tShared && r.sst == nil:
		i, ok := parseIndex(bytes.Trim(v, xmlSpace))
		switch {
		case !ok && r.view.count < 0:
			return r.damaged("shared string %q does not exist", v)
		case !ok || i >= r.view.count && r.view.count >= 0:
			return r.damaged("shared string %q does not exist (there are %d)", v, r.view.count)
		}
		b, held := r.view.lookup(i)
		if !held {
			// Looked up once the table is read (see queue).
			r.refs = append(r.refs, sstRef{pos: col, id: uint32(i)})
			break
		}
		if r.rowBytes+len(b) > r.b.lim.row {
			return r.rowTooLarge()
		}
		c.Value = string(b)
	case typ == tShared:
		i, ok := parseIndex(bytes.Trim(v, xmlSpace))
		if !ok || i >= r.sst.len() {
			return r.damaged("shared string %q does not exist (there are %d)", v, r.sst.len())
		}
		b := r.sst.bytes(i)
		if r.rowBytes+len(b) > r.b.lim.row {
			return r.rowTooLarge()
		}
		c.Value = string(b)
	case typ == tStr:
		c.Value = string(decodeEscapes(v))
	case typ == tBool:
		switch strings.ToLower(strings.TrimSpace(string(v))) {
		case "1", "true":
			c = backend.ReadCell{Type: backend.CellBool, Value: "TRUE"}
		case "0", "false":
			c = backend.ReadCell{Type: backend.CellBool, Value: "FALSE"}
		default:
			return r.damaged("a true/false cell holding %q", v)
		}
	case typ == tError:
		c = backend.ReadCell{Type: backend.CellError, Value: string(v)}
	case typ == tDate:
		serial, ok := isoDate(string(v), r.b.date1904)
		f, _ := r.styles.date(style)
		shown, shows := f.render(serial, r.b.date1904)
		if !ok || !shows {
			return r.damaged("a date cell holding %q, which is no ISO 8601 date from 1900 to 9999", v)
		}
		c = backend.ReadCell{Type: backend.CellDate, Value: strconv.FormatFloat(serial, 'f', -1, 64), Shown: shown}
	default: // a number, perhaps shown as a date
		c = backend.ReadCell{Type: backend.CellNumber, Value: string(v)}
		if f, ok := r.styles.date(style); ok {
			if serial, err := strconv.ParseFloat(strings.TrimSpace(c.Value), 64); err == nil {
				if shown, ok := f.render(serial, r.b.date1904); ok {
					c.Type, c.Shown = backend.CellDate, shown
				}
			}
		}
	}
	if r.rowBytes += len(c.Value) + len(c.Shown) + len(c.Formula); r.rowBytes > r.b.lim.row {
		return r.rowTooLarge()
	}
	for len(r.cells) < col {
		r.cells = append(r.cells, backend.ReadCell{})
	}
	r.cells = append(r.cells, c)
	r.inCell = false
	return nil
}

// knownType is whether v is one of the cell types (the t attribute).
func knownType(v []byte) bool {
	switch string(v) {
	case "n", "s", "inlineStr", "str", "b", "e", "d":
		return true
	}
	return false
}

func (r *sheetReader) rowTooLarge() error {
	r.inCell = false
	return r.tooLarge("more than %d bytes of text in one row (MaxRowBytes)", r.b.lim.row)
}
