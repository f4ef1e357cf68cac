package render

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// Problems writes a pull's problems, one line each, with their severity
// and, for a problem in a cell, its unit (and the ID the sheet shows for
// it, when that is another): the lines pull, status and export count.
func Problems(w io.Writer, ps records.Problems) {
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

// PullErrors writes the errors a pull found, one line each (Problems),
// and counts its warnings, which pull lists: an error can leave an answer
// out of what a command compares or counts, a warning does not.
func PullErrors(w io.Writer, ps records.Problems) {
	var errs records.Problems
	warnings := 0
	for _, p := range ps {
		if p.Severity == records.Error {
			errs = append(errs, p)
		} else {
			warnings++
		}
	}
	Problems(w, errs)
	if warnings > 0 {
		fmt.Fprintf(w, "note: pull also found %s in the workbooks (annosheet pull lists them by cell); they do not change the answers compared\n", words.Count(warnings, "warning"))
	}
}

// Pulled writes the line that ends a pull: its records, counted (c) by
// status, from the workbooks read, and its problems by severity; when
// some records are of control units and scored, a line of each
// annotator's accuracy on them (ControlsLine). Of an
// adjudication's gold set it says the units, the decisions read in its
// workbooks and the items nobody decided too.
func Pulled(w io.Writer, p *study.Pulled, c study.Counts) {
	if g := p.Gold; g != nil {
		fmt.Fprintf(w, "pulled the gold set of %s from %s: %s read, %d unresolved; %d complete, %d partial%s; %s, %s\n",
			words.Count(len(g.Records), "unit"), words.Count(len(g.Manifest.Workbooks), "adjudication workbook"), words.Count(g.Decided, "decision"),
			g.Unresolved, c.Complete, c.Partial, emptyGold(g), words.Count(c.Errors, "error"), words.Count(c.Warnings, "warning"))
		return
	}
	unreadable := ""
	if c.Unreadable > 0 {
		unreadable = fmt.Sprintf(", %d unreadable", c.Unreadable)
	}
	fmt.Fprintf(w, "pulled %s from %s: %d complete, %d partial, %d empty, %d missing%s; %s, %s\n",
		words.Count(c.Records, "record"), words.Count(len(p.Workbooks), "workbook"), c.Complete, c.Partial, c.Empty, c.Missing, unreadable,
		words.Count(c.Errors, "error"), words.Count(c.Warnings, "warning"))
	if acc := study.ControlAccuracy(p.Records); len(acc) > 0 {
		fmt.Fprintln(w, ControlsLine(acc))
	}
}

// ControlsLine says each annotator's accuracy on the control units
// (study.ControlAccuracy) on one line, in the order of their IDs:
// "control accuracy: ak 0.93 (4 units), bt 0.41 (4 units)".
func ControlsLine(acc map[string]*study.ControlTally) string {
	var parts []string
	for _, a := range slices.Sorted(maps.Keys(acc)) {
		parts = append(parts, fmt.Sprintf("%s %.2f (%s)", a, acc[a].Score, words.Count(acc[a].Units, "unit")))
	}
	return "control accuracy: " + strings.Join(parts, ", ")
}

// emptyGold says how many units of a gold set nobody has completed yet,
// if any.
func emptyGold(g *study.GoldSet) string {
	if n := g.Empty(); n > 0 {
		return fmt.Sprintf(", %d with no complete answer yet (empty)", n)
	}
	return ""
}
