package main

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/render"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

type generateOptions struct {
	// GenerateOptions has the inputs, --out (Dir), the batch, the seed,
	// --force and the assignment; Template is the template's name or file.
	study.GenerateOptions
	Template string
	Params   map[string]string
	Format   string
	BatchSet bool
	// controlsPerBatchSet: --controls-per-batch was given (0 is not a
	// number of controls, and not the default either).
	controlsPerBatchSet bool
	// Google Sheets only.
	Google                   googleOptions
	Share                    []string
	Message, Folder, Protect string
}

const (
	formatXLSX    = "xlsx"
	formatGSheets = "gsheets"
)

func generateCommand() *cli.Command {
	var opt generateOptions
	return &cli.Command{
		Name:        "generate",
		Usage:       "turn a template and input data into annotator-ready workbooks",
		Description: help("generate"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Destination: &opt.Template, Usage: "built-in template `NAME` or template `FILE`"},
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `PATH` (JSON Lines, JSON, CSV, TSV, Parquet, XLSX, or a factgenie folder); repeat for several"},
			&cli.StringFlag{Name: "input-format", Destination: &opt.Input.Format, Usage: "read the inputs as `FORMAT` (jsonl, json, csv, tsv, parquet, xlsx, factgenie), whatever the template and their names say"},
			&cli.StringFlag{Name: "input-sheet", Destination: &opt.Input.Sheet, Usage: "the `SHEET` of a spreadsheet input to read (default: its first)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Destination: &opt.Dir, Usage: "output `DIR` (created if missing)"},
			&cli.StringFlag{Name: "format", Value: formatXLSX, Destination: &opt.Format, Usage: "output format: xlsx or gsheets"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "annotator `ID`s (comma-separated or repeated): a workbook each; an email address also gets the spreadsheet shared"},
			&cli.IntFlag{Name: "overlap", Destination: &opt.Overlap, Usage: "`K` annotators judge each instance (all of them for the preference workflow)", DefaultText: "1"},
			&cli.IntFlag{Name: "batch-size", Destination: &opt.BatchSize, Usage: "at most `N` units per workbook (control units come on top)", DefaultText: "no bound"},
			&cli.StringFlag{Name: "batch", Value: "b01", Destination: &opt.Batch, Usage: "batch `ID` of a single shared workbook"},
			&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`; repeat for several"},
			&cli.Uint64Flag{Name: "seed", Destination: &opt.Seed, Usage: "`N` seeds the assignment, anonymised labels and shuffled orders (recorded in the manifest)", DefaultText: "random"},
			&cli.BoolFlag{Name: "force", Destination: &opt.Force, Usage: "replace what a previous run made (a spreadsheet is rewritten in place, keeping its link); never workbooks that hold answers, without --discard-answers"},
			&cli.StringSliceFlag{Name: "share", Usage: "gsheets: give these `EMAIL`s edit access to every spreadsheet (comma-separated or repeated)"},
			&cli.StringFlag{Name: "message", Destination: &opt.Message, Usage: "gsheets: `TEXT` of the sharing mail"},
			&cli.StringFlag{Name: "folder", Destination: &opt.Folder, Usage: "gsheets: Drive folder `ID` to create in (a shared drive's folder for a service account)"},
			&cli.StringFlag{Name: "protect", Value: sheets.ProtectWarning, Destination: &opt.Protect, Usage: "gsheets: context columns ask before an edit (warning) or only you may edit them (editors)"},
			&cli.StringFlag{Name: "prefill", Destination: &opt.Prefill, Usage: "start the answer cells from the answers in `FILE` (canonical records: a model's labels, an earlier pull); they show as suggestions until changed, and pull says which were kept"},
			&cli.StringFlag{Name: "prefill-as", Destination: &opt.PrefillAs, Usage: "show the --prefill answers in the answer cells (answers) or read-only beside empty ones (suggestions), for studies that must avoid anchoring", DefaultText: "answers"},
			&cli.StringFlag{Name: "prefill-annotator", Destination: &opt.PrefillAnnotator, Usage: "use the records of annotator `NAME` in the --prefill file (needed when it holds several annotators')"},
			&cli.StringFlag{Name: "controls", Destination: &opt.Controls, Usage: "hide control units among the others: units of the inputs whose known answers `GOLD.jsonl` holds (canonical records, a gold set); pull scores each annotator on them"},
			&cli.IntFlag{Name: "controls-per-batch", Destination: &opt.ControlsPerBatch, Usage: "`N` control units join every batch", DefaultText: "2"},
			&cli.BoolFlag{Name: "discard-answers", Destination: &opt.DiscardAnswers, Usage: "let --force replace workbooks and spreadsheets that hold annotators' answers (pull them first)"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if err := cliargs.NoArgs(c); err != nil {
				return err
			}
			opt.BatchSet, opt.SeedSet, opt.Now, opt.Google = c.IsSet("batch"), c.IsSet("seed"), time.Now(), googleFrom(c)
			opt.controlsPerBatchSet = c.IsSet("controls-per-batch")
			opt.Inputs, opt.Annotators, opt.Share = c.StringSlice("input"), cliargs.List(c.StringSlice("annotators")), cliargs.List(c.StringSlice("share"))
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
	bad(opt.Dir == "", "generate needs --out DIR")
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
	bad(opt.PrefillAnnotator != "" && opt.Prefill == "", "--prefill-annotator picks the records of a --prefill file: give --prefill FILE")
	bad(opt.PrefillAs != "" && opt.Prefill == "", "--prefill-as says how a --prefill file is shown: give --prefill FILE")
	bad(opt.controlsPerBatchSet && opt.Controls == "", "--controls-per-batch says how many control units join each batch: give --controls GOLD.jsonl")
	bad(opt.controlsPerBatchSet && opt.ControlsPerBatch < 1, "--controls-per-batch takes a positive number")
	bad(opt.PrefillAs != "" && !slices.Contains(layout.PrefillModes, opt.PrefillAs), "--prefill-as %q: use %s", opt.PrefillAs, strings.Join(layout.PrefillModes, " or "))
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
	w := storeFor(opt.Format, opt.Google, stderr, xlsx.Store{Created: opt.Now}, sheets.Store{Folder: opt.Folder, Share: opt.Share, Message: opt.Message, Protect: opt.Protect})
	say := &render.Generating{Out: stdout, Err: stderr, Format: opt.Format, Share: opt.Share}
	defer say.Done()
	gopt := opt.GenerateOptions
	gopt.Template, gopt.Endpoint = t, opt.Google.Endpoint
	gen, err := study.GenerateInputs(ctx, say.Hooks(gopt), w)
	if errors.Is(err, study.ErrPlan) {
		return cliargs.Usage(err)
	}
	if err != nil {
		return err
	}
	say.Done()
	render.Generated(stdout, gen)
	return nil
}
