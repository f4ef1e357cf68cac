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
