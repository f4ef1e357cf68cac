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
func Spans(t SpanTable, labels []string, reference string, opt Options) Result {
	return spans(t, labels, reference, opt, spanUnitMajorSums)
}

// spans is Spans, adding up every pair unit by unit when their sums are
// at most byUnitSums, and pair by pair otherwise.
func spans(t SpanTable, labels []string, reference string, opt Options, byUnitSums int) Result {
	coders, order := spanSortedCoders(t.Coders)
	units := spanSortedUnits(t.Units)
	codes, index := spanLabels(labels, units)
	if reference == "" && len(coders) > 0 {
		reference = coders[0]
	}
	res := Result{
		Annotators:  coders,
		Metrics:     []Metric{},
		Pairs:       []Pair{},
		UnitsDetail: make([]UnitDetail, 0, len(units)),
	}
	rows := newSpanRows(units, order)
	// The pairs of annotators that share a unit, and those listed: the
	// ones that share the most.
	scan := newPairScan(len(coders), rows.rowStart, rows.rowCoder)
	pick := newPairPick(opt.maxPairs(), coders)
	npairs := 0
	scan.each(func(a, b, shared int) error {
		pick.offer(a, b, shared)
		npairs++
		return nil
	})
	listed := map[[2]int]int{}
	for _, x := range pick.picked() {
		listed[[2]int{x.a, x.b}] = len(res.Pairs)
		res.Pairs = append(res.Pairs, Pair{A: coders[x.a], B: coders[x.b]})
	}
	res.PairsLeftOut = pick.leftOut()
	res.PairsNote = pairsNote(len(res.Pairs), res.PairsLeftOut)

	// Each pair adds up its counts over the units it shares: unit by
	// unit, each unit's lists made once, where every pair's sums fit in
	// little memory; pair by pair otherwise (many annotators who all
	// share a unit), each pair's lists made anew.
	newAcc := func() spanPairAcc {
		return spanPairAcc{perLabel: make([]spanCounts, len(codes)), pearson: make([]spanPearsonSums, len(codes))}
	}
	byUnit := npairs*(len(codes)+2) <= byUnitSums
	var accs []spanPairAcc
	var at pairIndex
	if byUnit {
		accs = make([]spanPairAcc, npairs)
		for k := range accs {
			accs[k] = newAcc()
		}
		at = newPairIndex(len(coders), npairs)
		scan.each(func(a, b, _ int) error {
			at.add(a, b)
			return nil
		})
	}
	var s spanScratch
	var lists []spanList
	var buf spanListBuf
	for u, unit := range units {
		first, end := rows.rowStart[u], rows.rowStart[u+1]
		values := end - first
		if values > 0 {
			res.Units++
		}
		if values < 2 {
			continue
		}
		res.Pairable += values
		buf.reset()
		lists = lists[:0]
		for e := first; e < end; e++ {
			lists = append(lists, buf.list(rows.spans[e], index))
		}
		res.UnitsDetail = append(res.UnitsDetail, UnitDetail{Unit: unit.ID, Values: values, Agree: spanAllEqual(lists)})
		if !byUnit {
			continue
		}
		for i := range lists {
			for j := i + 1; j < len(lists); j++ {
				acc := &accs[at.of(rows.rowCoder[first+i], rows.rowCoder[first+j])]
				acc.units++
				spanComparePair(lists[i], lists[j], acc, &s)
			}
		}
	}

	// Each pair's metrics, in sorted order, make the question's means and
	// the labels'.
	ref := slices.Index(coders, reference)
	question := newSpanMeans(reference)
	perLabel := make([]*spanMeans, len(codes))
	for l := range perLabel {
		perLabel[l] = newSpanMeans(reference)
	}
	add := func(a, b int, acc *spanPairAcc) {
		p := acc.result(coders[a], coders[b], reference, codes)
		question.add(p.metrics, p.a, p.b)
		for l := range codes {
			perLabel[l].add(p.labels[l], p.a, p.b)
		}
		if k, ok := listed[[2]int{a, b}]; ok {
			res.Pairs[k].Metrics = p.metrics
		}
	}
	k := 0
	acc := newAcc()
	var bufA, bufB spanListBuf
	scan.each(func(a, b, _ int) error {
		if byUnit {
			add(a, b, &accs[k])
			k++
			return nil
		}
		acc.reset()
		scan.merge(a, b, false, func(_, ea, eb int) {
			bufA.reset()
			bufB.reset()
			acc.units++
			spanComparePair(bufA.list(rows.spans[ea], index), bufB.list(rows.spans[eb], index), &acc, &s)
		})
		add(a, b, &acc)
		return nil
	})
	if npairs == 0 {
		// No pair to compare: the metrics a pair would have, undefined.
		none := newAcc()
		p := none.result(reference, "", reference, codes)
		note := "fewer than two annotators"
		if len(coders) > 1 {
			note = "no unit that two annotators both completed"
		}
		p.undefined(note)
		question.add(p.metrics, reference, "")
		for l := range codes {
			perLabel[l].add(p.labels[l], reference, "")
		}
	}
	res.Metrics = question.metrics(len(coders), ref >= 0)
	if !(len(codes) == 1 && codes[0] == "") {
		for l, code := range codes {
			res.Options = append(res.Options, Option{Code: code, Metrics: perLabel[l].metrics(len(coders), ref >= 0)})
		}
	}
	return res
}

// spanUnitMajorSums bounds the sums (a pair's, and one per label and
// pair) that Spans keeps at once to add up every pair unit by unit:
// about 6 MB of them.
const spanUnitMajorSums = 1 << 16

// spanRows are the lists of a span question, each annotator's on each
// unit they completed (an entry), by unit: unit u's entries are
// rowStart[u]:rowStart[u+1], by annotator (rowCoder, in sorted order of
// their names); entry e's spans are spans[e], as the table holds them.
type spanRows struct {
	rowStart, rowCoder []int
	spans              [][]Span
}

// newSpanRows makes the rows of units (sorted), whose column order[i] is
// annotator i.
func newSpanRows(units []SpanUnit, order []int) *spanRows {
	at := make([]int, len(order)) // column -> annotator
	for i, col := range order {
		at[col] = i
	}
	d := &spanRows{rowStart: make([]int, 1, len(units)+1)}
	for _, u := range units {
		first := len(d.rowCoder)
		for col, list := range u.All() {
			if col >= 0 && col < len(at) {
				d.rowCoder = append(d.rowCoder, at[col])
				d.spans = append(d.spans, list)
			}
		}
		// In sorted order of annotator: insertion sort, as a unit has a
		// handful.
		for i := first + 1; i < len(d.rowCoder); i++ {
			for j := i; j > first && d.rowCoder[j] < d.rowCoder[j-1]; j-- {
				d.rowCoder[j], d.rowCoder[j-1] = d.rowCoder[j-1], d.rowCoder[j]
				d.spans[j], d.spans[j-1] = d.spans[j-1], d.spans[j]
			}
		}
		d.rowStart = append(d.rowStart, len(d.rowCoder))
	}
	return d
}

// spanListBuf holds the lists made from spans between two resets.
type spanListBuf struct {
	items []spanItem
	edges []spanEdge
}

func (b *spanListBuf) reset() { b.items, b.edges = b.items[:0], b.edges[:0] }

// list is the list of spans, sorted, its labels numbered by index, and
// its edges, in b's buffers.
func (b *spanListBuf) list(spans []Span, index map[string]int) spanList {
	at, atEdge := len(b.items), len(b.edges)
	for _, sp := range spans {
		x := spanItem{sp.Start, sp.End, index[sp.Label]}
		b.items = append(b.items, x)
		if x.end > x.start {
			b.edges = append(b.edges, spanEdge{x.start, x.label, +1}, spanEdge{x.end, x.label, -1})
		}
	}
	l := spanList{items: b.items[at:len(b.items):len(b.items)], edges: b.edges[atEdge:len(b.edges):len(b.edges)]}
	slices.SortFunc(l.items, spanItemCompare)
	slices.SortFunc(l.edges, func(p, q spanEdge) int { return cmp.Compare(p.pos, q.pos) })
	return l
}

// spanAllEqual says whether every list marks the same spans.
func spanAllEqual(lists []spanList) bool {
	for _, l := range lists[1:] {
		if !slices.Equal(lists[0].items, l.items) {
			return false
		}
	}
	return true
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

// reset makes acc the sums of no unit, keeping its slices.
func (acc *spanPairAcc) reset() {
	acc.units, acc.labeled, acc.unlabeled = 0, spanCounts{}, spanCounts{}
	clear(acc.perLabel)
	clear(acc.pearson)
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

// undefined makes every metric of p nil, with note.
func (p *spanPairResult) undefined(note string) {
	for _, list := range append([][]Metric{p.metrics}, p.labels...) {
		for i := range list {
			list[i].Value, list[i].Note = nil, note
		}
	}
}

// spanMeans makes a question's metrics (or a label's) from its pairs':
// each metric is the one pair's where there is one pair, and otherwise
// the mean over the pairs where it is defined, except
// span_char_overlap_prf, whose direction matters: its mean runs over the
// pairs of the reference with each other annotator, whom
// params.hypothesis lists. Pairs are added in sorted order, in which the
// sums run.
type spanMeans struct {
	reference string
	hyps      []string
	pairs     int      // pairs added
	protos    []Metric // the first pair's metrics: their names and params
	accs      []spanMeanAcc
}

func newSpanMeans(reference string) *spanMeans { return &spanMeans{reference: reference} }

// add adds the metrics of the pair of a and b (b "" for the metrics of no
// pair).
func (sm *spanMeans) add(ms []Metric, a, b string) {
	if sm.protos == nil {
		sm.protos, sm.accs = ms, make([]spanMeanAcc, len(ms))
	}
	if b != "" {
		sm.pairs++
	}
	withRef := a == sm.reference || b == sm.reference
	if withRef && b != "" {
		hyp := b
		if b == sm.reference {
			hyp = a
		}
		sm.hyps = append(sm.hyps, hyp)
	}
	name := a + "–" + b
	for k, m := range ms {
		if m.Metric == "span_char_overlap_prf" && !withRef {
			continue
		}
		sm.accs[k].add(m, name)
	}
}

// metrics are the question's metrics, of its annotators coders; isCoder
// says whether the reference is one of them. Where pairs that share no
// unit are left out of a mean, the note says how many.
func (sm *spanMeans) metrics(coders int, isCoder bool) []Metric {
	out := make([]Metric, len(sm.protos))
	unshared := ""
	if n := coders*(coders-1)/2 - sm.pairs; n > 0 && sm.pairs > 0 {
		unshared = "left out: " + pairsText(n) + " of annotators that share no unit"
	}
	refUnshared := ""
	if n := coders - 1 - len(sm.hyps); n > 0 && isCoder && len(sm.hyps) > 0 {
		refUnshared = fmt.Sprintf("left out: %d %s no unit with the reference", n, map[bool]string{true: "annotator who shares", false: "annotators who share"}[n == 1])
	}
	for k, proto := range sm.protos {
		acc := &sm.accs[k]
		if proto.Metric != "span_char_overlap_prf" {
			out[k] = acc.metric(proto.Metric, proto.Params)
			out[k].Note = joinNotes(out[k].Note, unshared)
			continue
		}
		params := map[string]any{"match": proto.Params["match"], "reference": sm.reference, "hypothesis": slices.Clip(sm.hyps)}
		switch {
		case acc.total > 0:
			out[k] = acc.metric(proto.Metric, params)
			out[k].Note = joinNotes(out[k].Note, refUnshared)
		case isCoder:
			out[k] = Metric{Metric: proto.Metric, Params: params, Note: "the reference " + sm.reference + " completed no unit that another annotator completed"}
		default:
			out[k] = Metric{Metric: proto.Metric, Params: params, Note: "the reference " + sm.reference + " is not an annotator of this question"}
		}
	}
	return out
}

// joinNotes joins the notes that are not empty.
func joinNotes(notes ...string) string {
	return strings.Join(slices.DeleteFunc(notes, func(s string) bool { return s == "" }), "; ")
}

// maxNamed is the most pairs a note of a mean names; it counts the
// others.
const maxNamed = 5

// spanMeanAcc adds up one metric over pairs, in the order they come: of
// the value for float64, and of each field for PRF and Pearson. Pairs
// where the metric is undefined are left out, and the note says how
// many; the pairs' own notes follow, each with the pairs it is of.
type spanMeanAcc struct {
	first               Metric // the first pair's
	total, n            int
	f, p, r, f1, mi, ma float64
	kind                any
	notes               []string
	pairsOf             map[string][]string // a note -> the first pairs that have it
	countOf             map[string]int      // a note -> how many pairs have it
}

func (a *spanMeanAcc) add(m Metric, name string) {
	if a.total == 0 {
		a.first = m
	}
	a.total++
	if m.Note != "" {
		if a.countOf == nil {
			a.pairsOf, a.countOf = map[string][]string{}, map[string]int{}
		}
		if a.countOf[m.Note] == 0 {
			a.notes = append(a.notes, m.Note)
		}
		a.countOf[m.Note]++
		if len(a.pairsOf[m.Note]) < maxNamed {
			a.pairsOf[m.Note] = append(a.pairsOf[m.Note], name)
		}
	}
	switch v := m.Value.(type) {
	case float64:
		a.f += v
	case PRF:
		a.p += v.Precision
		a.r += v.Recall
		a.f1 += v.F1
	case Pearson:
		a.mi += v.Micro
		a.ma += v.Macro
	default:
		return
	}
	a.kind = m.Value
	a.n++
}

// metric is the one pair's metric, or the mean named name with params.
func (a *spanMeanAcc) metric(name string, params map[string]any) Metric {
	if a.total == 1 {
		return a.first
	}
	out := Metric{Metric: name, Params: params}
	var say []string
	switch {
	case a.n == 0:
		say = append(say, "undefined for every pair")
	case a.n < a.total:
		say = append(say, fmt.Sprintf("mean over the %d of %d pairs where it is defined", a.n, a.total))
	}
	for _, note := range a.notes {
		names := strings.Join(a.pairsOf[note], ", ")
		if more := a.countOf[note] - len(a.pairsOf[note]); more > 0 {
			names += fmt.Sprintf(" and %d more", more)
		}
		say = append(say, names+": "+note)
	}
	out.Note = strings.Join(say, "; ")
	if a.n == 0 {
		return out
	}
	d := float64(a.n)
	switch a.kind.(type) {
	case float64:
		out.Value = a.f / d
	case PRF:
		out.Value = PRF{Precision: a.p / d, Recall: a.r / d, F1: a.f1 / d}
	case Pearson:
		out.Value = Pearson{Micro: a.mi / d, Macro: a.ma / d}
	}
	return out
}
