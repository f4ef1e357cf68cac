// Package fifo makes named pipes for tests of readers that must refuse
// them without blocking, skipping the test where there are none.
//
//	p := filepath.Join(t.TempDir(), "manifest.json")
//	fifo.Make(t, p)
//	_, err := manifest.Read(p) // must return at once
package fifo

import (
	"testing"
	"time"
)

// Make makes a named pipe at path, or skips the test.
func Make(tb testing.TB, path string) {
	tb.Helper()
	if err := mkfifo(path); err != nil {
		tb.Skipf("no named pipes here: %v", err)
	}
}

// Within calls fn and fails the test if it has not returned within d: a
// reader that waits on a named pipe for a writer never would.
func Within(tb testing.TB, d time.Duration, fn func()) {
	tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		tb.Fatalf("still blocked after %v", d)
	}
}
