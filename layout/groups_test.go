package layout_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// sourceItems reads every record of the files with Items.
func sourceItems(t *testing.T, tp *templates.Template, keys map[string]map[string]string, files ...string) ([]*layout.SourceItem, error) {
	t.Helper()
	src, err := input.Open(tp.Input.Format, files)
	if err != nil {
		t.Fatal(err)
	}
	var items []*layout.SourceItem
	err = layout.Items(tp, src, keys, func(si *layout.SourceItem) error {
		items = append(items, si)
		return nil
	})
	return items, err
}

// TestItemsGroups: each unit gets the built-ins' groups and pair keys,
// from the real values where the workbook shows labels.
func TestItemsGroups(t *testing.T) {
	type unit map[string]map[string]string
	tests := []struct {
		template string
		keys     map[string]map[string]string
		file     string
		item     int // the item whose units are checked
		groups   unit
		pairs    unit
	}{
		{
			template: "legal-gaps",
			file:     data + "legal-gaps/examples.sample.jsonl",
			item:     1,
			groups:   unit{"llama3-11": {"system": "llama3"}},
			pairs:    unit{"llama3-11": {"system": "11"}},
		},
		{
			template: "legal-gaps",
			file:     data + "legal-gaps/examples.sample.jsonl",
			item:     4,
			groups:   unit{"gpt4o-13": {"system": "gpt4o"}},
			pairs:    unit{"gpt4o-13": {"system": "13"}},
		},
		{
			// The labels are not the names in alphabetical order, so that
			// a group read from a label would show.
			template: "factgenie-meta-eval",
			keys: map[string]map[string]string{
				"evaluator_label": {"claude-3-7-sonnet": "C", "gpt4o": "A", "llama3-3": "B"},
				"system":          {"gemma2": "S2", "gpt4o": "S1"},
			},
			file: "../examples/factgenie",
			item: 2,
			groups: unit{
				"d2t-football/test/0/S1#A1": {"evaluator": "gpt4o", "system": "gpt4o"},
				"d2t-football/test/0/S1#A2": {"evaluator": "gpt4o", "system": "gpt4o"},
				"d2t-football/test/0/S1#B3": {"evaluator": "llama3-3", "system": "gpt4o"},
				"d2t-football/test/0/S1#C4": {"evaluator": "claude-3-7-sonnet", "system": "gpt4o"},
			},
			pairs: unit{},
		},
		{
			template: "qa-span-errors",
			file:     "../examples/qa-feedback.json",
			item:     2,
			groups:   unit{"q0002": {"all": "all"}},
			pairs:    unit{},
		},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.template, tt.item), func(t *testing.T) {
			items, err := sourceItems(t, builtin.Template(t, tt.template), tt.keys, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			si := items[tt.item]
			if si.GroupErr != nil {
				t.Errorf("item %s: %v", si.ID, si.GroupErr)
			}
			if d := cmp.Diff(tt.groups, unit(si.Groups)); d != "" {
				t.Errorf("item %s: groups (-want +got):\n%s", si.ID, d)
			}
			if d := cmp.Diff(tt.pairs, unit(si.Pairs)); d != "" {
				t.Errorf("item %s: pairs (-want +got):\n%s", si.ID, d)
			}
		})
	}
	// Without groups, there are none.
	tp := builtin.Template(t, "preference-likert")
	items, err := sourceItems(t, tp, nil, "../examples/preference.json")
	if err != nil || len(items) == 0 || items[0].Groups != nil || items[0].Pairs != nil {
		t.Errorf("preference-likert: %d items, groups %v, pairs %v, %v", len(items), items[0].Groups, items[0].Pairs, err)
	}
}

// TestItemsGroupErrors: a unit whose group cannot be found gets none,
// and its item a problem naming the record, the unit where it is not the
// record, and the group; Items goes on, for exports need no groups.
func TestItemsGroupErrors(t *testing.T) {
	tests := []struct {
		template string
		edit     [2]string // old, new in the template's source
		file     string
		item     int    // an item with the problem
		unit     string // a unit of it left out of the groups
		fine     []int  // items without a problem
		want     string
	}{
		{
			template: "legal-gaps",
			edit:     [2]string{`pattern: "^([A-Za-z0-9.]+)-"`, `pattern: "^(gpt[0-9a-z]+)-"`},
			file:     data + "legal-gaps/examples.sample.jsonl",
			item:     1,
			unit:     "llama3-11",
			fine:     []int{0, 2, 4},
			want:     `../testdata/data/legal-gaps/examples.sample.jsonl:2: record "llama3-11": group "system": "llama3-11" does not match the pattern "^(gpt[0-9a-z]+)-"`,
		},
		{
			template: "legal-gaps",
			edit:     [2]string{`pair_pattern: "-([0-9]+)$"`, `pair_pattern: "-(1[12])$"`},
			file:     data + "legal-gaps/examples.sample.jsonl",
			item:     4,
			unit:     "gpt4o-13",
			fine:     []int{0, 1, 2, 3},
			want:     `../testdata/data/legal-gaps/examples.sample.jsonl:5: record "gpt4o-13": group "system": "gpt4o-13" does not match the pair_pattern "-(1[12])$"`,
		},
		{
			template: "factgenie-meta-eval",
			edit:     [2]string{`from: "{@.evaluator}"`, `from: "{@.rater}"`},
			file:     "../examples/factgenie",
			item:     0,
			unit:     "d2t-football/test/0/S2#A1",
			want:     `../examples/factgenie/outputs.jsonl:1: record "d2t-football/test/0/S2": field "@.rater": unit "d2t-football/test/0/S2#A1": group "evaluator": from "{@.rater}": no field "@.rater"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			src, _ := templates.BuiltinSource(tt.template)
			if strings.Count(string(src), tt.edit[0]) != 1 {
				t.Fatalf("%q is not in %s once", tt.edit[0], tt.template)
			}
			tp, err := templates.Load(tt.template+".yaml", []byte(strings.Replace(string(src), tt.edit[0], tt.edit[1], 1)))
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]map[string]string{"evaluator_label": {"claude-3-7-sonnet": "A"}, "system": {"gpt4o": "S1"}}
			items, err := sourceItems(t, tp, keys, tt.file)
			if err != nil {
				t.Fatalf("Items: %v", err)
			}
			for _, i := range tt.fine {
				if si := items[i]; si.GroupErr != nil || len(si.Groups) != 1 {
					t.Errorf("item %s: groups %v, %v", si.ID, si.Groups, si.GroupErr)
				}
			}
			si := items[tt.item]
			var ps records.Problems
			if !errors.As(si.GroupErr, &ps) || len(ps) != 1 {
				t.Fatalf("item %s: GroupErr %v; want one problem", si.ID, si.GroupErr)
			}
			if got := ps[0].Error(); got != tt.want {
				t.Errorf("problem\n got %s\nwant %s", got, tt.want)
			}
			if _, ok := si.Groups[tt.unit]; ok {
				t.Errorf("unit %s has groups %v", tt.unit, si.Groups[tt.unit])
			}
			if _, ok := si.Pairs[tt.unit]; ok {
				t.Errorf("unit %s has pair keys %v", tt.unit, si.Pairs[tt.unit])
			}
		})
	}
}
