package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

type adjudicateOptions struct {
	recordsFrom
	Out            string
	Format         string
	Adjudicators   []string
	BatchSize      int
	MinAgreement   int
	ShowAnnotators bool
	Resolve        string
	Force          bool
	Manifest       string
	Share          []string
}

func adjudicateCommand() *cli.Command {
	return &cli.Command{
		Name:        "adjudicate",
		Usage:       "a workbook of the answers annotators disagree on; its pull is the gold set",
		ArgsUsage:   "SOURCE...",
		Description: help("adjudicate"),
		Flags: recordFlags(
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the adjudication's `DIR` (a .jsonl file with --resolve)"},
			&cli.StringFlag{Name: "format", Value: "xlsx", Usage: "xlsx or gsheets: what the workbooks are"},
			&cli.StringSliceFlag{Name: "adjudicator", Usage: "adjudicator `ID`s: the rows are shared out among them (default: adjudicator)"},
			&cli.IntFlag{Name: "batch-size", Usage: "at most `N` rows per workbook (0: one workbook per adjudicator)"},
			&cli.IntFlag{Name: "min-agreement", Usage: "accept an answer that `N` annotators give, and more than give any other (default: all who answered)"},
			&cli.BoolFlag{Name: "show-annotators", Usage: "show the annotators' IDs instead of Annotator 1, 2 …"},
			&cli.StringFlag{Name: "resolve", Usage: "majority: write a silver set to --out without workbooks; ties stay unresolved"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing --out file (with --resolve), or feedback workbooks already in --out (with --feedback)"},
			&cli.StringFlag{Name: "manifest", Usage: "the study's `manifest.json`, for the context shown beside each row when the SOURCE is records"},
			&cli.StringSliceFlag{Name: "share", Usage: "with --format gsheets: give `EMAIL` edit access to new spreadsheets"},
			&cli.BoolFlag{Name: "feedback", Usage: "SOURCE is an adjudication: write each annotator, into --out, a read-only workbook of their answers the gold set corrects"},
		),
		Action: func(c *cli.Context) error {
			if c.Bool("feedback") {
				return feedbackAction(c)
			}
			if c.NArg() == 0 {
				return cliargs.Usagef("adjudicate needs a SOURCE: a study's manifest or folder, workbooks, or pulled records (.jsonl)")
			}
			if c.String("out") == "" {
				return cliargs.Usagef("adjudicate needs --out: the adjudication's folder (a .jsonl file with --resolve)")
			}
			switch c.String("resolve") {
			case "", adjudicate.ResolveMajority:
			default:
				return cliargs.Usagef("--resolve %s: the only way is majority", c.String("resolve"))
			}
			switch c.String("format") {
			case backend.KindXLSX, backend.KindGSheets:
			default:
				return cliargs.Usagef("--format %s: give xlsx or gsheets", c.String("format"))
			}
			if c.Int("batch-size") < 0 || c.Int("min-agreement") < 0 {
				return cliargs.Usagef("--batch-size and --min-agreement take a number of 0 or more")
			}
			from, err := sourcesOf(c)
			if err != nil {
				return err
			}
			return runAdjudicate(c.Context, adjudicateOptions{
				recordsFrom: from, Out: c.String("out"), Format: c.String("format"),
				Adjudicators: cliargs.List(c.StringSlice("adjudicator")), BatchSize: c.Int("batch-size"),
				MinAgreement: c.Int("min-agreement"), ShowAnnotators: c.Bool("show-annotators"),
				Resolve: c.String("resolve"), Force: c.Bool("force"),
				Manifest: c.String("manifest"), Share: cliargs.List(c.StringSlice("share")),
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runAdjudicate(ctx context.Context, opt adjudicateOptions, stdout, stderr io.Writer) error {
	stdout, done := humanOut(stdout)
	defer done()
	from := opt.recordsFrom
	from.Problems = printAgreeProblems
	l, err := loadRecords(ctx, from, stderr)
	if err != nil {
		return err
	}
	t, recs, man := l.Template, l.Records, l.Manifest
	if opt.Resolve != "" {
		if st, err := os.Stat(opt.Out); err == nil && st.IsDir() {
			return cliargs.Usagef("--out %s is a folder: with --resolve, give the .jsonl file to write the silver set to", opt.Out)
		}
		g, found, err := study.Resolve(t, recs, man, opt.Resolve, adjudicate.Options{MinAgreement: opt.MinAgreement})
		if err != nil {
			return err
		}
		err = atomicfile.Write(opt.Out, opt.Force, 0o644, func(w io.Writer) error { return records.Write(w, g.Records) })
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %d units by %s, %s decided by majority, %d unresolved (ties)%s\n", opt.Out, len(g.Records), words.Count(len(found.Annotators), "annotator"), words.Count(len(found.Items)-g.Unresolved, "disagreement"), g.Unresolved, emptyGold(g))
		return nil
	}
	if strings.EqualFold(filepath.Ext(opt.Out), ".jsonl") {
		return cliargs.Usagef("--out %s: adjudicate writes a folder of workbooks; for a silver set without them, add --resolve majority", opt.Out)
	}
	if man == nil && opt.Manifest != "" {
		if man, err = study.OpenManifest(opt.Manifest); err != nil {
			return err
		}
	}
	aopt := study.AdjudicateOptions{
		Dir: opt.Out, Kind: opt.Format, Adjudicators: opt.Adjudicators, BatchSize: opt.BatchSize,
		Options: adjudicate.Options{MinAgreement: opt.MinAgreement}, ShowAnnotators: opt.ShowAnnotators,
		Sources: opt.Sources, Share: opt.Share, Warn: func(s string) { fmt.Fprintln(stderr, "warning: "+s) },
	}
	if aopt.Manifest = man; man == nil {
		fmt.Fprintln(stderr, "note: no study manifest among the sources: the rows show no context (give --manifest)")
	}
	var store backend.Store = xlsx.Store{}
	if opt.Format == backend.KindGSheets {
		g := googleStore(opt.Google, stderr, sheets.Store{Share: opt.Share})
		if err := g.Connect(ctx); err != nil {
			return err
		}
		store = g
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return err
	}
	res, err := study.Adjudicate(ctx, t, recs, aopt, backends(opt.Google, stderr), store)
	if err != nil {
		return endpointUsage(err)
	}
	printProblems(stderr, res.Problems)
	for _, n := range res.Notes {
		fmt.Fprintln(stderr, "note: "+n)
	}
	f := res.Found
	if len(f.Units) == 0 {
		fmt.Fprintln(stderr, "note: no unit has a complete answer yet: nothing to adjudicate (pull or status says how far the annotators are)")
	}
	unanimous, majority := f.Accepted()
	fmt.Fprintf(stdout, "%s by %s: %s accepted (%d unanimous, %d by --min-agreement); %s to decide",
		words.Count(len(f.Units), "unit"), words.Count(len(f.Annotators), "annotator"), words.Count(unanimous+majority, "answer"),
		unanimous, majority, words.Count(len(res.Manifest.Items), "disagreement"))
	if res.Kept > 0 {
		fmt.Fprintf(stdout, ", %d decided already and kept", res.Kept)
	}
	fmt.Fprintln(stdout)
	for i, w := range res.Written {
		fmt.Fprintf(stdout, "wrote %s: %s for %s\n", w, words.Count(res.Manifest.Workbooks[i].Items, "row"), res.Manifest.Workbooks[i].Adjudicator)
	}
	fmt.Fprintf(stdout, "wrote %s (the key to the annotators' names: keep it from adjudicators)\n", filepath.Join(opt.Out, adjudicate.ManifestFile))
	return nil
}

// runPullGold pulls an adjudication: the gold set.
func runPullGold(ctx context.Context, dir string, opt pullOptions, stdout, stderr io.Writer) error {
	g, err := study.PullGold(ctx, dir, backends(opt.Google, stderr), "")
	if err != nil {
		return endpointUsage(err)
	}
	printProblems(stderr, g.Problems)
	res := &study.Result{Records: g.Records, Problems: g.Problems}
	c, err := writePulled(opt, res, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "pulled the gold set of %s from %s: %s read, %d unresolved; %d complete, %d partial%s; %s, %s\n",
		words.Count(len(g.Records), "unit"), words.Count(len(g.Manifest.Workbooks), "adjudication workbook"), words.Count(g.Decided, "decision"), g.Unresolved, c.Complete, c.Partial, emptyGold(g), words.Count(c.Errors, "error"), words.Count(c.Warnings, "warning"))
	if opt.Strict && c.Errors > 0 {
		return errStrict
	}
	return nil
}

// emptyGold says how many units of a gold set nobody has completed yet,
// if any.
func emptyGold(g *study.GoldSet) string {
	if n := g.Empty(); n > 0 {
		return fmt.Sprintf(", %d with no complete answer yet (empty)", n)
	}
	return ""
}
