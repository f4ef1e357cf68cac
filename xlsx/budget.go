package xlsx

import (
	"errors"
	"fmt"
	"strings"

	"github.com/annosheet/annosheet/internal/safetext"
)

// Budgets of the reader of returned workbooks. A workbook is untrusted:
// these bound what reading one may hold in memory, beyond the inflation
// limits that verify checks first (MaxPart, MaxTotal). They are far above
// what real workbooks need; crossing one stops the read at once with an
// error that wraps ErrTooLarge and names the file, the part and the limit.
const (
	// MaxCellBytes bounds the text of one cell, in bytes of UTF-8.
	// Excel holds at most 32,767 UTF-16 units in a cell (at most 98,301
	// bytes of UTF-8), Google Sheets 50,000 characters (at most 200,000
	// bytes, every one outside the Basic Multilingual Plane); 256 KiB
	// holds either with room to spare.
	MaxCellBytes = 256 << 10

	// MaxRowBytes bounds the text of one row, shared strings counted at
	// each use. A row of 100 cells each at Excel's limit in a script of
	// three-byte characters is 9.4 MiB; the bound keeps a row of 16,384
	// cells that all name one long shared string from taking gigabytes.
	MaxRowBytes = 32 << 20

	// MaxSharedStringBytes bounds the text of the shared strings held in
	// memory while the workbook is read (sheets name them by number, in
	// any order): the whole table when it is small, otherwise the strings
	// the cells read name. Excel and LibreOffice put every text cell
	// there: a 100,000-unit study with 3,000 characters of context per
	// unit is 300 MB of Latin text and 900 MB in a script of three-byte
	// characters, but a sheet read with its context columns passed over
	// (see backend.Grid's Skim) needs little of it. The bound is half of
	// MaxPart, the largest part verify lets inflate.
	MaxSharedStringBytes = 1 << 30

	// MaxSharedStrings bounds the number of shared strings: 16,777,216,
	// eight times the text cells of a 100,000-row sheet of 20 text
	// columns. Each held costs 8 bytes of index (16 in a table read as
	// sheets need it), 256 MiB at most.
	MaxSharedStrings = 1 << 24

	// MaxColumns is the number of columns Excel has (A to XFD); a cell
	// beyond it is refused.
	MaxColumns = 16384

	// MaxRows is the number of rows Excel has; a row beyond it is
	// refused.
	MaxRows = 1 << 20

	// MaxCellFormats bounds the cell formats of styles.xml (Excel allows
	// 64,000), and the sheets and relationships a workbook lists.
	MaxCellFormats = 1 << 16
)

// Bounds on what else the reader holds: the number formats of styles.xml
// (Excel allows some 250 of at most 255 characters each), and the bytes
// of the sheet names and relationships a workbook lists.
const (
	maxNumFmts     = 1 << 10
	maxFormatCode  = 1 << 10
	maxListedBytes = 16 << 20
)

// readLimits are the budgets of one read. Tests shrink them to cross them
// with small files.
type readLimits struct {
	cell      int // MaxCellBytes
	row       int // MaxRowBytes
	sstBytes  int // MaxSharedStringBytes
	sstCount  int // MaxSharedStrings
	cols      int // MaxColumns
	rows      int // MaxRows
	listed    int // MaxCellFormats
	xmlLimits scanLimits
	// sstWhole is the size of the largest shared-strings part read whole
	// (inflated); a larger one is read as sheets need it (see
	// lazyStrings).
	sstWhole int
	// winCells and winText bound the rows a sheet's reader queues until a
	// pass over such a table: cells, and bytes of the text of those not
	// shared strings.
	winCells, winText int
	// sstScan bounds the bytes read in passes over such a table.
	sstScan int64
	// A pass over such a table also holds strings no queued row names
	// yet, if they are at most spareLen bytes long, up to spareText
	// bytes and spareCount strings in all (see lazyStrings.fetch).
	spareLen, spareText, spareCount int
	// ahead is the size from which a part is inflated ahead of its
	// reader, on another core (see readAhead).
	ahead int
}

var defaultLimits = readLimits{
	cell: MaxCellBytes, row: MaxRowBytes, sstBytes: MaxSharedStringBytes, sstCount: MaxSharedStrings,
	cols: MaxColumns, rows: MaxRows, listed: MaxCellFormats, xmlLimits: defaultScanLimits,
	sstWhole: sstWholeBytes, winCells: 1 << 20, winText: 16 << 20, sstScan: 2 * MaxTotal,
	spareLen: 256, spareText: 8 << 20, spareCount: 1 << 18, ahead: 1 << 20,
}

// sstWholeBytes is the size of the largest shared-strings part read
// whole: a small table costs less to hold than to read twice, and one of
// this size holds little memory.
const sstWholeBytes = 4 << 20

// readError is a fault found reading one part of a workbook: it names the
// file as given, the part and, within a sheet, the row and the cell.
type readError struct {
	file  string
	kind  error // ErrDamaged, ErrTooLarge, ErrDTD, ErrUnsupported or ErrNotSpreadsheet
	part  string
	row   int    // 0 outside a row
	cell  string // "" outside a cell
	msg   string
	cause error // may be nil
}

func (e *readError) Error() string {
	var b strings.Builder
	if e.file != "" {
		b.WriteString(e.file + ": ")
	}
	fmt.Fprintf(&b, "%v", e.kind)
	if e.part != "" {
		fmt.Fprintf(&b, ": part %s", safetext.Name(e.part))
	}
	switch {
	case e.cell != "":
		fmt.Fprintf(&b, ", cell %s", e.cell)
	case e.row > 0:
		fmt.Fprintf(&b, ", row %d", e.row)
	}
	if e.msg != "" {
		b.WriteString(": " + e.msg)
	}
	var se *scanError
	switch {
	case errors.As(e.cause, &se) && se.cause == errTextLimit:
		// The message says which limit; the scanner adds only where.
		fmt.Fprintf(&b, " (at byte %d)", se.off)
	case e.cause != nil:
		b.WriteString(": " + e.cause.Error())
	}
	return b.String()
}

func (e *readError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}
