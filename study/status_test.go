package study

import "testing"

func TestTallyBar(t *testing.T) {
	for _, c := range []struct {
		units, complete, partial int
		done, part               int
	}{
		{0, 0, 0, 0, 0},
		{9, 0, 4, 0, 9},
		{9, 9, 0, 20, 0},
		{3, 1, 1, 7, 6},
		{3, 0, 3, 0, 20},
		{1000, 1, 0, 0, 0},
		{1000, 999, 1, 20, 0},
		{40, 1, 0, 1, 0}, // half a cell rounds up
	} {
		tl := &Tally{Units: c.units, Complete: c.complete, Partial: c.partial}
		d, p := tl.Bar(20)
		if d != c.done || p != c.part || d+p > 20 {
			t.Errorf("%d units, %d complete, %d partial: bar %d+%d, want %d+%d", c.units, c.complete, c.partial, d, p, c.done, c.part)
		}
	}
}
