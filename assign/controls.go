package assign

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
)

// ErrControls marks control items that cannot be placed as asked: too
// few of them for the batches, or a control given twice.
var ErrControls = errors.New("cannot place the controls")

// ControlOptions say how control items join the batches.
type ControlOptions struct {
	// PerBatch is how many controls every batch gets on top of its items
	// (none when 0).
	PerBatch int
	// Seed is the study's seed: the same seed hides the same controls at
	// the same places, another seed elsewhere.
	Seed uint64
}

// WithControls hides control items, instances whose answers are known, in
// every batch, so that a coordinator can see whose answers to trust. Each
// batch gets opt.PerBatch distinct controls, each put in a gap drawn
// among all the gaps of the batch (first and last included), so that
// nothing in the order gives them away; the batch's other items keep
// their order, and its Units count the controls' units too. The controls
// must not be among the batches' items: the caller takes them out before
// Plan. The batches given are left as they are.
//
// An annotator never gets a control twice: their batches, in the order
// given, take controls in turn from a random order of the controls drawn
// for that annotator, and WithControls refuses when there are too few.
// Shared batches (no annotator) take theirs in turn from one random
// order, and when it runs out from a new one: a shared study may have
// more batches than controls, and its workbooks then share some controls,
// though none has one twice.
//
// The result depends only on the batches, the set of controls (not their
// order) and the seed. An annotator's controls depend on nothing about
// the other annotators, and a batch's places only on its ID and its
// items, so adding a batch for one annotator changes nothing for another.
func WithControls(batches []Batch, controls []Item, opt ControlOptions) ([]Batch, error) {
	out := make([]Batch, len(batches))
	for i, b := range batches {
		b.Items = slices.Clone(b.Items)
		b.Controls = slices.Clone(b.Controls)
		out[i] = b
	}
	n := opt.PerBatch
	if n <= 0 || len(controls) == 0 {
		return out, nil
	}
	units := map[string]int{}
	for _, c := range controls {
		if _, twice := units[c.ID]; twice {
			return nil, fmt.Errorf("%w: control item %q is given twice", ErrControls, c.ID)
		}
		units[c.ID] = c.Units
	}
	if n > len(controls) {
		return nil, fmt.Errorf("%w: %s per batch, but there %s; give more controls or --controls-per-batch %d",
			ErrControls, count(n, "control", "controls"), thereAre(len(controls)), len(controls))
	}
	var annotators []string
	batchesOf := map[string]int{}
	for _, b := range out {
		for _, id := range b.Items {
			if _, ok := units[id]; ok {
				// The caller's mistake, not the user's: GOLD's items are
				// to leave the normal assignment.
				return nil, fmt.Errorf("control item %q is also assigned as an ordinary item (batch %s)", id, b.ID)
			}
		}
		if batchesOf[b.Annotator] == 0 {
			annotators = append(annotators, b.Annotator)
		}
		batchesOf[b.Annotator]++
	}
	for _, a := range annotators {
		if a == "" || batchesOf[a]*n <= len(controls) {
			continue
		}
		hint := fmt.Sprintf("give more controls or --controls-per-batch %d", len(controls)/batchesOf[a])
		if len(controls) < batchesOf[a] {
			hint = fmt.Sprintf("give at least %d controls, or make fewer, larger batches", batchesOf[a]*n)
		}
		return nil, fmt.Errorf("%w: annotator %s has %s of %s each, but there %s; %s", ErrControls,
			a, count(batchesOf[a], "batch", "batches"), count(n, "control", "controls"), thereAre(len(controls)), hint)
	}
	// Sorted, the pool does not depend on the order of the gold file.
	pool := make([]string, 0, len(controls))
	for _, c := range controls {
		pool = append(pool, c.ID)
	}
	slices.Sort(pool)
	draws := map[string]*drawer{}
	for i := range out {
		b := &out[i]
		d := draws[b.Annotator]
		if d == nil {
			d = &drawer{pool: pool, r: rand.New(rand.NewPCG(opt.Seed, key("annotator", b.Annotator)))}
			draws[b.Annotator] = d
		}
		picked := d.take(n)
		r := rand.New(rand.NewPCG(opt.Seed, key("batch", b.ID)))
		for _, c := range picked {
			// One of the len+1 gaps, so that every arrangement of the
			// controls among the items is as likely as any other.
			b.Items = slices.Insert(b.Items, r.IntN(len(b.Items)+1), c)
			b.Units += units[c]
		}
		for _, id := range b.Items {
			if slices.Contains(picked, id) {
				b.Controls = append(b.Controls, id)
			}
		}
	}
	return out, nil
}

// A drawer deals out one consumer's controls (an annotator's, or the
// shared batches'): a random order of the pool, taken in turn.
type drawer struct {
	pool []string
	r    *rand.Rand
	left []string // what remains of the current order
}

// take returns the next n distinct controls, n at most the pool's size.
// When the current order runs out, a new one follows, with the controls
// just taken put last so that none comes twice in one take.
func (d *drawer) take(n int) []string {
	picked := make([]string, 0, n)
	for len(picked) < n {
		if len(d.left) == 0 {
			var fresh, again []string
			for _, j := range d.r.Perm(len(d.pool)) {
				if slices.Contains(picked, d.pool[j]) {
					again = append(again, d.pool[j])
				} else {
					fresh = append(fresh, d.pool[j])
				}
			}
			d.left = append(fresh, again...)
		}
		picked = append(picked, d.left[0])
		d.left = d.left[1:]
	}
	return picked
}

// key hashes an ID into a stream of the seed's random numbers of its own:
// kind keeps an annotator's stream apart from a batch's of the same name.
func key(kind, id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return h.Sum64()
}

// count says n things, "1 batch" or "3 batches".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// thereAre completes "there …" with n controls.
func thereAre(n int) string {
	if n == 1 {
		return "is 1 control"
	}
	return fmt.Sprintf("are %d controls", n)
}
