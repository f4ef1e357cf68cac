// Package render writes what the study's numbers say for a person at a
// terminal, and as CSV for a spreadsheet: agree's table and rows, and
// status's agreement so far. Every cell of text goes through safetext
// (no control character reaches the terminal) and every CSV field
// through csvsafe (no text becomes a formula).
//
//	rep, err := study.Agree(ctx, t, recs, opt)
//	err = render.AgreeText(os.Stdout, rep)
package render
