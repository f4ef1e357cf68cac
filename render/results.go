package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/internal/csvsafe"
	"github.com/annosheet/annosheet/results"
)

// ResultsText writes a study's results for a person in a terminal: for
// each question, its estimates (a row per statistic, option and group)
// and its comparisons, then what was left out.
func ResultsText(w io.Writer, rep *results.Report) error {
	pct := strconv.FormatFloat(rep.Params.Level*100, 'g', -1, 64) + "%"
	level := pct + " CI"
	fmt.Fprintf(w, "results of template %s v%d, on the %s; %s intervals from %d resamples, p-values from %d permutations (seed %d)\n",
		rep.Template.Name, rep.Template.Version, basisText(rep.Basis), pct, rep.Params.Resamples, rep.Params.Permutations, rep.Params.Seed)
	if len(rep.Questions) == 0 {
		_, err := fmt.Fprintln(w, "no question to report")
		return err
	}
	for _, q := range rep.Questions {
		fmt.Fprintf(w, "\n%s (%s), by %s%s\n", questionTitle(q), q.Type, q.By, map[bool]string{true: ", paired", false: ""}[q.Paired])
		if len(q.Estimates) == 0 {
			fmt.Fprintln(w, "  no unit has a value")
		} else {
			tw, flush := Table(w)
			fmt.Fprintf(tw, "  statistic\toption\tgroup\tvalue\t%s\tunits\t\n", level)
			for _, e := range q.Estimates {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d\t\n", e.Statistic, orDash(e.Option), orDash(e.Group), number(e.Value), interval(e.CI, e.Note), e.Units)
			}
			if err := flush(); err != nil {
				return err
			}
		}
		if len(q.Comparisons) > 0 {
			fmt.Fprintln(w, "  comparisons (A − B):")
			tw, flush := Table(w)
			fmt.Fprintf(tw, "  statistic\toption\tA − B\tdifference\t%s\tp\tp (Holm)\t\n", level)
			for _, c := range q.Comparisons {
				fmt.Fprintf(tw, "  %s\t%s\t%s − %s\t%s\t%s\t%s\t%s\t\n", c.Statistic, orDash(c.Option), c.A, c.B, number(c.Difference), interval(c.CI, c.Note), pValue(c.P), pValue(c.PHolm))
			}
			if err := flush(); err != nil {
				return err
			}
		}
		if l := q.LeftOut.String(); l != "" {
			fmt.Fprintln(w, "  left out: "+l)
		}
	}
	return nil
}

func basisText(basis string) string {
	if basis == results.BasisGold {
		return "gold set"
	}
	return "annotators' records"
}

// questionTitle names a question's entry: its name, and the candidates'
// questions it stands for.
func questionTitle(q results.Question) string {
	if len(q.Questions) > 1 {
		return q.Question + " (" + strings.Join(q.Questions, ", ") + ")"
	}
	return q.Question
}

func orDash(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// number writes a value with three decimals, enough to read; the JSON
// and CSV keep every digit.
func number(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func interval(ci *[2]float64, note string) string {
	if ci == nil {
		if note != "" {
			return note
		}
		return "-"
	}
	return "[" + number(ci[0]) + ", " + number(ci[1]) + "]"
}

// pValue writes a p-value to its first significant digits, and below
// 0.001 as such.
func pValue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// ResultsCSV writes one row per estimate and per comparison, every digit
// kept; text that a spreadsheet would take for a formula is quoted away.
func ResultsCSV(w io.Writer, rep *results.Report) error {
	cw := csv.NewWriter(w)
	write := func(rec ...string) error {
		for i := range rec {
			rec[i] = csvsafe.Field(rec[i])
		}
		return cw.Write(rec)
	}
	if err := write("question", "type", "by", "paired", "kind", "statistic", "option", "group", "a", "b", "value", "ci_low", "ci_high", "units", "p", "p_holm", "note"); err != nil {
		return err
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	bounds := func(ci *[2]float64) (string, string) {
		if ci == nil {
			return "", ""
		}
		return formatFloat(ci[0]), formatFloat(ci[1])
	}
	for _, q := range rep.Questions {
		paired := strconv.FormatBool(q.Paired)
		for _, e := range q.Estimates {
			lo, hi := bounds(e.CI)
			if err := write(q.Question, q.Type, q.By, paired, "estimate", e.Statistic, str(e.Option), str(e.Group), "", "", formatFloat(e.Value), lo, hi, strconv.Itoa(e.Units), "", "", e.Note); err != nil {
				return err
			}
		}
		for _, c := range q.Comparisons {
			lo, hi := bounds(c.CI)
			if err := write(q.Question, q.Type, q.By, paired, "comparison", c.Statistic, str(c.Option), "", c.A, c.B, formatFloat(c.Difference), lo, hi, "", formatFloat(c.P), formatFloat(c.PHolm), c.Note); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// ResultsLaTeX writes a booktabs table per question, ready for a paper:
// the estimates with their intervals, then the comparisons with their
// p-values, every character LaTeX treats specially escaped.
func ResultsLaTeX(w io.Writer, rep *results.Report) error {
	pct := strconv.FormatFloat(rep.Params.Level*100, 'g', -1, 64)
	var b strings.Builder
	fmt.Fprintf(&b, "%% annosheet results: template %s v%d, %s; %s\\%% intervals (%d resamples), permutation p-values (%d permutations, Holm-adjusted), seed %d.\n",
		latex(rep.Template.Name), rep.Template.Version, latex(basisText(rep.Basis)), pct, rep.Params.Resamples, rep.Params.Permutations, rep.Params.Seed)
	b.WriteString("% Needs \\usepackage{booktabs}.\n")
	for _, q := range rep.Questions {
		fmt.Fprintf(&b, "\n\\begin{table}[ht]\n\\centering\n\\caption{%s (%s), by %s}\n", latex(questionTitle(q)), latex(q.Type), latex(q.By))
		b.WriteString("\\begin{tabular}{lllrlr}\n\\toprule\n")
		fmt.Fprintf(&b, "Statistic & Option & Group & Value & %s\\%% CI & Units \\\\\n\\midrule\n", pct)
		for _, e := range q.Estimates {
			fmt.Fprintf(&b, "%s & %s & %s & %s & %s & %d \\\\\n", latex(e.Statistic), latex(orDash(e.Option)), latex(orDash(e.Group)), number(e.Value), latex(interval(e.CI, "--")), e.Units)
		}
		if len(q.Comparisons) > 0 {
			b.WriteString("\\midrule\n")
			fmt.Fprintf(&b, "Statistic & Option & $A - B$ & Difference & %s\\%% CI & $p$ (Holm) \\\\\n\\midrule\n", pct)
			for _, c := range q.Comparisons {
				fmt.Fprintf(&b, "%s & %s & %s $-$ %s & %s & %s & %s \\\\\n", latex(c.Statistic), latex(orDash(c.Option)), latex(c.A), latex(c.B), number(c.Difference), latex(interval(c.CI, "--")), latex(pValue(c.PHolm)))
			}
		}
		b.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// latexEscapes are the characters LaTeX gives a meaning to, written so
// that they print as themselves.
var latexEscapes = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`, "<", `\textless{}`, ">", `\textgreater{}`,
)

// latex is text as LaTeX prints it, whatever its characters.
func latex(s string) string { return latexEscapes.Replace(s) }

// Results is how rep is written in format: "json" (the schema
// annosheet.results/1), "csv" (ResultsCSV), "latex" (ResultsLaTeX), or ""
// for a person (ResultsText).
func Results(format string, rep *results.Report) func(io.Writer) error {
	return func(w io.Writer) error {
		switch format {
		case "json":
			return JSON(w, rep)
		case "csv":
			return ResultsCSV(w, rep)
		case "latex":
			return ResultsLaTeX(w, rep)
		}
		return ResultsText(w, rep)
	}
}

// WroteResults says that the results rep were written to the file out.
func WroteResults(w io.Writer, out string, rep *results.Report) {
	by := "-"
	if len(rep.Questions) > 0 {
		by = rep.Questions[0].By
	}
	fmt.Fprintf(w, "wrote %s: the results of %d question(s), by %s\n", out, len(rep.Questions), by)
}
