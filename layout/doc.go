// Package layout turns a template and a study's input records into a
// sheet plan (backend.Plan): the Annotate sheet's columns, colour bands,
// dropdowns and checkboxes, long text fitted to its cells and the Read
// sheet that holds all of it, the live checks, opaque IDs, the
// Instructions sheet, and the metadata that lets package decode read the
// filled sheet back. It is pure: input records come through a Source,
// and rows are kept in a spool on the Source's scratch storage, not in
// files of their own.
//
//	res, err := layout.Build(ctx, tmpl, src, layout.Options{Batch: "b01", Study: id})
//	defer res.Close()
//	err = store.Write(ctx, res.Plan, at, opts) // a backend renders the plan
package layout
