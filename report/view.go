package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/study"
)

// The page's charts are SVG that the page's template writes from the
// geometry computed here: plain numbers, class names and text, which
// html/template escapes like any other text of the page.

// colours is the number of annotator colours (CSS classes a0 … a7); more
// annotators reuse them in turn.
const colours = 8

// view is what the page's template renders: the report, and what it
// needs to draw it.
type view struct {
	*Report
	// colour is each annotator's colour class, groupColour each group's
	// of the results.
	colour, groupColour map[string]string
}

func newView(r *Report) *view {
	v := &view{Report: r, colour: map[string]string{}, groupColour: groupColours(r.Results)}
	for i, a := range r.Annotators {
		v.colour[a] = "a" + strconv.Itoa(i%colours)
	}
	return v
}

// Colour is an annotator's colour class ("a0" …), "ax" for one who has
// no answers in hand.
func (v *view) Colour(annotator string) string {
	if c, ok := v.colour[annotator]; ok {
		return c
	}
	return "ax"
}

// round keeps one decimal: enough for a pixel, short in the page.
func round(x float64) float64 { return math.Round(x*10) / 10 }

// clip shortens a label to n characters, with an ellipsis; the full text
// goes in the element's title.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// bar is one rectangle of a chart, with its tooltip.
type bar struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

// label is one text of a chart.
type label struct {
	X, Y        float64
	Text, Title string
	Anchor      string // start, middle or end
	Rotate      bool
	Class       string
}

// line is one line of a chart (a grid line, an axis, a whisker).
type line struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

// svgChart is a chart as the template draws it.
type svgChart struct {
	W, H   float64
	Title  string
	Bars   []bar
	Labels []label
	Lines  []line
	Dots   []dot
	// Empty says there is nothing to draw.
	Empty bool
}

// share is n of total, 0 when total is 0.
func share(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}

func percent(x float64) string { return strconv.FormatFloat(math.Round(x*1000)/10, 'f', -1, 64) + "%" }

// chartEmpty reports whether a chart counts nothing.
func chartEmpty(c Chart) bool {
	for _, row := range c.Counts {
		for _, n := range row {
			if n > 0 {
				return false
			}
		}
	}
	return true
}

// Chart draws an answers chart: columns for a histogram, horizontal bars
// otherwise, each annotator's share of their answers.
func (v *view) Chart(c Chart) svgChart {
	if c.Histogram {
		return v.columns(c)
	}
	return v.hbars(c)
}

// hbars draws categories as rows, a bar per annotator in each.
func (v *view) hbars(c Chart) svgChart {
	const (
		width, labelW, valueW = 560.0, 180.0, 48.0
		barH, gap, pad, top   = 9.0, 1.0, 7.0, 18.0
	)
	n := len(v.Annotators)
	plot := width - labelW - valueW
	rowH := float64(n)*(barH+gap) - gap + 2*pad
	ch := svgChart{W: width, H: round(top + float64(len(c.Categories))*rowH + 4), Title: c.Title, Empty: chartEmpty(c)}
	for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		x := round(labelW + p*plot)
		ch.Lines = append(ch.Lines, line{X1: x, Y1: top - 4, X2: x, Y2: ch.H - 4, Class: "grid"})
		ch.Labels = append(ch.Labels, label{X: x, Y: top - 7, Text: percent(p), Anchor: "middle"})
	}
	for i, cat := range c.Categories {
		y0 := top + float64(i)*rowH
		ch.Labels = append(ch.Labels, label{X: labelW - 6, Y: round(y0 + rowH/2 + 4), Text: clip(cat.Label, 28), Title: cat.Label, Anchor: "end"})
		for a, who := range v.Annotators {
			s := share(c.Counts[i][a], c.Totals[a])
			y := round(y0 + pad + float64(a)*(barH+gap))
			w := round(s * plot)
			title := fmt.Sprintf("%s, %s: %d of %d (%s)", who, cat.Label, c.Counts[i][a], c.Totals[a], percent(s))
			ch.Bars = append(ch.Bars, bar{X: labelW, Y: y, W: w, H: barH, Class: v.Colour(who), Title: title})
			if c.Counts[i][a] > 0 {
				ch.Labels = append(ch.Labels, label{X: round(labelW + w + 3), Y: round(y + barH - 1), Text: strconv.Itoa(c.Counts[i][a]), Anchor: "start", Class: "v"})
			}
		}
	}
	return ch
}

// columns draws a histogram: categories along the bottom, a column per
// annotator in each.
func (v *view) columns(c Chart) svgChart {
	const (
		width, height      = 560.0, 190.0
		left, right, top   = 40.0, 8.0, 10.0
		bottom, groupSpace = 30.0, 6.0
	)
	n := max(len(v.Annotators), 1)
	plotW, plotH := width-left-right, height-top-bottom
	ch := svgChart{W: width, H: height, Title: c.Title, Empty: chartEmpty(c)}
	maxShare := 0.0
	for i := range c.Categories {
		for a := range v.Annotators {
			maxShare = max(maxShare, share(c.Counts[i][a], c.Totals[a]))
		}
	}
	// The axis goes to the next quarter above the highest column.
	axis := max(0.25, math.Ceil(maxShare*4)/4)
	for p := 0.0; p <= axis+1e-9; p += axis / 4 {
		y := round(top + plotH - p/axis*plotH)
		ch.Lines = append(ch.Lines, line{X1: left, Y1: y, X2: width - right, Y2: y, Class: "grid"})
		ch.Labels = append(ch.Labels, label{X: left - 4, Y: y + 3, Text: percent(p), Anchor: "end"})
	}
	groupW := plotW / float64(max(len(c.Categories), 1))
	barW := min(16, (groupW-groupSpace)/float64(n))
	for i, cat := range c.Categories {
		x0 := left + float64(i)*groupW + (groupW-barW*float64(n))/2
		for a, who := range v.Annotators {
			s := share(c.Counts[i][a], c.Totals[a])
			h := s / axis * plotH
			title := fmt.Sprintf("%s, %s: %d of %d (%s)", who, cat.Label, c.Counts[i][a], c.Totals[a], percent(s))
			ch.Bars = append(ch.Bars, bar{X: round(x0 + float64(a)*barW), Y: round(top + plotH - h), W: round(barW - 1), H: round(h), Class: v.Colour(who), Title: title})
		}
		ch.Labels = append(ch.Labels, label{X: round(left + (float64(i)+0.5)*groupW), Y: height - bottom + 14, Text: clip(cat.Label, int(max(3, groupW/6))), Title: cat.Label, Anchor: "middle"})
	}
	ch.Lines = append(ch.Lines, line{X1: left, Y1: top + plotH, X2: width - right, Y2: top + plotH, Class: "axis"})
	return ch
}

// statuses are the parts of a progress bar, in order.
var statuses = []struct{ class, name string }{
	{"done", "done"}, {"partial", "partial"}, {"empty", "empty"}, {"missing", "missing"}, {"unreadable", "unreadable"},
}

// ProgressBar draws a tally's units as one bar split by status.
func (v *view) ProgressBar(t *study.Tally) svgChart {
	const width, height = 240.0, 14.0
	ch := svgChart{W: width, H: height}
	x := 0.0
	for i, n := range []int{t.Complete, t.Partial, t.Empty, t.Missing, t.Unreadable} {
		if n == 0 {
			continue
		}
		w := share(n, t.Units) * width
		ch.Bars = append(ch.Bars, bar{X: round(x), Y: 0, W: round(w), H: height, Class: statuses[i].class,
			Title: fmt.Sprintf("%s: %d of %s (%s)", statuses[i].name, n, words.Count(t.Units, "unit"), percent(share(n, t.Units)))})
		x += w
	}
	return ch
}

// Headlines draws each question's headline with its interval, on one
// axis.
func (v *view) Headlines() svgChart {
	const (
		width, labelW, right = 560.0, 180.0, 60.0
		rowH, top            = 22.0, 20.0
	)
	qs := v.Agreement.Questions
	ch := svgChart{W: width, H: top + float64(len(qs))*rowH + 6}
	lo := 0.0
	for _, q := range qs {
		if len(q.Metrics) == 0 {
			continue
		}
		if x, ok := q.Metrics[0].Value.(float64); ok {
			lo = min(lo, x)
		}
		if ci := q.Metrics[0].CI; len(ci) == 2 {
			lo = min(lo, ci[0])
		}
	}
	lo = math.Max(-1, math.Floor(lo*4+1e-9)/4)
	plot := width - labelW - right
	at := func(x float64) float64 { return round(labelW + (x-lo)/(1-lo)*plot) }
	for p := lo; p <= 1+1e-9; p += 0.25 {
		ch.Lines = append(ch.Lines, line{X1: at(p), Y1: top - 4, X2: at(p), Y2: ch.H - 4, Class: "grid"})
		ch.Labels = append(ch.Labels, label{X: at(p), Y: top - 7, Text: strconv.FormatFloat(p, 'f', 2, 64), Anchor: "middle"})
	}
	for i, q := range qs {
		y := round(top + float64(i)*rowH + rowH/2)
		ch.Labels = append(ch.Labels, label{X: labelW - 6, Y: y + 4, Text: clip(q.Header, 28), Title: q.Name, Anchor: "end"})
		if len(q.Metrics) == 0 {
			continue
		}
		m := q.Metrics[0]
		x, ok := m.Value.(float64)
		if !ok {
			ch.Labels = append(ch.Labels, label{X: labelW + 4, Y: y + 4, Text: "undefined: " + clip(m.Note, 40), Title: m.Note, Anchor: "start"})
			continue
		}
		if len(m.CI) == 2 {
			ch.Lines = append(ch.Lines, line{X1: at(m.CI[0]), Y1: y, X2: at(m.CI[1]), Y2: y, Class: "whisker"},
				line{X1: at(m.CI[0]), Y1: y - 4, X2: at(m.CI[0]), Y2: y + 4, Class: "whisker"},
				line{X1: at(m.CI[1]), Y1: y - 4, X2: at(m.CI[1]), Y2: y + 4, Class: "whisker"})
		}
		ch.Bars = append(ch.Bars, bar{X: at(x) - 4, Y: y - 4, W: 8, H: 8, Class: "dot", Title: m.Name() + " " + agreement.ValueText(m.Value)})
		ch.Labels = append(ch.Labels, label{X: width - right + 6, Y: y + 4, Text: agreement.Number(x), Anchor: "start"})
	}
	return ch
}

// The most pairs of annotators the page lists per question, and the
// most confusion matrices it draws: beyond a handful of annotators, more
// would make the page long and big, not clearer.
const (
	maxPairRows = 28
	maxHeatmaps = 12
)

// pairList is some pairs of a question, and how many others there are.
type pairList struct {
	Pairs  []Pair
	Hidden int
	// Metric names the pairs' headline.
	Metric string
}

// PairRows are the pairs a question's table lists: at most maxPairRows,
// in order.
func (v *view) PairRows(q QuestionAgreement) pairList {
	out := pairList{Pairs: q.Pairs[:min(len(q.Pairs), maxPairRows)], Hidden: max(0, len(q.Pairs)-maxPairRows) + q.PairsLeftOut}
	if len(q.Metrics) > 0 {
		out.Metric = q.Metrics[0].Name()
	}
	return out
}

// Heatmaps are the pairs whose confusion matrix the page draws: those
// that answered a unit in common, the most units first, at most
// maxHeatmaps.
func (v *view) Heatmaps(q QuestionAgreement) pairList {
	var out pairList
	for _, p := range q.Pairs {
		if p.Confusion != nil && p.Confusion.Units > 0 {
			out.Pairs = append(out.Pairs, p)
		}
	}
	slices.SortStableFunc(out.Pairs, func(a, b Pair) int { return cmp.Compare(b.Confusion.Units, a.Confusion.Units) })
	if len(out.Pairs) > maxHeatmaps {
		out.Hidden = len(out.Pairs) - maxHeatmaps
		out.Pairs = out.Pairs[:maxHeatmaps]
	}
	if len(out.Pairs) > 0 {
		// The pairs agree left out share units too, fewer than these.
		out.Hidden += q.PairsLeftOut
	}
	return out
}

// heatCell is one cell of a confusion matrix.
type heatCell struct {
	X, Y, S  float64
	TX, TY   float64 // where the count is written
	N        int
	Opacity  float64
	Dark     bool // the count is written in white
	Diagonal bool
	Title    string
}

// heatmap is a confusion matrix as the template draws it.
type heatmap struct {
	W, H   float64
	Cells  []heatCell
	Labels []label
}

// Heatmap draws a pair's confusion matrix: A's answers down, B's across,
// each cell shaded by its count.
func (v *view) Heatmap(p Pair) heatmap {
	c := p.Confusion
	n := len(c.Categories)
	const labelW, top = 110.0, 78.0
	s := max(18, min(34, 260/float64(max(n, 1))))
	hm := heatmap{W: round(labelW + float64(n)*s + 64), H: round(top + float64(n)*s + 4)}
	most := 1
	for _, row := range c.Counts {
		for _, k := range row {
			most = max(most, k)
		}
	}
	for i, cat := range c.Categories {
		hm.Labels = append(hm.Labels,
			label{X: labelW - 5, Y: round(top + float64(i)*s + s/2 + 4), Text: clip(cat.Label, 16), Title: p.A + ": " + cat.Label, Anchor: "end"},
			label{X: round(labelW + float64(i)*s + s/2 + 4), Y: top - 5, Text: clip(cat.Label, 16), Title: p.B + ": " + cat.Label, Anchor: "start", Rotate: true})
		for j, b := range c.Categories {
			k := c.Counts[i][j]
			o := 0.0
			if k > 0 {
				o = round(0.12+0.88*float64(k)/float64(most)*100) / 100
			}
			x, y := round(labelW+float64(j)*s), round(top+float64(i)*s)
			hm.Cells = append(hm.Cells, heatCell{X: x, Y: y, S: round(s - 1), TX: round(x + s/2), TY: round(y + s/2 + 3.5), N: k, Opacity: o, Dark: o > 0.55, Diagonal: i == j,
				Title: fmt.Sprintf("%s says %s, %s says %s: %s", p.A, cat.Label, p.B, b.Label, words.Count(k, "unit"))})
		}
	}
	return hm
}

// segment is a piece of an example's text: marked when one of the
// annotator's spans covers it.
type segment struct {
	Text   string
	Marked bool
	Title  string
}

// Segments cuts an example's text at the edges of one annotator's spans.
func (v *view) Segments(ex SpanExample, a ExampleSpans) []segment {
	runes := []rune(ex.Text)
	lo, hi := ex.Offset, ex.Offset+len(runes)
	cuts := []int{lo, hi}
	for _, s := range a.Spans {
		for _, x := range []int{s.Start, s.End} {
			if x > lo && x < hi {
				cuts = append(cuts, x)
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []segment
	for k := 0; k+1 < len(cuts); k++ {
		from, to := cuts[k], cuts[k+1]
		seg := segment{Text: string(runes[from-lo : to-lo])}
		var names []string
		for _, s := range a.Spans {
			if s.Start <= from && to <= s.End && s.Start < s.End {
				seg.Marked = true
				name := s.Label
				if name == "" {
					name = "span"
				}
				names = append(names, fmt.Sprintf("%s %d–%d", name, s.Start, s.End))
			}
		}
		seg.Title = strings.Join(names, "; ")
		if n := len(out); n > 0 && out[n-1].Marked == seg.Marked && out[n-1].Title == seg.Title {
			out[n-1].Text += seg.Text
			continue
		}
		out = append(out, seg)
	}
	return out
}

// optional writes a score that may be undefined.
func optional(x *float64) string {
	if x == nil {
		return "—"
	}
	return agreement.Number(*x)
}

// who names an annotator on the page: the units nobody claimed in a
// shared workbook have none.
func who(a string) string {
	if a == "" {
		return "(unclaimed)"
	}
	return a
}

// percentOf writes a share as a percentage.
func percentOf(n, total int) string { return percent(share(n, total)) }
