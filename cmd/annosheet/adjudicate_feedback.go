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
	// recordsFrom has the template, its parameters and Google's options
	// to read the annotators' records again with.
	recordsFrom
	Adjudication string // the adjudication's folder
	Out          string
	Force        bool
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
	return runFeedback(c.Context, feedbackOptions{recordsFrom: from, Adjudication: dir, Out: c.String("out"), Force: c.Bool("force")}, c.App.Writer, c.App.ErrWriter)
}

func runFeedback(ctx context.Context, opt feedbackOptions, stdout, stderr io.Writer) error {
	stdout, done := humanOut(stdout)
	defer done()
	res, err := study.Feedback(ctx, opt.Adjudication, study.FeedbackOptions{
		Dir: opt.Out, Force: opt.Force,
		Reload: func(sources []string) ([]*records.Annotation, error) {
			from := opt.recordsFrom
			from.Sources, from.Problems = sources, printAgreeProblems
			l, err := loadRecords(ctx, from, stderr)
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
