package memlimit

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestNextLimit(t *testing.T) {
	t.Parallel()
	const mb = 1 << 20
	for _, c := range []struct{ live, limit, want int64 }{
		{10 * mb, 100 * mb, 100 * mb}, // far under: kept
		{90 * mb, 100 * mb, 100 * mb}, // at nine tenths: kept
		{91 * mb, 100 * mb, 91 * mb / 3 * 4},
		{150 * mb, 100 * mb, 200 * mb}, // outgrown: a third above what is live
	} {
		if got := nextLimit(c.live, c.limit); got != c.want {
			t.Errorf("nextLimit(%d, %d) = %d, want %d", c.live, c.limit, got, c.want)
		}
	}
}

// TestTuneMemoryLimit holds heaps larger than a small base limit and
// checks that collections raise the limit, each time, until what is live
// is under nine tenths of it, and that it stays put once the tuning stops.
// It changes the process's limit, so it does not run in parallel with
// other tests.
func TestTuneMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	const base = 8 << 20
	stop := Tune(base)
	t.Cleanup(stop)
	if got := debug.SetMemoryLimit(-1); got != base {
		t.Fatalf("limit %d, want the base %d", got, base)
	}
	var hold [][]byte
	holdMiB := func(n int) {
		for len(hold) < n {
			hold = append(hold, make([]byte, 1<<20))
		}
	}
	// collect runs collections until the limit reaches want, or for a
	// while; it gives the limit.
	collect := func(want int64) int64 {
		deadline := time.Now().Add(10 * time.Second)
		for debug.SetMemoryLimit(-1) < want && time.Now().Before(deadline) {
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
		}
		return debug.SetMemoryLimit(-1)
	}
	for _, live := range []int{32, 96} {
		holdMiB(live)
		want := int64(live) << 20 / 9 * 10
		if got := collect(want); got < want {
			t.Fatalf("with %d MiB live over a base of 8 MiB, the limit is %d: what is live is not under nine tenths of it", live, got)
		}
	}
	stop()
	raised := debug.SetMemoryLimit(-1)
	holdMiB(192)
	for range 5 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != raised {
		t.Errorf("after stop the limit moved from %d to %d", raised, got)
	}
	runtime.KeepAlive(hold)
}
