package sheets

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/mapping"
)

var (
	idInURL = regexp.MustCompile(`/spreadsheets/d/([A-Za-z0-9_-]+)`)
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

// Open reads a spreadsheet as a grid for pull: its sheet names, then every
// sheet's values in one values.batchGet, unformatted (checkboxes as
// booleans, numbers as numbers; formulas give their value).
func (c *Client) Open(ctx context.Context, id string) (*mapping.Grid, error) {
	ss, err := c.Sheets.Spreadsheets.Get(id).Fields("spreadsheetId,sheets.properties.title").Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("spreadsheet %s: %w", id, err)
	}
	var names, ranges []string
	for _, s := range ss.Sheets {
		names = append(names, s.Properties.Title)
		ranges = append(ranges, quoteSheet(s.Properties.Title))
	}
	vr, err := c.Sheets.Spreadsheets.Values.BatchGet(id).Ranges(ranges...).
		ValueRenderOption("UNFORMATTED_VALUE").DateTimeRenderOption("SERIAL_NUMBER").MajorDimension("ROWS").
		Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("spreadsheet %s: read the values: %w", id, err)
	}
	if len(vr.ValueRanges) != len(names) {
		return nil, fmt.Errorf("spreadsheet %s: asked for %d sheets, got %d", id, len(names), len(vr.ValueRanges))
	}
	values := map[string][][]any{}
	for i, r := range vr.ValueRanges {
		values[names[i]] = r.Values
	}
	return &mapping.Grid{
		Kind:   "gsheets",
		Name:   id,
		Sheets: names,
		Rows: func(sheet string, fn func(int, []string) error) error {
			for i, row := range values[sheet] {
				if len(row) == 0 {
					continue
				}
				cells := make([]string, len(row))
				for j, v := range row {
					cells[j] = cellText(v)
				}
				if err := fn(i+1, cells); err != nil {
					return err
				}
			}
			return nil
		},
	}, nil
}

// cellText renders an unformatted value as the text pull reads.
func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	}
	return fmt.Sprint(v)
}
