package input

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/editdistance"
	"github.com/annosheet/annosheet/internal/suggest"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// eachCSV reads a CSV file (comma ',') or a TSV file (comma '\t'): a
// header row that names the columns, then a record per row, made by
// tableRecord. Both are read as RFC 4180 says, a TSV file with a tab for
// the comma: a field in double quotes may hold the comma, line breaks and
// quotes, each quote doubled. Quotes are special in TSV as in CSV, as
// Python's csv module and pandas read TSV by default; a quote inside a
// field that does not start with one is an error in both (where Python
// keeps it as it is), and so is a quote in a quoted field that is not
// doubled or text after the closing quote. Lines end in \n or \r\n (a
// line break inside a quoted field is read as \n), a UTF-8 byte order
// mark at the start is skipped, and so are blank lines.
//
// The rows are read one at a time, none longer than opt.limit: a row over
// it (not counting its line end; counting the blank lines before it,
// give or take 64 KiB) ends the reading with a problem at its line, and no
// more than about the limit is held in memory whatever the file holds.
// Every other bad row is a problem at the line it starts on (a quote out
// of place, at its own line), and reading goes on so that every bad row is
// reported at once, up to records.MaxErrors; fn is given no record after
// the first bad row. What is wrong with the header (a quote out of place,
// a column without a name or named twice, a column the template reads that
// it lacks) is reported at once, and ends the reading.
//
// An empty file has no records and is no error, as an empty JSON Lines
// file is; a file with a header alone has its header checked, and no
// records.
func eachCSV(name string, comma rune, opt tableOptions, index *int, fn func(*layout.Record) error) error {
	f, err := boundedread.Open(name)
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	defer f.Close()
	return readCSV(f, name, comma, opt, index, fn)
}

// readCSV is eachCSV on what in gives, the contents of the file name.
func readCSV(in io.Reader, name string, comma rune, opt tableOptions, index *int, fn func(*layout.Record) error) error {
	br := bufio.NewReaderSize(in, 1<<16)
	if p := utf16(br, name); p != nil {
		return records.Problems{p}
	}
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	rows := newCSVRows(br, name, comma, opt.limit)
	cells, line, p, err := rows.next()
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		return err
	case p != nil:
		return records.Problems{p}
	}
	header := slices.Clone(cells) // the reader reuses cells
	for i := range header {
		header[i], _ = csvValidText(header[i])
	}
	if ps := csvHeaderProblems(header, line, name, comma, opt.needed); len(ps) > 0 {
		return ps
	}
	var bad records.Problems
	for {
		cells, line, p, err := rows.next()
		switch {
		case err == io.EOF:
			if len(bad) > 0 {
				return bad
			}
			return nil
		case err != nil:
			return err
		case p != nil:
			bad = append(bad, p)
			if rows.stopped || len(bad) >= records.MaxErrors {
				return bad
			}
			continue
		}
		if len(cells) != len(header) {
			bad = append(bad, &records.Problem{Severity: records.Error, File: name, Line: line, Err: records.ErrMalformed,
				Message: fmt.Sprintf("%s, the header has %d", words.Count(len(cells), "field"), len(header))})
			if len(bad) >= records.MaxErrors {
				return bad
			}
			continue
		}
		invalid := false
		for i, c := range cells {
			var replaced bool
			if cells[i], replaced = csvValidText(c); replaced {
				invalid = true
			}
		}
		rec, p := tableRecord(header, cells, opt, name, line, csvNoCell)
		if p != nil {
			bad = append(bad, p)
			if len(bad) >= records.MaxErrors {
				return bad
			}
			continue
		}
		if len(bad) > 0 {
			continue
		}
		rec.InvalidUTF8 = invalid
		rec.Index = *index
		*index++
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// csvNoCell is tableRecord's cellOf for a text file, whose problems name
// lines, not cells.
func csvNoCell(int) (sheet, cell string) { return "", "" }

// The problems of quotes out of place, as encoding/csv finds them.
const (
	csvBareQuote = `a quote inside a field that does not start with one; ` +
		`a field that holds quotes is written in quotes, each quote in it doubled: "say ""hi"""`
	csvStrayQuote = `a quote inside a quoted field that is not doubled, or text after the field's closing quote; ` +
		`a quote inside a quoted field is written twice: "say ""hi"""`
	csvUnclosedQuote = "a quoted field starts here and is never closed: the file ends inside it"
)

// csvRows reads the rows of a CSV or TSV file one at a time, each within
// a budget, and says where each starts.
type csvRows struct {
	r     *csv.Reader
	lc    *lineCounter // what r has read since the row before, and its lines
	name  string
	comma []byte
	limit int64
	// stopped says that the last problem ends the reading: a row over
	// the limit.
	stopped bool
}

func newCSVRows(in io.Reader, name string, comma rune, limit int64) *csvRows {
	lc := &lineCounter{r: in, limit: limit}
	r := csv.NewReader(lc)
	r.Comma = comma
	r.FieldsPerRecord = -1 // counted against the header, with a message of our own
	r.ReuseRecord = true
	return &csvRows{r: r, lc: lc, name: name, comma: utf8.AppendRune(nil, comma), limit: limit}
}

// next reads a row: its cells, which the next row reuses, and the line it
// starts on; or what is wrong with it, as a problem (setting stopped when
// reading cannot go on); or io.EOF at the end of the file; or the error
// of reading the file.
//
// The lineCounter under the reader refuses to read more than the limit
// (and a read) past the end of the row before, so that a row without
// end, a quoted field that is never closed, is not read whole; a row
// within that is measured exactly.
func (t *csvRows) next() (cells []string, line int, p *records.Problem, err error) {
	from := t.r.InputOffset()
	cells, err = t.r.Read()
	end := t.r.InputOffset()
	defer t.lc.forget(end)
	start := t.rowStart(from)
	if t.lc.over {
		return nil, 0, t.tooLarge(start), nil
	}
	var pe *csv.ParseError
	switch {
	case err == io.EOF:
		return nil, 0, nil, io.EOF
	case errors.As(err, &pe):
		return nil, 0, t.quoteProblem(pe, start), nil
	case err != nil:
		return nil, 0, nil, fmt.Errorf("input %s: %w", t.name, err)
	}
	size := end - start
	switch b := t.lc.bytes(start, end); {
	case bytes.HasSuffix(b, []byte("\r\n")):
		size -= 2
	case bytes.HasSuffix(b, []byte("\n")):
		size--
	}
	if size > t.limit {
		return nil, 0, t.tooLarge(start), nil
	}
	line, _ = t.r.FieldPos(0)
	return cells, line, nil, nil
}

// rowStart is where the row read from offset from starts: after the blank
// lines that encoding/csv skips.
func (t *csvRows) rowStart(from int64) int64 {
	b := t.lc.bytes(from, csvTailEnd(t.lc))
	i := 0
	for i < len(b) {
		switch {
		case b[i] == '\n':
			i++
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
			i += 2
		default:
			return from + int64(i)
		}
	}
	return from + int64(i)
}

// tooLarge is the problem of a row over the limit, which ends the reading.
func (t *csvRows) tooLarge(start int64) *records.Problem {
	t.stopped = true
	return &records.Problem{Severity: records.Error, File: t.name, Line: t.lc.line(start), Err: records.ErrMalformed,
		Message: fmt.Sprintf("the row here is larger than the %s a record may be", boundedread.Size(t.limit))}
}

// quoteProblem says what is wrong with the quotes of the row that starts
// at offset start, at the line of the fault: a bare quote, a stray quote,
// or the opening quote of a field that the file ends inside. encoding/csv
// gives the last two the same error; at a stray quote its column points
// to the quote, at the end of the file past the last line's end.
func (t *csvRows) quoteProblem(pe *csv.ParseError, start int64) *records.Problem {
	line, msg := pe.Line, csvStrayQuote
	row := t.lc.bytes(start, csvTailEnd(t.lc))
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		msg = csvBareQuote
	case csvByteAt(row, pe.Line-pe.StartLine, pe.Column) != '"':
		line, msg = pe.StartLine, csvUnclosedQuote
		if off := csvOpenQuote(row, t.comma); off >= 0 {
			line = t.lc.line(start + int64(off))
		}
	}
	if line != pe.StartLine {
		msg += " (in the row that starts on line " + strconv.Itoa(pe.StartLine) + ")"
	}
	return &records.Problem{Severity: records.Error, File: t.name, Line: line, Err: records.ErrMalformed, Message: msg}
}

// csvTailEnd is the offset just past what c has read.
func csvTailEnd(c *lineCounter) int64 {
	return c.tailOff + int64(len(c.tail))
}

// csvByteAt is the byte of row at the 1-based column col of its line
// lines after the first, or 0 when there is none.
func csvByteAt(row []byte, lines, col int) byte {
	i := 0
	for range lines {
		j := bytes.IndexByte(row[i:], '\n')
		if j < 0 {
			return 0
		}
		i += j + 1
	}
	if i += col - 1; col < 1 || i >= len(row) {
		return 0
	}
	return row[i]
}

// csvOpenQuote is the offset in row, a row that the file ends inside, of
// the quote that opens the field it ends inside; -1 if there is none.
// Every field before that one is well formed, as encoding/csv read it.
func csvOpenQuote(row, comma []byte) int {
	p := 0
	for p < len(row) {
		if row[p] != '"' {
			i := bytes.Index(row[p:], comma)
			if i < 0 {
				return -1
			}
			p += i + len(comma)
			continue
		}
		q := p + 1
		for {
			i := bytes.IndexByte(row[q:], '"')
			if i < 0 {
				return p
			}
			q += i + 1
			if q < len(row) && row[q] == '"' {
				q++ // a doubled quote
				continue
			}
			break
		}
		p = q + len(comma) // past the closing quote and the comma after it
	}
	return -1
}

// csvValidText replaces each byte of s that is not UTF-8 with U+FFFD, as
// encoding/json does in a string, and says whether there was one.
func csvValidText(s string) (string, bool) {
	if utf8.ValidString(s) {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String(), true
}

// csvHeaderProblems says what is wrong with a header read on the given
// line: a column without a name (or with white space alone), two columns
// of one name, a column the template reads (needed) that it lacks.
func csvHeaderProblems(header []string, line int, name string, comma rune, needed []string) records.Problems {
	var ps records.Problems
	add := func(msg string) {
		ps = append(ps, &records.Problem{Severity: records.Error, File: name, Line: line, Err: records.ErrMalformed, Message: msg})
	}
	first := make(map[string]int, len(header))
	for i, h := range header {
		j, seen := first[h]
		switch {
		case strings.TrimSpace(h) == "":
			msg := fmt.Sprintf("column %d of the header has no name", i+1)
			if i > 0 && i == len(header)-1 {
				msg += fmt.Sprintf(" (does the line end with %s?)", csvSeparatorName(comma))
			}
			add(msg)
		case seen:
			add(fmt.Sprintf("columns %d and %d of the header are both named %q", j+1, i+1, h))
		default:
			first[h] = i
		}
	}
	for _, n := range needed {
		if _, ok := first[n]; !ok {
			add(fmt.Sprintf("the header has no column %q, which the template reads%s", n, csvNearest(n, header, comma)))
		}
	}
	return ps
}

// csvNearest is " (did you mean "X"?)" naming the header's columns
// closest to name, a column the header lacks: those that differ from it
// in case or white space alone, or else in at most two letters
// (editdistance.Closest, as for a template's fields). With none close,
// a header of one column that holds the other separator says so; else
// it is "".
func csvNearest(name string, header []string, comma rune) string {
	var close []string
	for _, h := range header {
		if suggest.Fold(h) == suggest.Fold(name) {
			close = append(close, h)
		}
	}
	if len(close) == 0 {
		close = editdistance.Closest(name, header)
	}
	if len(close) > 0 {
		quoted := make([]string, len(close))
		for i, c := range close {
			quoted[i] = strconv.Quote(c)
		}
		return " (did you mean " + strings.Join(quoted, " or ") + "?)"
	}
	other := '\t'
	if comma == '\t' {
		other = ','
	}
	if len(header) == 1 && strings.ContainsRune(header[0], other) {
		return fmt.Sprintf(" (the header is one column %q: the file looks separated by %s, and it is read as separated by %s)",
			header[0], csvSeparatorName(other), csvSeparatorName(comma))
	}
	return ""
}

// csvSeparatorName names a separator in messages: "a comma", "a tab".
func csvSeparatorName(comma rune) string {
	switch comma {
	case ',':
		return "a comma"
	case '\t':
		return "a tab"
	}
	return strconv.QuoteRune(comma)
}
