package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ProblemExamples is how many of many problems of an input Error shows,
// after their cause.
const ProblemExamples = 3

// Error writes an error for a person, one line or more, each starting
// with what it is about: the problems of an input (records.Problems)
// their cause first and a few of them (records.Problems.Summary); a
// template's problems (templates.ErrorList) one a line, with their line
// in the YAML; several errors joined (errors.Join) each in turn; any other
// error as "annosheet: " and its message, each line of it so prefixed.
// more gives that message as the caller says it (with what to do about
// the error, in the command line's words).
func Error(w io.Writer, err error, more func(err error, msg string) string) {
	if Joined(err) {
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			Error(w, e, more)
		}
		return
	}
	var ps records.Problems
	var tl templates.ErrorList
	switch {
	case errors.As(err, &ps):
		for _, line := range ps.Summary(ProblemExamples) {
			fmt.Fprintln(w, line)
		}
	case errors.As(err, &tl):
		for _, e := range tl {
			fmt.Fprintln(w, e.Error())
		}
	default:
		msg := err.Error()
		if errors.Is(err, context.Canceled) && !strings.HasPrefix(msg, "interrupted") {
			// Stopped before anything was written (outputs are written
			// whole, at the end).
			msg = "interrupted: nothing was written; run the same command again"
		}
		for _, line := range strings.Split(more(err, msg), "\n") {
			fmt.Fprintln(w, "annosheet: "+line)
		}
	}
}

// joinType is the type of errors.Join's errors, which Error says one by
// one (and no other error with several causes).
var joinType = reflect.TypeOf(errors.Join(errors.New("")))

// Joined reports whether err is several errors joined by errors.Join.
func Joined(err error) bool { return reflect.TypeOf(err) == joinType }
