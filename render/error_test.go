package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// TestError: each kind of error its lines, the caller's words added to a
// plain error's message only, and joined errors each in turn.
func TestError(t *testing.T) {
	t.Parallel()
	bad := func(line int) *records.Problem {
		return &records.Problem{Severity: records.Error, File: "in.jsonl", Line: line, Err: records.ErrMalformed, Message: "invalid JSON"}
	}
	var many records.Problems
	for i := range 7 {
		many = append(many, bad(i+1))
	}
	more := func(err error, msg string) string {
		if errors.Is(err, context.DeadlineExceeded) {
			return msg + " (try again)"
		}
		return msg
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"plain", errors.New("no such file"), "annosheet: no such file\n"},
		{"the caller's words", fmt.Errorf("slow: %w", context.DeadlineExceeded), "annosheet: slow: context deadline exceeded (try again)\n"},
		{"lines each prefixed", errors.New("two:\nlines"), "annosheet: two:\nannosheet: lines\n"},
		{"interrupted", fmt.Errorf("read: %w", context.Canceled), "annosheet: interrupted: nothing was written; run the same command again\n"},
		{"interrupted, said already", fmt.Errorf("interrupted after 3 files: %w", context.Canceled), "annosheet: interrupted after 3 files: context canceled\n"},
		{"problems", records.Problems{bad(1), bad(2)}, "in.jsonl:1: invalid JSON\nin.jsonl:2: invalid JSON\n"},
		{"many problems", many, strings.Join(many.Summary(ProblemExamples), "\n") + "\n"},
		{"a template's", templates.ErrorList{{File: "t.yaml", Line: 3, Msg: "unknown field"}, {File: "t.yaml", Line: 9, Msg: "no name"}},
			"t.yaml:3: unknown field\nt.yaml:9: no name\n"},
		{"joined", errors.Join(errors.New("first"), records.Problems{bad(4)}, fmt.Errorf("x: %w", context.DeadlineExceeded)),
			"annosheet: first\nin.jsonl:4: invalid JSON\nannosheet: x: context deadline exceeded (try again)\n"},
	} {
		var b strings.Builder
		Error(&b, tc.err, more)
		if b.String() != tc.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, b.String(), tc.want)
		}
	}
	if Joined(fmt.Errorf("%w, %w", errors.New("a"), errors.New("b"))) || !Joined(errors.Join(errors.New("a"))) {
		t.Error("Joined: only errors.Join's errors are joined")
	}
	if len(many.Summary(ProblemExamples)) != ProblemExamples+2 {
		t.Errorf("many problems: %q, want their cause, %d examples and a count", many.Summary(ProblemExamples), ProblemExamples)
	}
}
