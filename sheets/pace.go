package sheets

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Google's default per-minute quotas for one user of a project: Sheets API
// reads and writes, Drive API requests.
const (
	GoogleReadsPerMinute  = 60
	GoogleWritesPerMinute = 60
	GoogleDrivePerMinute  = 12000
)

// Clock is the time the pacing (and, unless Retry.Sleep is set, the
// retrying) waits by: the real clock, or a simulated one in tests
// (sheetsfake.Clock), so that minutes of waiting for a quota take no
// time. Sleep must return early, with the context's error, when the
// context ends.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error { return sleepCtx(ctx, d) }

// Pace spreads requests out so that they stay within Google's per-minute
// quotas for one user: a request waits, before it is sent, until sending
// it keeps every 60 seconds within the limit of its kind. A run that
// paces itself meets no 429; the retries on 429 remain for what pacing
// cannot see (other programs of the same user or project).
//
// Google counts a request when it arrives. A request holds its place in
// the minute from before it is sent until a minute after its answer
// came, so that however long it travelled, no 60 seconds of Google's
// clock see more requests than the limit, whether Google counts its
// minutes whole or rolling.
type Pace struct {
	// Reads and Writes are how many Sheets API read and write requests
	// may be made in any minute (reads only read: get, values.get,
	// values.batchGet; writes are the rest: create, batchUpdate,
	// values.update). Drive is how many Drive API requests.
	//
	// 0 is Google's default quota (GoogleReadsPerMinute and so on) when
	// the endpoint is Google's, and no limit for an endpoint on this
	// machine: a fake answers as fast as it can, and tests against it
	// make many calls and must not wait minutes. Set the limits to pace
	// against a fake that enforces a quota. A negative limit is no limit.
	Reads, Writes, Drive int
	// Clock keeps the time; nil is the real clock. The retries wait on it
	// too, unless Retry.Sleep is set.
	Clock Clock
}

// requestKind is what a request counts against.
type requestKind int

const (
	kindRead requestKind = iota
	kindWrite
	kindDrive
	kinds
)

var kindNames = [kinds]string{"Sheets read", "Sheets write", "Drive"}

// classify tells a request's kind by its method and path; ok is false for
// a request no quota counts (a token refresh). The endpoint may be served
// under a prefix, so the API's own path is looked for within the path.
func classify(r *http.Request) (k requestKind, ok bool) {
	p := r.URL.Path
	switch {
	case strings.Contains(p, "/v4/spreadsheets"):
		if r.Method == http.MethodGet || r.Method == http.MethodHead || strings.HasSuffix(p, "ByDataFilter") || strings.HasSuffix(p, ":search") {
			return kindRead, true
		}
		return kindWrite, true
	case strings.Contains(p, "/drive/"):
		return kindDrive, true
	}
	return 0, false
}

// pacer keeps a Pace: one window per kind of request. It is safe for
// concurrent use.
type pacer struct {
	clock Clock
	logf  func(format string, args ...any)
	mu    sync.Mutex
	win   [kinds]*window // nil: no limit
}

// window holds the places of one kind of request in the last minute.
type window struct {
	limit int
	// busy counts the requests sent and not yet answered; done holds when
	// the answered ones were answered, oldest first, for a minute.
	busy int
	done []time.Time
	// freed is closed when a request is answered, for those waiting while
	// every place is held by requests not yet answered.
	freed chan struct{}
	// told is set once the wait has been noted.
	told bool
}

// pacePeriod is the span of Google's quotas.
const pacePeriod = time.Minute

// newPacer makes the pacer of p for endpoint; nil when nothing is limited.
func newPacer(p Pace, endpoint string, logf func(string, ...any)) *pacer {
	google := !IsLoopback(endpoint)
	limits := [kinds]int{p.Reads, p.Writes, p.Drive}
	defaults := [kinds]int{GoogleReadsPerMinute, GoogleWritesPerMinute, GoogleDrivePerMinute}
	pc := &pacer{clock: p.Clock, logf: logf}
	if pc.clock == nil {
		pc.clock = realClock{}
	}
	limited := false
	for k, n := range limits {
		if n == 0 && google {
			n = defaults[k]
		}
		if n > 0 {
			pc.win[k] = &window{limit: n, freed: make(chan struct{})}
			limited = true
		}
	}
	if !limited {
		return nil
	}
	return pc
}

// take waits until a request may be sent, then holds its place; the
// request's answer (or failure) must be followed by the release returned.
// A nil pacer, or a request no quota counts, does not wait.
func (pc *pacer) take(ctx context.Context, r *http.Request) (release func(), err error) {
	if pc == nil {
		return func() {}, nil
	}
	k, ok := classify(r)
	if !ok || pc.win[k] == nil {
		return func() {}, nil
	}
	w := pc.win[k]
	for {
		pc.mu.Lock()
		now := pc.clock.Now()
		for len(w.done) > 0 && !now.Before(w.done[0].Add(pacePeriod)) {
			w.done = w.done[1:]
		}
		if w.busy+len(w.done) < w.limit {
			w.busy++
			pc.mu.Unlock()
			var once sync.Once
			return func() { once.Do(func() { pc.release(w) }) }, nil
		}
		if len(w.done) == 0 {
			// Every place is held by a request not yet answered: wait
			// for an answer, then for its minute to pass.
			freed := w.freed
			pc.mu.Unlock()
			select {
			case <-freed:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		wait := w.done[0].Add(pacePeriod).Sub(now)
		note := !w.told && pc.logf != nil
		w.told = true
		pc.mu.Unlock()
		if note {
			pc.logf("keeping to Google's quota of %d %s requests a minute: requests wait their turn (a study of many spreadsheets takes minutes)", w.limit, kindNames[k])
		}
		if err := pc.clock.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// release ends a request's flight: its place is free a minute after now.
func (pc *pacer) release(w *window) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	w.busy--
	w.done = append(w.done, pc.clock.Now())
	close(w.freed)
	w.freed = make(chan struct{})
}
