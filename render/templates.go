package render

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/annosheet/annosheet/templates"
)

// TemplateList writes the table of the built-in templates: a line each
// with its name, version and summary, under a header.
func TemplateList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSUMMARY")
	for _, name := range templates.BuiltinNames() {
		t, err := templates.Builtin(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", t.Name, t.Version, t.Summary)
	}
	return tw.Flush()
}

// ShowTemplate writes a template as the YAML it was read from (the text a
// user copies and edits), or, asJSON, as checked, its defaults filled in.
func ShowTemplate(w io.Writer, t *templates.Template, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(t)
	}
	_, err := w.Write(t.Source)
	return err
}

// TemplateChecks says how template files fared in their checks: a line
// for each that passes, as it is added, and the problems of the others
// together at the end (Err), so that all are fixed in one pass.
type TemplateChecks struct {
	W      io.Writer
	failed []error
}

// Add says how the file fared: t is the template read from it, or err
// why it could not be.
func (c *TemplateChecks) Add(file string, t *templates.Template, err error) {
	if err != nil {
		c.failed = append(c.failed, err)
		return
	}
	fmt.Fprintf(c.W, "%s: ok (%s version %d: %d context columns, %d questions, %d rules, rows per %s)\n",
		file, t.Name, t.Version, len(t.Context), len(t.Questions), len(t.Rules), t.Rows.Per)
}

// Err is the problems of the files that failed: the one error when one
// did, else all their problems as one templates.ErrorList (each names its
// file and YAML line), or, when a file could not be read as a template at
// all (its error is not an ErrorList), the first such error.
func (c *TemplateChecks) Err() error {
	switch len(c.failed) {
	case 0:
		return nil
	case 1:
		return c.failed[0]
	}
	var all templates.ErrorList
	for _, err := range c.failed {
		l, ok := err.(templates.ErrorList)
		if !ok {
			return err
		}
		all = append(all, l...)
	}
	return all
}
