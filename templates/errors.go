package templates

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrInvalid is wrapped by every problem found in a template, so callers can
// tell a bad template from an I/O failure with errors.Is.
var ErrInvalid = errors.New("invalid template")

// Error is one problem in a template, located by its YAML line.
type Error struct {
	File string // as given by the caller; "" for text without a file
	Line int    // 1-based; 0 when the problem concerns the whole file
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("template")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) hold for every template problem.
func (e *Error) Unwrap() error { return ErrInvalid }

// ErrorList is every problem found in one template, sorted by line, so that
// a user can fix them all in one pass.
type ErrorList []*Error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap gives the individual errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// errs collects problems while a template is checked.
type errs struct {
	file string
	list ErrorList
}

func (c *errs) add(line int, format string, args ...any) {
	c.list = append(c.list, &Error{File: c.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// err returns the collected problems, sorted and without exact repeats, or nil.
func (c *errs) err() error {
	if len(c.list) == 0 {
		return nil
	}
	sort.SliceStable(c.list, func(i, j int) bool { return c.list[i].Line < c.list[j].Line })
	out := c.list[:0]
	for i, e := range c.list {
		if i > 0 && *e == *c.list[i-1] {
			continue
		}
		out = append(out, e)
	}
	return out
}
