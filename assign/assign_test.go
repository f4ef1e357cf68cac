package assign

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func items(n int, units func(i int) int) []Item {
	out := make([]Item, n)
	for i := range out {
		out[i] = Item{ID: fmt.Sprintf("i%03d", i), Units: units(i)}
	}
	return out
}

func one(int) int { return 1 }

// check asserts the properties every plan must have.
func check(t *testing.T, its []Item, opt Options, bs []Batch) {
	t.Helper()
	k := max(opt.Overlap, 1)
	who := map[string][]string{} // item -> annotators
	load := map[string]int{}
	index := map[string]int{}
	for i, it := range its {
		index[it.ID] = i
	}
	maxUnits := 0
	for _, it := range its {
		maxUnits = max(maxUnits, it.Units)
	}
	for _, b := range bs {
		if b.Annotator == "" {
			t.Fatalf("batch %s has no annotator", b.ID)
		}
		units := 0
		for j, id := range b.Items {
			who[id] = append(who[id], b.Annotator)
			if j > 0 && index[b.Items[j-1]] > index[id] {
				t.Errorf("batch %s is not in input order", b.ID)
			}
			units += its[index[id]].Units
		}
		if units != b.Units {
			t.Errorf("batch %s counts %d units, holds %d", b.ID, b.Units, units)
		}
		if opt.BatchSize > 0 && b.Units > opt.BatchSize && len(b.Items) > 1 {
			t.Errorf("batch %s has %d units, over %d", b.ID, b.Units, opt.BatchSize)
		}
		load[b.Annotator] += b.Units
	}
	for _, it := range its {
		as := who[it.ID]
		if len(as) != k {
			t.Errorf("item %s went to %d annotators, want %d", it.ID, len(as), k)
		}
		slices.Sort(as)
		if len(slices.Compact(as)) != len(as) {
			t.Errorf("item %s went twice to one annotator: %v", it.ID, as)
		}
	}
	lo, hi := int(^uint(0)>>1), 0
	for _, a := range opt.Annotators {
		lo, hi = min(lo, load[a]), max(hi, load[a])
	}
	if hi-lo > max(1, maxUnits) {
		t.Errorf("loads from %d to %d units (largest item %d): %v", lo, hi, maxUnits, load)
	}
}

func TestPlanProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + r.IntN(6)
		var annotators []string
		for i := range n {
			annotators = append(annotators, fmt.Sprintf("a%d", i))
		}
		opt := Options{Annotators: annotators, Overlap: 1 + r.IntN(n), BatchSize: r.IntN(12), Seed: r.Uint64()}
		units := one
		if trial%3 == 0 {
			units = func(int) int { return 1 + r.IntN(5) }
		}
		its := items(r.IntN(80), units)
		bs, err := Plan(its, opt)
		if err != nil {
			t.Fatal(err)
		}
		check(t, its, opt, bs)
		if t.Failed() {
			t.Fatalf("trial %d: %+v", trial, opt)
		}
	}
}

func TestPlanLoadsWithinOne(t *testing.T) {
	// Single-unit items: loads differ by at most one, whatever the sizes.
	for n := 1; n <= 7; n++ {
		for k := 1; k <= n; k++ {
			for _, m := range []int{0, 1, 5, 10, 11, 97} {
				var as []string
				for i := range n {
					as = append(as, fmt.Sprintf("a%d", i))
				}
				opt := Options{Annotators: as, Overlap: k, Seed: uint64(n*100 + k)}
				its := items(m, one)
				bs, err := Plan(its, opt)
				if err != nil {
					t.Fatal(err)
				}
				check(t, its, opt, bs)
			}
		}
	}
}

func TestPlanDeterministic(t *testing.T) {
	its := items(40, one)
	opt := Options{Annotators: []string{"ak", "bt", "cm", "dl"}, Overlap: 2, BatchSize: 7, Seed: 11}
	a, _ := Plan(its, opt)
	b, _ := Plan(its, opt)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different plans:\n%s", diff)
	}
	differ := 0
	for seed := uint64(12); seed < 22; seed++ {
		opt.Seed = seed
		c, _ := Plan(its, opt)
		if !cmp.Equal(a, c) {
			differ++
		}
	}
	if differ < 9 {
		t.Errorf("only %d of 10 other seeds give another plan", differ)
	}
}

func TestPlanEveryoneEverything(t *testing.T) {
	// The preference workflow: overlap equal to the number of annotators.
	its := items(10, one)
	bs, err := Plan(its, Options{Annotators: []string{"1", "2", "3"}, Overlap: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1-b01", "2-b01", "3-b01"}
	var got []string
	for _, b := range bs {
		got = append(got, b.ID)
		if len(b.Items) != 10 {
			t.Errorf("%s has %d items", b.ID, len(b.Items))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestPlanShared(t *testing.T) {
	its := items(10, func(i int) int { return 1 + i%3 })
	bs, err := Plan(its, Options{BatchSize: 6})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	total := 0
	for _, b := range bs {
		ids = append(ids, b.ID)
		total += len(b.Items)
		if b.Annotator != "" || b.Units > 6 {
			t.Errorf("batch %+v", b)
		}
	}
	if total != 10 || ids[0] != "b01" {
		t.Errorf("batches %v hold %d items", ids, total)
	}
	if bs, _ := Plan(nil, Options{}); len(bs) != 1 || bs[0].ID != "b01" {
		t.Errorf("no items: %+v", bs)
	}
	// An item larger than a batch has a batch of its own.
	bs, _ = Plan([]Item{{"big", 9}, {"a", 1}}, Options{BatchSize: 4})
	if len(bs) != 2 || bs[0].Units != 9 {
		t.Errorf("big item: %+v", bs)
	}
}

func TestPlanRefusals(t *testing.T) {
	its := items(3, one)
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Annotators: []string{"a", "b"}, Overlap: 3}, "an overlap of 3 needs at least 3 annotators, not 2"},
		{Options{Overlap: 2}, "an overlap of 2 needs annotators"},
		{Options{Annotators: []string{"a", "a"}}, `annotator "a" is named twice`},
		{Options{Annotators: []string{"AK", "bt", "ak"}}, `annotators "AK" and "ak" differ only in case`},
		{Options{Annotators: []string{"a/b"}}, `annotator ID "a/b"`},
		{Options{Annotators: []string{""}}, `annotator ID ""`},
		{Options{BatchSize: -1}, "batch size -1: give a positive number"},
	} {
		_, err := Plan(its, tc.opt)
		if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.opt, err, tc.want)
		}
	}
	for _, ok := range []string{"ann1", "a.k@lab.example.org", "x_y-z+1"} {
		if !ValidAnnotator(ok) {
			t.Errorf("%q refused", ok)
		}
	}
}
