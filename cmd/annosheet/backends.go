package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

// This file wires the backends to the study: each adapter only translates
// between a backend's API and the study's small interfaces.

// xlsxFiles reads workbook files.
type xlsxFiles struct{}

// Readable reads workbooks and what LibreOffice converts; other
// spreadsheet files are said to be unreadable, with what to do.
func (xlsxFiles) Readable(name string) (bool, string) {
	k, why := xlsx.Classify(name)
	if k == xlsx.NotSpreadsheet {
		return false, ""
	}
	return k.Readable(), why
}

func (xlsxFiles) Open(ctx context.Context, path string) (*backend.Grid, func() error, error) {
	g, closeFn, err := xlsx.OpenContext(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %w", study.ErrNotFound, err)
	}
	return g, closeFn, err
}

// googleSheets reaches spreadsheets, signing in on first use.
type googleSheets struct {
	opt    googleOptions
	stderr io.Writer
	client *sheets.Client
}

func (g *googleSheets) ID(link string) (string, bool) { return sheets.SpreadsheetID(link) }

func (g *googleSheets) Client(ctx context.Context) (*sheets.Client, error) {
	if g.client == nil {
		c, err := g.opt.client(ctx, g.stderr)
		if err != nil {
			return nil, err
		}
		g.client = c
	}
	return g.client, nil
}

// Open reads a spreadsheet. One the manifest records on another
// endpoint than the one given is a usage error that says which to give.
func (g *googleSheets) Open(ctx context.Context, id string, recorded *manifest.Spreadsheet) (*backend.Grid, func() error, error) {
	if recorded != nil && recorded.Endpoint != g.opt.Endpoint {
		if recorded.Endpoint == "" {
			return nil, nil, usagef("the spreadsheet %s is on Google: leave out --endpoint (and %s)", recorded.URL, envEndpoint)
		}
		return nil, nil, usagef("the spreadsheet %s is on %s (a dry run): give --endpoint %s --no-auth", recorded.URL, recorded.Endpoint, recorded.Endpoint)
	}
	c, err := g.Client(ctx)
	if err != nil {
		return nil, nil, err
	}
	grid, closeFn, err := c.Open(ctx, id)
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusNotFound {
		return nil, nil, fmt.Errorf("%w: %w", study.ErrNotFound, explainGoogle(err))
	}
	if err != nil {
		return nil, nil, explainGoogle(err)
	}
	return grid, closeFn, nil
}

// xlsxWriter makes a study's workbook files in its folder.
type xlsxWriter struct {
	dir string
	now time.Time
}

func (w xlsxWriter) Format() string                { return study.FormatXLSX }
func (w xlsxWriter) CellLimit() int                { return backend.XLSXCellLimit }
func (w xlsxWriter) path(b *manifest.Batch) string { return filepath.Join(w.dir, b.File) }

func (w xlsxWriter) Exists(_ context.Context, b *manifest.Batch) (bool, error) {
	if b.File == "" {
		return false, nil
	}
	_, err := os.Lstat(w.path(b))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (w xlsxWriter) Open(ctx context.Context, b *manifest.Batch) (*backend.Grid, func() error, error) {
	return xlsxFiles{}.Open(ctx, w.path(b))
}

func (w xlsxWriter) Write(_ context.Context, plan *backend.Plan, b *manifest.Batch, _ func() error) (string, error) {
	path := w.path(b)
	err := atomicfile.Write(path, true, 0o644, func(out io.Writer) error {
		return xlsx.Write(plan, out, xlsx.WriteOptions{Created: w.now})
	})
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// sheetsWriter makes a study's spreadsheets.
type sheetsWriter struct {
	google  *googleSheets
	share   []string
	message string
	folder  string
	protect string
	stderr  io.Writer
}

func (w *sheetsWriter) Format() string { return study.FormatGSheets }
func (w *sheetsWriter) CellLimit() int { return backend.SheetsCellLimit }

func (w *sheetsWriter) Exists(_ context.Context, b *manifest.Batch) (bool, error) {
	sp := b.Spreadsheet
	if sp == nil {
		return false, nil
	}
	if sp.Endpoint != w.google.opt.Endpoint {
		return false, fmt.Errorf("batch %s's spreadsheet %s is on %s, not on %s; use another --out for this one", b.ID, sp.URL, endpointName(sp.Endpoint), endpointName(w.google.opt.Endpoint))
	}
	return true, nil
}

func (w *sheetsWriter) Open(ctx context.Context, b *manifest.Batch) (*backend.Grid, func() error, error) {
	return w.google.Open(ctx, b.Spreadsheet.ID, b.Spreadsheet)
}

func (w *sheetsWriter) Write(ctx context.Context, plan *backend.Plan, b *manifest.Batch, saved func() error) (string, error) {
	c, err := w.google.Client(ctx)
	if err != nil {
		return "", err
	}
	share := w.shareWith(b)
	old := b.Spreadsheet
	wo := sheets.WriteOptions{Folder: w.folder, Share: share, Message: w.message, Protect: w.protect,
		// Recorded before anything else can fail, so that the next run
		// finishes this spreadsheet.
		Created: func(id, url string) error {
			b.Spreadsheet = &manifest.Spreadsheet{ID: id, URL: url, Status: manifest.Incomplete, Endpoint: w.google.opt.Endpoint}
			fmt.Fprintf(w.stderr, "created %s\n", url)
			return saved()
		}}
	if old != nil {
		wo.Existing, wo.ExistingURL = old.ID, old.URL
	}
	res, err := c.Write(ctx, plan, wo)
	var ge *googleapi.Error
	if old != nil && errors.As(err, &ge) && ge.Code == http.StatusNotFound {
		return "", fmt.Errorf("%w\n(the spreadsheet %s recorded in the study's manifest is gone; move the manifest away to start afresh)", err, old.URL)
	}
	if err != nil {
		return "", explainGoogle(err)
	}
	if b.Spreadsheet == nil {
		b.Spreadsheet = &manifest.Spreadsheet{ID: old.ID, Endpoint: w.google.opt.Endpoint}
	}
	b.Spreadsheet.URL, b.Spreadsheet.Status = res.URL, manifest.Complete
	return res.URL, nil
}

// shareWith lists who gets a batch's spreadsheet shared: those given,
// and its annotator when the ID is an email address.
func (w *sheetsWriter) shareWith(b *manifest.Batch) []string {
	share := append([]string{}, w.share...)
	if isEmail(b.Annotator) {
		share = append(share, b.Annotator)
	}
	return share
}

// endpointName is an endpoint as messages name it.
func endpointName(e string) string {
	if e == "" {
		return "Google"
	}
	return e
}
