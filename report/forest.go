package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/results"
)

// The Results section: a forest plot per question (each group's estimate
// as a dot, its interval as a line, on one axis) and a table of the
// comparisons, every number as annosheet results gives it.

// dot is one estimate of a forest plot, with its tooltip.
type dot struct {
	X, Y, R float64
	Class   string
	Title   string
}

// noGroup names the estimates of no group: the options of a choice
// among candidates that are none of them (a tie, "none").
const noGroup = "(no group)"

// groupName is what the page calls a group.
func groupName(g *string) string {
	if g == nil {
		return noGroup
	}
	return *g
}

// GroupColour is a group's colour class: the groups of the results take
// the annotators' colours in the order they first come, "ax" for no
// group.
func (v *view) GroupColour(group string) string {
	if c, ok := v.groupColour[group]; ok {
		return c
	}
	return "ax"
}

// groupColours gives each group of the results its colour.
func groupColours(r *results.Report) map[string]string {
	out := map[string]string{}
	if r == nil {
		return out
	}
	for _, q := range r.Questions {
		for _, e := range q.Estimates {
			if e.Group != nil {
				if _, ok := out[*e.Group]; !ok {
					out[*e.Group] = "a" + strconv.Itoa(len(out)%colours)
				}
			}
		}
	}
	return out
}

// Header is what the page calls a question of the results: its header
// (its name when it has none), or the headers of the candidates'
// questions it stands for.
func (v *view) Header(q results.Question) string {
	names := q.Questions
	if len(names) == 0 {
		names = []string{q.Question}
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if v.ResultsInfo != nil && v.ResultsInfo.Headers[n] != "" {
			out[i] = v.ResultsInfo.Headers[n]
		}
	}
	return strings.Join(out, ", ")
}

// Defaults are the options annosheet results computes with by default.
func (v *view) Defaults() results.Options { return results.DefaultOptions() }

// Option writes an option of question q: its code, and its label when
// the label is not the code; "-" for none.
func (v *view) Option(question string, option *string) string {
	if option == nil {
		return "-"
	}
	if v.ResultsInfo != nil {
		if l, ok := v.ResultsInfo.Options[question][*option]; ok {
			return *option + " (" + l + ")"
		}
	}
	return *option
}

// statistic names a statistic of question q, and its option.
func (v *view) statistic(question, stat string, option *string) string {
	if option == nil {
		return stat
	}
	return stat + " · " + v.Option(question, option)
}

// FewerDraws says whether the results were drawn fewer times than
// annosheet results draws by default: a big study's.
func (v *view) FewerDraws() bool {
	d := results.DefaultOptions()
	return v.Results != nil && (v.Results.Params.Resamples < d.Resamples || v.Results.Params.Permutations < d.Permutations)
}

// shareLike are the statistics that are shares of units, between 0 and 1.
var shareLike = map[string]bool{results.Share: true, results.WinRate: true, results.UnitsWithSpan: true, results.Answered: true}

// axis is the range of a forest plot's axis, and its ticks.
type axis struct {
	lo, hi float64
	ticks  []float64
	digits int
}

// forestAxis spans the values and intervals of a question's estimates:
// 0 to 1 when they are all shares; otherwise from the lowest to the
// highest (from 0 when no statistic is a mean or median of a scale), in
// round steps.
func forestAxis(es []results.Estimate) axis {
	lo, hi := math.Inf(1), math.Inf(-1)
	shares, scale := true, false
	for _, e := range es {
		lo, hi = min(lo, e.Value), max(hi, e.Value)
		if e.CI != nil {
			lo, hi = min(lo, e.CI[0]), max(hi, e.CI[1])
		}
		shares = shares && shareLike[e.Statistic]
		scale = scale || e.Statistic == results.Mean || e.Statistic == results.Median
	}
	if shares && lo >= 0 && hi <= 1 {
		lo, hi = 0, 1
	} else if !scale && lo > 0 {
		lo = 0
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-1, hi+1
	}
	step := niceStep((hi - lo) / 4)
	a := axis{lo: math.Floor(lo/step+1e-9) * step, hi: math.Ceil(hi/step-1e-9) * step}
	for x := a.lo; x <= a.hi+step/2; x += step {
		a.ticks = append(a.ticks, x)
	}
	for a.digits < 4 && math.Abs(step*math.Pow(10, float64(a.digits))-math.Round(step*math.Pow(10, float64(a.digits)))) > 1e-6 {
		a.digits++
	}
	return a
}

// niceStep is the round step (1, 2, 2.5 or 5 times a power of ten) at
// least x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*p >= x-1e-12 {
			return m * p
		}
	}
	return 10 * p
}

// Forest draws a question's estimates: a row per statistic, option and
// group, grouped under a heading per statistic and option (a row per
// statistic and option when there is one group), each a dot at the
// estimate and a line across its interval, on one axis; the value and
// interval are written at the right.
func (v *view) Forest(q results.Question) svgChart {
	const (
		width, labelW, right = 720.0, 200.0, 150.0
		rowH, top            = 18.0, 22.0
	)
	one := true
	for _, e := range q.Estimates {
		one = one && groupName(e.Group) == groupName(q.Estimates[0].Group)
	}
	type row struct {
		heading string
		e       *results.Estimate
	}
	var rows []row
	for i := range q.Estimates {
		e := &q.Estimates[i]
		if p := i - 1; !one && (p < 0 || q.Estimates[p].Statistic != e.Statistic || !sameOption(q.Estimates[p].Option, e.Option)) {
			rows = append(rows, row{heading: v.statistic(q.Question, e.Statistic, e.Option)})
		}
		rows = append(rows, row{e: e})
	}
	ch := svgChart{W: width, H: top + float64(len(rows))*rowH + 6}
	ax := forestAxis(q.Estimates)
	plot := width - labelW - right
	at := func(x float64) float64 { return round(labelW + (x-ax.lo)/(ax.hi-ax.lo)*plot) }
	for _, t := range ax.ticks {
		ch.Lines = append(ch.Lines, line{X1: at(t), Y1: top - 4, X2: at(t), Y2: ch.H - 4, Class: "grid"})
		ch.Labels = append(ch.Labels, label{X: at(t), Y: top - 9, Text: strconv.FormatFloat(t, 'f', ax.digits, 64), Anchor: "middle"})
	}
	level := percent(v.Results.Params.Level)
	for i, r := range rows {
		y := round(top + float64(i)*rowH + rowH/2)
		if r.e == nil {
			if i > 0 {
				ch.Lines = append(ch.Lines, line{X1: 0, Y1: round(y - rowH/2), X2: width, Y2: round(y - rowH/2), Class: "grid"})
			}
			ch.Labels = append(ch.Labels, label{X: 2, Y: y + 4, Text: clip(r.heading, 60), Title: r.heading, Anchor: "start", Class: "h"})
			continue
		}
		e := r.e
		name, what := groupName(e.Group), v.statistic(q.Question, e.Statistic, e.Option)
		text := name
		if one {
			text = what
		}
		ch.Labels = append(ch.Labels, label{X: labelW - 8, Y: y + 4, Text: clip(text, 30), Title: name + " · " + what, Anchor: "end"})
		title := fmt.Sprintf("%s · %s: %s", name, what, agreement.Number(e.Value))
		value := agreement.Number(e.Value)
		if e.CI != nil {
			ch.Lines = append(ch.Lines, line{X1: at(e.CI[0]), Y1: y, X2: at(e.CI[1]), Y2: y, Class: "whisker"},
				line{X1: at(e.CI[0]), Y1: y - 4, X2: at(e.CI[0]), Y2: y + 4, Class: "whisker"},
				line{X1: at(e.CI[1]), Y1: y - 4, X2: at(e.CI[1]), Y2: y + 4, Class: "whisker"})
			title += fmt.Sprintf(", %s interval %s", level, ciText(e.CI, e.Note))
			value += " " + ciText(e.CI, e.Note)
		} else if e.Note != "" {
			title += "; " + e.Note
		}
		title += "; " + words.Count(e.Units, "unit")
		colour := "ax"
		if e.Group != nil {
			colour = v.GroupColour(*e.Group)
		}
		ch.Dots = append(ch.Dots, dot{X: at(e.Value), Y: y, R: 4.5, Class: colour, Title: title})
		ch.Labels = append(ch.Labels, label{X: width - right + 10, Y: y + 4, Text: value, Anchor: "start"})
	}
	return ch
}

func sameOption(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// ciText writes an interval, or, when it has none, why.
func ciText(ci *[2]float64, note string) string {
	if ci == nil {
		if note != "" {
			return note
		}
		return "—"
	}
	return "[" + agreement.Number(ci[0]) + ", " + agreement.Number(ci[1]) + "]"
}

// pValue writes a p-value with three decimals, and below 0.001 as such,
// as annosheet results does.
func pValue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// comparisonRow is a row of a question's table of comparisons.
type comparisonRow struct {
	results.Comparison
	// What is the comparison's statistic and option as the page writes
	// them.
	What string
	// First marks the first comparison of a statistic and option: the
	// pairs Holm's adjustment runs over.
	First bool
}

// Comparisons are the rows of a question's table of comparisons.
func (v *view) Comparisons(q results.Question) []comparisonRow {
	out := make([]comparisonRow, len(q.Comparisons))
	for i, c := range q.Comparisons {
		out[i] = comparisonRow{Comparison: c, What: v.statistic(q.Question, c.Statistic, c.Option),
			First: i > 0 && (q.Comparisons[i-1].Statistic != c.Statistic || !sameOption(q.Comparisons[i-1].Option, c.Option))}
	}
	return out
}
