package boundedread

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzLines: the lines are those of the data, in order and numbered from
// 1, each returned whole when within budget and reported by number when
// not; no line returned is over budget.
func FuzzLines(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint16(2))
	f.Add([]byte("{\"id\":1}\r\n{\"id\":2}\n"), uint16(8))
	f.Add(bytes.Repeat([]byte("x"), 5000), uint16(4096))
	f.Add([]byte("\n\n\n"), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		want := bytes.SplitAfter(data, []byte("\n"))
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1]
		}
		l := NewLines(bytes.NewReader(data), "in", int64(limit), "a line")
		for i := 0; ; i++ {
			b, err := l.Next()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("%d lines, want %d", i, len(want))
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("line %d of %d: %q, %v", i+1, len(want), b, err)
			}
			if l.Line() != i+1 {
				t.Fatalf("Line() %d, want %d", l.Line(), i+1)
			}
			content := len(bytes.TrimSuffix(want[i], []byte("\n")))
			var tl *TooLargeError
			switch {
			case errors.As(err, &tl):
				if content <= int(limit) || tl.Line != i+1 || tl.Limit != int64(limit) || tl.File != "in" {
					t.Fatalf("line %d (%d bytes, limit %d): %v", i+1, content, limit, err)
				}
			case err != nil:
				t.Fatalf("line %d: %v", i+1, err)
			case content > int(limit) || !bytes.Equal(b, want[i]):
				t.Fatalf("line %d: %q, want %q within %d", i+1, b, want[i], limit)
			}
		}
	})
}
