package main

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/study"
)

type resultsOptions struct {
	recordsFrom
	// Format is json, csv, latex, or "" for text.
	Format string
	Out    string
	Force  bool
	study.ResultsOptions
}

func resultsCommand() *cli.Command {
	var opt resultsOptions
	return &cli.Command{
		Name:        "results",
		Usage:       "what the study found: each group's estimates with intervals, and every comparison with a test",
		ArgsUsage:   "SOURCE...",
		Description: help("results"),
		Flags: recordFlags(
			&cli.StringFlag{Name: "by", Destination: &opt.By, Usage: "compare the template's group `NAME` (default: its first; candidate for shuffled candidates)"},
			&cli.StringFlag{Name: "gold", Usage: "use the gold set in `GOLD.jsonl` (records of annotator \"gold\") as each unit's value"},
			&cli.StringFlag{Name: "manifest", Usage: "the study's `manifest.json`, when the SOURCE is records: its inputs give the groups, its key the real IDs"},
			&cli.StringSliceFlag{Name: "question", Aliases: []string{"q"}, Usage: "report question `NAME` only (repeat, or separate with commas)"},
			&cli.BoolFlag{Name: "include-partial", Destination: &opt.IncludePartial, Usage: "count the answered values of partial records too"},
			&cli.Float64Flag{Name: "level", Value: results.DefaultLevel, Destination: &opt.Level, Usage: "confidence `LEVEL` of the intervals (between 0 and 1)"},
			&cli.IntFlag{Name: "resamples", Value: results.DefaultResamples, Destination: &opt.Resamples, Usage: "bootstrap resamples of the items (1 to 1,000,000)"},
			&cli.IntFlag{Name: "permutations", Value: results.DefaultPermutations, Destination: &opt.Permutations, Usage: "permutations of each test (1 to 1,000,000)"},
			&cli.Uint64Flag{Name: "seed", Value: results.DefaultSeed, Destination: &opt.Seed, Usage: "seed of the draws (the same seed, the same numbers)"},
			&cli.BoolFlag{Name: "json", Usage: "write the results as JSON (schema annosheet.results/1)"},
			&cli.BoolFlag{Name: "csv", Usage: "write a CSV row per estimate and per comparison"},
			&cli.BoolFlag{Name: "latex", Usage: "write a booktabs table per question, for a paper"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Destination: &opt.Out, Usage: "write to `FILE` (default: stdout)"},
			&cli.BoolFlag{Name: "force", Destination: &opt.Force, Usage: "replace an existing --out file"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cliargs.Usagef("results needs a SOURCE: a study's manifest or folder, workbooks, or pulled records (.jsonl)")
			}
			format, err := cliargs.OneOf(c, "json", "csv", "latex")
			if err != nil {
				return err
			}
			if err := cmp.Or(cliargs.Level(c, "level"), cliargs.Count(c, "resamples", 1, study.MaxResamples), cliargs.Count(c, "permutations", 1, study.MaxPermutations)); err != nil {
				return err
			}
			if opt.recordsFrom, err = sourcesOf(c); err != nil {
				return err
			}
			opt.ManifestFile, opt.recordsFrom.Gold = c.String("manifest"), c.String("gold")
			opt.Format, opt.Questions = format, cliargs.List(c.StringSlice("question"))
			return runResults(c.Context, opt, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runResults(ctx context.Context, opt resultsOptions, stdout, stderr io.Writer) error {
	l, err := loadRecords(ctx, opt.recordsFrom, stderr)
	if err != nil {
		return err
	}
	opt.ResultsOptions.Gold = l.Gold
	if l.Manifest != nil && study.GroupNeedsInputs(l.Template, opt.By) {
		if opt.Items, _, err = l.Manifest.Context(l.Template); err != nil {
			return fmt.Errorf("%s: the study's inputs, which the groups are read from: %w", l.Manifest.Path, err)
		}
	}
	rep, err := study.Results(ctx, l.Template, l.Records, opt.ResultsOptions)
	if err != nil {
		return flagError(err)
	}
	if opt.Out == "" && opt.Format == "" {
		var done func()
		stdout, done = humanOut(stdout)
		defer done()
	}
	if wrote, err := writeReport(opt.Out, opt.Force, stdout, render.Results(opt.Format, rep)); !wrote || err != nil {
		return err
	}
	render.WroteResults(stdout, opt.Out, rep)
	return nil
}
