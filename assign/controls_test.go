package assign

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// study makes perAnnotator batches of size one-unit items for each
// annotator, named as Plan names them.
func study(annotators []string, perAnnotator, size int) []Batch {
	var out []Batch
	for _, a := range annotators {
		for b := range perAnnotator {
			out = append(out, batch(a, b+1, size))
		}
	}
	return out
}

// batch makes the annotator's nth batch of size one-unit items.
func batch(annotator string, nth, size int) Batch {
	id := fmt.Sprintf("%s-b%02d", annotator, nth)
	if annotator == "" {
		id = fmt.Sprintf("b%02d", nth)
	}
	b := Batch{ID: id, Annotator: annotator, Units: size}
	for i := range size {
		b.Items = append(b.Items, fmt.Sprintf("%s-i%02d", id, i))
	}
	return b
}

// gold makes n control items g1, g2 … of the given units each.
func gold(n, units int) []Item {
	out := make([]Item, n)
	for i := range out {
		out[i] = Item{ID: fmt.Sprintf("g%d", i+1), Units: units}
	}
	return out
}

// checkControls asserts what every result of WithControls must hold.
func checkControls(t *testing.T, in []Batch, controls []Item, n int, out []Batch) {
	t.Helper()
	units := map[string]int{}
	for _, c := range controls {
		units[c.ID] = c.Units
	}
	if len(out) != len(in) {
		t.Fatalf("%d batches in, %d out", len(in), len(out))
	}
	had := map[string]map[string]string{} // annotator -> control -> batch
	for i, b := range out {
		was := in[i]
		if b.ID != was.ID || b.Annotator != was.Annotator {
			t.Errorf("batch %d is %s/%s, was %s/%s", i, b.ID, b.Annotator, was.ID, was.Annotator)
		}
		var rest, placed []string
		for _, id := range b.Items {
			if _, ok := units[id]; ok {
				placed = append(placed, id)
			} else {
				rest = append(rest, id)
			}
		}
		if !slices.Equal(rest, was.Items) {
			t.Errorf("%s: items without controls %v, were %v", b.ID, rest, was.Items)
		}
		if !slices.Equal(placed, b.Controls) {
			t.Errorf("%s: controls in items %v, Controls %v", b.ID, placed, b.Controls)
		}
		if len(b.Controls) != n || len(slices.Compact(slices.Sorted(slices.Values(b.Controls)))) != n {
			t.Errorf("%s: controls %v, want %d distinct", b.ID, b.Controls, n)
		}
		want := was.Units
		for _, c := range b.Controls {
			want += units[c]
		}
		if b.Units != want {
			t.Errorf("%s: %d units, want %d", b.ID, b.Units, want)
		}
		if b.Annotator == "" {
			continue
		}
		if had[b.Annotator] == nil {
			had[b.Annotator] = map[string]string{}
		}
		for _, c := range b.Controls {
			if other, twice := had[b.Annotator][c]; twice {
				t.Errorf("annotator %s has control %s in %s and %s", b.Annotator, c, other, b.ID)
			}
			had[b.Annotator][c] = b.ID
		}
	}
}

func TestWithControlsProperties(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		annotators, batches, size, controls, n int
	}{
		{3, 4, 5, 8, 2}, // every annotator sees every control
		{3, 4, 5, 6, 1},
		{3, 3, 5, 9, 2},
		{1, 5, 1, 5, 1},
		{2, 3, 0, 7, 2}, // empty batches still get their controls
		{4, 1, 4, 3, 3},
	} {
		var as []string
		for i := range tc.annotators {
			as = append(as, fmt.Sprintf("a%d", i))
		}
		in := study(as, tc.batches, tc.size)
		ctl := gold(tc.controls, 2)
		for seed := range uint64(20) {
			before := cloneBatches(in)
			out, err := WithControls(in, ctl, ControlOptions{PerBatch: tc.n, Seed: seed})
			if err != nil {
				t.Fatalf("%+v seed %d: %v", tc, seed, err)
			}
			checkControls(t, in, ctl, tc.n, out)
			if diff := cmp.Diff(before, in); diff != "" {
				t.Errorf("the batches given changed:\n%s", diff)
			}
			if t.Failed() {
				t.Fatalf("%+v seed %d", tc, seed)
			}
		}
	}
}

func TestWithControlsThreeByFour(t *testing.T) {
	t.Parallel()
	// 3 annotators × 4 batches with 2 of 6 controls per batch would need 8
	// distinct controls per annotator: refused. With 3 batches each, every
	// annotator sees all six, once; with 1 per batch, four of the six.
	ctl := gold(6, 1)
	as := []string{"ak", "bt", "cm"}
	_, err := WithControls(study(as, 4, 5), ctl, ControlOptions{PerBatch: 2})
	if want := "annotator ak has 4 batches of 2 controls each, but there are 6 controls; give more controls or --controls-per-batch 1"; !errors.Is(err, ErrControls) || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	for seed := range uint64(10) {
		in := study(as, 3, 5)
		out, err := WithControls(in, ctl, ControlOptions{PerBatch: 2, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		checkControls(t, in, ctl, 2, out)
		seen := map[string][]string{}
		for _, b := range out {
			seen[b.Annotator] = append(seen[b.Annotator], b.Controls...)
		}
		for a, cs := range seen {
			slices.Sort(cs)
			if want := []string{"g1", "g2", "g3", "g4", "g5", "g6"}; !slices.Equal(cs, want) {
				t.Errorf("seed %d: %s saw %v, want %v", seed, a, cs, want)
			}
		}
		in = study(as, 4, 5)
		out, err = WithControls(in, ctl, ControlOptions{PerBatch: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		checkControls(t, in, ctl, 1, out)
	}
}

func TestWithControlsDeterministic(t *testing.T) {
	t.Parallel()
	in := study([]string{"ak", "bt", "cm"}, 2, 20)
	ctl := gold(6, 1)
	opt := ControlOptions{PerBatch: 2, Seed: 7}
	a, err := WithControls(in, ctl, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := WithControls(in, ctl, opt)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different placements:\n%s", diff)
	}
	// The order of the gold file does not matter.
	reversed := slices.Clone(ctl)
	slices.Reverse(reversed)
	if c, _ := WithControls(in, reversed, opt); !cmp.Equal(a, c) {
		t.Errorf("controls in another order give other placements:\n%s", cmp.Diff(a, c))
	}
	differ := 0
	for seed := uint64(8); seed < 18; seed++ {
		opt.Seed = seed
		c, _ := WithControls(in, ctl, opt)
		if !cmp.Equal(a, c) {
			differ++
		}
	}
	if differ < 10 {
		t.Errorf("only %d of 10 other seeds give other placements", differ)
	}
}

func TestWithControlsAnyGap(t *testing.T) {
	t.Parallel()
	// One control among three items can land in any of the four gaps:
	// first, last or between.
	in := []Batch{{ID: "ak-b01", Annotator: "ak", Items: []string{"x", "y", "z"}, Units: 3}}
	seen := map[int]int{}
	for seed := range uint64(200) {
		out, err := WithControls(in, gold(1, 1), ControlOptions{PerBatch: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		seen[slices.Index(out[0].Items, "g1")]++
	}
	for gap := range 4 {
		// 50 expected of 200; fewer than 25 is all but impossible.
		if seen[gap] < 25 {
			t.Errorf("position %d taken %d times in 200: %v", gap, seen[gap], seen)
		}
	}
}

func TestWithControlsUnits(t *testing.T) {
	t.Parallel()
	in := []Batch{{ID: "b01", Items: []string{"a", "b"}, Units: 5}}
	out, err := WithControls(in, []Item{{"g1", 3}, {"g2", 4}}, ControlOptions{PerBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0]; got.Units != 12 || len(got.Items) != 4 || len(got.Controls) != 2 {
		t.Errorf("got %+v, want 4 items of 12 units with 2 controls", got)
	}
}

func TestWithControlsRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		batches  []Batch
		controls []Item
		n        int
		want     string
		options  bool // whether the error wraps ErrControls
	}{
		{"pool too small", study([]string{"ak"}, 3, 2), gold(5, 1), 2,
			"cannot place the controls: annotator ak has 3 batches of 2 controls each, but there are 5 controls; give more controls or --controls-per-batch 1", true},
		{"fewer controls than batches", study([]string{"bt", "ak"}, 2, 2), gold(1, 1), 1,
			"cannot place the controls: annotator bt has 2 batches of 1 control each, but there is 1 control; give at least 2 controls, or make fewer, larger batches", true},
		{"more per batch than controls", study([]string{"ak"}, 1, 2), gold(2, 1), 3,
			"cannot place the controls: 3 controls per batch, but there are 2 controls; give more controls or --controls-per-batch 2", true},
		{"control given twice", study([]string{"ak"}, 1, 2), []Item{{"g1", 1}, {"g2", 1}, {"g1", 1}}, 1,
			`cannot place the controls: control item "g1" is given twice`, true},
		{"control among the items", study([]string{"ak"}, 2, 2), []Item{{"g1", 1}, {"ak-b02-i01", 1}}, 1,
			`control item "ak-b02-i01" is also assigned as an ordinary item (batch ak-b02)`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := WithControls(tc.batches, tc.controls, ControlOptions{PerBatch: tc.n, Seed: 1})
			if err == nil {
				t.Fatalf("no error: %+v", out)
			}
			if err.Error() != tc.want || errors.Is(err, ErrControls) != tc.options {
				t.Errorf("got %q (ErrControls %t), want %q (%t)", err, errors.Is(err, ErrControls), tc.want, tc.options)
			}
		})
	}
}

func TestWithControlsSharedCycle(t *testing.T) {
	t.Parallel()
	// Five shared batches of two controls from three: ten draws, so the
	// controls come round again, three times each and one a fourth time,
	// though never twice in one batch.
	in := study([]string{""}, 5, 4)
	ctl := gold(3, 1)
	for seed := range uint64(20) {
		out, err := WithControls(in, ctl, ControlOptions{PerBatch: 2, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		checkControls(t, in, ctl, 2, out)
		uses := map[string]int{}
		for _, b := range out {
			for _, c := range b.Controls {
				uses[c]++
			}
		}
		got := []int{uses["g1"], uses["g2"], uses["g3"]}
		slices.Sort(got)
		if !slices.Equal(got, []int{3, 3, 4}) {
			t.Errorf("seed %d: controls used %v times", seed, uses)
		}
	}
}

func TestWithControlsAddedBatch(t *testing.T) {
	t.Parallel()
	ctl := gold(6, 1)
	opt := ControlOptions{PerBatch: 2, Seed: 3}
	in := study([]string{"ak", "bt"}, 2, 6)
	before, err := WithControls(in, ctl, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Another annotator's batch, first and in the middle, and a third
	// batch for ak: none changes the batches there were.
	more := append([]Batch{batch("cm", 1, 6)}, in[:2]...)
	more = append(more, batch("dl", 1, 3), batch("ak", 3, 6))
	more = append(more, in[2:]...)
	after, err := WithControls(more, ctl, opt)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Batch{}
	for _, b := range after {
		byID[b.ID] = b
	}
	for _, b := range before {
		if diff := cmp.Diff(b, byID[b.ID]); diff != "" {
			t.Errorf("%s changed:\n%s", b.ID, diff)
		}
	}
}

func TestWithControlsNone(t *testing.T) {
	t.Parallel()
	in := study([]string{"ak"}, 2, 3)
	for _, tc := range []struct {
		name     string
		controls []Item
		n        int
	}{
		{"none per batch", gold(3, 1), 0},
		{"negative per batch", gold(3, 1), -1},
		{"no controls", nil, 2},
	} {
		out, err := WithControls(in, tc.controls, ControlOptions{PerBatch: tc.n})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(in, out); diff != "" {
			t.Errorf("%s: batches changed:\n%s", tc.name, diff)
		}
		out[0].Items[0] = "changed"
		if in[0].Items[0] == "changed" {
			t.Fatalf("%s: the result shares the batches given", tc.name)
		}
	}
}

func cloneBatches(bs []Batch) []Batch {
	out := slices.Clone(bs)
	for i := range out {
		out[i].Items = slices.Clone(out[i].Items)
		out[i].Controls = slices.Clone(out[i].Controls)
	}
	return out
}
