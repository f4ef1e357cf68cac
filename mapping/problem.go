package mapping

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Sentinel errors that problems wrap, for errors.Is.
var (
	// ErrMalformed: an input file is not valid JSON or JSON Lines.
	ErrMalformed = errors.New("malformed input")
	// ErrMissingField: a record lacks a field the template reads.
	ErrMissingField = errors.New("missing field")
	// ErrDuplicateID: two records have the same id.
	ErrDuplicateID = errors.New("duplicate id")
	// ErrBadValue: a field has a value the template cannot use.
	ErrBadValue = errors.New("bad value")
	// ErrTruncated: a text was too long for a cell and is shown cut.
	ErrTruncated = errors.New("text truncated for display")
	// ErrReplaced: characters that a spreadsheet cannot hold were replaced.
	ErrReplaced = errors.New("characters replaced")
)

// Severities of a problem.
const (
	Error   = "error"
	Warning = "warning"
)

// Problem is one thing wrong with the input or a filled sheet, located as
// precisely as the data allows: by file and line and record for inputs, by
// sheet and cell for workbooks.
type Problem struct {
	Severity string `json:"severity"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Sheet    string `json:"sheet,omitempty"`
	Cell     string `json:"cell,omitempty"` // A1 form, without the sheet
	Row      int    `json:"row,omitempty"`
	Record   string `json:"record,omitempty"` // the record or unit id
	// Shown is the unit's ID as its workbook shows it, where that is not
	// Record: an opaque ID (item-0008) whose real ID the study's key gave.
	Shown   string `json:"shown,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	Err     error  `json:"-"`
}

// Error renders the problem as one line that starts with where it is:
//
//	data.jsonl:3: record "x1": field "target": no field "target"
//	b01.xlsx: Annotate!F14: "maybe" is not one of: Yes, No
func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.Where())
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p.Record != "" && p.Cell == "" {
		fmt.Fprintf(&b, "record %s: ", UnitName(p.Record, p.Shown))
	}
	if p.Field != "" && p.Cell == "" {
		fmt.Fprintf(&b, "field %q: ", p.Field)
	}
	b.WriteString(p.Message)
	return b.String()
}

// Where is the location part of Error: "file:line" or "file: Sheet!A1".
func (p *Problem) Where() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
	}
	if p.Cell != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		if p.Sheet != "" {
			b.WriteString(p.Sheet + "!")
		}
		b.WriteString(p.Cell)
	}
	return b.String()
}

// Unwrap returns the sentinel the problem is an instance of.
func (p *Problem) Unwrap() error { return p.Err }

// Problems is a sortable list of problems that is also an error.
type Problems []*Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives each problem to errors.Is and errors.As.
func (ps Problems) Unwrap() []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// Sort orders problems by file, sheet, row, column and message, so that
// reports read top to bottom like the data.
func (ps Problems) Sort() {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Sheet != b.Sheet {
			return a.Sheet < b.Sheet
		}
		if a.Row != b.Row {
			return a.Row < b.Row
		}
		if len(a.Cell) != len(b.Cell) {
			return len(a.Cell) < len(b.Cell)
		}
		if a.Cell != b.Cell {
			return a.Cell < b.Cell
		}
		return a.Message < b.Message
	})
}

// HasErrors reports whether any problem has error severity.
func (ps Problems) HasErrors() bool {
	for _, p := range ps {
		if p.Severity == Error {
			return true
		}
	}
	return false
}

// UnitName names a unit (or an instance) in a message: its ID quoted,
// and the ID its workbook shows, where that differs, in brackets:
// "gpt4o-17" (shown as "item-0008").
func UnitName(id, shown string) string {
	if shown == "" || shown == id {
		return strconv.Quote(id)
	}
	return strconv.Quote(id) + " (shown as " + strconv.Quote(shown) + ")"
}
