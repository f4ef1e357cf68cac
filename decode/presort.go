package decode

import (
	"fmt"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// gap is a run of places before the sort that no generated row had: the
// places of rows an annotator inserted (or of copies of rows).
type gap struct {
	first, last   int // the places, inclusive
	after, before int // the generated rows around it, as indexes into seq; -1 for none
}

// reorder is presort of a sheet whose places are all known and that was
// sorted. Each row without a place (an inserted row, a copy) is put in a
// gap between the generated rows' places when only one can be its:
//
//   - its block's gaps, when it says its block: the block of the row it
//     copies, of the ID typed in it, of the texts that hold its spans;
//   - not a gap whose places other rows must all have had.
//
// The order in which the sort left the rows says nothing more: a row may
// sit between the rows that were around it before the sort only because
// its value falls between theirs, and after two sorts, or a sort by two
// columns, rows that share a value are in the order of the sort before,
// not in their own. So rows put in one gap keep the sheet's order, said
// when there are several.
func (p *puller) reorder(seq []placedRow, gen, pre []int) []placedRow {
	n := len(seq)
	top := 1
	for i, r := range seq {
		top = max(top, r.row.n, pre[i])
	}
	at := make([]int32, top+2) // place -> the generated row there (index into seq), -1 for none
	for i := range at {
		at[i] = -1
	}
	for i := range seq {
		if gen[i] > 0 {
			at[pre[i]] = int32(i)
		}
	}
	var gaps []gap
	for s := 2; s <= top; s++ {
		if at[s] >= 0 {
			continue
		}
		if s == 2 || at[s-1] >= 0 {
			gaps = append(gaps, gap{first: s, after: int(at[s-1])})
		}
		g := &gaps[len(gaps)-1]
		g.last, g.before = s, int(at[s+1])
	}
	var us []int // the rows without a place
	cands := map[int][]int{}
	for i := range seq {
		if gen[i] == 0 {
			us = append(us, i)
			cands[i] = p.gapsFor(seq, i, gaps)
		}
	}
	// A row with one gap left has it; a gap whose places are all had is
	// no longer another row's.
	used := make([]int, len(gaps))
	full := func(g int) bool { return used[g] > gaps[g].last-gaps[g].first }
	byGap := make([][]int, len(gaps))
	var queue []int
	for _, x := range us {
		for _, g := range cands[x] {
			byGap[g] = append(byGap[g], x)
		}
		if len(cands[x]) == 1 {
			queue = append(queue, x)
		}
	}
	in := map[int]int{} // row -> its gap
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if _, ok := in[x]; ok || len(cands[x]) != 1 || full(cands[x][0]) {
			continue
		}
		g := cands[x][0]
		in[x] = g
		if used[g]++; !full(g) {
			continue
		}
		for _, y := range byGap[g] {
			if _, ok := in[y]; ok {
				continue
			}
			if c := slices.DeleteFunc(cands[y], func(h int) bool { return h == g }); len(c) == 1 {
				cands[y] = c
				queue = append(queue, y)
			} else {
				cands[y] = c
			}
		}
	}
	// The order before the sort: by place; rows in one gap in the sheet's
	// order; a row whose place in its block is not known, after the
	// block's other rows.
	type keyed struct {
		place, sub int
		r          placedRow
	}
	out := make([]keyed, 0, n)
	for i := range seq {
		if gen[i] > 0 {
			out = append(out, keyed{place: pre[i], r: seq[i]})
		}
	}
	inGap := map[int][]int{}
	for _, x := range us {
		r := seq[x]
		if g, ok := in[x]; ok {
			r.row.pos = 0 // a copy reads as inserted
			out = append(out, keyed{place: gaps[g].first, sub: 1 + x, r: r})
			inGap[g] = append(inGap[g], x)
			continue
		}
		blocks := p.blocksFor(seq, x, gaps, cands[x])
		if len(blocks) != 1 {
			var names []string
			for _, k := range blocks {
				names = append(names, p.named(p.units[k].ID))
			}
			why := "it was inserted, and the sheet has been sorted since: where it was cannot be known"
			if len(names) > 0 {
				why += " (in block " + strings.Join(names, " or ") + ")"
			}
			if c := p.at[p.colIndex(templates.RoleID)]; c >= 0 {
				why += "; type its block's ID in " + backend.CellName(c, r.row.n)
			}
			p.unattributed(r.row, why)
			continue
		}
		k := blocks[0]
		last := top + 1
		for i := range seq {
			if gen[i] > 0 && seq[i].k == k && (last > top || pre[i] > last) {
				last = pre[i]
			}
		}
		if r.k < 0 {
			r.row.inserted = p.at[p.colIndex(templates.RoleUnit)] >= 0
		}
		r.k, r.row.pos = k, 0
		if p.hasAnswers(r.row) {
			p.problem(records.Warning, ErrLayout, p.units[k].ID, r.row.n, -1, "the row was inserted in block %s, and the sheet has been sorted since: where in the block it was cannot be known, so it is read after the block's other rows", p.named(p.units[k].ID))
		}
		out = append(out, keyed{place: last, sub: 1 + n + x, r: r})
	}
	for g, xs := range inGap {
		if len(xs) > 1 {
			p.unordered(seq, gaps[g], gen, xs)
		}
	}
	slices.SortStableFunc(out, func(a, b keyed) int {
		if a.place != b.place {
			return a.place - b.place
		}
		return a.sub - b.sub
	})
	res := make([]placedRow, len(out))
	for i, o := range out {
		res[i] = o.r
	}
	return res
}

// blocksFor are the blocks a row with places in several gaps can be of:
// those of the gaps, a gap between two blocks counting as the one above
// unless only the one below holds its spans (as rows inserted between
// blocks are read); its own block when it says which.
func (p *puller) blocksFor(seq []placedRow, x int, gaps []gap, gs []int) []int {
	r := seq[x]
	if ev := p.evidence(r); ev >= 0 {
		return []int{ev}
	}
	var out []int
	for _, g := range gs {
		blocks := p.gapBlocks(seq, gaps[g])
		k := blocks[0]
		if len(blocks) == 2 && !p.holds(blocks[0], r.row) && p.holds(blocks[1], r.row) {
			k = blocks[1]
		}
		if k >= 0 && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// unordered warns that rows put in one gap came from different places
// of the sorted sheet: their order among themselves is the sheet's.
func (p *puller) unordered(seq []placedRow, g gap, gen []int, xs []int) {
	var rows []int
	for _, x := range xs {
		rows = append(rows, seq[x].row.n)
	}
	slices.Sort(rows)
	where, unit := "", ""
	switch {
	case g.after >= 0:
		a := seq[g.after]
		unit = p.units[a.k].ID
		where = fmt.Sprintf("after row %d of block %s", gen[g.after]-p.units[a.k].FirstRow+1, p.named(unit))
	case g.before >= 0:
		unit = p.units[seq[g.before].k].ID
		where = "before the first row of block " + p.named(unit)
	}
	p.problem(records.Warning, ErrLayout, unit, rows[0], -1, "%s inserted %s, and the sheet has been sorted since: their order among themselves cannot be known, so they are read in the order the sheet has them now",
		rowsWord(rows), where)
}
