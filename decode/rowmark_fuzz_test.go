package decode

import (
	"strconv"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// FuzzRowMark: for any set of unit IDs, the mark generate chooses makes
// every numbered hidden cell read back as its own unit and row, and no
// cell is read as another unit's.
func FuzzRowMark(f *testing.F) {
	for _, seed := range []string{"q\nq#2", "a\n a \nb#3", "x#2#2\nx#2\nx", "1\n1#2\n1##2\n1###2", " \n#\n##2"} {
		f.Add(seed, 3)
	}
	tp, err := templates.Builtin("qa-span-errors")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, list string, rows int) {
		rows = 2 + abs(rows)%6
		p := &puller{byID: map[string]int{}, byTrimmed: map[string]int{}}
		var units []layout.Unit
		for _, id := range strings.Split(list, "\n") {
			if _, dup := p.byID[id]; dup || len(units) == 50 {
				continue
			}
			k := len(units)
			p.byID[id] = k
			if _, shared := p.byTrimmed[strings.TrimSpace(id)]; shared {
				p.byTrimmed[strings.TrimSpace(id)] = -1
			} else {
				p.byTrimmed[strings.TrimSpace(id)] = k
			}
			units = append(units, layout.Unit{ID: id, Rows: rows})
		}
		p.meta.RowMark = layout.RowMark(tp, units)
		if p.meta.RowMark == "" {
			t.Fatal("no mark for a block template")
		}
		p.units = units
		for k, u := range units {
			for n := 1; n <= rows; n++ {
				cell := u.ID
				if n > 1 {
					cell += p.meta.RowMark + strconv.Itoa(n)
				}
				gotK, gotN, ok := p.unitOf(cell)
				unique := p.byTrimmed[strings.TrimSpace(u.ID)] == k
				if n == 1 || unique {
					if !ok || gotK != k || gotN != n {
						t.Errorf("mark %q: cell %q read as unit %d row %d (%v), want unit %d (%q) row %d", p.meta.RowMark, cell, gotK, gotN, ok, k, u.ID, n)
					}
				} else if ok && gotK != k && p.byTrimmed[strings.TrimSpace(units[gotK].ID)] == gotK {
					t.Errorf("mark %q: cell %q of unit %q read as another unit %q", p.meta.RowMark, cell, u.ID, units[gotK].ID)
				}
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
