package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/agreement"
	"github.com/annosheet/annosheet/study"
)

// TestWriteAgreementSoFar: the section's lines for what the records do not
// define yet, a question agree skips, a study whose records cannot be
// compared, and several studies, each named as the table names its
// batches.
func TestWriteAgreementSoFar(t *testing.T) {
	t.Parallel()
	rep := &study.Status{
		Batches: []*study.Tally{{Study: "s1", Batch: "ak-b01", Workbook: filepath.Join("pilot", "legal-gaps-ak-b01.xlsx")}},
		Agreement: []study.StatusAgreement{
			{Study: "s1", Overlap: 1, Annotators: []string{"ak", "bt"}, Questions: []study.StatusQuestion{
				{Name: "holds", Metric: agreement.Metric{Metric: "krippendorff_alpha", Params: map[string]any{"level": "nominal"}, Note: "no variation: every value is the same"}, PairableUnits: 1},
				{Name: "errors", Metric: agreement.Metric{Metric: "span_f1", Params: map[string]any{"match": "exact", "labels": true}, Value: 0.25}, PairableUnits: 3},
			}, Skipped: []study.SkippedQuestion{{Name: "why", Reason: "asked on every row of a block"}}},
			{Study: "s2", Overlap: 2, Annotators: []string{"ak", "bt", "cm"}, Note: "unit u1 by ak still has its candidates in the order shown"},
		},
	}
	var b strings.Builder
	if err := AgreementSoFar(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "\n" +
		"agreement so far, pilot (1 unit done by 2 or more annotators: ak, bt)\n" +
		"  holds   Krippendorff's α (nominal)    — no variation: every value is the same  1 unit pairable\n" +
		"  errors  span F1 (exact, with labels)  0.250                                    3 units pairable\n" +
		"  why     not compared: asked on every row of a block\n" +
		"\n" +
		"agreement so far, study s2 (2 units done by 2 or more annotators: ak, bt, cm)\n" +
		"  not computed: unit u1 by ak still has its candidates in the order shown\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestStatus: the table has a row per batch, per annotator when there
// are several, and the study; the unreadable column only when a workbook
// could not be read; bars in "#+." or, for a terminal, in blocks.
func TestStatus(t *testing.T) {
	t.Parallel()
	ak := &study.Tally{Batch: "ak-b01", Annotator: "ak", Units: 4, Complete: 2, Partial: 1, Empty: 1}
	bt := &study.Tally{Batch: "bt-b01", Annotator: "bt", Units: 4, Complete: 4}
	total := &study.Tally{Units: 8, Complete: 6, Partial: 1, Empty: 1}
	rep := &study.Status{Batches: []*study.Tally{ak, bt}, Annotators: []*study.Tally{ak, bt}, Total: total}
	var b strings.Builder
	if err := Status(&b, rep, false); err != nil {
		t.Fatal(err)
	}
	want := "batch        annotator  units  done  partial  empty  missing  errors  progress\n" +
		"ak-b01       ak         4      2     1        1      0        0       ##########+++++.....  50%\n" +
		"bt-b01       bt         4      4     0        0      0        0       #################### 100%\n" +
		"\n" +
		"all batches  ak         4      2     1        1      0        0       ##########+++++.....  50%\n" +
		"all batches  bt         4      4     0        0      0        0       #################### 100%\n" +
		"\n" +
		"study        everyone   8      6     1        1      0        0       ###############+++..  75%\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	total.Unreadable, bt.Unreadable = 4, 4
	b.Reset()
	if err := Status(&b, rep, true); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(b.String(), "\n"); !strings.Contains(head, "missing  unreadable  errors") {
		t.Errorf("no unreadable column: %q", head)
	}
	if !strings.Contains(b.String(), "██████████▒▒▒▒▒░░░░░  50%") {
		t.Errorf("no blocks for a terminal:\n%s", b.String())
	}
}
