// Package pin quotes text for golden files: whole when short, and when
// long as a prefix, its length and a hash of the whole, so that a golden
// file stays readable and an edit anywhere in the text, even one that
// keeps its length, still changes the line.
//
//	pin.Text(s, 48) // "first 32 characters"… (120 characters, sha256 0123456789abcdef)
package pin

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Text quotes s whole when it has at most max characters; otherwise it
// quotes its first two thirds of max characters and adds its length in
// characters and the first 8 bytes of the SHA-256 of all of it.
func Text(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return strconv.Quote(s)
	}
	r := []rune(s)
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%q… (%d characters, sha256 %x)", string(r[:max*2/3]), len(r), sum[:8])
}
