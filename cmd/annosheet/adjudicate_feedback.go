package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

type feedbackOptions struct {
	Adjudication string // the adjudication's folder
	Out          string
	Template     string
	Params       map[string]string
	Force        bool
	Google       googleOptions
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
	params, err := cliargs.Params(c, "param")
	if err != nil {
		return err
	}
	return runFeedback(c.Context, feedbackOptions{Adjudication: dir, Out: c.String("out"), Template: c.String("template"), Params: params, Force: c.Bool("force"), Google: googleFrom(c)}, c.App.Writer, c.App.ErrWriter)
}

func runFeedback(ctx context.Context, opt feedbackOptions, stdout, stderr io.Writer) error {
	stdout, done := humanOut(stdout)
	defer done()
	res, err := study.Feedback(ctx, opt.Adjudication, study.FeedbackOptions{
		Dir: opt.Out, Force: opt.Force,
		Reload: func(sources []string) ([]*records.Annotation, error) {
			l, err := loadRecords(ctx, recordsFrom{Sources: sources, Template: opt.Template, Params: opt.Params, Google: opt.Google, Problems: printAgreeProblems}, stderr)
			if err != nil {
				return nil, err
			}
			return l.Records, nil
		},
		Warn: func(s string) { fmt.Fprintln(stderr, "warning: "+s) },
	}, backends(opt.Google, stderr), xlsx.Store{})
	if err != nil {
		return endpointUsage(err)
	}
	printProblems(stderr, res.Problems)
	for _, w := range res.Written {
		fmt.Fprintf(stdout, "wrote %s: %s for %s\n", w.Location, words.Count(w.Rows, "corrected answer"), w.Annotator)
	}
	for _, a := range res.None {
		fmt.Fprintf(stdout, "no workbook for %s: the gold set corrects none of their answers\n", a)
	}
	if len(res.Written) == 0 {
		// Said even where there is nobody to name: an adjudication of
		// no complete answer yet, or one that decided nothing.
		fmt.Fprintf(stdout, "no feedback written: the gold set of %s corrects no annotator's answer\n", opt.Adjudication)
	}
	return nil
}
