package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// TestCounted: the records read replace the pull's; a file's records add
// their batches as workbooks read (once each, and only those in hand) and
// their problems, the pull's problems kept.
func TestCounted(t *testing.T) {
	t.Parallel()
	pulledRec := &records.Annotation{Unit: "u1", Batch: "b01", Status: records.StatusComplete}
	pulled := &study.Result{
		Records:   []*records.Annotation{pulledRec},
		Workbooks: []study.Workbook{{File: "s-b01.xlsx", Batch: "b01"}},
		Problems:  records.Problems{{Severity: records.Warning, File: "s-b01.xlsx", Message: "pulled"}},
	}
	fromFile := []*records.Annotation{
		{Unit: "u2", Batch: "b02", Status: records.StatusPartial, Source: records.RecordSource{File: "s-b02.xlsx"},
			Problems: []records.UnitProblem{{Severity: records.Error, Cell: "Annotate!C3", Message: "bad"}}},
		{Unit: "u3", Batch: "b02", Status: records.StatusComplete, Source: records.RecordSource{File: "s-b02.xlsx"}},
		{Unit: "u4", Batch: "b03", Status: records.StatusMissing, Source: records.RecordSource{File: "s-b03.xlsx"}},
	}
	all := append([]*records.Annotation{pulledRec}, fromFile...)
	got := Counted(pulled, all)
	if len(got.Records) != 4 {
		t.Errorf("records: %d, want all 4 read", len(got.Records))
	}
	if diff := cmp.Diff([]study.Workbook{{File: "s-b01.xlsx", Batch: "b01"}, {File: "s-b02.xlsx", Batch: "b02"}}, got.Workbooks, cmp.AllowUnexported(study.Workbook{})); diff != "" {
		t.Errorf("workbooks (-want +got):\n%s", diff)
	}
	want := records.Problems{pulled.Problems[0], {Severity: records.Error, File: "s-b02.xlsx", Record: "u2", Sheet: "Annotate", Cell: "C3", Message: "bad"}}
	if diff := cmp.Diff(want, got.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(pulled.Problems) != 1 {
		t.Errorf("the pull's problems were changed: %d", len(pulled.Problems))
	}
}
