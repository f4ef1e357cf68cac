package sheets

import (
	"encoding/json"
	"strings"
	"testing"

	sheetsapi "google.golang.org/api/sheets/v4"
)

// TestRowSizeBounds checks that the size estimate of a row is never below
// its JSON, which keeps every request under the limit.
func TestRowSizeBounds(t *testing.T) {
	texts := []string{
		"", "plain", strings.Repeat("<&>", 1000), "quote \" back \\ slash", "line\nbreak\ttab\x01",
		"\u2028\u2029 separators", "ünïcödé 漢字 🙂", strings.Repeat("x", 50000),
	}
	for _, s := range texts {
		for _, note := range []string{"", s} {
			v, f := s, 0.123456789012345
			rd := &sheetsapi.RowData{Values: []*sheetsapi.CellData{
				{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: &v}, UserEnteredFormat: &sheetsapi.CellFormat{BackgroundColor: color("FFF2CC")}, Note: note},
				{UserEnteredValue: &sheetsapi.ExtendedValue{NumberValue: &f}, UserEnteredFormat: &sheetsapi.CellFormat{BackgroundColor: color("123456")}},
				{UserEnteredFormat: &sheetsapi.CellFormat{BackgroundColor: color("FFFFFF")}},
			}}
			b, err := json.Marshal(rd)
			if err != nil {
				t.Fatal(err)
			}
			if got := rowSize(rd); got < len(b) {
				t.Errorf("rowSize %d < JSON %d for %.40q", got, len(b), s)
			}
		}
	}
}

// FuzzRowSize: the estimate bounds the JSON of any text.
func FuzzRowSize(f *testing.F) {
	for _, s := range []string{"", "a<b", "\u2028", "\"\\", "\x00\x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rd := &sheetsapi.RowData{Values: []*sheetsapi.CellData{{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: &s}, UserEnteredFormat: &sheetsapi.CellFormat{BackgroundColor: color("ABCDEF")}, Note: s}}}
		b, err := json.Marshal(rd)
		if err != nil {
			t.Skip() // not representable
		}
		if got := rowSize(rd); got < len(b) {
			t.Errorf("rowSize %d < JSON %d for %q", got, len(b), s)
		}
	})
}

// FuzzRetryAfter: any header gives a wait that is not negative, and whole
// seconds are read as such.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "7", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "1e9", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := retryAfter(s); d < 0 {
			t.Errorf("retryAfter(%q) = %s", s, d)
		}
	})
}
