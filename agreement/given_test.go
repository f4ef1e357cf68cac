package agreement_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/agreement"
)

func TestPairSpans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		a, b   []agreement.Span
		labels bool
		want   [][2]int
	}{
		{"no spans", nil, nil, true, nil},
		{"one side empty", []agreement.Span{spanL(0, 5, "X")}, nil, true, nil},
		{"the larger overlap wins",
			[]agreement.Span{spanL(0, 10, "X")},
			[]agreement.Span{spanL(0, 3, "X"), spanL(5, 10, "X")}, true,
			[][2]int{{0, 1}}},
		// Candidates: a0–b0 8 characters, a0–b1 3, a1–b0 4. Greedy takes
		// a0–b0 and then nothing, where a0–b1 and a1–b0 would be two.
		{"greedy, not the most pairs",
			[]agreement.Span{spanL(0, 10, "X"), spanL(8, 12, "X")},
			[]agreement.Span{spanL(2, 12, "X"), spanL(0, 3, "X")}, true,
			[][2]int{{0, 0}}},
		{"labels differ: no pair",
			[]agreement.Span{spanL(0, 10, "X")},
			[]agreement.Span{spanL(0, 10, "Y")}, true,
			nil},
		{"labels ignored",
			[]agreement.Span{spanL(0, 10, "X")},
			[]agreement.Span{spanL(0, 10, "Y")}, false,
			[][2]int{{0, 0}}},
		// Under labels b0 (the larger overlap) is of another label: a0
		// takes b1.
		{"the larger overlap of another label is skipped",
			[]agreement.Span{spanL(0, 10, "X")},
			[]agreement.Span{spanL(0, 9, "Y"), spanL(5, 12, "X")}, true,
			[][2]int{{0, 1}}},
		{"indexes are the lists' own, sorted by a",
			[]agreement.Span{spanL(20, 25, "X"), spanL(0, 5, "X")},
			[]agreement.Span{spanL(1, 4, "X"), spanL(21, 30, "X")}, true,
			[][2]int{{0, 1}, {1, 0}}},
		// Both of b share 2 characters with a0: the one that starts first
		// wins, though it comes second in b.
		{"a tie goes to the span that sorts first",
			[]agreement.Span{spanL(0, 4, "X")},
			[]agreement.Span{spanL(2, 6, "X"), spanL(0, 2, "X")}, true,
			[][2]int{{0, 1}}},
		{"a tie of equal spans goes to the first listed",
			[]agreement.Span{spanL(0, 4, "X"), spanL(0, 4, "X")},
			[]agreement.Span{spanL(1, 3, "X")}, true,
			[][2]int{{0, 0}}},
		{"touching spans share no character",
			[]agreement.Span{spanL(0, 5, "X")},
			[]agreement.Span{spanL(5, 9, "X")}, true,
			nil},
		{"a span of no character pairs with nothing",
			[]agreement.Span{spanL(3, 3, "X")},
			[]agreement.Span{spanL(0, 5, "X")}, true,
			nil},
		{"one to one",
			[]agreement.Span{spanL(0, 10, "X"), spanL(2, 8, "X")},
			[]agreement.Span{spanL(0, 10, "X"), spanL(20, 30, "X")}, true,
			[][2]int{{0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := agreement.PairSpans(tt.a, tt.b, tt.labels)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PairSpans (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPairF1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		a, b   []agreement.Span
		labels bool
		want   float64
	}{
		{"both empty agree", nil, []agreement.Span{}, true, 1},
		{"one empty", []agreement.Span{spanL(0, 5, "X")}, nil, true, 0},
		{"same spans", []agreement.Span{spanL(0, 5, "X"), spanL(7, 9, "Y")}, []agreement.Span{spanL(7, 9, "Y"), spanL(0, 5, "X")}, true, 1},
		// 2 and 3 spans, one pair: 2·1/5.
		{"one of five paired",
			[]agreement.Span{spanL(0, 5, "X"), spanL(10, 15, "Y")},
			[]agreement.Span{spanL(2, 7, "X"), spanL(10, 15, "X"), spanL(30, 31, "Y")}, true,
			0.4},
		// Without labels a1–b1 pairs too: 2·2/5.
		{"labels ignored",
			[]agreement.Span{spanL(0, 5, "X"), spanL(10, 15, "Y")},
			[]agreement.Span{spanL(2, 7, "X"), spanL(10, 15, "X"), spanL(30, 31, "Y")}, false,
			0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := agreement.PairF1(tt.a, tt.b, tt.labels); math.Abs(got-tt.want) > 1e-15 {
				t.Errorf("PairF1 = %v, want %v", got, tt.want)
			}
		})
	}
}

// givenRandomSpans is up to 7 spans in 40 characters, some of no
// character, labelled X or Y: dense enough that many overlap.
func givenRandomSpans(r *rand.Rand) []agreement.Span {
	list := []agreement.Span{}
	for range r.IntN(8) {
		start := r.IntN(40)
		list = append(list, spanL(start, start+r.IntN(15), []string{"X", "Y"}[r.IntN(2)]))
	}
	return list
}

// TestPairF1AsSpans checks PairF1 against span_f1 {match: overlap} of
// Spans on a table of two annotators and one unit, with labels and
// without.
func TestPairF1AsSpans(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(31, 2))
	partial := 0 // lists some but not all of whose spans pair
	for k := range 500 {
		a, b := givenRandomSpans(r), givenRandomSpans(r)
		table := spanTable(spanAB, spanUnit(fmt.Sprintf("u%d", k), a, b))
		got := spanValues(must(agreement.Spans(bg, table, []string{"X", "Y"}, "A", agreement.Options{})).Metrics)
		for key, labels := range map[string]bool{spanOverlapL: true, spanOverlapU: false} {
			f1 := agreement.PairF1(a, b, labels)
			want, ok := got[key].(float64)
			if !ok {
				// Spans has no value without a span; PairF1 says 1.
				if len(a)+len(b) != 0 || f1 != 1 {
					t.Errorf("%v vs %v: %s is %v, PairF1 %v", a, b, key, got[key], f1)
				}
				continue
			}
			if f1 > 0 && f1 < 1 {
				partial++
			}
			if f1 != want {
				t.Errorf("%v vs %v: PairF1(labels %v) = %v, %s = %v", a, b, labels, f1, key, want)
			}
			if n := len(agreement.PairSpans(a, b, labels)); 2*float64(n)/float64(len(a)+len(b)) != f1 {
				t.Errorf("%v vs %v: %d pairs, PairF1 %v", a, b, n, f1)
			}
		}
	}
	if partial < 200 {
		t.Errorf("only %d comparisons of 1000 pair some spans but not all: the random lists test too little", partial)
	}
}

func TestJaccardIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 1},
		{nil, []string{}, 1},
		{[]string{"a"}, nil, 0},
		{[]string{"a"}, []string{"a"}, 1},
		{[]string{"a", "b"}, []string{"b", "c"}, 1.0 / 3},
		{[]string{"b", "a", "a"}, []string{"a", "b"}, 1},
		{[]string{"a", "b", "c", "d"}, []string{"d"}, 1.0 / 4},
		{[]string{"a"}, []string{"b"}, 0},
	}
	for _, tt := range tests {
		got := agreement.JaccardIndex(tt.a, tt.b)
		if got != tt.want {
			t.Errorf("JaccardIndex(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if back := agreement.JaccardIndex(tt.b, tt.a); back != got {
			t.Errorf("JaccardIndex(%q, %q) = %v, but %v the other way", tt.a, tt.b, got, back)
		}
		if d := agreement.JaccardDistance(tt.a, tt.b); math.Abs(1-d-got) > 1e-15 {
			t.Errorf("JaccardIndex(%q, %q) = %v, JaccardDistance %v", tt.a, tt.b, got, d)
		}
	}
}
