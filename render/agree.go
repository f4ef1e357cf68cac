package render

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/internal/csvsafe"
	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// NamedAnnotators is how many annotators a line of a report names before
// it says how many more there are (a crowd study has thousands).
const NamedAnnotators = 12

// AgreeText writes the report for a reader: per question its
// counts, then each metric at question level.
func AgreeText(w io.Writer, rep *study.Agreement) error {
	var b strings.Builder
	fmt.Fprintf(&b, "agreement of template %s version %d: ", rep.Template.Name, rep.Template.Version)
	if rep.Records.Used == 0 {
		b.WriteString("no record to compare yet")
	} else {
		fmt.Fprintf(&b, "%s of %s compared", words.Count(rep.Records.Used, "record"), words.Some(rep.Records.Annotators, NamedAnnotators))
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

// writeAgainstTable writes the scores against a gold set (or another
// annotator's records, named as its reference): its units, then
// per question a line for each annotator, and one for them all pooled.
func writeAgainstTable(b *strings.Builder, a *study.Against) {
	name, set, gives := "gold", "the gold set", "the gold set gives"
	if a.Reference != "" {
		name, set, gives = a.Reference, a.Reference+"'s records", a.Reference+"'s records give"
	}
	fmt.Fprintf(b, "\nAgainst %s (%s): %s, %d of them in the sources", name, a.Gold, words.Count(a.Units, "unit"), a.SharedUnits)
	var apart []string
	if a.GoldOnly > 0 {
		apart = append(apart, fmt.Sprintf("%s only in %s", words.Count(a.GoldOnly, "unit"), set))
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
			fmt.Fprintf(b, "\n%s (%s): %s no unit a value (a question not adjudicated has none); not scored\n", q.Name, q.Type, gives)
			continue
		}
		fmt.Fprintf(b, "\n%s (%s): %s %s\n", q.Name, q.Type, gives, words.Count(q.GoldUnits, "unit"))
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
	fmt.Fprintf(b, "\naccuracy: the share of the units scored where the value is %[1]s's; P, R, F1: of the characters\n"+
		"marked under %[1]s's labels, %[1]s the reference. --json gives every metric, and per option or label.\n", name)
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
	s := agreement.ValueText(m.Value)
	if len(m.CI) == 2 {
		s += "  [" + agreement.Number(m.CI[0]) + ", " + agreement.Number(m.CI[1]) + "]"
	}
	if m.Note != "" {
		s += " (" + m.Note + ")"
	}
	return s
}

// AgreeCSV writes every value of the report as one row: the
// question, where the value belongs (question, pair, option, unit, or
// against: an annotator against gold), the metric,
// its parameters as JSON, and the value; a PRF or Pearson value takes a
// row per part. Text a spreadsheet could read as a formula is quoted.
func AgreeCSV(w io.Writer, rep *study.Agreement) error {
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
					if err := row(q.Name, q.Type, "against", s.Annotator, cmp.Or(rep.Against.Reference, records.GoldAnnotator), "", "", m); err != nil {
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

// Agree is how rep is written in format: "json" (the schema
// annosheet.agreement/1), "csv" (AgreeCSV), or "" for a person
// (AgreeText).
func Agree(format string, rep *study.Agreement) func(io.Writer) error {
	return func(w io.Writer) error {
		switch format {
		case "json":
			return JSON(w, rep)
		case "csv":
			return AgreeCSV(w, rep)
		}
		return AgreeText(w, rep)
	}
}

// WroteAgree says that the agreement rep was written to the file out.
func WroteAgree(w io.Writer, out string, rep *study.Agreement) {
	against := ""
	if rep.Against != nil {
		against = ", and each annotator against " + rep.Against.Gold
	}
	fmt.Fprintf(w, "wrote %s: agreement of %d question(s)%s\n", out, len(rep.Questions), against)
}
