package study

import (
	"errors"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// sentinels compares fields of type error (a problem's Err) as equal when
// they are the same sentinel; Problems, an error itself, is compared field
// by field.
var sentinels = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().Type() == reflect.TypeFor[error]()
}, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) && errors.Is(b, a) }))

// rec is a record of batch b01 as a copy of its workbook gives it.
func rec(unit, annotator, status string, values map[string]any, probs ...records.UnitProblem) *records.Annotation {
	if values == nil {
		values = map[string]any{}
	}
	return &records.Annotation{Batch: "b01", Unit: unit, Annotator: annotator, Status: status, Values: values, Problems: probs}
}

// workbook is one copy of batch b01, read from path; its units are
// units, in the workbook's order.
func workbook(path string, units []string, recs []*records.Annotation, probs ...*records.Problem) *copyOf {
	p := &decode.Pulled{Meta: layout.WorkbookMeta{Batch: "b01"}, Records: recs, Problems: probs}
	for _, u := range units {
		p.Units = append(p.Units, layout.Unit{ID: u, Item: u})
	}
	return &copyOf{Path: path, Pulled: p}
}

// another is the warning merge gives about every copy after the first.
func another(path, first string) *records.Problem {
	return &records.Problem{Severity: records.Warning, File: path,
		Message: "another copy of batch b01 (so is " + first + "): their answers are merged, unit by unit"}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	const (
		orig     = "study/legal-gaps-b01.xlsx"
		returned = "inbox/ak/legal-gaps-b01.xlsx"
		third    = "inbox/bt/legal-gaps-b01.xlsx"
	)
	units := []string{"u1", "u2", "u3"}
	yes := map[string]any{"q": "yes"}
	no := map[string]any{"q": "no"}
	unitWarn := records.UnitProblem{Severity: records.Warning, Cell: "Annotate!D2", Message: "answer normalised"}

	// A conflict: the original and the returned copy answer u1 differently.
	clash := Conflict{Batch: "b01", Unit: "u1", Annotator: "ak", Files: [2]string{orig, returned},
		Answers: [2]string{`{"status":"complete","values":{"q":"yes"}}`, `{"status":"complete","values":{"q":"no"}}`}}
	const clashMsg = `study/legal-gaps-b01.xlsx and inbox/ak/legal-gaps-b01.xlsx answer unit "u1" by ak differently: ` +
		`{"status":"complete","values":{"q":"yes"}} vs {"status":"complete","values":{"q":"no"}}`
	clashed := rec("u1", "ak", records.StatusPartial, yes, records.UnitProblem{Severity: records.Error, Message: clashMsg})

	wbProblem := &records.Problem{Severity: records.Warning, File: orig, Message: "a column was renamed"}
	droppedProblem := &records.Problem{Severity: records.Warning, File: orig, Record: "u1", Cell: "D2", Message: "blank, dropped with its record"}
	keptProblem := &records.Problem{Severity: records.Warning, File: returned, Record: "u1", Cell: "D2", Message: "answer normalised"}

	for _, c := range []struct {
		name  string
		books []*copyOf
		want  merged
	}{
		{
			name: "one workbook is itself",
			books: []*copyOf{workbook(orig, units, []*records.Annotation{rec("u1", "ak", records.StatusComplete, yes)},
				wbProblem)},
			want: merged{Records: []*records.Annotation{rec("u1", "ak", records.StatusComplete, yes)},
				Problems: records.Problems{wbProblem}},
		},
		{
			name: "answers win over blanks, whichever copy holds them",
			books: []*copyOf{
				workbook(orig, units, []*records.Annotation{
					rec("u1", "ak", records.StatusEmpty, nil),
					rec("u2", "ak", records.StatusPartial, yes),
					rec("u3", "ak", records.StatusEmpty, nil),
				}),
				workbook(returned, units, []*records.Annotation{
					rec("u1", "ak", records.StatusComplete, yes),
					rec("u2", "ak", records.StatusEmpty, nil),
					rec("u3", "ak", records.StatusEmpty, nil),
				}),
			},
			want: merged{
				Records: []*records.Annotation{
					rec("u1", "ak", records.StatusComplete, yes),
					rec("u2", "ak", records.StatusPartial, yes),
					rec("u3", "ak", records.StatusEmpty, nil),
				},
				Problems: records.Problems{another(returned, orig)},
			},
		},
		{
			name: "a blank row beats a deleted one",
			books: []*copyOf{
				workbook(orig, units, []*records.Annotation{rec("u1", "ak", records.StatusMissing, nil)}),
				workbook(returned, units, []*records.Annotation{rec("u1", "ak", records.StatusEmpty, nil)}),
			},
			want: merged{
				Records:  []*records.Annotation{rec("u1", "ak", records.StatusEmpty, nil)},
				Problems: records.Problems{another(returned, orig)},
			},
		},
		{
			name: "identical answers are one record",
			books: []*copyOf{
				workbook(orig, units, []*records.Annotation{rec("u1", "ak", records.StatusComplete, yes)}),
				workbook(returned, units, []*records.Annotation{rec("u1", "ak", records.StatusComplete, map[string]any{"q": "yes"})}),
			},
			want: merged{
				Records:  []*records.Annotation{rec("u1", "ak", records.StatusComplete, yes)},
				Problems: records.Problems{another(returned, orig)},
			},
		},
		{
			name: "different answers are a conflict naming both paths in full, and the record is kept",
			books: []*copyOf{
				workbook(orig, units, []*records.Annotation{
					rec("u1", "ak", records.StatusComplete, yes),
					rec("u2", "ak", records.StatusComplete, no),
				}),
				workbook(returned, units, []*records.Annotation{
					rec("u1", "ak", records.StatusComplete, no),
					rec("u2", "ak", records.StatusComplete, no),
				}),
			},
			want: merged{
				Records: []*records.Annotation{clashed, rec("u2", "ak", records.StatusComplete, no)},
				Problems: records.Problems{
					{Severity: records.Error, File: returned, Record: "u1", Err: ErrConflict, Message: clashMsg},
					another(returned, orig),
				},
				Conflicts: []Conflict{clash},
			},
		},
		{
			name: "claims of copies of a shared workbook combine",
			books: []*copyOf{
				workbook("shared/a.xlsx", units, []*records.Annotation{
					rec("u1", "ak", records.StatusComplete, yes),
					rec("u2", "", records.StatusEmpty, nil),
					rec("u3", "", records.StatusEmpty, nil),
				}),
				workbook("shared/b.xlsx", units, []*records.Annotation{
					rec("u1", "", records.StatusEmpty, nil),
					rec("u2", "bt", records.StatusComplete, no),
					rec("u3", "", records.StatusEmpty, nil),
				}),
				workbook("shared/c.xlsx", units, []*records.Annotation{
					// u1's row is gone here; u2 claimed alike again.
					rec("u2", "bt", records.StatusComplete, no),
					rec("u3", "", records.StatusEmpty, nil),
				}),
			},
			want: merged{
				Records: []*records.Annotation{
					rec("u1", "ak", records.StatusComplete, yes),
					rec("u2", "bt", records.StatusComplete, no),
					rec("u3", "", records.StatusEmpty, nil),
				},
				Problems: records.Problems{another("shared/b.xlsx", "shared/a.xlsx"), another("shared/c.xlsx", "shared/a.xlsx")},
			},
		},
		{
			name: "annotator IDs are compared without case or surrounding spaces",
			books: []*copyOf{
				workbook(orig, units, []*records.Annotation{rec("u1", "ak", records.StatusEmpty, nil)}),
				workbook(returned, units, []*records.Annotation{rec("u1", " AK ", records.StatusComplete, yes)}),
			},
			want: merged{
				Records:  []*records.Annotation{rec("u1", " AK ", records.StatusComplete, yes)},
				Problems: records.Problems{another(returned, orig)},
			},
		},
		{
			name: "records come in the workbook's unit order",
			books: []*copyOf{
				workbook("shared/a.xlsx", units, []*records.Annotation{rec("u3", "ak", records.StatusComplete, yes)}),
				workbook("shared/b.xlsx", units, []*records.Annotation{
					rec("u1", "bt", records.StatusComplete, no),
					rec("u2", "cm", records.StatusComplete, no),
				}),
			},
			want: merged{
				Records: []*records.Annotation{
					rec("u1", "bt", records.StatusComplete, no),
					rec("u2", "cm", records.StatusComplete, no),
					rec("u3", "ak", records.StatusComplete, yes),
				},
				Problems: records.Problems{another("shared/b.xlsx", "shared/a.xlsx")},
			},
		},
		{
			name: "problems of copies not kept are dropped; workbook-level ones stay",
			books: []*copyOf{
				workbook(orig, units, []*records.Annotation{rec("u1", "ak", records.StatusEmpty, nil, unitWarn)},
					wbProblem, droppedProblem),
				workbook(returned, units, []*records.Annotation{rec("u1", "ak", records.StatusComplete, yes, unitWarn)},
					keptProblem),
			},
			want: merged{
				Records:  []*records.Annotation{rec("u1", "ak", records.StatusComplete, yes, unitWarn)},
				Problems: records.Problems{wbProblem, keptProblem, another(returned, orig)},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := merge(c.books)
			if diff := cmp.Diff(c.want, got, sentinels, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeConflictIsAnError: the problem of a conflict is an error that
// errors.Is finds as ErrConflict, and the copies' own records are left as
// they were.
func TestMergeConflictIsAnError(t *testing.T) {
	t.Parallel()
	first := rec("u1", "ak", records.StatusComplete, map[string]any{"q": "yes"})
	m := merge([]*copyOf{
		workbook("a/b01.xlsx", []string{"u1"}, []*records.Annotation{first}),
		workbook("b/b01.xlsx", []string{"u1"}, []*records.Annotation{rec("u1", "ak", records.StatusComplete, map[string]any{"q": "no"})}),
	})
	if !errors.Is(m.Problems, ErrConflict) {
		t.Errorf("problems %v: not ErrConflict", m.Problems)
	}
	if first.Status != records.StatusComplete || len(first.Problems) != 0 {
		t.Errorf("the first copy's record was changed in place: %+v", first)
	}
}
