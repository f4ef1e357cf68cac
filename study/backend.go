package study

import (
	"context"
	"errors"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/manifest"
)

// ErrNotFound is wrapped by a backend's Open error when the workbook is not
// there (deleted, or a spreadsheet this sign-in cannot reach): its units
// are missing, and the study goes on.
var ErrNotFound = errors.New("not found")

// Files is a backend of workbook files (XLSX, and what it converts).
type Files interface {
	// Readable says whether a file met in a folder is a workbook to read;
	// when it is a spreadsheet it cannot read, why says so (ok false, why
	// set); a file that is no spreadsheet at all gives false and "".
	Readable(name string) (ok bool, why string)
	// Open reads the workbook at path. Its Name is used as the record's
	// source; messages name path as the user gave it.
	Open(ctx context.Context, path string) (*backend.Grid, func() error, error)
}

// Spreadsheets is a backend of online spreadsheets (Google Sheets).
type Spreadsheets interface {
	// ID finds a spreadsheet's ID in a link, or the ID itself.
	ID(link string) (string, bool)
	// Open reads a spreadsheet; recorded is what the study's manifest
	// records of it (nil for a link given alone).
	Open(ctx context.Context, id string, recorded *manifest.Spreadsheet) (*backend.Grid, func() error, error)
}

// Backends are the backends a study can reach. Either may be nil when the
// sources need none of its kind.
type Backends struct {
	Files        Files
	Spreadsheets Spreadsheets
}

// Writer makes the workbooks of a study on one backend.
type Writer interface {
	// Format is the manifest's name of the backend: "xlsx" or "gsheets".
	Format() string
	// CellLimit is the most characters a cell holds.
	CellLimit() int
	// Exists says whether batch b's workbook, as b records it, is there.
	Exists(ctx context.Context, b *manifest.Batch) (bool, error)
	// Open reads batch b's workbook as b records it.
	Open(ctx context.Context, b *manifest.Batch) (*backend.Grid, func() error, error)
	// Write makes (or, when b records one, rewrites) the workbook of batch
	// b from plan, recording where it is in b. Once the workbook exists,
	// before anything else can fail, it calls saved so that the manifest
	// keeps track of it. It returns where the workbook is, for messages.
	Write(ctx context.Context, plan *backend.Plan, b *manifest.Batch, saved func() error) (string, error)
}

// ErrConflict is wrapped by the problem of a unit that two copies of its
// batch answer differently.
var ErrConflict = errors.New("copies disagree")
