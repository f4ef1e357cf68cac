package mapping

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/templates"
)

// qaTypes are qa-span-errors' error types: labels and dataset codes.
var qaTypes = &templates.Question{Name: "error_type", Type: templates.TypeChoice, Options: []templates.Option{
	{Code: "Irrelevant", Label: "Irrelevant"}, {Code: "Redundant", Label: "Repetitive"}, {Code: "Incoherent", Label: "Incoherent"},
	{Code: "Wrong-Grounding", Label: "Inconsistent Fact"}, {Code: "Unverifiable", Label: "Unverifiable Fact"},
	{Code: "Missing-Answer", Label: "Missing Answer"}, {Code: "Missing-Major-Auxiliary", Label: "Missing Major Auxiliary Information"},
	{Code: "Missing-Minor-Auxiliary", Label: "Missing Minor Auxiliary Information"},
}}

// TestDidYouMean: a value a slip away from an option is told the option;
// a value unlike every option, or one whose number differs, is told none.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	models := &templates.Question{Name: "m", Options: []templates.Option{{Code: "m1", Label: "Model 1"}, {Code: "m2", Label: "Model 2"}}}
	yesNo := &templates.Question{Name: "yn", Options: []templates.Option{{Code: "y", Label: "Yes"}, {Code: "n", Label: "No"}}}
	for _, tc := range []struct {
		name  string
		q     *templates.Question
		value string
		codes bool
		want  string
	}{
		{"a letter wrong", qaTypes, "Irrelevent", false, `; did you mean "Irrelevant"?`},
		{"case and spaces do not count", qaTypes, "  unverifable   FACT ", false, `; did you mean "Unverifiable Fact"?`},
		{"a slip on a code suggests its label", qaTypes, "Wrong-Grounding.", false, `; did you mean "Inconsistent Fact"?`},
		{"a slip on a code, among codes", qaTypes, "Redundent", true, `; did you mean "Redundant"?`},
		{"a slip on a label, among codes", qaTypes, "Repetitve", true, `; did you mean "Redundant"?`},
		{"two options equally close", qaTypes, "Missing Auxiliary Information", false, `; did you mean "Missing Major Auxiliary Information" or "Missing Minor Auxiliary Information"?`},
		{"an unrelated word", qaTypes, "maybe", false, ""},
		{"a word with an option in it", qaTypes, "Irrelevant but minor", false, ""},
		{"short values need a close match", yesNo, "Na", false, ""},
		{"a letter missing from a short word", yesNo, "Ye", false, `; did you mean "Yes"?`},
		{"another number is no slip", models, "Model 3", false, ""},
		{"the same number is", models, "Modle 2", false, `; did you mean "Model 2"?`},
		{"blank", qaTypes, "   ", false, ""},
	} {
		cands := labelCandidates(tc.q)
		if tc.codes {
			cands = codeCandidates(tc.q)
		}
		if got := didYouMean(tc.value, cands); got != tc.want {
			t.Errorf("%s: didYouMean(%q) = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}

// TestSuggestedWhereOptionsAreChecked: every check of a value against a
// question's options names the closest option.
func TestSuggestedWhereOptionsAreChecked(t *testing.T) {
	t.Parallel()
	list := &templates.Question{Name: "types", Type: templates.TypeMulti, Render: "list", Options: qaTypes.Options}
	_, issue := parseChoice(qaTypes, "Irrelevent")
	_, listIssue := parseCodeList(list, "Incoherent, Redundent")
	_, reason := typedValue(qaTypes, "Irelevant")
	_, multiReason := typedValue(list, []any{"Unverifiable", "Missing-Answr"})
	got := []string{issue.msg, listIssue.msg, reason, multiReason}
	want := []string{
		`"Irrelevent" is not one of: Irrelevant; Repetitive; Incoherent; Inconsistent Fact; Unverifiable Fact; Missing Answer; Missing Major Auxiliary Information; Missing Minor Auxiliary Information; did you mean "Irrelevant"?`,
		`"Redundent" in "Incoherent, Redundent" is not one of the codes Irrelevant, Redundant, Incoherent, Wrong-Grounding, Unverifiable, Missing-Answer, Missing-Major-Auxiliary, Missing-Minor-Auxiliary; did you mean "Redundant"?`,
		`is not one of the codes "Irrelevant", "Redundant", "Incoherent", "Wrong-Grounding", "Unverifiable", "Missing-Answer", "Missing-Major-Auxiliary", "Missing-Minor-Auxiliary"; did you mean "Irrelevant"?`,
		`holds "Missing-Answr", which is not one of the codes "Irrelevant", "Redundant", "Incoherent", "Wrong-Grounding", "Unverifiable", "Missing-Answer", "Missing-Major-Auxiliary", "Missing-Minor-Auxiliary"; did you mean "Missing-Answer"?`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
