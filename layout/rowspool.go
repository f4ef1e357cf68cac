package layout

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/annosheet/annosheet/backend"
)

// Scratch is temporary storage: written once from the start, then read
// at any offset, as often as needed, until closed.
type Scratch interface {
	io.Writer
	io.ReaderAt
	Close() error
}

// Scratcher is a Source that gives Build temporary storage for the rows
// it renders, which writing the plan reads back (package input's sources
// give temporary files). Build keeps the rows of a Source that is not one
// in memory.
type Scratcher interface {
	NewScratch() (Scratch, error)
}

// The row spool.
//
// Build's first pass renders every row of the Annotate sheet, for the
// warnings its cells give; the rows it renders are the rows the sheet
// holds. So the first pass keeps them, each record's rows encoded in
// temporary storage, and writing the sheet replays them: the input is not
// read, decoded or expanded again. The texts that the Read sheet holds
// whole are kept the same way, in storage of their own, as the first pass
// meets them.
//
// The storage is the Source's to give (Scratcher): package input gives
// temporary files, so that the rows are never all in memory. A Source
// that gives none has its rows kept in memory.
//
// Two facts are known only once every record is read: a template's
// opaque IDs (assignOpaqueIDs) and the mark that numbers a block's rows
// (rowMark). The ID and unit cells are kept as what they stand for
// (itemIDCell, unitIDCell) and filled in at replay, and so is what they
// add to their row's height: a row keeps the lines its other cells need,
// and a merged block the lines of its first row, and the replay counts the
// IDs' lines in (builder.finish), as itemRows counts them when nothing is
// pending.
//
// A record's rows are one record of the storage: its length, then the
// number of rows and the block's lines; each row's lines, the Read row
// its ID links to and its cell count; each cell's kind (with linkFlag
// when it has a link), its style's number in the spool's table, its value
// and its link. Numbers are varints, texts a length and their bytes.

// itemIDCell is an ID cell before the opaque IDs are known: the instance
// it names.
type itemIDCell struct{ item string }

// unitIDCell is a hidden unit cell before the opaque IDs and the row mark
// are known: the unit, and the row of its record (0 for the first).
type unitIDCell struct {
	unit string
	row  int
}

// Kinds of spooled cell values. A cell with a link has linkFlag set.
const (
	valNil byte = iota
	valString
	valInt
	valInt64
	valFloat
	valFalse
	valTrue
	valItemID
	valUnitID

	linkFlag byte = 0x80
)

// errSpoolClosed is returned by a replay after Result.Close.
var errSpoolClosed = errors.New("the rows of this build are gone (Result.Close was called)")

// rowSpool holds the Annotate sheet's rows and the Read sheet's texts of
// one build.
type rowSpool struct {
	rows, texts spoolFile
	styles      []backend.Style // interned: cells refer to them by number
	styleAt     map[backend.Style]int
	buf         []byte // the record being encoded
	closed      bool
}

// newRowSpool keeps rows in the storage src gives.
func newRowSpool(src Source) *rowSpool {
	scratch := func() (Scratch, error) { return &memScratch{}, nil }
	if s, ok := src.(Scratcher); ok {
		scratch = s.NewScratch
	}
	return &rowSpool{rows: spoolFile{scratch: scratch}, texts: spoolFile{scratch: scratch}, styleAt: map[backend.Style]int{}}
}

// style is the number of a style in the table, added if new.
func (s *rowSpool) style(st backend.Style) int {
	n, ok := s.styleAt[st]
	if !ok {
		n = len(s.styles)
		s.styles = append(s.styles, st)
		s.styleAt[st] = n
	}
	return n
}

// addItem keeps the rows of one record, as itemRows rendered them with
// pending set.
func (s *rowSpool) addItem(r *rendered) error {
	b := binary.AppendUvarint(s.buf[:0], uint64(len(r.rows)))
	b = binary.AppendUvarint(b, uint64(r.block))
	for k, row := range r.rows {
		b = binary.AppendUvarint(b, uint64(r.lines[k]))
		b = binary.AppendUvarint(b, uint64(r.links[k]))
		b = binary.AppendUvarint(b, uint64(len(row.Cells)))
		for _, c := range row.Cells {
			var err error
			if b, err = s.appendCell(b, c); err != nil {
				return err
			}
		}
	}
	s.buf = b
	return s.rows.add(b)
}

func (s *rowSpool) appendCell(b []byte, c backend.Cell) ([]byte, error) {
	at := len(b)
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(s.style(c.Style)))
	var kind byte
	switch v := c.Value.(type) {
	case nil:
		kind = valNil
	case string:
		kind, b = valString, appendString(b, v)
	case int:
		kind, b = valInt, binary.AppendVarint(b, int64(v))
	case int64:
		kind, b = valInt64, binary.AppendVarint(b, v)
	case float64:
		kind, b = valFloat, binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	case bool:
		kind = valFalse
		if v {
			kind = valTrue
		}
	case itemIDCell:
		kind, b = valItemID, appendString(b, v.item)
	case unitIDCell:
		kind, b = valUnitID, binary.AppendUvarint(appendString(b, v.unit), uint64(v.row))
	default:
		// Formulas among them: the Check cells are written at replay.
		return nil, fmt.Errorf("spool a row: a cell value of type %T", c.Value)
	}
	if l := c.Link; l != nil {
		kind |= linkFlag
		b = appendString(b, l.Sheet)
		b = binary.AppendUvarint(b, uint64(l.Row))
		b = binary.AppendUvarint(b, uint64(l.Col))
		b = binary.AppendUvarint(b, uint64(l.From))
	}
	b[at] = kind
	return b, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// addText keeps a text the Read sheet holds whole.
func (s *rowSpool) addText(t *readText) error {
	b := appendString(s.buf[:0], t.item)
	b = appendString(b, t.unit)
	for _, n := range []int{t.col, t.total, t.at, t.row} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	link := byte(0)
	if t.link {
		link = 1
	}
	b = append(b, link)
	b = binary.AppendUvarint(b, uint64(len(t.parts)))
	for _, p := range t.parts {
		b = appendString(b, p)
	}
	s.buf = b
	return s.texts.add(b)
}

// finish makes what was added ready to replay.
func (s *rowSpool) finish() error {
	s.buf = nil
	return errors.Join(s.rows.flush(), s.texts.flush())
}

// eachItem calls fn with the rows of every record in the order added,
// still pending. The rows are fn's to keep.
func (s *rowSpool) eachItem(fn func(*rendered) error) error {
	if s.closed {
		return errSpoolClosed
	}
	return s.rows.each(func(rec []byte) error {
		d := decoder{b: rec}
		n := d.uint()
		r := &rendered{block: d.uint()}
		if d.err == nil && n > len(rec) {
			d.err = errSpoolCorrupt
		}
		if d.err != nil {
			return d.err
		}
		r.rows, r.lines, r.links = make([]backend.Row, n), make([]int, n), make([]int, n)
		for k := range r.rows {
			r.lines[k], r.links[k] = d.uint(), d.uint()
			nc := d.uint()
			if d.err == nil && nc > len(rec) {
				d.err = errSpoolCorrupt
			}
			if d.err != nil {
				return d.err
			}
			cells := make([]backend.Cell, nc)
			for i := range cells {
				s.cell(&d, &cells[i])
			}
			r.rows[k].Cells = cells
		}
		if d.err == nil && len(d.b) > 0 {
			d.err = errSpoolCorrupt
		}
		if d.err != nil {
			return d.err
		}
		return fn(r)
	})
}

func (s *rowSpool) cell(d *decoder, c *backend.Cell) {
	kind := d.byte()
	st := d.uint()
	if d.err != nil {
		return
	}
	if st >= len(s.styles) {
		d.err = errSpoolCorrupt
		return
	}
	c.Style = s.styles[st]
	switch kind &^ linkFlag {
	case valNil:
	case valString:
		c.Value = d.string()
	case valInt:
		c.Value = int(d.int())
	case valInt64:
		c.Value = d.int()
	case valFloat:
		c.Value = math.Float64frombits(d.uint64())
	case valFalse:
		c.Value = false
	case valTrue:
		c.Value = true
	case valItemID:
		c.Value = itemIDCell{item: d.string()}
	case valUnitID:
		unit := d.string()
		c.Value = unitIDCell{unit: unit, row: d.uint()}
	default:
		d.err = errSpoolCorrupt
	}
	if kind&linkFlag != 0 {
		sheet := d.string()
		c.Link = &backend.Link{Sheet: sheet, Row: d.uint(), Col: d.uint(), From: d.uint()}
	}
}

// eachText calls fn with every text added, in order, its title still to
// make.
func (s *rowSpool) eachText(fn func(*readText) error) error {
	if s.closed {
		return errSpoolClosed
	}
	return s.texts.each(func(rec []byte) error {
		d := decoder{b: rec}
		t := &readText{sheet: backend.SheetAnnotate, item: d.string(), unit: d.string()}
		t.col, t.total, t.at, t.row = d.uint(), d.uint(), d.uint(), d.uint()
		t.link = d.byte() == 1
		n := d.uint()
		if d.err == nil && n > len(rec) {
			d.err = errSpoolCorrupt
		}
		if d.err != nil {
			return d.err
		}
		t.parts = make([]string, n)
		for i := range t.parts {
			t.parts[i] = d.string()
		}
		if d.err == nil && len(d.b) > 0 {
			d.err = errSpoolCorrupt
		}
		if d.err != nil {
			return d.err
		}
		return fn(t)
	})
}

// close closes the storage; a replay then fails.
func (s *rowSpool) close() error {
	s.closed = true
	return errors.Join(s.rows.close(), s.texts.close())
}

var errSpoolCorrupt = errors.New("the rows kept: a record is corrupt")

// decoder reads the fields of a record; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = errSpoolCorrupt
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errSpoolCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

// uint reads a count or a position: never more than an int holds.
func (d *decoder) uint() int {
	v := d.uvarint()
	if v > math.MaxInt && d.err == nil {
		d.err = errSpoolCorrupt
		return 0
	}
	return int(v)
}

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errSpoolCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.err = errSpoolCorrupt
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// string copies a string out of the record: each cell's text is its own,
// so that a backend that keeps one keeps no more than it.
func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errSpoolCorrupt
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// spoolFile is temporary storage of length-prefixed records, made when
// the first is added, written once and then read as often as needed.
type spoolFile struct {
	scratch func() (Scratch, error)
	f       Scratch
	w       *bufio.Writer
	size    int64
	err     error // the first error, which sticks
}

func (f *spoolFile) add(rec []byte) error {
	if f.err != nil {
		return f.err
	}
	if f.f == nil {
		s, err := f.scratch()
		if err != nil {
			f.err = fmt.Errorf("keep the rows: %w", err)
			return f.err
		}
		f.f, f.w = s, bufio.NewWriterSize(s, 1<<16)
	}
	var head [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(head[:], uint64(len(rec)))
	if _, err := f.w.Write(head[:n]); err != nil {
		f.err = fmt.Errorf("keep the rows: %w", err)
		return f.err
	}
	if _, err := f.w.Write(rec); err != nil {
		f.err = fmt.Errorf("keep the rows: %w", err)
		return f.err
	}
	f.size += int64(n + len(rec))
	return nil
}

func (f *spoolFile) flush() error {
	if f.err != nil || f.w == nil {
		return f.err
	}
	if err := f.w.Flush(); err != nil {
		f.err = fmt.Errorf("keep the rows: %w", err)
	}
	f.w = nil
	return f.err
}

// each calls fn with every record; rec is valid until fn returns.
func (f *spoolFile) each(fn func(rec []byte) error) error {
	if f.err != nil {
		return f.err
	}
	if f.f == nil {
		return nil // nothing was added
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f.f, 0, f.size), 1<<16)
	var buf []byte
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the rows kept: %w", err)
		}
		if n > uint64(f.size) {
			return fmt.Errorf("read the rows kept: %w", errSpoolCorrupt)
		}
		if uint64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return fmt.Errorf("read the rows kept: %w", err)
		}
		if err := fn(buf); err != nil {
			return err
		}
	}
}

func (f *spoolFile) close() error {
	var err error
	if f.f != nil {
		err = f.f.Close()
	}
	f.f, f.w, f.err = nil, nil, errSpoolClosed
	return err
}

// memScratch is Scratch in memory.
type memScratch struct{ b []byte }

func (m *memScratch) Write(p []byte) (int, error) {
	m.b = append(m.b, p...)
	return len(p), nil
}

func (m *memScratch) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memScratch) Close() error {
	m.b = nil
	return nil
}
