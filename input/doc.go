// Package input reads what a study starts from: the records (JSON arrays or
// objects keyed by id, JSON Lines, factgenie folders) and template files.
// Reading files happens here, so that packages layout and templates stay
// pure: layout consumes a layout.Source and never opens a file.
//
// Records are read lazily, on every Each, so an input larger than memory
// can be planned; a Spool copies them once so that each batch of a study
// can read its own subset without reading the input whole again:
//
//	t, err := input.Template("legal-gaps", nil) // or a path to a .yaml file
//	if err != nil {
//		return err
//	}
//	src, err := input.Open(t.Input.Format, []string{"examples/legal-gaps.jsonl"})
//	if err != nil {
//		return err
//	}
//	res, err := layout.Build(ctx, t, src, layout.Options{Study: "demo"})
//	if err != nil {
//		return err
//	}
//	defer res.Close() // the rows Build kept in a temporary file for writing
//
// A problem in an input file is a records.Problem that names the file and
// line (records.ErrMalformed for bad JSON); all of a file's problems come
// together as records.Problems, up to records.MaxErrors.
package input
