package templates

import (
	"strings"
	"testing"
)

// TestShuffleChecks edits the preference template's shuffle block and
// checks each mistake is reported with its line.
func TestShuffleChecks(t *testing.T) {
	src, ok := BuiltinSource("preference-likert")
	if !ok {
		t.Fatal("no preference-likert")
	}
	block := src[strings.Index(string(src), "shuffle:\n"):]
	block = block[:strings.Index(string(block), "\n\n")+1]
	for _, tc := range []struct {
		name, shuffle string
		want          []string
	}{
		{"one candidate", "shuffle:\n  candidates:\n    - {code: first, context: [first_prediction]}\n", []string{"shuffle needs at least two candidates"}},
		{"unlike candidates", "shuffle:\n  candidates:\n    - {code: first, context: [first_prediction], questions: [first_prediction_likert]}\n    - {code: second, context: [second_prediction]}\n",
			[]string{`shuffle candidate "second" has 1 context columns and 0 questions, but "first" has 1 and 1: every candidate needs the same`}},
		{"unknown names", "shuffle:\n  candidates:\n    - {code: first, context: [nope], questions: [first_prediction_likert]}\n    - {code: second, context: [second_prediction], questions: [nah]}\n  choices: [best]\n",
			[]string{`shuffle candidate "first": no context column "nope"`, `shuffle candidate "second": no question "nah"`, `shuffle choices: no question "best"`}},
		{"twice", "shuffle:\n  candidates:\n    - {code: first, context: [first_prediction], questions: [first_prediction_likert]}\n    - {code: first, context: [first_prediction], questions: [first_prediction_likert]}\n",
			[]string{`shuffle candidate "first" is given twice`, `shuffle: context column "first_prediction" belongs to candidates "first" and "first"`, `shuffle: question "first_prediction_likert" belongs to candidates "first" and "first"`}},
		{"choice without the candidate", "shuffle:\n  candidates:\n    - {code: first, context: [first_prediction], questions: [first_prediction_likert]}\n    - {code: fourth, context: [second_prediction], questions: [second_prediction_likert]}\n  choices: [best_prediction_reference, first_prediction_likert]\n",
			[]string{`shuffle choices: question "best_prediction_reference" has no option "fourth" for candidate "fourth"`, `shuffle choices: question "first_prediction_likert" is a scale, not a choice or multi`}},
		{"unlike questions", "shuffle:\n  candidates:\n    - {code: first, context: [first_prediction], questions: [first_prediction_likert]}\n    - {code: second, context: [second_prediction], questions: [best_prediction_topic]}\n",
			[]string{`shuffle candidate "second": question "best_prediction_topic" is not of the same kind as "first_prediction_likert" of "first"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := strings.Replace(string(src), string(block), tc.shuffle, 1)
			_, err := Load("p.yaml", []byte(edited))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("missing %q in:\n%v", w, err)
				}
			}
			if !strings.Contains(err.Error(), "p.yaml:") {
				t.Errorf("errors lack their line: %v", err)
			}
		})
	}
	// As shipped, the shuffle is sound, and every place knows its slot.
	tp, err := Builtin("preference-likert")
	if err != nil {
		t.Fatal(err)
	}
	if slot, pos, ok := tp.ShuffleSlot("question", "third_prediction_likert"); !ok || slot != 2 || pos != 0 {
		t.Errorf("ShuffleSlot = %d, %d, %v", slot, pos, ok)
	}
	if _, _, ok := tp.ShuffleSlot("context", "reference"); ok {
		t.Error("the reference is not shuffled")
	}
}
