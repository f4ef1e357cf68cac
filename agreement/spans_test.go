package agreement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/agreement"
)

// spanL is a span in test tables: start, end, label.
func spanL(start, end int, label string) agreement.Span {
	return agreement.Span{Start: start, End: end, Label: label}
}

// spanNone is a complete unit with no span: an answer.
var spanNone = []agreement.Span{}

// spanTable builds a SpanTable from units given as unit ID, then one list
// per coder (nil: not completed).
func spanTable(coders []string, units ...spanRow) agreement.SpanTable {
	t := agreement.SpanTable{Coders: coders}
	for _, u := range units {
		t.Units = append(t.Units, agreement.SpanUnit{ID: u.id, Spans: u.spans})
	}
	return t
}

type spanRow struct {
	id    string
	spans [][]agreement.Span
}

func spanUnit(id string, lists ...[]agreement.Span) spanRow {
	return spanRow{id, lists}
}

// spanKey names a metric by its name and params, e.g.
// "span_f1 labels=true match=exact".
func spanKey(m agreement.Metric) string {
	keys := make([]string, 0, len(m.Params))
	for k := range m.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(m.Metric)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, m.Params[k])
	}
	return b.String()
}

func spanValues(ms []agreement.Metric) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		out[spanKey(m)] = m.Value
	}
	return out
}

// Keys of the metrics of a two-annotator question whose reference is A.
const (
	spanExactL   = "span_f1 labels=true match=exact"
	spanExactU   = "span_f1 labels=false match=exact"
	spanOverlapL = "span_f1 labels=true match=overlap"
	spanOverlapU = "span_f1 labels=false match=overlap"
	spanHardAB   = "span_char_overlap_prf hypothesis=B match=hard reference=A"
	spanSoftAB   = "span_char_overlap_prf hypothesis=B match=soft reference=A"
	spanPearsonK = "span_count_pearson"
)

var spanApprox = cmpopts.EquateApprox(0, 1e-12)

var spanAB = []string{"A", "B"}

func TestSpansHandComputed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		table     agreement.SpanTable
		labels    []string
		reference string
		// want holds the question's metrics to check, by spanKey.
		want map[string]any
		// notes holds, by spanKey, words the question metric's note must
		// hold.
		notes map[string]string
		// options holds, for labels listed, their metrics to check.
		options map[string]map[string]any
		// units, pairable and detail are checked when detail is not nil.
		units, pairable int
		detail          []agreement.UnitDetail
	}{{
		// Exact pairs one span of two; overlap pairs both. A marks 15
		// characters, B 11, all of them inside A's.
		name: "exact and overlap",
		table: spanTable(spanAB, spanUnit("u1",
			[]agreement.Span{spanL(0, 5, "X"), spanL(10, 20, "X")},
			[]agreement.Span{spanL(0, 5, "X"), spanL(12, 18, "X")})),
		labels: []string{"X"},
		want: map[string]any{
			spanExactL:   2 * 1.0 / 4,
			spanExactU:   2 * 1.0 / 4,
			spanOverlapL: 1.0,
			spanOverlapU: 1.0,
			spanHardAB:   agreement.PRF{Precision: 1, Recall: 11.0 / 15, F1: 22.0 / 26},
			spanSoftAB:   agreement.PRF{Precision: 1, Recall: 11.0 / 15, F1: 22.0 / 26},
		},
	}, {
		// The same offsets under another label: a pairing without labels,
		// none with them.
		name:   "label mismatch",
		table:  spanTable(spanAB, spanUnit("u1", []agreement.Span{spanL(0, 5, "X")}, []agreement.Span{spanL(0, 5, "Y")})),
		labels: []string{"X", "Y"},
		want: map[string]any{
			spanExactL:   0.0,
			spanExactU:   1.0,
			spanOverlapL: 0.0,
			spanOverlapU: 1.0,
			spanHardAB:   agreement.PRF{Precision: 0, Recall: 0, F1: 0},
			spanSoftAB:   agreement.PRF{Precision: 1, Recall: 1, F1: 1},
		},
		options: map[string]map[string]any{
			"X": {
				spanExactL:   0.0,
				spanOverlapL: 0.0,
				// B marked no X: precision taken as 0.
				spanHardAB: agreement.PRF{Precision: 0, Recall: 0, F1: 0},
			},
			"Y": {
				spanExactL: 0.0,
				spanHardAB: agreement.PRF{Precision: 0, Recall: 0, F1: 0},
			},
		},
	}, {
		// u1: A completed it and marked nothing, B marked a span: B's span
		// counts against F1. u3: A did not complete it, so it is not
		// pairable and B's span there counts for nothing.
		name: "one annotator marks nothing on a complete unit",
		table: spanTable(spanAB,
			spanUnit("u1", spanNone, []agreement.Span{spanL(3, 7, "X")}),
			spanUnit("u2", []agreement.Span{spanL(0, 5, "X")}, []agreement.Span{spanL(0, 5, "X")}),
			spanUnit("u3", nil, []agreement.Span{spanL(1, 2, "X")})),
		labels: []string{"X"},
		want: map[string]any{
			spanExactL:   2.0 / 3,
			spanOverlapL: 2.0 / 3,
			spanHardAB:   agreement.PRF{Precision: 5.0 / 9, Recall: 1, F1: 10.0 / 14},
		},
		units: 3, pairable: 4,
		detail: []agreement.UnitDetail{{Unit: "u1", Values: 2, Agree: false}, {Unit: "u2", Values: 2, Agree: true}},
	}, {
		// u2: both completed it and marked nothing: they agree, and it
		// adds no count.
		name: "both mark nothing",
		table: spanTable(spanAB,
			spanUnit("u1", []agreement.Span{spanL(0, 5, "X")}, []agreement.Span{spanL(0, 5, "X")}),
			spanUnit("u2", spanNone, spanNone)),
		labels: []string{"X"},
		want: map[string]any{
			spanExactL: 1.0,
			spanHardAB: agreement.PRF{Precision: 1, Recall: 1, F1: 1},
		},
		units: 2, pairable: 4,
		detail: []agreement.UnitDetail{{Unit: "u1", Values: 2, Agree: true}, {Unit: "u2", Values: 2, Agree: true}},
	}, {
		name:   "nobody marks anything",
		table:  spanTable(spanAB, spanUnit("u1", spanNone, spanNone), spanUnit("u2", spanNone, spanNone)),
		labels: []string{"X"},
		want: map[string]any{
			spanExactL:   nil,
			spanOverlapU: nil,
			spanHardAB:   nil,
			spanPearsonK: nil,
		},
		notes: map[string]string{
			spanExactL:   "no span",
			spanHardAB:   "no character",
			spanPearsonK: "no variation",
		},
		units: 2, pairable: 4,
		detail: []agreement.UnitDetail{{Unit: "u1", Values: 2, Agree: true}, {Unit: "u2", Values: 2, Agree: true}},
	}, {
		// A's first span overlaps both of B's: 9 characters with B1, 2 with
		// B2. Greedy by the largest overlap pairs A1–B1 first, which leaves
		// B2 with no partner (A2 overlaps B1 only, by one character), so one
		// pairing of a possible two.
		name: "greedy one-to-one overlap",
		table: spanTable(spanAB, spanUnit("u1",
			[]agreement.Span{spanL(0, 10, "X"), spanL(9, 20, "X")},
			[]agreement.Span{spanL(1, 10, "X"), spanL(0, 2, "X")})),
		labels: []string{"X"},
		want: map[string]any{
			spanExactL:   0.0,
			spanOverlapL: 2 * 1.0 / 4,
			spanOverlapU: 2 * 1.0 / 4,
			// Per character, min(A's spans, B's spans) covering it:
			// 0, 1, 2..8 and 9 once each = 10; A marks 21, B 11.
			spanSoftAB: agreement.PRF{Precision: 10.0 / 11, Recall: 10.0 / 21, F1: 20.0 / 32},
		},
	}, {
		// One of A's spans overlaps two of B's, by 4 and by 7 characters:
		// it pairs with the larger, and only once.
		name: "one span overlaps two",
		table: spanTable(spanAB, spanUnit("u1",
			[]agreement.Span{spanL(0, 10, "X")},
			[]agreement.Span{spanL(0, 4, "X"), spanL(3, 10, "X")})),
		labels: []string{"X"},
		want: map[string]any{
			spanOverlapL: 2 * 1.0 / 3,
			// Characters 3 is covered by both of B's spans but by one of
			// A's: 10 in common; B marks 11.
			spanHardAB: agreement.PRF{Precision: 10.0 / 11, Recall: 1, F1: 20.0 / 21},
		},
	}, {
		// Counts per (unit, label), Z declared and never used:
		//   A: X 1 2 0, Y 2 0 1, Z 0 0 0
		//   B: X 1 3 0, Y 1 1 2, Z 0 0 0
		// X: n=3, Σab=7, Σa=3, Σb=4, Σa²=5, Σb²=10:
		//    r = (21−12)/√((15−9)(30−16)) = 9/√84.
		// Y: Σab=4, Σa=3, Σb=4: 12−12 = 0, r = 0. Z does not vary: left
		// out of the mean. Pooled, n=9: Σab=11, Σa=6, Σb=8, Σa²=10, Σb²=16:
		//    r = (99−48)/√((90−36)(144−64)) = 51/√4320.
		name: "pearson by hand",
		table: spanTable(spanAB,
			spanUnit("u1",
				[]agreement.Span{spanL(0, 1, "X"), spanL(2, 3, "Y"), spanL(4, 5, "Y")},
				[]agreement.Span{spanL(0, 1, "X"), spanL(2, 3, "Y")}),
			spanUnit("u2",
				[]agreement.Span{spanL(0, 1, "X"), spanL(2, 3, "X")},
				[]agreement.Span{spanL(0, 1, "X"), spanL(2, 3, "X"), spanL(4, 5, "X"), spanL(6, 7, "Y")}),
			spanUnit("u3",
				[]agreement.Span{spanL(0, 1, "Y")},
				[]agreement.Span{spanL(0, 1, "Y"), spanL(2, 3, "Y")})),
		labels: []string{"X", "Y", "Z"},
		want: map[string]any{
			spanPearsonK: agreement.Pearson{Micro: 51 / math.Sqrt(4320), Macro: (9/math.Sqrt(84) + 0) / 2},
		},
		// Per label, r over that label's counts per unit, micro and macro
		// alike (factgenie's per-category r); Z, never used, has none.
		options: map[string]map[string]any{
			"X": {spanPearsonK: agreement.Pearson{Micro: 9 / math.Sqrt(84), Macro: 9 / math.Sqrt(84)}},
			"Y": {spanPearsonK: agreement.Pearson{}},
			"Z": {spanPearsonK: nil},
		},
	}, {
		// Reference A marks 10 characters, B 4 of them.
		name:   "directional: reference A",
		table:  spanTable(spanAB, spanUnit("u1", []agreement.Span{spanL(0, 10, "X")}, []agreement.Span{spanL(0, 4, "X")})),
		labels: []string{"X"},
		want: map[string]any{
			spanHardAB: agreement.PRF{Precision: 1, Recall: 0.4, F1: 8.0 / 14},
		},
	}, {
		name:      "directional: reference B",
		table:     spanTable(spanAB, spanUnit("u1", []agreement.Span{spanL(0, 10, "X")}, []agreement.Span{spanL(0, 4, "X")})),
		labels:    []string{"X"},
		reference: "B",
		want: map[string]any{
			"span_char_overlap_prf hypothesis=A match=hard reference=B": agreement.PRF{Precision: 0.4, Recall: 1, F1: 8.0 / 14},
		},
	}, {
		// factgenie tests/test_f1.py test_simple_overlap_hard_match: the
		// second unit's spans differ in label, so hard finds nothing there.
		name: "factgenie simple overlap, hard",
		table: spanTable(spanAB,
			spanUnit("0", []agreement.Span{spanL(0, 10, "typeA")}, []agreement.Span{spanL(0, 5, "typeA")}),
			spanUnit("1", []agreement.Span{spanL(5, 15, "typeB")}, []agreement.Span{spanL(0, 10, "typeA")})),
		labels: []string{"typeA", "typeB"},
		want: map[string]any{
			spanHardAB: agreement.PRF{Precision: 5.0 / 15, Recall: 5.0 / 20, F1: 2 * 5.0 / 35},
		},
	}, {
		// factgenie tests/test_f1.py test_category_breakdown.
		name: "factgenie category breakdown",
		table: spanTable(spanAB, spanUnit("0",
			[]agreement.Span{spanL(0, 5, "A"), spanL(10, 15, "B")},
			[]agreement.Span{spanL(0, 5, "A"), spanL(10, 12, "B")})),
		labels: []string{"A", "B"},
		want: map[string]any{
			spanHardAB: agreement.PRF{Precision: 1, Recall: 0.7, F1: 14.0 / 17},
		},
		options: map[string]map[string]any{
			"A": {spanHardAB: agreement.PRF{Precision: 1, Recall: 1, F1: 1}},
			"B": {spanHardAB: agreement.PRF{Precision: 1, Recall: 0.4, F1: 4.0 / 7}},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := must(agreement.Spans(bg, tt.table, tt.labels, tt.reference, agreement.Options{}))
			spanCheck(t, "question", res.Metrics, tt.want)
			for k, words := range tt.notes {
				i := slices.IndexFunc(res.Metrics, func(m agreement.Metric) bool { return spanKey(m) == k })
				if i < 0 || !strings.Contains(res.Metrics[i].Note, words) {
					t.Errorf("%s: want a note saying %q in %s", k, words, spanJSON(t, res.Metrics))
				}
			}
			for code, want := range tt.options {
				i := slices.IndexFunc(res.Options, func(o agreement.Option) bool { return o.Code == code })
				if i < 0 {
					t.Errorf("no option %q in %v", code, res.Options)
					continue
				}
				spanCheck(t, "option "+code, res.Options[i].Metrics, want)
			}
			if tt.detail != nil {
				if res.Units != tt.units || res.Pairable != tt.pairable {
					t.Errorf("units, pairable = %d, %d, want %d, %d", res.Units, res.Pairable, tt.units, tt.pairable)
				}
				if diff := cmp.Diff(tt.detail, res.UnitsDetail); diff != "" {
					t.Errorf("units detail (-want +got):\n%s", diff)
				}
			}
			// Two annotators: the pair's metrics are the question's.
			if diff := cmp.Diff([]agreement.Pair{{A: "A", B: "B", Metrics: res.Metrics}}, res.Pairs); diff != "" {
				t.Errorf("pairs (-want +got):\n%s", diff)
			}
		})
	}
}

// spanCheck compares the metrics of ms named in want; an undefined one
// must say why.
func spanCheck(t *testing.T, where string, ms []agreement.Metric, want map[string]any) {
	t.Helper()
	got := spanValues(ms)
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: no metric %s in %v", where, k, slices.Sorted(func(yield func(string) bool) {
				for k := range got {
					if !yield(k) {
						return
					}
				}
			}))
			continue
		}
		if diff := cmp.Diff(w, g, spanApprox); diff != "" {
			t.Errorf("%s: %s (-want +got):\n%s", where, k, diff)
		}
	}
	for _, m := range ms {
		if m.Value == nil && m.Note == "" {
			t.Errorf("%s: %s is undefined with no note", where, spanKey(m))
		}
	}
}

func TestSpansThreeAnnotators(t *testing.T) {
	t.Parallel()
	// a and b mark the same span, c one a character shorter.
	table := spanTable([]string{"a", "b", "c"}, spanUnit("u1",
		[]agreement.Span{spanL(0, 5, "X")},
		[]agreement.Span{spanL(0, 5, "X")},
		[]agreement.Span{spanL(0, 4, "X")}))
	res := must(agreement.Spans(bg, table, []string{"X"}, "b", agreement.Options{}))

	if got := []string{res.Pairs[0].A + res.Pairs[0].B, res.Pairs[1].A + res.Pairs[1].B, res.Pairs[2].A + res.Pairs[2].B}; !slices.Equal(got, []string{"ab", "ac", "bc"}) || len(res.Pairs) != 3 {
		t.Fatalf("pairs %v, want ab, ac, bc", got)
	}
	spanCheck(t, "pair a–b", res.Pairs[0].Metrics, map[string]any{
		spanExactL: 1.0,
		// b is the reference.
		"span_char_overlap_prf hypothesis=a match=hard reference=b": agreement.PRF{Precision: 1, Recall: 1, F1: 1},
	})
	spanCheck(t, "pair a–c", res.Pairs[1].Metrics, map[string]any{
		spanExactL:   0.0,
		spanOverlapL: 1.0,
		// Neither is the reference: a, first of the pair, is.
		"span_char_overlap_prf hypothesis=c match=hard reference=a": agreement.PRF{Precision: 1, Recall: 0.8, F1: 8.0 / 9},
	})
	spanCheck(t, "pair b–c", res.Pairs[2].Metrics, map[string]any{
		"span_char_overlap_prf hypothesis=c match=hard reference=b": agreement.PRF{Precision: 1, Recall: 0.8, F1: 8.0 / 9},
	})
	// The question: span_f1 the mean over the three pairs; character
	// P/R/F1 the mean over the reference's two pairs.
	spanCheck(t, "question", res.Metrics, map[string]any{
		spanExactL:   1.0 / 3,
		spanOverlapL: 1.0,
		"span_char_overlap_prf hypothesis=[a c] match=hard reference=b": agreement.PRF{Precision: 1, Recall: 0.9, F1: (1 + 8.0/9) / 2},
	})
	if diff := cmp.Diff([]agreement.UnitDetail{{Unit: "u1", Values: 3, Agree: false}}, res.UnitsDetail); diff != "" {
		t.Errorf("units detail (-want +got):\n%s", diff)
	}
	if res.Metrics[0].Metric != "span_f1" || spanKey(res.Metrics[0]) != spanExactL {
		t.Errorf("headline %s, want %s", spanKey(res.Metrics[0]), spanExactL)
	}
}

// TestSpansPairsThatShareNoUnit: a pair of annotators with no unit in
// common is no pair: not listed, and left out of the question's means,
// whose notes say so.
func TestSpansPairsThatShareNoUnit(t *testing.T) {
	t.Parallel()
	x := []agreement.Span{spanL(0, 5, "X")}
	y := []agreement.Span{spanL(0, 5, "Y")}
	// a and c never complete the same unit; b agrees with a and not with c.
	table := spanTable([]string{"a", "b", "c"},
		spanUnit("u1", x, x, nil),
		spanUnit("u2", nil, x, y))
	res := must(agreement.Spans(bg, table, []string{"X", "Y"}, "", agreement.Options{}))
	spanCheck(t, "question", res.Metrics, map[string]any{
		spanExactL: (1.0 + 0.0) / 2,
		spanExactU: 1.0,
		// a is the reference, and a–b its only pair: its value.
		"span_char_overlap_prf hypothesis=b match=hard reference=a": agreement.PRF{Precision: 1, Recall: 1, F1: 1},
	})
	var pairs []string
	for _, p := range res.Pairs {
		pairs = append(pairs, p.A+"–"+p.B)
	}
	if want := []string{"a–b", "b–c"}; !slices.Equal(pairs, want) {
		t.Errorf("pairs %v, want %v", pairs, want)
	}
	for _, m := range res.Metrics {
		want := "left out: 1 pair of annotators that share no unit"
		if m.Metric == "span_char_overlap_prf" {
			want = "left out: 1 annotator who shares no unit with the reference"
		}
		if !strings.Contains(m.Note, want) {
			t.Errorf("%s: note %q does not say %q", spanKey(m), m.Note, want)
		}
	}
}

func TestSpansUndefined(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		table agreement.SpanTable
		ref   string
	}{
		{"no annotator", agreement.SpanTable{}, ""},
		{"one annotator", spanTable([]string{"A"}, spanUnit("u1", []agreement.Span{spanL(0, 1, "X")})), ""},
		{"no common unit", spanTable(spanAB,
			spanUnit("u1", []agreement.Span{spanL(0, 1, "X")}, nil),
			spanUnit("u2", nil, []agreement.Span{spanL(0, 1, "X")})), ""},
		{"reference not an annotator", spanTable(spanAB, spanUnit("u1", []agreement.Span{spanL(0, 1, "X")}, []agreement.Span{spanL(0, 1, "X")})), "Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := must(agreement.Spans(bg, tt.table, []string{"X"}, tt.ref, agreement.Options{}))
			if len(res.Metrics) != 7 {
				t.Fatalf("%d metrics, want 7: %s", len(res.Metrics), spanJSON(t, res))
			}
			for _, m := range append(slices.Clone(res.Metrics), res.Options[0].Metrics...) {
				if tt.ref == "Z" && m.Metric != "span_char_overlap_prf" {
					continue
				}
				if m.Value != nil || m.Note == "" {
					t.Errorf("%s = %v, note %q: want undefined, with a note", spanKey(m), m.Value, m.Note)
				}
			}
			if _, err := json.Marshal(res); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// spanJSON is v as the report writes it.
func spanJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bg is the context of computations that nothing stops.
var bg = context.Background()

// must is the Result of a computation that nothing stops, which has no
// error.
func must(res agreement.Result, err error) agreement.Result {
	if err != nil {
		panic(err)
	}
	return res
}
