package study

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
)

// A run that reads a file or a workbook a person may be editing and then
// rewrites it (an adjudication's workbooks and manifest, a study's
// workbooks replaced with Force) takes its version before reading it and
// replaces it only while it is still that version: what someone saved in
// between is never lost without a word.

// guardedFile is a file a run read and rewrites, such as a manifest: it
// is replaced only while it is what the run last read or wrote.
type guardedFile struct {
	path  string
	stamp string
}

// guardFile stamps path before it is read.
func guardFile(path string) (*guardedFile, error) {
	s, err := atomicfile.Stamp(path)
	if err != nil {
		return nil, err
	}
	return &guardedFile{path: path, stamp: s}, nil
}

// write replaces the file with what fn writes, unless it changed since it
// was stamped (atomicfile.ErrChanged), and stamps what it wrote.
func (g *guardedFile) write(fn func(io.Writer) error) error {
	if err := atomicfile.WriteWith(g.path, atomicfile.Options{Perm: 0o644, Expect: &g.stamp}, fn); err != nil {
		return err
	}
	s, err := atomicfile.Stamp(g.path)
	if err != nil {
		return err
	}
	g.stamp = s
	return nil
}

// versions are the versions of the workbooks a run read, by location, as
// the store that rewrites them tells them.
type versions map[backend.Location]string

// take records the version of the workbook at a location, before it is
// read; a location that names no workbook yet (a spreadsheet to be made)
// has none to keep.
func (v versions) take(ctx context.Context, store backend.Store, at backend.Location) error {
	if at.Path == "" && at.ID == "" {
		return nil
	}
	ver, err := store.Version(ctx, at)
	if err != nil {
		return err
	}
	v[at] = ver
	return nil
}

// expect is the version a write to a location must find there: nil when
// none was taken.
func (v versions) expect(at backend.Location) *string {
	if ver, ok := v[at]; ok {
		return &ver
	}
	return nil
}

// unchanged fails, naming the first workbook that changed, when any of
// them is no longer the version taken: checked before a run writes
// anything, so that a change found then leaves everything as it was.
func (v versions) unchanged(ctx context.Context, store backend.Store) error {
	ats := slices.SortedFunc(maps.Keys(v), func(a, b backend.Location) int { return cmp.Compare(a.String(), b.String()) })
	for _, at := range ats {
		now, err := store.Version(ctx, at)
		if err != nil && !errors.Is(err, backend.ErrNotFound) {
			return err
		}
		if now != v[at] {
			return fmt.Errorf("%s: %w: it was saved after it was read", at, backend.ErrChanged)
		}
	}
	return nil
}
