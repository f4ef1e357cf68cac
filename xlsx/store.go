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
// renamed into place), replacing what is there.
func (s Store) Write(_ context.Context, p *backend.Plan, at backend.Location, opt backend.WriteOptions) (backend.Location, error) {
	at.Kind = backend.KindXLSX
	err := atomicfile.Write(at.Path, true, 0o644, func(w io.Writer) error {
		return Write(p, w, WriteOptions{Created: s.Created})
	})
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
