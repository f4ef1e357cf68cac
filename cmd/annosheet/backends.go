package main

import (
	"context"
	"io"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

// This file wires the backends to the study: XLSX files need nothing; a
// Google spreadsheet needs a sign-in, made on first use, and Google's
// refusals explained in the command line's words.

// backends are the backends pull, status and export read through.
func backends(g googleOptions, stderr io.Writer) study.Backends {
	return study.Backends{Files: xlsx.Store{}, Spreadsheets: googleStore(g, stderr, sheets.Store{}), Endpoint: g.Endpoint}
}

// googleStore completes a sheets.Store with the client of the given
// options, signed in on first use.
func googleStore(g googleOptions, stderr io.Writer, s sheets.Store) *explained {
	var client *sheets.Client
	s.Endpoint = g.Endpoint
	s.Client = func(ctx context.Context) (*sheets.Client, error) {
		if client == nil {
			c, err := g.client(ctx, stderr)
			if err != nil {
				return nil, err
			}
			client = c
		}
		return client, nil
	}
	return &explained{s}
}

// explained is a sheets.Store whose errors say what to do about Google's
// refusals.
type explained struct{ sheets.Store }

// connect makes the client now: a command that writes spreadsheets checks
// its endpoint and credentials before it writes anything (a manifest).
func (e *explained) connect(ctx context.Context) error {
	_, err := e.Client(ctx)
	return err
}

func (e *explained) Write(ctx context.Context, p *backend.Plan, at backend.Location, opt backend.WriteOptions) (backend.Location, error) {
	loc, err := e.Store.Write(ctx, p, at, opt)
	if err != nil {
		err = explainGoogle(err)
	}
	return loc, err
}

func (e *explained) Open(ctx context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	g, closeFn, err := e.Store.Open(ctx, at)
	if err != nil {
		err = explainGoogle(err)
	}
	return g, closeFn, err
}
