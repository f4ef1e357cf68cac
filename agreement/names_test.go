package agreement

import "testing"

func TestMetricNameAndValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m          Metric
		name, text string
	}{
		{Metric{Metric: "krippendorff_alpha", Params: map[string]any{"level": "ordinal"}, Value: 0.77777}, "Krippendorff's α (ordinal)", "0.778"},
		{Metric{Metric: "span_f1", Params: map[string]any{"labels": true, "match": "exact"}, Value: PRF{Precision: 1, Recall: 0.5, F1: 2.0 / 3}}, "span F1 (exact, with labels)", "P 1.000, R 0.500, F1 0.667"},
		{Metric{Metric: "cohen_kappa", Params: map[string]any{"weights": "none"}, Value: -0.0001}, "Cohen's κ", "0.000"},
		{Metric{Metric: "span_count_pearson", Params: map[string]any{"reference": "ak"}, Value: Pearson{Micro: 0.25, Macro: -0.5}}, "span count Pearson r (reference ak)", "micro 0.250, macro -0.500"},
		{Metric{Metric: "new_metric", Params: map[string]any{"k": 3, "normalize": "trim"}}, "new metric (trim, k 3)", "undefined"},
	} {
		if got := c.m.Name(); got != c.name {
			t.Errorf("%s: Name() = %q, want %q", c.m.Metric, got, c.name)
		}
		if got := ValueText(c.m.Value); got != c.text {
			t.Errorf("%s: ValueText = %q, want %q", c.m.Metric, got, c.text)
		}
	}
}
