package decode_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

func TestUnshuffleValues(t *testing.T) {
	tp, err := templates.Builtin("preference-likert")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]any{
		"best_prediction_reference": "first", // the place shown first
		"best_prediction_topic":     "third", // the place shown third
		"first_prediction_likert":   5,       // place 1
		"second_prediction_likert":  2,       // place 2
		"note":                      "kept",  // not a candidate's
	}
	for _, tc := range []struct {
		order []string
		want  map[string]any
	}{
		{[]string{"first", "second", "third"}, shown},
		{[]string{"third", "first", "second"}, map[string]any{
			"best_prediction_reference": "third", "best_prediction_topic": "second",
			"third_prediction_likert": 5, "first_prediction_likert": 2, "note": "kept",
		}},
		{[]string{"second", "third", "first"}, map[string]any{
			"best_prediction_reference": "second", "best_prediction_topic": "first",
			"second_prediction_likert": 5, "third_prediction_likert": 2, "note": "kept",
		}},
	} {
		got, err := layout.UnshuffleValues(tp, shown, tc.order)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("order %v (-want +got):\n%s", tc.order, diff)
		}
	}
	for _, bad := range [][]string{{"first", "second"}, {"first", "first", "third"}, {"first", "second", "fourth"}} {
		if _, err := layout.UnshuffleValues(tp, shown, bad); err == nil {
			t.Errorf("order %v accepted", bad)
		}
	}
}

// TestShuffleOrder: orders are drawn per instance and seed, repeatably,
// and every order is a permutation of the candidates.
func TestShuffleOrder(t *testing.T) {
	tp, err := templates.Builtin("preference-likert")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := range 60 {
		item := string(rune('a'+i%26)) + string(rune('a'+i/26))
		o := layout.ShuffleOrder(tp, 7, item)
		if diff := cmp.Diff(o, layout.ShuffleOrder(tp, 7, item)); diff != "" {
			t.Fatalf("not repeatable: %s", diff)
		}
		got := map[string]bool{}
		for _, c := range o {
			got[c] = true
		}
		if len(o) != 3 || !got["first"] || !got["second"] || !got["third"] {
			t.Fatalf("order %v is not a permutation", o)
		}
		seen[o[0]+o[1]+o[2]] = true
	}
	if len(seen) != 6 {
		t.Errorf("%d of the 6 orders drawn in 60 instances", len(seen))
	}
	if cmp.Equal(layout.ShuffleOrder(tp, 1, "x"), layout.ShuffleOrder(tp, 2, "x")) && cmp.Equal(layout.ShuffleOrder(tp, 1, "y"), layout.ShuffleOrder(tp, 2, "y")) && cmp.Equal(layout.ShuffleOrder(tp, 1, "z"), layout.ShuffleOrder(tp, 2, "z")) {
		t.Error("the seed changes nothing")
	}
}

// TestShownValues: answers put in the places their candidates were shown
// in come back onto their candidates, for every order.
func TestShownValues(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("preference-likert")
	if err != nil {
		t.Fatal(err)
	}
	given := map[string]any{
		"best_prediction_reference": "second",
		"best_prediction_topic":     "third",
		"first_prediction_likert":   5,
		"third_prediction_likert":   1,
		"note":                      "kept",
	}
	orders := [][]string{
		{"first", "second", "third"}, {"first", "third", "second"}, {"second", "first", "third"},
		{"second", "third", "first"}, {"third", "first", "second"}, {"third", "second", "first"},
	}
	for _, order := range orders {
		shown, err := layout.ShownValues(tp, given, order)
		if err != nil {
			t.Fatal(err)
		}
		// The candidate shown first is order[0]: its scale is place 1's.
		if order[0] == "first" && shown["first_prediction_likert"] != 5 || order[0] == "third" && shown["first_prediction_likert"] != 1 {
			t.Errorf("order %v: place 1 shows %v", order, shown["first_prediction_likert"])
		}
		back, err := layout.UnshuffleValues(tp, shown, order)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(given, back); diff != "" {
			t.Errorf("order %v (-given +back):\n%s", order, diff)
		}
	}
	if _, err := layout.ShownValues(tp, given, []string{"first", "first", "third"}); err == nil {
		t.Error("an order that repeats a candidate accepted")
	}
}
