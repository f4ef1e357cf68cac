package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/csvsafe"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

type agreeOptions struct {
	Sources  []string
	JSON     bool
	CSV      bool
	Out      string
	Force    bool
	Template string
	Params   map[string]string
	// Against is the gold set's file (--against), when given.
	Against string
	study.AgreeOptions
	Google googleOptions
}

// from says where agree's records come from: its sources, with the
// pull's errors said and its warnings counted.
func (opt agreeOptions) from() recordsFrom {
	return recordsFrom{Sources: opt.Sources, Template: opt.Template, Params: opt.Params, Google: opt.Google, Problems: printAgreeProblems}
}

// agreeRules are the rules agree keeps where other tools do not; --help
// and the README state them.
const agreeRules = "Rules:\n" +
	"   - Values are paired by unit ID and annotator, never by their place in a list.\n" +
	"   - A scale's \"not yet answered\" value (preference's likert 0) is no answer, never a rating.\n" +
	"   - Chance terms that depend on the number of categories (AC1, AC2, Brennan-Prediger, weights)\n" +
	"     use the options the template declares, not those that happen to be used.\n" +
	"   - An empty selection, or no span on a complete unit, is an answer: MASI(∅, ∅) = 0,\n" +
	"     MASI(∅, X) = 1, and a unit where one annotator marked no span counts against span F1.\n" +
	"   - Values are those export writes: shuffled candidates back on their own (pull through\n" +
	"     the manifest), anonymised names mapped back, opaque IDs restored.\n" +
	"   - Only complete units count, unless --include-partial adds a question's answered values.\n" +
	"     Units with fewer than two values are not pairable, and are counted as such.\n" +
	"   - Sums run in a fixed order: the same records always give the same bytes.\n"

func agreeCommand() *cli.Command {
	return &cli.Command{
		Name:      "agree",
		Usage:     "inter-annotator agreement, question by question",
		ArgsUsage: "SOURCE...",
		Description: "SOURCE is what pull reads (a study's manifest or folder, workbooks, spreadsheet\n" +
			"links), or records that pull wrote (.jsonl). For every question, agree reports the\n" +
			"metrics its type calls for, the headline first: Krippendorff's alpha (nominal for\n" +
			"choices, ordinal for scales, MASI for label sets and evidence), with percent\n" +
			"agreement, Gwet's AC1/AC2, Cohen's and Fleiss' kappa, and, for spans, pairwise span F1\n" +
			"(exact and overlapping) and character-overlap precision, recall and F1.\n\n" +
			"With --against GOLD.jsonl (pulled records of annotator \"gold\", one per unit), agree also\n" +
			"scores each annotator against the gold set, question by question, on the units both give\n" +
			"a value: accuracy (exact match; a multi's exact set; text after trimming and case\n" +
			"folding), Cohen's kappa (a scale's unweighted and linear), mean Jaccard for sets, and for\n" +
			"spans the precision, recall and F1 of the characters marked under gold's labels, gold the\n" +
			"reference. A question the gold set left unresolved is not scored.\n\n" +
			agreeRules + "\n" +
			"Example:\n" +
			"   annosheet agree my-study/\n" +
			"   annosheet agree my-study/ --json --ci 0.95 > agreement.json\n" +
			"   annosheet agree annotations.jsonl --question gaps --annotators ak,bt\n" +
			"   annosheet agree my-study/ --against gold.jsonl",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "write the report as JSON (schema annosheet.agreement/1): per pair, option and unit too"},
			&cli.BoolFlag{Name: "csv", Usage: "write every value as CSV rows: question, scope (question, pair, option, unit, against), metric, params, value"},
			&cli.StringFlag{Name: "against", Usage: "also score each annotator against the gold set in `GOLD.jsonl` (records of annotator \"gold\")"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write to `FILE` (default: stdout)"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing --out file"},
			&cli.StringSliceFlag{Name: "question", Aliases: []string{"q"}, Usage: "report question `NAME` only (repeat, or separate with commas)"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "compare annotators `ID,ID` only"},
			&cli.BoolFlag{Name: "include-partial", Usage: "count the answered values of partial units too"},
			&cli.Float64Flag{Name: "ci", Usage: "bootstrap confidence interval at `LEVEL` (between 0 and 1, e.g. 0.95) for each headline"},
			&cli.IntFlag{Name: "resamples", Value: 1000, Usage: "bootstrap resamples of the units (1 to 1,000,000)"},
			&cli.IntFlag{Name: "max-pairs", Value: agreement.DefaultMaxPairs, Usage: "list at most `N` pairs of annotators per question (1 to 100,000): those that share the most units; pairs that share none are never listed"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the bootstrap (the same seed, the same interval)"},
			&cli.StringFlag{Name: "reference", Usage: "annotator `ID` that directional span metrics take as the reference (default: the first in sorted order)"},
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "template `NAME|FILE` of the records, when it is not built in and no manifest names it"},
			&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`, as given to generate"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("agree needs a SOURCE: a study's manifest or folder, workbooks, or pulled records (.jsonl)")
			}
			if c.Bool("json") && c.Bool("csv") {
				return usagef("give --json or --csv, not both")
			}
			if err := cmp.Or(checkLevel(c, "ci"), checkCount(c, "resamples", 1, study.MaxResamples), checkCount(c, "max-pairs", 1, study.MaxListedPairs)); err != nil {
				return err
			}
			params, err := parseParams(c.StringSlice("param"))
			if err != nil {
				return err
			}
			return runAgree(c.Context, agreeOptions{
				Sources: c.Args().Slice(), JSON: c.Bool("json"), CSV: c.Bool("csv"), Out: c.String("out"), Force: c.Bool("force"),
				Template: c.String("template"), Params: params, Against: c.String("against"), Google: googleFrom(c),
				AgreeOptions: study.AgreeOptions{
					Questions: splitList(c.StringSlice("question")), Annotators: splitList(c.StringSlice("annotators")),
					IncludePartial: c.Bool("include-partial"), CI: c.Float64("ci"), Resamples: c.Int("resamples"),
					Seed: c.Uint64("seed"), Reference: c.String("reference"), MaxPairs: c.Int("max-pairs"),
				},
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runAgree(ctx context.Context, opt agreeOptions, stdout, stderr io.Writer) error {
	l, err := loadRecords(ctx, opt.from(), stderr)
	if err != nil {
		return err
	}
	if opt.Against != "" {
		if opt.Gold, err = readGold(ctx, opt.Against, l.Template, l.key(), opt.Google, stderr); err != nil {
			return err
		}
	}
	rep, err := study.Agree(ctx, l.Template, l.Records, opt.AgreeOptions)
	if err != nil {
		return flagError(err)
	}
	write := func(w io.Writer) error {
		switch {
		case opt.JSON:
			b, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				return err
			}
			_, err = w.Write(append(b, '\n'))
			return err
		case opt.CSV:
			return writeAgreeCSV(w, rep)
		}
		return writeAgreeTable(w, rep)
	}
	if opt.Out == "" {
		return write(stdout)
	}
	if err := atomicfile.Write(opt.Out, opt.Force, 0o644, write); err != nil {
		return err
	}
	against := ""
	if rep.Against != nil {
		against = ", and each annotator against " + rep.Against.Gold
	}
	fmt.Fprintf(stdout, "wrote %s: agreement of %d question(s)%s\n", opt.Out, len(rep.Questions), against)
	return nil
}

// namedAnnotators is how many annotators a line of a report names before
// it says how many more there are (a crowd study has thousands).
const namedAnnotators = 12

// writeAgreeTable writes the report for a reader: per question its
// counts, then each metric at question level.
func writeAgreeTable(w io.Writer, rep *study.Agreement) error {
	var b strings.Builder
	fmt.Fprintf(&b, "agreement of template %s version %d: ", rep.Template.Name, rep.Template.Version)
	if rep.Records.Used == 0 {
		b.WriteString("no record to compare yet")
	} else {
		fmt.Fprintf(&b, "%s of %s compared", words.Count(rep.Records.Used, "record"), words.Some(rep.Records.Annotators, namedAnnotators))
	}
	if rep.Records.Partial > 0 {
		fmt.Fprintf(&b, "; %d partial left out (--include-partial counts them)", rep.Records.Partial)
	}
	if rep.Records.Empty > 0 {
		fmt.Fprintf(&b, "; %d empty or missing", rep.Records.Empty)
	}
	b.WriteString("\n")
	for _, q := range rep.Questions {
		fmt.Fprintf(&b, "\n%s (%s): %s, %s, %s\n", q.Name, q.Type, words.Count(q.Units, "unit"), words.Count(q.Pairable, "pairable value"), words.Count(len(q.Annotators), "annotator"))
		if q.Compared != "" {
			fmt.Fprintf(&b, "  compared: %s\n", q.Compared)
		}
		if q.PairsLeftOut > 0 {
			fmt.Fprintf(&b, "  pairs: --json and --csv list %d of the %d pairs of annotators that share a unit, those that share the most (--max-pairs N lists more)\n",
				len(q.Pairs), len(q.Pairs)+q.PairsLeftOut)
		}
		for i, m := range q.Metrics {
			mark := "  "
			if i == 0 {
				mark = "* "
			}
			fmt.Fprintf(&b, "  %s%-28s %-34s %s\n", mark, m.Metric, paramText(m.Params), valueText(m))
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(&b, "\n%s: not compared: %s\n", s.Name, s.Reason)
	}
	b.WriteString("\n* the headline metric. --json gives the values per annotator pair, option and unit.\n")
	if rep.Against != nil {
		writeAgainstTable(&b, rep.Against)
	}
	_, err := io.WriteString(w, safetext.Escape(b.String()))
	return err
}

// writeAgainstTable writes the scores against a gold set: its units, then
// per question a line for each annotator, and one for them all pooled.
func writeAgainstTable(b *strings.Builder, a *study.Against) {
	fmt.Fprintf(b, "\nAgainst gold (%s): %s, %d of them in the sources", a.Gold, words.Count(a.Units, "unit"), a.SharedUnits)
	var apart []string
	if a.GoldOnly > 0 {
		apart = append(apart, fmt.Sprintf("%s only in the gold set", words.Count(a.GoldOnly, "unit")))
	}
	if a.SourcesOnly > 0 {
		apart = append(apart, fmt.Sprintf("%s only in the sources", words.Count(a.SourcesOnly, "unit")))
	}
	if len(apart) > 0 {
		fmt.Fprintf(b, "; not scored: %s", strings.Join(apart, ", "))
	}
	b.WriteString("\n")
	width := len("all, pooled")
	for _, q := range a.Questions {
		for _, s := range q.Scores() {
			width = max(width, len(s.Annotator))
		}
	}
	for _, q := range a.Questions {
		if q.GoldUnits == 0 {
			// A question not adjudicated (free text, by default) has no
			// gold value: a line of "undefined" per annotator says less.
			fmt.Fprintf(b, "\n%s (%s): the gold set gives no unit a value (a question not adjudicated has none); not scored\n", q.Name, q.Type)
			continue
		}
		fmt.Fprintf(b, "\n%s (%s): the gold set gives %s\n", q.Name, q.Type, words.Count(q.GoldUnits, "unit"))
		if q.Compared != "" {
			fmt.Fprintf(b, "  compared: %s\n", q.Compared)
		}
		for _, s := range q.Scores() {
			name := s.Annotator
			if name == study.Pooled {
				name = "all, pooled"
			}
			fmt.Fprintf(b, "  %-*s %5d %-5s  %s\n", width, name, s.Units, words.Noun(s.Units, "unit"), strings.Join(scoreParts(q.Type, s), "  "))
		}
	}
	b.WriteString("\naccuracy: the share of the units scored where the value is gold's; P, R, F1: of the characters\n" +
		"marked under gold's labels, gold the reference. --json gives every metric, and per option or label.\n")
}

// scoreParts are the values a question of type typ shows for a score,
// rounded, "undefined" where the data leaves one undefined.
func scoreParts(typ string, s study.AnnotatorScore) []string {
	type part struct {
		name string
		v    *float64
	}
	parts := []part{{"accuracy", s.Accuracy}}
	switch typ {
	case templates.TypeChoice, templates.TypeBool:
		parts = append(parts, part{"κ", s.Kappa})
	case templates.TypeScale:
		parts = append(parts, part{"κ", s.Kappa}, part{"κ linear", s.KappaLinear})
	case templates.TypeMulti, templates.TypeEvidence:
		parts = append(parts, part{"mean Jaccard", s.MeanJaccard})
	case templates.TypeSpan:
		parts = append(parts, part{"P", s.Precision}, part{"R", s.Recall}, part{"F1", s.F1})
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		v := "undefined"
		if p.v != nil {
			v = strconv.FormatFloat(*p.v, 'f', 3, 64)
		}
		out[i] = p.name + " " + v
	}
	return out
}

// paramText writes a metric's parameters as key=value, sorted.
func paramText(p map[string]any) string {
	var out []string
	for _, k := range sortedMapKeys(p) {
		out = append(out, fmt.Sprintf("%s=%v", k, p[k]))
	}
	return strings.Join(out, " ")
}

func sortedMapKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// valueText writes a metric's value rounded for reading, with its
// interval and note.
func valueText(m agreement.Metric) string {
	s := numberText(m.Value)
	if m.Value == nil {
		s = "undefined"
	}
	if len(m.CI) == 2 {
		s += fmt.Sprintf("  [%.3f, %.3f]", m.CI[0], m.CI[1])
	}
	if m.Note != "" {
		s += " (" + m.Note + ")"
	}
	return s
}

// numberText writes a metric's value rounded to 3 decimals: a number, or
// the parts of a PRF or Pearson value; "" for none.
func numberText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case agreement.PRF:
		return fmt.Sprintf("P %.3f  R %.3f  F1 %.3f", v.Precision, v.Recall, v.F1)
	case agreement.Pearson:
		return fmt.Sprintf("micro %.3f  macro %.3f", v.Micro, v.Macro)
	}
	return fmt.Sprint(v)
}

// writeAgreeCSV writes every value of the report as one row: the
// question, where the value belongs (question, pair, option, unit, or
// against: an annotator against gold), the metric,
// its parameters as JSON, and the value; a PRF or Pearson value takes a
// row per part. Text a spreadsheet could read as a formula is quoted.
func writeAgreeCSV(w io.Writer, rep *study.Agreement) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"question", "type", "scope", "annotator_a", "annotator_b", "option", "unit", "metric", "params", "part", "value", "ci_low", "ci_high"}); err != nil {
		return err
	}
	row := func(question, typ, scope, a, b, option, unit string, m agreement.Metric) error {
		params, err := json.Marshal(m.Params)
		if err != nil {
			return err
		}
		lo, hi := "", ""
		if len(m.CI) == 2 {
			lo, hi = formatFloat(m.CI[0]), formatFloat(m.CI[1])
		}
		for _, pv := range metricParts(m.Value) {
			rec := []string{question, typ, scope, a, b, option, unit, m.Metric, string(params), pv[0], pv[1], lo, hi}
			for i := range rec {
				rec[i] = csvsafe.Field(rec[i])
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		return nil
	}
	for _, q := range rep.Questions {
		for _, m := range q.Metrics {
			if err := row(q.Name, q.Type, "question", "", "", "", "", m); err != nil {
				return err
			}
		}
		for _, p := range q.Pairs {
			for _, m := range p.Metrics {
				if err := row(q.Name, q.Type, "pair", p.A, p.B, "", "", m); err != nil {
					return err
				}
			}
		}
		for _, o := range q.Options {
			for _, m := range o.Metrics {
				if err := row(q.Name, q.Type, "option", "", "", o.Code, "", m); err != nil {
					return err
				}
			}
		}
		// Each pairable unit: 1 when its annotators agree, else 0.
		for _, u := range q.UnitsDetail {
			agree := 0.0
			if u.Agree {
				agree = 1
			}
			m := agreement.Metric{Metric: "unit_agreement", Params: map[string]any{"values": u.Values}, Value: agree}
			if err := row(q.Name, q.Type, "unit", "", "", "", u.Unit, m); err != nil {
				return err
			}
		}
	}
	// Each annotator against gold (and every annotator pooled, as *):
	// the units scored, the accuracy, then the metrics, per option too.
	if rep.Against != nil {
		for _, q := range rep.Against.Questions {
			for _, s := range q.Scores() {
				acc := agreement.Metric{Metric: "accuracy", Params: map[string]any{}, Note: "no unit scored"}
				if s.Accuracy != nil {
					acc.Value, acc.Note = *s.Accuracy, ""
				}
				units := agreement.Metric{Metric: "units_scored", Params: map[string]any{}, Value: float64(s.Units)}
				for _, m := range append([]agreement.Metric{units, acc}, s.Metrics...) {
					if err := row(q.Name, q.Type, "against", s.Annotator, records.GoldAnnotator, "", "", m); err != nil {
						return err
					}
				}
				for _, o := range s.Options {
					for _, m := range o.Metrics {
						if err := row(q.Name, q.Type, "against", s.Annotator, records.GoldAnnotator, o.Code, "", m); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// metricParts splits a value into (part, value) pairs: one for a number
// (part ""), one per part of a PRF or Pearson, and an empty value for an
// undefined one.
func metricParts(v any) [][2]string {
	switch x := v.(type) {
	case float64:
		return [][2]string{{"", formatFloat(x)}}
	case agreement.PRF:
		return [][2]string{{"precision", formatFloat(x.Precision)}, {"recall", formatFloat(x.Recall)}, {"f1", formatFloat(x.F1)}}
	case agreement.Pearson:
		return [][2]string{{"micro", formatFloat(x.Micro)}, {"macro", formatFloat(x.Macro)}}
	}
	return [][2]string{{"", ""}}
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// printAgreeProblems writes the errors pull found, one line each, and
// counts its warnings (pull lists them): an error can leave an answer out
// of the agreement, a warning does not.
func printAgreeProblems(w io.Writer, ps mapping.Problems) {
	var errs mapping.Problems
	warnings := 0
	for _, p := range ps {
		if p.Severity == mapping.Error {
			errs = append(errs, p)
		} else {
			warnings++
		}
	}
	printProblems(w, errs)
	if warnings > 0 {
		fmt.Fprintf(w, "note: pull also found %s in the workbooks (annosheet pull lists them by cell); they do not change the answers compared\n", words.Count(warnings, "warning"))
	}
}
