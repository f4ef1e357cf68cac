package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/report"
	"github.com/annosheet/annosheet/study"
)

type reportOptions struct {
	// Sources, Template, Params, Against (--gold) and Google, as agree
	// reads them.
	agreeOptions
	// Adjudication is an adjudication's folder, whose pull is the gold
	// set (--adjudication).
	Adjudication string
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
			from, err := sourcesOf(c)
			if err != nil {
				return err
			}
			return runReport(c.Context, reportOptions{
				agreeOptions: agreeOptions{recordsFrom: from, Out: c.String("out"), Force: c.Bool("force"), Against: c.String("gold")},
				Adjudication: c.String("adjudication"),
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
	size := 0
	err = atomicfile.Write(opt.Out, opt.Force, 0o644, func(w io.Writer) error {
		cw := &countingWriter{w: w}
		err := report.Write(cw, rep)
		size = cw.n
		return err
	})
	if err != nil {
		return err
	}
	t := rep.Progress.Total
	gold := ""
	if rep.Gold != nil {
		gold = ", and the gold set " + rep.Gold.Name
	}
	fmt.Fprintf(stdout, "wrote %s (%d KB): %d of %d units done by %s; %s compared; %s, %s%s\n",
		opt.Out, (size+1023)/1024, t.Complete, t.Units, words.Count(len(rep.Annotators), "annotator"),
		words.Count(len(rep.Agreement.Questions), "question"), words.Count(rep.Problems.Errors, "error"), words.Count(rep.Problems.Warnings, "warning"), gold)
	return nil
}

// studyReport reads the sources as agree does, and the gold set, and
// makes the report's data.
func studyReport(ctx context.Context, opt reportOptions, stderr io.Writer) (*report.Report, error) {
	l, err := loadRecords(ctx, opt.from(), stderr)
	if err != nil {
		return nil, err
	}
	t, man := l.Template, l.Manifest
	var gold *study.Gold
	if opt.Against != "" {
		if gold, err = readGold(ctx, opt.Against, t, l.key(), opt.Google, stderr); err != nil {
			return nil, err
		}
	}
	in := report.Study{Template: t, Records: l.Records, Pulled: l.Pulled, Manifest: man}
	if opt.Adjudication != "" {
		g, err := study.PullGold(ctx, opt.Adjudication, backends(opt.Google, stderr), "")
		if err != nil {
			return nil, endpointUsage(err)
		}
		gold = &study.Gold{Name: opt.Adjudication, Records: g.Records}
		in.GoldProblems = g.Problems
	}
	rep, warnings, err := report.FromStudy(ctx, in, report.Options{Sources: opt.Sources, Gold: gold})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "warning: "+w)
	}
	return rep, nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
