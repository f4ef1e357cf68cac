package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
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
	path := filepath.Join(opt.Adjudication, adjudicate.ManifestFile)
	m, err := study.ReadAdjudication(path)
	if err != nil {
		return err
	}
	t, err := templates.LoadWithParams(path+" (its template)", []byte(m.Template.Source), m.Template.Params)
	if err != nil {
		return err
	}
	fopt := study.FeedbackOptions{Dir: opt.Out, Force: opt.Force}
	if m.Study != "" {
		man, err := study.OpenManifest(besideManifest(opt.Adjudication, m.Study))
		if err == nil {
			fopt.Items, fopt.Shown = studyContext(t, man, stderr)
		} else {
			fmt.Fprintf(stderr, "warning: %s: the study's manifest %s cannot be read (%v): the rows show no context and the units' own IDs\n", path, m.Study, err)
		}
	}
	if m.MinAgreement > 0 {
		// Answers accepted by a majority keep no trace of who was
		// outvoted: the annotators' records tell.
		var sources []string
		for _, s := range m.Sources {
			sources = append(sources, besideManifest(opt.Adjudication, s))
		}
		l, err := loadRecords(ctx, recordsFrom{Sources: sources, Template: opt.Template, Params: opt.Params, Google: opt.Google, Problems: printAgreeProblems}, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "warning: the annotators' records cannot be read again (%v): the feedback shows only what the adjudicators decided, not the answers --min-agreement outvoted\n", err)
		} else {
			fopt.Records = l.Records
		}
	}
	res, err := study.Feedback(ctx, path, fopt, backends(opt.Google, stderr), xlsx.Store{})
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

// besideManifest is a path an adjudication's manifest records, relative
// to its folder; one that is not there (a link) as recorded.
func besideManifest(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	j := filepath.Join(dir, filepath.FromSlash(p))
	if _, err := os.Stat(j); err != nil {
		return p
	}
	return j
}

// studyContext is the study's context for the rows (study.Manifest.Context),
// with a warning when its inputs cannot be read.
func studyContext(t *templates.Template, man *study.Manifest, stderr io.Writer) ([]*layout.SourceItem, func(string) string) {
	items, shown, err := man.Context(t)
	if err != nil {
		fmt.Fprintf(stderr, "warning: %s: the study's inputs cannot be read (%v): the rows show no context\n", man.Path, err)
	}
	return items, shown
}
