package xlsx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
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

// verify reads every part of a workbook once, before anything else reads
// it: each part must inflate whole (its CRC checked) within the limits,
// and no XML part may declare a DTD or entities. A damaged or hostile
// file is refused here, before any of it is parsed; the reader checks
// what it reads again, so it does not depend on this pass for safety.
//
// It stops soon after ctx ends (Ctrl-C), with ctx's error: a workbook of
// gigabytes takes seconds to read.
func verify(ctx context.Context, file, name string) error {
	zr, err := openZip(file)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", name, ErrDamaged, err)
	}
	defer zr.Close()
	var total int64
	buf := make([]byte, 64<<10)
	for _, f := range zr.File {
		limit := min(int64(MaxPart), max(int64(MinPartLimit), MaxPartRatio*int64(f.CompressedSize64)))
		if f.UncompressedSize64 > uint64(limit) {
			return fmt.Errorf("%s: %w: part %s says it inflates to %d bytes; the limit for it is %d", name, ErrTooLarge, f.Name, f.UncompressedSize64, limit)
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %w: part %s: %w", name, ErrDamaged, f.Name, err)
		}
		scan := &dtdScan{xml: isXMLPart(f.Name), ctx: ctx}
		n, err := copyLimited(scan, rc, limit+1, buf)
		rc.Close()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case n > limit:
			return fmt.Errorf("%s: %w: part %s inflates beyond %d bytes", name, ErrTooLarge, f.Name, limit)
		case err != nil:
			return fmt.Errorf("%s: %w: part %s: %w", name, ErrDamaged, f.Name, err)
		case scan.found != "":
			return fmt.Errorf("%s: %w: part %s has %s", name, ErrDTD, f.Name, scan.found)
		}
		if total += n; total > MaxTotal {
			return fmt.Errorf("%s: %w: its parts inflate beyond %d bytes in all", name, ErrTooLarge, int64(MaxTotal))
		}
	}
	return nil
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
