package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// tableOptions are what a reader of a table (CSV, TSV, a spreadsheet,
// Parquet) is told of the template that reads it.
type tableOptions struct {
	// limit bounds the bytes of one record (MaxRecordSize).
	limit int64
	// nested are the columns whose cells the template reads as a list or
	// an object: their text is JSON, decoded as such.
	nested map[string]bool
	// needed are the columns the template reads: a header without one
	// is an error that names it (and the nearest header).
	needed []string
	// sheet is the sheet of a spreadsheet to read; "" for the first.
	sheet string
}

// tableRecord is the record of one row of a table: each column a field
// by its header, in the header's order; a nested column's cell decoded
// from JSON (numbers kept as written), every other cell its text. line is
// the line the row starts on (a sheet's row); cellOf names a column's
// cell in problems (a spreadsheet's sheet and cell, "" for a text file).
func tableRecord(header, cells []string, opt tableOptions, file string, line int, cellOf func(col int) (sheet, cell string)) (*layout.Record, *records.Problem) {
	data := make(map[string]any, len(header))
	raw := []byte{'{'}
	for i, h := range header {
		var cell string
		if i < len(cells) {
			cell = cells[i]
		}
		var v any = cell
		if opt.nested[h] && cell != "" {
			decoded, ok := fastDecode([]byte(cell))
			if !ok {
				var err error
				if decoded, err = decodeJSON(cell); err != nil {
					sheet, c := cellOf(i)
					return nil, &records.Problem{Severity: records.Error, File: file, Line: line, Sheet: sheet, Cell: c, Err: records.ErrMalformed,
						Message: fmt.Sprintf("column %q holds a list or an object for the template, as JSON text: %v", h, err)}
				}
			}
			v = decoded
		}
		data[h] = v
		if i > 0 {
			raw = append(raw, ',')
		}
		k, _ := json.Marshal(h)
		raw = append(raw, k...)
		raw = append(raw, ':')
		if _, ok := v.(string); !ok {
			// A nested cell is in Raw as written, compacted: its
			// objects' keys in their order, which Marshal would sort
			// and an export of the input keeps.
			var c bytes.Buffer
			if json.Compact(&c, []byte(cell)) == nil {
				raw = append(raw, c.Bytes()...)
				continue
			}
		}
		b, err := json.Marshal(v)
		if err != nil {
			sheet, c := cellOf(i)
			return nil, &records.Problem{Severity: records.Error, File: file, Line: line, Sheet: sheet, Cell: c, Err: records.ErrMalformed, Message: err.Error()}
		}
		raw = append(raw, b...)
	}
	raw = append(raw, '}')
	return &layout.Record{Data: data, Raw: raw, File: file, Line: line}, nil
}

// decodeJSON decodes one JSON value, numbers kept as written, and says
// what is wrong with text that is not one.
func decodeJSON(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	// More alone misses a closing bracket after the value ("[1] ]").
	if rest := strings.TrimSpace(s[d.InputOffset():]); rest != "" {
		if d.More() {
			return nil, fmt.Errorf("more than one JSON value")
		}
		return nil, fmt.Errorf("unexpected %q after the JSON value", rest[:min(len(rest), 20)])
	}
	return v, nil
}
