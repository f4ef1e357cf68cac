package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/study"
)

type exportOptions struct {
	// recordsFrom has one source: the records, or the study.
	recordsFrom
	// Manifest is the study's manifest, beside a file of records.
	Manifest string
	study.ExportOptions
	// Table is the analysis table to write (long or wide) instead of
	// the native file.
	Table string
}

// exportAsked are the flags that have export keep what it would refuse.
var exportAsked = render.ExportAsked{AllowProblems: "--allow-problems", AllowUnresolved: "--allow-unresolved", InputChanged: "--input-changed"}

func exportCommand() *cli.Command {
	var opt exportOptions
	return &cli.Command{
		Name:        "export",
		Usage:       "write the study's native file, or a table for analysis, from canonical records",
		ArgsUsage:   "ANNOTATIONS.jsonl | STUDY",
		Description: strings.Replace(help("export"), "{columns}", export.ColumnsHelp(), 1),
		Flags: recordFlags(
			&cli.BoolFlag{Name: "native", Usage: "write the template's native format"},
			&cli.StringFlag{Name: "table", Usage: "write the `long|wide` table for analysis (CSV, or Parquet for an --out FILE.parquet)"},
			&cli.StringFlag{Name: "gold", Usage: "with --table, put the gold set of `GOLD.jsonl` (records of annotator \"gold\") beside the annotators"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Destination: &opt.Out, Usage: "output `FILE` (default: stdout)"},
			&cli.StringFlag{Name: "manifest", Destination: &opt.Manifest, Usage: "the study's `manifest.json`: template, inputs and keys"},
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `PATH` the workbooks were generated from (instead of the manifest's)"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"annotator", "a"}, Usage: "export the records of annotators `ID,ID` only"},
			&cli.BoolFlag{Name: "force", Destination: &opt.Force, Usage: "replace existing output files"},
			&cli.BoolFlag{Name: "input-changed", Destination: &opt.InputChanged, Usage: "export with --input files whose content differs from what the workbooks were made from"},
			&cli.BoolFlag{Name: "complete-only", Destination: &opt.CompleteOnly, Usage: "export complete units only (leave out partial and empty ones)"},
			&cli.BoolFlag{Name: "allow-problems", Destination: &opt.AllowProblems, Usage: "export units that pull found errors in, as they are"},
			&cli.BoolFlag{Name: "allow-unresolved", Destination: &opt.AllowUnresolved, Usage: "export gold units with values nobody decided, without those values (each is named)"},
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
			from.Gold = c.String("gold")
			run := runExport
			if table != "" {
				run = runExportTable
			}
			opt.recordsFrom, opt.Table = from, table
			opt.Inputs, opt.Annotators = c.StringSlice("input"), cliargs.List(c.StringSlice("annotators"))
			return run(c.Context, opt, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// exportSource reads the records to export, from the one source that
// study.ExportSource tells how to read.
func exportSource(ctx context.Context, opt exportOptions, stderr io.Writer) (*study.Loaded, error) {
	from := opt.recordsFrom
	from.AllProblems = true
	var err error
	if from.Files, from.Manifest, err = study.ExportSource(from.Sources[0], opt.Manifest); err != nil {
		return nil, err
	}
	return loadRecords(ctx, from, stderr)
}

func runExport(ctx context.Context, opt exportOptions, stdout, stderr io.Writer) error {
	l, err := exportSource(ctx, opt, stderr)
	if err != nil {
		return err
	}
	nat, err := study.Export(l.Loaded, l.Manifest, opt.ExportOptions)
	render.NativeWarnings(stderr, nat, exportAsked)
	if err != nil {
		return flagError(err)
	}
	files, err := export.Native(l.Template, nat.Selection.Records, nat.Items, export.Options{Annotators: opt.Annotators, Style: nat.Style, Orders: nat.Orders, PerAnnotator: opt.PerAnnotator(), Origins: l.Origins})
	if err != nil {
		return err
	}
	for _, f := range files {
		for _, w := range f.Warnings {
			fmt.Fprintln(stderr, "warning: "+w)
		}
	}
	left := render.LeftOut(nat.LeftOut(len(l.Duplicates)), exportAsked)
	switch {
	case len(files) == 0:
		fmt.Fprintln(stderr, "annosheet: nothing to export: no record has an annotator"+left)
		return nil
	case opt.Out == "" && len(files) > 1:
		return cliargs.Usagef("%d annotators' files to write: give --out (with {annotator} where the ID goes)", len(files))
	case opt.Out == "":
		_, err := stdout.Write(files[0].Data)
		if left != "" {
			fmt.Fprintln(stderr, "exported"+left)
		}
		return err
	}
	err = export.WriteFiles(files, opt.Out, opt.Force, func(path string, f export.File) { render.WroteNative(stdout, path, f.Records) })
	if err == nil && left != "" {
		fmt.Fprintln(stdout, "exported"+left)
	}
	return err
}

// runExportTable writes the long or wide table of a study's records, and
// of its gold set.
func runExportTable(ctx context.Context, opt exportOptions, stdout, stderr io.Writer) error {
	format, ok := study.TableFormat(opt.Out)
	if !ok {
		return cliargs.Usagef("--out %s: a table is written to a .csv or a .parquet file", opt.Out)
	}
	l, err := exportSource(ctx, opt, stderr)
	if err != nil {
		return err
	}
	src, err := study.ExportTable(l.Loaded, l.Manifest, l.Gold, opt.Annotators)
	if err != nil {
		return flagError(err)
	}
	build := export.Long
	if opt.Table == export.TableWide {
		build = export.Wide
	}
	tb, err := build(l.Template, src.Records, export.TableOptions{Orders: src.Orders, Origins: src.Origins, Gold: src.Gold, CompleteOnly: opt.CompleteOnly, Annotators: opt.Annotators})
	if err != nil {
		return err
	}
	write := tb.WriteCSV
	if format == study.TableParquet {
		write = tb.WriteParquet
	}
	if wrote, err := writeReport(opt.Out, opt.Force, stdout, write); !wrote || err != nil {
		return err
	}
	render.WroteTable(stdout, opt.Out, opt.Table, len(tb.Rows), len(tb.Columns))
	return nil
}

// exportMode checks that export is asked for one thing: the native file,
// or a table (with a gold set, but none of the native file's flags, which
// inputs names).
func exportMode(native bool, table, gold string, inputs bool) error {
	switch {
	case native && table != "":
		return cliargs.Usagef("give --native or --table, not both")
	case table == "" && !native:
		return cliargs.Usagef("export needs --native (the study's own format) or --table long|wide (a table for analysis)")
	case table == "" && gold != "":
		return cliargs.Usagef("--gold goes with --table")
	case table != "" && table != export.TableLong && table != export.TableWide:
		return cliargs.Usagef("--table %s: give long or wide", table)
	case table != "" && inputs:
		return cliargs.Usagef("--input, --input-changed and --allow-problems go with --native; a table has every record, with its status")
	}
	return nil
}
