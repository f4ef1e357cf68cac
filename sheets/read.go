package sheets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/backend"
)

var (
	// Links of a browser signed in to several accounts carry /u/N/.
	idInURL = regexp.MustCompile(`/spreadsheets/(?:u/\d+/)?d/([A-Za-z0-9_-]+)`)
	// Google's spreadsheet IDs are 44 characters; shorter words are more
	// likely a mistyped file name.
	bareID = regexp.MustCompile(`^[A-Za-z0-9_-]{25,}$`)
)

// SpreadsheetID takes the ID out of a spreadsheet's URL, or returns a bare
// ID as it is; ok is false for anything else.
func SpreadsheetID(s string) (string, bool) {
	if m := idInURL.FindStringSubmatch(s); m != nil {
		return m[1], true
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return "", false
	}
	if bareID.MatchString(s) {
		return s, true
	}
	return "", false
}

// quoteSheet is a sheet name as an A1 range.
func quoteSheet(name string) string {
	return "'" + strings.ReplaceAll(name, "'", "''") + "'"
}

// Open reads a spreadsheet as a grid for pull: its sheet names, then the
// values of every sheet in one values.batchGet, unformatted (checkboxes as
// booleans, numbers as numbers; formulas give their value). The answer is
// read as a stream: rows go to pull as they arrive, the metadata sheet
// first, so that a sheet of 100,000 long rows is never held in memory.
// Close ends the stream.
func (c *Client) Open(ctx context.Context, id string) (g *backend.Grid, closeFn func() error, err error) {
	ss, err := c.Sheets.Spreadsheets.Get(id).Fields("spreadsheetId,sheets.properties.title").Context(ctx).Do()
	if err != nil {
		return nil, nil, fmt.Errorf("spreadsheet %s: %w", id, err)
	}
	var names []string
	for _, s := range ss.Sheets {
		names = append(names, s.Properties.Title)
	}
	// The metadata first: pull reads it before the answers.
	order := make([]string, 0, len(names))
	for _, n := range names {
		if n == backend.SheetMeta {
			order = append(order, n)
		}
	}
	for _, n := range names {
		if n != backend.SheetMeta {
			order = append(order, n)
		}
	}
	r := &valueReader{c: c, ctx: ctx, id: id, order: order, kept: map[string][][]backend.ReadCell{}}
	if err := r.start(); err != nil {
		return nil, nil, err
	}
	return &backend.Grid{Kind: backend.KindGSheets, Name: id, Sheets: names, Rows: r.rows}, r.close, nil
}

// Version is a spreadsheet's version as Drive counts it: a number that
// every change to it raises.
func (c *Client) Version(ctx context.Context, id string) (string, error) {
	f, err := c.Drive.Files.Get(id).Fields("version").SupportsAllDrives(true).Context(ctx).Do()
	if err != nil {
		return "", fmt.Errorf("spreadsheet %s: %w", id, err)
	}
	return strconv.FormatInt(f.Version, 10), nil
}

// valueReader walks the stream of a values.batchGet answer: the value
// ranges come in the order asked for. A sheet asked for when the stream
// is past it is read again on its own; sheets the stream passes on the
// way to the one asked for are kept.
type valueReader struct {
	c     *Client
	ctx   context.Context
	id    string
	order []string
	kept  map[string][][]backend.ReadCell
	// The stream, at the start of range next; nil once ended or broken.
	body io.ReadCloser
	dec  *json.Decoder
	next int
}

// batchGet asks for the values of sheets, unformatted, and returns the
// answer's body positioned at its first value range.
func (r *valueReader) batchGet(sheets []string) (io.ReadCloser, *json.Decoder, error) {
	q := url.Values{
		"valueRenderOption":    {"UNFORMATTED_VALUE"},
		"dateTimeRenderOption": {"SERIAL_NUMBER"},
		"majorDimension":       {"ROWS"},
		"alt":                  {"json"},
		"prettyPrint":          {"false"},
	}
	for _, s := range sheets {
		q.Add("ranges", quoteSheet(s))
	}
	u := r.c.Sheets.BasePath + "v4/spreadsheets/" + url.PathEscape(r.id) + "/values:batchGet?" + q.Encode()
	req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("User-Agent", "annosheet")
	resp, err := r.c.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("spreadsheet %s: read the values: %w", r.id, err)
	}
	if err := googleapi.CheckResponse(resp); err != nil {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("spreadsheet %s: read the values: %w", r.id, err)
	}
	dec := json.NewDecoder(resp.Body)
	dec.UseNumber()
	if err := enterRanges(dec); err != nil {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("spreadsheet %s: read the values: %w", r.id, err)
	}
	return resp.Body, dec, nil
}

func (r *valueReader) start() error {
	body, dec, err := r.batchGet(r.order)
	if err != nil {
		return err
	}
	r.body, r.dec = body, dec
	return nil
}

func (r *valueReader) close() error {
	if r.body == nil {
		return nil
	}
	err := r.body.Close()
	r.body, r.dec = nil, nil
	return err
}

func (r *valueReader) rows(sheet string, fn func(int, []backend.ReadCell) error) error {
	if rows, ok := r.kept[sheet]; ok {
		for i, row := range rows {
			if len(row) > 0 {
				if err := fn(i+1, row); err != nil {
					return err
				}
			}
		}
		return nil
	}
	at := -1
	for i, s := range r.order {
		if s == sheet {
			at = i
		}
	}
	if at < 0 {
		return fmt.Errorf("spreadsheet %s has no sheet %q", r.id, sheet)
	}
	if r.body == nil || at < r.next {
		// Passed already: read that sheet alone.
		body, dec, err := r.batchGet([]string{sheet})
		if err != nil {
			return err
		}
		defer body.Close()
		return readRange(dec, fn)
	}
	for r.next < at {
		var rows [][]backend.ReadCell
		err := readRange(r.dec, func(n int, cells []backend.ReadCell) error {
			for len(rows) < n-1 {
				rows = append(rows, nil)
			}
			rows = append(rows, cells)
			return nil
		})
		if err != nil {
			r.close()
			return fmt.Errorf("spreadsheet %s: read the values: %w", r.id, err)
		}
		r.kept[r.order[r.next]] = rows
		r.next++
	}
	var stop error
	err := readRange(r.dec, func(n int, cells []backend.ReadCell) error {
		if err := fn(n, cells); err != nil {
			stop = err
			return err
		}
		return nil
	})
	r.next++
	if err != nil {
		r.close()
		if stop != nil {
			return stop
		}
		return fmt.Errorf("spreadsheet %s: read the values: %w", r.id, err)
	}
	if r.next == len(r.order) {
		r.close()
	}
	return nil
}

// enterRanges moves a decoder into the valueRanges list of a
// BatchGetValuesResponse, skipping the fields before it.
func enterRanges(dec *json.Decoder) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		if key == "valueRanges" {
			return expectDelim(dec, '[')
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return errors.New("the answer has no valueRanges")
}

// readRange reads one ValueRange object from the stream, handing each
// non-empty row to fn with its 1-based number.
func readRange(dec *json.Decoder, fn func(int, []backend.ReadCell) error) error {
	if !dec.More() {
		return errors.New("the answer has fewer value ranges than sheets asked for")
	}
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		if key != "values" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return err
		}
		for n := 1; dec.More(); n++ {
			var row []any
			if err := dec.Decode(&row); err != nil {
				return err
			}
			if len(row) == 0 {
				continue
			}
			cells := make([]backend.ReadCell, len(row))
			for j, v := range row {
				cells[j] = readCell(v)
			}
			if err := fn(n, cells); err != nil {
				return err
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("unexpected %v in the answer, want %v", t, want)
	}
	return nil
}

// readCell types an unformatted value: JSON's booleans, numbers and
// strings. (Sheets answers a date as its serial number, unformatted: it is
// read as a number.)
func readCell(v any) backend.ReadCell {
	switch v := v.(type) {
	case nil:
		return backend.ReadCell{}
	case bool:
		if v {
			return backend.ReadCell{Value: "TRUE", Type: backend.CellBool}
		}
		return backend.ReadCell{Value: "FALSE", Type: backend.CellBool}
	case json.Number:
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			return backend.ReadCell{Value: strconv.FormatFloat(f, 'f', -1, 64), Type: backend.CellNumber}
		}
		return backend.ReadCell{Value: string(v), Type: backend.CellNumber}
	case float64:
		return backend.ReadCell{Value: strconv.FormatFloat(v, 'f', -1, 64), Type: backend.CellNumber}
	case string:
		if isErrorValue(v) {
			return backend.ReadCell{Value: v, Type: backend.CellError}
		}
		return backend.ReadCell{Value: v}
	}
	return backend.ReadCell{Value: fmt.Sprint(v)}
}

// isErrorValue reports a formula's error as Sheets answers it unformatted.
func isErrorValue(s string) bool {
	switch s {
	case "#N/A", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#NULL!", "#ERROR!":
		return true
	}
	return false
}
