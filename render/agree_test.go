package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/study"
)

// TestAgreeTablePairsLeftOut: the table says when the JSON lists only
// some of the pairs, and how to list more.
func TestAgreeTablePairsLeftOut(t *testing.T) {
	t.Parallel()
	rep := &study.Agreement{Questions: []study.QuestionAgreement{{Name: "q", Type: "choice", Result: agreement.Result{
		Annotators: []string{"a", "b", "c"}, Pairs: []agreement.Pair{{A: "a", B: "b"}}, PairsLeftOut: 2,
	}}}}
	var b strings.Builder
	if err := AgreeText(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "  pairs: --json and --csv list 1 of the 3 pairs of annotators that share a unit, those that share the most (--max-pairs N lists more)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant the line %q", b.String(), want)
	}
}

// TestAgreeTableManyAnnotators: a crowd study's header names a few
// annotators and counts the rest, rather than a line of thousands.
func TestAgreeTableManyAnnotators(t *testing.T) {
	t.Parallel()
	var names []string
	for i := range 3000 {
		names = append(names, fmt.Sprintf("w%04d", i))
	}
	rep := &study.Agreement{}
	rep.Records.Used, rep.Records.Annotators = 3000, names
	var b strings.Builder
	if err := AgreeText(&b, rep); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(b.String(), "\n")
	want := ": 3000 records of " + strings.Join(names[:NamedAnnotators], ", ") + fmt.Sprintf(" and %d more compared", 3000-NamedAnnotators)
	if !strings.HasSuffix(head, want) {
		t.Errorf("header %q, want it to end %q", head, want)
	}
}

// TestAgainstReferenceText: scores against a model's labels name the
// model where scores against a gold set name gold, in the table, its
// notes and the CSV's pair; a gold set's text is as it was.
func TestAgainstReferenceText(t *testing.T) {
	t.Parallel()
	acc := 0.5
	against := func(ref string) *study.Agreement {
		return &study.Agreement{Against: &study.Against{Gold: "model.jsonl", Reference: ref, Units: 2, SharedUnits: 2, GoldOnly: 1,
			Questions: []study.QuestionAgainst{
				{Name: "gaps", Type: "multi", GoldUnits: 2, Annotators: []study.AnnotatorScore{{Annotator: "ak", Units: 2, Accuracy: &acc}}},
				{Name: "note", Type: "text", Annotators: []study.AnnotatorScore{{Annotator: "ak"}}},
			}}}
	}
	for _, c := range []struct {
		ref  string
		want []string
	}{
		{"gpt4o", []string{
			"Against gpt4o (model.jsonl): 2 units, 2 of them in the sources; not scored: 1 unit only in gpt4o's records\n",
			"gaps (multi): gpt4o's records give 2 units\n",
			"note (text): gpt4o's records give no unit a value",
			"where the value is gpt4o's; P, R, F1: of the characters\nmarked under gpt4o's labels, gpt4o the reference.",
			"gaps,multi,against,ak,gpt4o,",
		}},
		{"", []string{
			"Against gold (model.jsonl): 2 units, 2 of them in the sources; not scored: 1 unit only in the gold set\n",
			"gaps (multi): the gold set gives 2 units\n",
			"note (text): the gold set gives no unit a value",
			"where the value is gold's; P, R, F1: of the characters\nmarked under gold's labels, gold the reference.",
			"gaps,multi,against,ak,gold,",
		}},
	} {
		var b strings.Builder
		if err := AgreeText(&b, against(c.ref)); err != nil {
			t.Fatal(err)
		}
		if err := AgreeCSV(&b, against(c.ref)); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("reference %q: no %q in\n%s", c.ref, w, b.String())
			}
		}
	}
}
