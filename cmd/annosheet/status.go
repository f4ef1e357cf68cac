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
	Google     googleOptions
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
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cliargs.Usagef("status needs a SOURCE: a workbook, a folder of them, a spreadsheet link or ID, or a manifest")
			}
			return runStatusCounts(c.Context, statusOptions{Sources: c.Args().Slice(), JSON: c.Bool("json"), Annotators: cliargs.List(c.StringSlice("annotators")), Google: googleFrom(c)}, c.App.Writer, c.App.ErrWriter)
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
		return render.JSON(stdout, rep)
	}
	f, ok := stdout.(*os.File)
	if err := render.Status(stdout, rep, ok && term.IsTerminal(int(f.Fd()))); err != nil {
		return err
	}
	render.StatusProblems(stderr, rep)
	return nil
}
