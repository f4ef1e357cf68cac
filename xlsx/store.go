package xlsx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
)

// Store keeps workbooks as files: the backend.Store of XLSX.
type Store struct {
	// Created is the creation time written into each workbook.
	Created time.Time
}

// Limits are Excel's.
func (Store) Limits() backend.Limits { return backend.XLSX }

// Write writes the workbook to at.Path, atomically (a temporary file
// renamed into place), replacing the file there: with opt.Expect, only
// while it is still the version read. Anything there but a file (a
// folder, a link, a device) is left as it is, and an error.
func (s Store) Write(_ context.Context, p *backend.Plan, at backend.Location, opt backend.WriteOptions) (backend.Location, error) {
	at.Kind = backend.KindXLSX
	err := atomicfile.WriteWith(at.Path, atomicfile.Options{Overwrite: true, Perm: 0o644, Expect: opt.Expect}, func(w io.Writer) error {
		return Write(p, w, WriteOptions{Created: s.Created})
	})
	if errors.Is(err, atomicfile.ErrChanged) {
		return at, changedError{err}
	}
	if err != nil {
		return at, fmt.Errorf("write %s: %w", at.Path, err)
	}
	if opt.Created != nil {
		if err := opt.Created(at); err != nil {
			return at, err
		}
	}
	return at, nil
}

// changedError is atomicfile's ErrChanged as the backend contract says
// it: backend.ErrChanged.
type changedError struct{ error }

func (e changedError) Unwrap() error        { return e.error }
func (e changedError) Is(target error) bool { return target == backend.ErrChanged }

// Version is the file's size, modification time and a hash of its
// content; "" when there is no file.
func (Store) Version(_ context.Context, at backend.Location) (string, error) {
	return atomicfile.Stamp(at.Path)
}

// Exists says whether at.Path names a file (or anything else in the way).
func (Store) Exists(_ context.Context, at backend.Location) (bool, error) {
	_, err := os.Lstat(at.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Open reads the workbook at at.Path (see OpenContext); a missing file
// wraps backend.ErrNotFound as well as fs.ErrNotExist.
func (Store) Open(ctx context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	g, closeFn, err := OpenContext(ctx, at.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %w", backend.ErrNotFound, err)
	}
	return g, closeFn, err
}

// Readable says whether a file met in a folder is a workbook Open reads;
// a spreadsheet file it cannot read gives the reason, and a file that is
// no spreadsheet (a lock file, a manifest) gives false and "".
func (Store) Readable(name string) (bool, string) {
	k, why := Classify(name)
	if k == NotSpreadsheet {
		return false, ""
	}
	return k.Readable(), why
}
