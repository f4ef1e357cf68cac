package agreement_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/annosheet/annosheet/agreement"
)

// spanCaseDirs are where the reference cases are: the shared set (present
// in CI, beside the repository) and the copy kept here of its span case,
// so that the package's tests check a published value on their own.
var spanCaseDirs = []string{"../../shared/agreement", "testdata/spans"}

// spanCase is a reference case as shared/agreement/README.md describes it,
// with the fields a span case uses.
type spanCase struct {
	ID        string          `json:"id"`
	Metric    string          `json:"metric"`
	Params    map[string]any  `json:"params"`
	Data      json.RawMessage `json:"data"`
	Expected  json.RawMessage `json:"expected"`
	Tolerance float64         `json:"tolerance"`
	file      string
}

// spanCaseData is data of format "spans": per unit, each coder's spans;
// a coder absent or null did not complete the unit, [] marked nothing.
type spanCaseData struct {
	Format string   `json:"format"`
	Coders []string `json:"coders"`
	Units  []struct {
		Unit  string                    `json:"unit"`
		Spans map[string][]spanCaseSpan `json:"spans"`
	} `json:"units"`
}

type spanCaseSpan struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Label string `json:"label"`
}

func spanLoadCases(t *testing.T) []spanCase {
	t.Helper()
	var cases []spanCase
	seen := map[string]string{}
	for _, dir := range spanCaseDirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				t.Logf("no reference cases at %s", dir)
			}
			continue
		}
		slices.Sort(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c spanCase
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var d struct {
				Format string `json:"format"`
			}
			if err := json.Unmarshal(c.Data, &d); err != nil {
				t.Fatalf("%s: data: %v", f, err)
			}
			if d.Format != "spans" {
				continue
			}
			if first, ok := seen[c.ID]; ok {
				t.Logf("%s: case %s already read from %s", f, c.ID, first)
				continue
			}
			seen[c.ID] = f
			c.file = f
			cases = append(cases, c)
		}
	}
	return cases
}

// spanCaseTable turns a case's data into a SpanTable and the labels to
// declare: params.categories when the case gives them, otherwise every
// label its spans carry.
func spanCaseTable(t *testing.T, c spanCase) (agreement.SpanTable, []string) {
	t.Helper()
	var d spanCaseData
	if err := json.Unmarshal(c.Data, &d); err != nil {
		t.Fatalf("%s: data: %v", c.file, err)
	}
	coders := slices.Clone(d.Coders)
	for _, u := range d.Units {
		for coder := range u.Spans {
			if !slices.Contains(coders, coder) {
				coders = append(coders, coder)
			}
		}
	}
	slices.Sort(coders)
	var labels []string
	if cats, ok := c.Params["categories"].([]any); ok {
		for _, x := range cats {
			s, ok := x.(string)
			if !ok {
				t.Fatalf("%s: params.categories holds %v, not a code", c.file, x)
			}
			labels = append(labels, s)
		}
	}
	declared := labels != nil
	table := agreement.SpanTable{Coders: coders}
	for _, u := range d.Units {
		su := agreement.SpanUnit{ID: u.Unit, Spans: make([][]agreement.Span, len(coders))}
		for i, coder := range coders {
			list, ok := u.Spans[coder]
			if !ok || list == nil {
				continue // not completed
			}
			su.Spans[i] = []agreement.Span{}
			for _, s := range list {
				su.Spans[i] = append(su.Spans[i], agreement.Span{Start: s.Start, End: s.End, Label: s.Label})
				if !declared && !slices.Contains(labels, s.Label) {
					labels = append(labels, s.Label)
				}
			}
		}
		table.Units = append(table.Units, su)
	}
	slices.SortFunc(table.Units, func(a, b agreement.SpanUnit) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	if !declared {
		slices.Sort(labels)
	}
	return table, labels
}

// spanCaseParams are the params each span metric's case may give, and
// whether the reported metric carries them (categories only declare).
var spanCaseParams = map[string]map[string]bool{
	"span_char_overlap_prf": {"match": true, "reference": true, "hypothesis": true, "categories": false},
	"span_f1":               {"match": true, "labels": true, "categories": false},
	"span_count_pearson":    {"categories": false},
}

// TestSpansReferenceCases runs every span case of the shared reference set
// and compares the metric its params name with the published value.
func TestSpansReferenceCases(t *testing.T) {
	t.Parallel()
	cases := spanLoadCases(t)
	if len(cases) == 0 {
		t.Fatal("no span reference case found")
	}
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			known, ok := spanCaseParams[c.Metric]
			if !ok {
				t.Fatalf("%s: span metric %q is not computed by Spans", c.file, c.Metric)
			}
			want := map[string]any{}
			for k, v := range c.Params {
				carried, ok := known[k]
				if !ok {
					t.Fatalf("%s: %s has no param %q", c.file, c.Metric, k)
				}
				if carried {
					want[k] = v
				}
			}
			table, labels := spanCaseTable(t, c)
			ref, _ := c.Params["reference"].(string)
			res := must(agreement.Spans(bg, table, labels, ref, agreement.Options{}))

			got, where, ok := spanFindMetric(res, c.Metric, want)
			if !ok {
				t.Fatalf("%s: no %s with params %v in the result:\n%s", c.file, c.Metric, want, spanJSON(t, res))
			}
			spanCompareExpected(t, c, got, where)
		})
	}
}

// spanFindMetric finds the metric named name whose params include want,
// at question level first, then in the pairs.
func spanFindMetric(res agreement.Result, name string, want map[string]any) (agreement.Metric, string, bool) {
	match := func(m agreement.Metric) bool {
		if m.Metric != name {
			return false
		}
		for k, v := range want {
			if !reflect.DeepEqual(m.Params[k], v) {
				return false
			}
		}
		return true
	}
	for _, m := range res.Metrics {
		if match(m) {
			return m, "question", true
		}
	}
	for _, p := range res.Pairs {
		for _, m := range p.Metrics {
			if match(m) {
				return m, "pair " + p.A + "–" + p.B, true
			}
		}
	}
	return agreement.Metric{}, "", false
}

func spanCompareExpected(t *testing.T, c spanCase, got agreement.Metric, where string) {
	t.Helper()
	var exp any
	if err := json.Unmarshal(c.Expected, &exp); err != nil {
		t.Fatalf("%s: expected: %v", c.file, err)
	}
	near := func(field string, want any, got float64) {
		w, ok := want.(float64)
		if !ok {
			t.Errorf("%s: expected %s is %v, not a number", c.file, field, want)
			return
		}
		if math.IsNaN(got) || math.Abs(got-w) > c.Tolerance {
			t.Errorf("%s (%s): %s = %v, want %v ± %v", c.Metric, where, field, got, w, c.Tolerance)
		}
	}
	switch e := exp.(type) {
	case nil:
		if got.Value != nil {
			t.Errorf("%s (%s) = %v, want undefined", c.Metric, where, got.Value)
		}
	case float64:
		v, ok := got.Value.(float64)
		if !ok {
			t.Fatalf("%s (%s) = %#v (note %q), want %v", c.Metric, where, got.Value, got.Note, e)
		}
		near("value", e, v)
	case map[string]any:
		switch v := got.Value.(type) {
		case agreement.PRF:
			spanSameKeys(t, c, e, "precision", "recall", "f1")
			near("precision", e["precision"], v.Precision)
			near("recall", e["recall"], v.Recall)
			near("f1", e["f1"], v.F1)
		case agreement.Pearson:
			spanSameKeys(t, c, e, "micro", "macro")
			near("micro", e["micro"], v.Micro)
			near("macro", e["macro"], v.Macro)
		default:
			t.Fatalf("%s (%s) = %#v (note %q), want %v", c.Metric, where, got.Value, got.Note, e)
		}
	default:
		t.Fatalf("%s: expected %v is of no form a span metric has", c.file, exp)
	}
}

func spanSameKeys(t *testing.T, c spanCase, e map[string]any, keys ...string) {
	t.Helper()
	for k := range e {
		if !slices.Contains(keys, k) {
			t.Errorf("%s: expected has %q, which %s does not report", c.file, k, c.Metric)
		}
	}
	for _, k := range keys {
		if _, ok := e[k]; !ok {
			t.Errorf("%s: expected has no %q", c.file, k)
		}
	}
}
