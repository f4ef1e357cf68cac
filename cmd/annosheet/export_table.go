package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strings"

	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// tableColumns is the part of export's help that lists the columns of
// both tables, from the package that makes them.
func tableColumns() string {
	var b strings.Builder
	for _, c := range export.LongColumns() {
		fmt.Fprintf(&b, "   %-18s %s\n", c.Name, words.Wrap(c.Doc, 70, strings.Repeat(" ", 22)))
	}
	b.WriteString("\nThe wide table has a row per unit; its columns:\n")
	for _, line := range strings.Split(export.WideNames, "\n") {
		b.WriteString("   " + line + "\n")
	}
	return b.String()
}

// tableFormat is the file format a table is written in: Parquet for a
// .parquet file, CSV for a .csv file or stdout.
func tableFormat(out string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(out)); {
	case out == "" || ext == ".csv":
		return "csv", nil
	case ext == ".parquet":
		return "parquet", nil
	}
	return "", cliargs.Usagef("--out %s: a table is written to a .csv or a .parquet file", out)
}

// runExportTable writes the long or wide table of a study's records, and
// of its gold set.
func runExportTable(ctx context.Context, opt exportOptions, stdout, stderr io.Writer) error {
	format, err := tableFormat(opt.Out)
	if err != nil {
		return err
	}
	l, err := exportSource(ctx, opt, stderr)
	if err != nil {
		return err
	}
	t, all, origins, key := l.Template, l.Records, l.Origins, l.key()
	var orders map[string][]string
	if l.Manifest != nil {
		orders = l.Manifest.Orders
	}
	var gold []*records.Annotation
	if opt.Gold != "" {
		g, err := readGold(ctx, opt.Gold, t, key, opt.Google, stderr)
		if err != nil {
			return err
		}
		gold = g.Records
		maps.Copy(origins, g.Origins)
	}
	if err := study.CheckAnnotators(opt.Annotators, all); err != nil {
		return flagError(err)
	}
	build := export.Long
	if opt.Table == export.TableWide {
		build = export.Wide
	}
	tb, err := build(t, all, export.TableOptions{Orders: orders, Origins: origins, Gold: gold, CompleteOnly: opt.CompleteOnly, Annotators: opt.Annotators})
	if err != nil {
		return err
	}
	write := tb.WriteCSV
	if format == "parquet" {
		write = tb.WriteParquet
	}
	if wrote, err := writeReport(opt.Out, opt.Force, stdout, write); !wrote || err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: the %s table, %s and %s\n", opt.Out, opt.Table, words.Count(len(tb.Rows), "row"), words.Count(len(tb.Columns), "column"))
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
