package layout

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/annosheet/annosheet/backend"
)

// Repair describes what Clean changed in a text.
type Repair struct {
	Invalid   int // invalid UTF-8 sequences replaced by U+FFFD
	Controls  int // control characters replaced by their visible pictures
	Truncated int // the text's length in UTF-16 units when it was cut; 0 if not
	Shown     int // how many UTF-16 units of the original are shown when cut
}

// Changed reports whether Clean changed anything.
func (r Repair) Changed() bool { return r.Invalid+r.Controls+r.Truncated > 0 }

// Clean makes s safe to show in a spreadsheet cell without silent changes:
// invalid UTF-8 becomes U+FFFD, control characters other than tab, newline
// and carriage return become their visible Unicode pictures (U+2400 block),
// and text over limit UTF-16 units is cut with a visible marker. The Repair
// says what happened so that the caller can report it.
func Clean(s string, limit int) (string, Repair) {
	var r Repair
	if needsRepair(s) {
		var b strings.Builder
		b.Grow(len(s))
		for i := 0; i < len(s); {
			c, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case c == utf8.RuneError && size == 1:
				b.WriteRune(utf8.RuneError)
				r.Invalid++
			case isControl(c):
				b.WriteRune(controlPicture(c))
				r.Controls++
			default:
				b.WriteString(s[i : i+size])
			}
			i += size
		}
		s = b.String()
	}
	// A string has no more UTF-16 units than UTF-8 bytes, so short text
	// needs no count.
	if limit > 0 && len(s) > limit {
		if n := utf16Len(s); n > limit {
			r.Truncated = n
			marker := fmt.Sprintf(backend.TruncationMarker, 0, n)
			keep := limit - utf16Len(marker) - 8 // room for the digits of the shown count
			s = cutUTF16(s, keep)
			r.Shown = utf16Len(s)
			s += fmt.Sprintf(backend.TruncationMarker, r.Shown, n)
		}
	}
	return s, r
}

func needsRepair(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f || c >= 0x80 {
			// Non-ASCII needs the slow path only when it is invalid or a
			// C1 control; check precisely.
			return !utf8.ValidString(s) || hasControl(s)
		}
	}
	return false
}

func hasControl(s string) bool {
	for _, c := range s {
		if isControl(c) {
			return true
		}
	}
	return false
}

// isControl reports the characters a cell must not hold: XML 1.0 forbids
// most C0 controls, and C0/C1 controls, DEL and the non-characters
// U+FFFE/U+FFFF are invisible or rejected by spreadsheet applications.
func isControl(c rune) bool {
	switch {
	case c == '\t' || c == '\n' || c == '\r':
		return false
	case c < 0x20 || c == 0x7f:
		return true
	case c >= 0x80 && c < 0xa0:
		return true
	case c == 0xfffe || c == 0xffff:
		return true
	}
	return false
}

// controlPicture is the visible stand-in of a control character.
func controlPicture(c rune) rune {
	switch {
	case c < 0x20:
		return 0x2400 + c // ␀ … ␟
	case c == 0x7f:
		return 0x2421 // ␡
	}
	return utf8.RuneError
}

func utf16Len(s string) int {
	n := 0
	for _, c := range s {
		n += utf16.RuneLen(c)
	}
	return n
}

// cutUTF16 returns the longest prefix of s with at most n UTF-16 units that
// does not split a character.
func cutUTF16(s string, n int) string {
	used := 0
	for i, c := range s {
		w := utf16.RuneLen(c)
		if used+w > n {
			return s[:i]
		}
		used += w
	}
	return s
}
