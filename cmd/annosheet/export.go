package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

type exportOptions struct {
	// recordsFrom has one source: the records, or the study.
	recordsFrom
	Out        string
	Manifest   string
	Inputs     []string
	Annotators []string
	Force      bool
	// CompleteOnly exports complete units only; AllowProblems exports
	// units with error-level problems as they are; AllowUnresolved gold
	// units with values nobody decided.
	CompleteOnly, AllowProblems, AllowUnresolved bool
	// InputChanged lets --input name files whose content differs from
	// the study's inputs.
	InputChanged bool
	// Table is the analysis table to write (long or wide) instead of
	// the native file; Gold the gold set's records to put beside it.
	Table, Gold string
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:        "export",
		Usage:       "write the study's native file, or a table for analysis, from canonical records",
		ArgsUsage:   "ANNOTATIONS.jsonl | STUDY",
		Description: strings.Replace(help("export"), "{columns}", tableColumns(), 1),
		Flags: recordFlags(
			&cli.BoolFlag{Name: "native", Usage: "write the template's native format"},
			&cli.StringFlag{Name: "table", Usage: "write the `long|wide` table for analysis (CSV, or Parquet for an --out FILE.parquet)"},
			&cli.StringFlag{Name: "gold", Usage: "with --table, put the gold set of `GOLD.jsonl` (records of annotator \"gold\") beside the annotators"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `FILE` (default: stdout)"},
			&cli.StringFlag{Name: "manifest", Usage: "the study's `manifest.json`: template, inputs and keys"},
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `PATH` the workbooks were generated from (instead of the manifest's)"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"annotator", "a"}, Usage: "export the records of annotators `ID,ID` only"},
			&cli.BoolFlag{Name: "force", Usage: "replace existing output files"},
			&cli.BoolFlag{Name: "input-changed", Usage: "export with --input files whose content differs from what the workbooks were made from"},
			&cli.BoolFlag{Name: "complete-only", Usage: "export complete units only (leave out partial and empty ones)"},
			&cli.BoolFlag{Name: "allow-problems", Usage: "export units that pull found errors in, as they are"},
			&cli.BoolFlag{Name: "allow-unresolved", Usage: "export gold units with values nobody decided, without those values (each is named)"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cliargs.Usagef("export takes one ANNOTATIONS.jsonl file, or a study's manifest or folder")
			}
			table := c.String("table")
			if err := exportMode(c.Bool("native"), table, c.String("gold"), c.IsSet("input") || c.Bool("input-changed") || c.Bool("allow-problems") || c.Bool("allow-unresolved")); err != nil {
				return err
			}
			from, err := sourcesOf(c)
			if err != nil {
				return err
			}
			run := runExport
			if table != "" {
				run = runExportTable
			}
			return run(c.Context, exportOptions{
				recordsFrom: from, Out: c.String("out"), Manifest: c.String("manifest"), Inputs: c.StringSlice("input"),
				Annotators: cliargs.List(c.StringSlice("annotators")), Force: c.Bool("force"),
				CompleteOnly: c.Bool("complete-only"), AllowProblems: c.Bool("allow-problems"), AllowUnresolved: c.Bool("allow-unresolved"), InputChanged: c.Bool("input-changed"),
				Table: table, Gold: c.String("gold"),
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// exportSource reads the records to export: a file of them (with the
// study's manifest when --manifest names it), or a study's manifest or
// folder, pulled first.
func exportSource(ctx context.Context, opt exportOptions, stderr io.Writer) (*loaded, error) {
	from := opt.recordsFrom
	path := from.Sources[0]
	if st, err := os.Stat(path); err == nil && st.IsDir() || filepath.Base(path) == manifest.FileName || strings.EqualFold(filepath.Ext(path), ".json") {
		return loadRecords(ctx, from, stderr)
	}
	from.Files = []string{path}
	if opt.Manifest != "" {
		man, err := study.OpenManifest(opt.Manifest)
		if err != nil {
			return nil, err
		}
		from.Manifest = man
	}
	return loadRecords(ctx, from, stderr)
}

func runExport(ctx context.Context, opt exportOptions, stdout, stderr io.Writer) error {
	l, err := exportSource(ctx, opt, stderr)
	if err != nil {
		return err
	}
	t, man, dups := l.Template, l.Manifest, l.Duplicates
	// Everything that can be checked before the export is, and every
	// problem found is said at once, not one per run.
	nat, err := study.PrepareNative(l.Loaded, man, study.NativeOptions{
		SelectOptions: study.SelectOptions{CompleteOnly: opt.CompleteOnly, AllowProblems: opt.AllowProblems, AllowUnresolved: opt.AllowUnresolved},
		Inputs:        opt.Inputs, InputChanged: opt.InputChanged, Annotators: opt.Annotators,
	})
	var problems []error
	if err != nil {
		problems = append(problems, err)
	}
	if nat != nil && len(nat.Changed) > 0 {
		fmt.Fprintf(stderr, "warning: %s: not the content the workbooks were generated from; exported with it as --input-changed says (offsets may not match)\n", strings.Join(nat.Changed, ", "))
	}
	if out := opt.Out; out != "" && !strings.Contains(out, "{annotator}") && !opt.Force {
		if _, err := os.Lstat(out); err == nil {
			problems = append(problems, fmt.Errorf("%s: %w", out, atomicfile.ErrExists))
		}
	}
	if len(problems) > 0 {
		return flagError(errors.Join(problems...))
	}
	sel := nat.Selection
	for _, u := range sel.Unresolved {
		fmt.Fprintln(stderr, "warning: "+u+": exported without it (--allow-unresolved)")
	}
	for _, w := range nat.Warnings {
		fmt.Fprintln(stderr, "warning: "+w)
	}
	if err := nat.ReadInputs(l.Origins); err != nil {
		return err
	}
	files, err := export.Native(t, nat.Selection.Records, nat.Items, export.Options{Annotators: opt.Annotators, Style: nat.Style, Orders: nat.Orders, PerAnnotator: strings.Contains(opt.Out, "{annotator}"), Origins: l.Origins})
	if err != nil {
		return err
	}
	for _, f := range files {
		for _, w := range f.Warnings {
			fmt.Fprintln(stderr, "warning: "+w)
		}
	}
	left := leftOut(sel, t, len(dups))
	if len(files) == 0 {
		fmt.Fprintln(stderr, "annosheet: nothing to export: no record has an annotator"+left)
		return nil
	}
	if opt.Out == "" {
		if len(files) > 1 {
			return cliargs.Usagef("%d annotators' files to write: give --out (with {annotator} where the ID goes)", len(files))
		}
		_, err := stdout.Write(files[0].Data)
		if left != "" {
			fmt.Fprintln(stderr, "exported"+left)
		}
		return err
	}
	err = export.WriteFiles(files, opt.Out, opt.Force, func(path string, f export.File) {
		fmt.Fprintf(stdout, "wrote %s: %s\n", path, words.Count(f.Records, "record"))
	})
	if err != nil {
		return err
	}
	if left != "" {
		fmt.Fprintln(stdout, "exported"+left)
	}
	return nil
}

// leftOut says what the export left out, and what it kept despite errors
// or once of several identical copies (dups of them).
func leftOut(sel *study.Selection, t *templates.Template, dups int) string {
	empty := sel.Empty
	if t.Export != nil && t.Export.Include != "all" {
		// Units nobody answered are not in the native file either.
		for _, r := range sel.Records {
			if r.Status == records.StatusEmpty {
				empty++
			}
		}
	}
	var parts []string
	total := 0
	for _, c := range []struct {
		n    int
		what string
	}{{sel.Partial, "partial"}, {empty, "empty"}, {sel.Missing, "missing"}, {sel.Unreadable, "unreadable"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
			total += c.n
		}
	}
	out := ""
	if len(parts) > 0 {
		out = "; left out " + strings.Join(parts, ", ") + " " + words.Noun(total, "unit")
	}
	if sel.WithErrors > 0 {
		out += fmt.Sprintf("; %s with errors kept (--allow-problems)", words.Count(sel.WithErrors, "unit"))
	}
	if dups > 0 {
		out += fmt.Sprintf("; %s repeated identically, each kept once", words.Count(dups, "record"))
	}
	return out
}
