package agreement

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// metricNames are the metrics as a person reads them; the JSON's own
// names (Metric.Metric) are what --json and --csv give.
var metricNames = map[string]string{
	"krippendorff_alpha":    "Krippendorff's α",
	"percent_agreement":     "percent agreement",
	"fleiss_kappa":          "Fleiss' κ",
	"cohen_kappa":           "Cohen's κ",
	"gwet_ac1":              "Gwet's AC1",
	"gwet_ac2":              "Gwet's AC2",
	"scott_pi":              "Scott's π",
	"bennett_s":             "Bennett's S",
	"brennan_prediger":      "Brennan–Prediger",
	"mean_jaccard":          "mean Jaccard",
	"mean_edit_similarity":  "mean edit similarity",
	"span_f1":               "span F1",
	"span_char_overlap_prf": "character overlap",
	"span_count_pearson":    "span count Pearson r",
}

// Name names a metric for a person, with its parameters in the order a
// name reads best: "Krippendorff's α (ordinal)", "span F1 (exact, with
// labels)". Every page and table that names a metric for reading says
// it so.
func (m Metric) Name() string {
	name := metricNames[m.Metric]
	if name == "" {
		name = strings.ReplaceAll(m.Metric, "_", " ")
	}
	var params []string
	keys := slices.SortedFunc(maps.Keys(m.Params), func(a, b string) int {
		return cmp.Or(cmp.Compare(paramOrder(a), paramOrder(b)), strings.Compare(a, b))
	})
	for _, k := range keys {
		switch val := m.Params[k].(type) {
		case string:
			if k == "reference" || k == "hypothesis" {
				params = append(params, k+" "+val)
			} else if val != "none" || k != "weights" {
				params = append(params, val)
			}
		case bool:
			if val {
				params = append(params, "with "+k)
			} else {
				params = append(params, "without "+k)
			}
		default:
			params = append(params, fmt.Sprintf("%s %v", k, val))
		}
	}
	if len(params) == 0 {
		return name
	}
	return name + " (" + strings.Join(params, ", ") + ")"
}

// paramOrder puts a metric's parameters in the order a name reads best:
// what is measured, then how, then who is the reference.
func paramOrder(key string) int {
	if i := slices.Index([]string{"level", "distance", "weights", "match", "labels", "normalize", "reference", "hypothesis"}, key); i >= 0 {
		return i
	}
	return 100
}

// Number writes a value for reading, rounded to 3 decimals; a sum's
// rounding error never shows as "-0.000".
func Number(x float64) string {
	if math.Abs(x) < 0.0005 {
		x = 0
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// ValueText writes a metric's value for reading: a number, the parts of
// a PRF or Pearson value, or "undefined".
func ValueText(v any) string {
	switch x := v.(type) {
	case float64:
		return Number(x)
	case PRF:
		return fmt.Sprintf("P %s, R %s, F1 %s", Number(x.Precision), Number(x.Recall), Number(x.F1))
	case Pearson:
		return fmt.Sprintf("micro %s, macro %s", Number(x.Micro), Number(x.Macro))
	}
	return "undefined"
}
