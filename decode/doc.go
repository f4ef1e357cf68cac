// Package decode reads a filled grid (backend.Grid, from either backend)
// back into canonical records and problems: it finds the metadata layout
// wrote, maps the columns by header, reads every answer cell leniently
// (a label or a code, "yes" for a tick) and says, by sheet and cell, each
// one it cannot read; blocks moved or sorted are put back by their places;
// opaque IDs are given their real ones with the study's key. It is pure.
//
//	p, err := decode.Pull(grid, decode.PullOptions{Template: t.Name, Version: t.Version})
//	// p.Records: one per unit; p.Problems: sorted by row and column
package decode
