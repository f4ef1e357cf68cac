// Package templates is the annotation template language: the YAML that
// declares what annotators see (context columns, row layout), what they
// answer (questions with codes and labels), which answers are allowed
// (conditional rules), how answers map to the study's native file, and
// which groups of units (systems, evaluators) results compare.
//
// Four templates are built in (BuiltinNames); any other scheme is a YAML
// file of the same shape. Loading checks the whole template and reports
// every problem with its YAML line:
//
//	t, err := templates.Builtin("legal-gaps") // or templates.Load(file, src)
//	if err != nil {
//		return err // an ErrorList: "my.yaml:12: question "gaps": ..."
//	}
//	for _, c := range t.Columns() {
//		fmt.Println(c.Header)
//	}
//
// The same checks that pull makes are compiled into spreadsheet formulas
// (LiveChecks, CheckText), so that the sheet shows annotators what is
// missing or wrong while they work: one formula text that every backend
// writes. A check that a formula cannot express is left to pull.
//
// The package knows nothing about spreadsheets or files: package input
// reads a template file (input.Template takes a built-in name or a path),
// package layout turns a template and records into a sheet plan, and
// package decode reads the filled sheet back.
package templates
