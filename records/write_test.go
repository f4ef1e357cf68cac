package records_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/recordtest"
)

// TestWriteReadsBack: what Write writes, Read reads back as the same
// records, a line each, with text as it is.
func TestWriteReadsBack(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	in, _, err := recordtest.Read(t, tp,
		recordtest.Line("u1", "ann", "complete", `{"pick":"y","tags":["3","1"],"score":4,"quote":{"field":"text","start":0,"end":3,"text":"<a&b>"}}`),
		recordtest.Line("u2", "", "empty", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := records.Write(&b, in); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 2 || !strings.Contains(b.String(), `"<a&b>"`) {
		t.Errorf("%d lines, text escaped or lost:\n%s", n, b.String())
	}
	out, _, err := records.Read(strings.NewReader(b.String()), "w.jsonl", func(records.TemplateID) (*templates.Template, error) { return tp, nil })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("read back (-wrote +read):\n%s", diff)
	}
}
