package records

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/jsonkeys"
	"github.com/annosheet/annosheet/templates"
)

// ErrNotRecords is wrapped when a file given as records is something else
// (a workbook, say).
var ErrNotRecords = errors.New("not pulled records")

// ErrInvalid is wrapped by the error of a line that is not a canonical
// record of the template: not JSON, a key given twice, another schema or
// template.
var ErrInvalid = errors.New("not a canonical record")

// Origins say where each record was read ("annotations.jsonl:3"), for
// messages about it.
type Origins map[*Annotation]string

// MaxRecordLine bounds one line of pulled records. A record holds a
// unit's answers, never its context: even a long free-text answer with
// many spans is some kilobytes, so 64 MiB is a wide margin, and a file
// without line breaks is refused rather than read whole.
const MaxRecordLine = 64 << 20

// recordFold says where a record's keys name struct fields (compared as
// encoding/json matches them, whatever their case) and where they are a
// map's (the answers, by question name, compared exactly).
var recordFold = jsonkeys.FoldOutside("values", "provenance", "questions", "control_score")

// Read reads canonical JSON Lines, as pull writes them, into typed
// records: the same values as pull made (see TypedValues).
// template gives the template to type them by, from the one the first
// record names (the zero TemplateID when there is no record); every
// record must be of it. Errors start with name and the line.
func Read(r io.Reader, name string, template func(TemplateID) (*templates.Template, error)) ([]*Annotation, Origins, error) {
	// The template is known once the first record names it: the records
	// are decoded first and typed once it is resolved.
	var recs []*Annotation
	var lines []int
	err := scanLines(r, name, func(n int, rec *Annotation, err error) error {
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		recs = append(recs, rec)
		lines = append(lines, n)
		return nil
	})
	var stop *readStop
	if errors.As(err, &stop) {
		return nil, nil, stop.err
	}
	if err != nil {
		return nil, nil, err
	}
	var id TemplateID
	if len(recs) > 0 {
		id = recs[0].Template
	}
	t, err := template(id)
	if err != nil && len(recs) > 0 {
		return nil, nil, fmt.Errorf("%s:%d: %w", name, lines[0], err)
	}
	if err != nil {
		return nil, nil, err
	}
	origins := Origins{}
	for i, rec := range recs {
		if err := ofTemplate(rec, t); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, lines[i], err)
		}
		typed, err := TypedRecord(t, rec)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: unit %s: %w", name, lines[i], rec.Unit, err)
		}
		recs[i] = typed
		origins[typed] = fmt.Sprintf("%s:%d", name, lines[i])
	}
	return recs, origins, nil
}

// recordLine says what a line of pulled records holds, in the message
// of one that is too long.
const recordLine = "a pulled record"

// isWorkbook is why a file that starts as a zip file is not records.
const isWorkbook = "it is a workbook (a zip file), not the records pull writes from one"

// readStop is what ends the reading of a file of records before its end,
// as nothing after it can be read: the file is a workbook, a line is
// longer than MaxRecordLine, or the reader failed (a cancelled context
// among its reasons). err is the error as Read returns it, naming the
// file; problem is the same as a problem of the file, for ReadGiven.
type readStop struct {
	err     error
	problem *Problem
}

func (s *readStop) Error() string { return s.err.Error() }

func (s *readStop) Unwrap() error { return s.err }

// scanLines reads canonical JSON Lines, as pull writes them, for Read and
// ReadGiven. It gives fn each line that holds anything (blank lines are
// passed over) with its number, and either the record on it, decoded but
// not typed, or the error that says why the line is not one: that error
// wraps ErrInvalid and does not name the file and line, which each reader
// adds in its own way. An error fn returns ends the reading and is
// returned as it is; what no reader can go past ends it as a *readStop.
func scanLines(r io.Reader, name string, fn func(line int, rec *Annotation, err error) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	if head, _ := br.Peek(4); bytes.Equal(head, []byte("PK\x03\x04")) {
		return &readStop{
			err:     fmt.Errorf("%s: %w: %s", name, ErrNotRecords, isWorkbook),
			problem: &Problem{Severity: Error, File: name, Message: ErrNotRecords.Error() + ": " + isWorkbook, Err: ErrNotRecords},
		}
	}
	lr := boundedread.NewLines(br, name, MaxRecordLine, recordLine)
	stop := make(chan struct{})
	defer close(stop)
	for b := range decodeAhead(lr, name, stop) {
		<-b.done
		for i, n := range b.lines {
			if err := fn(n, b.recs[i], b.errs[i]); err != nil {
				return err
			}
		}
		if b.stop != nil {
			return b.stop
		}
	}
	return nil
}

// lineBatch is some lines of a file of records, decoded by a worker: each
// line's number, and its record or the error that says it is none; stop,
// after them, ends the reading (nil while lines follow).
type lineBatch struct {
	lines []int
	raw   [][]byte
	recs  []*Annotation
	errs  []error
	stop  error
	done  chan struct{}
}

// Lines are decoded in batches, a few batches ahead of the caller, by as
// many workers as there are processors: decoding JSON is most of the
// time a file of records takes to read.
const (
	batchLines   = 128
	batchesAhead = 8
)

// decodeAhead reads lr's lines in batches and has them decoded on every
// core, giving the batches in the order of the file; each is ready once
// its done is closed. Closing stop ends the reading.
func decodeAhead(lr *boundedread.Lines, name string, stop <-chan struct{}) <-chan *lineBatch {
	ordered := make(chan *lineBatch, batchesAhead)
	work := make(chan *lineBatch, batchesAhead)
	for range max(1, runtime.GOMAXPROCS(0)) {
		go func() {
			for b := range work {
				b.recs, b.errs = make([]*Annotation, len(b.raw)), make([]error, len(b.raw))
				for i, t := range b.raw {
					b.recs[i], b.errs[i] = decodeLine(t)
				}
				b.raw = nil
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(ordered)
		defer close(work)
		send := func(b *lineBatch) bool {
			select {
			case ordered <- b:
			case <-stop:
				return false
			}
			select {
			case work <- b:
				return true
			case <-stop:
				close(b.done)
				return false
			}
		}
		b := &lineBatch{done: make(chan struct{})}
		for {
			line, err := lr.Next()
			n := lr.Line()
			var tooLarge *boundedread.TooLargeError
			if errors.As(err, &tooLarge) {
				// The lines after it could be read, but a file with a
				// line this long is not records, and what follows is
				// not either.
				b.stop = &readStop{
					err: err,
					problem: &Problem{Severity: Error, File: name, Line: n, Err: err,
						Message: fmt.Sprintf("line longer than the %s %s may be", boundedread.Size(MaxRecordLine), recordLine)},
				}
				send(b)
				return
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				b.lines, b.raw = append(b.lines, n), append(b.raw, bytes.Clone(t))
			}
			switch {
			case err == io.EOF:
				send(b)
				return
			case err != nil:
				b.stop = &readStop{
					err:     fmt.Errorf("read %s: %w", name, err),
					problem: &Problem{Severity: Error, File: name, Message: "cannot be read: " + err.Error(), Err: err},
				}
				send(b)
				return
			case len(b.lines) == batchLines:
				if !send(b) {
					return
				}
				b = &lineBatch{done: make(chan struct{})}
			}
		}
	}()
	return ordered
}

func decodeLine(t []byte) (*Annotation, error) {
	d := json.NewDecoder(bytes.NewReader(t))
	d.UseNumber()
	rec := &Annotation{}
	if err := d.Decode(rec); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%w: more than one JSON value on the line", ErrInvalid)
	}
	// encoding/json keeps the last of a key given twice, and fills a
	// field from a key of another case: refused.
	if dup, ok := jsonkeys.Duplicate(t, recordFold); ok {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, dup)
	}
	if rec.Schema != AnnotationSchema {
		return nil, fmt.Errorf("%w: schema %q, want %q (is this the output of annosheet pull?)", ErrInvalid, rec.Schema, AnnotationSchema)
	}
	return rec, nil
}

// ofTemplate refuses a record of another template than t (or of another
// version of it), in an error that wraps ErrInvalid.
func ofTemplate(rec *Annotation, t *templates.Template) error {
	if rec.Template.Name != t.Name || rec.Template.Version != t.Version {
		return fmt.Errorf("%w: a record of template %s version %d, not %s version %d", ErrInvalid, rec.Template.Name, rec.Template.Version, t.Name, t.Version)
	}
	return nil
}

// Name is where a record was read ("annotations.jsonl:3"), or, for one
// pulled from a workbook, its file, sheet and first row.
func (o Origins) Name(r *Annotation) string {
	if where, ok := o[r]; ok {
		return where
	}
	s := r.Source
	where := s.File
	if s.Sheet != "" {
		where += ": " + s.Sheet
	}
	if len(s.Rows) > 0 {
		where += " row " + strconv.Itoa(s.Rows[0])
	}
	if where == "" {
		where = "unit " + r.Unit
	}
	return where
}
