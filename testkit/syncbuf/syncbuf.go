// Package syncbuf is a bytes.Buffer that one goroutine may write while
// another reads it: a command's output, watched by a test while the
// command runs.
//
//	var out syncbuf.Buffer
//	go run(ctx, args, &out)
//	for !strings.Contains(out.String(), "listening") { ... }
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is safe for concurrent Write and String.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what has been written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
