package agreement

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Spans computes the agreement of a span question. labels are the codes
// of the question's declared labels (empty for a question without labels);
// reference is the annotator whose spans count as the reference in the
// directional metrics, the first annotator in sorted order when "".
//
// Metrics, each for a pair of annotators (see Result for how pairs make
// the question's values), the headline first:
//
//   - span_f1 {match: exact, labels: true}, then labels: false, then
//     match: overlap with labels true and false. Spans pair one to one:
//     with exact, by the same start and end (and label); with overlap,
//     greedily by the largest number of characters in common, when they
//     share at least one (and, with labels, the same label). F1 =
//     2·paired / (A's spans + B's spans), which is 2PR/(P+R) with either
//     annotator as the reference, so span_f1 has no direction.
//   - span_char_overlap_prf {match: hard | soft, reference, hypothesis}:
//     the character-level precision, recall and F1 of factgenie's
//     compute_f1_scores (ufal/factgenie, factgenie/iaa/f1.py):
//     P = characters in common / characters the hypothesis marked,
//     R = characters in common / characters the reference marked, with a
//     character in common as often as the smaller number of spans of the
//     two annotators covering it (per label under hard, whatever the
//     labels under soft); a span's characters count once per span.
//   - span_count_pearson: Pearson's r between the two annotators' counts
//     of spans per (unit, label), declared labels with no span counting 0;
//     micro pools every (unit, label), macro is the mean of r per label.
//
// Counts are pooled over units (micro-averaging): spans, pairings and
// characters are summed over every unit the two annotators both
// completed, then P, R and F1 are computed once. A unit with many spans
// therefore weighs more than a unit with few, and a unit where both marked
// nothing adds nothing, where a mean of per-unit F1 would have to invent a
// value for it.
//
// Unlike factgenie, which adds a unit's characters only when both
// annotators marked a span in it, a complete unit with no span is an
// answer here: the other annotator's spans in it count against precision
// or recall. Where a directional denominator is 0 but not both, the
// precision (or recall) is taken as 0, as factgenie does, and the metric's
// note says so; when neither annotator marked a character, or a count is
// 0 where an F1 needs it, the value is nil with a note.
//
// Options hold, per label (declared first, in their order, then any other
// label found in the spans, sorted), span_f1 exact and overlap with labels
// and span_char_overlap_prf hard, restricted to that label's spans, and
// span_count_pearson over that label's counts per unit, as factgenie
// reports it per category (ufal/factgenie, factgenie/iaa/pearson.py): a
// Pearson whose micro and macro are both the label's r, since pooling the
// counts of one label and averaging r over one label give the same.
// UnitsDetail lists the units at least two annotators completed; they
// agree when every one of them marked the same spans with the same labels.
func Spans(t SpanTable, labels []string, reference string) Result {
	coders, order := spanSortedCoders(t.Coders)
	units := spanSortedUnits(t.Units)
	codes, index := spanLabels(labels, units)
	if reference == "" && len(coders) > 0 {
		reference = coders[0]
	}

	nPairs := len(coders) * (len(coders) - 1) / 2
	accs := make([]spanPairAcc, nPairs)
	for k := range accs {
		accs[k] = spanPairAcc{
			perLabel: make([]spanCounts, len(codes)),
			pearson:  make([]spanPearsonSums, len(codes)),
		}
	}

	res := Result{
		Annotators:  coders,
		Metrics:     []Metric{},
		Pairs:       []Pair{},
		UnitsDetail: make([]UnitDetail, 0, len(units)),
	}
	var s spanScratch
	lists := make([]spanList, len(coders))
	done := make([]bool, len(coders))
	var items []spanItem
	var edges []spanEdge
	for _, u := range units {
		// This unit's lists in sorted coder order; done says which coders
		// completed it (an empty list is an answer).
		items, edges = items[:0], edges[:0]
		values := 0
		for c, from := range order {
			list := u.List(from)
			done[c] = list != nil
			if !done[c] {
				continue
			}
			values++
			at, atEdge := len(items), len(edges)
			for _, sp := range list {
				x := spanItem{sp.Start, sp.End, index[sp.Label]}
				items = append(items, x)
				if x.end > x.start {
					edges = append(edges, spanEdge{x.start, x.label, +1}, spanEdge{x.end, x.label, -1})
				}
			}
			l := spanList{items: items[at:len(items):len(items)], edges: edges[atEdge:len(edges):len(edges)]}
			slices.SortFunc(l.items, spanItemCompare)
			slices.SortFunc(l.edges, func(p, q spanEdge) int { return cmp.Compare(p.pos, q.pos) })
			lists[c] = l
		}
		if values > 0 {
			res.Units++
		}
		if values < 2 {
			continue
		}
		res.Pairable += values
		res.UnitsDetail = append(res.UnitsDetail, UnitDetail{Unit: u.ID, Values: values, Agree: spanAllEqual(lists, done)})
		k := 0
		for i := range coders {
			for j := i + 1; j < len(coders); j++ {
				if done[i] && done[j] {
					accs[k].units++
					spanComparePair(lists[i], lists[j], &accs[k], &s)
				}
				k++
			}
		}
	}

	pairs := make([]spanPairResult, 0, nPairs)
	k := 0
	for i := range coders {
		for j := i + 1; j < len(coders); j++ {
			pairs = append(pairs, accs[k].result(coders[i], coders[j], reference, codes))
			k++
		}
	}
	for _, p := range pairs {
		res.Pairs = append(res.Pairs, Pair{A: p.a, B: p.b, Metrics: p.metrics})
	}
	if len(pairs) == 0 {
		// No pair to compare: the metrics a pair would have, undefined.
		none := spanPairAcc{perLabel: make([]spanCounts, len(codes)), pearson: make([]spanPearsonSums, len(codes))}
		pairs = []spanPairResult{none.result(reference, "", reference, codes)}
		pairs[0].undefined("fewer than two annotators")
	}
	res.Metrics = spanQuestionMetrics(reference, pairs, func(p spanPairResult) []Metric { return p.metrics })
	if !(len(codes) == 1 && codes[0] == "") {
		for l, code := range codes {
			res.Options = append(res.Options, Option{
				Code:    code,
				Metrics: spanQuestionMetrics(reference, pairs, func(p spanPairResult) []Metric { return p.labels[l] }),
			})
		}
	}
	return res
}

// spanSortedCoders returns the coders sorted, and for each the index of
// its column in the table, so that a table whose coders are not sorted
// gives the same result as the same table sorted.
func spanSortedCoders(coders []string) (sorted []string, from []int) {
	from = make([]int, len(coders))
	for i := range from {
		from[i] = i
	}
	slices.SortStableFunc(from, func(a, b int) int { return strings.Compare(coders[a], coders[b]) })
	sorted = make([]string, len(coders))
	for i, f := range from {
		sorted[i] = coders[f]
	}
	return sorted, from
}

// spanSortedUnits returns the units sorted by ID, the table itself when it
// already is, as the contract asks.
func spanSortedUnits(units []SpanUnit) []SpanUnit {
	if slices.IsSortedFunc(units, func(a, b SpanUnit) int { return strings.Compare(a.ID, b.ID) }) {
		return units
	}
	sorted := slices.Clone(units)
	slices.SortStableFunc(sorted, func(a, b SpanUnit) int { return strings.Compare(a.ID, b.ID) })
	return sorted
}

// spanLabels returns the label codes the metrics count: the declared ones
// in their order, then any other label the spans carry, sorted (spans are
// never dropped for a label the caller did not declare); and each code's
// index. A question without labels has the one label "".
func spanLabels(declared []string, units []SpanUnit) ([]string, map[string]int) {
	index := make(map[string]int, len(declared))
	var codes []string
	for _, c := range declared {
		if _, ok := index[c]; !ok {
			index[c] = len(codes)
			codes = append(codes, c)
		}
	}
	var extra []string
	seen := map[string]bool{}
	for _, u := range units {
		for _, list := range u.All() {
			for _, sp := range list {
				if _, ok := index[sp.Label]; !ok && !seen[sp.Label] {
					seen[sp.Label] = true
					extra = append(extra, sp.Label)
				}
			}
		}
	}
	slices.Sort(extra)
	for _, c := range extra {
		index[c] = len(codes)
		codes = append(codes, c)
	}
	return codes, index
}

// spanAllEqual says whether the lists of every coder done are the same.
func spanAllEqual(lists []spanList, done []bool) bool {
	var first []spanItem
	seen := false
	for c, l := range lists {
		if !done[c] {
			continue
		}
		if !seen {
			first, seen = l.items, true
			continue
		}
		if !slices.Equal(first, l.items) {
			return false
		}
	}
	return true
}

// spanPairAcc is what one pair of annotators adds up over the units both
// completed. labeled and unlabeled hold the pairings and characters in
// common with labels compared and without; the spans and characters each
// annotator marked are the sums of perLabel's.
type spanPairAcc struct {
	units     int64
	labeled   spanCounts
	unlabeled spanCounts
	perLabel  []spanCounts
	pearson   []spanPearsonSums
}

// spanPairResult is one pair's metrics, and its metrics per label (in the
// order of the question's label codes).
type spanPairResult struct {
	a, b    string
	metrics []Metric
	labels  [][]Metric
}

// result makes a pair's metrics from what it added up; a and b are the
// pair's annotators, in sorted order.
func (acc *spanPairAcc) result(a, b, reference string, codes []string) spanPairResult {
	labeled, unlabeled := acc.labeled, acc.unlabeled
	for _, c := range acc.perLabel {
		for _, t := range []*spanCounts{&labeled, &unlabeled} {
			t.nA += c.nA
			t.nB += c.nB
			t.lenA += c.lenA
			t.lenB += c.lenB
		}
	}
	// The pair's direction for the character metrics: the reference when
	// it is one of the two, A otherwise.
	ref, hyp, refIsA := a, b, true
	if b == reference {
		ref, hyp, refIsA = b, a, false
	}
	none := ""
	if acc.units == 0 {
		none = "no unit that both annotators completed"
	}
	p := spanPairResult{a: a, b: b}
	p.metrics = []Metric{
		spanF1Metric("exact", true, labeled.exact, labeled, none),
		spanF1Metric("exact", false, unlabeled.exact, unlabeled, none),
		spanF1Metric("overlap", true, labeled.overlap, labeled, none),
		spanF1Metric("overlap", false, unlabeled.overlap, unlabeled, none),
		spanCharMetric("hard", ref, hyp, refIsA, labeled, none),
		spanCharMetric("soft", ref, hyp, refIsA, unlabeled, none),
	}
	pm := spanPearsonMetric(acc.units, acc.pearson)
	if none != "" {
		pm.Value, pm.Note = nil, none
	}
	p.metrics = append(p.metrics, pm)
	p.labels = make([][]Metric, len(codes))
	for l := range codes {
		c := acc.perLabel[l]
		p.labels[l] = []Metric{
			spanF1Metric("exact", true, c.exact, c, none),
			spanF1Metric("overlap", true, c.overlap, c, none),
			spanCharMetric("hard", ref, hyp, refIsA, c, none),
			spanLabelPearsonMetric(acc.units, acc.pearson[l], none),
		}
	}
	return p
}

// spanF1Metric is span_f1 from pooled counts: F1 = 2·paired / (nA + nB),
// nil when neither annotator marked a span.
func spanF1Metric(match string, labels bool, paired int64, c spanCounts, none string) Metric {
	m := Metric{Metric: "span_f1", Params: map[string]any{"match": match, "labels": labels}}
	switch {
	case none != "":
		m.Note = none
	case c.nA+c.nB == 0:
		m.Note = "no span in the units both annotators completed"
	default:
		m.Value = 2 * float64(paired) / float64(c.nA+c.nB)
	}
	return m
}

// spanCharMetric is span_char_overlap_prf from pooled counts, in the
// pair's direction.
func spanCharMetric(match, ref, hyp string, refIsA bool, c spanCounts, none string) Metric {
	m := Metric{Metric: "span_char_overlap_prf", Params: map[string]any{"match": match, "reference": ref, "hypothesis": hyp}}
	refLen, hypLen := c.lenA, c.lenB
	if !refIsA {
		refLen, hypLen = c.lenB, c.lenA
	}
	switch {
	case none != "":
		m.Note = none
		return m
	case refLen == 0 && hypLen == 0:
		m.Note = "no character marked in the units both annotators completed"
		return m
	}
	var v PRF
	if hypLen > 0 {
		v.Precision = float64(c.chars) / float64(hypLen)
	} else {
		m.Note = "precision taken as 0: the hypothesis marked no character"
	}
	if refLen > 0 {
		v.Recall = float64(c.chars) / float64(refLen)
	} else {
		m.Note = "recall taken as 0: the reference marked no character"
	}
	// 2PR/(P+R) written on the counts: the same value, with no 0/0.
	v.F1 = 2 * float64(c.chars) / float64(refLen+hypLen)
	m.Value = v
	return m
}

// spanQuestionMetrics makes a question's metrics from its pairs' (pick
// chooses which list of each pair): with two annotators, the one pair's;
// with more, each metric is the mean over the pairs where it is defined,
// except span_char_overlap_prf, whose direction matters: its mean runs
// over the pairs of the reference with each other annotator, whom
// params.hypothesis lists.
func spanQuestionMetrics(reference string, pairs []spanPairResult, pick func(spanPairResult) []Metric) []Metric {
	if len(pairs) == 1 && (reference == pairs[0].a || reference == pairs[0].b) {
		return slices.Clone(pick(pairs[0]))
	}
	var withRef []spanPairResult
	var hyps []string
	for _, p := range pairs {
		switch reference {
		case p.a:
			withRef, hyps = append(withRef, p), append(hyps, p.b)
		case p.b:
			withRef, hyps = append(withRef, p), append(hyps, p.a)
		}
	}
	proto := pick(pairs[0])
	out := make([]Metric, len(proto))
	for k, m := range proto {
		from, params := pairs, m.Params
		if m.Metric == "span_char_overlap_prf" {
			from = withRef
			params = map[string]any{"match": m.Params["match"], "reference": reference, "hypothesis": slices.Clip(hyps)}
			if len(withRef) == 0 {
				out[k] = Metric{Metric: m.Metric, Params: params, Note: "the reference " + reference + " is not an annotator of this question"}
				continue
			}
		}
		if len(from) == 1 {
			out[k] = pick(from[0])[k]
			continue
		}
		ms := make([]Metric, len(from))
		names := make([]string, len(from))
		for i, p := range from {
			ms[i] = pick(p)[k]
			names[i] = p.a + "–" + p.b
		}
		out[k] = spanMean(m.Metric, params, ms, names)
	}
	return out
}

// undefined makes every metric of p nil, with note.
func (p *spanPairResult) undefined(note string) {
	for _, list := range append([][]Metric{p.metrics}, p.labels...) {
		for i := range list {
			list[i].Value, list[i].Note = nil, note
		}
	}
}

// spanMean is the mean of one metric over pairs, in pair order: of the
// value for float64, and of each field for PRF and Pearson. Pairs where
// the metric is undefined are left out, and the note says how many; the
// pairs' own notes follow, each with the pairs it is of.
func spanMean(name string, params map[string]any, ms []Metric, names []string) Metric {
	out := Metric{Metric: name, Params: params}
	var f, p, r, f1, mi, ma float64
	var kind any
	n := 0
	var notes []string
	pairsOf := map[string][]string{}
	for i, m := range ms {
		if m.Note != "" {
			if pairsOf[m.Note] == nil {
				notes = append(notes, m.Note)
			}
			pairsOf[m.Note] = append(pairsOf[m.Note], names[i])
		}
		switch v := m.Value.(type) {
		case float64:
			f += v
		case PRF:
			p += v.Precision
			r += v.Recall
			f1 += v.F1
		case Pearson:
			mi += v.Micro
			ma += v.Macro
		default:
			continue
		}
		kind = m.Value
		n++
	}
	var say []string
	switch {
	case n == 0:
		say = append(say, "undefined for every pair")
	case n < len(ms):
		say = append(say, fmt.Sprintf("mean over the %d of %d pairs where it is defined", n, len(ms)))
	}
	for _, note := range notes {
		say = append(say, strings.Join(pairsOf[note], ", ")+": "+note)
	}
	out.Note = strings.Join(say, "; ")
	if n == 0 {
		return out
	}
	d := float64(n)
	switch kind.(type) {
	case float64:
		out.Value = f / d
	case PRF:
		out.Value = PRF{Precision: p / d, Recall: r / d, F1: f1 / d}
	case Pearson:
		out.Value = Pearson{Micro: mi / d, Macro: ma / d}
	}
	return out
}
