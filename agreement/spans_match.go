package agreement

import (
	"cmp"
	"slices"
)

// spanItem is a Span with its label as an index into the question's
// labels, so that comparing and counting need no string work.
type spanItem struct {
	start, end, label int
}

// length is the number of characters the span covers; a span whose end is
// not after its start covers none.
func (s spanItem) length() int {
	return max(0, s.end-s.start)
}

func spanItemCompare(a, b spanItem) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	if c := cmp.Compare(a.end, b.end); c != 0 {
		return c
	}
	return cmp.Compare(a.label, b.label)
}

// spanCounts are the counts one pair of annotators adds up over units:
// spans and characters each marked, and what the two have in common. The
// same struct holds a pair's totals with labels compared (labels: true,
// match hard), without them (labels: false, match soft), and one label's.
type spanCounts struct {
	nA, nB     int64 // spans marked by A and by B
	exact      int64 // spans paired one to one by the same offsets
	overlap    int64 // spans paired one to one by overlap, greedily
	lenA, lenB int64 // characters covered, a span at a time
	chars      int64 // characters in common (see spanCharOverlap)
}

// spanCandidate is a pair of spans, one of each annotator, that share
// chars characters.
type spanCandidate struct {
	i, j, chars int
}

// spanScratch holds the buffers a unit's comparisons reuse, so that a
// large corpus does not allocate per unit.
type spanScratch struct {
	cands      []spanCandidate
	paired     []spanCandidate // the pairings of the last spanGreedy
	usedA      []bool
	usedB      []bool
	cover      []spanCover // per label, all 0 between pairs
	cntA, cntB []int64     // spans per label, all 0 between pairs
}

// spanExact counts the spans of a and b (each sorted by spanItemCompare)
// that pair one to one with the same start and end, and, when byLabel, the
// same label. Repeated spans pair at most as often as both lists hold
// them. perLabel, when not nil, gets each pairing under its label.
func spanExact(a, b []spanItem, byLabel bool, perLabel []spanCounts) int64 {
	var n int64
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		c := cmp.Compare(a[i].start, b[j].start)
		if c == 0 {
			c = cmp.Compare(a[i].end, b[j].end)
		}
		if c == 0 && byLabel {
			c = cmp.Compare(a[i].label, b[j].label)
		}
		switch {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			n++
			if perLabel != nil {
				perLabel[a[i].label].exact++
			}
			i++
			j++
		}
	}
	return n
}

// spanOverlapPairs counts the spans of a and b paired one to one by
// overlap, as spanGreedy pairs them from spanCandidates: largest overlap
// first, ties by a's span then b's (both lists in spanItemCompare order).
// It returns the pairings with labels ignored and, counting only
// candidates of the same label, with labels compared; perLabel gets the
// latter under their label.
//
// Greedy pairing under labels is the same whether it runs on all labels at
// once or on each label apart, since candidates of different labels share
// no span; the per-label counts therefore add up to the labelled total.
func spanOverlapPairs(a, b []spanItem, s *spanScratch, perLabel []spanCounts) (unlabeled, labeled int64) {
	if !spanCandidates(a, b, s) {
		return 0, 0
	}
	unlabeled = int64(len(spanGreedy(a, b, s, false)))
	for _, c := range spanGreedy(a, b, s, true) {
		labeled++
		if perLabel != nil {
			perLabel[a[c.i].label].overlap++
		}
	}
	return unlabeled, labeled
}

// spanCandidates puts in s.cands every pair of spans of a and b that
// share at least one character, sorted from the largest overlap down, ties
// by the index in a, then in b. It reports whether there is any.
func spanCandidates(a, b []spanItem, s *spanScratch) bool {
	s.cands = s.cands[:0]
	for i, x := range a {
		for j, y := range b {
			if ov := min(x.end, y.end) - max(x.start, y.start); ov > 0 {
				s.cands = append(s.cands, spanCandidate{i, j, ov})
			}
		}
	}
	if len(s.cands) == 0 {
		return false
	}
	slices.SortFunc(s.cands, func(p, q spanCandidate) int {
		if c := cmp.Compare(q.chars, p.chars); c != 0 {
			return c
		}
		if c := cmp.Compare(p.i, q.i); c != 0 {
			return c
		}
		return cmp.Compare(p.j, q.j)
	})
	return true
}

// spanGreedy takes the candidates spanCandidates left in s.cands in their
// order, keeping one when neither of its spans is paired yet (and, when
// byLabel, both spans have the same label). It returns the pairings kept,
// in the order taken, in s's buffer: valid until s is used again.
func spanGreedy(a, b []spanItem, s *spanScratch, byLabel bool) []spanCandidate {
	s.usedA = spanResetFlags(s.usedA, len(a))
	s.usedB = spanResetFlags(s.usedB, len(b))
	s.paired = s.paired[:0]
	for _, c := range s.cands {
		if s.usedA[c.i] || s.usedB[c.j] {
			continue
		}
		if byLabel && a[c.i].label != b[c.j].label {
			continue
		}
		s.usedA[c.i], s.usedB[c.j] = true, true
		s.paired = append(s.paired, c)
	}
	return s.paired
}

func spanResetFlags(f []bool, n int) []bool {
	if cap(f) < n {
		return make([]bool, n)
	}
	f = f[:n]
	clear(f)
	return f
}

// spanEdge is where a span starts (delta +1) or ends (delta -1).
type spanEdge struct {
	pos, label, delta int
}

// spanList is one annotator's spans on one unit, sorted by
// spanItemCompare, and their edges sorted by position (spans covering no
// character have none).
type spanList struct {
	items []spanItem
	edges []spanEdge
}

// spanCharOverlap counts the characters a and b have in common, as
// factgenie's compute_f1_scores does (ufal/factgenie,
// factgenie/iaa/f1.py): each character of a hypothesis span is matched to
// at most one reference span covering it that is not yet matched at that
// character, so a character counts min(#spans of a covering it, #spans of
// b covering it) times: under soft, whatever the spans' labels; under
// hard, label by label (the sum over labels of that minimum). The count is
// symmetric in a and b. It returns the soft count and the hard one, and
// adds the hard count per label to perLabel.
//
// It sweeps the spans' edges, merging the two sorted lists, rather than
// every character, so a long span costs no more than a short one. Each
// count of covering spans is kept with the position it last changed at:
// when it changes, the stretch since then adds its length times the
// minimum that held over it. Edges at the same position may come in any
// order, since the stretch between them is empty.
func spanCharOverlap(a, b []spanEdge, s *spanScratch, perLabel []spanCounts) (soft, hard int64) {
	if len(a) == 0 || len(b) == 0 {
		return 0, 0
	}
	if len(s.cover) < len(perLabel) {
		s.cover = make([]spanCover, len(perLabel))
	}
	var all spanCover
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var e spanEdge
		side := 0
		if j == len(b) || (i < len(a) && a[i].pos <= b[j].pos) {
			e = a[i]
			i++
		} else {
			e, side = b[j], 1
			j++
		}
		soft += all.move(e, side)
		if n := s.cover[e.label].move(e, side); n > 0 {
			perLabel[e.label].chars += n
			hard += n
		}
	}
	// Every span has ended: every count is back to 0 for the next pair.
	return soft, hard
}

// spanCover is how many spans of each annotator cover the current
// position, and since which position that has held.
type spanCover struct {
	n    [2]int
	from int
}

// move applies edge e of annotator side (0 for A, 1 for B) and returns
// the characters in common over the stretch that ends at it.
func (c *spanCover) move(e spanEdge, side int) int64 {
	common := int64(e.pos-c.from) * int64(min(c.n[0], c.n[1]))
	c.n[side] += e.delta
	c.from = e.pos
	return common
}

// spanComparePair adds to acc what one unit's two lists have in common.
// Every label in them is below len(acc.perLabel).
func spanComparePair(la, lb spanList, acc *spanPairAcc, s *spanScratch) {
	a, b := la.items, lb.items
	labeled := &acc.labeled
	unlabeled := &acc.unlabeled
	per := acc.perLabel

	for _, x := range a {
		per[x.label].nA++
		per[x.label].lenA += int64(x.length())
	}
	for _, y := range b {
		per[y.label].nB++
		per[y.label].lenB += int64(y.length())
	}
	spanCountPairs(a, b, acc, s)

	labeled.exact += spanExact(a, b, true, per)
	unlabeled.exact += spanExact(a, b, false, nil)

	anyOv, sameOv := spanOverlapPairs(a, b, s, per)
	unlabeled.overlap += anyOv
	labeled.overlap += sameOv

	soft, hard := spanCharOverlap(la.edges, lb.edges, s, per)
	unlabeled.chars += soft
	labeled.chars += hard
}
