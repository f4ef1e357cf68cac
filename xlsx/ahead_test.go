package xlsx

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// chunky gives data in pieces of random size, some empty, then err.
type chunky struct {
	data   []byte
	rng    *rand.Rand
	err    error
	closed bool
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, c.err
	}
	n := min(len(p), len(c.data), c.rng.IntN(3*aheadBlock/2))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func (c *chunky) Close() error { c.closed = true; return nil }

// TestReadAhead checks that a part read ahead gives its reader every
// byte in order, then the source's own error, however its reads come; and
// that closing it part way stops the reading and closes the source.
func TestReadAhead(t *testing.T) {
	t.Parallel()
	data := make([]byte, 3*aheadBlocks*aheadBlock+12345)
	rand.NewChaCha8([32]byte{7}).Read(data)
	errBroken := errors.New("zip: checksum error")
	for _, end := range []error{io.EOF, errBroken, io.ErrUnexpectedEOF} {
		src := &chunky{data: data, rng: rand.New(rand.NewPCG(1, 2)), err: end}
		r := newAheadReader(src)
		var got bytes.Buffer
		buf := make([]byte, 1000)
		var err error
		for err == nil {
			var n int
			n, err = r.Read(buf)
			got.Write(buf[:n])
		}
		if err != end || !bytes.Equal(got.Bytes(), data) {
			t.Errorf("read %d bytes (same: %v) then %v; want %d then %v", got.Len(), bytes.Equal(got.Bytes(), data), err, len(data), end)
		}
		if _, again := r.Read(buf); again != end {
			t.Errorf("a read after the end gives %v, want %v again", again, end)
		}
		if err := r.Close(); err != nil || !src.closed {
			t.Errorf("close: %v, source closed: %v", err, src.closed)
		}
	}

	src := &chunky{data: data, rng: rand.New(rand.NewPCG(3, 4)), err: io.EOF}
	r := newAheadReader(src)
	if _, err := io.ReadFull(r, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r.Close() // twice is harmless
	select {
	case <-r.done:
	default:
		t.Error("closing left the reading ahead running")
	}
	if !src.closed {
		t.Error("closing did not close the source")
	}
}
