package xlsx

import (
	"archive/zip"
	"bytes"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// Compression is the deflate level of the workbook's zip container.
//
// Both levels deflate every part in blocks on all cores at once (see
// parallelDeflate). Level 1 makes files larger for little time saved once
// deflate runs in parallel, so annosheet keeps the default level: the
// smallest files, which annotators receive by mail.
type Compression int

// Compression choices.
const (
	// CompressDefault is deflate level 6, the standard library's default.
	CompressDefault Compression = iota
	// CompressFast is deflate level 1: larger files, a little sooner.
	CompressFast
)

func (c Compression) level() int {
	if c == CompressFast {
		return flate.BestSpeed
	}
	// klauspost's level 6: files about 3% larger than the standard
	// library's level 6, made about six times faster (its own default,
	// level 5, is 5% larger).
	return 6
}

// compressor makes the zip container's deflate writers.
func (c Compression) compressor() zip.Compressor {
	level := c.level()
	return func(out io.Writer) (io.WriteCloser, error) {
		return &parallelDeflate{out: out, level: level}, nil
	}
}

// deflateBlock is how much of a part one core deflates at a time, and
// deflateWindow the history each block is primed with: deflate's window.
const (
	deflateBlock  = 1 << 20
	deflateWindow = 32 << 10
)

var (
	blockPool = sync.Pool{New: func() any { b := make([]byte, 0, deflateBlock); return &b }}
	outPool   = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// flatePools holds deflate writers by level; each is large, so they are
// reused across blocks and parts.
var flatePools sync.Map // level → *sync.Pool

func flateWriter(level int) *flate.Writer {
	p, _ := flatePools.LoadOrStore(level, &sync.Pool{})
	if w, ok := p.(*sync.Pool).Get().(*flate.Writer); ok {
		return w
	}
	w, err := flate.NewWriter(io.Discard, level)
	if err != nil { // the levels used are valid
		panic(err)
	}
	return w
}

func putFlateWriter(level int, w *flate.Writer) {
	p, _ := flatePools.Load(level)
	p.(*sync.Pool).Put(w)
}

// parallelDeflate deflates what is written in blocks of deflateBlock
// bytes, several at once. Each block is primed with the 32 KB before it,
// so matches reach back across the cut as in one stream, and ends in a
// sync flush (non-final, byte-aligned), so that the blocks, written in
// order, make one deflate stream; Close ends it. The output does not
// depend on how the blocks are scheduled. At most twice as many blocks as
// cores are in flight, so memory is bounded.
type parallelDeflate struct {
	out     io.Writer
	level   int
	block   *[]byte
	window  []byte          // the last deflateWindow bytes before block
	pending []chan deflated // in order
	err     error
}

type deflated struct {
	out *bytes.Buffer
	err error
}

func (p *parallelDeflate) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n := len(b)
	for len(b) > 0 {
		if p.block == nil {
			p.block = blockPool.Get().(*[]byte)
		}
		blk := *p.block
		k := min(len(b), deflateBlock-len(blk))
		*p.block = append(blk, b[:k]...)
		b = b[k:]
		if len(*p.block) == deflateBlock {
			if err := p.submit(false); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// submit starts deflating the current block.
func (p *parallelDeflate) submit(last bool) error {
	blk := p.block
	if blk == nil {
		blk = blockPool.Get().(*[]byte)
	}
	p.block = nil
	window := p.window
	data := *blk
	// The next block's window, copied: this block returns to the pool.
	keep := min(len(data), deflateWindow)
	next := make([]byte, 0, deflateWindow)
	if keep < deflateWindow {
		next = append(next, window[max(0, len(window)-(deflateWindow-keep)):]...)
	}
	p.window = append(next, data[len(data)-keep:]...)

	ch := make(chan deflated, 1)
	p.pending = append(p.pending, ch)
	job := func() {
		out := outPool.Get().(*bytes.Buffer)
		out.Reset()
		fw := flateWriter(p.level)
		fw.ResetDict(out, window)
		_, err := fw.Write(data)
		if err == nil {
			if last {
				err = fw.Close()
			} else {
				err = fw.Flush()
			}
		}
		putFlateWriter(p.level, fw)
		*blk = data[:0]
		blockPool.Put(blk)
		ch <- deflated{out, err}
	}
	if last && len(p.pending) == 1 {
		job() // a small part: no goroutine
	} else {
		go job()
	}
	for len(p.pending) > 0 && (last || len(p.pending) >= 2*runtime.GOMAXPROCS(0)) {
		if err := p.drain(); err != nil {
			return err
		}
	}
	return nil
}

// drain writes out the oldest block once it is deflated.
func (p *parallelDeflate) drain() error {
	d := <-p.pending[0]
	p.pending = p.pending[1:]
	if d.err == nil && p.err == nil {
		_, d.err = p.out.Write(d.out.Bytes())
	}
	outPool.Put(d.out)
	if d.err != nil && p.err == nil {
		p.err = d.err
	}
	return p.err
}

// Close deflates the rest and ends the stream.
func (p *parallelDeflate) Close() error {
	if p.err != nil {
		for len(p.pending) > 0 {
			_ = p.drain()
		}
		return p.err
	}
	return p.submit(true)
}

// openZip opens a zip archive whose deflated parts inflate through
// klauspost's decompressor, faster than the standard library's (the CRC
// is checked by archive/zip as before).
func openZip(file string) (*zip.ReadCloser, error) {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return nil, err
	}
	zr.RegisterDecompressor(zip.Deflate, flate.NewReader)
	return zr, nil
}
