package main

import (
	"context"
	"errors"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/progress"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

type pullOptions struct {
	Sources []string
	// PullOutput has --out, --report and --force; PullOptions --template
	// and --annotators.
	study.PullOutput
	study.PullOptions
	Strict bool
	// MinControlAccuracy is --min-control-accuracy (see statusOptions).
	MinControlAccuracy float64
	Google             googleOptions
}

func pullCommand() *cli.Command {
	var opt pullOptions
	return &cli.Command{
		Name:        "pull",
		Usage:       "read filled workbooks back into validated canonical JSON",
		ArgsUsage:   "SOURCE...",
		Description: help("pull"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Destination: &opt.Out, Usage: "write the records to `FILE.jsonl` (default: stdout)"},
			&cli.StringFlag{Name: "report", Destination: &opt.Report, Usage: "write every problem, and counts, to `FILE.json`"},
			&cli.BoolFlag{Name: "strict", Destination: &opt.Strict, Usage: "exit with status 3 when any error-level problem is found"},
			&cli.BoolFlag{Name: "force", Destination: &opt.Force, Usage: "replace the files --out and --report name if they exist"},
			&cli.StringFlag{Name: "template", Destination: &opt.Template, Usage: "read only workbooks made with template `NAME`"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "the annotator `ID`s who may claim units in shared workbooks; others are warned about by cell"},
			minControlFlag(),
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cliargs.Usagef("pull needs a SOURCE: a workbook, a folder of them, a spreadsheet link or ID, or a manifest")
			}
			var err error
			if opt.MinControlAccuracy, err = minControlAccuracy(c); err != nil {
				return err
			}
			opt.Sources, opt.Annotators, opt.Google = c.Args().Slice(), cliargs.List(c.StringSlice("annotators")), googleFrom(c)
			return runPull(c.Context, opt, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// pullStudy opens and pulls the sources (study.PullSources), with a
// progress bar. When every source was refused, it prints why and fails.
func pullStudy(ctx context.Context, sources []string, opt study.PullOptions, g googleOptions, stderr io.Writer) (*study.Result, *study.Sources, error) {
	var finish func()
	opt.Progress, finish = progress.Counted(stderr, "reading workbooks")
	res, src, err := study.PullSources(ctx, sources, backends(g, stderr), opt)
	finish()
	if errors.Is(err, study.ErrNothingRead) {
		render.Problems(stderr, res.Problems)
	}
	if err != nil {
		return nil, nil, endpointUsage(err)
	}
	return res, src, nil
}

func runPull(ctx context.Context, opt pullOptions, stdout, stderr io.Writer) error {
	if err := opt.PullOutput.Check(xlsx.Store{}); err != nil {
		return outputUsage(err)
	}
	var finish func()
	opt.Progress, finish = progress.Counted(stderr, "reading workbooks")
	p, err := study.PullRecords(ctx, opt.Sources, backends(opt.Google, stderr), opt.PullOptions)
	finish()
	if p != nil {
		render.Problems(stderr, p.Problems)
	}
	if err != nil {
		return endpointUsage(err)
	}
	c, err := opt.PullOutput.Write(stdout, p.Result)
	if err != nil {
		return err
	}
	render.Pulled(stderr, p, c)
	warnControls(stderr, study.ControlAccuracy(p.Records), opt.MinControlAccuracy)
	if opt.Strict && c.Errors > 0 {
		return errStrict
	}
	return nil
}
