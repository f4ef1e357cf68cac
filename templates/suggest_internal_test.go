package templates

import "testing"

// qaTypes are qa-span-errors' error types: labels and dataset codes.
var qaTypes = &Question{Name: "error_type", Type: TypeChoice, Options: []Option{
	{Code: "Irrelevant", Label: "Irrelevant"}, {Code: "Redundant", Label: "Repetitive"}, {Code: "Incoherent", Label: "Incoherent"},
	{Code: "Wrong-Grounding", Label: "Inconsistent Fact"}, {Code: "Unverifiable", Label: "Unverifiable Fact"},
	{Code: "Missing-Answer", Label: "Missing Answer"}, {Code: "Missing-Major-Auxiliary", Label: "Missing Major Auxiliary Information"},
	{Code: "Missing-Minor-Auxiliary", Label: "Missing Minor Auxiliary Information"},
}}

// TestDidYouMean: a value a slip away from an option is told the option;
// a value unlike every option, or one whose number differs, is told none.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	models := &Question{Name: "m", Options: []Option{{Code: "m1", Label: "Model 1"}, {Code: "m2", Label: "Model 2"}}}
	yesNo := &Question{Name: "yn", Options: []Option{{Code: "y", Label: "Yes"}, {Code: "n", Label: "No"}}}
	for _, tc := range []struct {
		name  string
		q     *Question
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
		got := tc.q.SuggestLabel(tc.value)
		if tc.codes {
			got = tc.q.SuggestCode(tc.value)
		}
		if got != tc.want {
			t.Errorf("%s: suggestion for %q = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}
