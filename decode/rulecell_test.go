package decode_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/templates"
)

const legalRecord = `{"id": "g1", "previous_context": "p", "cited_paragraphs": [{"citation": "c", "text": "t"}], "generation": "g", "target": "t"}
`

// TestRuleCell checks that a broken rule about a multi question shown as
// checkboxes names the checkbox the rule is about: the tick it forbids,
// else the tick that set it off, else the box it wants ticked.
func TestRuleCell(t *testing.T) {
	t.Parallel()
	legal, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := templates.Load("ks.yaml", []byte(strings.Replace(kitchenSink, "annotator:", `  - {when: {question: pick, any_of: ["y"]}, then: {question: tags, all_of: [b, c]}, severity: warning, message: yes needs beta and gamma}
  - {when: {all: [{question: tags, any_of: [b]}, {not: {question: tags, any_of: [c]}}]}, then: {question: tags, any_of: [c]}, severity: warning, message: beta needs gamma}
annotator:`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		key, message string // the column the problem is on, by its key
	}
	cases := []struct {
		name    string
		tp      *templates.Template
		records string
		unit    string
		ticked  []string // column keys set to TRUE
		cells   map[string]string
		want    []want
	}{
		{
			name: "3 without 2 names the 3 that was ticked", tp: legal, records: legalRecord, unit: "g1",
			ticked: []string{"q:gaps=3"},
			want:   []want{{"q:gaps=3", "3 (citation error) is considered after 2 (target mismatch), which is not ticked"}},
		},
		{
			name: "1 with 2 names the 2 ticked as well", tp: legal, records: legalRecord, unit: "g1",
			ticked: []string{"q:gaps=1", "q:gaps=2"},
			want:   []want{{"q:gaps=2", "1 (intrinsic error) normally ends the row; other codes were ticked as well"}},
		},
		{
			name: "0 with 3 names the 3 that 0 excludes, and the 3 that lacks its 2", tp: legal, records: legalRecord, unit: "g1",
			ticked: []string{"q:gaps=0", "q:gaps=3"},
			want: []want{
				{"q:gaps=3", "0 (no gap) cannot be combined with another code"},
				{"q:gaps=3", "3 (citation error) is considered after 2 (target mismatch), which is not ticked"},
			},
		},
		{
			name: "a then that asks for boxes names the first one not ticked", tp: ks, records: ksRecords, unit: "r1",
			ticked: []string{"q:tags=b"},
			cells:  map[string]string{"q:pick": "Yes", "q:note": "why"},
			want:   []want{{"q:tags=b", "beta needs gamma"}, {"q:tags=c", "yes needs beta and gamma"}},
		},
		{
			name: "rules that hold name nothing", tp: ks, records: ksRecords, unit: "r1",
			ticked: []string{"q:tags=b", "q:tags=c"},
			cells:  map[string]string{"q:pick": "No", "q:note": "why"},
			want:   nil,
		},
		{
			name: "a then on another question names that question's cell", tp: ks, records: ksRecords, unit: "r1",
			cells: map[string]string{"q:pick": "No"},
			want:  []want{{"q:note", "say why not"}},
		},
		{
			name: "a when through all and not names the tick that set it off", tp: ks, records: ksRecords, unit: "r1",
			ticked: []string{"q:tags=b"},
			cells:  map[string]string{"q:pick": "No", "q:note": "why"},
			want:   []want{{"q:tags=b", "beta needs gamma"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMemBook(t, c.tp, c.records)
			for _, key := range c.ticked {
				m.set(c.unit, key, "TRUE")
			}
			for key, v := range c.cells {
				m.set(c.unit, key, v)
			}
			m.set(c.unit, "annotator", "AK")
			p := pullMem(t, m, decode.PullOptions{})
			var got []want
			byCell := map[string]string{}
			for key := range m.cols {
				byCell[backend.CellName(m.col(key), m.rows[c.unit])] = key
			}
			for _, pr := range p.Problems {
				if pr.Err == decode.ErrRule {
					got = append(got, want{byCell[pr.Cell], pr.Message})
				}
			}
			if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("rule problems by column (-want +got):\n%s", diff)
			}
		})
	}
}
