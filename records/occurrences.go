package records

import (
	"strings"
	"unicode/utf8"
)

// Occurrences returns where text occurs in field, overlapping occurrences
// included: the code point offset each starts at, in order. Pull reads a
// span by finding its text so, and generate writes a given span's
// occurrence number by the same count.
func Occurrences(field, text string) []int {
	if text == "" {
		return nil
	}
	var out []int
	for i := 0; i <= len(field)-len(text); {
		j := strings.Index(field[i:], text)
		if j < 0 {
			break
		}
		at := i + j
		out = append(out, utf8.RuneCountInString(field[:at]))
		_, size := utf8.DecodeRuneInString(field[at:])
		i = at + size
	}
	return out
}
