package xlsx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/annosheet/annosheet/backend"
)

// lazyStrings is a large shared-strings table read as sheets need it.
// Excel and LibreOffice put the text of every cell there, the long
// context a reader passes over included: held whole, it would take as
// much memory as the text. Instead a sheet's reader queues the rows that
// name strings not held yet (see window), and one pass over the table
// then fetches what they name; only those are held, for the rest of the
// workbook's reading.
//
// A pass also holds short strings nothing has named yet, up to a budget
// (spare): the cells readers keep (answers, codes, IDs) are mostly
// short, the text they pass over long, so that the next sheet read
// mostly finds what it names held, and costs no pass of its own.
type lazyStrings struct {
	b *book

	mu         sync.Mutex
	count      int // strings in the table; -1 until a pass has read it
	ids        []uint32
	slots      []int32 // the index in held of string ids[k]
	held       sharedStrings
	prefetched bool
	passes     int   // over the table
	scanned    int64 // bytes read in them
	spareText  int   // bytes of text held that nothing had named
	spareCount int   // and strings
}

// sstView is what a sheet's reader looks strings up in: what lazyStrings
// held when it was taken. Held text is never moved or changed, so a view
// stays valid while later fetches add to the table.
type sstView struct {
	count int
	ids   []uint32
	slots []int32
	held  sharedStrings
}

func (l *lazyStrings) view() sstView {
	l.mu.Lock()
	defer l.mu.Unlock()
	return sstView{count: l.count, ids: l.ids, slots: l.slots, held: sharedStrings{blocks: slices.Clone(l.held.blocks), index: l.held.index}}
}

// lookup finds string i; ok is false when it is not held.
func (v *sstView) lookup(i int) (text []byte, ok bool) {
	k, found := slices.BinarySearch(v.ids, uint32(i))
	if !found {
		return nil, false
	}
	return v.held.bytes(int(v.slots[k])), true
}

// fetch reads the table once, holding the strings need names (sorted, no
// two the same) that it does not hold yet. The first fetch also holds
// what the first row of each worksheet names, so that a header row costs
// no pass of its own.
func (l *lazyStrings) fetch(need []uint32) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.prefetched {
		l.prefetched = true
		for _, e := range l.b.sheets {
			if e.worksheet {
				need = append(need, l.b.firstRowStrings(e.part)...)
			}
		}
		slices.Sort(need)
		need = slices.Compact(need)
	}
	need = slices.DeleteFunc(need, func(i uint32) bool {
		_, held := slices.BinarySearch(l.ids, i)
		return held
	})
	if len(need) == 0 && l.count >= 0 {
		return nil
	}
	newIDs := make([]uint32, 0, len(need))
	newSlots := make([]int32, 0, len(need))
	next, had := 0, 0 // in need and in l.ids, as the pass goes
	lim := l.b.lim
	// Each pass reads the whole table: a sheet whose rows name new
	// strings in every window would otherwise read it without end. (The
	// size the archive gives is checked as the part is read.)
	size := int64(min(l.b.parts[partKey(l.b.sstPart)].UncompressedSize64, 1<<40))
	if l.passes > 0 && l.scanned+size > lim.sstScan {
		return &readError{kind: ErrTooLarge, part: l.b.sstPart, msg: fmt.Sprintf("reading the sheets would pass over the shared strings again, beyond the %d bytes it may read in all", lim.sstScan)}
	}
	l.passes++
	l.scanned += size
	err := l.b.readPart(l.b.sstPart, func(s *xmlScanner) error {
		n, err := scanSharedStrings(s, lim, nil, func(i int) (bool, int) {
			for next < len(need) && int(need[next]) < i {
				next++
			}
			for had < len(l.ids) && int(l.ids[had]) < i {
				had++
			}
			switch {
			case next < len(need) && int(need[next]) == i:
				return true, 0
			case had < len(l.ids) && int(l.ids[had]) == i:
				return false, 0 // held already
			case l.spareText < lim.spareText && l.spareCount < lim.spareCount:
				return false, lim.spareLen
			}
			return false, 0
		}, func(i int, text []byte) error {
			named := next < len(need) && int(need[next]) == i
			switch {
			case !named && (l.spareText+len(text) > lim.spareText || l.held.total+len(text) > lim.sstBytes):
				return nil // beyond the budget: fetched if named
			case !named:
				l.spareText += len(text)
				l.spareCount++
			case l.held.total-l.spareText+len(text) > lim.sstBytes:
				// What spare strings take is not counted against what a
				// sheet names: it is bounded on its own.
				return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("the shared strings a sheet names hold more than %d bytes of text (MaxSharedStringBytes)", lim.sstBytes)}
			}
			newIDs = append(newIDs, uint32(i))
			newSlots = append(newSlots, int32(l.held.len()))
			l.held.add(text)
			return nil
		})
		l.count = n
		return err
	})
	if err != nil {
		l.count = -1
		return err
	}
	// Merged anew, so that the slices of earlier views stay as they were.
	ids := make([]uint32, 0, len(l.ids)+len(newIDs))
	slots := make([]int32, 0, len(l.ids)+len(newIDs))
	a, b := 0, 0
	for a < len(l.ids) || b < len(newIDs) {
		if b == len(newIDs) || a < len(l.ids) && l.ids[a] < newIDs[b] {
			ids, slots = append(ids, l.ids[a]), append(slots, l.slots[a])
			a++
		} else {
			ids, slots = append(ids, newIDs[b]), append(slots, newSlots[b])
			b++
		}
	}
	l.ids, l.slots = ids, slots
	return nil
}

// errFirstRow ends the reading of a sheet's first row.
var errFirstRow = errors.New("first row read")

// firstRowStrings is the numbers of the shared strings the first row of
// cells of a worksheet names. A damaged part gives what was read before
// the damage: reading the sheet reports it.
func (b *book) firstRowStrings(part string) []uint32 {
	s, rc, err := b.openPart(part)
	if err != nil {
		return nil
	}
	defer rc.Close()
	var ids []uint32
	if rootIs(s, "worksheet") != nil {
		return nil
	}
	s.children(func(local []byte) error {
		if string(local) != "sheetData" {
			return nil
		}
		return s.children(func(local []byte) error {
			if string(local) != "row" {
				return nil
			}
			cells := 0
			err := s.children(func(local []byte) error {
				if string(local) != "c" {
					return nil
				}
				cells++
				if t, _ := s.attrValue("t"); string(t) != "s" {
					return nil
				}
				s.text, s.textLimit = s.text[:0], 32
				return s.children(func(local []byte) error {
					if string(local) != "v" {
						return nil
					}
					if err := readText(s); err != nil {
						return err
					}
					if i, ok := parseIndex(bytes.Trim(s.text, xmlSpace)); ok && i < b.lim.sstCount {
						ids = append(ids, uint32(i))
					}
					return nil
				})
			})
			if err == nil && cells > 0 {
				err = errFirstRow
			}
			return err
		})
	})
	return ids
}

// window holds the rows of a sheet that name shared strings not held
// yet, compactly, until a pass over the table can fetch them all.
type window struct {
	rows  []windowRow
	cells []windowCell
	text  []byte // the text of the cells that are not shared strings
	need  []uint32
}

type windowRow struct{ n, first, end int } // cells[first:end]

// windowCell is a cell of a queued row: a shared string (ref) or a
// value whose Value, Shown and Formula are in text at off, each after
// its length.
type windowCell struct {
	col int32
	typ backend.CellType
	ref bool
	x   uint32 // the string's number, or the offset in text
}

func (w *window) empty() bool { return len(w.rows) == 0 }

func (w *window) full(lim readLimits) bool {
	return len(w.cells) >= lim.winCells || len(w.text) >= lim.winText
}

// add queues row n, whose cells at refs[k].pos are shared strings.
func (w *window) add(n int, cells []backend.ReadCell, refs []sstRef) {
	first := len(w.cells)
	k := 0
	for col, c := range cells {
		if k < len(refs) && refs[k].pos == col {
			w.cells = append(w.cells, windowCell{col: int32(col), ref: true, x: refs[k].id})
			w.need = append(w.need, refs[k].id)
			k++
			continue
		}
		if c == (backend.ReadCell{}) {
			continue
		}
		w.cells = append(w.cells, windowCell{col: int32(col), typ: c.Type, x: uint32(len(w.text))})
		for _, s := range []string{c.Value, c.Shown, c.Formula} {
			w.text = binary.AppendUvarint(w.text, uint64(len(s)))
			w.text = append(w.text, s...)
		}
	}
	w.rows = append(w.rows, windowRow{n: n, first: first, end: len(w.cells)})
}

// sstRef is a cell of the row being read that names shared string id,
// not held yet.
type sstRef struct {
	pos int
	id  uint32
}

// flush fetches what the queued rows name and gives them to the reader
// in order.
func (r *sheetReader) flush() error {
	w := &r.win
	if w.empty() {
		return nil
	}
	slices.Sort(w.need)
	if err := r.lazy.fetch(slices.Compact(w.need)); err != nil {
		return r.b.sstErr(err)
	}
	r.view = r.lazy.view()
	var cells []backend.ReadCell
	for _, row := range w.rows {
		cells = cells[:0]
		size := 0
		for _, wc := range w.cells[row.first:row.end] {
			for len(cells) < int(wc.col) {
				cells = append(cells, backend.ReadCell{})
			}
			var c backend.ReadCell
			if wc.ref {
				text, err := r.sharedString(int(wc.x), wc.col, row.n)
				if err != nil {
					return err
				}
				c.Value = string(text)
			} else {
				c.Type = wc.typ
				rest := w.text[wc.x:]
				for _, s := range []*string{&c.Value, &c.Shown, &c.Formula} {
					n, k := binary.Uvarint(rest)
					*s, rest = string(rest[k:k+int(n)]), rest[k+int(n):]
				}
			}
			if size += len(c.Value) + len(c.Shown) + len(c.Formula); size > r.b.lim.row {
				return &readError{kind: ErrTooLarge, row: row.n, msg: fmt.Sprintf("more than %d bytes of text in one row (MaxRowBytes)", r.b.lim.row)}
			}
			cells = append(cells, c)
		}
		if err := r.deliver(row.n, cells); err != nil {
			return err
		}
	}
	w.rows, w.cells, w.text, w.need = w.rows[:0], w.cells[:0], w.text[:0], w.need[:0]
	return nil
}

// sharedString is string i, which cell col of row n names, from the
// strings held.
func (r *sheetReader) sharedString(i int, col int32, n int) ([]byte, error) {
	text, ok := r.view.lookup(i)
	if !ok {
		e := r.damaged("shared string %q does not exist (there are %d)", strconv.Itoa(i), r.view.count)
		e.(*readError).cell = backend.CellName(int(col), n)
		return nil, e
	}
	return text, nil
}

// sstErr names the shared-strings part in an error met reading it.
func (b *book) sstErr(err error) error {
	var re *readError
	if errors.As(err, &re) && re.part == "" {
		re.part = b.sstPart
	}
	return err
}
