package main

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/study"
)

type agreeOptions struct {
	recordsFrom
	JSON, CSV bool
	Out       string
	Force     bool
	// Against is the gold set's file (--against), when given.
	Against string
	study.AgreeOptions
}

// from says where agree's records come from: its sources, with the
// pull's errors said and its warnings counted.
func (opt agreeOptions) from() recordsFrom {
	from := opt.recordsFrom
	from.Problems = printAgreeProblems
	return from
}

func agreeCommand() *cli.Command {
	return &cli.Command{
		Name:        "agree",
		Usage:       "inter-annotator agreement, question by question",
		ArgsUsage:   "SOURCE...",
		Description: help("agree"),
		Flags: recordFlags(
			&cli.BoolFlag{Name: "json", Usage: "write the report as JSON (schema annosheet.agreement/1): per pair, option and unit too"},
			&cli.BoolFlag{Name: "csv", Usage: "write every value as CSV rows: question, scope (question, pair, option, unit, against), metric, params, value"},
			&cli.StringFlag{Name: "against", Usage: "also score each annotator against the gold set in `GOLD.jsonl` (records of annotator \"gold\")"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write to `FILE` (default: stdout)"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing --out file"},
			&cli.StringSliceFlag{Name: "question", Aliases: []string{"q"}, Usage: "report question `NAME` only (repeat, or separate with commas)"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "compare annotators `ID,ID` only"},
			&cli.BoolFlag{Name: "include-partial", Usage: "count the answered values of partial units too"},
			&cli.Float64Flag{Name: "ci", Usage: "bootstrap confidence interval at `LEVEL` (between 0 and 1, e.g. 0.95) for each headline"},
			&cli.IntFlag{Name: "resamples", Value: 1000, Usage: "bootstrap resamples of the units (1 to 1,000,000)"},
			&cli.IntFlag{Name: "max-pairs", Value: agreement.DefaultMaxPairs, Usage: "list at most `N` pairs of annotators per question (1 to 100,000): those that share the most units; pairs that share none are never listed"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the bootstrap (the same seed, the same interval)"},
			&cli.StringFlag{Name: "reference", Usage: "annotator `ID` that directional span metrics take as the reference (default: the first in sorted order)"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cliargs.Usagef("agree needs a SOURCE: a study's manifest or folder, workbooks, or pulled records (.jsonl)")
			}
			if c.Bool("json") && c.Bool("csv") {
				return cliargs.Usagef("give --json or --csv, not both")
			}
			if err := cmp.Or(cliargs.Level(c, "ci"), cliargs.Count(c, "resamples", 1, study.MaxResamples), cliargs.Count(c, "max-pairs", 1, study.MaxListedPairs)); err != nil {
				return err
			}
			from, err := sourcesOf(c)
			if err != nil {
				return err
			}
			return runAgree(c.Context, agreeOptions{
				recordsFrom: from, JSON: c.Bool("json"), CSV: c.Bool("csv"), Out: c.String("out"), Force: c.Bool("force"), Against: c.String("against"),
				AgreeOptions: study.AgreeOptions{
					Questions: cliargs.List(c.StringSlice("question")), Annotators: cliargs.List(c.StringSlice("annotators")),
					IncludePartial: c.Bool("include-partial"), CI: c.Float64("ci"), Resamples: c.Int("resamples"),
					Seed: c.Uint64("seed"), Reference: c.String("reference"), MaxPairs: c.Int("max-pairs"),
				},
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runAgree(ctx context.Context, opt agreeOptions, stdout, stderr io.Writer) error {
	l, err := loadRecords(ctx, opt.from(), stderr)
	if err != nil {
		return err
	}
	if opt.Against != "" {
		if opt.Gold, err = readGold(ctx, opt.Against, l.Template, l.key(), opt.Google, stderr); err != nil {
			return err
		}
	}
	rep, err := study.Agree(ctx, l.Template, l.Records, opt.AgreeOptions)
	if err != nil {
		return flagError(err)
	}
	wrote, err := writeReport(opt.Out, opt.Force, stdout, func(w io.Writer) error {
		switch {
		case opt.JSON:
			return indentJSON(w, rep)
		case opt.CSV:
			return render.AgreeCSV(w, rep)
		}
		return render.AgreeText(w, rep)
	})
	if !wrote || err != nil {
		return err
	}
	against := ""
	if rep.Against != nil {
		against = ", and each annotator against " + rep.Against.Gold
	}
	fmt.Fprintf(stdout, "wrote %s: agreement of %d question(s)%s\n", opt.Out, len(rep.Questions), against)
	return nil
}

// printAgreeProblems writes the errors pull found, one line each, and
// counts its warnings (pull lists them): an error can leave an answer out
// of the agreement, a warning does not.
func printAgreeProblems(w io.Writer, ps records.Problems) {
	var errs records.Problems
	warnings := 0
	for _, p := range ps {
		if p.Severity == records.Error {
			errs = append(errs, p)
		} else {
			warnings++
		}
	}
	printProblems(w, errs)
	if warnings > 0 {
		fmt.Fprintf(w, "note: pull also found %s in the workbooks (annosheet pull lists them by cell); they do not change the answers compared\n", words.Count(warnings, "warning"))
	}
}
