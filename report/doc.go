// Package report makes a study's report: one self-contained HTML page a
// coordinator opens offline, with the study's progress, how often
// annotators kept the answers suggested to them (when the workbooks were
// prefilled), the answers each annotator gives, the agreement, the
// problems pull found and, when there is one, the gold set.
//
// Build computes what the page shows (a Report, plain data that is also
// written as JSON) from a pulled study, its template and, optionally, a
// gold set; Write renders it. The numbers are those of the rest of
// annosheet: progress is study.CountProgress's, agreement study.Agree's
// with its default options, scores against gold those of agree --against.
// Nothing here reads a file: the caller pulls the study.
//
//	rep, err := report.Build(ctx, t, res, report.Options{Sources: []string{"study/"}})
//	if err != nil { ... }
//	err = report.Write(w, rep)
//
// The page is made by html/template, so every label, answer, span text
// and message is escaped; its charts are SVG written by the same
// template, with no script, style sheet, font or image fetched from
// anywhere (a Content-Security-Policy forbids it, too).
package report
