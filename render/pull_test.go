package render

import (
	"strings"
	"testing"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// TestProblems: a line per problem with its severity; a problem in a
// cell names its unit, and the ID the sheet shows for it when that is
// another; a problem of a record (no cell) says its record already.
func TestProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    *records.Problem
		want string
	}{
		{"of a file", &records.Problem{Severity: records.Error, File: "b01.xlsx", Message: "not a workbook"},
			"error: b01.xlsx: not a workbook\n"},
		{"of a cell", &records.Problem{Severity: records.Warning, File: "b01.xlsx", Sheet: "Annotate", Cell: "F14", Record: "u1", Message: `"maybe" is not one of: Yes, No`},
			"warning: b01.xlsx: Annotate!F14: \"maybe\" is not one of: Yes, No (unit u1)\n"},
		{"of a cell of an opaque ID", &records.Problem{Severity: records.Error, File: "b01.xlsx", Cell: "B2", Record: "u1", Shown: "item-0001", Message: "empty"},
			"error: b01.xlsx: B2: empty (unit u1, shown as item-0001)\n"},
		{"of a cell showing the unit's own ID", &records.Problem{Severity: records.Error, File: "b01.xlsx", Cell: "B2", Record: "u1", Shown: "u1", Message: "empty"},
			"error: b01.xlsx: B2: empty (unit u1)\n"},
		{"of a record", &records.Problem{Severity: records.Error, File: "data.jsonl", Line: 3, Record: "x1", Message: "no such field"},
			"error: data.jsonl:3: record \"x1\": no such field\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			Problems(&b, records.Problems{tc.p})
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// TestPullErrors: the errors one line each, the warnings only counted,
// in the singular or plural; nothing when there are none.
func TestPullErrors(t *testing.T) {
	t.Parallel()
	e := &records.Problem{Severity: records.Error, File: "b01.xlsx", Cell: "F2", Record: "u1", Message: "empty"}
	w := &records.Problem{Severity: records.Warning, File: "b01.xlsx", Cell: "F3", Message: "odd"}
	for _, tc := range []struct {
		name string
		ps   records.Problems
		want string
	}{
		{"none", nil, ""},
		{"errors only", records.Problems{e, e}, "error: b01.xlsx: F2: empty (unit u1)\nerror: b01.xlsx: F2: empty (unit u1)\n"},
		{"a warning", records.Problems{w, e}, "error: b01.xlsx: F2: empty (unit u1)\nnote: pull also found 1 warning in the workbooks (annosheet pull lists them by cell); they do not change the answers compared\n"},
		{"warnings", records.Problems{w, w}, "note: pull also found 2 warnings in the workbooks (annosheet pull lists them by cell); they do not change the answers compared\n"},
	} {
		var b strings.Builder
		PullErrors(&b, tc.ps)
		if b.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, b.String(), tc.want)
		}
	}
}

// TestPulled: the closing line of a pull of a study (unreadable records
// said only when there are some) and of an adjudication's gold set
// (empty units said only when there are some).
func TestPulled(t *testing.T) {
	t.Parallel()
	books := []study.Workbook{{File: "b01.xlsx"}, {File: "b02.xlsx"}}
	gold := func(statuses ...string) *study.GoldSet {
		g := &study.GoldSet{Manifest: &adjudicate.Manifest{Workbooks: []adjudicate.BookRef{{Adjudicator: "lead"}}}, Decided: 3, Unresolved: 1}
		for _, s := range statuses {
			g.Records = append(g.Records, &records.Annotation{Status: s})
		}
		return g
	}
	for _, tc := range []struct {
		name string
		p    *study.Pulled
		c    study.Counts
		want string
	}{
		{"a study", &study.Pulled{Result: &study.Result{Workbooks: books}},
			study.Counts{Records: 6, Complete: 3, Partial: 1, Empty: 1, Missing: 1, Errors: 1, Warnings: 2},
			"pulled 6 records from 2 workbooks: 3 complete, 1 partial, 1 empty, 1 missing; 1 error, 2 warnings\n"},
		{"a study with a workbook unreadable", &study.Pulled{Result: &study.Result{Workbooks: books[:1]}},
			study.Counts{Records: 1, Unreadable: 1},
			"pulled 1 record from 1 workbook: 0 complete, 0 partial, 0 empty, 0 missing, 1 unreadable; 0 errors, 0 warnings\n"},
		{"a gold set", &study.Pulled{Result: &study.Result{}, Gold: gold(records.StatusComplete, records.StatusPartial)},
			study.Counts{Records: 2, Complete: 1, Partial: 1, Errors: 1},
			"pulled the gold set of 2 units from 1 adjudication workbook: 3 decisions read, 1 unresolved; 1 complete, 1 partial; 1 error, 0 warnings\n"},
		{"a gold set with units nobody completed", &study.Pulled{Result: &study.Result{}, Gold: gold(records.StatusComplete, records.StatusEmpty, records.StatusEmpty)},
			study.Counts{Records: 3, Complete: 1, Empty: 2},
			"pulled the gold set of 3 units from 1 adjudication workbook: 3 decisions read, 1 unresolved; 1 complete, 0 partial, 2 with no complete answer yet (empty); 0 errors, 0 warnings\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			Pulled(&b, tc.p, tc.c)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
