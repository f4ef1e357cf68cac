package sheets

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	drive "google.golang.org/api/drive/v3"
	"google.golang.org/api/option"
	sheetsapi "google.golang.org/api/sheets/v4"
	htransport "google.golang.org/api/transport/http"

	"github.com/annosheet/annosheet/internal/loopback"
)

// Scope is the one OAuth scope annosheet asks for: files it creates (and
// files the user opens with it), nothing else of the user's Drive. The
// sign-in (package googleauth) asks for the same.
const Scope = drive.DriveFileScope

// ErrNoCredentials means no way to sign in to Google was given.
var ErrNoCredentials = errors.New("not signed in to Google")

// ErrNoAuthEndpoint is wrapped when calls without credentials would go
// anywhere but to a fake on this machine.
var ErrNoAuthEndpoint = errors.New("calls without signing in go only to a loopback endpoint (a fake of the Sheets API)")

// ErrForeignEndpoint is wrapped when credentials would go to an endpoint
// that is neither Google's nor on this machine.
var ErrForeignEndpoint = errors.New("annosheet sends your Google credentials to Google (https://*.googleapis.com) or to this machine only")

// Options say where the Sheets API is and who is calling it.
type Options struct {
	// Endpoint is the base URL of a Sheets-compatible server, such as the
	// fake; "" is Google.
	Endpoint string
	// NoAuth sends requests without credentials; only allowed for a
	// loopback Endpoint.
	NoAuth bool
	// TokenSource signs requests as a user (OAuth).
	TokenSource oauth2.TokenSource
	// CredentialsFile is a service account key.
	CredentialsFile string
	// Retry is the policy for requests refused for the moment.
	Retry Retry
	// Pace keeps requests within Google's per-minute quotas; by default
	// Google's own quotas for Google's endpoint, and none for a fake on
	// this machine (see Pace).
	Pace Pace
	// Transport is the HTTP transport under authentication and retries.
	Transport http.RoundTripper
}

// Client is a signed-in connection to Sheets and Drive.
type Client struct {
	Sheets *sheetsapi.Service
	Drive  *drive.Service
	// ServiceAccount is set when calls are made as a service account,
	// which cannot own new files.
	ServiceAccount bool
	// ChunkBytes bounds the JSON of one request; Google recommends
	// staying under 2 MB.
	ChunkBytes int
	hc         *http.Client
	// requests counts the API calls made; a call retried counts once.
	requests *counter
}

// IsLoopback reports whether a URL points at this machine.
func IsLoopback(u string) bool { return loopback.URL(u) }

// New connects to Sheets and Drive.
func New(ctx context.Context, o Options) (*Client, error) {
	base := o.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c := &Client{ChunkBytes: 1800 << 10, requests: &counter{}}
	if o.Pace.Clock != nil && o.Retry.Sleep == nil {
		// One clock for all waiting: a simulated one spends no time on
		// retries either.
		o.Retry.Sleep = o.Pace.Clock.Sleep
	}
	pace := newPacer(o.Pace, o.Endpoint, o.Retry.Logf)
	// Retries (and the pacing of each try) go beneath the signature of a
	// user's token, so that a sign-in Google refuses is reported at once,
	// not tried again.
	var rt http.RoundTripper
	switch {
	case o.NoAuth:
		if err := CheckEndpoint(o); err != nil {
			return nil, err
		}
		rt = o.Retry.transport(base, pace)
	case o.CredentialsFile != "":
		hc, _, err := htransport.NewClient(ctx, option.WithAuthCredentialsFile(option.ServiceAccount, o.CredentialsFile), option.WithScopes(Scope))
		if err != nil {
			return nil, fmt.Errorf("service account key %s: %w", o.CredentialsFile, err)
		}
		rt, c.ServiceAccount = o.Retry.transport(hc.Transport, pace), true
	case o.TokenSource != nil:
		rt = &oauth2.Transport{Source: o.TokenSource, Base: o.Retry.transport(base, pace)}
	default:
		return nil, ErrNoCredentials
	}
	hc := &http.Client{Transport: c.requests.wrap(rt)}
	c.hc = hc
	sopts := []option.ClientOption{option.WithHTTPClient(hc)}
	dopts := []option.ClientOption{option.WithHTTPClient(hc)}
	if o.Endpoint != "" {
		e := strings.TrimSuffix(o.Endpoint, "/")
		sopts = append(sopts, option.WithEndpoint(e+"/"))
		dopts = append(dopts, option.WithEndpoint(e+"/drive/v3/"))
	}
	var err error
	if c.Sheets, err = sheetsapi.NewService(ctx, sopts...); err != nil {
		return nil, err
	}
	if c.Drive, err = drive.NewService(ctx, dopts...); err != nil {
		return nil, err
	}
	return c, nil
}

// Requests is how many API calls the client has made; a call that was
// retried counts once.
func (c *Client) Requests() int {
	n, _ := c.requests.n()
	return n
}

// counter counts API calls and the bytes they send.
type counter struct {
	mu           sync.Mutex
	calls, bytes int
}

func (c *counter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		c.mu.Lock()
		c.calls++
		c.bytes += int(max(0, r.ContentLength))
		c.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

func (c *counter) n() (calls, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls, c.bytes
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
