package input

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/annosheet/annosheet/layout"
)

// Spool is a Source that copies the records of another into a temporary
// file the first time they are read whole, so that any subset of them can
// be read again without reading the input whole: a study of many batches
// reads its input once, not once per batch. Sources that hold their
// records in memory (factgenie) are not copied. Close removes the file.
type Spool struct {
	src   layout.Source
	f     *tempFile
	offs  []int64  // the offset in f of the record with each Index
	files []string // Record.File values, by number
	done  bool     // f holds every record
	// copying: a read is copying the records now; a read inside it
	// (fn reading the source again) reads the input itself.
	copying bool
}

// NewSpool wraps src. Nothing is read until Each.
func NewSpool(src layout.Source) *Spool { return &Spool{src: src} }

// Files lists the input files.
func (s *Spool) Files() []string { return s.src.Files() }

// Input is the source the spool copies, read without a copy being made:
// for a caller that reads the records once, whole.
func (s *Spool) Input() layout.Source { return s.src }

// Close removes the temporary file.
func (s *Spool) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f, s.done, s.offs = nil, false, nil
	return err
}

// Each calls fn for every record in input order, from the input the first
// time and from the copy afterwards.
func (s *Spool) Each(fn func(*layout.Record) error) error {
	if s.done {
		return s.read(nil, true, fn)
	}
	if _, ok := s.src.(*factgenieSource); ok || s.copying {
		return s.src.Each(fn)
	}
	if err := s.Close(); err != nil {
		return err
	}
	f, err := newTempFile("annosheet-spool-*")
	if err != nil {
		return fmt.Errorf("spool the input: %w", err)
	}
	s.f, s.offs, s.files = f, nil, nil
	bw := bufio.NewWriterSize(f, 1<<16)
	w := &countingWriter{w: bw}
	fileNo := map[string]int{}
	var buf []byte
	s.copying = true
	defer func() { s.copying = false }()
	err = s.src.Each(func(r *layout.Record) error {
		if r.Index != len(s.offs) {
			return fmt.Errorf("spool the input: record %d comes as the %dth", r.Index, len(s.offs))
		}
		n, ok := fileNo[r.File]
		if !ok {
			n = len(s.files)
			fileNo[r.File] = n
			s.files = append(s.files, r.File)
		}
		buf = binary.AppendUvarint(buf[:0], uint64(n))
		buf = binary.AppendUvarint(buf, uint64(r.Line))
		invalid := uint64(0)
		if r.InvalidUTF8 {
			invalid = 1
		}
		buf = binary.AppendUvarint(buf, invalid)
		buf = binary.AppendUvarint(buf, uint64(len(r.Key)))
		buf = append(buf, r.Key...)
		buf = binary.AppendUvarint(buf, uint64(len(r.Raw)))
		s.offs = append(s.offs, w.n)
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if _, err := w.Write(r.Raw); err != nil {
			return err
		}
		return fn(r)
	})
	if err == nil {
		err = bw.Flush()
		s.done = err == nil
	}
	if !s.done {
		s.Close()
	}
	return err
}

// Subset is a Source of the records with these indexes (Record.Index), in
// input order. It reads them from the copy when there is one, otherwise it
// reads the input and skips the others.
func (s *Spool) Subset(indexes []int) layout.Source {
	idx := slices.Clone(indexes)
	slices.Sort(idx)
	return &subset{s: s, idx: slices.Compact(idx)}
}

// Ordered is a Source of the records with these indexes in the order
// given, as a batch with items placed among the others shows them. It
// reads them from the copy, making it first when the input has not yet
// been read whole.
func (s *Spool) Ordered(indexes []int) layout.Source {
	return &ordered{s: s, idx: slices.Clone(indexes)}
}

type ordered struct {
	s   *Spool
	idx []int
}

func (o *ordered) Files() []string { return o.s.Files() }

func (o *ordered) Each(fn func(*layout.Record) error) error {
	if !o.s.done && !o.s.copying {
		if err := o.s.Each(func(*layout.Record) error { return nil }); err != nil {
			return err
		}
	}
	if o.s.done && !o.s.copying {
		return o.s.read(o.idx, false, fn)
	}
	// An input the spool does not copy (a factgenie folder) is read in
	// its own order: the batch's records are held until all are in.
	held := make(map[int]*layout.Record, len(o.idx))
	for _, i := range o.idx {
		held[i] = nil
	}
	err := o.s.src.Each(func(r *layout.Record) error {
		if _, ok := held[r.Index]; ok {
			held[r.Index] = r
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, i := range o.idx {
		r := held[i]
		if r == nil {
			return fmt.Errorf("spool: no record %d", i)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

type subset struct {
	s   *Spool
	idx []int
}

func (ss *subset) Files() []string { return ss.s.Files() }

func (ss *subset) Each(fn func(*layout.Record) error) error {
	if ss.s.done && !ss.s.copying {
		return ss.s.read(ss.idx, false, fn)
	}
	return ss.s.src.Each(func(r *layout.Record) error {
		if _, ok := slices.BinarySearch(ss.idx, r.Index); !ok {
			return nil
		}
		return fn(r)
	})
}

// read calls fn for the copied records with these indexes, or for all of
// them.
func (s *Spool) read(indexes []int, all bool, fn func(*layout.Record) error) error {
	if all {
		indexes = make([]int, len(s.offs))
		for i := range indexes {
			indexes[i] = i
		}
	}
	// The records are read and decoded on another core, a few batches
	// ahead of fn (see runAhead).
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, 1<<62), 1<<16)
	pos, k := int64(0), 0
	a := runAhead(func() (spooled, int, bool) {
		if k == len(indexes) {
			return spooled{}, 0, true
		}
		i := indexes[k]
		k++
		if i < 0 || i >= len(s.offs) {
			return spooled{err: fmt.Errorf("spool: no record %d", i)}, 0, true
		}
		if off := s.offs[i]; off != pos {
			// Jump ahead, or back, to the record.
			if off > pos && off-pos < 1<<16 {
				if _, err := r.Discard(int(off - pos)); err != nil {
					return spooled{err: fmt.Errorf("spool: %w", err)}, 0, true
				}
			} else {
				r.Reset(io.NewSectionReader(s.f, off, 1<<62))
			}
			pos = off
		}
		cr := &countingReader{r: r}
		rec, err := readSpooled(cr, s.files)
		if err != nil {
			return spooled{err: fmt.Errorf("spool: record %d: %w", i, err)}, 0, true
		}
		pos += cr.n
		rec.Index = i
		return spooled{rec: rec}, int(cr.n), false
	})
	defer a.stop()
	for {
		sp, _ := a.next()
		switch {
		case sp.err != nil:
			return sp.err
		case sp.rec == nil:
			return nil
		}
		if err := fn(sp.rec); err != nil {
			return err
		}
	}
}

// spooled is a record read back from the copy, or why it could not be;
// neither at the end.
type spooled struct {
	rec *layout.Record
	err error
}

// readSpooled reads one record as Spool.Each wrote it (file number, line,
// invalid UTF-8, key, raw record), decoding it again as the input did.
func readSpooled(r *countingReader, files []string) (*layout.Record, error) {
	var err error
	uvarint := func() uint64 {
		var n uint64
		if err == nil {
			n, err = binary.ReadUvarint(r)
		}
		return n
	}
	bytes := func() []byte {
		n := uvarint()
		if err != nil {
			return nil
		}
		b := make([]byte, n)
		_, err = io.ReadFull(r, b)
		return b
	}
	file, line, invalid := uvarint(), uvarint(), uvarint()
	key := bytes()
	raw := bytes()
	if err != nil {
		return nil, err
	}
	if file >= uint64(len(files)) {
		return nil, fmt.Errorf("file %d of %d", file, len(files))
	}
	rec, p := decodeRecord(raw, files[file], int(line))
	if p != nil {
		return nil, p
	}
	rec.Key, rec.InvalidUTF8 = string(key), invalid == 1
	return rec, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// Temporary files: the spool's copy of the input, and what layout.Build
// keeps of the rows it renders (layout.Scratcher), which every source of
// this package gives it.

func (*jsonSource) NewScratch() (layout.Scratch, error)      { return newTempFile("annosheet-rows-*") }
func (*factgenieSource) NewScratch() (layout.Scratch, error) { return newTempFile("annosheet-rows-*") }

// NewScratch gives layout.Build a temporary file for the rows it keeps.
func (*Spool) NewScratch() (layout.Scratch, error)  { return newTempFile("annosheet-rows-*") }
func (*subset) NewScratch() (layout.Scratch, error) { return newTempFile("annosheet-rows-*") }

// tempFile is a temporary file in the system's temporary folder, readable
// and writable by its owner alone. Where the system allows it (Unix) it is
// removed from the folder as soon as it is made, so that nothing is left
// behind however the process ends: its space is freed when it is closed.
// Elsewhere Close removes it.
type tempFile struct {
	*os.File
	name string // still to remove on Close; "" when removed
}

func newTempFile(pattern string) (*tempFile, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	t := &tempFile{File: f, name: f.Name()}
	if os.Remove(t.name) == nil {
		t.name = ""
	}
	return t, nil
}

// Close closes the file, and removes it if it is still there.
func (t *tempFile) Close() error {
	err := t.File.Close()
	if t.name != "" {
		err = errors.Join(err, os.Remove(t.name))
		t.name = ""
	}
	return err
}
