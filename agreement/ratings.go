package agreement

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"strings"
)

// Missing is the category index of a cell without a value.
const Missing = -1

// Ratings is reliability data coded by category: each value of a Table
// replaced by the index of its category, so that every statistic counts
// integers. The categories are those the caller declares, in the
// declared order, then any value seen that was not declared.
// Depending on the question, each category also has a label (Labels:
// choice codes, normalised texts), a number (Values: scale levels,
// ascending) or a set (Sets: multi and evidence answers); the metrics
// that need one of them say so.
type Ratings struct {
	// Coders is the number of annotators: the width of a row of Cells.
	Coders int
	// Categories is q, the number of categories.
	Categories int
	// Cells holds unit u's category from annotator c at u*Coders+c, or
	// Missing.
	Cells []int

	Labels []string
	Values []float64
	Sets   [][]string
}

// Units is the number of units (rows).
func (r Ratings) Units() int {
	if r.Coders == 0 {
		return 0
	}
	return len(r.Cells) / r.Coders
}

// Columns is the ratings of annotators i and j alone, in that order,
// with the same categories.
func (r Ratings) Columns(i, j int) Ratings {
	n := r.Units()
	out := r
	out.Coders = 2
	out.Cells = make([]int, 2*n)
	for u := range n {
		out.Cells[2*u] = r.Cells[u*r.Coders+i]
		out.Cells[2*u+1] = r.Cells[u*r.Coders+j]
	}
	return out
}

// The reasons a statistic has no value on the data. Their text is what a
// report's note says.
var (
	ErrNoPairable     = errors.New("no unit has two or more values")
	ErrNoVariation    = errors.New("no variation: every value is the same")
	ErrChanceIsOne    = errors.New("chance agreement is 1: the annotators used one category only")
	ErrNotTwo         = errors.New("needs exactly two annotators")
	ErrOneCategory    = errors.New("needs two or more categories")
	ErrNotNumeric     = errors.New("needs numeric values")
	ErrNotSets        = errors.New("needs set values")
	ErrNotLabelled    = errors.New("needs labelled categories")
	ErrNegative       = errors.New("the ratio level needs values of zero or more")
	ErrNeverChosen    = errors.New("never chosen in a unit with two or more values")
	ErrNoSuchCategory = errors.New("no such category")
)

// tally is how many values of a unit fall in one category.
type tally struct{ cat, n int }

// eachUnit calls f for every unit in order with its values counted by
// category, in category order (never in annotator order, so that sums do
// not change when annotators are renamed), and m, the number of values.
// The slice is reused from call to call.
func (r Ratings) eachUnit(f func(u int, counts []tally, m int)) {
	cats := make([]int, 0, r.Coders)
	counts := make([]tally, 0, r.Coders)
	for u := range r.Units() {
		cats = cats[:0]
		for _, c := range r.Cells[u*r.Coders : (u+1)*r.Coders] {
			if c != Missing {
				cats = append(cats, c)
			}
		}
		// Insertion sort: a row holds a handful of values.
		for i := 1; i < len(cats); i++ {
			for j := i; j > 0 && cats[j] < cats[j-1]; j-- {
				cats[j], cats[j-1] = cats[j-1], cats[j]
			}
		}
		counts = counts[:0]
		for _, c := range cats {
			if k := len(counts) - 1; k >= 0 && counts[k].cat == c {
				counts[k].n++
			} else {
				counts = append(counts, tally{c, 1})
			}
		}
		f(u, counts, len(cats))
	}
}

// marginals counts the pairable values (those in units with two or more)
// by category, and returns their total.
func (r Ratings) marginals() ([]int, int) {
	n := make([]int, r.Categories)
	total := 0
	r.eachUnit(func(_ int, counts []tally, m int) {
		if m < 2 {
			return
		}
		for _, c := range counts {
			n[c.cat] += c.n
		}
		total += m
	})
	return n, total
}

// cellOf is the cell of coder c in unit u, or nil.
func cellOf(u Unit, c int) *Value {
	if c < len(u.Values) {
		return u.Values[c]
	}
	return nil
}

// codeCells numbers the values of a table by category, given a function
// that names each value's category by a key, and the keys declared in
// order. Keys seen but not declared are added after the declared ones,
// sorted by less. It returns the cells and the categories' keys.
func codeCells[K comparable](t Table, declared []K, key func(*Value) (K, bool), less func(a, b K) int) ([]int, []K) {
	index := make(map[K]int, len(declared))
	cats := make([]K, 0, len(declared))
	for _, k := range declared {
		if _, dup := index[k]; !dup {
			index[k] = len(cats)
			cats = append(cats, k)
		}
	}
	var extra []K
	coders := len(t.Coders)
	cells := make([]int, len(t.Units)*coders)
	for u, unit := range t.Units {
		for c := range coders {
			cells[u*coders+c] = Missing
			v := cellOf(unit, c)
			if v == nil {
				continue
			}
			k, ok := key(v)
			if !ok {
				continue
			}
			i, seen := index[k]
			if !seen {
				i = len(cats) + len(extra)
				index[k] = i
				extra = append(extra, k)
			}
			cells[u*coders+c] = i
		}
	}
	if len(extra) == 0 {
		return cells, cats
	}
	// Undeclared keys were numbered as seen; number them in sorted order.
	sorted := slices.Clone(extra)
	slices.SortFunc(sorted, less)
	for i, k := range sorted {
		index[k] = len(cats) + i
	}
	renumber := make([]int, len(extra))
	for i, k := range extra {
		renumber[i] = index[k]
	}
	for i, c := range cells {
		if c >= len(cats) {
			cells[i] = renumber[c-len(cats)]
		}
	}
	return cells, append(cats, sorted...)
}

// ChoiceRatings codes the Code of every value (choice and bool
// questions) by the declared categories.
func ChoiceRatings(t Table, categories []string) Ratings {
	cells, cats := codeCells(t, categories, func(v *Value) (string, bool) { return v.Code, true }, strings.Compare)
	return Ratings{Coders: len(t.Coders), Categories: len(cats), Cells: cells, Labels: cats}
}

// ScaleRatings codes the Num of every value (scale questions) by the
// declared levels, taken in ascending order with any other number seen
// among them. A NaN or infinite number is no answer.
func ScaleRatings(t Table, levels []float64) Ratings {
	cells, cats := codeCells(t, nil, func(v *Value) (float64, bool) {
		return v.Num, !math.IsNaN(v.Num) && !math.IsInf(v.Num, 0)
	}, cmp.Compare[float64])
	// Categories in ascending order: the declared levels and the numbers
	// seen.
	all := slices.Clone(cats)
	for _, l := range levels {
		if !math.IsNaN(l) && !math.IsInf(l, 0) {
			all = append(all, l)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	renumber := make([]int, len(cats))
	for i, v := range cats {
		renumber[i], _ = slices.BinarySearch(all, v)
	}
	for i, c := range cells {
		if c != Missing {
			cells[i] = renumber[c]
		}
	}
	return Ratings{Coders: len(t.Coders), Categories: len(all), Cells: cells, Values: all}
}

// SetRatings codes the Set of every value (multi and evidence
// questions): each distinct set is a category, in the order of
// slices.Compare. A set is taken sorted and without repeats, whatever
// order it comes in.
func SetRatings(t Table) Ratings {
	seen := map[string][]string{}
	cells, keys := codeCells(t, nil, func(v *Value) (string, bool) {
		s := normalSet(v.Set)
		k := setKey(s)
		if _, ok := seen[k]; !ok {
			seen[k] = s
		}
		return k, true
	}, strings.Compare)
	// The keys sort as the sets do (see setKey).
	sets := make([][]string, len(keys))
	for i, k := range keys {
		sets[i] = seen[k]
	}
	return Ratings{Coders: len(t.Coders), Categories: len(keys), Cells: cells, Sets: sets}
}

// OptionRatings codes, for a multi question, whether each answer selects
// option: category 0 is "no", 1 is "yes".
func OptionRatings(t Table, option string) Ratings {
	cells, cats := codeCells(t, []string{"no", "yes"}, func(v *Value) (string, bool) {
		if slices.Contains(v.Set, option) {
			return "yes", true
		}
		return "no", true
	}, strings.Compare)
	return Ratings{Coders: len(t.Coders), Categories: len(cats), Cells: cells, Labels: cats}
}

// normalSet is s sorted and without repeats (s itself when it already
// is).
func normalSet(s []string) []string {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			s = slices.Clone(s)
			slices.Sort(s)
			return slices.Compact(s)
		}
	}
	if s == nil {
		return []string{}
	}
	return s
}

// setKey encodes a sorted set as a string that sorts as slices.Compare
// sorts the sets: every element is followed by a byte 0x00 escaped inside
// elements as 0x01 0x01 (and 0x01 as 0x01 0x02), so that a shorter
// element sorts first.
func setKey(s []string) string {
	var b strings.Builder
	for _, e := range s {
		for i := 0; i < len(e); i++ {
			switch e[i] {
			case 0:
				b.WriteString("\x01\x01")
			case 1:
				b.WriteString("\x01\x02")
			default:
				b.WriteByte(e[i])
			}
		}
		b.WriteByte(0)
	}
	return b.String()
}
