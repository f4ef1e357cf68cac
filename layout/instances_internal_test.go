package layout

import "testing"

// TestInstances counts instances as their units stand: side by side.
func TestInstances(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		items []string
		want  int
	}{
		{nil, 0},
		{[]string{"a"}, 1},
		{[]string{"a", "a", "b", "c", "c", "c"}, 3},
		{[]string{"a", "b", "a"}, 3},
	} {
		r := &Result{}
		for _, it := range tc.items {
			r.Units = append(r.Units, Unit{Item: it})
		}
		if got := r.Instances(); got != tc.want {
			t.Errorf("Instances of %q = %d, want %d", tc.items, got, tc.want)
		}
	}
}
