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
	Format   string
	Out      string
	Force    bool
	Manifest string
	// GoldFile is --gold.
	GoldFile string
	study.ResultsOptions
}

func resultsCommand() *cli.Command {
	return &cli.Command{
		Name:        "results",
		Usage:       "what the study found: each group's estimates with intervals, and every comparison with a test",
		ArgsUsage:   "SOURCE...",
		Description: help("results"),
		Flags: recordFlags(
			&cli.StringFlag{Name: "by", Usage: "compare the template's group `NAME` (default: its first; candidate for shuffled candidates)"},
			&cli.StringFlag{Name: "gold", Usage: "use the gold set in `GOLD.jsonl` (records of annotator \"gold\") as each unit's value"},
			&cli.StringFlag{Name: "manifest", Usage: "the study's `manifest.json`, when the SOURCE is records: its inputs give the groups, its key the real IDs"},
			&cli.StringSliceFlag{Name: "question", Aliases: []string{"q"}, Usage: "report question `NAME` only (repeat, or separate with commas)"},
			&cli.BoolFlag{Name: "include-partial", Usage: "count the answered values of partial records too"},
			&cli.Float64Flag{Name: "level", Value: results.DefaultLevel, Usage: "confidence `LEVEL` of the intervals (between 0 and 1)"},
			&cli.IntFlag{Name: "resamples", Value: results.DefaultResamples, Usage: "bootstrap resamples of the items (1 to 1,000,000)"},
			&cli.IntFlag{Name: "permutations", Value: results.DefaultPermutations, Usage: "permutations of each test (1 to 1,000,000)"},
			&cli.Uint64Flag{Name: "seed", Value: results.DefaultSeed, Usage: "seed of the draws (the same seed, the same numbers)"},
			&cli.BoolFlag{Name: "json", Usage: "write the results as JSON (schema annosheet.results/1)"},
			&cli.BoolFlag{Name: "csv", Usage: "write a CSV row per estimate and per comparison"},
			&cli.BoolFlag{Name: "latex", Usage: "write a booktabs table per question, for a paper"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write to `FILE` (default: stdout)"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing --out file"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cliargs.Usagef("results needs a SOURCE: a study's manifest or folder, workbooks, or pulled records (.jsonl)")
			}
			format := ""
			for _, f := range []string{"json", "csv", "latex"} {
				if c.Bool(f) {
					if format != "" {
						return cliargs.Usagef("give one of --json, --csv and --latex")
					}
					format = f
				}
			}
			if c.IsSet("level") && !(c.Float64("level") > 0 && c.Float64("level") < 1) {
				return cliargs.Usagef("--level %v: give a level between 0 and 1, both excluded, such as 0.95", c.Float64("level"))
			}
			if err := cmp.Or(cliargs.Count(c, "resamples", 1, study.MaxResamples), cliargs.Count(c, "permutations", 1, study.MaxPermutations)); err != nil {
				return err
			}
			from, err := sourcesOf(c)
			if err != nil {
				return err
			}
			return runResults(c.Context, resultsOptions{
				recordsFrom: from, Format: format, Out: c.String("out"), Force: c.Bool("force"), Manifest: c.String("manifest"), GoldFile: c.String("gold"),
				ResultsOptions: study.ResultsOptions{
					By: c.String("by"), Questions: cliargs.List(c.StringSlice("question")), IncludePartial: c.Bool("include-partial"),
					Options: results.Options{Level: c.Float64("level"), Resamples: c.Int("resamples"), Permutations: c.Int("permutations"), Seed: c.Uint64("seed")},
				},
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runResults(ctx context.Context, opt resultsOptions, stdout, stderr io.Writer) error {
	from := opt.recordsFrom
	from.Problems = printAgreeProblems
	if opt.Manifest != "" {
		man, err := study.OpenManifest(opt.Manifest)
		if err != nil {
			return err
		}
		from.Manifest = man
	}
	l, err := loadRecords(ctx, from, stderr)
	if err != nil {
		return err
	}
	if opt.GoldFile != "" {
		if opt.Gold, err = readGold(ctx, opt.GoldFile, l.Template, l.key(), opt.Google, stderr); err != nil {
			return err
		}
	}
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
	wrote, err := writeReport(opt.Out, opt.Force, stdout, func(w io.Writer) error {
		switch opt.Format {
		case "json":
			return indentJSON(w, rep)
		case "csv":
			return render.ResultsCSV(w, rep)
		case "latex":
			return render.ResultsLaTeX(w, rep)
		}
		return render.ResultsText(w, rep)
	})
	if !wrote || err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: the results of %d question(s), by %s\n", opt.Out, len(rep.Questions), byOf(rep))
	return nil
}

func byOf(rep *results.Report) string {
	if len(rep.Questions) == 0 {
		return "-"
	}
	return rep.Questions[0].By
}
