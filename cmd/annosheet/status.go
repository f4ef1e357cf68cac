package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/internal/words"
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
		Name:      "status",
		Usage:     "how far along a study is, per batch and per annotator, and the agreement so far",
		ArgsUsage: "SOURCE...",
		Description: "Reads the workbooks as pull does (files, folders, spreadsheet links, a manifest) and\n" +
			"counts, per batch and annotator, the units done (complete), partial, empty and\n" +
			"missing. With a manifest, every unit the study expects is counted: a workbook not\n" +
			"returned, another study's workbook, a deleted row all show as missing.\n\n" +
			"Once two or more annotators have completed a unit, status adds the agreement so far:\n" +
			"for each question, the headline metric that agree reports (on complete units), its\n" +
			"value, and how many units two or more annotators gave a value; with several studies,\n" +
			"one section per study. --json gives it under the key \"agreement\", which is absent\n" +
			"while no unit overlaps. 'annosheet agree' gives every metric.\n\n" +
			"Example:\n" +
			"   annosheet status my-study/\n" +
			"   annosheet status my-study/manifest.json --json",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "write the counts as JSON, for scripts"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "the annotator `ID`s who may claim units in shared workbooks"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("status needs a SOURCE: a workbook, a folder of them, a spreadsheet link or ID, or a manifest")
			}
			return runStatusCounts(c.Context, statusOptions{Sources: c.Args().Slice(), JSON: c.Bool("json"), Annotators: splitList(c.StringSlice("annotators")), Google: googleFrom(c)}, c.App.Writer, c.App.ErrWriter)
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
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	full, part, empty := "#", "+", "."
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		full, part, empty = "█", "▒", "░"
	}
	bar := func(t *study.Tally) string {
		d, p := t.Bar(20)
		return fmt.Sprintf("%s%s%s %3.0f%%", strings.Repeat(full, d), strings.Repeat(part, p), strings.Repeat(empty, 20-d-p), t.Done()*100)
	}
	who := func(a string) string {
		if a == "" {
			return "(unclaimed)"
		}
		return a
	}
	tw, flush := table(stdout)
	// The unreadable column is shown when a workbook could not be read.
	unreadable := rep.Total.Unreadable > 0
	head := "batch\tannotator\tunits\tdone\tpartial\tempty\tmissing\t"
	if unreadable {
		head += "unreadable\t"
	}
	fmt.Fprintln(tw, head+"errors\tprogress")
	// A blank row between the groups, with a cell for each column.
	blank := strings.Repeat("\t", strings.Count(head, "\t")+1)
	row := func(batch, ann string, t *study.Tally) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t", batch, ann, t.Units, t.Complete, t.Partial, t.Empty, t.Missing)
		if unreadable {
			fmt.Fprintf(tw, "%d\t", t.Unreadable)
		}
		fmt.Fprintf(tw, "%d\t%s\n", t.Errors, bar(t))
	}
	for _, t := range rep.Batches {
		row(batchLabel(t), who(t.Annotator), t)
	}
	if len(rep.Annotators) > 1 {
		fmt.Fprintln(tw, blank)
		for _, t := range rep.Annotators {
			row("all batches", who(t.Annotator), t)
		}
	}
	fmt.Fprintln(tw, blank)
	row("study", "everyone", rep.Total)
	if err := flush(); err != nil {
		return err
	}
	if err := writeAgreementSoFar(stdout, rep); err != nil {
		return err
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintln(stderr, "error: conflict: "+c.Error())
	}
	if t := rep.Total; t.Errors+t.Warnings > 0 {
		fmt.Fprintf(stderr, "%s and %s found; 'annosheet pull' lists them by cell\n", words.Count(t.Errors, "error"), words.Count(t.Warnings, "warning"))
	}
	return nil
}

// batchLabel names a batch in the table. When the sources hold several
// studies, whose batch IDs may be the same, the batch is named with its
// study's folder (or its study ID, for a spreadsheet).
func batchLabel(t *study.Tally) string {
	if t.Study == "" {
		return t.Batch
	}
	if dir, ok := workbookDir(t.Workbook); ok {
		return dir + ": " + t.Batch
	}
	return "study " + t.Study + ": " + t.Batch
}

// workbookDir is the folder of a workbook file, when it has one to show
// (not a spreadsheet link, nor the current folder).
func workbookDir(workbook string) (string, bool) {
	dir := filepath.Dir(workbook)
	return dir, workbook != "" && !strings.Contains(workbook, "://") && dir != "."
}

// writeAgreementSoFar writes the agreement so far, when some unit has
// been completed by two or more annotators: per study, a line per
// question with its headline metric, its value (or "—" and why) and the
// units pairable.
func writeAgreementSoFar(w io.Writer, rep *study.Status) error {
	tw, flush := table(w)
	for _, a := range rep.Agreement {
		head := "agreement so far"
		if a.Study != "" {
			head += ", " + studyLabel(rep, a.Study)
		}
		fmt.Fprintf(tw, "\n%s (%s done by 2 or more annotators: %s)\n", head, words.Count(a.Overlap, "unit"), words.Some(a.Annotators, namedAnnotators))
		if a.Note != "" {
			fmt.Fprintf(tw, "  not computed: %s\n", a.Note)
		}
		for _, q := range a.Questions {
			value := numberText(q.Value)
			if q.Value == nil {
				value = "— " + q.Note
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s pairable\n", q.Name, metricLabel(q.Metric), value, words.Count(q.PairableUnits, "unit"))
		}
		for _, q := range a.Skipped {
			fmt.Fprintf(tw, "  %s\tnot compared: %s\n", q.Name, q.Reason)
		}
	}
	return flush()
}

// table is a tabwriter for a table of text, columns two spaces apart,
// and its flush, which writes the table to w without the spaces that pad
// the last cells of a line out to the end.
func table(w io.Writer) (*tabwriter.Writer, func() error) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	return tw, func() error {
		if err := tw.Flush(); err != nil {
			return err
		}
		for line := range strings.Lines(buf.String()) {
			if _, err := io.WriteString(w, safetext.Escape(strings.TrimRight(line, " \n"))+"\n"); err != nil {
				return err
			}
		}
		return nil
	}
}

// metricLabel names a metric briefly, its parameters in brackets:
// "alpha (masi)", "percent agreement (trim_casefold)", "span F1 (labels,
// exact)".
func metricLabel(m agreement.Metric) string {
	name := strings.ReplaceAll(m.Metric, "_", " ")
	switch m.Metric {
	case "krippendorff_alpha":
		name = "alpha"
	case "span_f1":
		name = "span F1"
	}
	var params []string
	for _, k := range sortedMapKeys(m.Params) {
		switch v := m.Params[k].(type) {
		case string:
			params = append(params, v)
		case bool:
			if v {
				params = append(params, k)
			} else {
				params = append(params, "no "+k)
			}
		default:
			params = append(params, fmt.Sprintf("%s=%v", k, v))
		}
	}
	if len(params) == 0 {
		return name
	}
	return name + " (" + strings.Join(params, ", ") + ")"
}

// studyLabel names a study of several in the agreement section, as the
// table names its batches: by the folder of its workbooks, or its ID.
func studyLabel(rep *study.Status, id string) string {
	for _, t := range rep.Batches {
		if t.Study == id {
			if dir, ok := workbookDir(t.Workbook); ok {
				return dir
			}
			break
		}
	}
	return "study " + id
}
