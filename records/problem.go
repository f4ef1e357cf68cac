package records

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annosheet/annosheet/internal/words"
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

// Summary is the lines that tell a reader about the problems of an
// input: a few (at most examples+2), one line each as Error writes them;
// more, their cause in one line first, then the first examples of them,
// then how many more there are. Problems of reading a file
// (ErrMalformed) come first in either case: the records around them are
// not what the file meant, and the other problems may all follow from
// them. Otherwise the cause is what most problems share (records that
// lack the same fields, as an input that is not the template's does, or
// ids used twice), or else the first problem.
func (ps Problems) Summary(examples int) []string {
	ordered := make(Problems, 0, len(ps))
	for _, malformed := range []bool{true, false} {
		for _, p := range ps {
			if errors.Is(p, ErrMalformed) == malformed {
				ordered = append(ordered, p)
			}
		}
	}
	var lines []string
	if len(ordered) <= examples+2 {
		for _, p := range ordered {
			lines = append(lines, p.Error())
		}
		return lines
	}
	rest := ordered
	cause := ""
	if !errors.Is(ordered[0], ErrMalformed) {
		cause = ps.sharedCause()
	}
	if cause == "" {
		cause, rest = ordered[0].Error(), ordered[1:]
	}
	lines = append(lines, cause)
	for _, p := range rest[:examples] {
		lines = append(lines, p.Error())
	}
	more := fmt.Sprintf("… and %d more %s", len(rest)-examples, words.Pick(len(rest)-examples, "problem", "problems"))
	if len(ps) >= MaxErrors {
		more += fmt.Sprintf("; the check stopped at %d", MaxErrors)
	}
	return append(lines, more)
}

// sharedCause says, in one line, what most problems have in common:
// records that lack fields the template needs, or ids that other records
// have; "" when no kind of problem is shared by two records or more.
func (ps Problems) sharedCause() string {
	type group struct {
		files, records []string // as first seen
		seen           map[string]bool
		fields         []string
		perField       map[string]map[string]bool // field -> records
	}
	missing := &group{seen: map[string]bool{}, perField: map[string]map[string]bool{}}
	dups := &group{seen: map[string]bool{}}
	add := func(g *group, p *Problem) {
		if !slices.Contains(g.files, p.File) {
			g.files = append(g.files, p.File)
		}
		rec := p.File + "\x00" + strconv.Itoa(p.Line) + "\x00" + p.Record
		if !g.seen[rec] {
			g.seen[rec] = true
			g.records = append(g.records, rec)
		}
		if g == missing && p.Field != "" {
			if g.perField[p.Field] == nil {
				g.perField[p.Field] = map[string]bool{}
				g.fields = append(g.fields, p.Field)
			}
			g.perField[p.Field][rec] = true
		}
	}
	for _, p := range ps {
		switch {
		case errors.Is(p, ErrMissingField):
			add(missing, p)
		case errors.Is(p, ErrDuplicateID):
			add(dups, p)
		}
	}
	atLeast := ""
	if len(ps) >= MaxErrors {
		atLeast = "at least "
	}
	switch {
	case len(missing.records) >= 2 && len(missing.records) >= len(dups.records) && len(missing.fields) > 0:
		g := missing
		// The fields most records lack first.
		slices.SortStableFunc(g.fields, func(a, b string) int { return len(g.perField[b]) - len(g.perField[a]) })
		same := len(g.perField[g.fields[0]]) == len(g.perField[g.fields[len(g.fields)-1]])
		var names []string
		for i, f := range g.fields {
			if i == maxNamed {
				names = append(names, fmt.Sprintf("%d more", len(g.fields)-maxNamed))
				break
			}
			name := strconv.Quote(f)
			if !same {
				name += fmt.Sprintf(" (%d %s)", len(g.perField[f]), words.Pick(len(g.perField[f]), "record", "records"))
			}
			names = append(names, name)
		}
		what := "a field"
		if len(g.fields) > 1 {
			what = "fields"
		}
		line := fmt.Sprintf("%s%s%d records lack %s that the template needs: %s", where(g.files), atLeast, len(g.records), what, joinAnd(names))
		if len(g.fields) > 1 {
			line += "; is this the template's input?"
		}
		return line
	case len(dups.records) >= 2:
		return fmt.Sprintf("%s%s%d records have the id of another record", where(dups.files), atLeast, len(dups.records))
	}
	return ""
}

// maxNamed is how many fields a shared cause names.
const maxNamed = 6

// where is the files a line is about, as its start.
func where(files []string) string {
	switch {
	case len(files) == 0 || len(files) == 1 && files[0] == "":
		return ""
	case len(files) > 3:
		return strings.Join(files[:3], ", ") + fmt.Sprintf(" and %d more files: ", len(files)-3)
	}
	return strings.Join(files, ", ") + ": "
}

// joinAnd joins names as a list in prose: a, b and c.
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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

// QuoteCell quotes what a cell holds for a message about it: the text, Go
// quoted (so that control and direction characters show as escapes), or
// for a long one its first QuotedRunes characters, "…", and its length,
// so that a problem about a pasted page stays a line.
func QuoteCell(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= QuotedRunes {
		return strconv.Quote(s)
	}
	cut, k := 0, 0
	for i := range s {
		if k == QuotedRunes {
			cut = i
			break
		}
		k++
	}
	return strconv.Quote(s[:cut]+"…") + " (" + words.Count(n, "character") + ")"
}

// QuotedRunes is how much of a long cell QuoteCell quotes.
const QuotedRunes = 80

// MaxErrors bounds how many problems one run collects before it stops
// reading; past that point more messages help nobody.
const MaxErrors = 100

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

// UnitProblem is the problem as its unit's record carries it.
func (p *Problem) UnitProblem() UnitProblem {
	cell := ""
	if p.Cell != "" {
		cell = p.Sheet + "!" + p.Cell
	}
	return UnitProblem{Severity: p.Severity, Cell: cell, Message: p.Message}
}
