package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

type adjudicateOptions struct {
	recordsFrom
	// Dir is --out: the adjudication's folder, or with Resolve the file
	// of the silver set.
	study.AdjudicateOptions
	Resolve      string
	Force        bool
	ManifestFile string
}

func adjudicateCommand() *cli.Command {
	var opt adjudicateOptions
	return &cli.Command{
		Name:        "adjudicate",
		Usage:       "a workbook of the answers annotators disagree on; its pull is the gold set",
		ArgsUsage:   "SOURCE...",
		Description: help("adjudicate"),
		Flags: recordFlags(
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Destination: &opt.Dir, Usage: "the adjudication's `DIR` (a .jsonl file with --resolve)"},
			&cli.StringFlag{Name: "format", Value: "xlsx", Destination: &opt.Kind, Usage: "xlsx or gsheets: what the workbooks are"},
			&cli.StringSliceFlag{Name: "adjudicator", Usage: "adjudicator `ID`s: the rows are shared out among them (default: adjudicator)"},
			&cli.IntFlag{Name: "batch-size", Destination: &opt.BatchSize, Usage: "at most `N` rows per workbook (0: one workbook per adjudicator)"},
			&cli.IntFlag{Name: "min-agreement", Destination: &opt.MinAgreement, Usage: "accept an answer that `N` annotators give, and more than give any other (default: all who answered)"},
			&cli.BoolFlag{Name: "show-annotators", Destination: &opt.ShowAnnotators, Usage: "show the annotators' IDs instead of Annotator 1, 2 …"},
			&cli.StringFlag{Name: "resolve", Destination: &opt.Resolve, Usage: "majority: write a silver set to --out without workbooks; ties stay unresolved"},
			&cli.BoolFlag{Name: "force", Destination: &opt.Force, Usage: "replace an existing --out file (with --resolve), or feedback workbooks already in --out (with --feedback)"},
			&cli.StringFlag{Name: "manifest", Destination: &opt.ManifestFile, Usage: "the study's `manifest.json`, for the context shown beside each row when the SOURCE is records"},
			&cli.StringSliceFlag{Name: "share", Usage: "with --format gsheets: give `EMAIL` edit access to new spreadsheets"},
			&cli.BoolFlag{Name: "feedback", Usage: "SOURCE is an adjudication: write each annotator, into --out, a read-only workbook of their answers the gold set corrects"},
		),
		Action: func(c *cli.Context) error {
			if c.Bool("feedback") {
				return feedbackAction(c)
			}
			if c.NArg() == 0 {
				return cliargs.Usagef("adjudicate needs a SOURCE: a study's manifest or folder, workbooks, or pulled records (.jsonl)")
			}
			if c.String("out") == "" {
				return cliargs.Usagef("adjudicate needs --out: the adjudication's folder (a .jsonl file with --resolve)")
			}
			switch c.String("resolve") {
			case "", adjudicate.ResolveMajority:
			default:
				return cliargs.Usagef("--resolve %s: the only way is majority", c.String("resolve"))
			}
			switch c.String("format") {
			case backend.KindXLSX, backend.KindGSheets:
			default:
				return cliargs.Usagef("--format %s: give xlsx or gsheets", c.String("format"))
			}
			if c.Int("batch-size") < 0 || c.Int("min-agreement") < 0 {
				return cliargs.Usagef("--batch-size and --min-agreement take a number of 0 or more")
			}
			from, err := sourcesOf(c)
			if err != nil {
				return err
			}
			opt.recordsFrom, opt.AdjudicateOptions.Sources = from, from.Sources
			opt.Adjudicators, opt.Share = cliargs.List(c.StringSlice("adjudicator")), cliargs.List(c.StringSlice("share"))
			return runAdjudicate(c.Context, opt, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runAdjudicate(ctx context.Context, opt adjudicateOptions, stdout, stderr io.Writer) error {
	stdout, done := humanOut(stdout)
	defer done()
	l, err := loadRecords(ctx, opt.recordsFrom, stderr)
	if err != nil {
		return err
	}
	man := l.Manifest
	if opt.Resolve != "" {
		if st, err := os.Stat(opt.Dir); err == nil && st.IsDir() {
			return cliargs.Usagef("--out %s is a folder: with --resolve, give the .jsonl file to write the silver set to", opt.Dir)
		}
		g, found, err := study.ResolveTo(opt.Dir, opt.Force, l.Template, l.Records, man, opt.Resolve, opt.Options)
		if err != nil {
			return err
		}
		render.Resolved(stdout, opt.Dir, g, found)
		return nil
	}
	if strings.EqualFold(filepath.Ext(opt.Dir), ".jsonl") {
		return cliargs.Usagef("--out %s: adjudicate writes a folder of workbooks; for a silver set without them, add --resolve majority", opt.Dir)
	}
	if man == nil && opt.ManifestFile != "" {
		if man, err = study.OpenManifest(opt.ManifestFile); err != nil {
			return err
		}
	}
	if opt.AdjudicateOptions.Manifest = man; man == nil {
		fmt.Fprintln(stderr, "note: no study manifest among the sources: the rows show no context (give --manifest)")
	}
	opt.Warn = warn(stderr)
	store := storeFor(opt.Kind, opt.Google, stderr, xlsx.Store{}, sheets.Store{Share: opt.Share})
	res, err := study.Adjudicate(ctx, l.Template, l.Records, opt.AdjudicateOptions, backends(opt.Google, stderr), store)
	if err != nil {
		return endpointUsage(err)
	}
	render.AdjudicateNotes(stderr, res)
	render.Adjudicated(stdout, res, opt.Dir, "by --min-agreement")
	return nil
}

type feedbackOptions struct {
	// recordsFrom has the template, its parameters and Google's options
	// to read the annotators' records again with.
	recordsFrom
	Adjudication string // the adjudication's folder
	// FeedbackOptions has --out (Dir) and --force.
	study.FeedbackOptions
}

// feedbackAction is adjudicate --feedback: each annotator gets a workbook
// of their answers the gold set corrects.
func feedbackAction(c *cli.Context) error {
	dir, ok := study.AdjudicationDir(c.Args().Slice())
	if !ok {
		return cliargs.Usagef("adjudicate --feedback reads one adjudication: give its folder (or its %s)", adjudicate.ManifestFile)
	}
	if c.String("out") == "" {
		return cliargs.Usagef("adjudicate --feedback needs --out: the folder to write the annotators' feedback workbooks to")
	}
	if c.String("resolve") != "" || c.String("format") != backend.KindXLSX {
		return cliargs.Usagef("adjudicate --feedback writes XLSX files; it takes no --resolve or --format")
	}
	from, err := sourcesOf(c)
	if err != nil {
		return err
	}
	return runFeedback(c.Context, feedbackOptions{recordsFrom: from, Adjudication: dir,
		FeedbackOptions: study.FeedbackOptions{Dir: c.String("out"), Force: c.Bool("force")}}, c.App.Writer, c.App.ErrWriter)
}

func runFeedback(ctx context.Context, opt feedbackOptions, stdout, stderr io.Writer) error {
	stdout, done := humanOut(stdout)
	defer done()
	opt.Reload = func(sources []string) ([]*records.Annotation, error) {
		from := opt.recordsFrom
		from.Sources = sources
		l, err := loadRecords(ctx, from, stderr)
		if err != nil {
			return nil, err
		}
		return l.Records, nil
	}
	opt.Warn = warn(stderr)
	res, err := study.Feedback(ctx, opt.Adjudication, opt.FeedbackOptions, backends(opt.Google, stderr), xlsx.Store{})
	if err != nil {
		return endpointUsage(err)
	}
	render.Problems(stderr, res.Problems)
	render.Feedback(stdout, res, opt.Adjudication)
	return nil
}
