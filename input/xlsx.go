package input

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	uni16 "unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/internal/suggest"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// Budgets of a workbook read as input. excelize inflates every part of a
// workbook when it opens it: the sheets and the shared strings larger
// than UnzipXMLSizeLimit into temporary files, which its row iterator
// then streams, and everything else into memory. A workbook is checked
// against these before excelize sees it (see checkZip), so that a zip
// bomb, or a size an archive declares falsely (excelize makes room for a
// part as large as the archive says it is), is refused with a message
// rather than taking the memory or the disk.
const (
	// xlsxMaxInflated bounds what all the parts of a workbook inflate
	// to, the memory and the temporary files together (excelize's
	// UnzipSizeLimit). It is annosheet's bound on its own workbooks
	// (xlsx.MaxTotal): a 100,000-row sheet with long texts is some
	// hundreds of MB of XML.
	xlsxMaxInflated = 4 << 30

	// xlsxMaxXMLInMemory is the size from which a sheet, or the shared
	// strings, is inflated to a temporary file and read from there as
	// the rows are, rather than held in memory (excelize's
	// UnzipXMLSizeLimit). It is the bound the xlsx package's tests give
	// excelize when they compare its reading of a workbook with theirs.
	xlsxMaxXMLInMemory = 64 << 20

	// xlsxMaxHeld bounds the parts excelize holds in memory, all
	// together: the sheets and shared strings below xlsxMaxXMLInMemory,
	// and every other part (styles, relationships, pictures) whatever
	// its size. Real workbooks hold a few MB of them; a workbook of
	// many sheets each just below xlsxMaxXMLInMemory would otherwise
	// hold gigabytes.
	xlsxMaxHeld = 512 << 20
)

// xlsxLimits are the budgets of one read. Tests shrink them.
type xlsxLimits struct {
	inflated, xmlInMemory, held int64
}

var xlsxDefaultLimits = xlsxLimits{inflated: xlsxMaxInflated, xmlInMemory: xlsxMaxXMLInMemory, held: xlsxMaxHeld}

// xlsxShortDate is how a date in the short date format of the reader's
// locale (Excel's built-in format 14, what Excel gives a date typed into
// a cell) is written: the locale is not in the file, and the ISO form
// reads the same everywhere. A date with a format of its own is written
// in that format.
const xlsxShortDate = "yyyy-mm-dd"

// eachXLSX reads the first sheet of a workbook (opt.sheet names
// another): its first row is the header, each row after it a record.
//
// The first sheet is the first the workbook shows (a hidden sheet is
// passed over), and the header is its first row that is not empty. Each
// cell is the text the cell shows: a number or a date as its format
// writes it (never a date's serial number; a date in the locale's short
// format as 2024-03-01, see xlsxShortDate), a boolean as TRUE or FALSE, a
// formula as the value its workbook last computed (excelize computes
// nothing). A row whose cells are all empty is passed over: a spreadsheet
// has no other way to leave a gap. A cell past the header's last column
// that holds something is an error, since no field could hold it.
//
// A problem of the header or of a row names the file, the row (as Line),
// the sheet and the cell (the header's cells for a column it lacks); the
// rows' problems come together, up to records.MaxErrors, and no record is
// given after the first. An encrypted workbook, an .xls, an
// .xlsb or an OpenDocument spreadsheet is refused with a message that says
// how to save it; so is a file that is no workbook at all.
func eachXLSX(name string, opt tableOptions, index *int, fn func(*layout.Record) error) error {
	return readXLSX(name, opt, xlsxDefaultLimits, index, fn)
}

// readXLSX is eachXLSX within the budgets lim.
func readXLSX(name string, opt tableOptions, lim xlsxLimits, index *int, fn func(*layout.Record) error) error {
	// Opened here, it is a regular file (never a named pipe, which would
	// be waited on), and it is the file whose first bytes are looked at.
	fh, err := boundedread.Open(name)
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	problem := func(msg string, args ...any) error {
		return records.Problems{{Severity: records.Error, File: name, Err: records.ErrMalformed, Message: fmt.Sprintf(msg, args...)}}
	}
	head := make([]byte, 8)
	n, _ := fh.ReadAt(head, 0)
	head = head[:n]
	switch {
	case n == 0:
		return problem("the file is empty, not an XLSX workbook")
	case bytes.Equal(head, cfbSignature):
		return problem("%s", cfbMessage(fh, st.Size()))
	}
	if msg := checkZip(fh, st.Size(), head, lim); msg != "" {
		return problem("%s", msg)
	}
	// excelize opens the file again by its name: it reads it through
	// io.ReaderAt, which it takes only from a file it opens itself. The
	// file was a regular one a moment ago.
	f, err := excelize.OpenFile(name, excelize.Options{
		UnzipSizeLimit:    lim.inflated,
		UnzipXMLSizeLimit: lim.xmlInMemory,
		ShortDatePattern:  xlsxShortDate,
	})
	if f != nil {
		defer f.Close() // removes its temporary files
	}
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		// excelize decodes a part that is not there as an empty one.
		return problem("the workbook is damaged: a part it needs is missing or empty (%v)", err)
	case err != nil:
		return problem("the workbook cannot be read: %v", err)
	}
	sheet, msg := pickSheet(f, opt.sheet)
	if msg != "" {
		return problem("%s", msg)
	}
	rows, err := f.Rows(sheet)
	if err != nil {
		return problem("sheet %q cannot be read: %v", sheet, err)
	}
	defer rows.Close()
	r := &sheetReader{name: name, sheet: sheet, opt: opt}
	for row := 1; rows.Next(); row++ {
		cells, err := rows.Columns()
		if err != nil {
			if r.add(row, "A"+strconv.Itoa(row), fmt.Sprintf("the row cannot be read: %v", err)) {
				return r.bad
			}
			continue
		}
		rec, stop := r.row(row, cells)
		if stop {
			return r.bad
		}
		if rec != nil && len(r.bad) == 0 {
			rec.Index = *index
			*index++
			if err := fn(rec); err != nil {
				return err
			}
		}
	}
	if err := rows.Error(); err != nil && len(r.bad) < records.MaxErrors {
		r.add(0, "", fmt.Sprintf("sheet %q cannot be read: %v", sheet, err))
	}
	if r.header == nil && len(r.bad) == 0 {
		return problem("sheet %q is empty: its first row should name the columns, and each row after it hold a record", sheet)
	}
	if len(r.bad) > 0 {
		return r.bad
	}
	return nil
}

// sheetReader turns a sheet's rows into records, the first that is not
// empty being the header, and keeps the problems it finds.
type sheetReader struct {
	name, sheet string
	opt         tableOptions
	header      []string
	hrow        int // the header's row
	bad         records.Problems
}

// add keeps a problem at cell of row (0 for none); stop says that
// records.MaxErrors are kept.
func (r *sheetReader) add(row int, cell, msg string) (stop bool) {
	r.bad = append(r.bad, &records.Problem{Severity: records.Error, File: r.name, Line: row, Sheet: r.sheet, Cell: cell, Err: records.ErrMalformed, Message: msg})
	return len(r.bad) >= records.MaxErrors
}

// row reads the cells of one row: the header, a record, or nothing for
// an empty row. stop says that reading should end: the header has
// problems (no row after it can be read), or records.MaxErrors are kept.
func (r *sheetReader) row(row int, cells []string) (rec *layout.Record, stop bool) {
	if !slices.ContainsFunc(cells, func(c string) bool { return c != "" }) {
		return nil, false
	}
	if r.header == nil {
		// excelize leaves out the empty cells at the end of a row,
		// but for a formula's.
		for cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		r.header = cells
		return nil, r.checkHeader(row)
	}
	size := 0
	for i, c := range cells {
		size += len(c)
		if c != "" && i >= len(r.header) {
			return nil, r.add(row, cellName(i, row), fmt.Sprintf("the cell holds %s, in a column the header (%s) does not name: name the column in the header, or clear the cell",
				quoteShort(c), rangeName(len(r.header), r.hrow)))
		}
	}
	if int64(size) > r.opt.limit {
		return nil, r.add(row, rangeName(len(cells), row), fmt.Sprintf("the row's cells hold more than the %s a record may be", boundedread.Size(r.opt.limit)))
	}
	rec, p := tableRecord(r.header, cells, r.opt, r.name, row, func(col int) (string, string) { return r.sheet, cellName(col, row) })
	if p != nil {
		r.bad = append(r.bad, p)
		return nil, len(r.bad) >= records.MaxErrors
	}
	return rec, false
}

// checkHeader checks the header, read from row: every column named,
// none twice, every column the template reads there. It reports whether
// it found problems.
func (r *sheetReader) checkHeader(row int) bool {
	r.hrow = row
	seen := make(map[string]int, len(r.header))
	for i, h := range r.header {
		switch first, dup := seen[h]; {
		case h == "":
			r.add(row, cellName(i, row), "the header cell is empty: every column of the header needs a name")
		case dup:
			r.add(row, cellName(i, row), fmt.Sprintf("the header names %q twice (column %s and column %s): each column needs a name of its own", h, colName(first), colName(i)))
		default:
			seen[h] = i
		}
	}
	for _, need := range r.opt.needed {
		if _, ok := seen[need]; ok {
			continue
		}
		r.add(row, rangeName(len(r.header), row), fmt.Sprintf("the header has no column %q, which the template reads%s", need, nearestHeader(need, r.header)))
	}
	if len(r.bad) > records.MaxErrors {
		r.bad = r.bad[:records.MaxErrors]
	}
	return len(r.bad) > 0
}

// nearestHeader is "; did you mean "X"?" naming the header nearest to a
// column the header lacks, or "". A header that differs only in case or
// spaces ("Text " for "text") is the nearest of all; suggest.Closest
// passes over those, which it takes for the same word.
func nearestHeader(need string, header []string) string {
	for _, h := range header {
		if h != "" && suggest.Fold(h) == suggest.Fold(need) {
			return fmt.Sprintf("; did you mean %q?", h)
		}
	}
	return suggest.Words(need, header)
}

// pickSheet is the sheet to read: the one named (as Excel does, in any
// case), or the first the workbook shows. msg says why there is none.
func pickSheet(f *excelize.File, named string) (sheet, msg string) {
	list := f.GetSheetList()
	if len(list) == 0 {
		return "", "the file holds no sheets: it is not an XLSX workbook"
	}
	if named == "" {
		for _, s := range list {
			if v, err := f.GetSheetVisible(s); err == nil && v {
				return s, ""
			}
		}
		return list[0], ""
	}
	if slices.Contains(list, named) {
		return named, ""
	}
	for _, s := range list {
		if strings.EqualFold(s, named) {
			return s, ""
		}
	}
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return "", fmt.Sprintf("the workbook has no sheet %q; its sheets are %s%s", named, strings.Join(quoted, ", "), suggest.Words(named, list))
}

// checkZip checks that a file is an XLSX workbook excelize can open
// within the budgets: a readable ZIP archive, not an OpenDocument
// spreadsheet nor a binary workbook, whose parts all inflate without
// error (excelize passes over a damaged part silently, and its records
// with it) and within lim. msg says what is wrong, "" for nothing.
func checkZip(fh *os.File, size int64, head []byte, lim xlsxLimits) (msg string) {
	zr, err := zip.NewReader(fh, size)
	if err != nil {
		if bytes.HasPrefix(head, []byte("PK")) {
			return fmt.Sprintf("the workbook is damaged: it is not a readable ZIP archive (%v)", err)
		}
		return "the file is not an XLSX workbook (which is a ZIP archive)" + textHint(fh)
	}
	var total, held int64
	opc := false  // a package of Office's, with the types of its parts
	book := false // with a workbook part
	for _, zf := range zr.File {
		part := strings.ToLower(strings.ReplaceAll(zf.Name, `\`, "/"))
		switch part {
		case "[content_types].xml":
			opc = true
		case "xl/workbook.xml":
			book = true
		case "xl/workbook.bin":
			return "the file is an Excel binary workbook (.xlsb), which is not read: save it as .xlsx"
		case "mimetype", "content.xml":
			return "the file is an OpenDocument spreadsheet (.ods), which is not read: save it as .xlsx"
		}
		n := int64(zf.UncompressedSize64)
		if n < 0 || total+n > lim.inflated || total+n < total {
			return fmt.Sprintf("the workbook inflates to more than the %s a workbook read as input may", boundedread.Size(lim.inflated))
		}
		total += n
		streamed := (strings.HasPrefix(part, "xl/worksheets/sheet") || part == "xl/sharedstrings.xml") && n > lim.xmlInMemory
		if !streamed {
			if held += n; held > lim.held {
				return fmt.Sprintf("the workbook's parts other than its large sheets inflate to more than the %s a workbook read as input may hold in memory", boundedread.Size(lim.held))
			}
		}
	}
	switch {
	case !opc:
		return "the file is a ZIP archive, not an XLSX workbook"
	case !book:
		return "the file is an Office document, not an XLSX workbook"
	}
	// zip checks each part's size and checksum as it is inflated to its
	// end; archive/zip stops a part at the size it declares.
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err != nil {
			return fmt.Sprintf("the workbook is damaged: its part %s cannot be read (%v)", safetext.Name(zf.Name), err)
		}
	}
	return ""
}

// textHint says, for a file that is not a ZIP archive, that it looks like
// text: a CSV or JSON file named .xlsx, most likely.
func textHint(fh *os.File) string {
	b := make([]byte, 512)
	n, _ := fh.ReadAt(b, 0)
	b = b[:n]
	if n == 0 || bytes.IndexByte(b, 0) >= 0 {
		return ""
	}
	// The 512 bytes may end inside a character.
	for cut := 0; cut < utf8.UTFMax && cut < n; cut++ {
		if utf8.Valid(b[:n-cut]) {
			return ": it is text; is it a CSV or JSON file with another name?"
		}
	}
	return ""
}

// cfbSignature begins every OLE compound file (CFB): a workbook in
// Excel's format before 2007 (.xls), and an .xlsx that Office encrypted
// with a password, which it wraps in one.
var cfbSignature = []byte{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1}

// cfbMessage says what a compound file is, by the streams its directory
// names: an encrypted workbook (EncryptionInfo, EncryptedPackage), an
// .xls (Workbook, or Book before Excel 97), or another document.
func cfbMessage(r io.ReaderAt, size int64) string {
	names, err := cfbNames(r, size)
	has := func(want ...string) bool {
		return slices.ContainsFunc(names, func(n string) bool {
			return slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(n, w) })
		})
	}
	switch {
	case err != nil:
		return fmt.Sprintf("the file is an OLE compound file (an .xls workbook, Excel 97-2003, or an encrypted workbook) whose directory cannot be read (%v): save it as .xlsx, without a password", err)
	case has("EncryptionInfo", "EncryptedPackage"):
		return "the workbook is encrypted: save it without a password"
	case has("Workbook", "Book"):
		return "the file is an .xls workbook (Excel 97-2003), which is not read: save it as .xlsx"
	}
	return "the file is an OLE compound file (an Office 97-2003 document), not an XLSX workbook"
}

// Sector numbers of a compound file's allocation table that are no
// sector.
const (
	cfbEndOfChain = 0xfffffffe
	cfbMaxSector  = 0xfffffffa // the first number that is no sector
	cfbHeaderSize = 512
	cfbHeaderFAT  = 109 // FAT sectors the header lists
	cfbEntrySize  = 128 // a directory entry
	// cfbMaxDirSectors bounds the sectors of a directory: a workbook's
	// lists a few streams, in a sector or two.
	cfbMaxDirSectors = 1 << 12
)

// cfbNames lists the names in a compound file's directory ([MS-CFB]): it
// follows the directory's chain of sectors through the allocation table,
// reading no sector twice and no more than cfbMaxDirSectors, so that a
// damaged or crafted file ends the walk with an error.
func cfbNames(r io.ReaderAt, size int64) ([]string, error) {
	h := make([]byte, cfbHeaderSize)
	if _, err := r.ReadAt(h, 0); err != nil {
		return nil, errors.New("the header is cut off")
	}
	le32 := binary.LittleEndian.Uint32
	shift := binary.LittleEndian.Uint16(h[0x1e:])
	if shift != 9 && shift != 12 {
		return nil, fmt.Errorf("sector size 2^%d", shift)
	}
	ss := int64(1) << shift
	sectors := (size + ss - 1) / ss // an upper bound on the file's sectors
	// The sectors of the allocation table: the header lists the first
	// 109, a chain of DIFAT sectors the rest.
	nFAT := int64(le32(h[0x2c:]))
	if nFAT > sectors {
		return nil, fmt.Errorf("%d allocation sectors in a file of %d", nFAT, sectors)
	}
	fat := make([]uint32, 0, nFAT)
	for i := int64(0); i < min(nFAT, cfbHeaderFAT); i++ {
		fat = append(fat, le32(h[0x4c+4*i:]))
	}
	buf := make([]byte, ss)
	read := func(s uint32) error {
		if s >= cfbMaxSector || int64(s) >= sectors {
			return fmt.Errorf("sector %d is outside the file", s)
		}
		if _, err := r.ReadAt(buf, (int64(s)+1)*ss); err != nil {
			return fmt.Errorf("sector %d is cut off", s)
		}
		return nil
	}
	for s, steps := le32(h[0x44:]), int64(0); int64(len(fat)) < nFAT; steps++ {
		if steps > sectors {
			return nil, errors.New("the allocation table's chain loops")
		}
		if err := read(s); err != nil {
			return nil, err
		}
		per := ss/4 - 1
		for i := int64(0); i < per && int64(len(fat)) < nFAT; i++ {
			fat = append(fat, le32(buf[4*i:]))
		}
		s = le32(buf[4*per:])
	}
	next := func(s uint32) (uint32, error) {
		per := uint32(ss / 4)
		if int(s/per) >= len(fat) {
			return 0, fmt.Errorf("sector %d is outside the allocation table", s)
		}
		b := make([]byte, 4)
		if _, err := r.ReadAt(b, (int64(fat[s/per])+1)*ss+int64(s%per)*4); err != nil {
			return 0, errors.New("the allocation table is cut off")
		}
		return le32(b), nil
	}
	var names []string
	seen := map[uint32]bool{}
	for s := le32(h[0x30:]); s != cfbEndOfChain; {
		if seen[s] || len(seen) >= cfbMaxDirSectors {
			return nil, errors.New("the directory's chain loops")
		}
		seen[s] = true
		if err := read(s); err != nil {
			return nil, err
		}
		for e := buf; len(e) >= cfbEntrySize; e = e[cfbEntrySize:] {
			n := int(binary.LittleEndian.Uint16(e[0x40:]))
			if kind := e[0x42]; kind == 0 || n < 2 || n > 64 || n%2 != 0 {
				continue // an unused entry
			}
			u := make([]uint16, n/2-1)
			for i := range u {
				u[i] = binary.LittleEndian.Uint16(e[2*i:])
			}
			names = append(names, string(uni16.Decode(u)))
		}
		var err error
		if s, err = next(s); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// cellName is the A1 name of the cell of column col (0-based) in row.
func cellName(col, row int) string {
	return colName(col) + strconv.Itoa(row)
}

// colName is the letters of column col (0-based).
func colName(col int) string {
	s, err := excelize.ColumnNumberToName(col + 1)
	if err != nil {
		return fmt.Sprintf("column %d", col+1)
	}
	return s
}

// rangeName is the A1 name of the first n cells of row: "A1:D1".
func rangeName(n, row int) string {
	if n <= 1 {
		return cellName(0, row)
	}
	return cellName(0, row) + ":" + cellName(n-1, row)
}

// quoteShort quotes a cell's text for a message, cut to 40 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		return fmt.Sprintf("%q…", string(r[:40]))
	}
	return fmt.Sprintf("%q", s)
}
