package study_test

import (
	"encoding/json"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// TestPullReport: pull's report counts records by status and problems by
// severity, and its lists are empty, never null, when there is nothing.
func TestPullReport(t *testing.T) {
	t.Parallel()
	empty, err := json.Marshal((&study.Result{}).Report())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"schema":"annosheet.report/1","workbooks":[],"counts":{"complete":0,"empty":0,"errors":0,"missing":0,"partial":0,"records":0,"unreadable":0,"warnings":0},"problems":[]}`; string(empty) != want {
		t.Errorf("empty report:\n%s\nwant\n%s", empty, want)
	}
	res := &study.Result{
		Records: []*records.Annotation{{Status: records.StatusComplete}, {Status: records.StatusPartial}, {Status: records.StatusMissing}},
		Problems: records.Problems{{Severity: records.Error, Message: "e"}, {Severity: records.Warning, Message: "w"},
			{Severity: records.Warning, Message: "w2"}},
	}
	c := res.Report().Counts
	if c["records"] != 3 || c["complete"] != 1 || c["partial"] != 1 || c["missing"] != 1 || c["errors"] != 1 || c["warnings"] != 2 {
		t.Errorf("counts %v", c)
	}
}
