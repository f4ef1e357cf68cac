// Package assign shares out the instances of a study: each goes to K
// distinct annotators (overlap, for agreement), loads stay even, and each
// annotator's share is cut into batches of manageable size. The result
// depends only on the inputs and the seed.
//
//	batches, err := assign.Plan(items, assign.Options{Annotators: []string{"ak", "bt", "cm"}, Overlap: 2, BatchSize: 50, Seed: 7})
package assign

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"

	"github.com/annosheet/annosheet/internal/filename"
)

// Item is an instance to assign, with the number of units (rows or
// blocks) it brings: an annotator takes all of an instance.
type Item struct {
	ID    string
	Units int
}

// Options say who annotates and how the work is cut.
type Options struct {
	// Annotators are the annotators' IDs; none gives shared workbooks,
	// where annotators claim rows by typing their ID.
	Annotators []string
	// Overlap is how many distinct annotators judge each instance (1 when
	// 0); it can be at most the number of annotators.
	Overlap int
	// BatchSize bounds the units of one batch (0: no bound). An instance
	// is never split, so one with more units makes a batch of its own.
	BatchSize int
	// Seed makes the assignment repeatable; another seed gives another.
	Seed uint64
}

// Batch is one workbook's share: its annotator ("" for a shared one) and
// its instances, in input order as Plan makes it. WithControls then hides
// control items among them at random places, so that Items is no longer
// in input order (the others keep theirs) and Units counts the controls
// too.
type Batch struct {
	ID        string
	Annotator string
	Items     []string
	Units     int
	// Controls are the control items among Items, in the order they
	// appear there; none until WithControls adds them.
	Controls []string
}

// ErrOptions marks assignment options that cannot be met.
var ErrOptions = errors.New("bad assignment")

var idRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$`)

// ValidAnnotator reports whether an annotator ID can name files: letters,
// digits and . _ @ + -, an email address for instance.
func ValidAnnotator(id string) bool { return idRe.MatchString(id) }

// Plan assigns the items and cuts the batches. Every item goes to exactly
// Overlap distinct annotators; the annotators' loads, in units, differ by
// no more than the largest item (by at most one when every item is one
// unit). Batches are named ANNOTATOR-b01, -b02 … (b01, b02 … when
// shared), in input order within each annotator.
func Plan(items []Item, opt Options) ([]Batch, error) {
	if opt.BatchSize < 0 {
		return nil, fmt.Errorf("%w: batch size %d: give a positive number of units (or 0 for no bound)", ErrOptions, opt.BatchSize)
	}
	if len(opt.Annotators) == 0 {
		if opt.Overlap > 1 {
			return nil, fmt.Errorf("%w: an overlap of %d needs annotators", ErrOptions, opt.Overlap)
		}
		return cut("", items, opt.BatchSize, "b%02d"), nil
	}
	k := max(opt.Overlap, 1)
	seen := map[string]string{}
	for _, a := range opt.Annotators {
		other, twice := seen[filename.Key(a)]
		switch {
		case !ValidAnnotator(a):
			return nil, fmt.Errorf("%w: annotator ID %q: use letters, digits and . _ @ + - (it names files)", ErrOptions, a)
		case twice && other == a:
			return nil, fmt.Errorf("%w: annotator %q is named twice", ErrOptions, a)
		case twice:
			// One file on a system that ignores case (macOS, Windows).
			return nil, fmt.Errorf("%w: annotators %q and %q differ only in case, and would share their workbooks' files", ErrOptions, other, a)
		}
		seen[filename.Key(a)] = a
	}
	if k > len(opt.Annotators) {
		return nil, fmt.Errorf("%w: an overlap of %d needs at least %d annotators, not %d", ErrOptions, k, k, len(opt.Annotators))
	}
	r := rand.New(rand.NewPCG(opt.Seed, 0x616e6e6f73686565)) // "annoshee"
	// A random order of the annotators breaks ties, and a random order of
	// the items spreads them.
	rank := map[string]int{}
	for i, j := range r.Perm(len(opt.Annotators)) {
		rank[opt.Annotators[j]] = i
	}
	order := r.Perm(len(items))
	// Large items first, so that the small ones even out the loads.
	slices.SortStableFunc(order, func(a, b int) int { return items[b].Units - items[a].Units })
	units, count := map[string]int{}, map[string]int{}
	share := map[string]map[int]bool{}
	for _, a := range opt.Annotators {
		share[a] = map[int]bool{}
	}
	byLoad := slices.Clone(opt.Annotators)
	for _, i := range order {
		slices.SortFunc(byLoad, func(a, b string) int {
			switch {
			case units[a] != units[b]:
				return units[a] - units[b]
			case count[a] != count[b]:
				return count[a] - count[b]
			}
			return rank[a] - rank[b]
		})
		for _, a := range byLoad[:k] {
			share[a][i] = true
			units[a] += items[i].Units
			count[a]++
		}
		// The next tie goes to someone else.
		for _, a := range byLoad[:k] {
			rank[a] += len(opt.Annotators)
		}
	}
	var out []Batch
	for _, a := range opt.Annotators {
		var mine []Item
		for i, it := range items {
			if share[a][i] {
				mine = append(mine, it)
			}
		}
		out = append(out, cut(a, mine, opt.BatchSize, a+"-b%02d")...)
	}
	return out, nil
}

// cut splits items, in order, into batches of at most size units.
func cut(annotator string, items []Item, size int, name string) []Batch {
	var out []Batch
	var b *Batch
	for _, it := range items {
		if b == nil || size > 0 && b.Units+it.Units > size && len(b.Items) > 0 {
			out = append(out, Batch{ID: fmt.Sprintf(name, len(out)+1), Annotator: annotator})
			b = &out[len(out)-1]
		}
		b.Items = append(b.Items, it.ID)
		b.Units += it.Units
	}
	if len(out) == 0 && annotator == "" {
		// A shared workbook with nothing to annotate still says so.
		out = append(out, Batch{ID: fmt.Sprintf(name, 1)})
	}
	return out
}
