package agreement

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"
)

// Pairs of annotators are compared only where they share a unit: a pair
// that shares none has no value to report, and a study of thousands of
// annotators, each with a few units, has millions of pairs of which few
// share anything. pairScan finds the pairs that do without looking at the
// others, in time that grows with the values of the units the annotators
// share, and memory that grows with the values.

// DefaultMaxPairs is the most pairs of annotators a Result lists when the
// Options leave it open: enough for every pair of 45 annotators, and a
// report that stays readable (about a megabyte of JSON per question)
// however many there are.
const DefaultMaxPairs = 1000

// Options shape what a question's Result lists.
type Options struct {
	// MaxPairs is the most pairs of annotators Result.Pairs lists: those
	// that share the most units, ties to the first in sorted order of
	// their names; Result.PairsLeftOut counts the others. Question-level
	// means over pairs are over every pair that shares a unit, listed or
	// not. 0 (or less) is DefaultMaxPairs.
	MaxPairs int
}

func (o Options) maxPairs() int {
	if o.MaxPairs <= 0 {
		return DefaultMaxPairs
	}
	return o.MaxPairs
}

// every returns a check of ctx for a loop that may run long and whose
// steps are short: it looks at ctx on the first call and every 256th
// after, so that a stopped computation ends within a few hundred short
// steps, at little cost to one that runs.
func every(ctx context.Context) func() error {
	n := 0
	return func() error {
		n++
		if n&255 != 1 {
			return nil
		}
		return ctx.Err()
	}
}

// pairScan holds the values of a question by unit (rows) and by
// annotator (columns), each value an entry: rows give the annotators of a
// unit, columns the units of an annotator.
type pairScan struct {
	coders int
	// Unit u's entries are rowStart[u]:rowStart[u+1], by annotator
	// (rowCoder, ascending).
	rowStart, rowCoder []int
	// Annotator c's entries are colStart[c]:colStart[c+1] of colUnit and
	// colEntry, by unit (ascending).
	colStart, colUnit, colEntry []int
	// Scratch of each: shared units by annotator, the annotators seen.
	shared, touched []int
}

// newPairScan indexes entries given by unit as Ratings holds its values:
// unit u's at rowStart[u]:rowStart[u+1], with their annotators in
// rowCoder, ascending within a unit.
func newPairScan(coders int, rowStart, rowCoder []int) *pairScan {
	p := &pairScan{coders: coders, rowStart: rowStart, rowCoder: rowCoder, colStart: make([]int, coders+1)}
	for _, c := range rowCoder {
		p.colStart[c+1]++
	}
	for c := range coders {
		p.colStart[c+1] += p.colStart[c]
	}
	p.colUnit = make([]int, len(rowCoder))
	p.colEntry = make([]int, len(rowCoder))
	next := slices.Clone(p.colStart[:coders])
	for u := range max(0, len(rowStart)-1) {
		for e := rowStart[u]; e < rowStart[u+1]; e++ {
			c := rowCoder[e]
			p.colUnit[next[c]], p.colEntry[next[c]] = u, e
			next[c]++
		}
	}
	p.shared = make([]int, coders)
	return p
}

// each calls visit for every pair of annotators a < b (by index) that
// share a unit, in order of a then b, with the number of units they
// share; it stops at visit's first error.
func (p *pairScan) each(visit func(a, b, shared int) error) error {
	for a := range p.coders {
		p.touched = p.touched[:0]
		for k := p.colStart[a]; k < p.colStart[a+1]; k++ {
			u := p.colUnit[k]
			row := p.rowCoder[p.rowStart[u]:p.rowStart[u+1]]
			i, _ := slices.BinarySearch(row, a+1)
			for _, b := range row[i:] {
				if p.shared[b] == 0 {
					p.touched = append(p.touched, b)
				}
				p.shared[b]++
			}
		}
		slices.Sort(p.touched)
		for i, b := range p.touched {
			n := p.shared[b]
			p.shared[b] = 0
			if err := visit(a, b, n); err != nil {
				for _, c := range p.touched[i+1:] {
					p.shared[c] = 0
				}
				return err
			}
		}
	}
	return nil
}

// merge calls f for every unit where annotator a or b has a value, in
// order of unit, with the entry of each (-1 for none); with both false,
// only for the units both have a value in.
func (p *pairScan) merge(a, b int, either bool, f func(u, ea, eb int)) {
	i, iEnd := p.colStart[a], p.colStart[a+1]
	j, jEnd := p.colStart[b], p.colStart[b+1]
	for i < iEnd || j < jEnd {
		switch {
		case j == jEnd || i < iEnd && p.colUnit[i] < p.colUnit[j]:
			if either {
				f(p.colUnit[i], p.colEntry[i], -1)
			}
			i++
		case i == iEnd || p.colUnit[j] < p.colUnit[i]:
			if either {
				f(p.colUnit[j], -1, p.colEntry[j])
			}
			j++
		default:
			f(p.colUnit[i], p.colEntry[i], p.colEntry[j])
			i++
			j++
		}
	}
}

// pairIndex numbers pairs of annotators (a < b) in the order they are
// added.
type pairIndex struct {
	coders int
	dense  []int32         // a*coders+b -> number, with few annotators
	sparse map[int64]int32 // otherwise
	n      int32
}

func newPairIndex(coders, pairs int) pairIndex {
	if coders*coders <= 1<<16 {
		return pairIndex{coders: coders, dense: make([]int32, coders*coders)}
	}
	return pairIndex{coders: coders, sparse: make(map[int64]int32, pairs)}
}

func (x *pairIndex) add(a, b int) {
	if x.dense != nil {
		x.dense[a*x.coders+b] = x.n
	} else {
		x.sparse[int64(a)*int64(x.coders)+int64(b)] = x.n
	}
	x.n++
}

// of is the number of a pair added.
func (x *pairIndex) of(a, b int) int {
	if x.dense != nil {
		return int(x.dense[a*x.coders+b])
	}
	return int(x.sparse[int64(a)*int64(x.coders)+int64(b)])
}

// pairRank is a pair of annotators (by index, a < b) and the units they
// share.
type pairRank struct {
	a, b, shared int
}

// pairPick keeps the n pairs that share the most units, ties to the
// first in sorted order of their names, and counts every pair offered.
type pairPick struct {
	n, offered int
	names      []string
	kept       pairHeap
}

func newPairPick(n int, names []string) *pairPick {
	return &pairPick{n: n, names: names, kept: pairHeap{names: names}}
}

func (pp *pairPick) offer(a, b, shared int) {
	pp.offered++
	x := pairRank{a, b, shared}
	switch {
	case len(pp.kept.pairs) < pp.n:
		heap.Push(&pp.kept, x)
	case pp.n > 0 && pp.kept.worse(pp.kept.pairs[0], x):
		pp.kept.pairs[0] = x
		heap.Fix(&pp.kept, 0)
	}
}

// picked are the pairs kept, in sorted order of their names.
func (pp *pairPick) picked() []pairRank {
	out := slices.Clone(pp.kept.pairs)
	slices.SortFunc(out, func(x, y pairRank) int {
		xa, xb := pairNames(pp.names, x)
		ya, yb := pairNames(pp.names, y)
		return cmp.Or(cmp.Compare(xa, ya), cmp.Compare(xb, yb))
	})
	return out
}

// leftOut is the number of pairs offered and not kept.
func (pp *pairPick) leftOut() int { return pp.offered - len(pp.kept.pairs) }

// pairNames are the names of a pair's annotators in sorted order.
func pairNames(names []string, p pairRank) (string, string) {
	a, b := names[p.a], names[p.b]
	if b < a {
		a, b = b, a
	}
	return a, b
}

// pairHeap is a heap of pairs whose root is the one that would go first.
type pairHeap struct {
	names []string
	pairs []pairRank
}

// worse reports whether x ranks below y: fewer shared units, or as many
// and later names.
func (h *pairHeap) worse(x, y pairRank) bool {
	if x.shared != y.shared {
		return x.shared < y.shared
	}
	xa, xb := pairNames(h.names, x)
	ya, yb := pairNames(h.names, y)
	return cmp.Or(cmp.Compare(xa, ya), cmp.Compare(xb, yb)) > 0
}

func (h *pairHeap) Len() int           { return len(h.pairs) }
func (h *pairHeap) Less(i, j int) bool { return h.worse(h.pairs[i], h.pairs[j]) }
func (h *pairHeap) Swap(i, j int)      { h.pairs[i], h.pairs[j] = h.pairs[j], h.pairs[i] }
func (h *pairHeap) Push(x any)         { h.pairs = append(h.pairs, x.(pairRank)) }
func (h *pairHeap) Pop() any {
	x := h.pairs[len(h.pairs)-1]
	h.pairs = h.pairs[:len(h.pairs)-1]
	return x
}

// pairsNote says which pairs a Result lists, where it leaves some out.
func pairsNote(listed, leftOut int) string {
	if leftOut == 0 {
		return ""
	}
	return fmt.Sprintf("the %d pairs of annotators that share the most units, of the %d that share a unit; pairs that share none are not listed", listed, listed+leftOut)
}

// pairRatings makes out the ratings of annotators a and b alone (columns
// 0 and 1), over the units where either has a value, or with both false
// where both have: what a two-annotator statistic counts (it skips units
// with one value). It reuses out's slices.
func (r Ratings) pairRatings(p *pairScan, a, b int, either bool, out *Ratings) {
	na, nb := p.colStart[a+1]-p.colStart[a], p.colStart[b+1]-p.colStart[b]
	start := slices.Grow(out.start[:0], na+nb+1)
	coder, cat := slices.Grow(out.coder[:0], na+nb), slices.Grow(out.cat[:0], na+nb)
	scratch := out.scratch
	if scratch == nil {
		scratch = &statScratch{}
	}
	*out = r
	out.Coders = 2
	out.scratch = scratch
	start = append(start, 0)
	p.merge(a, b, either, func(_, ea, eb int) {
		if ea >= 0 {
			coder, cat = append(coder, 0), append(cat, r.cat[ea])
		}
		if eb >= 0 {
			coder, cat = append(coder, 1), append(cat, r.cat[eb])
		}
		start = append(start, len(cat))
	})
	out.start, out.coder, out.cat = start, coder, cat
}
