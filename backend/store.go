package backend

import (
	"context"
	"errors"
)

// ErrNotFound is wrapped by a Store's Open error when the workbook is not
// there: a file deleted, a spreadsheet deleted or out of reach.
var ErrNotFound = errors.New("workbook not found")

// ErrChanged is wrapped by a Store's Write error when the workbook is no
// longer what the caller read (WriteOptions.Expect): someone saved it
// meanwhile. The workbook is left as it is.
var ErrChanged = errors.New("changed since it was read")

// Location is where a workbook lives: a file, or a spreadsheet.
type Location struct {
	Kind string // KindXLSX or KindGSheets
	Path string // a file
	// A spreadsheet: its ID, link, and the API it lives on ("" for
	// Google's own).
	ID, URL, Endpoint string
}

// String names the workbook in messages: its path or its link.
func (l Location) String() string {
	switch {
	case l.Path != "":
		return l.Path
	case l.URL != "":
		return l.URL
	}
	return l.ID
}

// WriteOptions say who gets a workbook and how a store reports progress.
type WriteOptions struct {
	// Share lists email addresses to give edit access, where a backend
	// shares (files are sent by the coordinator instead).
	Share []string
	// Tag names the workbook across runs: the same for every run that
	// writes the same batch of the same study, and for nothing else. A
	// store that can lose track of a workbook it makes (a spreadsheet
	// whose creation's answer was lost, and the run then stopped) marks
	// a new one with it and, when the location names none, finds one so
	// marked and writes into it instead of making another.
	Tag string
	// Created, when set, is called as soon as a new workbook exists,
	// before anything else can fail, so that the caller keeps track of
	// it.
	Created func(Location) error
	// Expect, when set, is the Version of the workbook at the location
	// as the caller read it ("" for none there). Write replaces it only
	// while it is still that: otherwise it fails with ErrChanged before
	// changing anything, so that what a person saved after the caller
	// read the workbook is never lost.
	Expect *string
}

// Store is a backend: it writes a plan as a workbook, and reads a
// workbook back as a grid. xlsx and sheets implement it; the conformance
// suite runs every Store alike.
type Store interface {
	// Limits names the backend and what its application accepts.
	Limits() Limits
	// Write renders a plan at a location: a new workbook when the
	// location names none yet (a spreadsheet without an ID), else in
	// place. It returns where the workbook is.
	Write(ctx context.Context, p *Plan, at Location, opt WriteOptions) (Location, error)
	// Exists says whether there is a workbook at a location, cheaply (a
	// spreadsheet a location names is taken to be there).
	Exists(ctx context.Context, at Location) (bool, error)
	// Open reads the workbook at a location; call close when done.
	Open(ctx context.Context, at Location) (g *Grid, close func() error, err error)
	// Version identifies the workbook at a location as it is now, ""
	// when there is none: any save changes it. Take it before reading a
	// workbook that is to be rewritten, and give it to Write as Expect.
	Version(ctx context.Context, at Location) (string, error)
}
