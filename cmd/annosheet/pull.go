package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

type pullOptions struct {
	Sources    []string
	Out        string
	Report     string
	Strict     bool
	Force      bool
	Template   string
	Annotators []string
	Google     googleOptions
}

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:        "pull",
		Usage:       "read filled workbooks back into validated canonical JSON",
		ArgsUsage:   "SOURCE...",
		Description: help("pull"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the records to `FILE.jsonl` (default: stdout)"},
			&cli.StringFlag{Name: "report", Usage: "write every problem, and counts, to `FILE.json`"},
			&cli.BoolFlag{Name: "strict", Usage: "exit with status 3 when any error-level problem is found"},
			&cli.BoolFlag{Name: "force", Usage: "replace the files --out and --report name if they exist"},
			&cli.StringFlag{Name: "template", Usage: "read only workbooks made with template `NAME`"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "the annotator `ID`s who may claim units in shared workbooks; others are warned about by cell"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cliargs.Usagef("pull needs a SOURCE: a workbook, a folder of them, a spreadsheet link or ID, or a manifest")
			}
			return runPull(c.Context, pullOptions{
				Sources: c.Args().Slice(), Out: c.String("out"), Report: c.String("report"),
				Strict: c.Bool("strict"), Force: c.Bool("force"), Template: c.String("template"), Annotators: cliargs.List(c.StringSlice("annotators")),
				Google: googleFrom(c),
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// pullStudy opens and pulls the sources, with a progress bar, and gives
// the sources as opened (their manifests). When every source was refused,
// it prints why and fails.
func pullStudy(ctx context.Context, sources []string, opt study.PullOptions, g googleOptions, stderr io.Writer) (*study.Result, *study.Sources, error) {
	src, err := study.Open(sources, backends(g, stderr))
	if err != nil {
		return nil, nil, err
	}
	var finish func()
	opt.Progress, finish = workbookBar(stderr)
	res, err := study.Pull(ctx, src, opt)
	finish()
	if err != nil {
		return nil, nil, endpointUsage(err)
	}
	if res.NothingRead(src) {
		printProblems(stderr, res.Problems)
		return nil, nil, study.ErrNothingRead
	}
	return res, src, nil
}

// endpointUsage turns a spreadsheet sought on the wrong API into the
// usage error that says which --endpoint to give.
func endpointUsage(err error) error {
	var ee *study.EndpointError
	switch {
	case !errors.As(err, &ee):
		return err
	case ee.Recorded == "":
		return cliargs.Usagef("the spreadsheet %s is on Google: leave out --endpoint (and %s)", ee.Spreadsheet, envEndpoint)
	}
	return cliargs.Usagef("the spreadsheet %s is on %s (a dry run): give --endpoint %s --no-auth", ee.Spreadsheet, ee.Recorded, ee.Recorded)
}

// printProblems writes a pull's problems, one line each, with their
// severity: the lines pull, status and export count.
func printProblems(w io.Writer, ps records.Problems) {
	for _, p := range ps {
		line := p.Error()
		switch {
		case p.Record == "" || p.Cell == "":
		case p.Shown != "" && p.Shown != p.Record:
			line += fmt.Sprintf(" (unit %s, shown as %s)", p.Record, p.Shown)
		default:
			line += fmt.Sprintf(" (unit %s)", p.Record)
		}
		fmt.Fprintln(w, p.Severity+": "+line)
	}
}

// notOutput refuses to write pull's output over a workbook or a manifest
// (a path typed in the wrong place): those are what pull reads, and
// --force does not change that. Any other existing file is replaced only
// with force, as every output is; both are said before anything is read,
// not after a long pull.
func notOutput(flag, path string, force bool) error {
	if path == "" {
		return nil
	}
	k, _ := xlsx.Classify(path)
	if k != xlsx.NotSpreadsheet || filepath.Base(path) == manifest.FileName {
		return cliargs.Usagef("--%s %s: that is a workbook or a study's manifest, which pull reads; give a new .jsonl (or .json) file", flag, path)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && !force {
		return cliargs.Usagef("--%s %s: the file exists; give another file, or --force to replace it", flag, path)
	}
	return nil
}

func runPull(ctx context.Context, opt pullOptions, stdout, stderr io.Writer) error {
	if err := notOutput("out", opt.Out, opt.Force); err != nil {
		return err
	}
	if err := notOutput("report", opt.Report, opt.Force); err != nil {
		return err
	}
	if opt.Out != "" && opt.Report != "" && filepath.Clean(opt.Out) == filepath.Clean(opt.Report) {
		return cliargs.Usagef("--out and --report are both %s: give each its own file", opt.Out)
	}
	if dir, ok := study.AdjudicationDir(opt.Sources); ok {
		return runPullGold(ctx, dir, opt, stdout, stderr)
	}
	res, _, err := pullStudy(ctx, opt.Sources, study.PullOptions{Template: opt.Template, Annotators: opt.Annotators}, opt.Google, stderr)
	if err != nil {
		return err
	}
	printProblems(stderr, res.Problems)
	if len(res.Conflicts) > 0 {
		return fmt.Errorf("%s answered differently by copies of their batch (see above); keep only the current copy of each batch among the sources, then pull again", words.Count(len(res.Conflicts), "unit"))
	}
	c, err := writePulled(opt, res, stdout)
	if err != nil {
		return err
	}
	unreadable := ""
	if c.Unreadable > 0 {
		unreadable = fmt.Sprintf(", %d unreadable", c.Unreadable)
	}
	fmt.Fprintf(stderr, "pulled %s from %s: %d complete, %d partial, %d empty, %d missing%s; %s, %s\n",
		words.Count(c.Records, "record"), words.Count(len(res.Workbooks), "workbook"), c.Complete, c.Partial, c.Empty, c.Missing, unreadable, words.Count(c.Errors, "error"), words.Count(c.Warnings, "warning"))
	if opt.Strict && c.Errors > 0 {
		return errStrict
	}
	return nil
}

// writePulled writes a pull's records to --out (or stdout) and its
// report to --report, and counts them.
func writePulled(opt pullOptions, res *study.Result, stdout io.Writer) (study.Counts, error) {
	write := func(w io.Writer) error { return records.Write(w, res.Records) }
	if opt.Out == "" {
		if err := write(stdout); err != nil {
			return study.Counts{}, err
		}
	} else if err := atomicfile.Write(opt.Out, opt.Force, 0o644, write); err != nil {
		return study.Counts{}, fmt.Errorf("write %s: %w", opt.Out, err)
	}
	if opt.Report != "" {
		err := atomicfile.Write(opt.Report, opt.Force, 0o644, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(res.Report())
		})
		if err != nil {
			return study.Counts{}, fmt.Errorf("write %s: %w", opt.Report, err)
		}
	}
	return res.Counts(), nil
}
