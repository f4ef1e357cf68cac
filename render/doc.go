// Package render writes what annosheet has to say to a person at a
// terminal, and as CSV for a spreadsheet: agree's table and rows, the
// results as text, CSV or LaTeX, status's progress and agreement so far,
// and each command's closing lines (what generate, pull, export and
// adjudicate wrote, and what they left out), a pull's problems, and
// errors, one line per problem. Every cell of text goes through safetext
// (no control character reaches the terminal) and every CSV field
// through csvsafe (no text becomes a formula). It writes to the writer
// it is given, never a file, and names no flag: what a command line
// would add, the command gives it.
//
//	rep, err := study.Agree(ctx, t, recs, opt)
//	err = render.AgreeText(os.Stdout, rep)
package render
