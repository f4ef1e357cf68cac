package safetext

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"gpt4o-12", "gpt4o-12"},
		{"Zoë 🐯\ttab\nline", "Zoë 🐯\ttab\nline"},
		{"\u202egpt4o", `\u202egpt4o`},
		{"a\u2066b\u2069c\u200fd", `a\u2066b\u2069c\u200fd`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"over\rwrite", `over\x0dwrite`},
		{"bad \xff byte", `bad \xff byte`},
		{"\u0085next", `\u0085next`},
		{"kept \uFFFD as it is", "kept \uFFFD as it is"},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWriter: what is written, in writes cut anywhere, even inside a
// character, comes out as Escape gives it whole.
func TestWriter(t *testing.T) {
	t.Parallel()
	text := "unit \u202egpt4o-12 by Zoë 🐯\x1b[0m done\n"
	for cut := range len(text) + 1 {
		var b bytes.Buffer
		w := NewWriter(&b)
		for _, part := range []string{text[:cut], text[cut:]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("cut %d: wrote %d of %d: %v", cut, n, len(part), err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != Escape(text) {
			t.Errorf("cut at %d: %q, want %q", cut, got, Escape(text))
		}
	}
}

// FuzzEscape: the escaped text holds no character that acts, is valid
// UTF-8, and is the text itself when nothing in it acts.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "abc", "\u202e", "\x1b", "\xff", "a\u2069b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, got)
		}
		for _, r := range got {
			if Acts(r) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, got, r)
			}
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, Acts) && got != s {
			t.Fatalf("Escape(%q) = %q changed a clean text", s, got)
		}
	})
}

// TestName: a name that shows as it is stays as it is; one that would
// break a line, act on the terminal or is not UTF-8 is quoted.
func TestName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"xl/worksheets/sheet1.xml": "xl/worksheets/sheet1.xml",
		"xl/wörk sheets/s.xml":     "xl/wörk sheets/s.xml",
		"xl/works\n\n/sheet1.xml":  `"xl/works\n\n/sheet1.xml"`,
		"a\x1b[31mb":               `"a\x1b[31mb"`,
		"a\tb":                     `"a\tb"`,
		"a\xffb":                   `"a\xffb"`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
	}
}
