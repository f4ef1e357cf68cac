package xlsx

import (
	"context"

	"github.com/annosheet/annosheet/backend"
)

// verify reads every part of a workbook once, before anything else reads
// it: each part must inflate whole (its CRC checked) within the limits,
// and no XML part may declare a DTD or entities. A damaged or hostile
// file is refused here, before any of it is parsed; the reader checks
// what it reads again, so it does not depend on this pass for safety.
//
// It stops soon after ctx ends (Ctrl-C), with ctx's error: a workbook of
// gigabytes takes seconds to read.
func verify(ctx context.Context, file, name string) error {
	c, err := newChecker(file, name)
	if err != nil {
		return err
	}
	defer c.zr.Close()
	err = c.sizes(c.zr.File)
	if err == nil {
		err = c.check(ctx, c.zr.File)
	}
	return named(c.name, err)
}

// readBook opens the workbook package at file for reading as the grid of
// name. It reads the workbook part and its relationships at once; each
// sheet is read when the grid's Rows asks for it, the shared strings and
// styles before the first.
func readBook(file, name string, lim readLimits) (*backend.Grid, func() error, error) {
	b, err := openPackage(file, name, lim)
	if err != nil {
		return nil, nil, err
	}
	return b.grid(), b.close, nil
}
