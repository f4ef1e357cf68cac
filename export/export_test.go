package export_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
)

const tmplYAML = `name: et
version: 2
title: Export test
instructions: Answer.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: pick, header: Pick, type: choice, options: [{code: y, label: "Yes"}, {code: n, label: "No"}]}
  - {name: tags, header: Tags, type: multi, options: [{code: "1", label: One}, {code: "2", label: Two}, {code: "3", label: Three}]}
  - {name: score, header: Score, type: scale, min: 1, max: 5}
  - {name: quote, header: Quote, type: span, field: text}
annotator: {claim: row}
export:
  format: jsonl
  fields:
    unit: {meta: unit}
    who: {meta: annotator}
    pick: {value: pick}
    labels: {value: tags, as: ints, default: []}
    score: {value: score}
    start: {value: quote.start}
    quote: {value: quote}
`

func tmpl(t *testing.T) *templates.Template {
	t.Helper()
	tp, err := templates.Load("et.yaml", []byte(tmplYAML))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// line is a canonical record of template et as pull writes it.
func line(unit, annotator, status, values string) string {
	return `{"schema":"annosheet.annotation/1","template":{"name":"et","version":2},"batch":"b01","unit":"` + unit +
		`","item":"` + unit + `","annotator":"` + annotator + `","status":"` + status + `","values":` + values +
		`,"source":{"kind":"xlsx","file":"et-b01.xlsx","sheet":"Annotate","rows":[2]},"problems":[]}`
}

func read(t *testing.T, tp *templates.Template, lines ...string) ([]*mapping.Annotation, export.Origins, error) {
	t.Helper()
	return export.ReadRecords(strings.NewReader(strings.Join(lines, "\n")+"\n"), "ann.jsonl", func(mapping.TemplateID) (*templates.Template, error) { return tp, nil })
}

func intp(n int) *int { return &n }

// TestReadRecords: values come back in the forms pull gives them.
func TestReadRecords(t *testing.T) {
	tp := tmpl(t)
	recs, origins, err := read(t, tp,
		line("u1", "ann", "complete", `{"pick":"y","tags":["3","1"],"score":4,"quote":{"field":"text","start":0,"end":3,"text":"The"}}`),
		"",
		line("u2", "", "empty", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	src := mapping.RecordSource{Kind: "xlsx", File: "et-b01.xlsx", Sheet: "Annotate", Rows: []int{2}}
	base := mapping.Annotation{Schema: mapping.AnnotationSchema, Template: mapping.TemplateID{Name: "et", Version: 2}, Batch: "b01", Source: src, Problems: []mapping.UnitProblem{}}
	u1, u2 := base, base
	u1.Unit, u1.Item, u1.Annotator, u1.Status = "u1", "u1", "ann", mapping.StatusComplete
	u1.Values = map[string]any{"pick": "y", "tags": []string{"1", "3"}, "score": 4, "quote": mapping.SpanValue{Field: "text", Start: intp(0), End: intp(3), Text: "The"}}
	u2.Unit, u2.Item, u2.Status, u2.Values = "u2", "u2", mapping.StatusEmpty, map[string]any{}
	if diff := cmp.Diff([]*mapping.Annotation{&u1, &u2}, recs); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if got := []string{origins[recs[0]], origins[recs[1]]}; !cmp.Equal(got, []string{"ann.jsonl:1", "ann.jsonl:3"}) {
		t.Errorf("origins %q", got)
	}
}

func TestReadRecordsErrors(t *testing.T) {
	tp := tmpl(t)
	ok := line("u1", "ann", "complete", `{"pick":"y"}`)
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"not JSON", []string{ok, `{"schema":`}, "ann.jsonl:2: cannot export: not a canonical record: unexpected EOF"},
		{"two values on a line", []string{ok + ok}, "ann.jsonl:1: cannot export: more than one JSON value on the line"},
		{"another schema", []string{`{"schema":"x/1"}`}, `ann.jsonl:1: cannot export: schema "x/1", want "annosheet.annotation/1" (is this the output of annosheet pull?)`},
		{"another template", []string{ok, strings.Replace(ok, `"version":2`, `"version":1`, 1)}, "ann.jsonl:2: cannot export: a record of template et version 1, not et version 2"},
		{"a scale of text", []string{ok, "", line("u2", "ann", "complete", `{"score":"abc"}`)}, `ann.jsonl:3: unit u2: question "score": "abc" is not a whole number`},
		{"a multi that is not a list", []string{line("u2", "ann", "complete", `{"tags":"1"}`)}, `ann.jsonl:1: unit u2: question "tags": "1" is not a list of codes`},
		{"a code not among the options", []string{line("u2", "ann", "complete", `{"pick":"maybe"}`)}, `ann.jsonl:1: unit u2: question "pick": "maybe" is not one of the codes "y", "n"`},
		{"an answer given twice", []string{ok, line("u2", "ann", "complete", `{"pick":"y","pick":"n"}`)}, `ann.jsonl:2: cannot export: the key "pick" is given twice in values`},
		{"a field given twice", []string{strings.Replace(ok, `"status":"complete"`, `"status":"empty","status":"complete"`, 1)}, `ann.jsonl:1: cannot export: the key "status" is given twice`},
		{"a field given twice, in another case", []string{strings.Replace(ok, `"status":"complete"`, `"status":"complete","Status":"empty"`, 1)}, `ann.jsonl:1: cannot export: the keys "status" and "Status" name one field`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := read(t, tp, tc.lines...)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}

// TestReadRecordsTemplate: the template is asked for by the first record's
// name, or by none when there is no record.
func TestReadRecordsTemplate(t *testing.T) {
	tp := tmpl(t)
	var asked []mapping.TemplateID
	resolve := func(id mapping.TemplateID) (*templates.Template, error) {
		asked = append(asked, id)
		return tp, nil
	}
	if _, _, err := export.ReadRecords(strings.NewReader(line("u1", "a", "empty", `{}`)), "a.jsonl", resolve); err != nil {
		t.Fatal(err)
	}
	if _, _, err := export.ReadRecords(strings.NewReader("\n"), "b.jsonl", resolve); err != nil {
		t.Fatal(err)
	}
	want := []mapping.TemplateID{{Name: "et", Version: 2}, {}}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	bad := errors.New("no such template")
	_, _, err := export.ReadRecords(strings.NewReader(line("u1", "a", "empty", `{}`)), "a.jsonl", func(mapping.TemplateID) (*templates.Template, error) { return nil, bad })
	if !errors.Is(err, bad) {
		t.Errorf("error %v, want %v", err, bad)
	}
}

func native(t *testing.T, lines ...string) (string, error) {
	t.Helper()
	tp := tmpl(t)
	recs, origins, err := read(t, tp, lines...)
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
		line("u1", "ann", "complete", `{"pick":"y","tags":["3","1"],"score":4,"quote":{"field":"text","start":0,"end":3,"text":"The"}}`),
		line("u2", "ann", "partial", `{"quote":{"field":"text","text":"dog"}}`),
		line("u3", "", "empty", `{}`))
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
	u1 := line("u1", "ann", "complete", `{"pick":"y"}`)
	tests := []struct {
		name  string
		lines []string
		want  string // the native file, or the error
	}{
		{"the same record twice is one", []string{u1, line("u2", "ann", "complete", `{"pick":"n"}`), u1},
			"{\"unit\":\"u1\",\"who\":\"ann\",\"pick\":\"y\",\"labels\":[]}\n{\"unit\":\"u2\",\"who\":\"ann\",\"pick\":\"n\",\"labels\":[]}\n"},
		{"one unit by two annotators", []string{u1, line("u1", "bob", "complete", `{"pick":"n"}`)},
			"{\"unit\":\"u1\",\"who\":\"ann\",\"pick\":\"y\",\"labels\":[]}\n{\"unit\":\"u1\",\"who\":\"bob\",\"pick\":\"n\",\"labels\":[]}\n"},
		{"unanswered copies of nobody's unit", []string{line("u1", "", "empty", `{}`), line("u1", "", "empty", `{}`), strings.Replace(line("u1", "", "missing", `{}`), `"b01"`, `"b02"`, 1)}, ""},
		{"one unit by one annotator, differently", []string{u1, line("u2", "ann", "empty", `{}`), line("u1", "ann", "complete", `{"pick":"n"}`)},
			`ann.jsonl:1 and ann.jsonl:3: cannot export: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"an empty copy of an answered unit", []string{line("u1", "ann", "empty", `{}`), u1},
			`ann.jsonl:1 and ann.jsonl:2: cannot export: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"complete without answers", []string{u1, line("u2", "ann", "complete", `{}`)},
			`ann.jsonl:2: cannot export: unit u2 is "complete" but has no values and no spans`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := native(t, tc.lines...)
			if err != nil {
				if !errors.Is(err, export.ErrExport) {
					t.Errorf("%v does not wrap ErrExport", err)
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
	tp := tmpl(t)
	rec := func(row int, pick string) *mapping.Annotation {
		return &mapping.Annotation{Schema: mapping.AnnotationSchema, Template: mapping.TemplateID{Name: "et", Version: 2},
			Unit: "u1", Item: "u1", Annotator: "ann", Status: mapping.StatusComplete, Values: map[string]any{"pick": pick},
			Source: mapping.RecordSource{Kind: "xlsx", File: "et-b01.xlsx", Sheet: "Annotate", Rows: []int{row}}}
	}
	_, err := export.Native(tp, []*mapping.Annotation{rec(2, "y"), rec(9, "n")}, nil, export.Options{})
	want := `et-b01.xlsx: Annotate row 2 and et-b01.xlsx: Annotate row 9: cannot export: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}

// TestDistinct: copies of a record are compared before anything is left
// out; identical ones are kept once and named, others refused.
func TestDistinct(t *testing.T) {
	t.Parallel()
	tp := tmpl(t)
	u1 := line("u1", "ann", "complete", `{"pick":"y"}`)
	u2 := line("u2", "ann", "partial", `{"score":3}`)
	nobody := line("u3", "", "empty", `{}`)
	tests := []struct {
		name  string
		lines []string
		kept  []string // origins of the records kept, in order
		dups  []export.Duplicate
		err   string
	}{
		{"all distinct", []string{u1, u2, line("u1", "bob", "complete", `{"pick":"n"}`)},
			[]string{"ann.jsonl:1", "ann.jsonl:2", "ann.jsonl:3"}, nil, ""},
		{"a file twice", []string{u1, u2, u1, u2},
			[]string{"ann.jsonl:1", "ann.jsonl:2"},
			[]export.Duplicate{{Unit: "u1", Annotator: "ann", Where: []string{"ann.jsonl:1", "ann.jsonl:3"}}, {Unit: "u2", Annotator: "ann", Where: []string{"ann.jsonl:2", "ann.jsonl:4"}}}, ""},
		{"three times", []string{u1, "", u1, u1},
			[]string{"ann.jsonl:1"},
			[]export.Duplicate{{Unit: "u1", Annotator: "ann", Where: []string{"ann.jsonl:1", "ann.jsonl:3", "ann.jsonl:4"}}}, ""},
		{"nobody's copies from two batches are two", []string{nobody, strings.Replace(nobody, `"b01"`, `"b02"`, 1), nobody},
			[]string{"ann.jsonl:1", "ann.jsonl:2"},
			[]export.Duplicate{{Unit: "u3", Where: []string{"ann.jsonl:1", "ann.jsonl:3"}}}, ""},
		{"one unit, differently", []string{u1, u2, line("u1", "ann", "complete", `{"pick":"n"}`)},
			nil, nil, `ann.jsonl:1 and ann.jsonl:3: cannot export: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"a partial copy of a complete unit", []string{u1, line("u1", "ann", "partial", `{"score":3}`)},
			nil, nil, `ann.jsonl:1 and ann.jsonl:2: cannot export: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"the same answers from another workbook", []string{u1, strings.Replace(u1, `"et-b01.xlsx"`, `"et-b01 (1).xlsx"`, 1)},
			nil, nil, `ann.jsonl:1 and ann.jsonl:2: cannot export: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"a conflict after a duplicate", []string{u1, u1, line("u1", "ann", "complete", `{"pick":"n"}`)},
			nil, nil, `ann.jsonl:1 and ann.jsonl:3: cannot export: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"complete without answers", []string{u1, line("u2", "ann", "complete", `{}`)},
			nil, nil, `ann.jsonl:2: cannot export: unit u2 is "complete" but has no values and no spans`},
		{"complete without answers, twice", []string{line("u2", "ann", "complete", `{}`), line("u2", "ann", "complete", `{}`)},
			nil, nil, `ann.jsonl:1: cannot export: unit u2 is "complete" but has no values and no spans`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, origins, err := read(t, tp, tc.lines...)
			if err != nil {
				t.Fatal(err)
			}
			kept, dups, err := export.Distinct(recs, origins)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, export.ErrExport) {
					t.Fatalf("error %v\nwant  %s (wrapping ErrExport)", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var where []string
			for _, r := range kept {
				where = append(where, origins[r])
			}
			if diff := cmp.Diff(tc.kept, where); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.dups, dups); diff != "" {
				t.Errorf("duplicates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDuplicateString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    export.Duplicate
		want string
	}{
		{export.Duplicate{Unit: "u1", Annotator: "ann", Where: []string{"a.jsonl:1", "a.jsonl:6"}},
			`a.jsonl:1 and a.jsonl:6: unit u1 of annotator "ann" is recorded twice, identically; kept once`},
		{export.Duplicate{Unit: "u1", Annotator: "ann", Where: []string{"a.jsonl:1", "a.jsonl:6", "a.jsonl:11"}},
			`a.jsonl:1, a.jsonl:6 and a.jsonl:11: unit u1 of annotator "ann" is recorded 3 times, identically; kept once`},
		{export.Duplicate{Unit: "u3", Where: []string{"b.xlsx: Annotate row 4", "b.xlsx: Annotate row 4"}},
			`b.xlsx: Annotate row 4 and b.xlsx: Annotate row 4: unit u3 (unclaimed) is recorded twice, identically; kept once`},
	}
	for _, tc := range tests {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// TestNativeDuplicates: Native keeps identical copies once and names them
// among the warnings of the file they concern.
func TestNativeDuplicates(t *testing.T) {
	t.Parallel()
	tp := tmpl(t)
	ann := line("u1", "ann", "complete", `{"pick":"y"}`)
	bob := line("u1", "bob", "complete", `{"pick":"n"}`)
	lines := []string{ann, bob, line("u2", "", "empty", `{}`), ann, bob, line("u2", "", "empty", `{}`)}
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
			recs, origins, err := read(t, tp, lines...)
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
