package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/report"
)

type reportOptions struct {
	// Sources, Template, Params, Gold and Google, as agree reads them.
	agreeOptions
	// Adjudication is an adjudication's folder, whose pull is the gold
	// set (--adjudication).
	Adjudication string
	// MinControlAccuracy is --min-control-accuracy (see statusOptions):
	// the page marks the annotators below it too.
	MinControlAccuracy float64
}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:        "report",
		Usage:       "one HTML page of a study: progress, answers, agreement, results, problems and gold",
		ArgsUsage:   "SOURCE...",
		Description: help("report"),
		Flags: recordFlags(
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the page to `FILE.html`"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing --out file"},
			&cli.StringFlag{Name: "gold", Usage: "the gold set in `GOLD.jsonl` (records of annotator \"gold\", as pull of an adjudication writes them)"},
			&cli.StringFlag{Name: "adjudication", Usage: "the adjudication's folder `DIR` (see adjudicate), whose pull is the gold set"},
			minControlFlag(),
		),
		Action: func(c *cli.Context) error {
			switch {
			case c.NArg() == 0:
				return cliargs.Usagef("report needs a SOURCE: a study's manifest or folder, workbooks, or pulled records (.jsonl)")
			case c.String("out") == "":
				return cliargs.Usagef("report needs --out FILE.html")
			case c.String("gold") != "" && c.String("adjudication") != "":
				return cliargs.Usagef("give --gold or --adjudication, not both")
			}
			threshold, err := minControlAccuracy(c)
			if err != nil {
				return err
			}
			from, err := sourcesOf(c)
			if err != nil {
				return err
			}
			from.Gold = c.String("gold")
			return runReport(c.Context, reportOptions{
				agreeOptions:       agreeOptions{recordsFrom: from, Out: c.String("out"), Force: c.Bool("force")},
				Adjudication:       c.String("adjudication"),
				MinControlAccuracy: threshold,
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runReport(ctx context.Context, opt reportOptions, stdout, stderr io.Writer) error {
	stdout, done := humanOut(stdout)
	defer done()
	rep, err := studyReport(ctx, opt, stderr)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(opt.Out, opt.Force, 0o644, func(w io.Writer) error { return report.Write(w, rep) }); err != nil {
		return err
	}
	st, err := os.Stat(opt.Out)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, rep.Summary(opt.Out, st.Size()))
	return nil
}

// studyReport reads the sources as agree does, and the gold set, and
// makes the report's data; the records of control units, set apart,
// give its section of control units.
func studyReport(ctx context.Context, opt reportOptions, stderr io.Writer) (*report.Report, error) {
	from := opt.recordsFrom
	from.Adjudication = opt.Adjudication
	l, err := loadRecords(ctx, from, stderr)
	if err != nil {
		return nil, err
	}
	in := report.Study{Template: l.Template, Records: l.Records, Pulled: l.Pulled, Manifest: l.Manifest, Controls: l.Controls}
	if opt.Adjudication != "" {
		in.GoldProblems = l.Gold.Problems
	}
	rep, warnings, err := report.FromStudy(ctx, in, report.Options{Sources: opt.Sources, Gold: l.Gold, MinControlAccuracy: opt.MinControlAccuracy})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		warn(stderr)(w)
	}
	return rep, nil
}
