package xlsx

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"

	"github.com/annosheet/annosheet/backend"
)

// zipSink is the zip container excelize writes the workbook into. It
// writes to the output itself, not to the buffer excelize hands it, so the
// file is never held in memory. excelize writes each sheet as a skeleton
// with empty sheetData; for the sheets of the plan, the sink renders the
// rows straight into the sheet's zip entry between the skeleton's two
// halves, and adds the sheet's hyperlinks, which come from the rows.
type zipSink struct {
	z      *zip.Writer
	sheets map[string]*sinkSheet // by part name
	// The skeleton being written, and its sheet.
	open *sinkSheet
	skel bytes.Buffer
}

type sinkSheet struct {
	part string
	sh   *backend.Sheet
	rw   *rowsWriter
	done bool
}

func newZipSink(w io.Writer, c Compression) *zipSink {
	z := zip.NewWriter(w)
	z.RegisterCompressor(zip.Deflate, c.compressor())
	return &zipSink{z: z, sheets: map[string]*sinkSheet{}}
}

func (s *zipSink) add(part string, sh *backend.Sheet, rw *rowsWriter) {
	s.sheets[part] = &sinkSheet{part: part, sh: sh, rw: rw}
}

// Create starts a part.
func (s *zipSink) Create(name string) (io.Writer, error) {
	if err := s.finish(); err != nil {
		return nil, err
	}
	if d, ok := s.sheets[name]; ok {
		if d.done {
			return nil, fmt.Errorf("sheet %s is written twice", d.sh.Name)
		}
		s.open = d
		s.skel.Reset()
		return &s.skel, nil
	}
	return s.z.Create(name)
}

// AddFS adds the files of fsys.
func (s *zipSink) AddFS(fsys fs.FS) error {
	if err := s.finish(); err != nil {
		return err
	}
	return s.z.AddFS(fsys)
}

// Close ends the file, once every sheet has been written.
func (s *zipSink) Close() error {
	if err := s.finish(); err != nil {
		return err
	}
	for _, d := range s.sheets {
		if !d.done {
			return fmt.Errorf("sheet %s: the workbook has no part %s for it", d.sh.Name, d.part)
		}
	}
	return s.z.Close()
}

// Where the rows go in a skeleton, and the elements that follow a sheet's
// hyperlinks, in the order of the schema.
var (
	emptySheetData = []byte("<sheetData></sheetData>")
	afterLinks     = [][]byte{
		[]byte("<printOptions"), []byte("<pageMargins"), []byte("<pageSetup"), []byte("<headerFooter"),
		[]byte("<rowBreaks"), []byte("<colBreaks"), []byte("<customProperties"), []byte("<cellWatches"),
		[]byte("<ignoredErrors"), []byte("<smartTags"), []byte("<drawing"), []byte("<legacyDrawing"),
		[]byte("<picture"), []byte("<oleObjects"), []byte("<controls"), []byte("<webPublishItems"),
		[]byte("<mc:AlternateContent"), []byte("<tableParts"), []byte("<extLst"), []byte("</worksheet>"),
	}
)

// finish writes the sheet whose skeleton was being written: its first
// half, its rows, and its second half with the hyperlinks in place.
func (s *zipSink) finish() error {
	d := s.open
	if d == nil {
		return nil
	}
	s.open, d.done = nil, true
	skel := s.skel.Bytes()
	at := bytes.Index(skel, emptySheetData)
	if at < 0 || bytes.Contains(skel, []byte("<hyperlinks")) {
		return fmt.Errorf("sheet %s: excelize wrote it in an unexpected form", d.sh.Name)
	}
	w, err := s.z.Create(d.part)
	if err != nil {
		return err
	}
	head := at + len("<sheetData>")
	if _, err := w.Write(skel[:head]); err != nil {
		return err
	}
	rw := d.rw
	rw.w = w
	if err := writeRows(d.sh, rw); err != nil {
		return fmt.Errorf("sheet %s: %w", d.sh.Name, err)
	}
	tail := skel[head:]
	links := len(tail)
	for _, tag := range afterLinks {
		if k := bytes.Index(tail, tag); k >= 0 && k < links {
			links = k
		}
	}
	b := rw.buf[:0]
	b = append(b, tail[:links]...)
	b = rw.appendLinks(b)
	b = append(b, tail[links:]...)
	_, err = w.Write(b)
	rw.buf = nil
	return err
}

// writeRows writes the sheet's rows, checking their count.
func writeRows(sh *backend.Sheet, rw *rowsWriter) error {
	n := 0
	err := sh.Rows(func(r backend.Row) error {
		n++
		if n > sh.RowCount {
			return fmt.Errorf("plan has more rows than its count %d", sh.RowCount)
		}
		return rw.row(n, r)
	})
	if err != nil {
		return err
	}
	if n != sh.RowCount {
		return fmt.Errorf("plan produced %d rows, not the %d it declared", n, sh.RowCount)
	}
	return rw.flush()
}
