package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/annosheet/annosheet/internal/safetext"
)

// Limits on what a workbook may inflate to. Real workbooks stay far
// below them: a 100,000-row study's Annotate sheet is some hundreds of MB
// of XML, compressed 3 to 35 times. A part may inflate to MaxPartRatio
// times its compressed size (at least MinPartLimit, at most MaxPart), and
// all parts together to MaxTotal; a zip bomb passes none of these.
const (
	MaxPart      = 2 << 30
	MinPartLimit = 64 << 20
	MaxPartRatio = 200
	MaxTotal     = 4 << 30
)

// ErrTooLarge is wrapped when a workbook inflates beyond the limits
// above, or its content beyond the reader's budgets (MaxCellBytes and
// the others).
var ErrTooLarge = errors.New("the workbook is beyond annosheet's limits")

// ErrDTD is wrapped when a part of a workbook declares a DTD or entities,
// which no spreadsheet application writes.
var ErrDTD = errors.New("a part declares a DTD or entities")

// lateCheckBytes is the compressed size from which openBook puts off
// checking a part until the workbook is closed, and checks it then only
// if no reader read it to its end: inflating a large sheet twice would
// take as long again as reading it.
const lateCheckBytes = 4 << 20

// checker is verify's pass over the parts of one workbook. Its errors
// name the part, not the file: named adds it, as the grid's caller does
// to the errors of a read.
type checker struct {
	zr    *zip.ReadCloser
	name  string
	total int64 // bytes inflated so far
	buf   []byte
}

// named gives err, a checker's error, the name of the workbook; ctx's
// error stays as it is.
func named(name string, err error) error {
	var de *damageError
	if errors.As(err, &de) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}

// damageError is what the check found in a part.
type damageError struct{ err error }

func (e *damageError) Error() string { return e.err.Error() }
func (e *damageError) Unwrap() error { return e.err }

func damage(format string, args ...any) error {
	return &damageError{fmt.Errorf(format, args...)}
}

func newChecker(file, name string) (*checker, error) {
	zr, err := openZip(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, ErrDamaged, err)
	}
	return &checker{zr: zr, name: name, buf: make([]byte, 64<<10)}, nil
}

// sizes checks what each of files says it inflates to, against its
// limit and, all together, against MaxTotal. A part that inflates whole
// inflates to what it says (archive/zip checks it at the end of the
// entry), so that check need not count again.
func (c *checker) sizes(files []*zip.File) error {
	for _, f := range files {
		if limit := partLimit(f); f.UncompressedSize64 > uint64(limit) {
			return damage("%w: part %s says it inflates to %d bytes; the limit for it is %d", ErrTooLarge, safetext.Name(f.Name), f.UncompressedSize64, limit)
		}
		if c.total += int64(f.UncompressedSize64); c.total > MaxTotal {
			return damage("%w: its parts inflate beyond %d bytes in all", ErrTooLarge, int64(MaxTotal))
		}
	}
	return nil
}

// check inflates each of files whole, within its limit, and looks for a
// DTD in the XML ones.
func (c *checker) check(ctx context.Context, files []*zip.File) error {
	for _, f := range files {
		limit := partLimit(f)
		rc, err := f.Open()
		if err != nil {
			return damage("%w: part %s: %w", ErrDamaged, safetext.Name(f.Name), err)
		}
		scan := &dtdScan{xml: isXMLPart(f.Name), ctx: ctx}
		n, err := copyLimited(scan, rc, limit+1, c.buf)
		rc.Close()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case n > limit:
			return damage("%w: part %s inflates beyond %d bytes", ErrTooLarge, safetext.Name(f.Name), limit)
		case err != nil:
			return damage("%w: part %s: %w", ErrDamaged, safetext.Name(f.Name), err)
		case scan.found != "":
			return damage("%w: part %s has %s", ErrDTD, safetext.Name(f.Name), scan.found)
		}
	}
	return nil
}

// partLimit is what a part may inflate to.
func partLimit(f *zip.File) int64 {
	return min(int64(MaxPart), max(int64(MinPartLimit), MaxPartRatio*int64(f.CompressedSize64)))
}

// lateCheck is verify's pass over a workbook's large parts, put off
// until the workbook is closed (see openBook). A reader that reads a
// part to its end checks what the pass would: zip's checksum and size
// (archive/zip checks both at the end of an entry), and the XML scanner
// refuses a DTD. Only the parts no reader read whole are inflated then.
type lateCheck struct {
	c     *checker
	ctx   context.Context
	parts []*zip.File

	mu      sync.Mutex
	whole   map[entryID]bool // the parts read to their end
	ended   bool
	checked []string // the parts the pass inflated, for tests
	err     error    // what the pass found (unnamed), once ended
}

// startCheck checks the sizes every part of c says it inflates to, and
// the parts of fewer than late compressed bytes, before it returns (with
// the error, named); the others are left to a lateCheck. Without large
// parts, it returns no lateCheck.
func startCheck(ctx context.Context, c *checker, late uint64) (*lateCheck, error) {
	var now, later []*zip.File
	for _, f := range c.zr.File {
		if f.CompressedSize64 >= late {
			later = append(later, f)
		} else {
			now = append(now, f)
		}
	}
	err := c.sizes(c.zr.File)
	if err == nil {
		err = c.check(ctx, now)
	}
	if err != nil || len(later) == 0 {
		c.zr.Close()
		return nil, named(c.name, err)
	}
	return &lateCheck{c: c, ctx: ctx, parts: later, whole: map[entryID]bool{}}, nil
}

// entryID is what makes an archive's entry the bytes and checks it is:
// two entries of the central directory may name one local header, with
// another checksum, size or method. A reading of one is a check of the
// other only when all of these are the same.
type entryID struct {
	off          int64
	crc          uint32
	packed, size uint64
	method       uint16
	flags        uint16
}

func idOf(f *zip.File) (entryID, bool) {
	off, err := f.DataOffset()
	if err != nil {
		return entryID{}, false
	}
	return entryID{off: off, crc: f.CRC32, packed: f.CompressedSize64, size: f.UncompressedSize64, method: f.Method, flags: f.Flags}, true
}

// readWhole notes that a reader read part f (of the reader's archive)
// to its end.
func (l *lateCheck) readWhole(f *zip.File) {
	if l == nil {
		return
	}
	id, ok := idOf(f)
	if !ok {
		return
	}
	l.mu.Lock()
	l.whole[id] = true
	l.mu.Unlock()
}

// finish checks, once, the large parts no reader read to their end, and
// gives what it found each time it is called: damage, or ctx's error
// when ctx ended (Ctrl-C) before the check did, since the parts left
// were then not checked.
func (l *lateCheck) finish() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return l.err
	}
	l.ended = true
	defer l.c.zr.Close()
	var rest []*zip.File
	for _, f := range l.parts {
		if id, ok := idOf(f); !ok || !l.whole[id] {
			rest = append(rest, f)
			l.checked = append(l.checked, f.Name)
		}
	}
	l.err = l.c.check(l.ctx, rest)
	return l.err
}

// abandon lets the pass go unrun.
func (l *lateCheck) abandon() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended {
		l.ended = true
		l.c.zr.Close()
	}
}

// copyLimited copies at most limit bytes, and reports the read error at
// the end (a bad CRC shows there).
func copyLimited(w io.Writer, r io.Reader, limit int64, buf []byte) (int64, error) {
	n, err := io.CopyBuffer(w, io.LimitReader(r, limit), buf)
	if err == nil && n < limit {
		// Read to the end, so that the checksum is checked.
		var one [1]byte
		if _, err = r.Read(one[:]); err == io.EOF {
			err = nil
		}
	}
	return n, err
}

func isXMLPart(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".xml") || strings.HasSuffix(n, ".rels") || strings.HasSuffix(n, ".vml")
}

// dtdScan looks for a DTD or an entity declaration in a stream, across
// the chunks it comes in.
type dtdScan struct {
	ctx   context.Context // ends the scan when done
	xml   bool
	tail  []byte
	found string
}

var dtdMarks = [][]byte{[]byte("<!DOCTYPE"), []byte("<!ENTITY")}

func (d *dtdScan) Write(p []byte) (int, error) {
	if err := d.ctx.Err(); err != nil {
		return 0, err
	}
	if !d.xml || d.found != "" {
		return len(p), nil
	}
	// A mark split between two chunks is in the joint of the last bytes
	// of the one and the first of the next.
	joint := append(d.tail, p[:min(len(p), 16)]...)
	for _, m := range dtdMarks {
		if bytes.Contains(joint, m) || bytes.Contains(p, m) {
			d.found = string(m[2:])
			return len(p), nil
		}
	}
	if len(joint) >= 8 && len(p) < 8 {
		d.tail = append(d.tail[:0], joint[len(joint)-8:]...)
	} else if len(p) >= 8 {
		d.tail = append(d.tail[:0], p[len(p)-8:]...)
	} else {
		d.tail = joint
	}
	return len(p), nil
}
