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

// Retry is how requests that Google refuses for the moment (429 Too Many
// Requests, 5xx) are repeated: exponential backoff with full jitter,
// waiting at least what Retry-After asks, bounded in attempts and in time.
// A 403 (quota or permission) is not retried: waiting does not fix it.
type Retry struct {
	Attempts int           // at most this many tries in all (default 6)
	Base     time.Duration // the first backoff (default 1s)
	Max      time.Duration // the longest single wait (default 32s)
	Budget   time.Duration // the longest all waits together (default 2m)
	// Timeout bounds one try (default 2m): a request that hangs is
	// abandoned and tried again.
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
		r.Attempts = 6
	}
	if r.Base == 0 {
		r.Base = time.Second
	}
	if r.Max == 0 {
		r.Max = 32 * time.Second
	}
	if r.Budget == 0 {
		r.Budget = 2 * time.Minute
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
	if base == nil {
		base = http.DefaultTransport
	}
	return &retryTransport{base: base, r: r.withDefaults()}
}

type retryTransport struct {
	base http.RoundTripper
	r    Retry
}

// retryable reports the statuses worth trying again.
func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500 && code <= 599
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
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		tctx, cancel := context.WithTimeout(ctx, t.r.Timeout)
		r := req.Clone(tctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			r.ContentLength = int64(len(body))
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			cancel()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if tctx.Err() != nil {
				err = fmt.Errorf("no answer within %s: %w", t.r.Timeout, tctx.Err())
			}
			// A network error is worth another try, like a 503; a refused
			// sign-in or a bad request is not.
			if attempt >= t.r.Attempts || !transient(err) {
				return nil, err
			}
		} else if !retryable(resp.StatusCode) || attempt >= t.r.Attempts {
			// The try's deadline must outlive the body being read.
			resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
			return resp, nil
		}
		wait := t.backoff(attempt, resp)
		if waited+wait > t.r.Budget {
			if resp != nil {
				resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
				return resp, nil
			}
			cancel()
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

// backoff is the wait before another try: full jitter over an exponential
// ceiling, never less than Retry-After.
func (t *retryTransport) backoff(attempt int, resp *http.Response) time.Duration {
	ceiling := t.r.Base << (attempt - 1)
	if ceiling > t.r.Max || ceiling <= 0 {
		ceiling = t.r.Max
	}
	wait := time.Duration(rand.Int64N(int64(ceiling)) + 1)
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
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// cancelBody ends a try's deadline when its body is closed.
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
// a refused or reset connection, a timeout, a connection closed early.
func transient(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}
