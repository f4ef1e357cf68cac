package decode

import (
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// maxPlace bounds the places pull believes: no sheet has more rows
// (Excel has 1,048,576; a Google spreadsheet, 10 million cells across at
// least five columns). A larger number is not a place but damage, and
// would cost memory.
const maxPlace = 1 << 21

// readPlaces reads a metadata row of a block's places. A place that is
// not a row number (a formula no application computed, #REF! where the
// row was deleted) is unknown: 0.
func (p *puller) readPlaces(cells []string) {
	if len(cells) < 2 {
		return
	}
	k, ok := p.byID[cells[1]]
	if !ok {
		return
	}
	for len(p.places) <= k {
		p.places = append(p.places, nil)
	}
	got := make([]int, len(cells)-2)
	for i, c := range cells[2:] {
		if n, ok := parseWhole(c); ok && n >= 2 && n <= maxPlace {
			got[i] = n
		}
	}
	p.places[k] = got
}

// placeOf is where the generated row pos (from 1) of unit k was before
// the sheet was last sorted; 0 when unknown.
func (p *puller) placeOf(k, pos int) int {
	if k >= len(p.places) || pos < 1 || pos > len(p.places[k]) {
		return 0
	}
	return p.places[k][pos-1]
}

// presort gives the rows of a block workbook whose sheet was sorted the
// order they had before the sort, so that each block reads its rows in
// the order the annotator gave them. The generated rows say where they
// were (their places); the places none of them had held the inserted
// rows, and each inserted row is put back in the one it can have had
// (see reorder). A row that could have been in several places of one
// block is read after the block's other rows; one that could be in
// several blocks is not read, and its answers are quoted in an error.
// Both are said, by cell, as are rows put in one gap whose order among
// themselves the sheet does not tell (they keep the sheet's). Without
// places (a workbook made before they were recorded, or whose formulas
// no application computed), rows stay in sheet order, and inserted rows
// that a sort has moved away from their block's rows are said to be read
// where they are.
func (p *puller) presort(seq []placedRow) []placedRow {
	if p.t.Rows.Per != templates.PerBlock || len(seq) == 0 {
		return seq
	}
	n := len(seq)
	gen := make([]int, n) // the generated row of a row that has its place, 0 for others
	pre := make([]int, n) // its place before the sort, 0 if unknown
	last := 1             // the last generated row
	for _, u := range p.units {
		if u.FirstRow < 0 || u.Rows < 0 || u.FirstRow > maxPlace || u.Rows > maxPlace {
			return seq // metadata that no sheet can have
		}
		last = max(last, u.FirstRow+u.Rows-1)
	}
	chosen := make([]int32, last+1) // generated row -> the row read as it (index into seq), -1 for none
	for i := range chosen {
		chosen[i] = -1
	}
	nchosen := 0
	twins := map[int][]int{} // generated row -> the rows that hold its unit cell, when several do
	for i := range seq {
		r := &seq[i]
		if r.k < 0 {
			continue
		}
		pos := r.row.pos
		if pos == 0 && p.meta.RowMark == "" && p.units[r.k].Rows == 1 {
			pos = 1 // the one row of a one-row block
		}
		if pos == 0 {
			continue
		}
		g, place := p.units[r.k].FirstRow+pos-1, p.placeOf(r.k, pos)
		if g < 2 || g > last {
			continue // metadata that does not add up: not a place to go by
		}
		if j := int(chosen[g]); j >= 0 {
			if len(twins[g]) == 0 {
				twins[g] = []int{j}
			}
			twins[g] = append(twins[g], i)
			// A copy: the row still at the place is the generated one,
			// or else the first in sheet order.
			if place > 0 && r.row.n == place && seq[j].row.n != place {
				gen[j], pre[j] = 0, 0
				chosen[g] = int32(i)
				gen[i], pre[i] = g, place
			}
			continue
		}
		chosen[g] = int32(i)
		gen[i], pre[i] = g, place
		nchosen++
	}
	if nchosen == 0 || nchosen == n {
		return seq // nothing inserted, or nothing generated to go by
	}
	known, moved, genMoved := true, false, false
	top := 0
	for _, r := range pre {
		top = max(top, r)
	}
	seen := make([]bool, top+1)
	lastGen := 0
	for i := range seq {
		if gen[i] == 0 {
			continue
		}
		if pre[i] == 0 || seen[pre[i]] {
			known = false
		}
		seen[pre[i]] = true
		moved = moved || pre[i] != seq[i].row.n
		genMoved = genMoved || gen[i] < lastGen
		lastGen = gen[i]
	}
	switch {
	case known && !moved, !known && !genMoved:
		return seq
	case !known:
		p.unplaced(seq, gen)
		return seq
	}
	for g, rows := range twins {
		if i := int(chosen[g]); seq[i].row.n != pre[i] {
			p.twins(seq, rows, i, g)
		}
	}
	return p.reorder(seq, gen, pre)
}

// twins warns that a sort has moved a generated row and its copies so
// that which of them is the copy cannot be known: the one read as the
// generated row (i) is the first in sheet order.
func (p *puller) twins(seq []placedRow, rows []int, i, g int) {
	var ns []int
	for _, x := range rows {
		ns = append(ns, seq[x].row.n)
	}
	k := seq[i].k
	p.problem(records.Warning, ErrLayout, p.units[k].ID, seq[i].row.n, -1, "rows %s are row %d of block %s and copies of it, and the sheet has been sorted since: which of them is the copy cannot be known, so row %d is read as the row generated there",
		joinInts(ns), g-p.units[k].FirstRow+1, p.named(p.units[k].ID), seq[i].row.n)
}

// unplaced marks, in a sorted sheet whose places are not known, the
// inserted rows that are no longer between the generated rows they were
// inserted between: where they were cannot be known, and place says so
// once it has found their block.
func (p *puller) unplaced(seq []placedRow, gen []int) {
	first, last := -1, 0
	for _, g := range gen {
		if g > 0 && (first < 0 || g < first) {
			first = g
		}
		last = max(last, g)
	}
	for i := 0; i < len(seq); {
		if gen[i] > 0 {
			i++
			continue
		}
		j := i
		for j < len(seq) && gen[j] == 0 {
			j++
		}
		a, b := first-1, last+1 // the generated rows around the run, as when nothing moved
		if i > 0 {
			a = gen[i-1]
		}
		if j < len(seq) {
			b = gen[j]
		}
		if b != a+1 {
			for x := i; x < j; x++ {
				seq[x].row.unplaced = true
			}
		}
		i = j
	}
}

// rowsWord is "row 14 was" or "rows 14, 20 were".
func rowsWord(rows []int) string {
	if len(rows) == 1 {
		return "row " + strconv.Itoa(rows[0]) + " was"
	}
	return "rows " + joinInts(rows) + " were"
}

// evidence is the block an inserted row says it is of: the block of the
// row it copies, or of the ID typed in it; -1 when it says none.
func (p *puller) evidence(r placedRow) int {
	if r.k >= 0 {
		return r.k
	}
	if k, ok := p.byItem[r.id]; ok && k >= 0 {
		return k
	}
	return -1
}

// spans are the span texts of a row, trimmed, for finding its block.
func (p *puller) spans(r sheetRow) []string {
	var out []string
	for _, q := range p.t.Questions {
		if q.Type != templates.TypeSpan || q.Scope != "row" {
			continue
		}
		if s := strings.TrimSpace(r.cells[p.colByKey["q:"+q.Name]]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// holds reports whether block k's text holds every span of a row.
func (p *puller) holds(k int, r sheetRow) bool {
	for _, q := range p.t.Questions {
		if q.Type != templates.TypeSpan || q.Scope != "row" {
			continue
		}
		if s := strings.TrimSpace(r.cells[p.colByKey["q:"+q.Name]]); s != "" && !strings.Contains(p.unit(k).fields[q.Field], s) {
			return false
		}
	}
	return true
}

// gapBlocks are the blocks a gap's places can belong to: the block of the
// generated rows around it, or the two blocks it lies between.
func (p *puller) gapBlocks(seq []placedRow, g gap) []int {
	a, b := -1, -1
	if g.after >= 0 {
		a = seq[g.after].k
	}
	if g.before >= 0 {
		b = seq[g.before].k
	}
	switch {
	case a == b || b < 0:
		return []int{a}
	case a < 0:
		return []int{b}
	}
	return []int{a, b}
}

// gapsFor are the gaps an inserted row can have been in: those of its
// block when it says which, and of the blocks whose text holds its spans
// when some do.
func (p *puller) gapsFor(seq []placedRow, x int, gaps []gap) []int {
	r := seq[x]
	ev := p.evidence(r)
	spans := len(p.spans(r.row)) > 0
	var all, held []int
	for g := range gaps {
		blocks := p.gapBlocks(seq, gaps[g])
		if ev >= 0 && !slices.Contains(blocks, ev) {
			continue
		}
		all = append(all, g)
		if spans && slices.ContainsFunc(blocks, func(k int) bool { return p.holds(k, r.row) }) {
			held = append(held, g)
		}
	}
	if len(held) > 0 {
		return held
	}
	return all
}

// blockBySpans is the one block whose text holds a row's spans; false
// when the row has none, or no block or several hold them.
func (p *puller) blockBySpans(r sheetRow) (int, bool) {
	if len(p.spans(r)) == 0 {
		return 0, false
	}
	found := -1
	for k := range p.units {
		if p.holds(k, r) {
			if found >= 0 {
				return 0, false
			}
			found = k
		}
	}
	return found, found >= 0
}
