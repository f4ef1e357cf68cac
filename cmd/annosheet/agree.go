package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/study"
)

type agreeOptions struct {
	recordsFrom
	// Format is json, csv, or "" for text.
	Format string
	Out    string
	Force  bool
	study.AgreeOptions
}

func agreeCommand() *cli.Command {
	var opt agreeOptions
	return &cli.Command{
		Name:        "agree",
		Usage:       "inter-annotator agreement, question by question",
		ArgsUsage:   "SOURCE...",
		Description: help("agree"),
		Flags: recordFlags(
			&cli.BoolFlag{Name: "json", Usage: "write the report as JSON (schema annosheet.agreement/1): per pair, option and unit too"},
			&cli.BoolFlag{Name: "csv", Usage: "write every value as CSV rows: question, scope (question, pair, option, unit, against), metric, params, value"},
			&cli.StringFlag{Name: "against", Usage: "also score each annotator against the gold set in `GOLD.jsonl` (records of annotator \"gold\"), or against one other annotator's records, such as a model's labels"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Destination: &opt.Out, Usage: "write to `FILE` (default: stdout)"},
			&cli.BoolFlag{Name: "force", Destination: &opt.Force, Usage: "replace an existing --out file"},
			&cli.StringSliceFlag{Name: "question", Aliases: []string{"q"}, Usage: "report question `NAME` only (repeat, or separate with commas)"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "compare annotators `ID,ID` only"},
			&cli.BoolFlag{Name: "include-partial", Destination: &opt.IncludePartial, Usage: "count the answered values of partial units too"},
			&cli.Float64Flag{Name: "ci", Destination: &opt.CI, Usage: "bootstrap confidence interval at `LEVEL` (between 0 and 1, e.g. 0.95) for each headline"},
			&cli.IntFlag{Name: "resamples", Value: 1000, Destination: &opt.Resamples, Usage: "bootstrap resamples of the units (1 to 1,000,000)"},
			&cli.IntFlag{Name: "max-pairs", Value: agreement.DefaultMaxPairs, Destination: &opt.MaxPairs, Usage: "list at most `N` pairs of annotators per question (1 to 100,000): those that share the most units; pairs that share none are never listed"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Destination: &opt.Seed, Usage: "seed of the bootstrap (the same seed, the same interval)"},
			&cli.StringFlag{Name: "reference", Destination: &opt.Reference, Usage: "annotator `ID` that directional span metrics take as the reference (default: the first in sorted order)"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cliargs.Usagef("agree needs a SOURCE: a study's manifest or folder, workbooks, or pulled records (.jsonl)")
			}
			format, err := cliargs.OneOf(c, "json", "csv")
			if err != nil {
				return err
			}
			if err := cmp.Or(cliargs.Level(c, "ci"), cliargs.Count(c, "resamples", 1, study.MaxResamples), cliargs.Count(c, "max-pairs", 1, study.MaxListedPairs)); err != nil {
				return err
			}
			if opt.recordsFrom, err = sourcesOf(c); err != nil {
				return err
			}
			opt.recordsFrom.Gold, opt.Format = c.String("against"), format
			opt.Questions, opt.Annotators = cliargs.List(c.StringSlice("question")), cliargs.List(c.StringSlice("annotators"))
			return runAgree(c.Context, opt, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runAgree(ctx context.Context, opt agreeOptions, stdout, stderr io.Writer) error {
	l, err := loadRecords(ctx, opt.recordsFrom, stderr)
	if err != nil {
		return err
	}
	if opt.AgreeOptions.Gold = l.Gold; l.Gold != nil {
		l.Gold.AnyAnnotator = true // a model's labels are scored against as a gold set is
	}
	rep, err := study.Agree(ctx, l.Template, l.Records, opt.AgreeOptions)
	if errors.Is(err, study.ErrNoSharedUnit) && len(l.Controls) > 0 {
		return fmt.Errorf("%w; the %s of control units were left out: --include-controls scores them", err, words.Count(len(l.Controls), "record"))
	}
	if err != nil {
		return flagError(err)
	}
	if wrote, err := writeReport(opt.Out, opt.Force, stdout, render.Agree(opt.Format, rep)); !wrote || err != nil {
		return err
	}
	render.WroteAgree(stdout, opt.Out, rep)
	return nil
}
