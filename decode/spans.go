package decode

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annosheet/annosheet/records"
)

// A span is located in its field in code points (as Python and most NLP
// data sets count offsets), end exclusive.

// spanMatch is one place a span's text occurs in its field.
type spanMatch struct {
	start, end int // code points
}

// findExact returns every occurrence of text in field, overlapping ones
// included (see records.Occurrences).
func findExact(field, text string) []spanMatch {
	n := utf8.RuneCountInString(text)
	var out []spanMatch
	for _, start := range records.Occurrences(field, text) {
		out = append(out, spanMatch{start, start + n})
	}
	return out
}

// normalisedRunes maps text to a form where annotators' copying slips do
// not matter: runs of white space (including non-breaking spaces) become
// one space, curly quotes become straight ones, dashes become hyphens.
// orig[k] is the code point index, in the original, of normalised rune k.
func normalisedRunes(s string) (norm []rune, orig []int) {
	space := false
	i := 0
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || r == '\u00a0' || r == '\u200b':
			if !space {
				norm, orig = append(norm, ' '), append(orig, i)
			}
			space = true
			i++
			continue
		case r == '‘' || r == '’' || r == '‚' || r == '‛' || r == '′' || r == '`':
			r = '\''
		case r == '“' || r == '”' || r == '„' || r == '‟' || r == '″':
			r = '"'
		case r == '–' || r == '—' || r == '‐' || r == '‑' || r == '−':
			r = '-'
		}
		space = false
		norm, orig = append(norm, r), append(orig, i)
		i++
	}
	return norm, orig
}

// findNormalised finds text in field after normalising both; the matches
// are in the field's own code points.
func findNormalised(field, text string) []spanMatch {
	nt, _ := normalisedRunes(strings.TrimSpace(text))
	if len(nt) == 0 {
		return nil
	}
	nf, orig := normalisedRunes(field)
	var out []spanMatch
	for i := 0; i+len(nt) <= len(nf); i++ {
		match := true
		for k, r := range nt {
			if nf[i+k] != r {
				match = false
				break
			}
		}
		if match {
			out = append(out, spanMatch{orig[i], orig[i+len(nt)-1] + 1})
		}
	}
	return out
}

// substring returns field's code points [start, end).
func substring(field string, start, end int) string {
	r := []rune(field)
	if start < 0 || end > len(r) || start > end {
		return ""
	}
	return string(r[start:end])
}
