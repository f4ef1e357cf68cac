package xlsx

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The text of a cell as the workbook holds it. The rows of a sheet are
// rendered here rather than through excelize's stream writer, straight
// into the sheet's zip entry, but what they hold is what excelize would
// write for the same values, to the byte (TestRowsLikeExcelize): text
// escaped as encoding/xml escapes it, line breaks kept, characters XML
// cannot hold shown as U+FFFD, literal "_xHHHH_" sequences escaped so that
// readers do not decode them, and xml:space="preserve" where the text
// starts or ends with white space.

// cellCharLimit is the most UTF-16 code units a cell holds.
const cellCharLimit = 32767

// escClass tells, for an ASCII byte, what escaping it needs: 0 none, 1 an
// entity, 2 (control characters XML cannot hold) the replacement character.
var escClass = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			t[c] = 2
		}
	}
	for _, c := range []byte("\"'&<>\t\n\r") {
		t[c] = 1
	}
	return t
}()

// appendEscaped appends s escaped as encoding/xml's EscapeText escapes it,
// except that a line break stays a line break unless newline is set.
func appendEscaped(dst []byte, s string, newline bool) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			var esc string
			switch escClass[c] {
			case 0:
				continue
			case 2:
				esc = "\uFFFD"
			default:
				switch c {
				case '"':
					esc = "&#34;"
				case '\'':
					esc = "&#39;"
				case '&':
					esc = "&amp;"
				case '<':
					esc = "&lt;"
				case '>':
					esc = "&gt;"
				case '\t':
					esc = "&#x9;"
				case '\r':
					esc = "&#xD;"
				case '\n':
					if !newline {
						continue
					}
					esc = "&#xA;"
				}
			}
			dst = append(dst, s[last:i-1]...)
			dst = append(dst, esc...)
			last = i
			continue
		}
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		if inCharRange(r) && (r != utf8.RuneError || width > 1) {
			continue
		}
		dst = append(dst, s[last:i-width]...)
		dst = append(dst, "\uFFFD"...)
		last = i
	}
	return append(dst, s[last:]...)
}

// inCharRange reports whether XML 1.0 can hold r (past ASCII).
func inCharRange(r rune) bool {
	return r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// appendCellText appends a string cell's value, <is><t>…</t></is>
// included, as excelize writes an inline string.
func appendCellText(dst []byte, s string) []byte {
	if len(s) > cellCharLimit { // a byte count at least the UTF-16 count
		s = truncateUTF16(s, cellCharLimit)
	}
	dst = append(dst, "<is><t"...)
	if s != "" && (isSpace(s[0]) || isSpace(s[len(s)-1])) {
		dst = append(dst, ` xml:space="preserve"`...)
	}
	dst = append(dst, '>')
	start := len(dst)
	dst = appendEscaped(dst, s, false)
	if strings.Contains(s, "_x") {
		esc := escapeCodes(string(dst[start:]))
		dst = append(dst[:start], esc...)
	}
	return append(dst, "</t></is>"...)
}

// truncateUTF16 cuts s to at most n UTF-16 code units, at a character.
func truncateUTF16(s string, n int) string {
	count := 0
	for i, r := range s {
		if count += utf16.RuneLen(r); count > n {
			return s[:i]
		}
	}
	return s
}

var (
	codeExp       = regexp.MustCompile(`_x[a-fA-F\d]{4}_`)
	codeEscapeExp = regexp.MustCompile(`x[a-fA-F\d]{4}_`)
)

// escapeCodes escapes the "_xHHHH_" sequences of s that readers would
// decode as the character HHHH, by writing their underscore as _x005F_,
// as excelize does (including its treatment of a literal "_x005F_" before
// another sequence).
func escapeCodes(s string) string {
	matches, l, cursor := codeExp.FindAllStringSubmatchIndex(s, -1), len(s), 0
	var b strings.Builder
	for _, match := range matches {
		b.WriteString(s[cursor:match[0]])
		sub := s[match[0]:match[1]]
		if sub == "_x005F_" {
			cursor = match[1]
			if match[1]+6 <= l && codeEscapeExp.MatchString(s[match[1]:match[1]+6]) {
				if _, err := strconv.Unquote(`"\u` + s[match[1]+1:match[1]+5] + `"`); err == nil {
					b.WriteString(sub + "x005F" + sub)
					continue
				}
			}
			b.WriteString(sub + "x005F_")
			continue
		}
		// excelize drops a sequence that names no character (_xD800_,
		// half of a surrogate pair); it is escaped here like the others,
		// so that it reads back as written.
		cursor = match[1]
		b.WriteString("_x005F" + sub)
	}
	if cursor < l {
		b.WriteString(s[cursor:])
	}
	return b.String()
}
