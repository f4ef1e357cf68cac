package sheets

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/backend"
)

// Store keeps workbooks as Google spreadsheets: the backend.Store of
// Google Sheets.
type Store struct {
	// Client gives the client, signing in on first use (as SignInOnUse
	// does).
	Client func(ctx context.Context) (*Client, error)
	// Endpoint is the API the client talks to ("" for Google's), recorded
	// in each location.
	Endpoint string
	// Folder, Share, Message and Protect are as in WriteOptions; Share
	// here goes to every spreadsheet, besides each write's own.
	Folder  string
	Share   []string
	Message string
	Protect string
}

// Limits are Google Sheets'.
func (Store) Limits() backend.Limits { return backend.GSheets }

// Connect makes the client now, when Client signs in on first use (see
// SignInOnUse): a command that writes spreadsheets checks its endpoint
// and credentials before it writes anything, even a file of its own.
func (s Store) Connect(ctx context.Context) error {
	_, err := s.Client(ctx)
	return err
}

// Write makes a spreadsheet, or rewrites at.ID in place, keeping its link.
// Its errors say what to do about Google's refusals (Explain).
func (s Store) Write(ctx context.Context, p *backend.Plan, at backend.Location, opt backend.WriteOptions) (backend.Location, error) {
	loc, err := s.write(ctx, p, at, opt)
	return loc, Explain(err)
}

func (s Store) write(ctx context.Context, p *backend.Plan, at backend.Location, opt backend.WriteOptions) (backend.Location, error) {
	c, err := s.Client(ctx)
	if err != nil {
		return at, err
	}
	if opt.Expect != nil && at.ID != "" {
		// A spreadsheet is rewritten in many calls, not at once: its
		// version is checked before the first of them.
		v, err := c.Version(ctx, at.ID)
		if err != nil {
			return at, s.gone(at, err)
		}
		if v != *opt.Expect {
			return at, fmt.Errorf("spreadsheet %s: %w: it was edited after it was read (version %s, then %s)", at, backend.ErrChanged, *opt.Expect, v)
		}
	}
	wo := WriteOptions{Existing: at.ID, ExistingURL: at.URL, Folder: s.Folder, Message: s.Message, Protect: s.Protect, Tag: opt.Tag,
		Share: append(append([]string{}, s.Share...), opt.Share...)}
	if opt.Created != nil {
		wo.Created = func(id, url string) error {
			return opt.Created(backend.Location{Kind: backend.KindGSheets, ID: id, URL: url, Endpoint: s.Endpoint})
		}
	}
	w, err := c.Write(ctx, p, wo)
	if err != nil {
		return at, s.gone(at, err)
	}
	return backend.Location{Kind: backend.KindGSheets, ID: w.ID, URL: w.URL, Endpoint: s.Endpoint}, nil
}

// gone says so of a spreadsheet the location names that Google no longer
// has (or this sign-in no longer reaches).
func (Store) gone(at backend.Location, err error) error {
	var ge *googleapi.Error
	if at.ID != "" && errors.As(err, &ge) && ge.Code == http.StatusNotFound {
		return fmt.Errorf("spreadsheet %s is gone: %w: %w", at, backend.ErrNotFound, err)
	}
	return err
}

// Version is the spreadsheet's version as Drive counts it, which any
// edit raises; "" when the location names no spreadsheet yet.
func (s Store) Version(ctx context.Context, at backend.Location) (string, error) {
	if at.ID == "" {
		return "", nil
	}
	c, err := s.Client(ctx)
	if err != nil {
		return "", err
	}
	v, err := c.Version(ctx, at.ID)
	if err != nil {
		return "", s.gone(at, err)
	}
	return v, nil
}

// Exists says whether a location names a spreadsheet; whether it is still
// there shows when it is opened or rewritten.
func (Store) Exists(_ context.Context, at backend.Location) (bool, error) {
	return at.ID != "", nil
}

// ID finds a spreadsheet's ID in a link, or the ID itself.
func (Store) ID(link string) (string, bool) { return SpreadsheetID(link) }

// Open reads a spreadsheet; one that is not there, or not open to this
// sign-in, wraps backend.ErrNotFound. Its errors say what to do about
// Google's refusals (Explain).
func (s Store) Open(ctx context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	g, closeFn, err := s.open(ctx, at)
	return g, closeFn, Explain(err)
}

func (s Store) open(ctx context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	c, err := s.Client(ctx)
	if err != nil {
		return nil, nil, err
	}
	g, closeFn, err := c.Open(ctx, at.ID)
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusNotFound {
		return nil, nil, fmt.Errorf("%w: %w", backend.ErrNotFound, err)
	}
	return g, closeFn, err
}
