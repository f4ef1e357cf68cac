package xlsx

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// sharedStrings is a workbook's table of shared strings, held compactly:
// the text in blocks of sstBlock bytes (a string never spans two), and
// for each string one uint64 that says where it is. Growing by blocks
// never copies what is already read, so a large table takes little more
// memory than its text.
type sharedStrings struct {
	blocks [][]byte
	index  []uint64 // block<<(sstOffBits+sstLenBits) | offset<<sstLenBits | length
	total  int
	first  int // the capacity of the first block, when known
}

const (
	sstOffBits = 22
	sstBlock   = 1 << sstOffBits // 4 MiB, above MaxCellBytes
	sstLenBits = 23              // a string is at most sstBlock long
)

func (t *sharedStrings) len() int { return len(t.index) }

func (t *sharedStrings) bytes(i int) []byte {
	x := t.index[i]
	n := int(x & (1<<sstLenBits - 1))
	off := int(x >> sstLenBits & (sstBlock - 1))
	return t.blocks[x>>(sstOffBits+sstLenBits)][off : off+n]
}

// add appends a string (at most sstBlock bytes).
func (t *sharedStrings) add(s []byte) {
	last := len(t.blocks) - 1
	if last < 0 || len(t.blocks[last])+len(s) > sstBlock {
		// The first block grows as needed, so that a small table stays
		// small; later ones are made whole.
		size := t.first
		if last >= 0 {
			size = sstBlock
		}
		t.blocks = append(t.blocks, make([]byte, 0, size))
		last++
	}
	off := len(t.blocks[last])
	t.blocks[last] = append(t.blocks[last], s...)
	t.index = append(t.index, uint64(last)<<(sstOffBits+sstLenBits)|uint64(off)<<sstLenBits|uint64(len(s)))
	t.total += len(s)
}

// readSharedStrings reads the shared-strings part whole.
func readSharedStrings(s *xmlScanner, lim readLimits, size int) (*sharedStrings, error) {
	t := &sharedStrings{first: min(size, sstBlock)}
	_, err := scanSharedStrings(s, lim, func(n int) {
		// A hint only: the count is checked as the strings come.
		t.index = make([]uint64, 0, min(n, lim.sstCount, 1<<20))
	}, nil, func(_ int, text []byte) error {
		if t.total+len(text) > lim.sstBytes {
			return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("the shared strings hold more than %d bytes of text (MaxSharedStringBytes)", lim.sstBytes)}
		}
		t.add(text)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// scanSharedStrings reads the shared-strings part: each <si> is a
// string, its text the <t> of a plain string or the <t> of each run
// (<r>) of a rich one; phonetic runs (<rPh>) are not shown and are left
// out. It calls hint with the count the part gives, if any; then, for
// each string want says yes to (every one when want is nil), keep with
// its number and its text, which is valid until keep returns. Of a
// string want says no to but gives a clip for, keep has the text if it
// is at most clip bytes long and its rich text is as ECMA-376 allows.
// The text of the others is checked and passed over. It returns the
// number of strings.
func scanSharedStrings(s *xmlScanner, lim readLimits, hint func(int), want func(i int) (yes bool, clip int), keep func(i int, text []byte) error) (int, error) {
	if err := rootIs(s, "sst"); err != nil {
		return 0, err
	}
	if v, ok := s.attrValue("uniqueCount"); ok && hint != nil {
		if n, err := strconv.Atoi(string(v)); err == nil && n > 0 {
			hint(n)
		}
	}
	s.textLimit = min(lim.cell, sstBlock)
	n := 0
	err := s.children(func(local []byte) error {
		if string(local) != "si" {
			return nil
		}
		if n == lim.sstCount {
			return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("more than %d shared strings (MaxSharedStrings)", lim.sstCount)}
		}
		i := n
		n++
		clip := 0
		if want != nil {
			var yes bool
			if yes, clip = want(i); !yes && clip <= 0 {
				return s.skip()
			}
		}
		s.text, s.clip, s.clipped = s.text[:0], clip, false
		err := readRichText(s)
		clipped := s.clipped
		s.clip, s.clipped = 0, false
		switch {
		case clip > 0 && (clipped || err == errRichText):
			return nil // not wanted, and not as short or as plain as asked
		case err == errRichText:
			return &readError{kind: ErrDamaged, msg: fmt.Sprintf("shared string %d: %v", i, err)}
		case err != nil:
			return err
		}
		return keep(i, decodeEscapes(s.text))
	})
	if err != nil {
		// Only the text of an <si> is kept, so only it can pass the
		// limit: string n-1, being read.
		return n, sstError(err, n-1, lim)
	}
	return n, nil
}

func sstError(err error, i int, lim readLimits) error {
	if isTextLimit(err) {
		return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("shared string %d holds more than %d bytes of text (MaxCellBytes)", i, lim.cell), cause: err}
	}
	return err
}

// rootIs reads the root element, which must be named local.
func rootIs(s *xmlScanner, local string) error {
	k, err := s.next()
	if err != nil {
		return err
	}
	if k != tokStart || string(s.local) != local {
		return &readError{kind: ErrDamaged, msg: fmt.Sprintf("its root element is <%s>, not <%s>", s.name, local)}
	}
	return nil
}

// errRichText is the error of readRichText for rich text ECMA-376 does
// not allow, which readers make different text of.
var errRichText = errors.New("its text is in two plain parts, or in one after its runs")

// readRichText reads the children of an <si> or an <is> to its end,
// appending its text to s.text: the text of its <t>, then of each run
// (<r>). ECMA-376 allows at most one <t>, before any run: readers make
// different text of more (excelize the last, then the runs; LibreOffice
// each in turn), so they are an error, errRichText, given once the
// element is read. A run of more than one <t> has its last, as both make
// it.
func readRichText(s *xmlScanner) error {
	plain, runs, bad := 0, 0, false
	err := s.children(func(local []byte) error {
		switch string(local) {
		case "t":
			if plain++; plain > 1 || runs > 0 {
				// Passed over, and said once the element is read, so
				// that a caller may pass over the string.
				bad = true
				return nil
			}
			return readText(s)
		case "r":
			runs++
			at := len(s.text)
			return s.children(func(local []byte) error {
				if string(local) != "t" {
					return nil
				}
				s.text = s.text[:at]
				return readText(s)
			})
		}
		return nil // rPh, phoneticPr
	})
	if err == nil && bad {
		return errRichText
	}
	return err
}

// readText appends the text of the element just started to s.text; an
// element within it is skipped, its text not kept.
func readText(s *xmlScanner) error {
	s.keep = true
	defer func() { s.keep = false }()
	return s.children(func([]byte) error { return nil })
}

// decodeEscapes decodes the _xHHHH_ escapes of Office Open XML strings
// (ECMA-376 Part 1, 22.9.2.19 ST_Xstring), by which text carries
// characters XML cannot: _x000D_ is a carriage return, and _x005F_ an
// underscore that keeps the next escape literal. It decodes in place.
func decodeEscapes(b []byte) []byte {
	i := bytes.Index(b, []byte("_x"))
	if i < 0 {
		return b
	}
	out := b[:i]
	for i < len(b) {
		if b[i] == '_' && i+7 <= len(b) && b[i+1] == 'x' && b[i+6] == '_' {
			if v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16); err == nil {
				out = utf8Append(out, rune(v))
				i += 7
				continue
			}
		}
		out = append(out, b[i])
		i++
	}
	return out
}

func utf8Append(b []byte, r rune) []byte {
	if 0xD800 <= r && r <= 0xDFFF {
		r = 0xFFFD // half of a surrogate pair: no character
	}
	return utf8.AppendRune(b, r)
}
