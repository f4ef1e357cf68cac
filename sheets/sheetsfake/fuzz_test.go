package sheetsfake

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseA1: any range is parsed or refused; one parsed names a sheet
// and a box that is not upside down.
func FuzzParseA1(f *testing.F) {
	for _, s := range []string{"Sheet1", "'My ''s'!A1:C3", "Sheet1!B:C", "Lists!$A$2:$A$9", "A1", "2:3", "'x", "Sheet1!", "!A1", "Sheet1!ZZZZ99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseA1(s)
		if err != nil {
			return
		}
		if r.sheet == "" {
			t.Errorf("parseA1(%q): no sheet", s)
		}
		if r.r0 < 0 || r.c0 < 0 || r.r1 >= 0 && r.r1 < r.r0 || r.c1 >= 0 && r.c1 < r.c0 {
			t.Errorf("parseA1(%q) = %+v", s, r)
		}
	})
}

// FuzzEnteredValue: any typed text becomes exactly one kind of value,
// and RAW keeps text as it was given.
func FuzzEnteredValue(f *testing.F) {
	for _, s := range []string{"3", "true", "'3", "=1+1", "1e400", "12%", " -4.5 ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, input := range []string{"RAW", "USER_ENTERED"} {
			v, err := enteredValue(s, input)
			if err != nil || v == nil {
				continue
			}
			kinds := 0
			for _, set := range []bool{v.StringValue != nil, v.NumberValue != nil, v.BoolValue != nil, v.FormulaValue != nil} {
				if set {
					kinds++
				}
			}
			if kinds != 1 {
				t.Errorf("%s %q: %d kinds of value", input, s, kinds)
			}
			if input == "RAW" && (v.StringValue == nil || *v.StringValue != s) {
				t.Errorf("RAW %q became %+v", s, v)
			}
		}
	})
}

// FuzzValidate: any JSON body is judged against a request schema without
// failing, and a body the typed request came from passes.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{`{"requests":[{"addSheet":{"properties":{"title":"x"}}}]}`, `{"requests":[{"bogus":1}]}`, `[]`, `{"requests":{}}`, `{"requests":[{"updateCells":{"rows":[{"values":[{"userEnteredValue":{"numberValue":"x"}}]}]}}]}`} {
		f.Add([]byte(s))
	}
	d := defaultDocs()
	if d.err != nil {
		f.Skip(d.err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		_ = d.sheets.Validate("BatchUpdateSpreadsheetRequest", v)
		_ = d.drive.Validate("File", v)
	})
}
