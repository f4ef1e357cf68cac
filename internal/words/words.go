// Package words says counts the way messages need them: "1 unit",
// "2 units", "0 matches".
//
//	words.Count(1, "error") // "1 error"
//	words.Count(3, "match") // "3 matches"
package words

import (
	"strconv"
	"strings"
)

// Count is n and the noun, in the plural unless n is 1. A noun ending in
// s, x, z, ch or sh takes -es; one ending in a consonant and y, -ies; a
// compound noun ("corrected answer") is made plural by its last word.
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun is the noun alone, in the plural unless n is 1.
func Noun(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case len(noun) > 1 && noun[len(noun)-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// Some joins items with commas, the first most of them (at least one),
// and says how many more there are: Some([]string{"a", "b", "c"}, 2) is
// "a, b and 1 more". A message that names what it counts stays a line
// however many there are.
func Some(items []string, most int) string {
	most = max(most, 1)
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:most], ", ") + " and " + strconv.Itoa(len(items)-most) + " more"
}

// Pick is one when n is 1, and many otherwise: for words that are not a
// noun plus "s" ("is"/"are", "column stays"/"columns stay").
func Pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Thousands writes n with a comma between groups of three digits.
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Wrap breaks text into lines of at most width characters (a longer word
// stays whole), each after the first starting with indent.
func Wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteString("\n" + indent)
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
