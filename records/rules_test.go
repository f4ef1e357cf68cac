package records_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// TestRuleBreaks: a record's own values are held to the rules about
// questions asked once, each span's row to the rules about a block's
// rows, with the record's values beside it.
func TestRuleBreaks(t *testing.T) {
	t.Parallel()
	legal, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	qa, err := templates.Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	start, end := 0, 5
	names := func(bs []records.RuleBreak) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Rule.Name+"@"+string(rune('0'+b.Span+1)))
		}
		return out
	}
	for _, c := range []struct {
		name string
		t    *templates.Template
		rec  *records.Annotation
		want []string // rule @ span+1 (0: the record's values)
	}{
		{"sound", legal, &records.Annotation{Values: map[string]any{"gaps": []string{"2", "3"}}}, nil},
		{"zero with others", legal, &records.Annotation{Values: map[string]any{"gaps": []string{"0", "2"}}}, []string{"zero-stands-alone@0"}},
		{"one with others, a warning", legal, &records.Annotation{Values: map[string]any{"gaps": []string{"1", "3"}}}, []string{"intrinsic-ends-the-row@0"}},
		{"rows", qa, &records.Annotation{Values: map[string]any{"checked": true}, Spans: []records.SpanAnswer{
			{Question: "errors", Field: "prediction", Start: &start, End: &end, Text: "Bloom", Code: "Irrelevant"},
			{Question: "errors", Field: "prediction", Start: &start, End: &end, Text: "Bloom", Code: "Redundant"},
			{Question: "errors", Code: "Missing-Answer"},
			{Question: "errors", Field: "prediction", Start: &start, End: &end, Text: "Bloom", Code: "Missing-Answer", Evidence: &records.Evidence{Passage: 1, Sentences: []int{1}}},
		}}, []string{"missing-has-no-span@4", "evidence-for-facts-and-missing@3", "repetitive-needs-repeated-text@2"}},
	} {
		if diff := cmp.Diff(c.want, names(records.RuleBreaks(c.t, c.rec))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
