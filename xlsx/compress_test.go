package xlsx

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	kflate "github.com/klauspost/compress/flate"
)

// deflateAll deflates data through the zip container's compressor, in
// writes of the given sizes.
func deflateAll(t *testing.T, c Compression, data []byte, sizes []int) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := c.compressor()(&out)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; len(data) > 0; k++ {
		n := min(len(data), sizes[k%len(sizes)])
		if _, err := w.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestParallelDeflate: whatever the cut of the writes and the number of
// cores, the blocks make one deflate stream that the standard library
// inflates to the input, the same bytes every time, about as small as one
// stream would be.
func TestParallelDeflate(t *testing.T) {
	// Real legal text, repeated past five blocks, with random bytes here
	// and there.
	legal, err := os.ReadFile(filepath.Join("..", "testdata", "data", "legal-gaps", "examples.sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var text bytes.Buffer
	for text.Len() < 5*deflateBlock+12345 {
		text.Write(legal[:rng.IntN(len(legal))])
		text.WriteByte(byte(rng.IntN(256)))
	}
	data := text.Bytes()
	for _, c := range []Compression{CompressDefault, CompressFast} {
		var first []byte
		for _, procs := range []int{1, 3} {
			for _, sizes := range [][]int{{1 << 16}, {1, 7, 40000, deflateBlock + 3}, {len(data)}} {
				prev := runtime.GOMAXPROCS(procs)
				got := deflateAll(t, c, data, sizes)
				runtime.GOMAXPROCS(prev)
				back, err := io.ReadAll(flate.NewReader(bytes.NewReader(got)))
				if err != nil {
					t.Fatalf("level %d, %d cores: inflate: %v", c.level(), procs, err)
				}
				if !bytes.Equal(back, data) {
					t.Fatalf("level %d, %d cores: inflated %d bytes differ from the %d written", c.level(), procs, len(back), len(data))
				}
				if first == nil {
					first = got
				} else if !bytes.Equal(got, first) {
					t.Errorf("level %d, %d cores, writes %v: the output differs from the first run's", c.level(), procs, sizes)
				}
			}
		}
		// The blocks cost little against one stream of the same deflate,
		// and that deflate little against the standard library's.
		var one, std bytes.Buffer
		kw, _ := kflate.NewWriter(&one, c.level())
		kw.Write(data)
		kw.Close()
		sw, _ := flate.NewWriter(&std, c.level())
		sw.Write(data)
		sw.Close()
		if float64(len(first)) > 1.01*float64(one.Len()) {
			t.Errorf("level %d: %d bytes in blocks, %d in one stream", c.level(), len(first), one.Len())
		}
		if float64(one.Len()) > 1.1*float64(std.Len()) {
			t.Errorf("level %d: %d bytes, %d with the standard library", c.level(), one.Len(), std.Len())
		}
	}
	// Nothing written still makes a stream.
	back, err := io.ReadAll(flate.NewReader(bytes.NewReader(deflateAll(t, CompressDefault, nil, []int{1}))))
	if err != nil || len(back) != 0 {
		t.Errorf("empty part: %q, %v", back, err)
	}
}

type failWriter struct{ after int }

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errDisk
	}
	return len(p), nil
}

// TestParallelDeflateError: a failing output is reported by Write or
// Close, never lost.
func TestParallelDeflateError(t *testing.T) {
	t.Parallel()
	data := make([]byte, 9*deflateBlock)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	w, _ := CompressDefault.compressor()(&failWriter{after: 2 * deflateBlock})
	_, err := w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if !errors.Is(err, errDisk) {
		t.Errorf("got %v, want %v", err, errDisk)
	}
}
