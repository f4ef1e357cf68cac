package agreement

import (
	"cmp"
	"context"
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
func Spans(ctx context.Context, t SpanTable, labels []string, reference string, opt Options) (Result, error) {
	return spans(ctx, t, labels, reference, opt, spanUnitMajorSums)
}

// spans is Spans, adding up every pair unit by unit when their sums are
// at most byUnitSums, and pair by pair otherwise.
func spans(ctx context.Context, t SpanTable, labels []string, reference string, opt Options, byUnitSums int) (Result, error) {
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
	stop := every(ctx)
	err := scan.each(func(a, b, shared int) error {
		pick.offer(a, b, shared)
		npairs++
		return stop()
	})
	if err != nil {
		return Result{}, err
	}
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
		// A unit may hold many spans, compared pair by pair: look at ctx
		// before each.
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
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

	// Each pair's values, in sorted order, make the question's means and
	// the labels'; a pair listed gets its metrics.
	ref := slices.Index(coders, reference)
	question := newSpanMeans(reference, spanQuestionSlots)
	perLabel := make([]*spanMeans, len(codes))
	for l := range perLabel {
		perLabel[l] = newSpanMeans(reference, spanLabelSlots)
	}
	var pv spanPairValues
	add := func(a, b int, acc *spanPairAcc) {
		acc.values(coders[a], coders[b], reference, &pv)
		question.add(pv.metrics[:], &pv)
		for l := range codes {
			perLabel[l].add(pv.labels[l][:], &pv)
		}
		if k, ok := listed[[2]int{a, b}]; ok {
			res.Pairs[k].Metrics = pv.metricsOf(spanQuestionSlots, pv.metrics[:])
		}
	}
	k := 0
	acc := newAcc()
	var bufA, bufB spanListBuf
	err = scan.each(func(a, b, _ int) error {
		if err := stop(); err != nil {
			return err
		}
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
	if err != nil {
		return Result{}, err
	}
	if npairs == 0 {
		// No pair to compare: the metrics a pair would have, undefined.
		note := "fewer than two annotators"
		if len(coders) > 1 {
			note = "no unit that two annotators both completed"
		}
		none := newAcc()
		none.values(reference, "", reference, &pv)
		pv.undefined(note)
		question.add(pv.metrics[:], &pv)
		for l := range codes {
			perLabel[l].add(pv.labels[l][:], &pv)
		}
	}
	res.Metrics = question.metrics(len(coders), ref >= 0)
	if !(len(codes) == 1 && codes[0] == "") {
		for l, code := range codes {
			res.Options = append(res.Options, Option{Code: code, Metrics: perLabel[l].metrics(len(coders), ref >= 0)})
		}
	}
	return res, nil
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

// spanValue is one metric of one pair before it is a Metric: its value,
// when it has one (ok), of the kind its metric has, and its note. Pairs
// are many where annotators are: their values take no allocation.
type spanValue struct {
	ok   bool
	f    float64 // span_f1
	prf  PRF     // span_char_overlap_prf
	r    Pearson // span_count_pearson
	note string
}

// spanSlot is one metric a pair has: its name, and its params but the
// direction.
type spanSlot struct {
	metric, match string
	labels        bool
}

const (
	spanF1Name      = "span_f1"
	spanCharName    = "span_char_overlap_prf"
	spanPearsonName = "span_count_pearson"
)

// The metrics of a pair, and of a pair on one label, in order.
var (
	spanQuestionSlots = []spanSlot{
		{spanF1Name, "exact", true}, {spanF1Name, "exact", false},
		{spanF1Name, "overlap", true}, {spanF1Name, "overlap", false},
		{spanCharName, "hard", false}, {spanCharName, "soft", false},
		{spanPearsonName, "", false},
	}
	spanLabelSlots = []spanSlot{
		{spanF1Name, "exact", true}, {spanF1Name, "overlap", true},
		{spanCharName, "hard", false}, {spanPearsonName, "", false},
	}
)

// params are the slot's params; a character metric's direction is ref
// and hyp.
func (s spanSlot) params(ref, hyp any) map[string]any {
	switch s.metric {
	case spanF1Name:
		return map[string]any{"match": s.match, "labels": s.labels}
	case spanCharName:
		return map[string]any{"match": s.match, "reference": ref, "hypothesis": hyp}
	}
	return map[string]any{}
}

// of is v as the slot's Metric.
func (s spanSlot) of(v spanValue, params map[string]any) Metric {
	m := Metric{Metric: s.metric, Params: params, Note: v.note}
	if v.ok {
		switch s.metric {
		case spanF1Name:
			m.Value = v.f
		case spanCharName:
			m.Value = v.prf
		default:
			m.Value = v.r
		}
	}
	return m
}

// spanPairValues are one pair's values (spanQuestionSlots), and its
// values per label (spanLabelSlots), in the order of the question's label
// codes; a and b are its annotators, ref and hyp its direction.
type spanPairValues struct {
	a, b, ref, hyp string
	metrics        [7]spanValue
	labels         [][4]spanValue
}

// values makes a pair's values from what it added up; a and b are the
// pair's annotators, in sorted order. It reuses p's slices.
func (acc *spanPairAcc) values(a, b, reference string, p *spanPairValues) {
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
	refIsA := b != reference
	p.a, p.b, p.ref, p.hyp = a, b, a, b
	if !refIsA {
		p.ref, p.hyp = b, a
	}
	none := ""
	if acc.units == 0 {
		none = "no unit that both annotators completed"
	}
	p.metrics = [7]spanValue{
		spanF1Value(labeled.exact, labeled, none),
		spanF1Value(unlabeled.exact, unlabeled, none),
		spanF1Value(labeled.overlap, labeled, none),
		spanF1Value(unlabeled.overlap, unlabeled, none),
		spanCharValue(refIsA, labeled, none),
		spanCharValue(refIsA, unlabeled, none),
		spanPearsonValue(acc.units, acc.pearson),
	}
	if none != "" {
		p.metrics[6] = spanValue{note: none}
	}
	p.labels = slices.Grow(p.labels[:0], len(acc.perLabel))[:len(acc.perLabel)]
	for l, c := range acc.perLabel {
		p.labels[l] = [4]spanValue{
			spanF1Value(c.exact, c, none),
			spanF1Value(c.overlap, c, none),
			spanCharValue(refIsA, c, none),
			spanLabelPearsonValue(acc.units, acc.pearson[l], none),
		}
	}
}

// metricsOf are the pair's values vs of slots as Metrics.
func (p *spanPairValues) metricsOf(slots []spanSlot, vs []spanValue) []Metric {
	out := make([]Metric, len(slots))
	for k, s := range slots {
		out[k] = s.of(vs[k], s.params(p.ref, p.hyp))
	}
	return out
}

// undefined makes every value of p none, with note.
func (p *spanPairValues) undefined(note string) {
	for k := range p.metrics {
		p.metrics[k] = spanValue{note: note}
	}
	for l := range p.labels {
		for k := range p.labels[l] {
			p.labels[l][k] = spanValue{note: note}
		}
	}
}

// spanF1Value is span_f1 from pooled counts: F1 = 2·paired / (nA + nB),
// none when neither annotator marked a span.
func spanF1Value(paired int64, c spanCounts, none string) spanValue {
	switch {
	case none != "":
		return spanValue{note: none}
	case c.nA+c.nB == 0:
		return spanValue{note: "no span in the units both annotators completed"}
	}
	return spanValue{ok: true, f: 2 * float64(paired) / float64(c.nA+c.nB)}
}

// spanCharValue is span_char_overlap_prf from pooled counts, in the
// pair's direction.
func spanCharValue(refIsA bool, c spanCounts, none string) spanValue {
	refLen, hypLen := c.lenA, c.lenB
	if !refIsA {
		refLen, hypLen = c.lenB, c.lenA
	}
	switch {
	case none != "":
		return spanValue{note: none}
	case refLen == 0 && hypLen == 0:
		return spanValue{note: "no character marked in the units both annotators completed"}
	}
	v := spanValue{ok: true}
	if hypLen > 0 {
		v.prf.Precision = float64(c.chars) / float64(hypLen)
	} else {
		v.note = "precision taken as 0: the hypothesis marked no character"
	}
	if refLen > 0 {
		v.prf.Recall = float64(c.chars) / float64(refLen)
	} else {
		v.note = "recall taken as 0: the reference marked no character"
	}
	// 2PR/(P+R) written on the counts: the same value, with no 0/0.
	v.prf.F1 = 2 * float64(c.chars) / float64(refLen+hypLen)
	return v
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
	slots     []spanSlot
	hyps      []string
	pairs     int // pairs added
	accs      []spanMeanAcc
}

func newSpanMeans(reference string, slots []spanSlot) *spanMeans {
	return &spanMeans{reference: reference, slots: slots, accs: make([]spanMeanAcc, len(slots))}
}

// add adds the values vs of pair p (p.b "" for the values of no pair).
func (sm *spanMeans) add(vs []spanValue, p *spanPairValues) {
	if p.b != "" {
		sm.pairs++
	}
	withRef := p.a == sm.reference || p.b == sm.reference
	if withRef && p.b != "" {
		sm.hyps = append(sm.hyps, p.hyp)
	}
	for k, v := range vs {
		if sm.slots[k].metric == spanCharName && !withRef {
			continue
		}
		sm.accs[k].add(v, p)
	}
}

// metrics are the question's metrics, of its annotators coders; isCoder
// says whether the reference is one of them. Where pairs that share no
// unit are left out of a mean, the note says how many.
func (sm *spanMeans) metrics(coders int, isCoder bool) []Metric {
	out := make([]Metric, len(sm.slots))
	unshared := ""
	if n := coders*(coders-1)/2 - sm.pairs; n > 0 && sm.pairs > 0 {
		unshared = "left out: " + pairsText(n) + " of annotators that share no unit"
	}
	refUnshared := ""
	if n := coders - 1 - len(sm.hyps); n > 0 && isCoder && len(sm.hyps) > 0 {
		refUnshared = fmt.Sprintf("left out: %d %s no unit with the reference", n, map[bool]string{true: "annotator who shares", false: "annotators who share"}[n == 1])
	}
	for k, slot := range sm.slots {
		acc := &sm.accs[k]
		if slot.metric != spanCharName {
			out[k] = acc.metric(slot, slot.params(nil, nil))
			out[k].Note = joinNotes(out[k].Note, unshared)
			continue
		}
		params := slot.params(sm.reference, slices.Clip(sm.hyps))
		switch {
		case acc.total > 0:
			out[k] = acc.metric(slot, params)
			out[k].Note = joinNotes(out[k].Note, refUnshared)
		case isCoder:
			out[k] = Metric{Metric: slot.metric, Params: params, Note: "the reference " + sm.reference + " completed no unit that another annotator completed"}
		default:
			out[k] = Metric{Metric: slot.metric, Params: params, Note: "the reference " + sm.reference + " is not an annotator of this question"}
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
// the value for span_f1, and of each field for PRF and Pearson. Pairs
// where the metric is undefined are left out, and the note says how
// many; the pairs' own notes follow, each with the pairs it is of.
type spanMeanAcc struct {
	first               spanValue // the first pair's, and its direction
	firstRef, firstHyp  string
	total, n            int
	f, p, r, f1, mi, ma float64
	notes               []string
	pairsOf             map[string][]string // a note -> the first pairs that have it
	countOf             map[string]int      // a note -> how many pairs have it
}

func (a *spanMeanAcc) add(v spanValue, p *spanPairValues) {
	if a.total == 0 {
		a.first, a.firstRef, a.firstHyp = v, p.ref, p.hyp
	}
	a.total++
	if v.note != "" {
		if a.countOf == nil {
			a.pairsOf, a.countOf = map[string][]string{}, map[string]int{}
		}
		if a.countOf[v.note] == 0 {
			a.notes = append(a.notes, v.note)
		}
		a.countOf[v.note]++
		if len(a.pairsOf[v.note]) < maxNamed {
			a.pairsOf[v.note] = append(a.pairsOf[v.note], p.a+"–"+p.b)
		}
	}
	if !v.ok {
		return
	}
	a.f += v.f
	a.p += v.prf.Precision
	a.r += v.prf.Recall
	a.f1 += v.prf.F1
	a.mi += v.r.Micro
	a.ma += v.r.Macro
	a.n++
}

// metric is the one pair's metric, or the mean, of slot with params.
func (a *spanMeanAcc) metric(slot spanSlot, params map[string]any) Metric {
	if a.total == 1 {
		return slot.of(a.first, slot.params(a.firstRef, a.firstHyp))
	}
	out := Metric{Metric: slot.metric, Params: params}
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
	out = slot.of(spanValue{ok: true, f: a.f / d,
		prf: PRF{Precision: a.p / d, Recall: a.r / d, F1: a.f1 / d},
		r:   Pearson{Micro: a.mi / d, Macro: a.ma / d}, note: out.Note}, params)
	return out
}
