package records_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
)

// TestSummary: how the problems of an input are told. A few are listed
// one line each; more are told by their cause, in one line, then three
// of them, then how many more; problems of reading a file come first.
func TestSummary(t *testing.T) {
	t.Parallel()
	missing := func(file string, line int, rec, field string) *records.Problem {
		return &records.Problem{Severity: records.Error, File: file, Line: line, Record: rec, Field: field, Err: records.ErrMissingField,
			Message: fmt.Sprintf("context %q needs this field; mark it optional: true if it may be absent", field)}
	}
	dup := func(file string, line int, rec string) *records.Problem {
		return &records.Problem{Severity: records.Error, File: file, Line: line, Record: rec, Err: records.ErrDuplicateID,
			Message: "the id is also used by the record at " + file + ":1"}
	}
	malformed := &records.Problem{Severity: records.Error, File: "in.jsonl", Line: 2, Err: records.ErrMalformed,
		Message: "a second JSON value starts here"}
	bad := func(line int) *records.Problem {
		return &records.Problem{Severity: records.Error, File: "in.jsonl", Line: line, Record: fmt.Sprintf("r%d", line), Field: "score", Err: records.ErrBadValue, Message: "not a number"}
	}
	// records lack fields: n records of file, each lacking every field.
	lacking := func(file string, n int, fields ...string) records.Problems {
		var ps records.Problems
		for i := range n {
			for _, f := range fields {
				ps = append(ps, missing(file, i+1, fmt.Sprintf("r%d", i+1), f))
			}
		}
		return ps
	}
	line := func(p *records.Problem) string { return p.Error() }
	join := func(pss ...records.Problems) records.Problems {
		var out records.Problems
		for _, ps := range pss {
			out = append(out, ps...)
		}
		return out
	}
	wrongTemplate := lacking("in.json", 7, "passages", "prediction 1", "question", "gold")
	// What JSON Lines read as JSON gives: the first line's fields taken
	// for records, then the second line's value.
	garbled := lacking("in.jsonl", 7, "passages", "prediction 1", "question", "gold", "passages2")
	garbled.Sort()
	brief := join(garbled, records.Problems{malformed})
	brief.Sort()
	uneven := join(lacking("in.json", 6, "text"), lacking("in.json", 2, "gold"))
	uneven.Sort()
	var dups records.Problems
	for i := 2; i < 12; i++ {
		dups = append(dups, dup("in.jsonl", i, fmt.Sprintf("r%d", i)))
	}
	var bads records.Problems
	for i := 1; i <= 9; i++ {
		bads = append(bads, bad(i))
	}
	capped := lacking("in.json", 25, "passages", "question", "gold", "prediction 1")
	twoFiles := join(lacking("a.jsonl", 3, "text"), lacking("b.jsonl", 3, "text"))
	manyFields := lacking("in.json", 2, "a", "b", "c", "d", "e", "f", "g", "h")

	for _, c := range []struct {
		name string
		ps   records.Problems
		want []string
	}{
		{"none", nil, nil},
		{
			// As the README shows them.
			"a few, one line each",
			records.Problems{missing("data.jsonl", 2, "b", "target"), dup("data.jsonl", 3, "a")},
			[]string{
				`data.jsonl:2: record "b": field "target": context "target" needs this field; mark it optional: true if it may be absent`,
				`data.jsonl:3: record "a": the id is also used by the record at data.jsonl:1`,
			},
		},
		{
			"a few, the file's problem first",
			records.Problems{missing("in.jsonl", 1, "a", "x"), malformed},
			[]string{line(malformed), line(missing("in.jsonl", 1, "a", "x"))},
		},
		{
			"five are still a few",
			bads[:5],
			[]string{line(bads[0]), line(bads[1]), line(bads[2]), line(bads[3]), line(bads[4])},
		},
		{
			"records of another template",
			wrongTemplate,
			[]string{
				`in.json: 7 records lack fields that the template needs: "passages", "prediction 1", "question" and "gold"; is this the template's input?`,
				line(wrongTemplate[0]), line(wrongTemplate[1]), line(wrongTemplate[2]),
				"… and 25 more problems",
			},
		},
		{
			"the file's problem before the records it garbled",
			brief,
			[]string{line(malformed), line(garbled[0]), line(garbled[1]), line(garbled[2]), "… and 32 more problems"},
		},
		{
			"fields lacked by different records",
			uneven,
			[]string{
				`in.json: 6 records lack fields that the template needs: "text" (6 records) and "gold" (2 records); is this the template's input?`,
				line(uneven[0]), line(uneven[1]), line(uneven[2]),
				"… and 5 more problems",
			},
		},
		{
			"one field",
			lacking("in.jsonl", 8, "target"),
			[]string{
				`in.jsonl: 8 records lack a field that the template needs: "target"`,
				line(missing("in.jsonl", 1, "r1", "target")), line(missing("in.jsonl", 2, "r2", "target")), line(missing("in.jsonl", 3, "r3", "target")),
				"… and 5 more problems",
			},
		},
		{
			"ids used twice",
			dups,
			[]string{"in.jsonl: 10 records have the id of another record", line(dups[0]), line(dups[1]), line(dups[2]), "… and 7 more problems"},
		},
		{
			"nothing shared: the first problem first",
			bads,
			[]string{line(bads[0]), line(bads[1]), line(bads[2]), line(bads[3]), "… and 5 more problems"},
		},
		{
			"the check stopped",
			capped,
			[]string{
				`in.json: at least 25 records lack fields that the template needs: "passages", "question", "gold" and "prediction 1"; is this the template's input?`,
				line(capped[0]), line(capped[1]), line(capped[2]),
				"… and 97 more problems; the check stopped at 100",
			},
		},
		{
			"two files",
			twoFiles,
			[]string{
				`a.jsonl, b.jsonl: 6 records lack a field that the template needs: "text"`,
				line(twoFiles[0]), line(twoFiles[1]), line(twoFiles[2]),
				"… and 3 more problems",
			},
		},
		{
			"many fields",
			manyFields,
			[]string{
				`in.json: 2 records lack fields that the template needs: "a", "b", "c", "d", "e", "f" and 2 more; is this the template's input?`,
				line(manyFields[0]), line(manyFields[1]), line(manyFields[2]),
				"… and 13 more problems",
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.want, c.ps.Summary(3)); diff != "" {
				t.Errorf("Summary (-want +got):\n%s", diff)
			}
		})
	}
}
