package report

import (
	"cmp"
	_ "embed"
	"html/template"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/study"
)

// page is the page's template: html/template escapes every value it
// writes for where it writes it (text, attribute, SVG text alike).
//
//go:embed page.html
var page string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"metricName":   agreement.Metric.Name,
	"metricValue":  func(m agreement.Metric) string { return agreement.ValueText(m.Value) },
	"number":       agreement.Number,
	"optional":     optional,
	"who":          who,
	"percentOf":    percentOf,
	"level":        func(x float64) string { return percent(x) },
	"plus":         func(a, b int) int { return a + b },
	"runes":        utf8.RuneCountInString,
	"statuses":     statusLegend,
	"progressRows": progressTable,
	"plural":       words.Count,
	"scoreRow":     newScoreRow,
	"ci":           ciText,
	"pValue":       pValue,
	"leftOut":      results.LeftOut.String,
}).Parse(page))

// Write writes the report as one HTML page. html/template escapes what
// HTML would read as markup; a character of a typed ID, label or cell
// that would reverse the text around it or act as a control shows as its
// escape (safetext), so that every ID reads as it is.
func Write(w io.Writer, r *Report) error {
	sw := safetext.NewWriter(w)
	if err := pageTemplate.Execute(sw, newView(r)); err != nil {
		return err
	}
	return sw.Flush()
}

// statusLegend names the parts of a progress bar, with their classes.
func statusLegend() []struct{ Class, Name string } {
	out := make([]struct{ Class, Name string }, len(statuses))
	for i, s := range statuses {
		out[i].Class, out[i].Name = s.class, s.name
	}
	return out
}

// progressRows are rows of the progress table.
type progressRows struct {
	*view
	Unreadable bool
	Rows       []progressRow
	// Hidden counts the batches not shown.
	Hidden int
}

type progressRow struct {
	Name, Who string
	Tally     *study.Tally
	// First marks the first row of a group.
	First bool
}

// maxBatchRows is the most batches the progress table lists: in a big
// study, those least done (in the study's order), the others counted.
const maxBatchRows = 100

// progressTable is one group of the progress table's rows: "annotators"
// (each annotator over all batches, when there are two or more),
// "batches", or "total".
func progressTable(v *view, group string) progressRows {
	p := v.Progress
	out := progressRows{view: v, Unreadable: p.Total.Unreadable > 0}
	switch group {
	case "annotators":
		if len(p.Annotators) > 1 {
			for _, t := range p.Annotators {
				out.Rows = append(out.Rows, progressRow{Name: "all batches", Who: who(t.Annotator), Tally: t})
			}
		}
	case "batches":
		shown := p.Batches
		if len(shown) > maxBatchRows {
			shown = slices.Clone(shown)
			slices.SortStableFunc(shown, func(a, b *study.Tally) int { return cmp.Compare(a.Done(), b.Done()) })
			shown = shown[:maxBatchRows]
			keep := map[*study.Tally]bool{}
			for _, t := range shown {
				keep[t] = true
			}
			shown = slices.DeleteFunc(slices.Clone(p.Batches), func(t *study.Tally) bool { return !keep[t] })
			out.Hidden = len(p.Batches) - len(shown)
		}
		for _, t := range shown {
			name := t.Batch
			if t.Study != "" {
				name = "study " + t.Study + ": " + name
			}
			out.Rows = append(out.Rows, progressRow{Name: name, Who: who(t.Annotator), Tally: t})
		}
	case "total":
		out.Rows = append(out.Rows, progressRow{Name: "study (" + words.Count(len(p.Batches), "batch") + ")", Who: "everyone", Tally: p.Total})
	}
	if len(out.Rows) > 0 {
		out.Rows[0].First = true
	}
	return out
}

// scoreRow is one row of a table of scores against gold: an
// annotator's score on a question of type Type.
type scoreRow struct {
	View  *view
	Score study.AnnotatorScore
	Type  string
}

func newScoreRow(v *view, s study.AnnotatorScore, typ string) scoreRow {
	return scoreRow{View: v, Score: s, Type: typ}
}
