package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/annosheet/annosheet/internal/progress"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/study"
)

// Generating says what generate does as it goes, through the callbacks
// of study.GenerateOptions (see Hooks): a line per workbook made on Out,
// the inputs' warnings and the study's notes on Err, and a progress bar
// of the rows written on Err, when Err is a terminal.
type Generating struct {
	Out, Err io.Writer
	// Format is the study's, study.FormatXLSX or study.FormatGSheets.
	Format string
	// Share are those every spreadsheet is shared with.
	Share []string
	bar   progress.Bar
}

// Hooks is opt with its Warn, Note, Wrote and Progress saying what is
// done.
func (g *Generating) Hooks(opt study.GenerateOptions) study.GenerateOptions {
	opt.Warn = func(err error) { fmt.Fprintln(g.Err, "warning: "+err.Error()) }
	opt.Note = func(s string) { fmt.Fprintln(g.Err, s) }
	opt.Wrote = func(where string, b *manifest.Batch, sharedWith []string) {
		var shared []string
		if g.Format == study.FormatGSheets {
			shared = append(append(shared, g.Share...), sharedWith...)
		}
		wroteWorkbook(g.Out, where, b, shared)
	}
	opt.Progress = func(total int64) func(int) {
		g.bar = progress.New(g.Err, total, writing(g.Format))
		return g.bar.Add
	}
	return opt
}

// Done clears the progress bar, when one was drawn; call it before
// anything else is written, and again (it does no harm) when generate
// fails.
func (g *Generating) Done() {
	if g.bar != nil {
		g.bar.Finish()
	}
}

// wroteWorkbook writes the line of a workbook generate has just made:
// where it is, its units and rows, whose it is and its batch; then, when
// shared is not empty, who the spreadsheet is shared with.
func wroteWorkbook(w io.Writer, where string, b *manifest.Batch, shared []string) {
	who := ""
	if b.Annotator != "" {
		who = "for " + b.Annotator + ", "
	}
	fmt.Fprintf(w, "wrote %s: %s in %s (%sbatch %s)\n", where, words.Count(len(b.Units), "unit"), words.Count(b.Rows, "row"), who, b.ID)
	if len(shared) > 0 {
		fmt.Fprintf(w, "  shared with %s (can edit)\n", strings.Join(shared, ", "))
	}
}

// writing is what generate says it is doing while it writes a study of
// the format (study.FormatXLSX or study.FormatGSheets), for its progress
// bar.
func writing(format string) string {
	if format == study.FormatGSheets {
		return "making spreadsheets"
	}
	return "writing workbooks"
}

// Generated writes generate's closing lines, from the study's manifest
// and build: how its instances were shared out (or, for one shared
// workbook, only the template), the records that got no row, how many
// warnings were said, and where the manifest is.
func Generated(w io.Writer, gen *study.Generated) {
	m, res := gen.Manifest, gen.All
	books := "workbook"
	if m.Format == study.FormatGSheets {
		books = "spreadsheet"
	}
	a := m.Assignment
	if a == nil {
		a = &manifest.Assignment{}
	}
	n := len(m.Batches)
	// Control instances are in every batch, not shared out.
	instances := res.Instances()
	if c := m.Controls; c != nil {
		items := map[string]bool{}
		for _, u := range c.Units {
			items[u.Item] = true
		}
		instances -= len(items)
	}
	if len(a.Annotators) > 0 {
		fmt.Fprintf(w, "%s, each for %d of %d annotators, in %s (template %s v%d)\n",
			words.Count(instances, "instance"), max(a.Overlap, 1), len(a.Annotators), words.Count(n, books), m.Template.Name, m.Template.Version)
	} else if n > 1 {
		fmt.Fprintf(w, "%s in %s (template %s v%d)\n", words.Count(instances, "instance"), words.Count(n, "shared "+books), m.Template.Name, m.Template.Version)
	} else {
		fmt.Fprintf(w, "template %s v%d\n", m.Template.Name, m.Template.Version)
	}
	if p := m.Prefill; p != nil {
		how := "shown as suggestions until an annotator checks them"
		if p.As == manifest.PrefillSuggestions {
			how = "shown beside their empty answer cells"
		}
		fmt.Fprintf(w, "%d of %s start from %s's answers, %s\n", p.Units, words.Count(len(res.Units), "unit"), p.Annotator, how)
	}
	if c := m.Controls; c != nil {
		fmt.Fprintf(w, "%s with known answers hidden among the others, %d in each %s (the manifest says which)\n",
			words.Count(len(c.Units), "control unit"), c.PerBatch, strings.TrimSuffix(books, "s"))
	}
	if res.Skipped > 0 {
		verb := "have"
		if res.Skipped == 1 {
			verb = "has"
		}
		fmt.Fprintf(w, "note: %d of %s %s nothing to annotate and got no rows\n", res.Skipped, words.Count(res.Records, "record"), verb)
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintf(w, "note: %s (see above)\n", words.Count(len(res.Warnings), "warning"))
	}
	fmt.Fprintf(w, "wrote %s (the coordinator's record; keep it from annotators)\n", gen.Path)
}
