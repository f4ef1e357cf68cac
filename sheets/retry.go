package sheets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// Retry is how requests that Google refuses for the moment are repeated:
// 429 Too Many Requests, a 403 whose reason is a rate limit, 5xx, network
// errors and requests that get no answer in time. Waits grow
// exponentially with jitter, never less than Retry-After asks, bounded in
// attempts and in time. Other 403s (no permission, a daily quota) are not
// retried: waiting does not fix them.
type Retry struct {
	Attempts int           // at most this many tries in all (default 8)
	Base     time.Duration // the first backoff (default 2s)
	Max      time.Duration // the longest single wait (default 64s)
	Budget   time.Duration // the longest all waits together (default 5m)
	// Timeout bounds the wait for an answer to start (default 2m): a
	// request that hangs is abandoned and tried again. Reading a long
	// answer is not bounded by it.
	Timeout time.Duration
	// Sleep waits; tests replace it. It must return early, with the
	// context's error, when the context ends.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logf, if set, says what is retried (never with request bodies or
	// tokens).
	Logf func(format string, args ...any)
}

func (r Retry) withDefaults() Retry {
	if r.Attempts == 0 {
		r.Attempts = 8
	}
	if r.Base == 0 {
		r.Base = 2 * time.Second
	}
	if r.Max == 0 {
		r.Max = 64 * time.Second
	}
	if r.Budget == 0 {
		r.Budget = 5 * time.Minute
	}
	if r.Timeout == 0 {
		r.Timeout = 2 * time.Minute
	}
	if r.Sleep == nil {
		r.Sleep = sleepCtx
	}
	return r
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Transport wraps base with the retry policy.
func (r Retry) Transport(base http.RoundTripper) http.RoundTripper {
	return r.transport(base, nil)
}

// transport wraps base with the retry policy and, when pace is not nil,
// the pacing: every try waits its turn before it is sent (a try Google
// refuses may count against its quota too), and that wait counts neither
// in the try's Timeout nor in the retries' Budget.
func (r Retry) transport(base http.RoundTripper, pace *pacer) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &retryTransport{base: base, r: r.withDefaults(), pace: pace}
}

type retryTransport struct {
	base http.RoundTripper
	r    Retry
	pace *pacer
}

type noReplayKey struct{}

// noReplay marks a request that must not be sent twice (it creates
// something): it is tried again only when Google surely did not carry it
// out (429, a rate limit, a connection refused), never after an answer
// that was lost.
func noReplay(ctx context.Context) context.Context {
	return context.WithValue(ctx, noReplayKey{}, true)
}

// rateLimited reports a 403 that is a rate limit, which passes with time.
func rateLimited(resp *http.Response) bool {
	if resp.StatusCode != http.StatusForbidden {
		return false
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return bytes.Contains(b, []byte(`"rateLimitExceeded"`)) || bytes.Contains(b, []byte(`"userRateLimitExceeded"`))
}

// retryable reports the answers worth trying again; sure is true when the
// request was certainly not carried out.
func retryable(resp *http.Response) (retry, sure bool) {
	switch c := resp.StatusCode; {
	case c == http.StatusTooManyRequests:
		return true, true
	case c >= 500 && c <= 599:
		return true, false
	}
	if rateLimited(resp) {
		return true, true
	}
	return false, false
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// The body must be sent again on each try.
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	ctx := req.Context()
	once := ctx.Value(noReplayKey{}) != nil
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		release, err := t.pace.take(ctx, req)
		if err != nil {
			return nil, err
		}
		// The timeout bounds the wait for the answer's headers; the
		// answer's body may then take as long as it takes.
		tctx, cancel := context.WithCancel(ctx)
		timer := time.AfterFunc(t.r.Timeout, cancel)
		r := req.Clone(tctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			r.ContentLength = int64(len(body))
		}
		resp, err := t.base.RoundTrip(r)
		release()
		fired := !timer.Stop()
		if fired && err == nil {
			// The answer came as the time ran out; its body is cut off.
			resp.Body.Close()
			resp, err = nil, context.DeadlineExceeded
		}
		var again, sure bool
		if err != nil {
			cancel()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if fired {
				err = fmt.Errorf("no answer within %s: %w", t.r.Timeout, context.DeadlineExceeded)
			}
			again, sure = transient(err), refused(err)
		} else {
			again, sure = retryable(resp)
		}
		if !again || attempt >= t.r.Attempts || once && !sure {
			if err != nil {
				return nil, err
			}
			resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
			return resp, nil
		}
		wait := t.backoff(attempt, resp)
		if waited+wait > t.r.Budget {
			if resp != nil {
				resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
				return resp, nil
			}
			return nil, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		cancel()
		if t.r.Logf != nil {
			what := "network error"
			if resp != nil {
				what = resp.Status
			}
			t.r.Logf("%s %s: %s; trying again in %s (attempt %d of %d)", req.Method, req.URL.Path, what, wait.Round(time.Millisecond), attempt+1, t.r.Attempts)
		}
		if err := t.r.Sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
	}
}

// backoff is the wait before another try: between half and all of an
// exponential ceiling (equal jitter: spread out, yet growing), never less
// than Retry-After.
func (t *retryTransport) backoff(attempt int, resp *http.Response) time.Duration {
	ceiling := t.r.Base << (attempt - 1)
	if ceiling > t.r.Max || ceiling <= 0 {
		ceiling = t.r.Max
	}
	half := max(1, int64(ceiling)/2)
	wait := time.Duration(half + rand.Int64N(half) + 1)
	if resp != nil {
		if ra := retryAfter(resp.Header.Get("Retry-After")); ra > wait {
			wait = ra
		}
	}
	return wait
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		// A day is longer than any budget; more would overflow.
		return time.Duration(min(s, 86400)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// cancelBody ends a try's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// transient reports errors of the network, which another try may not meet:
// a refused or reset connection, a timeout, a connection closed early. A
// name that does not resolve is a mistake, not a moment.
func transient(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// refused reports a connection that was never made: the request was
// certainly not carried out.
func refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}
