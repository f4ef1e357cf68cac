package decode

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/templates"
)

// qaTypes is qa-span-errors' error type: labels and dataset codes.
func qaTypes(t *testing.T) *templates.Question {
	t.Helper()
	tp, err := templates.Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	for i := range tp.Questions {
		if tp.Questions[i].Name == "error_type" {
			return &tp.Questions[i]
		}
	}
	t.Fatal("qa-span-errors has no question error_type")
	return nil
}

// TestSuggestedWhereOptionsAreChecked: every check of a cell against a
// question's options names the closest option (records check theirs in
// package records).
func TestSuggestedWhereOptionsAreChecked(t *testing.T) {
	t.Parallel()
	types := qaTypes(t)
	list := &templates.Question{Name: "types", Type: templates.TypeMulti, Render: "list", Options: types.Options}
	_, issue := parseChoice(types, "Irrelevent")
	_, listIssue := parseCodeList(list, "Incoherent, Redundent")
	got := []string{issue.msg, listIssue.msg}
	want := []string{
		`"Irrelevent" is not one of: Irrelevant; Repetitive; Incoherent; Inconsistent Fact; Unverifiable Fact; Missing Answer; Missing Major Auxiliary Information; Missing Minor Auxiliary Information; did you mean "Irrelevant"?`,
		`"Redundent" in "Incoherent, Redundent" is not one of the codes Irrelevant, Redundant, Incoherent, Wrong-Grounding, Unverifiable, Missing-Answer, Missing-Major-Auxiliary, Missing-Minor-Auxiliary; did you mean "Redundant"?`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
