package export_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/recordtest"
)

func intp(n int) *int { return &n }

func native(t *testing.T, lines ...string) (string, error) {
	t.Helper()
	tp := recordtest.Template(t)
	recs, origins, err := recordtest.Read(t, tp, lines...)
	if err != nil {
		t.Fatal(err)
	}
	files, err := export.Native(tp, recs, nil, export.Options{Origins: origins})
	if err != nil {
		return "", err
	}
	return string(files[0].Data), nil
}

// TestNative writes typed values as the native file holds them: codes
// as the template converts them, numbers as numbers, a span as an object.
func TestNative(t *testing.T) {
	got, err := native(t,
		recordtest.Line("u1", "ann", "complete", `{"pick":"y","tags":["3","1"],"score":4,"quote":{"field":"text","start":0,"end":3,"text":"The"}}`),
		recordtest.Line("u2", "ann", "partial", `{"quote":{"field":"text","text":"dog"}}`),
		recordtest.Line("u3", "", "empty", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"unit":"u1","who":"ann","pick":"y","labels":[1,3],"score":4,"start":0,"quote":{"end":3,"field":"text","start":0,"text":"The"}}
{"unit":"u2","who":"ann","labels":[],"quote":{"field":"text","text":"dog"}}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestNativeConflicts: records that contradict each other are refused,
// named by the lines they were read from.
func TestNativeConflicts(t *testing.T) {
	u1 := recordtest.Line("u1", "ann", "complete", `{"pick":"y"}`)
	tests := []struct {
		name  string
		lines []string
		want  string // the native file, or the error
		is    error  // the sentinel the error wraps
	}{
		{"the same record twice is one", []string{u1, recordtest.Line("u2", "ann", "complete", `{"pick":"n"}`), u1},
			"{\"unit\":\"u1\",\"who\":\"ann\",\"pick\":\"y\",\"labels\":[]}\n{\"unit\":\"u2\",\"who\":\"ann\",\"pick\":\"n\",\"labels\":[]}\n", nil},
		{"one unit by two annotators", []string{u1, recordtest.Line("u1", "bob", "complete", `{"pick":"n"}`)},
			"{\"unit\":\"u1\",\"who\":\"ann\",\"pick\":\"y\",\"labels\":[]}\n{\"unit\":\"u1\",\"who\":\"bob\",\"pick\":\"n\",\"labels\":[]}\n", nil},
		{"unanswered copies of nobody's unit", []string{recordtest.Line("u1", "", "empty", `{}`), recordtest.Line("u1", "", "empty", `{}`), strings.Replace(recordtest.Line("u1", "", "missing", `{}`), `"b01"`, `"b02"`, 1)}, "", nil},
		{"one unit by one annotator, differently", []string{u1, recordtest.Line("u2", "ann", "empty", `{}`), recordtest.Line("u1", "ann", "complete", `{"pick":"n"}`)},
			`ann.jsonl:1 and ann.jsonl:3: conflicting records: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`, records.ErrConflict},
		{"an empty copy of an answered unit", []string{recordtest.Line("u1", "ann", "empty", `{}`), u1},
			`ann.jsonl:1 and ann.jsonl:2: conflicting records: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`, records.ErrConflict},
		{"complete without answers", []string{u1, recordtest.Line("u2", "ann", "complete", `{}`)},
			`ann.jsonl:2: not a canonical record: unit u2 is "complete" but has no values and no spans`, records.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := native(t, tc.lines...)
			if err != nil {
				if !errors.Is(err, tc.is) {
					t.Errorf("%v does not wrap %v", err, tc.is)
				}
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestNativeSheetOrigins: records passed straight from a pull are named
// by the sheet rows they were read from.
func TestNativeSheetOrigins(t *testing.T) {
	tp := recordtest.Template(t)
	rec := func(row int, pick string) *records.Annotation {
		return &records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: "et", Version: 2},
			Unit: "u1", Item: "u1", Annotator: "ann", Status: records.StatusComplete, Values: map[string]any{"pick": pick},
			Source: records.RecordSource{Kind: "xlsx", File: "et-b01.xlsx", Sheet: "Annotate", Rows: []int{row}}}
	}
	_, err := export.Native(tp, []*records.Annotation{rec(2, "y"), rec(9, "n")}, nil, export.Options{})
	want := `et-b01.xlsx: Annotate row 2 and et-b01.xlsx: Annotate row 9: conflicting records: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}

// TestNativeDuplicates: Native keeps identical copies once and names them
// among the warnings of the file they concern.
func TestNativeDuplicates(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	ann := recordtest.Line("u1", "ann", "complete", `{"pick":"y"}`)
	bob := recordtest.Line("u1", "bob", "complete", `{"pick":"n"}`)
	lines := []string{ann, bob, recordtest.Line("u2", "", "empty", `{}`), ann, bob, recordtest.Line("u2", "", "empty", `{}`)}
	annLine := `{"unit":"u1","who":"ann","pick":"y","labels":[]}` + "\n"
	bobLine := `{"unit":"u1","who":"bob","pick":"n","labels":[]}` + "\n"
	annDup := `ann.jsonl:1 and ann.jsonl:4: unit u1 of annotator "ann" is recorded twice, identically; kept once`
	bobDup := `ann.jsonl:2 and ann.jsonl:5: unit u1 of annotator "bob" is recorded twice, identically; kept once`
	nobodyDup := `ann.jsonl:3 and ann.jsonl:6: unit u2 (unclaimed) is recorded twice, identically; kept once`
	tests := []struct {
		name string
		opt  export.Options
		want []export.File
	}{
		{"one file", export.Options{},
			[]export.File{{Data: []byte(annLine + bobLine), Records: 2, Warnings: []string{annDup, bobDup, nobodyDup}}}},
		{"one annotator", export.Options{Annotators: []string{"bob"}},
			[]export.File{{Data: []byte(bobLine), Records: 1, Warnings: []string{bobDup}}}},
		{"a file each", export.Options{PerAnnotator: true},
			[]export.File{{Annotator: "ann", Data: []byte(annLine), Records: 1, Warnings: []string{annDup}}, {Annotator: "bob", Data: []byte(bobLine), Records: 1, Warnings: []string{bobDup}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, origins, err := recordtest.Read(t, tp, lines...)
			if err != nil {
				t.Fatal(err)
			}
			tc.opt.Origins = origins
			files, err := export.Native(tp, recs, nil, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}
