package render

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/study"
)

// AgreementSoFar writes the agreement so far, when some unit has
// been completed by two or more annotators: per study, a line per
// question with its headline metric, its value (or "—" and why) and the
// units pairable.
func AgreementSoFar(w io.Writer, rep *study.Status) error {
	tw, flush := Table(w)
	for _, a := range rep.Agreement {
		head := "agreement so far"
		if a.Study != "" {
			head += ", " + studyLabel(rep, a.Study)
		}
		fmt.Fprintf(tw, "\n%s (%s done by 2 or more annotators: %s)\n", head, words.Count(a.Overlap, "unit"), words.Some(a.Annotators, NamedAnnotators))
		if a.Note != "" {
			fmt.Fprintf(tw, "  not computed: %s\n", a.Note)
		}
		for _, q := range a.Questions {
			value := agreement.ValueText(q.Value)
			if q.Value == nil {
				value = "— " + q.Note
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s pairable\n", q.Name, q.Metric.Name(), value, words.Count(q.PairableUnits, "unit"))
		}
		for _, q := range a.Skipped {
			fmt.Fprintf(tw, "  %s\tnot compared: %s\n", q.Name, q.Reason)
		}
	}
	return flush()
}

// Table is a tabwriter for a table of text, columns two spaces apart,
// and its flush, which writes the table to w without the spaces that pad
// the last cells of a line out to the end.
func Table(w io.Writer) (*tabwriter.Writer, func() error) {
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

// studyLabel names a study of several in the agreement section, as the
// table names its batches: by the folder of its workbooks, or its ID.
func studyLabel(rep *study.Status, id string) string {
	for _, t := range rep.Batches {
		if t.Study == id {
			if dir, ok := WorkbookDir(t.Workbook); ok {
				return dir
			}
			break
		}
	}
	return "study " + id
}

// WorkbookDir is the folder of a workbook file, when it has one to show
// (not a spreadsheet link, nor the current folder).
func WorkbookDir(workbook string) (string, bool) {
	dir := filepath.Dir(workbook)
	return dir, workbook != "" && !strings.Contains(workbook, "://") && dir != "."
}

// Status writes status's table: per batch, per annotator when there are
// several, and the whole study, the units in each state and a bar of
// progress (in blocks, for a terminal, else "#+."); then how often
// annotators kept the suggestions of prefilled units, their accuracy on
// control units, and the agreement so far.
func Status(w io.Writer, rep *study.Status, blocks bool) error {
	full, part, empty := "#", "+", "."
	if blocks {
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
	tw, flush := Table(w)
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
	if err := PrefillKept(w, rep); err != nil {
		return err
	}
	if err := ControlAccuracy(w, rep); err != nil {
		return err
	}
	return AgreementSoFar(w, rep)
}

// ControlAccuracy writes, when the study has control units (generate
// --controls) and some were answered, each annotator's accuracy on them:
// a line per annotator, in the order of their IDs, with the units scored
// and the mean score (from 0 to 1, see study.ControlAccuracy).
func ControlAccuracy(w io.Writer, rep *study.Status) error {
	if len(rep.Controls) == 0 {
		return nil
	}
	tw, flush := Table(w)
	fmt.Fprintln(tw, "\ncontrol units (known answers): accuracy by annotator")
	for _, a := range slices.Sorted(maps.Keys(rep.Controls)) {
		c := rep.Controls[a]
		fmt.Fprintf(tw, "  %s\t%s\t%.2f\n", a, words.Count(c.Units, "unit"), c.Score)
	}
	return flush()
}

// PrefillKept writes, when units were prefilled (generate --prefill),
// what annotators did with the suggestions: per source of suggestions
// (and study, when there are several), a line per annotator and question
// with the suggested answers kept, changed and cleared and the share
// kept, then the block's spans (kept, changed, removed, and the share
// kept of them; those added besides). Questions come in the order of
// their names.
func PrefillKept(w io.Writer, rep *study.Status) error {
	type source struct{ study, from string }
	var sources []source
	bySource := map[source][]*study.PrefillTally{}
	for _, p := range rep.Prefill {
		s := source{p.Study, p.From}
		if bySource[s] == nil {
			sources = append(sources, s)
		}
		bySource[s] = append(bySource[s], p)
	}
	tw, flush := Table(w)
	for _, s := range sources {
		head := "suggestions from " + s.from
		if s.study != "" {
			head += ", " + studyLabel(rep, s.study)
		}
		fmt.Fprintf(tw, "\n%s: how often each annotator kept them, in the units they answered\n", head)
		for _, p := range bySource[s] {
			var lines []string
			for _, q := range slices.Sorted(maps.Keys(p.Questions)) {
				c := p.Questions[q]
				share, ok := c.Share()
				lines = append(lines, fmt.Sprintf("%s\t%d kept\t%d changed\t%d cleared\t%s", q, c.Kept, c.Changed, c.Cleared, keptText(share, ok)))
			}
			if sp := p.Spans; sp != nil {
				share, ok := study.SpansKept(sp)
				lines = append(lines, fmt.Sprintf("spans\t%d kept\t%d changed\t%d removed\t%s\t%d added", sp.Kept, sp.Changed, sp.Removed, keptText(share, ok), sp.Added))
			}
			if len(lines) == 0 {
				lines = []string{""}
			}
			// The annotator and their units head their first line only.
			lead := fmt.Sprintf("  %s\t%s\t", p.Annotator, words.Count(p.Units, "unit"))
			for i, l := range lines {
				if i > 0 {
					lead = "\t\t"
				}
				fmt.Fprintln(tw, lead+l)
			}
		}
	}
	return flush()
}

// keptText is a share kept as a percentage, padded as the progress bars'
// are so that the lines align; "—" when nothing was suggested.
func keptText(share float64, ok bool) string {
	if !ok {
		return "   — kept"
	}
	return fmt.Sprintf("%3.0f%% kept", share*100)
}

// batchLabel names a batch in the table. When the sources hold several
// studies, whose batch IDs may be the same, the batch is named with its
// study's folder (or its study ID, for a spreadsheet).
func batchLabel(t *study.Tally) string {
	if t.Study == "" {
		return t.Batch
	}
	if dir, ok := WorkbookDir(t.Workbook); ok {
		return dir + ": " + t.Batch
	}
	return "study " + t.Study + ": " + t.Batch
}

// StatusProblems writes on w what status found wrong beside its table:
// each unit answered differently by copies of its batch, and how many
// errors and warnings the workbooks have (pull lists them by cell).
func StatusProblems(w io.Writer, rep *study.Status) {
	for _, c := range rep.Conflicts {
		fmt.Fprintln(w, "error: conflict: "+c.Error())
	}
	if t := rep.Total; t.Errors+t.Warnings > 0 {
		fmt.Fprintf(w, "%s and %s found; 'annosheet pull' lists them by cell\n", words.Count(t.Errors, "error"), words.Count(t.Warnings, "warning"))
	}
}
