// Package safetext makes text that people typed safe to show as it is
// read: a character that would act rather than show (a terminal's escape,
// a carriage return that hides what came before, a direction override
// that reverses what follows, so that "gpt4o" reads as another ID) is
// shown as its escape, \u202e or \x1b, and every other character as
// itself.
//
//	fmt.Fprintln(os.Stderr, safetext.Escape(message))
//	w := safetext.NewWriter(os.Stderr) // the same, for all that is written
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Acts says whether a character acts on how text shows instead of
// showing: the C0 and C1 controls but tab and newline, DEL, and the
// Unicode marks and embeddings that set a text's direction, and the line
// and paragraph separators.
func Acts(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Escape is s with every character that Acts written as its escape, and
// invalid UTF-8 as \xNN.
func Escape(s string) string {
	clean := true
	for i, r := range s {
		if Acts(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Acts(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Acts(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Writer escapes what is written through it, as Escape does, and writes
// it to the writer it wraps. A character split between two writes is
// escaped whole.
type Writer struct {
	w       io.Writer
	pending []byte // the start of a character the last write cut
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports p as written whole.
func (w *Writer) Write(p []byte) (int, error) {
	data := append(w.pending, p...)
	w.pending = nil
	// A character cut at the end waits for the next write.
	end := len(data)
	for k := 1; k < utf8.UTFMax && k <= len(data); k++ {
		c := data[len(data)-k]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(data[len(data)-k:]) {
				end = len(data) - k
			}
			break
		}
	}
	w.pending = append([]byte(nil), data[end:]...)
	if _, err := io.WriteString(w.w, Escape(string(data[:end]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap is the writer w wraps, for what must reach it as it is (a
// progress bar's redrawing, made of no typed text).
func (w *Writer) Unwrap() io.Writer { return w.w }

// Flush writes what a cut character left waiting, escaped.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	_, err := io.WriteString(w.w, Escape(string(w.pending)))
	w.pending = nil
	return err
}

// Name is a name that came from a file (a ZIP archive's part, say) as a
// one-line message shows it: itself when every character shows and none
// breaks the line, otherwise quoted with its escapes, as Go quotes.
func Name(s string) string {
	for i, r := range s {
		if r == '\n' || r == '\t' || Acts(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return fmt.Sprintf("%q", s)
		}
	}
	return s
}
