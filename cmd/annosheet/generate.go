package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/progress"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/xlsx"
)

type generateOptions struct {
	Template string
	Inputs   []string
	Input    input.Options
	Out      string
	Format   string
	Batch    string
	BatchSet bool
	Params   map[string]string
	Seed     uint64
	SeedSet  bool
	Force    bool
	Now      time.Time
	// Assignment.
	Annotators []string
	Overlap    int
	BatchSize  int
	// Google Sheets only.
	Google  googleOptions
	Share   []string
	Message string
	Folder  string
	Protect string
	// DiscardAnswers lets --force rewrite a spreadsheet that holds answers.
	DiscardAnswers bool
}

const (
	formatXLSX    = "xlsx"
	formatGSheets = "gsheets"
)

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:        "generate",
		Usage:       "turn a template and input data into annotator-ready workbooks",
		Description: help("generate"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "built-in template `NAME` or template `FILE`"},
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `PATH` (JSON Lines, JSON, CSV, TSV, Parquet, XLSX, or a factgenie folder); repeat for several"},
			&cli.StringFlag{Name: "input-format", Usage: "read the inputs as `FORMAT` (jsonl, json, csv, tsv, parquet, xlsx, factgenie), whatever the template and their names say"},
			&cli.StringFlag{Name: "input-sheet", Usage: "the `SHEET` of a spreadsheet input to read (default: its first)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `DIR` (created if missing)"},
			&cli.StringFlag{Name: "format", Value: formatXLSX, Usage: "output format: xlsx or gsheets"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "annotator `ID`s (comma-separated or repeated): a workbook each; an email address also gets the spreadsheet shared"},
			&cli.IntFlag{Name: "overlap", Usage: "`K` annotators judge each instance (all of them for the preference workflow)", DefaultText: "1"},
			&cli.IntFlag{Name: "batch-size", Usage: "at most `N` units per workbook", DefaultText: "no bound"},
			&cli.StringFlag{Name: "batch", Value: "b01", Usage: "batch `ID` of a single shared workbook"},
			&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`; repeat for several"},
			&cli.Uint64Flag{Name: "seed", Usage: "`N` seeds the assignment, anonymised labels and shuffled orders (recorded in the manifest)", DefaultText: "random"},
			&cli.BoolFlag{Name: "force", Usage: "replace what a previous run made (a spreadsheet is rewritten in place, keeping its link); never workbooks that hold answers, without --discard-answers"},
			&cli.StringSliceFlag{Name: "share", Usage: "gsheets: give these `EMAIL`s edit access to every spreadsheet (comma-separated or repeated)"},
			&cli.StringFlag{Name: "message", Usage: "gsheets: `TEXT` of the sharing mail"},
			&cli.StringFlag{Name: "folder", Usage: "gsheets: Drive folder `ID` to create in (a shared drive's folder for a service account)"},
			&cli.StringFlag{Name: "protect", Value: sheets.ProtectWarning, Usage: "gsheets: context columns ask before an edit (warning) or only you may edit them (editors)"},
			&cli.BoolFlag{Name: "discard-answers", Usage: "let --force replace workbooks and spreadsheets that hold annotators' answers (pull them first)"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if err := cliargs.NoArgs(c); err != nil {
				return err
			}
			opt := generateOptions{
				Template:   c.String("template"),
				Inputs:     c.StringSlice("input"),
				Input:      input.Options{Format: c.String("input-format"), Sheet: c.String("input-sheet")},
				Out:        c.String("out"),
				Format:     c.String("format"),
				Batch:      c.String("batch"),
				BatchSet:   c.IsSet("batch"),
				Seed:       c.Uint64("seed"),
				SeedSet:    c.IsSet("seed"),
				Force:      c.Bool("force"),
				Now:        time.Now(),
				Annotators: cliargs.List(c.StringSlice("annotators")),
				Overlap:    c.Int("overlap"),
				BatchSize:  c.Int("batch-size"),
				Google:     googleFrom(c),
				Share:      cliargs.List(c.StringSlice("share")),
				Message:    c.String("message"),
				Folder:     c.String("folder"),
				Protect:    c.String("protect"),

				DiscardAnswers: c.Bool("discard-answers"),
			}
			var errs []error
			if opt.Format != formatGSheets {
				for _, f := range []string{"share", "message", "folder", "protect", "endpoint", "no-auth"} {
					// An endpoint from the environment is for whichever
					// command wants it.
					if c.IsSet(f) && !(f == "endpoint" && c.String(f) == os.Getenv(envEndpoint)) {
						errs = append(errs, cliargs.Usagef("--%s is for --format gsheets", f))
					}
				}
			}
			var err error
			if opt.Params, err = cliargs.Params(c, "param"); err != nil {
				errs = append(errs, err)
			}
			if err := opt.check(); err != nil {
				errs = append(errs, err)
			}
			if err := errors.Join(errs...); err != nil {
				return err
			}
			return runGenerate(c.Context, opt, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// check refuses command lines that cannot work, before anything is read.
func (opt generateOptions) check() error {
	// Every mistake of the command line at once, not one per run.
	var errs []error
	bad := func(when bool, format string, args ...any) {
		if when {
			errs = append(errs, cliargs.Usagef(format, args...))
		}
	}
	bad(opt.Template == "", "generate needs --template NAME|FILE")
	bad(len(opt.Inputs) == 0, "generate needs --input PATH")
	bad(opt.Out == "", "generate needs --out DIR")
	bad(opt.Format != formatXLSX && opt.Format != formatGSheets, "--format %q: use xlsx or gsheets", opt.Format)
	bad(opt.Input.Format != "" && !slices.Contains(input.Formats, opt.Input.Format), "--input-format %q: use %s", opt.Input.Format, strings.Join(input.Formats, ", "))
	switch {
	case len(opt.Batch) > manifest.MaxBatchID:
		bad(true, "--batch is %d characters long; a batch ID has at most %d (it names a file)", len(opt.Batch), manifest.MaxBatchID)
	case !manifest.ValidBatchID(opt.Batch):
		bad(true, "--batch %q: use letters, digits, '-' and '_' (it names a file)", opt.Batch)
	}
	bad(opt.BatchSet && (len(opt.Annotators) > 0 || opt.BatchSize > 0), "--batch names a single shared workbook; with --annotators or --batch-size, batches are named for you")
	bad(opt.Overlap < 0 || opt.BatchSize < 0, "--overlap and --batch-size take positive numbers")
	bad(opt.Protect != "" && opt.Protect != sheets.ProtectWarning && opt.Protect != sheets.ProtectEditors, "--protect %q: use warning or editors", opt.Protect)
	bad(opt.Message != "" && len(opt.Share) == 0 && !slices.ContainsFunc(opt.Annotators, isEmail), "--message is the text of the sharing mail: give --share, or annotators' email addresses")
	for _, e := range opt.Share {
		bad(!isEmail(e), "--share %q: not an email address", e)
	}
	return errors.Join(errs...)
}

func isEmail(s string) bool { return strings.Contains(s, "@") }

func runGenerate(ctx context.Context, opt generateOptions, stdout, stderr io.Writer) error {
	stdout, done := humanOut(stdout)
	defer done()
	if err := opt.check(); err != nil {
		return err // the command line checks it first; a caller of runGenerate may not
	}
	t, err := input.Template(opt.Template, opt.Params)
	if err != nil {
		return err
	}
	var w backend.Store = xlsx.Store{Created: opt.Now}
	if opt.Format == formatGSheets {
		g := googleStore(opt.Google, stderr, sheets.Store{Folder: opt.Folder, Share: opt.Share, Message: opt.Message, Protect: opt.Protect})
		if err := g.Connect(ctx); err != nil {
			return err
		}
		w = g
	}
	var bar progress.Bar = progress.None{}
	defer func() { bar.Finish() }()
	what := "writing workbooks"
	if opt.Format == formatGSheets {
		what = "making spreadsheets"
	}
	gen, err := study.GenerateInputs(ctx, study.GenerateOptions{
		Template: t, Inputs: opt.Inputs, Input: opt.Input, Dir: opt.Out, Batch: opt.Batch, Seed: opt.Seed, SeedSet: opt.SeedSet, Now: opt.Now,
		Force: opt.Force, DiscardAnswers: opt.DiscardAnswers,
		Annotators: opt.Annotators, Overlap: opt.Overlap, BatchSize: opt.BatchSize,
		Warn:     func(err error) { fmt.Fprintln(stderr, "warning: "+err.Error()) },
		Note:     func(s string) { fmt.Fprintln(stderr, s) },
		Endpoint: opt.Google.Endpoint,
		Wrote: func(where string, b *manifest.Batch, sharedWith []string) {
			who := ""
			if b.Annotator != "" {
				who = "for " + b.Annotator + ", "
			}
			fmt.Fprintf(stdout, "wrote %s: %s in %s (%sbatch %s)\n", where, words.Count(len(b.Units), "unit"), words.Count(b.Rows, "row"), who, b.ID)
			if share := append(append([]string{}, opt.Share...), sharedWith...); opt.Format == formatGSheets && len(share) > 0 {
				fmt.Fprintf(stdout, "  shared with %s (can edit)\n", strings.Join(share, ", "))
			}
		},
		Progress: func(total int64) func(int) {
			bar = progress.New(stderr, total, what)
			return bar.Add
		},
	}, w)
	if errors.Is(err, study.ErrPlan) {
		return cliargs.Usage(err)
	}
	if err != nil {
		return err
	}
	bar.Finish()
	summary(stdout, opt, t, gen)
	return nil
}

func summary(stdout io.Writer, opt generateOptions, t *templates.Template, gen *study.Generated) {
	res := gen.All
	books := "workbook"
	if opt.Format == formatGSheets {
		books = "spreadsheet"
	}
	n := len(gen.Manifest.Batches)
	if len(opt.Annotators) > 0 {
		fmt.Fprintf(stdout, "%s, each for %d of %d annotators, in %s (template %s v%d)\n",
			words.Count(res.Instances(), "instance"), max(opt.Overlap, 1), len(opt.Annotators), words.Count(n, books), t.Name, t.Version)
	} else if n > 1 {
		fmt.Fprintf(stdout, "%s in %s (template %s v%d)\n", words.Count(res.Instances(), "instance"), words.Count(n, "shared "+books), t.Name, t.Version)
	} else {
		fmt.Fprintf(stdout, "template %s v%d\n", t.Name, t.Version)
	}
	if res.Skipped > 0 {
		fmt.Fprintf(stdout, "note: %d of %s %s nothing to annotate and got no rows\n", res.Skipped, words.Count(res.Records, "record"), map[bool]string{true: "has", false: "have"}[res.Skipped == 1])
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintf(stdout, "note: %s (see above)\n", words.Count(len(res.Warnings), "warning"))
	}
	fmt.Fprintf(stdout, "wrote %s (the coordinator's record; keep it from annotators)\n", gen.Path)
}
