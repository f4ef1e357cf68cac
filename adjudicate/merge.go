package adjudicate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
)

// Carried is what Merge keeps of an earlier run.
type Carried struct {
	// Items are the items of this run: those found again keep their ID
	// and workbook; new ones have an ID and Workbook -1.
	Items []*Item
	// Filled are the cells adjudicators filled, by item ID and column key,
	// to be written again.
	Filled map[string]map[string]backend.ReadCell
	// Notes say what moved: a decision carried to a changed cluster, a
	// decided item kept although the annotators now agree.
	Notes []string
}

// identity is what makes an item the same across runs: its unit and
// question, and for a cluster where it is and what each annotator marked
// in it.
func identity(it *Item) string {
	if it.Kind == KindValue {
		return it.Unit + "\x00" + it.Question
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%d\x00%d\x00%s", it.Unit, it.Question, it.Cluster.Field, it.Cluster.Start, it.Cluster.End, it.Cluster.Code)
	for _, a := range it.Answers {
		b.WriteString("\x00" + a.Annotator + "=" + key(spanKeys(a.Spans)))
	}
	return b.String()
}

// Merge carries an earlier run's items and decisions into the items found
// now; present says which units this run found complete records of. An
// item found again keeps its ID, workbook and filled cells, with the
// answers as they are now. A span cluster that changed (an annotator added
// or moved a span) is a new item; the decision made on the cluster it
// grew from is carried to it, and any other decided cluster it swallowed
// stays, superseded by it. An item with filled cells that is no longer a
// disagreement stays, Kept, with its answers as they were, so that no
// cell is lost; an empty one is dropped. The items of a unit this run did
// not find stay as they were. New items are numbered after the highest ID
// so far.
func Merge(prev []*Item, decided map[string]*Decision, found []*Item, present map[string]bool) Carried {
	c := Carried{Filled: map[string]map[string]backend.ReadCell{}}
	old := map[string]*Item{}
	next := 1
	for _, it := range prev {
		old[identity(it)] = it
		if n, err := strconv.Atoi(strings.TrimPrefix(it.ID, "d")); err == nil && n >= next {
			next = n + 1
		}
	}
	used := map[string]bool{}
	filled := func(id string) bool { d := decided[id]; return d != nil && len(d.Cells) > 0 }
	carry := func(to, from string) {
		if filled(from) {
			c.Filled[to] = decided[from].Cells
		}
	}
	for _, it := range found {
		if p, ok := old[identity(it)]; ok && !used[p.ID] {
			it.ID, it.Workbook = p.ID, p.Workbook
			used[p.ID] = true
			carry(it.ID, p.ID)
			c.Items = append(c.Items, it)
			continue
		}
		it.ID, it.Workbook = fmt.Sprintf("d%04d", next), -1
		next++
		c.Items = append(c.Items, it)
	}
	// A changed cluster takes the decision of an earlier one it overlaps;
	// the other decided ones it overlaps are superseded by it.
	for _, it := range c.Items {
		if it.Workbook >= 0 || it.Kind != KindSpans {
			continue
		}
		for _, p := range prev {
			if used[p.ID] || !filled(p.ID) || p.Kind != KindSpans || p.Unit != it.Unit || p.Superseded != "" || !sameSpot(p.Cluster, it.Cluster) {
				continue
			}
			used[p.ID] = true
			if _, took := c.Filled[it.ID]; !took {
				carry(it.ID, p.ID)
				c.Notes = append(c.Notes, fmt.Sprintf("%s (unit %s): the spans of its cluster changed since it was decided; the decision is carried to %s, check it", p.ID, p.Unit, it.ID))
				continue
			}
			q := *p
			q.Superseded, q.Kept = it.ID, false
			carry(q.ID, p.ID)
			c.Items = append(c.Items, &q)
			c.Notes = append(c.Notes, fmt.Sprintf("%s (unit %s): its cluster is now part of %s, which carries the decision of another; its own decision is kept on its row, and %s decides", p.ID, p.Unit, it.ID, it.ID))
		}
	}
	for _, p := range prev {
		if used[p.ID] {
			continue
		}
		switch {
		case !present[p.Unit]:
			// The unit is not among this run's complete records: its
			// items stay as they were, decided or not.
			q := *p
			carry(q.ID, p.ID)
			c.Items = append(c.Items, &q)
		case filled(p.ID):
			q := *p
			if q.Superseded == "" && !q.Kept {
				q.Kept = true
				c.Notes = append(c.Notes, fmt.Sprintf("%s (unit %s): the annotators' answers changed and it is no longer a disagreement; its row is kept, and a decision made there still counts", p.ID, p.Unit))
			}
			carry(q.ID, p.ID)
			c.Items = append(c.Items, &q)
		}
	}
	return c
}

// Rename makes the annotators' names in carried Or use and Decision cells
// the names a workbook shows now (when --show-annotators changed between
// runs): from[k] becomes to[k].
func Rename(filled map[string]map[string]backend.ReadCell, from, to []string) {
	names := map[string]string{}
	for k := range min(len(from), len(to)) {
		names[fold(from[k])] = to[k]
	}
	for _, cells := range filled {
		for _, key := range []string{colUse, colDecision} {
			if c, ok := cells[key]; ok {
				if n, ok := names[fold(c.Text())]; ok {
					cells[key] = backend.ReadCell{Value: n}
				}
			}
		}
	}
}

// sameSpot reports whether two clusters are of one place: overlapping
// spans of one field, or rows without a span of one label.
func sameSpot(a, b *Cluster) bool {
	if a.Start < 0 || b.Start < 0 {
		return a.Start < 0 && b.Start < 0 && a.Code == b.Code
	}
	return a.Field == b.Field && a.Start < b.End && b.Start < a.End
}
