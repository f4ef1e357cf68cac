package sheetsfake

import (
	"context"
	"sync"
	"time"
)

// Clock is simulated time for tests of quotas and pacing: it stands still
// until Sleep or Advance moves it on, so that minutes of waiting for a
// quota take no time at all. The fake reads it (Options.Now = clock.Now)
// and the client waits on it (sheets.Pace.Clock), so both see the same
// minutes.
//
// It never goes back, and a sleeper always wakes at or after the time it
// asked for. Sleepers at the same moment may carry it further than the
// longest of them asked (each moves it on from where it finds it), which
// only lengthens the time a test measures.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock makes a clock that reads start until it is moved on.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now is the simulated time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d (not back: a negative d does nothing).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
}

// Sleep "waits" d by moving the clock on by d and returns at once; it
// returns the context's error instead when the context has ended. It has
// the signature of sheets.Retry.Sleep.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(d)
	return nil
}
