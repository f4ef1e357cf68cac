package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/annosheet/annosheet/mapping"
)

type statusOptions struct {
	Sources []string
	JSON    bool
	Google  googleOptions
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "how far along a study is, per batch and per annotator",
		ArgsUsage: "SOURCE...",
		Description: "Reads the workbooks as pull does (files, folders, spreadsheet links, a manifest) and\n" +
			"counts, per batch and annotator, the units done (complete), partial, empty and\n" +
			"missing. With a manifest, every unit the study expects is counted: a workbook not\n" +
			"returned, another study's workbook, a deleted row all show as missing.\n\n" +
			"Example:\n" +
			"   annosheet status study/\n" +
			"   annosheet status study/manifest.json --json",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "write the counts as JSON, for scripts"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("status needs a SOURCE: a workbook, a folder of them, a spreadsheet link or ID, or a manifest")
			}
			return runStatusCounts(c.Context, statusOptions{Sources: c.Args().Slice(), JSON: c.Bool("json"), Google: googleFrom(c)}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// tally counts a group's units by status.
type tally struct {
	Batch     string `json:"batch,omitempty"`
	Annotator string `json:"annotator"`
	Workbook  string `json:"workbook,omitempty"`
	Units     int    `json:"units"`
	Complete  int    `json:"complete"`
	Partial   int    `json:"partial"`
	Empty     int    `json:"empty"`
	Missing   int    `json:"missing"`
	Errors    int    `json:"errors"`
}

func (t *tally) add(r *mapping.Annotation) {
	t.Units++
	switch r.Status {
	case mapping.StatusComplete:
		t.Complete++
	case mapping.StatusPartial:
		t.Partial++
	case mapping.StatusEmpty:
		t.Empty++
	case mapping.StatusMissing:
		t.Missing++
	}
	for _, p := range r.Problems {
		if p.Severity == mapping.Error {
			t.Errors++
			break
		}
	}
}

// done is the share of units complete.
func (t *tally) done() float64 {
	if t.Units == 0 {
		return 0
	}
	return float64(t.Complete) / float64(t.Units)
}

// bar splits a bar of width cells into the cells of complete units and
// of partial ones, rounding each boundary to the nearest cell.
func (t *tally) bar(width int) (complete, partial int) {
	if t.Units == 0 {
		return 0, 0
	}
	cell := func(n int) int { return (n*width*2 + t.Units) / (t.Units * 2) }
	complete = cell(t.Complete)
	return complete, cell(t.Complete+t.Partial) - complete
}

// statusReport is what status prints.
type statusReport struct {
	Schema     string   `json:"schema"`
	Batches    []*tally `json:"batches"`
	Annotators []*tally `json:"annotators"`
	Total      *tally   `json:"total"`
}

// countStatus groups records per batch and annotator (in the order they
// come), and per annotator. In a shared workbook, units nobody has
// claimed yet count under the annotator "".
func countStatus(records []*mapping.Annotation, files map[string]string) *statusReport {
	rep := &statusReport{Schema: "annosheet.status/1", Total: &tally{Annotator: "all"}}
	byBatch := map[[2]string]*tally{}
	byAnn := map[string]*tally{}
	for _, r := range records {
		key := [2]string{r.Batch, r.Annotator}
		bt := byBatch[key]
		if bt == nil {
			bt = &tally{Batch: r.Batch, Annotator: r.Annotator, Workbook: files[r.Batch]}
			byBatch[key] = bt
			rep.Batches = append(rep.Batches, bt)
		}
		bt.add(r)
		at := byAnn[r.Annotator]
		if at == nil {
			at = &tally{Annotator: r.Annotator}
			byAnn[r.Annotator] = at
			rep.Annotators = append(rep.Annotators, at)
		}
		at.add(r)
		rep.Total.add(r)
	}
	return rep
}

func runStatusCounts(ctx context.Context, opt statusOptions, stdout, stderr io.Writer) error {
	refs, err := expandSources(opt.Sources)
	if err != nil {
		return err
	}
	res, err := pullAll(ctx, refs, pullOptions{Google: opt.Google}, stderr)
	if err != nil {
		return err
	}
	files := map[string]string{}
	for _, b := range res.books {
		files[b.Batch] = b.File
	}
	for _, r := range res.records {
		if _, ok := files[r.Batch]; !ok && r.Status == mapping.StatusMissing {
			files[r.Batch] = r.Source.File
		}
	}
	rep := countStatus(res.records, files)
	if opt.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	full, part, empty := "#", "+", "."
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		full, part, empty = "█", "▒", "░"
	}
	bar := func(t *tally) string {
		d, p := t.bar(20)
		return fmt.Sprintf("%s%s%s %3.0f%%", strings.Repeat(full, d), strings.Repeat(part, p), strings.Repeat(empty, 20-d-p), t.done()*100)
	}
	who := func(a string) string {
		if a == "" {
			return "(unclaimed)"
		}
		return a
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "batch\tannotator\tunits\tdone\tpartial\tempty\tmissing\terrors\tprogress")
	row := func(batch, ann string, t *tally) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", batch, ann, t.Units, t.Complete, t.Partial, t.Empty, t.Missing, t.Errors, bar(t))
	}
	for _, t := range rep.Batches {
		row(t.Batch, who(t.Annotator), t)
	}
	if len(rep.Annotators) > 1 {
		fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t")
		for _, t := range rep.Annotators {
			row("all batches", who(t.Annotator), t)
		}
	}
	fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t")
	row("study", "everyone", rep.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := res.counts(); c["errors"]+c["warnings"] > 0 {
		fmt.Fprintf(stderr, "%d errors and %d warnings found; 'annosheet pull' lists them by cell\n", c["errors"], c["warnings"])
	}
	return nil
}
