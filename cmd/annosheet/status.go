package main

import (
	"context"
	"io"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/study"
)

type statusOptions struct {
	Sources    []string
	JSON       bool
	Annotators []string
	// MinControlAccuracy is --min-control-accuracy: annotators whose
	// accuracy on the control units is below it are warned about.
	MinControlAccuracy float64
	Google             googleOptions
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:        "status",
		Usage:       "how far along a study is, per batch and per annotator, and the agreement so far",
		ArgsUsage:   "SOURCE...",
		Description: help("status"),
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "write the counts as JSON, for scripts"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "the annotator `ID`s who may claim units in shared workbooks"},
			minControlFlag(),
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cliargs.Usagef("status needs a SOURCE: a workbook, a folder of them, a spreadsheet link or ID, or a manifest")
			}
			threshold, err := minControlAccuracy(c)
			if err != nil {
				return err
			}
			return runStatusCounts(c.Context, statusOptions{Sources: c.Args().Slice(), JSON: c.Bool("json"), Annotators: cliargs.List(c.StringSlice("annotators")),
				MinControlAccuracy: threshold, Google: googleFrom(c)}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runStatusCounts(ctx context.Context, opt statusOptions, stdout, stderr io.Writer) error {
	res, _, err := pullStudy(ctx, opt.Sources, study.PullOptions{Annotators: opt.Annotators}, opt.Google, stderr)
	if err != nil {
		return err
	}
	rep, err := study.CountStatus(ctx, res)
	if err != nil {
		return err
	}
	if opt.JSON {
		if err := render.JSON(stdout, rep); err != nil {
			return err
		}
		warnControls(stderr, rep.Controls, opt.MinControlAccuracy)
		return nil
	}
	f, ok := stdout.(*os.File)
	if err := render.Status(stdout, rep, ok && term.IsTerminal(int(f.Fd()))); err != nil {
		return err
	}
	render.StatusProblems(stderr, rep)
	warnControls(stderr, rep.Controls, opt.MinControlAccuracy)
	return nil
}

// minControlFlag is --min-control-accuracy, of status, pull and report.
func minControlFlag() cli.Flag {
	return &cli.Float64Flag{Name: "min-control-accuracy", Usage: "warn about each annotator whose mean score on the control units (generate --controls) is below `X` (between 0 and 1)"}
}

// minControlAccuracy reads --min-control-accuracy: a score from 0 to 1,
// 0 (nobody is below it) when not given.
func minControlAccuracy(c *cli.Context) (float64, error) {
	threshold := c.Float64("min-control-accuracy")
	if !(threshold >= 0 && threshold <= 1) {
		return 0, cliargs.Usagef("--min-control-accuracy %v: give a score between 0 and 1, such as 0.8", threshold)
	}
	return threshold, nil
}

// warnControls warns, on stderr, about each annotator of acc whose
// accuracy on the control units is below threshold (study.BelowAccuracy).
// It only warns: the command's exit status is the same.
func warnControls(stderr io.Writer, acc map[string]*study.ControlTally, threshold float64) {
	for _, m := range study.BelowAccuracy(acc, threshold) {
		warn(stderr)(m)
	}
}
