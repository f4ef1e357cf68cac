package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/sheets"
)

// previous reads the manifest a previous run left in --out, if any: the
// spreadsheets it made are finished, kept or (with --force) rewritten in
// place, never made twice.
func (g *generation) previous() (*manifest.Manifest, error) {
	if _, err := os.Lstat(g.path); err != nil {
		return nil, nil
	}
	prev, err := manifest.Read(g.path)
	if err != nil {
		if g.opt.Force {
			fmt.Fprintf(g.stderr, "warning: %v; --force replaces it\n", err)
			return nil, nil
		}
		return nil, fmt.Errorf("%w\n(move it away, or use --force to replace it)", err)
	}
	for _, b := range prev.Batches {
		if sp := b.Spreadsheet; sp != nil && sp.Endpoint != g.opt.Google.Endpoint {
			return nil, fmt.Errorf("%s: batch %s's spreadsheet %s is on %s, not on %s; use another --out for this one", g.path, b.ID, sp.URL, endpointName(sp.Endpoint), endpointName(g.opt.Google.Endpoint))
		}
	}
	if prev.Format != formatGSheets && !g.opt.Force {
		return nil, fmt.Errorf("%s: %w: it records a study of %s workbooks (use another --out, or --force to replace it)", g.path, atomicfile.ErrExists, prev.Format)
	}
	return prev, nil
}

// writeSpreadsheets makes a spreadsheet per batch. A batch the previous
// run finished is kept (rewritten in place with --force); one it left
// unfinished is finished; the manifest is saved as each spreadsheet comes
// into being, so that a failure at any point loses track of nothing.
func (g *generation) writeSpreadsheets(ctx context.Context, prev *manifest.Manifest) error {
	same := prev != nil && g.samePlan(prev)
	if prev != nil && !same && !g.opt.Force {
		return fmt.Errorf("%s records another study (its template, inputs, annotators or seed differ): use another --out, or --force to rewrite its spreadsheets", g.path)
	}
	before := map[string]manifest.Batch{}
	if prev != nil {
		for _, b := range prev.Batches {
			before[b.ID] = b
		}
	}
	if same && !g.opt.Force {
		done := 0
		for _, b := range g.plan {
			if sp := before[b.ID].Spreadsheet; sp != nil && sp.Status == manifest.Complete {
				done++
			}
		}
		if done == len(g.plan) {
			return fmt.Errorf("%s: %w: all %d spreadsheets of this study are made (use --force to rewrite them)", g.path, atomicfile.ErrExists, done)
		}
	}
	c, err := g.opt.Google.client(ctx, g.stderr)
	if err != nil {
		return err
	}
	save := func() error {
		if err := atomicfile.Write(g.path, true, 0o644, g.man.Encode); err != nil {
			return fmt.Errorf("write %s: %w", g.path, err)
		}
		return nil
	}
	bar := newProgress(g.stderr, g.rows(), "making spreadsheets")
	defer bar.Finish()
	for i, b := range g.plan {
		mb := &g.man.Batches[i]
		old := before[b.ID].Spreadsheet
		if same && !g.opt.Force && old != nil && old.Status == manifest.Complete {
			// Made and finished by the run this one finishes.
			kept := before[b.ID]
			*mb = kept
			fmt.Fprintf(g.stderr, "kept %s (batch %s)\n", old.URL, b.ID)
			continue
		}
		res, err := g.build(b)
		if err != nil {
			return err
		}
		record(mb, res)
		share := append([]string{}, g.opt.Share...)
		if isEmail(b.Annotator) {
			share = append(share, b.Annotator)
		}
		wo := sheets.WriteOptions{Folder: g.opt.Folder, Share: share, Message: g.opt.Message, Protect: g.opt.Protect,
			// Recorded before anything else can fail, so that the next run
			// finishes this spreadsheet.
			Created: func(id, url string) error {
				mb.Spreadsheet = &manifest.Spreadsheet{ID: id, URL: url, Status: manifest.Incomplete, Endpoint: g.opt.Google.Endpoint}
				fmt.Fprintf(g.stderr, "created %s\n", url)
				return save()
			}}
		if old != nil {
			wo.Existing, wo.ExistingURL = old.ID, old.URL
			if old.Status == manifest.Complete {
				// Rewriting loses what annotators wrote: not without
				// asking.
				if err := noAnswers(ctx, c, old, g.opt.DiscardAnswers); err != nil {
					return err
				}
				fmt.Fprintf(g.stderr, "rewriting %s\n", old.URL)
			} else {
				fmt.Fprintf(g.stderr, "finishing %s\n", old.URL)
			}
		}
		w, err := c.Write(ctx, counted(res.Plan, bar), wo)
		var ge *googleapi.Error
		if old != nil && errors.As(err, &ge) && ge.Code == http.StatusNotFound {
			return fmt.Errorf("%w\n(the spreadsheet %s recorded in %s is gone; move %s away to start afresh)", err, old.URL, g.path, g.path)
		}
		if err != nil {
			return explainGoogle(err)
		}
		mb.Spreadsheet.URL, mb.Spreadsheet.Status = w.URL, manifest.Complete
		if err := save(); err != nil {
			return err
		}
		g.wrote(w.URL, b, mb)
		if len(share) > 0 {
			fmt.Fprintf(g.stdout, "  shared with %s (can edit)\n", strings.Join(share, ", "))
		}
	}
	bar.Finish()
	return save()
}

// endpointName is an endpoint as messages name it.
func endpointName(e string) string {
	if e == "" {
		return "Google"
	}
	return e
}

// noAnswers refuses to rewrite a spreadsheet annotators have answered in,
// unless told to.
func noAnswers(ctx context.Context, c *sheets.Client, sp *manifest.Spreadsheet, discard bool) error {
	g, closeFn, err := c.Open(ctx, sp.ID)
	if err != nil {
		return explainGoogle(err)
	}
	defer closeFn()
	p, err := mapping.Pull(g, mapping.PullOptions{})
	if err != nil {
		// Not a sheet pull can read: nothing of ours to lose.
		return nil
	}
	n := 0
	for _, r := range p.Records {
		if r.Status == mapping.StatusComplete || r.Status == mapping.StatusPartial {
			n++
		}
	}
	if n > 0 && !discard {
		return fmt.Errorf("spreadsheet %s holds answers for %d units: pull them first, then add --discard-answers to rewrite it (its version history in Drive keeps the old content)", sp.URL, n)
	}
	return nil
}
