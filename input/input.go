package input

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// Open returns the records of the given input files. format is jsonl, json,
// factgenie or auto (by file extension: .jsonl, .json; a folder is
// factgenie). Files are checked for existence now and read on each Each.
func Open(format string, paths []string) (layout.Source, error) {
	return OpenContext(context.Background(), format, paths)
}

// OpenContext is Open for a run that ctx stops: factgenie folders, read
// whole as they are opened, are read no further once ctx is done, and
// OpenContext returns ctx's error.
func OpenContext(ctx context.Context, format string, paths []string) (layout.Source, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input given")
	}
	if format == "factgenie" {
		return openFactgenie(ctx, paths)
	}
	var files []jsonFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		f := format
		if f == "auto" || f == "" {
			switch {
			case st.IsDir():
				return openFactgenie(ctx, paths)
			case strings.HasSuffix(strings.ToLower(p), ".jsonl") || strings.HasSuffix(strings.ToLower(p), ".ndjson"):
				f = "jsonl"
			default:
				f = "json"
			}
		}
		if st.IsDir() {
			return nil, fmt.Errorf("input %s: is a folder; the %s format reads files", p, f)
		}
		if !st.Mode().IsRegular() {
			// A named pipe would be waited on, and could not be read
			// again nor fingerprinted.
			_, err := boundedread.Open(p)
			return nil, fmt.Errorf("input: %w", err)
		}
		files = append(files, jsonFile{path: p, format: f})
	}
	return &jsonSource{files: files, limit: MaxRecordSize}, nil
}

// MaxRecordSize is the most bytes one input record may take: a line of
// JSON Lines, or a record of a JSON array or object with its key. (The
// white space between two records is held to it too, give or take
// 64 KiB.) A record is a text to annotate and what goes with it: the
// largest in the test data, a legal analysis with the paragraphs it
// cites, is 37 KB, and a whole novel is about 1 MB. The bound keeps a file
// that is not what its name says (a binary file, JSON without line breaks
// named .jsonl) from being read whole into memory.
const MaxRecordSize = 64 << 20

type jsonFile struct {
	path, format string
}

type jsonSource struct {
	files []jsonFile
	limit int64 // MaxRecordSize, but in tests
	// table is how files in a table format are read (see OpenFor).
	table tableOptions
}

func (s *jsonSource) Files() []string {
	out := make([]string, len(s.files))
	for i, f := range s.files {
		out[i] = f.path
	}
	return out
}

func (s *jsonSource) Each(fn func(*layout.Record) error) error {
	index := 0
	for _, f := range s.files {
		var err error
		switch f.format {
		case "jsonl":
			err = eachJSONL(f.path, s.limit, &index, fn)
		case "json":
			err = eachJSON(f.path, s.limit, &index, fn)
		default:
			if each, ok := tableFormats[f.format]; ok {
				opt := s.table
				if opt.limit == 0 {
					opt.limit = s.limit // opened without a template (Open)
				}
				err = each(f.path, opt, &index, fn)
				break
			}
			err = fmt.Errorf("input %s: unknown format %q", f.path, f.format)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// eachJSONL reads one JSON value per line. A malformed line is reported
// with its line number; reading goes on so that every bad line is reported
// at once (up to MaxErrors). A line longer than limit ends the reading:
// what follows it is unlikely to be JSON Lines.
//
// The lines are read and decoded a little ahead, on another core (see
// decodeAhead), while fn handles the records before them.
func eachJSONL(name string, limit int64, index *int, fn func(*layout.Record) error) error {
	f, err := boundedread.Open(name)
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	if p := utf16(r, name); p != nil {
		return records.Problems{p}
	}
	ahead := decodeAhead(boundedread.NewLines(r, name, limit, "a record"), name)
	defer ahead.stop()
	var bad records.Problems
	first := true
	for {
		l, _ := ahead.next()
		switch {
		case l.err == io.EOF:
			if len(bad) > 0 {
				return bad
			}
			return nil
		case errors.Is(l.err, boundedread.ErrTooLarge):
			return append(bad, &records.Problem{Severity: records.Error, File: name, Line: l.line, Err: records.ErrMalformed,
				Message: fmt.Sprintf("the line is longer than the %s a record may be", boundedread.Size(limit))})
		case l.err != nil:
			return fmt.Errorf("input %s: %w", name, l.err)
		}
		if l.perr != nil && first && (l.raw[0] == '[' || l.raw[0] == '{') && cutOff(l.raw) {
			// The first record is cut off at the end of its line:
			// a JSON array or object written over several lines.
			return records.Problems{{Severity: records.Error, File: name, Line: l.line, Err: records.ErrMalformed,
				Message: "this file holds one JSON value written over several lines (a JSON array, or pretty-printed JSON), and the template reads JSON Lines, one record per line: write one record per line, or give the template input.format: json"}}
		}
		first = false
		if l.perr != nil {
			bad = append(bad, l.perr)
			if len(bad) >= records.MaxErrors {
				return bad
			}
		} else if len(bad) == 0 {
			l.rec.Index = *index
			*index++
			if err := fn(l.rec); err != nil {
				return err
			}
		}
	}
}

// decodedLine is a line of JSON Lines that is not blank, decoded: its
// record or what is wrong with it; or, in err, the end of the lines
// (io.EOF) or why they could not be read.
type decodedLine struct {
	line int
	raw  []byte // the line, trimmed
	rec  *layout.Record
	perr *records.Problem
	err  error
}

// decodeAhead reads and decodes lines a few batches ahead of its reader
// (see runAhead).
func decodeAhead(lines *boundedread.Lines, name string) *ahead[decodedLine] {
	return runAhead(func() (decodedLine, int, bool) {
		for {
			b, err := lines.Next()
			l := decodedLine{line: lines.Line(), err: err}
			if err != nil {
				return l, 0, true // its reader stops at the error
			}
			if l.line == 1 {
				b = bytes.TrimPrefix(b, utf8BOM)
			}
			trimmed := bytes.TrimSpace(b)
			if len(trimmed) == 0 {
				continue
			}
			// The record keeps its bytes; the line's are reused.
			l.raw = bytes.Clone(trimmed)
			l.rec, l.perr = decodeRecord(l.raw, name, l.line)
			return l, len(l.raw), false
		}
	})
}

// decodeRecord decodes one JSON value, numbers kept as written.
func decodeRecord(raw []byte, file string, line int) (*layout.Record, *records.Problem) {
	if v, ok := fastDecode(raw); ok {
		return &layout.Record{Data: v, Raw: raw, File: file, Line: line, InvalidUTF8: !utf8.Valid(raw)}, nil
	}
	// encoding/json says what is wrong.
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, malformed(file, line, raw, err)
	}
	if rest := bytes.TrimSpace(raw[d.InputOffset():]); len(rest) > 0 {
		msg := fmt.Sprintf("unexpected %q after the JSON value", string(rest[:min(len(rest), 20)]))
		if d.More() {
			msg = "more than one JSON value on the line (JSON Lines holds one record per line)"
		}
		return nil, &records.Problem{Severity: records.Error, File: file, Line: line, Err: records.ErrMalformed, Message: msg}
	}
	return &layout.Record{Data: v, Raw: raw, File: file, Line: line, InvalidUTF8: !utf8.Valid(raw)}, nil
}

// malformed turns a decoding error into a problem on the right line.
func malformed(file string, line int, raw []byte, err error) *records.Problem {
	var se *json.SyntaxError
	msg := err.Error()
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > len(raw) {
			off = len(raw)
		}
		line += bytes.Count(raw[:off], []byte{'\n'})
		msg = fmt.Sprintf("invalid JSON: %s", se.Error())
	} else if err == io.ErrUnexpectedEOF {
		msg = "invalid JSON: the value is cut off"
	} else {
		msg = "invalid JSON: " + msg
	}
	return &records.Problem{Severity: records.Error, File: file, Line: line, Message: msg, Err: records.ErrMalformed}
}

// eachJSON reads a JSON array of records or an object of records keyed by
// id, streaming one record at a time. A record larger than limit ends the
// reading; no more than that (and a buffer) is held at once.
func eachJSON(name string, limit int64, index *int, fn func(*layout.Record) error) error {
	f, err := boundedread.Open(name)
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	if p := utf16(br, name); p != nil {
		return records.Problems{p}
	}
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	lc := &lineCounter{r: br, limit: limit}
	d := json.NewDecoder(lc)
	d.UseNumber()
	problem := func(off int64, msg string) error {
		return records.Problems{{Severity: records.Error, File: name, Line: lc.line(off), Message: msg, Err: records.ErrMalformed}}
	}
	// tooLarge reports a record over the limit, at the line it starts (at
	// the white space before it, if that is what is over).
	tooLarge := func() error {
		start, _ := lc.valueStart(lc.tailOff, ',')
		if start >= lc.tailOff+int64(len(lc.tail)) {
			start = lc.tailOff
		}
		return problem(start, fmt.Sprintf("the record here is larger than the %s a record may be", boundedread.Size(limit)))
	}
	// tokenFail reports an error of Token, whose offsets are exact.
	tokenFail := func(err error) error {
		if lc.over {
			return tooLarge()
		}
		var se *json.SyntaxError
		off := d.InputOffset()
		if errors.As(err, &se) {
			off = se.Offset
		}
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return problem(off, "invalid JSON: the file ends in the middle of a value")
		}
		return problem(off, "invalid JSON: "+err.Error())
	}
	tok, err := d.Token()
	if err != nil {
		if err == io.EOF {
			return problem(0, "the file is empty; expected a JSON array or object of records")
		}
		return tokenFail(err)
	}
	open, ok := tok.(json.Delim)
	if !ok || (open != '[' && open != '{') {
		return problem(d.InputOffset(), "expected a JSON array of records or an object of records keyed by id")
	}
	for n := 0; d.More(); n++ {
		// The separator before each value, which the decoder's offset
		// still counts: a comma between the elements of an array, a colon
		// after a key; before a key, a comma between members.
		sep, keySep := byte(0), byte(0)
		if n > 0 {
			sep, keySep = ',', ','
		}
		if open == '{' {
			sep = ':'
		}
		key, badKey, keySize := "", false, int64(0)
		if open == '{' {
			before := d.InputOffset()
			k, err := d.Token()
			if lc.over {
				return tooLarge()
			}
			if err != nil {
				// As for values, locate the bad byte of the key by itself.
				off, cut := lc.errorAt(before, keySep, true)
				if cut {
					return problem(off, "invalid JSON: the file ends in the middle of this record")
				}
				return problem(off, "invalid JSON: "+err.Error())
			}
			key, _ = k.(string)
			badKey = !utf8.Valid(lc.bytes(before, d.InputOffset()))
			keySize = d.InputOffset() - before
		}
		start := d.InputOffset()
		var raw json.RawMessage
		err := d.Decode(&raw)
		if lc.over || err == nil && keySize+int64(len(raw)) > limit {
			return tooLarge()
		}
		if err != nil {
			// The decoder's offsets inside a value leave out what it
			// skipped; find the bad byte by decoding the value again.
			off, cut := lc.errorAt(start, sep, false)
			if cut {
				return problem(off, "invalid JSON: the file ends in the middle of this record")
			}
			return problem(off, "invalid JSON: "+err.Error())
		}
		vs, _ := lc.valueStart(start, sep)
		rec, perr := decodeRecord(raw, name, lc.line(vs))
		if perr != nil {
			return records.Problems{perr}
		}
		rec.Key = key
		rec.InvalidUTF8 = rec.InvalidUTF8 || badKey
		rec.Index = *index
		*index++
		if err := fn(rec); err != nil {
			return err
		}
		lc.forget(d.InputOffset())
	}
	if _, err := d.Token(); err != nil {
		return tokenFail(err)
	}
	if _, err := d.Token(); err != io.EOF {
		if lc.over {
			return tooLarge()
		}
		if err == nil {
			// Another value: the records read so far were the fields
			// of the first line's record.
			return problem(d.InputOffset(), jsonLinesAsJSON)
		}
		return problem(d.InputOffset(), "unexpected data after the end of the JSON value")
	}
	return nil
}

// jsonLinesAsJSON says what a second JSON value after the first means.
const jsonLinesAsJSON = "a second JSON value starts here: the file looks like JSON Lines (a record per line), " +
	"and the template reads one JSON value, an array of records or an object of records keyed by id"

// lineCounter keeps what it has read since the decoder's last record, so
// that a byte offset of the JSON decoder can be turned into a line number
// and a bad record decoded again. It forgets what lies behind the decoder,
// and refuses to keep more than a record's limit: memory stays bounded
// whatever the file holds.
type lineCounter struct {
	r       io.Reader
	base    int    // the lines that end before tailOff
	tail    []byte // the bytes read since the last forget
	tailOff int64
	// limit bounds the tail, less one read: a record and what comes
	// before it. over says that the limit was met.
	limit int64
	over  bool
}

// readSize bounds a read, so that the tail stays within one read of its
// limit.
const readSize = 1 << 16

// errOver is what Read gives the decoder once the limit is met.
var errOver = errors.New("a record over the limit")

func (c *lineCounter) Read(p []byte) (int, error) {
	if int64(len(c.tail)) > c.limit+readSize {
		c.over = true
		return 0, errOver
	}
	if len(p) > readSize {
		p = p[:readSize]
	}
	n, err := c.r.Read(p)
	c.tail = append(c.tail, p[:n]...)
	return n, err
}

// line is the 1-based line of byte offset off.
func (c *lineCounter) line(off int64) int {
	i := min(max(off-c.tailOff, 0), int64(len(c.tail)))
	return c.base + bytes.Count(c.tail[:i], []byte{'\n'}) + 1
}

// forget drops what lies before off.
func (c *lineCounter) forget(off int64) {
	if k := off - c.tailOff; k > 0 && k <= int64(len(c.tail)) {
		c.base += bytes.Count(c.tail[:k], []byte{'\n'})
		c.tail = append(c.tail[:0], c.tail[k:]...)
		c.tailOff = off
	}
}

// valueStart skips the white space and the one separator sep (a comma in
// an array, a colon after a key) that the decoder's offset start still
// counts before a value; found reports whether the separator was there.
func (c *lineCounter) valueStart(start int64, sep byte) (pos int64, found bool) {
	i := start - c.tailOff
	if i < 0 || i > int64(len(c.tail)) {
		return start, false
	}
	for _, b := range c.tail[i:] {
		switch {
		case b == ' ' || b == '\t' || b == '\r' || b == '\n':
		case sep != 0 && b == sep && !found:
			found = true
		default:
			return start, found
		}
		start++
	}
	return start, found
}

// errorAt finds the bad byte of a value that failed to decode, by decoding
// it again on its own. sep is the separator that must come before the
// value, 0 for none; a missing one is the error. key says the value is an
// object's key, which must be a string. cut reports a value that the file
// cuts off; off is then where the value starts.
func (c *lineCounter) errorAt(start int64, sep byte, key bool) (off int64, cut bool) {
	vs, found := c.valueStart(start, sep)
	if sep != 0 && !found {
		return vs, false
	}
	i := vs - c.tailOff
	if i < 0 || i > int64(len(c.tail)) {
		return vs, false
	}
	if key && (i == int64(len(c.tail)) || c.tail[i] != '"') {
		return vs, i == int64(len(c.tail))
	}
	var raw json.RawMessage
	err := json.NewDecoder(bytes.NewReader(c.tail[i:])).Decode(&raw)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return vs + max(0, se.Offset-1), false
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return vs, true
	}
	return vs, false
}

// bytes returns the stream's bytes from offset a to b, if still kept.
func (c *lineCounter) bytes(a, b int64) []byte {
	i, j := a-c.tailOff, b-c.tailOff
	if i < 0 || j > int64(len(c.tail)) || i > j {
		return nil
	}
	return c.tail[i:j]
}

// Base names a file for messages the way a user typed it, or just its base
// name when it is absolute.
func Base(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Base(p)
	}
	return p
}

// cutOff says whether raw is the start of a JSON value that goes on past
// its end.
func cutOff(raw []byte) bool {
	var v any
	return json.NewDecoder(bytes.NewReader(raw)).Decode(&v) == io.ErrUnexpectedEOF
}

// utf16 says, as a problem, that a file is UTF-16 (or UTF-32) text, which
// JSON files are not: by its byte order mark, or by the zero bytes beside
// its first characters.
func utf16(r *bufio.Reader, name string) *records.Problem {
	b, _ := r.Peek(4)
	wide := len(b) >= 2 && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff)
	if !wide && len(b) == 4 {
		wide = b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0 || b[0] == 0 && b[1] != 0 && b[2] == 0 && b[3] != 0
	}
	if !wide {
		return nil
	}
	return &records.Problem{Severity: records.Error, File: name, Line: 1, Err: records.ErrMalformed,
		Message: "the file is UTF-16 text (as some Windows programs save it); save it as UTF-8 and try again"}
}
