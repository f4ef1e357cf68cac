package records_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/recordtest"
	"github.com/google/go-cmp/cmp"
)

// TestRead: values come back in the forms pull gives them.
func TestRead(t *testing.T) {
	tp := recordtest.Template(t)
	recs, origins, err := recordtest.Read(t, tp,
		recordtest.Line("u1", "ann", "complete", `{"pick":"y","tags":["3","1"],"score":4,"quote":{"field":"text","start":0,"end":3,"text":"The"}}`),
		"",
		recordtest.Line("u2", "", "empty", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	src := records.RecordSource{Kind: "xlsx", File: "et-b01.xlsx", Sheet: "Annotate", Rows: []int{2}}
	base := records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: "et", Version: 2}, Batch: "b01", Source: src, Problems: []records.UnitProblem{}}
	u1, u2 := base, base
	u1.Unit, u1.Item, u1.Annotator, u1.Status = "u1", "u1", "ann", records.StatusComplete
	u1.Values = map[string]any{"pick": "y", "tags": []string{"1", "3"}, "score": 4, "quote": records.SpanValue{Field: "text", Start: intp(0), End: intp(3), Text: "The"}}
	u2.Unit, u2.Item, u2.Status, u2.Values = "u2", "u2", records.StatusEmpty, map[string]any{}
	if diff := cmp.Diff([]*records.Annotation{&u1, &u2}, recs); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if got := []string{origins[recs[0]], origins[recs[1]]}; !cmp.Equal(got, []string{"ann.jsonl:1", "ann.jsonl:3"}) {
		t.Errorf("origins %q", got)
	}
}

func TestReadErrors(t *testing.T) {
	tp := recordtest.Template(t)
	ok := recordtest.Line("u1", "ann", "complete", `{"pick":"y"}`)
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"not JSON", []string{ok, `{"schema":`}, "ann.jsonl:2: not a canonical record: unexpected EOF"},
		{"two values on a line", []string{ok + ok}, "ann.jsonl:1: not a canonical record: more than one JSON value on the line"},
		{"another schema", []string{`{"schema":"x/1"}`}, `ann.jsonl:1: not a canonical record: schema "x/1", want "annosheet.annotation/1" (is this the output of annosheet pull?)`},
		{"another template", []string{ok, strings.Replace(ok, `"version":2`, `"version":1`, 1)}, "ann.jsonl:2: not a canonical record: a record of template et version 1, not et version 2"},
		{"a scale of text", []string{ok, "", recordtest.Line("u2", "ann", "complete", `{"score":"abc"}`)}, `ann.jsonl:3: unit u2: question "score": "abc" is not a whole number`},
		{"a multi that is not a list", []string{recordtest.Line("u2", "ann", "complete", `{"tags":"1"}`)}, `ann.jsonl:1: unit u2: question "tags": "1" is not a list of codes`},
		{"a code not among the options", []string{recordtest.Line("u2", "ann", "complete", `{"pick":"maybe"}`)}, `ann.jsonl:1: unit u2: question "pick": "maybe" is not one of the codes "y", "n"`},
		{"an answer given twice", []string{ok, recordtest.Line("u2", "ann", "complete", `{"pick":"y","pick":"n"}`)}, `ann.jsonl:2: not a canonical record: the key "pick" is given twice in values`},
		{"a field given twice", []string{strings.Replace(ok, `"status":"complete"`, `"status":"empty","status":"complete"`, 1)}, `ann.jsonl:1: not a canonical record: the key "status" is given twice`},
		{"a field given twice, in another case", []string{strings.Replace(ok, `"status":"complete"`, `"status":"complete","Status":"empty"`, 1)}, `ann.jsonl:1: not a canonical record: the keys "status" and "Status" name one field`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := recordtest.Read(t, tp, tc.lines...)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}

// TestReadTemplate: the template is asked for by the first record's
// name, or by none when there is no record.
func TestReadTemplate(t *testing.T) {
	tp := recordtest.Template(t)
	var asked []records.TemplateID
	resolve := func(id records.TemplateID) (*templates.Template, error) {
		asked = append(asked, id)
		return tp, nil
	}
	if _, _, err := records.Read(strings.NewReader(recordtest.Line("u1", "a", "empty", `{}`)), "a.jsonl", resolve); err != nil {
		t.Fatal(err)
	}
	if _, _, err := records.Read(strings.NewReader("\n"), "b.jsonl", resolve); err != nil {
		t.Fatal(err)
	}
	want := []records.TemplateID{{Name: "et", Version: 2}, {}}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	bad := errors.New("no such template")
	_, _, err := records.Read(strings.NewReader(recordtest.Line("u1", "a", "empty", `{}`)), "a.jsonl", func(records.TemplateID) (*templates.Template, error) { return nil, bad })
	if !errors.Is(err, bad) {
		t.Errorf("error %v, want %v", err, bad)
	}
}

// TestDistinct: copies of a record are compared before anything is left
// out; identical ones are kept once and named, others refused.
func TestDistinct(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	u1 := recordtest.Line("u1", "ann", "complete", `{"pick":"y"}`)
	u2 := recordtest.Line("u2", "ann", "partial", `{"score":3}`)
	nobody := recordtest.Line("u3", "", "empty", `{}`)
	tests := []struct {
		name  string
		lines []string
		kept  []string // origins of the records kept, in order
		dups  []records.Duplicate
		err   string
	}{
		{"all distinct", []string{u1, u2, recordtest.Line("u1", "bob", "complete", `{"pick":"n"}`)},
			[]string{"ann.jsonl:1", "ann.jsonl:2", "ann.jsonl:3"}, nil, ""},
		{"a file twice", []string{u1, u2, u1, u2},
			[]string{"ann.jsonl:1", "ann.jsonl:2"},
			[]records.Duplicate{{Unit: "u1", Annotator: "ann", Where: []string{"ann.jsonl:1", "ann.jsonl:3"}}, {Unit: "u2", Annotator: "ann", Where: []string{"ann.jsonl:2", "ann.jsonl:4"}}}, ""},
		{"three times", []string{u1, "", u1, u1},
			[]string{"ann.jsonl:1"},
			[]records.Duplicate{{Unit: "u1", Annotator: "ann", Where: []string{"ann.jsonl:1", "ann.jsonl:3", "ann.jsonl:4"}}}, ""},
		{"nobody's copies from two batches are two", []string{nobody, strings.Replace(nobody, `"b01"`, `"b02"`, 1), nobody},
			[]string{"ann.jsonl:1", "ann.jsonl:2"},
			[]records.Duplicate{{Unit: "u3", Where: []string{"ann.jsonl:1", "ann.jsonl:3"}}}, ""},
		{"one unit, differently", []string{u1, u2, recordtest.Line("u1", "ann", "complete", `{"pick":"n"}`)},
			nil, nil, `ann.jsonl:1 and ann.jsonl:3: conflicting records: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"a partial copy of a complete unit", []string{u1, recordtest.Line("u1", "ann", "partial", `{"score":3}`)},
			nil, nil, `ann.jsonl:1 and ann.jsonl:2: conflicting records: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"the same answers from another workbook", []string{u1, strings.Replace(u1, `"et-b01.xlsx"`, `"et-b01 (1).xlsx"`, 1)},
			nil, nil, `ann.jsonl:1 and ann.jsonl:2: conflicting records: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"a conflict after a duplicate", []string{u1, u1, recordtest.Line("u1", "ann", "complete", `{"pick":"n"}`)},
			nil, nil, `ann.jsonl:1 and ann.jsonl:3: conflicting records: unit u1 of annotator "ann" is recorded twice, differently; keep one of them`},
		{"complete without answers", []string{u1, recordtest.Line("u2", "ann", "complete", `{}`)},
			nil, nil, `ann.jsonl:2: not a canonical record: unit u2 is "complete" but has no values and no spans`},
		{"complete without answers, twice", []string{recordtest.Line("u2", "ann", "complete", `{}`), recordtest.Line("u2", "ann", "complete", `{}`)},
			nil, nil, `ann.jsonl:1: not a canonical record: unit u2 is "complete" but has no values and no spans`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recs, origins, err := recordtest.Read(t, tp, tc.lines...)
			if err != nil {
				t.Fatal(err)
			}
			kept, dups, err := records.Distinct(recs, origins)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !(errors.Is(err, records.ErrConflict) || errors.Is(err, records.ErrInvalid)) {
					t.Fatalf("error %v\nwant  %s (wrapping ErrConflict or ErrInvalid)", err, tc.err)
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
		d    records.Duplicate
		want string
	}{
		{records.Duplicate{Unit: "u1", Annotator: "ann", Where: []string{"a.jsonl:1", "a.jsonl:6"}},
			`a.jsonl:1 and a.jsonl:6: unit u1 of annotator "ann" is recorded twice, identically; kept once`},
		{records.Duplicate{Unit: "u1", Annotator: "ann", Where: []string{"a.jsonl:1", "a.jsonl:6", "a.jsonl:11"}},
			`a.jsonl:1, a.jsonl:6 and a.jsonl:11: unit u1 of annotator "ann" is recorded 3 times, identically; kept once`},
		{records.Duplicate{Unit: "u3", Where: []string{"b.xlsx: Annotate row 4", "b.xlsx: Annotate row 4"}},
			`b.xlsx: Annotate row 4 and b.xlsx: Annotate row 4: unit u3 (unclaimed) is recorded twice, identically; kept once`},
	}
	for _, tc := range tests {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// FuzzRead: any file given as pulled records is read into records
// that encode again, or refused with an error that names it.
func FuzzRead(f *testing.F) {
	tp := recordtest.Template(f)
	f.Add([]byte(recordtest.Line("u1", "a", "complete", `{"pick":"y","tags":["1","3"],"score":4,"quote":{"field":"text","start":0,"end":3,"text":"the"}}`) + "\n"))
	f.Add([]byte(recordtest.Line("u1", "a", "empty", `{}`) + "\n" + recordtest.Line("u1", "a", "empty", `{}`)))
	f.Add([]byte(recordtest.Line("u1", "", "missing", `{}`) + "\r\n\n   \n"))
	f.Add([]byte(`{"schema":"annosheet.annotation/1"`))
	f.Add([]byte("\xef\xbb\xbf[1,2]\n{}{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, origins, err := records.Read(bytes.NewReader(b), "fuzz.jsonl", func(records.TemplateID) (*templates.Template, error) { return tp, nil })
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.jsonl") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		for _, r := range recs {
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("a record read does not encode: %v", err)
			}
			if !strings.HasPrefix(origins[r], "fuzz.jsonl:") {
				t.Fatalf("origin %q", origins[r])
			}
		}
	})
}

// TestReadLineBudget: a file with a line longer than a record may
// be is refused at that line, without holding the line.
func TestReadLineBudget(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	long := io.MultiReader(strings.NewReader(recordtest.Line("u1", "a", "empty", `{}`)+"\n"+`{"schema":"`),
		io.LimitReader(repeat('a'), records.MaxRecordLine+1), strings.NewReader("\"}\n"))
	_, _, err := records.Read(long, "big.jsonl", func(records.TemplateID) (*templates.Template, error) { return tp, nil })
	if !errors.Is(err, boundedread.ErrTooLarge) || !strings.HasPrefix(err.Error(), "big.jsonl:2: ") {
		t.Errorf("Read: %v", err)
	}
}

// repeat is an endless stream of one byte.
type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
