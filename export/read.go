package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/jsonkeys"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
)

// ErrNotRecords is wrapped when a file given as records is something else
// (a workbook, say).
var ErrNotRecords = errors.New("not pulled records")

// Origins say where each record was read ("annotations.jsonl:3"), for
// messages about it.
type Origins map[*mapping.Annotation]string

// MaxRecordLine bounds one line of pulled records. A record holds a
// unit's answers, never its context: even a long free-text answer with
// many spans is some kilobytes, so 64 MiB is a wide margin, and a file
// without line breaks is refused rather than read whole.
const MaxRecordLine = 64 << 20

// recordFold says where a record's keys name struct fields (compared as
// encoding/json matches them, whatever their case) and where they are a
// map's (the answers, by question name, compared exactly).
var recordFold = jsonkeys.FoldOutside("values", "provenance")

// ReadRecords reads canonical JSON Lines, as pull writes them, into typed
// records: the same values as pull made (see mapping.TypedValues).
// template gives the template to type them by, from the one the first
// record names (the zero TemplateID when there is no record); every
// record must be of it. Errors start with name and the line.
func ReadRecords(r io.Reader, name string, template func(mapping.TemplateID) (*templates.Template, error)) ([]*mapping.Annotation, Origins, error) {
	// The template is known once the first record names it: the records
	// are decoded first and typed once it is resolved.
	var recs []*mapping.Annotation
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
			return nil, nil, fmt.Errorf("%w (%w)", err, ErrExport)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			d := json.NewDecoder(bytes.NewReader(t))
			d.UseNumber()
			rec := &mapping.Annotation{}
			if derr := d.Decode(rec); derr != nil {
				return nil, nil, fmt.Errorf("%s:%d: %w: not a canonical record: %v", name, n, ErrExport, derr)
			}
			if d.More() {
				return nil, nil, fmt.Errorf("%s:%d: %w: more than one JSON value on the line", name, n, ErrExport)
			}
			// encoding/json keeps the last of a key given twice, and
			// fills a field from a key of another case: refused.
			if dup, ok := jsonkeys.Duplicate(t, recordFold); ok {
				return nil, nil, fmt.Errorf("%s:%d: %w: %s", name, n, ErrExport, dup)
			}
			if rec.Schema != mapping.AnnotationSchema {
				return nil, nil, fmt.Errorf("%s:%d: %w: schema %q, want %q (is this the output of annosheet pull?)", name, n, ErrExport, rec.Schema, mapping.AnnotationSchema)
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
	var id mapping.TemplateID
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
			return nil, nil, fmt.Errorf("%s:%d: %w: a record of template %s version %d, not %s version %d", name, lines[i], ErrExport, rec.Template.Name, rec.Template.Version, t.Name, t.Version)
		}
		typed, err := mapping.TypedRecord(t, rec)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: unit %s: %w", name, lines[i], rec.Unit, err)
		}
		recs[i] = typed
		origins[typed] = fmt.Sprintf("%s:%d", name, lines[i])
	}
	return recs, origins, nil
}
