// Package bombs makes hostile inputs for tests: small files that expand
// far beyond their size when read naively.
package bombs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/annosheet/annosheet/templates"
)

// Laughs turns a template's source into a "billion laughs": an extension
// key holding nine levels of aliases, each repeating the one before ten
// times, used by an export constant so that loading the template would
// expand a billion values from a kilobyte of text. anchor is a line of
// src's export section after which the constant is put; ok is false when
// src has no such line.
func Laughs(src, anchor string) (out string, ok bool) {
	var b strings.Builder
	b.WriteString("x-laughs:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	indent := anchor[:len(anchor)-len(strings.TrimLeft(anchor, " "))]
	text := strings.Replace(src, anchor, anchor+"\n"+indent+"laughs: *l9", 1)
	return b.String() + text, text != src
}

// LegalGapsLaughs is the built-in legal-gaps template as a billion laughs
// (see Laughs): a template that loads only if the loader bounds alias
// expansion.
func LegalGapsLaughs() ([]byte, error) {
	src, ok := templates.BuiltinSource("legal-gaps")
	if !ok {
		return nil, errors.New("no built-in legal-gaps template")
	}
	text, ok := Laughs(string(src), "    labels: {value: gaps, as: ints}")
	if !ok {
		return nil, errors.New("the legal-gaps export section changed; update package bombs")
	}
	return []byte(text), nil
}
