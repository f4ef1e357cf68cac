package goldtest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
)

// TestEditedSpanSource edits the prediction, the text spans are copied
// from, in a workbook filled with the QA-Feedback gold: the annotator's
// cell is open to select part of it, and so to edit. Pull still finds every
// span in the text as generated, and warns about each edited cell by name.
func TestEditedSpanSource(t *testing.T) {
	t.Parallel()
	_, _, path, _ := goldQAWorkbook(t)
	before, _ := PullFile(t, path)
	noProblems(t, before)

	w, err := OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	// Two blocks with spans: one prediction rewritten, one deleted.
	var edited []string
	for _, r := range before.Records {
		if len(edited) < 2 && len(r.Spans) > 0 && r.Spans[0].Start != nil {
			edited = append(edited, r.Unit)
		}
	}
	if len(edited) < 2 {
		t.Fatalf("the gold has %d blocks with spans, want 2", len(edited))
	}
	changed, err := w.Cell(w.Rows[edited[0]][0], "context:prediction")
	if err != nil {
		t.Fatal(err)
	}
	deleted, err := w.Cell(w.Rows[edited[1]][0], "context:prediction")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.F.SetCellStr(backend.SheetAnnotate, changed, "An annotator's own words, where the prediction was."); err != nil {
		t.Fatal(err)
	}
	if err := w.F.SetCellStr(backend.SheetAnnotate, deleted, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}

	after, jsonl := PullFile(t, path)
	ValidateRecords(t, jsonl)
	type problem struct{ Severity, Cell, Unit, Message string }
	var got []problem
	for _, pr := range after.Problems {
		if !errors.Is(pr.Err, decode.ErrContextEdited) {
			t.Errorf("problem: %v", pr)
			continue
		}
		got = append(got, problem{pr.Severity, pr.Sheet + "!" + pr.Cell, pr.Record, pr.Message})
	}
	msg := `the text of "Prediction" was %s here; the change is ignored: spans are found in the text as it was generated`
	want := []problem{
		{records.Warning, backend.SheetAnnotate + "!" + changed, edited[0], fmt.Sprintf(msg, "changed")},
		{records.Warning, backend.SheetAnnotate + "!" + deleted, edited[1], fmt.Sprintf(msg, "deleted")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	for i, r := range after.Records {
		if diff := cmp.Diff(before.Records[i].Spans, r.Spans); diff != "" {
			t.Errorf("%s: spans (-before +after):\n%s", r.Unit, diff)
		}
		if r.Status != before.Records[i].Status {
			t.Errorf("%s: status %s, was %s", r.Unit, r.Status, before.Records[i].Status)
		}
	}
}
