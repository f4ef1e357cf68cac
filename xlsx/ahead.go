package xlsx

import (
	"io"
	"runtime"
)

// aheadReader inflates a part in a goroutine of its own, a few blocks
// ahead of whoever reads it, so that inflating a large part and parsing
// it use two cores. What the source gives, data and error alike, comes
// out in the order it went in.
type aheadReader struct {
	src    io.ReadCloser
	full   chan []byte // blocks read, in order; closed after the last
	free   chan []byte // blocks to read into
	quit   chan struct{}
	done   chan struct{}
	err    error  // the source's last error (io.EOF at its end), set before full is closed
	rest   []byte // what is left of the block being read
	cur    []byte // that block, whole
	closed bool
}

// Blocks of aheadBlock bytes, aheadBlocks of them: the reader is at most
// that far behind.
const (
	aheadBlock  = 256 << 10
	aheadBlocks = 4
)

// readAhead reads src ahead of its reader, when there are cores to do it
// on; otherwise it gives src.
func readAhead(src io.ReadCloser) io.ReadCloser {
	if runtime.GOMAXPROCS(0) < 2 {
		return src
	}
	return newAheadReader(src)
}

func newAheadReader(src io.ReadCloser) *aheadReader {
	a := &aheadReader{
		src:  src,
		full: make(chan []byte, aheadBlocks),
		free: make(chan []byte, aheadBlocks),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range aheadBlocks {
		a.free <- make([]byte, aheadBlock)
	}
	go a.run()
	return a
}

func (a *aheadReader) run() {
	defer close(a.done)
	defer close(a.full)
	for {
		var buf []byte
		select {
		case buf = <-a.free:
		case <-a.quit:
			return
		}
		n, err := fillBlock(a.src, buf)
		if n > 0 {
			select {
			case a.full <- buf[:n]:
			case <-a.quit:
				return
			}
		}
		if err != nil {
			a.err = err
			return
		}
	}
}

// fillBlock reads from r until buf is full or r gives an error.
func fillBlock(r io.Reader, buf []byte) (int, error) {
	n, still := 0, 0
	for n < len(buf) {
		k, err := r.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
		if k > 0 {
			still = 0
		} else if still++; still > 100 {
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}

func (a *aheadReader) Read(p []byte) (int, error) {
	for len(a.rest) == 0 {
		if a.cur != nil {
			a.free <- a.cur[:cap(a.cur)] // never blocks: free holds every block
			a.cur = nil
		}
		buf, ok := <-a.full
		if !ok {
			return 0, a.err
		}
		a.cur, a.rest = buf, buf
	}
	n := copy(p, a.rest)
	a.rest = a.rest[n:]
	return n, nil
}

// Close stops the reading ahead and closes the source.
func (a *aheadReader) Close() error {
	if a.closed {
		return nil
	}
	a.closed = true
	close(a.quit)
	<-a.done
	return a.src.Close()
}
