package records

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/templates"
)

// TestSuggestedWhereCodesAreChecked: a record's value that is none of its
// question's codes is told the closest code.
func TestSuggestedWhereCodesAreChecked(t *testing.T) {
	t.Parallel()
	types := &templates.Question{Name: "error_type", Type: templates.TypeChoice, Options: []templates.Option{
		{Code: "Irrelevant", Label: "Irrelevant"}, {Code: "Unverifiable", Label: "Unverifiable Fact"}, {Code: "Missing-Answer", Label: "Missing Answer"},
	}}
	list := &templates.Question{Name: "types", Type: templates.TypeMulti, Render: "list", Options: types.Options}
	_, reason := typedValue(types, "Irelevant")
	_, multiReason := typedValue(list, []any{"Unverifiable", "Missing-Answr"})
	want := []string{
		`is not one of the codes "Irrelevant", "Unverifiable", "Missing-Answer"; did you mean "Irrelevant"?`,
		`holds "Missing-Answr", which is not one of the codes "Irrelevant", "Unverifiable", "Missing-Answer"; did you mean "Missing-Answer"?`,
	}
	if diff := cmp.Diff(want, []string{reason, multiReason}); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
