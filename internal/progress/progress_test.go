package progress

import (
	"bytes"
	"testing"
)

// TestCountedNotTerminal: a bar counted step by step draws nothing where
// the output is not a terminal (a log, a pipe), and finishing it before
// or after any step is safe.
func TestCountedNotTerminal(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	add, finish := Counted(&out, "reading workbooks")
	finish()
	for i := range 3 {
		add(i+1, 3)
	}
	finish()
	if out.Len() != 0 {
		t.Errorf("drew %q on a buffer", out.String())
	}
}
