package main

import (
	"context"
	"fmt"
	"io"

	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/progress"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/study"
	"github.com/urfave/cli/v2"
)

// recordsFrom is what a command that reads records is told of them.
type recordsFrom struct {
	Sources []string
	// Template and Params are --template and --param.
	Template string
	Params   map[string]string
	// Manifest is the study's manifest given beside files of records,
	// or ManifestFile its file (--manifest).
	Manifest     *study.Manifest
	ManifestFile string
	// Gold is the gold set to read for the records (--gold, --against);
	// Adjudication an adjudication whose pull is the gold set
	// (--adjudication).
	Gold, Adjudication string
	// Files are sources read as files of records whatever their names.
	Files  []string
	Google googleOptions
	// AllProblems prints every problem the pull found, not only its
	// errors with its warnings counted (render.PullErrors).
	AllProblems bool
	// IncludeControls keeps the records of control units (--include-controls).
	IncludeControls bool
}

// recordFlags are the flags of a command that reads records, then the
// template of records whose template annosheet cannot tell, its
// parameters, and Google's.
func recordFlags(flags ...cli.Flag) []cli.Flag {
	return append(append(flags,
		&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "template `NAME|FILE` of the records, when it is not built in and no manifest names it"},
		&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`, as given to generate"},
		&cli.BoolFlag{Name: "include-controls", Usage: "count the records of control units (generate --controls) with the others; they are left out by default"},
	), googleFlags()...)
}

// sourcesOf reads recordFlags; the command's arguments are its sources.
func sourcesOf(c *cli.Context) (recordsFrom, error) {
	params, err := cliargs.Params(c, "param")
	return recordsFrom{Sources: c.Args().Slice(), Template: c.String("template"), Params: params, Google: googleFrom(c), IncludeControls: c.Bool("include-controls")}, err
}

// loadRecords reads the records the sources name, and the gold set
// (study.Load), with a progress bar of the workbooks pulled and their
// problems printed; copies kept once are named on stderr.
func loadRecords(ctx context.Context, from recordsFrom, stderr io.Writer) (*study.Loaded, error) {
	print := render.PullErrors
	if from.AllProblems {
		print = render.Problems
	}
	bar, finish := progress.Counted(stderr, "reading workbooks")
	l, err := study.Load(ctx, from.Sources, study.LoadOptions{
		Template: from.Template, Params: from.Params, Manifest: from.Manifest, ManifestFile: from.ManifestFile, Files: from.Files, Gold: from.Gold, Adjudication: from.Adjudication,
		Backends: backends(from.Google, stderr), Problems: func(ps records.Problems) { print(stderr, ps) }, Progress: bar, Warn: warn(stderr),
		IncludeControls: from.IncludeControls,
	})
	finish()
	if err == nil && len(l.Controls) > 0 {
		fmt.Fprintf(stderr, "note: %s of control units left out (--include-controls counts them)\n", words.Count(len(l.Controls), "record"))
	}
	return l, endpointUsage(err)
}
