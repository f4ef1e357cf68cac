// Package csvsafe keeps text written to a CSV file from being read as a
// formula by a spreadsheet that opens the file (OWASP, "CSV injection"):
// a field that starts with =, +, -, @, a tab or a carriage return gets a
// leading apostrophe, which spreadsheets show as text and never evaluate.
//
//	w.Write([]string{csvsafe.Text(answer)}) // "=1+1" is written as "'=1+1"
package csvsafe

import (
	"regexp"
	"strings"
)

// Prefix is what goes before a field that a spreadsheet could read as a
// formula.
const Prefix = "'"

// triggers are the first characters that make a spreadsheet read a field
// as a formula (or, for tab and carriage return, hide one behind them).
const triggers = "=+-@\t\r"

// Text returns s as a CSV field that no spreadsheet reads as a formula:
// s itself, or s after Prefix when it starts with a trigger. Text that
// looks like a number ("-1") is prefixed too: it is text, and stays text.
func Text(s string) string {
	if s == "" || strings.IndexByte(triggers, s[0]) < 0 {
		return s
	}
	return Prefix + s
}

// decimal is a number as a spreadsheet reads one: a sign, digits, a
// fraction and an exponent ("-0.25", "1e-07"); not "+Inf" or "-0x1p3",
// which a spreadsheet takes for a formula.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// Field is Text for fields that also hold numbers written by the program
// (a metric's value, say): a decimal number, negative ones included, is
// left as it is.
func Field(s string) string {
	if decimal.MatchString(s) {
		return s
	}
	return Text(s)
}
