package records

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	br := bufio.NewReaderSize(r, 1<<16)
	if head, _ := br.Peek(4); bytes.Equal(head, []byte("PK\x03\x04")) {
		return nil, nil, fmt.Errorf("%s: %w: it is a workbook (a zip file), not the records pull writes from one", name, ErrNotRecords)
	}
	lr := boundedread.NewLines(br, name, MaxRecordLine, "a pulled record")
	for {
		line, err := lr.Next()
		n := lr.Line()
		var tooLarge *boundedread.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, nil, err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			d := json.NewDecoder(bytes.NewReader(t))
			d.UseNumber()
			rec := &Annotation{}
			if derr := d.Decode(rec); derr != nil {
				return nil, nil, fmt.Errorf("%s:%d: %w: %v", name, n, ErrInvalid, derr)
			}
			if d.More() {
				return nil, nil, fmt.Errorf("%s:%d: %w: more than one JSON value on the line", name, n, ErrInvalid)
			}
			// encoding/json keeps the last of a key given twice, and
			// fills a field from a key of another case: refused.
			if dup, ok := jsonkeys.Duplicate(t, recordFold); ok {
				return nil, nil, fmt.Errorf("%s:%d: %w: %s", name, n, ErrInvalid, dup)
			}
			if rec.Schema != AnnotationSchema {
				return nil, nil, fmt.Errorf("%s:%d: %w: schema %q, want %q (is this the output of annosheet pull?)", name, n, ErrInvalid, rec.Schema, AnnotationSchema)
			}
			recs = append(recs, rec)
			lines = append(lines, n)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", name, err)
		}
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
		if rec.Template.Name != t.Name || rec.Template.Version != t.Version {
			return nil, nil, fmt.Errorf("%s:%d: %w: a record of template %s version %d, not %s version %d", name, lines[i], ErrInvalid, rec.Template.Name, rec.Template.Version, t.Name, t.Version)
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
