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
//
// Each unit holds the values of the annotators who gave one, and nothing
// for the others, so that ratings take room in proportion to the values,
// however many annotators there are (Row and Cell read them).
type Ratings struct {
	// Coders is the number of annotators.
	Coders int
	// Categories is q, the number of categories.
	Categories int

	Labels []string
	Values []float64
	Sets   [][]string

	// Unit u's values are at start[u]:start[u+1] of coder (the
	// annotator, ascending) and cat (the category).
	start []int
	coder []int
	cat   []int
	// scratch, when set, holds buffers the two-annotator statistics
	// reuse: the ratings of one pair after another, which a study of
	// thousands of annotators has millions of.
	scratch *statScratch
}

// statScratch is what the statistics of one pair of annotators after
// another reuse: the margins of the cross table, and the weight matrices
// (the same for every pair of a question, whose categories they share).
type statScratch struct {
	row, col []int
	weights  map[Weighting][]float64
}

// margins are two zeroed slices of q counts, the scratch's when r has one.
func (r Ratings) margins(q int) (row, col []int) {
	s := r.scratch
	if s == nil {
		return make([]int, q), make([]int, q)
	}
	if cap(s.row) < q {
		s.row, s.col = make([]int, q), make([]int, q)
	}
	s.row, s.col = s.row[:q], s.col[:q]
	clear(s.row)
	clear(s.col)
	return s.row, s.col
}

// Units is the number of units (rows).
func (r Ratings) Units() int {
	return max(0, len(r.start)-1)
}

// Row is unit u's values: the annotators who gave one, in ascending
// order, and each one's category. Both slices are the ratings' own, to
// read only.
func (r Ratings) Row(u int) (coders, cats []int) {
	lo, hi := r.start[u], r.start[u+1]
	return r.coder[lo:hi:hi], r.cat[lo:hi:hi]
}

// Cell is unit u's category from annotator c, or Missing.
func (r Ratings) Cell(u, c int) int {
	coders, cats := r.Row(u)
	if k, ok := slices.BinarySearch(coders, c); ok {
		return cats[k]
	}
	return Missing
}

// Columns is the ratings of annotators i and j alone, in that order,
// with the same units and categories.
func (r Ratings) Columns(i, j int) Ratings {
	out := r
	out.Coders = 2
	n := r.Units()
	out.start = make([]int, 1, n+1)
	out.coder, out.cat = nil, nil
	for u := range n {
		for k, c := range [2]int{i, j} {
			if x := r.Cell(u, c); x != Missing {
				out.coder = append(out.coder, k)
				out.cat = append(out.cat, x)
			}
		}
		out.start = append(out.start, len(out.cat))
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
	var cats []int
	var counts []tally
	for u := 0; u+1 < len(r.start); u++ {
		row := r.cat[r.start[u]:r.start[u+1]]
		counts = counts[:0]
		switch len(row) {
		case 0:
		case 1:
			counts = append(counts, tally{row[0], 1})
		case 2:
			// Most units have two values: no sorting.
			a, b := row[0], row[1]
			switch {
			case a == b:
				counts = append(counts, tally{a, 2})
			case a < b:
				counts = append(counts, tally{a, 1}, tally{b, 1})
			default:
				counts = append(counts, tally{b, 1}, tally{a, 1})
			}
		default:
			cats = append(cats[:0], row...)
			// Insertion sort: a row holds a handful of values.
			for i := 1; i < len(cats); i++ {
				for j := i; j > 0 && cats[j] < cats[j-1]; j-- {
					cats[j], cats[j-1] = cats[j-1], cats[j]
				}
			}
			for _, c := range cats {
				if k := len(counts) - 1; k >= 0 && counts[k].cat == c {
					counts[k].n++
				} else {
					counts = append(counts, tally{c, 1})
				}
			}
		}
		f(u, counts, len(row))
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

// codeCells numbers the values of a table by category, given a function
// that names each value's category by a key, and the keys declared in
// order. Keys seen but not declared are added after the declared ones,
// sorted by less. It returns the ratings, without their categories, and
// the categories' keys.
func codeCells[K comparable](t Table, declared []K, key func(*Value) (K, bool), less func(a, b K) int) (Ratings, []K) {
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
	n := 0
	for _, unit := range t.Units {
		n += len(unit.Values)
	}
	r := Ratings{Coders: coders, start: make([]int, 1, len(t.Units)+1), coder: make([]int, 0, n), cat: make([]int, 0, n)}
	for _, unit := range t.Units {
		for c, v := range unit.All() {
			if c < 0 || c >= coders {
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
			r.coder = append(r.coder, c)
			r.cat = append(r.cat, i)
		}
		r.start = append(r.start, len(r.cat))
	}
	if len(extra) == 0 {
		return r, cats
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
	for i, c := range r.cat {
		if c >= len(cats) {
			r.cat[i] = renumber[c-len(cats)]
		}
	}
	return r, append(cats, sorted...)
}

// ChoiceRatings codes the Code of every value (choice and bool
// questions) by the declared categories.
func ChoiceRatings(t Table, categories []string) Ratings {
	r, cats := codeCells(t, categories, func(v *Value) (string, bool) { return v.Code, true }, strings.Compare)
	r.Categories, r.Labels = len(cats), cats
	return r
}

// ScaleRatings codes the Num of every value (scale questions) by the
// declared levels, taken in ascending order with any other number seen
// among them. A NaN or infinite number is no answer.
func ScaleRatings(t Table, levels []float64) Ratings {
	r, cats := codeCells(t, nil, func(v *Value) (float64, bool) {
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
	for i, c := range r.cat {
		r.cat[i] = renumber[c]
	}
	r.Categories, r.Values = len(all), all
	return r
}

// SetRatings codes the Set of every value (multi and evidence
// questions): each distinct set is a category, in the order of
// slices.Compare. A set is taken sorted and without repeats, whatever
// order it comes in.
func SetRatings(t Table) Ratings {
	seen := map[string][]string{}
	r, keys := codeCells(t, nil, func(v *Value) (string, bool) {
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
	r.Categories, r.Sets = len(keys), sets
	return r
}

// OptionRatings codes, for a multi question, whether each answer selects
// option: category 0 is "no", 1 is "yes".
func OptionRatings(t Table, option string) Ratings {
	r, cats := codeCells(t, []string{"no", "yes"}, func(v *Value) (string, bool) {
		if slices.Contains(v.Set, option) {
			return "yes", true
		}
		return "no", true
	}, strings.Compare)
	r.Categories, r.Labels = len(cats), cats
	return r
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
