package study

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
)

// TestCountStatusOfPull: the tallies of a pull with an answered batch, a
// missing one and a returned copy that disagrees, every problem counted
// under the batch it is about.
func TestCountStatusOfPull(t *testing.T) {
	t.Parallel()
	m := makeStudy(t)
	m.w.set("ak-b01", "B2", "TRUE")
	back := filepath.Join(m.dir, "returned.xlsx")
	touch(t, back)
	copied := &memWriter{books: map[string]map[string][][]string{"ak-b01": cloneBook(m.w.books["ak-b01"])}, order: m.w.order}
	copied.set("ak-b01", "B2", "")
	copied.set("ak-b01", "C2", "TRUE") // another answer than the original's
	copied.set("ak-b01", "F3", "a note")
	m.files.serve(back, copied, m.gen.Manifest.Batches[0])
	delete(m.files.books, m.path(1))
	skipped := filepath.Join(m.dir, "old.ods")
	touch(t, skipped)
	m.files.cannot = map[string]string{".ods": "save it as .xlsx"}

	src, err := Open([]string{m.dir}, Backends{Files: m.files})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pull(context.Background(), src, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CountStatus(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Conflicts) != 1 {
		t.Fatalf("%d conflicts, want 1: %v", len(got.Conflicts), res.Problems)
	}
	want := &Status{
		Schema: StatusSchema,
		Batches: []*Tally{
			// Errors: the conflict. Warnings: the unanswered required
			// question of the copy's partial unit, the other copy.
			{Batch: "ak-b01", Annotator: "ak", Workbook: m.path(0), Units: 3, Partial: 2, Empty: 1, Errors: 1, Warnings: 2},
			{Batch: "bt-b01", Annotator: "bt", Workbook: filepath.Join(m.dir, "legal-gaps-bt-b01.xlsx"), Units: 2, Missing: 2, Errors: 1},
		},
		Annotators: []*Tally{
			{Annotator: "ak", Units: 3, Partial: 2, Empty: 1, Errors: 1, Warnings: 2},
			{Annotator: "bt", Units: 2, Missing: 2, Errors: 1},
		},
		// The skipped file is about no batch: the study's only.
		Total:     &Tally{Annotator: "all", Units: 5, Partial: 2, Empty: 1, Missing: 2, Errors: 2, Warnings: 3},
		Conflicts: res.Conflicts,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		for _, p := range res.Problems {
			t.Log(p)
		}
		t.Errorf("CountStatus (-want +got):\n%s", diff)
	}
	c := got.Conflicts[0]
	if c.Unit != "llama3-11" || c.Files != [2]string{m.path(0), back} {
		t.Errorf("conflict %+v: want unit llama3-11 between %s and %s", c, m.path(0), back)
	}
	var errs, warns int
	for _, b := range got.Batches {
		errs, warns = errs+b.Errors, warns+b.Warnings
	}
	if errs != got.Total.Errors || errs != res.Counts().Errors {
		t.Errorf("batches count %d errors; the total %d, the pull %d", errs, got.Total.Errors, res.Counts().Errors)
	}
}

// TestCountStatus counts hand-made results: shared workbooks, annotator
// IDs as one whatever their case, problems by file and record.
func TestCountStatus(t *testing.T) {
	t.Parallel()
	problem := func(severity, file, record string) *records.Problem {
		return &records.Problem{Severity: severity, File: file, Record: record, Message: "m"}
	}
	for _, c := range []struct {
		name string
		res  *Result
		want *Status
	}{
		{
			name: "a shared workbook: claims, unclaimed units, IDs folded",
			res: &Result{
				Records: []*records.Annotation{
					rec("u1", "ak", records.StatusComplete, nil),
					rec("u2", " AK ", records.StatusPartial, nil),
					rec("u3", "bt", records.StatusComplete, nil),
					rec("u4", "", records.StatusEmpty, nil),
				},
				Problems: records.Problems{
					problem(records.Error, "shared.xlsx", "u3"),
					problem(records.Warning, "shared.xlsx", "u2"),
					problem(records.Warning, "shared.xlsx", ""),
					problem(records.Warning, "notes.ods", ""),
				},
				Workbooks: []Workbook{{File: "shared.xlsx", Batch: "b01", Units: 4}},
				batchOf:   map[string]batchKey{"shared.xlsx": {"", "b01"}},
			},
			want: &Status{
				Schema: StatusSchema,
				Batches: []*Tally{
					{Batch: "b01", Annotator: "ak", Workbook: "shared.xlsx", Units: 2, Complete: 1, Partial: 1, Warnings: 2},
					{Batch: "b01", Annotator: "bt", Workbook: "shared.xlsx", Units: 1, Complete: 1, Errors: 1},
					{Batch: "b01", Annotator: "", Workbook: "shared.xlsx", Units: 1, Empty: 1},
				},
				Annotators: []*Tally{
					{Annotator: "ak", Units: 2, Complete: 1, Partial: 1, Warnings: 2},
					{Annotator: "bt", Units: 1, Complete: 1, Errors: 1},
					{Annotator: "", Units: 1, Empty: 1},
				},
				Total: &Tally{Annotator: "all", Units: 4, Complete: 2, Partial: 1, Empty: 1, Errors: 1, Warnings: 3},
			},
		},
		{
			name: "a conflict is carried, and hides no batch",
			res: &Result{
				Records: []*records.Annotation{
					{Batch: "b01", Unit: "u1", Annotator: "ak", Status: records.StatusPartial},
					{Batch: "b02", Unit: "u2", Annotator: "bt", Status: records.StatusComplete},
				},
				Problems:  records.Problems{{Severity: records.Error, File: "back/b01.xlsx", Record: "u1", Err: ErrConflict, Message: "m"}},
				Workbooks: []Workbook{{File: "b01.xlsx", Batch: "b01"}, {File: "b02.xlsx", Batch: "b02"}, {File: "back/b01.xlsx", Batch: "b01"}},
				Conflicts: []Conflict{{Batch: "b01", Unit: "u1", Annotator: "ak", Files: [2]string{"b01.xlsx", "back/b01.xlsx"}, Answers: [2]string{"a", "b"}}},
				batchOf:   map[string]batchKey{"b01.xlsx": {"", "b01"}, "b02.xlsx": {"", "b02"}, "back/b01.xlsx": {"", "b01"}},
			},
			want: &Status{
				Schema: StatusSchema,
				Batches: []*Tally{
					{Batch: "b01", Annotator: "ak", Workbook: "b01.xlsx", Units: 1, Partial: 1, Errors: 1},
					{Batch: "b02", Annotator: "bt", Workbook: "b02.xlsx", Units: 1, Complete: 1},
				},
				Annotators: []*Tally{
					{Annotator: "ak", Units: 1, Partial: 1, Errors: 1},
					{Annotator: "bt", Units: 1, Complete: 1},
				},
				Total:     &Tally{Annotator: "all", Units: 2, Complete: 1, Partial: 1, Errors: 1},
				Conflicts: []Conflict{{Batch: "b01", Unit: "u1", Annotator: "ak", Files: [2]string{"b01.xlsx", "back/b01.xlsx"}, Answers: [2]string{"a", "b"}}},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := CountStatus(context.Background(), c.res)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("CountStatus (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCountStatusTwoStudies: two studies whose batches share IDs are
// counted apart, each batch under its own study and workbook.
func TestCountStatusTwoStudies(t *testing.T) {
	t.Parallel()
	a, b := makeStudy(t), makeStudy(t)
	if a.gen.Manifest.Study == b.gen.Manifest.Study {
		t.Fatal("two studies with one ID")
	}
	files := &fakeFiles{books: map[string]func() (*backend.Grid, func() error, error){}}
	for _, m := range []*made{a, b} {
		for k, v := range m.files.books {
			files.books[k] = v
		}
	}
	src, err := Open([]string{a.dir, b.dir}, Backends{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pull(context.Background(), src, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := CountStatus(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, bt := range rep.Batches {
		got = append(got, fmt.Sprintf("%s %s %s %d", bt.Study, bt.Batch, bt.Workbook, bt.Units))
	}
	want := []string{
		fmt.Sprintf("%s ak-b01 %s 3", a.gen.Manifest.Study, a.path(0)),
		fmt.Sprintf("%s bt-b01 %s 2", a.gen.Manifest.Study, a.path(1)),
		fmt.Sprintf("%s ak-b01 %s 3", b.gen.Manifest.Study, b.path(0)),
		fmt.Sprintf("%s bt-b01 %s 2", b.gen.Manifest.Study, b.path(1)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
}
