// Package memlimit tunes Go's soft memory limit for a program whose live
// heap grows with its input: a fixed limit while the heap stays under it,
// a limit that follows the heap once it has outgrown it.
//
//	stop := memlimit.Tune(memlimit.Default)
//	defer stop()
package memlimit

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Default is the heap size past which the garbage collector works
// harder (Go's soft memory limit), unless GOMEMLIMIT sets another.
// annosheet streams: what it holds grows with the number of units, not
// with their text (some 80 MB when a pull has read 100,000 units).
// Without a limit the collector lets the heap grow to twice what is live
// before it runs.
const Default = 96 << 20

// nextLimit is the soft memory limit after a collection that left live
// bytes in the heap: the same limit while they are under nine tenths of
// it; past that, a third more than they are. Held to a fixed limit, a
// heap that has outgrown it (a pull of a study of some 200,000 records)
// would be collected again and again, each time freeing almost nothing.
func nextLimit(live, limit int64) int64 {
	if live > limit/10*9 {
		return live / 3 * 4
	}
	return limit
}

// Tune sets Go's soft memory limit to base, then moves it by
// nextLimit after each collection, never lower than it was. stop ends the
// tuning, leaving the limit where it is: once it has returned, the limit
// no longer moves.
func Tune(base int64) (stop func()) {
	debug.SetMemoryLimit(base)
	var (
		mu      sync.Mutex
		stopped bool
	)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		// The cleanup of an object nothing holds runs once a collection
		// has found it so.
		runtime.AddCleanup(new([64]byte), func(struct{}) {
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				limit := debug.SetMemoryLimit(-1)
				if next := nextLimit(int64(sample[0].Value.Uint64()), limit); next > limit {
					debug.SetMemoryLimit(next)
				}
			}
			arm()
		}, struct{}{})
	}
	arm()
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}
