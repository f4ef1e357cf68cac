package agreement

import (
	"cmp"
	"slices"
)

// This file holds the comparisons of one answer with another that other
// packages need apart from a question's Result: a record against the
// answers it started from, or against known answers. They use the same
// matching as the question's metrics, so that a span "kept" or "found"
// means what span_f1 counts.

// PairSpans pairs the spans of a with those of b one to one by overlap,
// as span_f1 with match overlap does: every pair of spans sharing at
// least one character (and, when labels, the same label) is a candidate;
// candidates are taken from the largest overlap down, and one is kept
// when neither of its spans is paired yet. Ties go to the span that comes
// first by start, end and label, then by its place in its list. A span
// that covers no character pairs with nothing.
//
// It returns the pairs as indexes into a and b, sorted by the index in a.
func PairSpans(a, b []Span, labels bool) [][2]int {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	index := givenLabels(a, b, labels)
	ia, fromA := givenItems(a, index)
	ib, fromB := givenItems(b, index)
	var s spanScratch
	if !spanCandidates(ia, ib, &s) {
		return nil
	}
	kept := spanGreedy(ia, ib, &s, labels)
	if len(kept) == 0 {
		return nil
	}
	out := make([][2]int, len(kept))
	for k, c := range kept {
		out[k] = [2]int{fromA[c.i], fromB[c.j]}
	}
	slices.SortFunc(out, func(p, q [2]int) int { return cmp.Compare(p[0], q[0]) })
	return out
}

// PairF1 is the span F1 of two lists paired by PairSpans:
// 2·pairs / (len(a) + len(b)), what span_f1 {match: overlap} gives for
// two annotators on one unit. Two empty lists agree: 1, where span_f1
// has no value.
func PairF1(a, b []Span, labels bool) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	return 2 * float64(len(PairSpans(a, b, labels))) / float64(len(a)+len(b))
}

// JaccardIndex is |a∩b| / |a∪b| of two sets of codes, in any order,
// repeats ignored: 1 minus JaccardDistance. Two empty sets are equal: 1.
func JaccardIndex(a, b []string) float64 {
	a, b = normalSet(a), normalSet(b)
	return setSimilarity(Jaccard, len(a), len(b), setOverlap(a, b))
}

// givenLabels numbers the labels of a and b in sorted order, so that
// spans sort by start, end and label; with labels false, every span has
// label 0 (the map is nil).
func givenLabels(a, b []Span, labels bool) map[string]int {
	if !labels {
		return nil
	}
	var codes []string
	for _, sp := range slices.Concat(a, b) {
		codes = append(codes, sp.Label)
	}
	slices.Sort(codes)
	codes = slices.Compact(codes)
	index := make(map[string]int, len(codes))
	for i, c := range codes {
		index[c] = i
	}
	return index
}

// givenItems are the spans as spanOverlapPairs takes them, sorted by
// spanItemCompare (ties in list order), and for each its index in spans.
func givenItems(spans []Span, index map[string]int) (items []spanItem, from []int) {
	from = make([]int, len(spans))
	for i := range from {
		from[i] = i
	}
	item := func(i int) spanItem { return spanItem{spans[i].Start, spans[i].End, index[spans[i].Label]} }
	slices.SortStableFunc(from, func(p, q int) int { return spanItemCompare(item(p), item(q)) })
	items = make([]spanItem, len(spans))
	for k, i := range from {
		items[k] = item(i)
	}
	return items, from
}
