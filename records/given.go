package records

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/templates"
)

// ErrSeveralAnnotators is wrapped by the problem of a file of given
// records of several annotators, when none was named.
var ErrSeveralAnnotators = errors.New("records of several annotators")

// Given is a file of records given to generate (a model's labels to
// prefill, the known answers of control units): one record per unit, all
// of one annotator, each with answers.
type Given struct {
	Name      string         // the file as named
	Annotator string         // the records' one annotator, or the one chosen
	Line      map[string]int // the line each unit's record is on, by unit ID
	// Skipped counts the records of the file, whoever's, whose status is
	// empty, missing or unreadable: they carry no answers, so they are
	// passed over.
	Skipped int

	// raw holds each unit's typed record as compact JSON: a study's
	// prefill may have a record for each of a hundred thousand units,
	// and bytes cost the garbage collector nothing to scan, where typed
	// values in maps cost it much. Record types one again.
	raw map[string][]byte
	t   *templates.Template
}

// Len counts the units given.
func (g *Given) Len() int { return len(g.raw) }

// Has says a unit is given.
func (g *Given) Has(unit string) bool {
	_, ok := g.raw[unit]
	return ok
}

// Units are the units given, sorted.
func (g *Given) Units() []string { return slices.Sorted(maps.Keys(g.raw)) }

// Record is a unit's typed record (see TypedRecord), or nil when the unit
// is not given. Each call types a new copy.
func (g *Given) Record(unit string) *Annotation {
	b, ok := g.raw[unit]
	if !ok {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var rec Annotation
	err := d.Decode(&rec)
	var typed *Annotation
	if err == nil {
		typed, err = TypedRecord(g.t, &rec)
	}
	if err != nil {
		// The bytes are a typed record's own JSON: typing them again
		// cannot fail but by a fault of this package.
		panic(fmt.Sprintf("records: given unit %s cannot be typed again: %v", unit, err))
	}
	return typed
}

// ReadGiven reads the file of records at path as ReadGivenFrom does. It
// stops reading when ctx ends (Ctrl-C on a large file); a path that
// cannot be opened, or is not a regular file, is one problem of the file.
func ReadGiven(ctx context.Context, path string, t *templates.Template, annotator string) (*Given, Problems) {
	f, err := boundedread.Open(path)
	if err != nil {
		return nil, Problems{openProblem(path, err)}
	}
	defer f.Close()
	return ReadGivenFrom(ctxReader{ctx, f}, path, t, annotator)
}

// openProblem is the problem of a file that cannot be opened, its text
// without the path that the problem's File already gives.
func openProblem(path string, err error) *Problem {
	msg := strings.TrimPrefix(err.Error(), path+": ")
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		msg = "cannot be read: " + pe.Err.Error()
	}
	return &Problem{Severity: Error, File: path, Message: msg, Err: err}
}

// ReadGivenFrom reads canonical records, as pull writes them, that a
// person gives as the answers of units: a file is taken whole, or every
// problem of it is returned, each named by file (name) and line, sorted,
// so that they can all be put right at once; the Given is then nil. Its
// reading stops only where it cannot go on (a workbook, a line longer
// than MaxRecordLine, an error of the reader) or at MaxErrors problems.
//
// Every line must be a canonical record of template t (the messages are
// Read's) with a status the schema allows. A record whose status is
// empty, missing or unreadable holds no answers: it is skipped and
// counted, whoever's it is, and takes no part in the checks below (an
// unclaimed empty unit is in every pulled file, and is nobody's).
//
// The other records must be of one annotator. When annotator is given,
// the records of the others are ignored (neither their values nor their
// units are checked, as nothing of them is used), and a file in which no
// record names annotator is a problem. When it is "", a file of several
// annotators' records is one problem that names them.
//
// A record kept must name its unit, once (a second record of it is a
// problem that names the first's line, whatever either holds), have
// values the template allows (the error of TypedRecord), and have its
// real IDs and values on their candidates: a record pulled without the
// study's manifest (opaque IDs, shuffled values) is refused. A file
// without records, or none with answers, is a problem too.
//
// With problems, the Given returned holds the sound records of the one
// annotator, when that annotator is known (nil when not), so that a
// caller can check them further and say every problem at once; it must
// not be used as the file's records.
func ReadGivenFrom(r io.Reader, name string, t *templates.Template, annotator string) (*Given, Problems) {
	g := &givenReader{name: name, t: t, annotator: annotator, firstLine: map[string]int{}, first: map[whose]int{}, kept: map[string]*Given{}}
	err := scanLines(r, name, func(n int, rec *Annotation, err error) error {
		g.line(n, rec, err)
		if len(g.problems) >= MaxErrors {
			return errTooMany
		}
		return nil
	})
	var stop *readStop
	switch {
	case errors.As(err, &stop):
		g.problems = append(g.problems, stop.problem)
	case errors.Is(err, errTooMany):
		// Enough to go on with; the rest of the file is not read.
	case err != nil:
		g.add(0, "", err.Error(), err)
	default:
		// The file was read to its end: what is wrong with it as a
		// whole can be said.
		g.end()
	}
	who := annotator
	if who == "" && len(g.answering) == 1 {
		who = g.answering[0]
	}
	out := g.kept[who]
	if out != nil {
		out.Skipped = g.skipped
	}
	if len(g.problems) > 0 {
		g.problems.Sort()
		return out, g.problems
	}
	return out, nil
}

// errTooMany ends the reading of a file with MaxErrors problems.
var errTooMany = errors.New("too many problems")

// statuses are the statuses a record may have, as the schema lists them.
var statuses = []string{StatusComplete, StatusPartial, StatusEmpty, StatusMissing, StatusUnreadable}

// whose is a unit of an annotator's.
type whose struct{ annotator, unit string }

// givenReader is what ReadGivenFrom has read of a file so far.
type givenReader struct {
	name      string
	t         *templates.Template
	annotator string // the one chosen, or ""
	problems  Problems
	records   int      // lines that are not blank
	named     []string // the annotators the records name, as first named
	// answering are the annotators of the records with answers (of the
	// one chosen, when one is), as first seen, and firstLine where each
	// was first seen.
	answering []string
	firstLine map[string]int
	first     map[whose]int     // the line of each unit's first record with answers
	kept      map[string]*Given // the records kept, by annotator
	skipped   int
}

// add adds a problem of the file at line (0 for the whole file).
func (g *givenReader) add(line int, unit, msg string, err error) {
	g.problems = append(g.problems, &Problem{Severity: Error, File: g.name, Line: line, Record: unit, Message: msg, Err: err})
}

// line reads line n: its record, or the error that says it is not one.
func (g *givenReader) line(n int, rec *Annotation, err error) {
	g.records++
	if err != nil {
		g.add(n, "", err.Error(), err)
		return
	}
	if !slices.Contains(g.named, rec.Annotator) {
		g.named = append(g.named, rec.Annotator)
	}
	if err := ofTemplate(rec, g.t); err != nil {
		g.add(n, rec.Unit, err.Error(), err)
		return
	}
	if !slices.Contains(statuses, rec.Status) {
		err := fmt.Errorf("%w: status %q is not one of %s", ErrInvalid, rec.Status, strings.Join(statuses, ", "))
		g.add(n, rec.Unit, err.Error(), err)
		return
	}
	if rec.Status == StatusEmpty || !InHand(rec.Status) {
		g.skipped++
		return
	}
	if g.annotator != "" && rec.Annotator != g.annotator {
		return
	}
	if _, ok := g.firstLine[rec.Annotator]; !ok {
		g.answering = append(g.answering, rec.Annotator)
		g.firstLine[rec.Annotator] = n
	}
	if rec.Unit == "" {
		err := fmt.Errorf("%w: no unit ID", ErrInvalid)
		g.add(n, "", err.Error(), err)
		return
	}
	k := whose{rec.Annotator, rec.Unit}
	if at, ok := g.first[k]; ok {
		g.add(n, rec.Unit, fmt.Sprintf("the unit is also at %s:%d; give one record per unit", g.name, at), ErrDuplicateID)
		return
	}
	g.first[k] = n
	switch {
	case rec.OpaqueIDs:
		g.add(n, rec.Unit, "its IDs are the opaque ones its workbook shows: pull it with the study's manifest first", nil)
		return
	case rec.Shuffled:
		g.add(n, rec.Unit, "its values are in the order they were shown: pull it with the study's manifest first", nil)
		return
	}
	typed, err := TypedRecord(g.t, rec)
	if err != nil {
		g.add(n, rec.Unit, err.Error(), err)
		return
	}
	kept := g.kept[rec.Annotator]
	if kept == nil {
		kept = &Given{Name: g.name, Annotator: rec.Annotator, Line: map[string]int{}, raw: map[string][]byte{}, t: g.t}
		g.kept[rec.Annotator] = kept
	}
	b, err := json.Marshal(typed)
	if err != nil {
		g.add(n, rec.Unit, err.Error(), err)
		return
	}
	kept.raw[rec.Unit] = b
	kept.Line[rec.Unit] = n
}

// end adds the problems of the file as a whole, once it is read to its
// end: no records, records of no annotator or of several, or none with
// answers.
func (g *givenReader) end() {
	switch {
	case g.records == 0:
		g.add(0, "", ErrEmpty.Error(), ErrEmpty)
		return
	case g.annotator != "" && len(g.named) > 0 && !slices.Contains(g.named, g.annotator):
		var names []string
		for _, a := range g.named {
			if a != "" {
				names = append(names, strconv.Quote(a))
			}
		}
		has := "no record of the file names an annotator"
		if len(names) > 0 {
			has = "the file's records are of " + joinAnd(capNames(names))
		}
		g.add(0, "", fmt.Sprintf("no record of annotator %q: %s", g.annotator, has), nil)
		return
	case g.annotator == "" && len(g.answering) > 1:
		names := make([]string, len(g.answering))
		for i, a := range g.answering {
			names[i] = fmt.Sprintf("%q at line %d", a, g.firstLine[a])
		}
		g.add(g.firstLine[g.answering[1]], "", fmt.Sprintf("records of several annotators (%s): name the one to use", strings.Join(capNames(names), ", ")), ErrSeveralAnnotators)
		return
	}
	if len(g.problems) == 0 && len(g.kept) == 0 {
		// Every record is sound, and none has answers.
		if g.annotator != "" {
			g.add(0, "", fmt.Sprintf("no record of annotator %q has answers: its records are empty, missing or unreadable", g.annotator), ErrEmpty)
			return
		}
		g.add(0, "", fmt.Sprintf("no record has answers: all %d are empty, missing or unreadable", g.skipped), ErrEmpty)
	}
}

// capNames keeps the first maxNamed of names, and says how many more
// there are.
func capNames(names []string) []string {
	if len(names) <= maxNamed {
		return names
	}
	return append(slices.Clip(names[:maxNamed]), fmt.Sprintf("%d more", len(names)-maxNamed))
}
