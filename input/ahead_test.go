package input

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestAheadBounded: the producer runs ahead by at most aheadBytes (and
// one item more), and stop ends a producer that would go on for ever.
func TestAheadBounded(t *testing.T) {
	t.Parallel()
	const size = 1 << 20
	var made atomic.Int64
	a := runAhead(func() (int, int, bool) {
		return int(made.Add(1)), size, false
	})
	for want := 1; want <= 3; want++ {
		if got, ok := a.next(); !ok || got != want {
			t.Fatalf("item %d, %v; want %d", got, ok, want)
		}
	}
	// Time for a producer that does not stop to go on.
	time.Sleep(50 * time.Millisecond)
	if limit := int64(3 + aheadBytes/size + 1); made.Load() > limit {
		t.Errorf("%d items made with 3 taken; at most %d may be", made.Load(), limit)
	}
	a.stop()
	n := made.Load()
	time.Sleep(10 * time.Millisecond)
	if made.Load() != n {
		t.Error("the producer went on after stop returned")
	}

	// Items that count for nothing are bounded by number.
	var few atomic.Int64
	b := runAhead(func() (int, int, bool) { return int(few.Add(1)), 0, false })
	b.next()
	time.Sleep(50 * time.Millisecond)
	if few.Load() > 1+aheadItems+1 {
		t.Errorf("%d items made with 1 taken; at most %d may be", few.Load(), 1+aheadItems+1)
	}
	b.stop()
}
