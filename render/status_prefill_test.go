package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// TestPrefillKept: a section per source of suggestions, a line per
// annotator and question (the annotator and units on the first only),
// the spans last with those added, the shares aligned; a study of several
// named as the table names its batches.
func TestPrefillKept(t *testing.T) {
	t.Parallel()
	rep := &study.Status{
		Batches: []*study.Tally{{Study: "s2", Batch: "ak-b01", Workbook: filepath.Join("pilot", "legal-gaps-ak-b01.xlsx")}},
		Prefill: []*study.PrefillTally{
			{Annotator: "ak", From: "judge", Units: 2, Questions: map[string]*study.KeptCounts{"note": {Kept: 1}, "gaps": {Kept: 1, Changed: 1}}},
			{Annotator: "bt", From: "judge", Units: 1, Questions: map[string]*study.KeptCounts{"gaps": {Kept: 10, Cleared: 2}},
				Spans: &records.SpanTrace{Kept: 5, Changed: 1, Removed: 1, Added: 2}},
			{Annotator: "cm", From: "judge", Units: 1, Questions: map[string]*study.KeptCounts{}, Spans: &records.SpanTrace{Added: 3}},
			{Study: "s2", Annotator: "ak", From: "gpt", Units: 3, Questions: map[string]*study.KeptCounts{"gaps": {Cleared: 3}}},
		},
	}
	var b strings.Builder
	if err := PrefillKept(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "\n" +
		"suggestions from judge: how often each annotator kept them, in the units they answered\n" +
		"  ak  2 units  gaps   1 kept   1 changed  0 cleared   50% kept\n" +
		"               note   1 kept   0 changed  0 cleared  100% kept\n" +
		"  bt  1 unit   gaps   10 kept  0 changed  2 cleared   83% kept\n" +
		"               spans  5 kept   1 changed  1 removed   71% kept  2 added\n" +
		"  cm  1 unit   spans  0 kept   0 changed  0 removed     — kept  3 added\n" +
		"\n" +
		"suggestions from gpt, pilot: how often each annotator kept them, in the units they answered\n" +
		"  ak  3 units  gaps  0 kept  0 changed  3 cleared    0% kept\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestStatusPrefill: status writes the suggestions kept after its table,
// before the agreement so far; nothing of them when no unit was
// prefilled.
func TestStatusPrefill(t *testing.T) {
	t.Parallel()
	ak := &study.Tally{Batch: "ak-b01", Annotator: "ak", Units: 2, Complete: 2}
	rep := &study.Status{Batches: []*study.Tally{ak}, Annotators: []*study.Tally{ak}, Total: &study.Tally{Units: 2, Complete: 2}}
	var b strings.Builder
	if err := Status(&b, rep, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "suggestions") {
		t.Errorf("suggestions with no prefill:\n%s", b.String())
	}
	rep.Prefill = []*study.PrefillTally{{Annotator: "ak", From: "judge", Units: 2, Questions: map[string]*study.KeptCounts{"gaps": {Kept: 2}}}}
	rep.Agreement = []study.StatusAgreement{{Overlap: 1, Annotators: []string{"ak", "bt"}, Note: "not comparable"}}
	b.Reset()
	if err := Status(&b, rep, false); err != nil {
		t.Fatal(err)
	}
	want := "batch   annotator  units  done  partial  empty  missing  errors  progress\n" +
		"ak-b01  ak         2      2     0        0      0        0       #################### 100%\n" +
		"\n" +
		"study   everyone   2      2     0        0      0        0       #################### 100%\n" +
		"\n" +
		"suggestions from judge: how often each annotator kept them, in the units they answered\n" +
		"  ak  2 units  gaps  2 kept  0 changed  0 cleared  100% kept\n" +
		"\n" +
		"agreement so far (1 unit done by 2 or more annotators: ak, bt)\n" +
		"  not computed: not comparable\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
