package sheets

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

var t0 = time.Date(2025, 3, 4, 5, 6, 0, 0, time.UTC)

func request(t *testing.T, method, u string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const writeURL = "http://127.0.0.1:1/v4/spreadsheets/abc:batchUpdate"

// TestClassify: reads, writes and Drive calls are told apart by method
// and path, on Google's endpoints and on a fake's.
func TestClassify(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		method, url string
		kind        requestKind
		ok          bool
	}{
		{"GET", "https://sheets.googleapis.com/v4/spreadsheets/abc?fields=sheets", kindRead, true},
		{"GET", "https://sheets.googleapis.com/v4/spreadsheets/abc/values:batchGet?ranges=A", kindRead, true},
		{"GET", "https://sheets.googleapis.com/v4/spreadsheets/abc/values/Sheet1!A1", kindRead, true},
		{"POST", "https://sheets.googleapis.com/v4/spreadsheets/abc/values:batchGetByDataFilter", kindRead, true},
		{"POST", "https://sheets.googleapis.com/v4/spreadsheets/abc:getByDataFilter", kindRead, true},
		{"POST", "https://sheets.googleapis.com/v4/spreadsheets", kindWrite, true},
		{"POST", "https://sheets.googleapis.com/v4/spreadsheets/abc:batchUpdate", kindWrite, true},
		{"PUT", "https://sheets.googleapis.com/v4/spreadsheets/abc/values/Sheet1!A1", kindWrite, true},
		{"POST", "https://sheets.googleapis.com/v4/spreadsheets/abc/values/Sheet1!A1:append", kindWrite, true},
		{"POST", "https://sheets.googleapis.com/v4/spreadsheets/abc/values:batchUpdate", kindWrite, true},
		{"GET", "https://www.googleapis.com/drive/v3/files/abc", kindDrive, true},
		{"POST", "https://www.googleapis.com/drive/v3/files/abc/permissions", kindDrive, true},
		{"POST", "https://www.googleapis.com/upload/drive/v3/files", kindDrive, true},
		{"POST", writeURL, kindWrite, true},
		{"GET", "http://127.0.0.1:1/prefix/drive/v3/about", kindDrive, true},
		{"POST", "https://oauth2.googleapis.com/token", 0, false},
	} {
		k, ok := classify(request(t, c.method, c.url))
		if k != c.kind || ok != c.ok {
			t.Errorf("%s %s: %s, %v; want %s, %v", c.method, c.url, kindNames[k], ok, kindNames[c.kind], c.ok)
		}
	}
}

// TestNewPacer: Google's endpoint is paced to Google's quotas unless told
// otherwise; a fake on this machine only when limits are set.
func TestNewPacer(t *testing.T) {
	t.Parallel()
	limits := func(pc *pacer) []int {
		if pc == nil {
			return nil
		}
		var out []int
		for _, w := range pc.win {
			n := 0
			if w != nil {
				n = w.limit
			}
			out = append(out, n)
		}
		return out
	}
	for _, c := range []struct {
		name     string
		pace     Pace
		endpoint string
		want     []int
	}{
		{"Google", Pace{}, "", []int{60, 60, 12000}},
		{"Google by its URL", Pace{}, "https://sheets.googleapis.com", []int{60, 60, 12000}},
		{"Google with a quota raised", Pace{Writes: 120}, "", []int{60, 120, 12000}},
		{"Google unpaced", Pace{Reads: -1, Writes: -1, Drive: -1}, "", nil},
		{"a fake", Pace{}, "http://127.0.0.1:8080", nil},
		{"a fake with a quota", Pace{Reads: 60, Writes: 60}, "http://localhost:8080", []int{60, 60, 0}},
	} {
		if got := limits(newPacer(c.pace, c.endpoint, nil)); !slices.Equal(got, c.want) {
			t.Errorf("%s: limits %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPacerSpacing: requests answered at once go in bursts of the limit,
// a minute apart; other kinds do not wait for them.
func TestPacerSpacing(t *testing.T) {
	t.Parallel()
	clock := sheetsfake.NewClock(t0)
	pc := newPacer(Pace{Reads: 5, Writes: 3, Clock: clock}, "", nil)
	ctx := context.Background()
	var starts []time.Duration
	for range 10 {
		release, err := pc.take(ctx, request(t, "POST", writeURL))
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, clock.Now().Sub(t0))
		release()
	}
	m := time.Minute
	if want := []time.Duration{0, 0, 0, m, m, m, 2 * m, 2 * m, 2 * m, 3 * m}; !slices.Equal(starts, want) {
		t.Errorf("writes started at %v, want %v", starts, want)
	}
	// The reads' minute is their own: five go at once.
	before := clock.Now()
	for range 5 {
		release, err := pc.take(ctx, request(t, "GET", writeURL))
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if !clock.Now().Equal(before) {
		t.Errorf("reads waited %s for the writes", clock.Now().Sub(before))
	}
}

// TestPacerHoldsUntilAnswered: a request holds its place while in flight
// and for a minute after its answer, however long it travelled.
func TestPacerHoldsUntilAnswered(t *testing.T) {
	t.Parallel()
	clock := sheetsfake.NewClock(t0)
	pc := newPacer(Pace{Writes: 2, Clock: clock}, "", nil)
	ctx := context.Background()
	r1, err := pc.take(ctx, request(t, "POST", writeURL))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := pc.take(ctx, request(t, "POST", writeURL))
	if err != nil {
		t.Fatal(err)
	}
	type started struct {
		at      time.Time
		release func()
		err     error
	}
	third := make(chan started, 1)
	req := request(t, "POST", writeURL)
	go func() {
		release, err := pc.take(ctx, req)
		third <- started{clock.Now(), release, err}
	}()
	// Both requests are slow: minutes pass, and the third still waits.
	clock.Advance(5 * time.Minute)
	select {
	case s := <-third:
		t.Fatalf("a third request went while two were in flight (at +%s, %v)", s.at.Sub(t0), s.err)
	default:
	}
	r1()
	r1() // a second release changes nothing
	s := <-third
	if s.err != nil {
		t.Fatal(s.err)
	}
	if got, want := s.at.Sub(t0), 6*time.Minute; got != want {
		t.Errorf("the third request went at +%s, want +%s: a minute after the first answer", got, want)
	}
	s.release()
	r2()
}

// TestPacerConcurrent: requests from many goroutines at once never put
// more than the limit in any minute.
func TestPacerConcurrent(t *testing.T) {
	t.Parallel()
	const limit, n = 5, 60
	clock := sheetsfake.NewClock(t0)
	pc := newPacer(Pace{Writes: limit, Clock: clock}, "", nil)
	var (
		mu     sync.Mutex
		starts []time.Time
		wg     sync.WaitGroup
	)
	for range n {
		req := request(t, "POST", writeURL)
		wg.Go(func() {
			release, err := pc.take(context.Background(), req)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			starts = append(starts, clock.Now())
			mu.Unlock()
			release()
		})
	}
	wg.Wait()
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	if len(starts) != n {
		t.Fatalf("%d requests went, want %d", len(starts), n)
	}
	for i := range starts {
		in := 0
		for _, s := range starts[i:] {
			if s.Before(starts[i].Add(time.Minute)) {
				in++
			}
		}
		if in > limit {
			t.Fatalf("%d requests in the minute from +%s, over the limit of %d", in, starts[i].Sub(t0), limit)
		}
	}
	least := time.Duration(n/limit-1) * time.Minute
	if took := starts[n-1].Sub(t0); took < least {
		t.Errorf("%d requests took %s, under the least %s the limit allows", n, took, least)
	}
}

// TestPacerContext: a request waiting its turn stops when its context
// ends, whether it waits for an answer or for a minute to pass.
func TestPacerContext(t *testing.T) {
	t.Parallel()
	clock := sheetsfake.NewClock(t0)
	pc := newPacer(Pace{Writes: 1, Clock: clock}, "", nil)
	release, err := pc.take(context.Background(), request(t, "POST", writeURL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pc.take(ctx, request(t, "POST", writeURL)); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting for an answer: %v, want context.Canceled", err)
	}
	release()
	if _, err := pc.take(ctx, request(t, "POST", writeURL)); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting for the minute: %v, want context.Canceled", err)
	}
	if !clock.Now().Equal(t0) {
		t.Errorf("the clock moved to +%s for requests that never went", clock.Now().Sub(t0))
	}
	// Requests no quota counts never wait.
	if _, err := pc.take(ctx, request(t, "POST", "https://oauth2.googleapis.com/token")); err != nil {
		t.Errorf("a token request: %v", err)
	}
}

// TestPacerNotes: the first wait of a kind is noted, once.
func TestPacerNotes(t *testing.T) {
	t.Parallel()
	var notes []string
	clock := sheetsfake.NewClock(t0)
	pc := newPacer(Pace{Writes: 1, Clock: clock}, "", func(format string, args ...any) { notes = append(notes, format) })
	for range 3 {
		release, err := pc.take(context.Background(), request(t, "POST", writeURL))
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if len(notes) != 1 {
		t.Errorf("notes %q, want one", notes)
	}
}
