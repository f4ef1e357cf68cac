package xlsx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/boundedread"
)

// Open reads a filled workbook as a grid for pull; it is OpenContext
// without a deadline of the caller's own (a conversion still has one).
func Open(path string) (g *backend.Grid, close func() error, err error) {
	return OpenContext(context.Background(), path)
}

// OpenContext reads a filled workbook as a grid for pull. An .xlsx or
// .xlsm is read directly; an .ods, .fods, .xls or .xlsb is first converted
// to .xlsx by LibreOffice when it is installed (see Classify). The grid is
// named after path, never after a converted copy. Every part is checked
// (see verify): the small ones first, a large one by the reading that
// goes through it or else when the workbook is closed (see openBook).
// Rows are streamed straight from the zip archive by annosheet's own
// reader, so a large sheet is never held whole and nothing is written to
// disk. Cells keep their types: numbers are
// unformatted as stored, booleans are TRUE and FALSE, a number the sheet
// shows as a date is a date (its serial number and the date as shown),
// formulas give their last computed value, never evaluated, and a formula
// never computed is a cell with no value. A large table of shared strings
// is not held whole: only the strings of the cells read are (see the
// grid's Skim). Reading is bounded (MaxCellBytes and the other budgets),
// and damage met while reading a sheet is an error from the grid's Rows,
// never an early end of the sheet. Once ctx ends, Rows stops soon with
// its error. Call close when done, and heed its error, which is damage in
// a part no read went through: it also removes a converted copy.
//
// Errors name path as given and wrap their cause: fs.ErrNotExist for a
// missing file, and ErrNotSpreadsheet, ErrUnsupported, ErrNeedsConversion,
// ErrConversion, ErrDamaged, ErrTooLarge or ErrDTD for a file that is
// there but cannot be read.
func OpenContext(ctx context.Context, path string) (g *backend.Grid, close func() error, err error) {
	return defaultOpener.open(ctx, path)
}

// convertTimeout bounds one LibreOffice conversion; a first start of
// LibreOffice with a fresh profile takes some seconds of it.
const convertTimeout = 2 * time.Minute

// opener opens workbooks. Its fields are what tests replace: a test builds
// its own opener rather than change the one production code uses.
type opener struct {
	// soffice finds LibreOffice's binary; an error means it is not
	// installed.
	soffice func() (string, error)
	timeout time.Duration
}

var defaultOpener = opener{soffice: lookSoffice, timeout: convertTimeout}

// content is what a file's first bytes say it is.
type content int

const (
	contentOther content = iota
	contentEmpty
	contentZip // Office Open XML, or another zip package
	contentODS // a zip package that names itself an OpenDocument spreadsheet
	contentOLE // an OLE2 compound file: an .xls, or an encrypted workbook
	contentXML // flat XML: an .fods
)

// sniff reads the start of a file. An OpenDocument package stores its
// mimetype uncompressed as the first entry, so the type is in the head.
func sniff(head []byte) content {
	switch {
	case len(head) == 0:
		return contentEmpty
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		if bytes.Contains(head, []byte("mimetypeapplication/vnd.oasis.opendocument.spreadsheet")) {
			return contentODS
		}
		return contentZip
	case bytes.HasPrefix(head, []byte("PK\x05\x06")): // an empty zip
		return contentZip
	case bytes.HasPrefix(head, []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")):
		return contentOLE
	}
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if bytes.HasPrefix(h, []byte("<?xml")) || bytes.HasPrefix(h, []byte("<office:document")) {
		return contentXML
	}
	return contentOther
}

func (o opener) open(ctx context.Context, path string) (*backend.Grid, func() error, error) {
	kind, why := Classify(path)
	// A FIFO or a device would block the read, or never end: only a
	// regular file (through links) is a workbook.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w: it is not a regular file (%s)", path, ErrNotSpreadsheet, boundedread.Kind(st.Mode()))
	}
	head, err := readHead(path, 128)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	switch kind {
	case Unreadable:
		return nil, nil, fmt.Errorf("%s: %w: %s", path, ErrUnsupported, why)
	case NotSpreadsheet:
		return nil, nil, fmt.Errorf("%s: %w: %s", path, ErrNotSpreadsheet, why)
	}
	ext := strings.ToLower(filepath.Ext(path))
	c := sniff(head)
	switch {
	case c == contentEmpty:
		return nil, nil, fmt.Errorf("%s: %w: the file is empty (was it saved completely?)", path, ErrNotSpreadsheet)
	case c == contentODS, c == contentZip && (ext == ".ods" || ext == ".xlsb"), c == contentXML && ext == ".fods", c == contentOLE && ext == ".xls":
		return o.convert(ctx, path)
	case c == contentZip:
		// An .xls that is really an .xlsx (renamed, or saved so by a web
		// application) opens directly too.
		return openBook(ctx, path, path)
	case c == contentOLE && isEncrypted(path):
		return nil, nil, fmt.Errorf("%s: %w (protected by a password to open): open it, save it without the password (in Excel: File > Info > Protect Workbook > Encrypt with Password, and clear it) as .xlsx, and pull again",
			path, ErrEncrypted)
	case c == contentOLE:
		return nil, nil, fmt.Errorf("%s: %w: an old Excel 97-2003 file under a new name: open it, save it as .xlsx (Excel Workbook) and pull again",
			path, ErrUnsupported)
	}
	return nil, nil, fmt.Errorf("%s: %w: cannot read as %s, which its name says it is", path, ErrNotSpreadsheet, formatNames[ext])
}

// formatNames names the formats of readable extensions in messages.
var formatNames = map[string]string{
	".xlsx": "an XLSX workbook", ".xlsm": "an XLSM workbook", ".xls": "an XLS workbook",
	".xlsb": "an XLSB workbook", ".ods": "an ODS spreadsheet", ".fods": "an FODS spreadsheet",
}

// readHead reads up to n bytes from the start of the file. Errors are
// stripped of the path, which the caller adds as given.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, unpath(err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%w: it is a folder", ErrNotSpreadsheet)
	}
	head := make([]byte, n)
	k, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, unpath(err)
	}
	return head[:k], nil
}

func unpath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// openBook reads the workbook at file as the grid of name, the path the
// caller gave: verify checks every part, then the workbook is read as
// streams straight from the archive (see readBook), until ctx ends.
//
// Parts of lateCheckBytes compressed and more are checked when the
// workbook is closed, not before, and only those no read went through to
// their end: a read checks what it reads itself, and a pass over a large
// sheet costs as much as reading it. What they say they inflate to is
// checked before openBook returns. Damage in a part a read reaches is
// that read's error; damage in one no read reached is what close
// returns, each time: a caller that keeps what it read checks close's
// error.
func openBook(ctx context.Context, file, name string) (*backend.Grid, func() error, error) {
	b, err := openChecked(ctx, file, name, lateCheckBytes)
	if err != nil {
		return nil, nil, err
	}
	return b.grid(), b.close, nil
}

// openChecked is openBook, leaving the parts of late compressed bytes
// and more to close.
func openChecked(ctx context.Context, file, name string, late uint64) (*book, error) {
	c, err := newChecker(file, name)
	if err != nil {
		return nil, err
	}
	check, err := startCheck(ctx, c, late)
	if err != nil {
		return nil, err
	}
	b, err := openPackage(file, name, defaultLimits)
	if err != nil {
		check.abandon()
		return nil, err
	}
	b.ctx, b.check = ctx, check
	return b, nil
}
