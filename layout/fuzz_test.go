package layout

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annosheet/annosheet/testkit/fuzzdata"
)

// fuzzIsControl is what a cell must not hold, written out from the
// specification rather than taken from text.go.
func fuzzIsControl(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

func FuzzClean(f *testing.F) {
	var outputs []map[string]any
	for _, l := range bytes.Split(fuzzdata.Snippet(f, "factgenie-d2t/outputs.jsonl", 2000, true), []byte{'\n'}) {
		var m map[string]any
		if json.Unmarshal(l, &m) == nil {
			outputs = append(outputs, m)
		}
	}
	for _, m := range outputs {
		f.Add(m["output"].(string), 200)
	}
	f.Add(string(fuzzdata.Snippet(f, "legal-gaps/examples.sample.jsonl", 700, false)), 250)
	f.Add("plain text", 0)
	f.Add("a\x00b\x07c\x1bd\x7fe\u0085f\ufffeg\uffff", 32767)
	f.Add("tab\tnewline\ncr\r", 10)
	f.Add("caf\xe9 \xf0\x9f\x99 \xed\xa0\x80", 5)
	f.Add(strings.Repeat("🙂", 150)+"x", 201)
	f.Add(strings.Repeat("é", 300), 200)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		// The fuzzed limit, and one that a fuzzed text can exceed.
		small := 200 + int(uint(limit)%100)
		for _, lim := range []int{limit, small} {
			out, rep := Clean(s, lim)
			if !utf8.ValidString(out) {
				t.Fatalf("Clean(%q, %d) = %q: not valid UTF-8", s, lim, out)
			}
			for _, r := range out {
				if fuzzIsControl(r) {
					t.Fatalf("Clean(%q, %d) = %q holds the control %U", s, lim, out, r)
				}
			}
			if lim >= 200 && textUTF16Len(out) > lim {
				t.Fatalf("Clean(%q, %d): %d UTF-16 units", s, lim, textUTF16Len(out))
			}
			if !rep.Changed() && out != s {
				t.Fatalf("Clean(%q, %d) = %q with nothing reported changed", s, lim, out)
			}
			// The counts are right.
			invalid, controls := 0, 0
			var cleaned strings.Builder
			for i := 0; i < len(s); {
				r, size := utf8.DecodeRuneInString(s[i:])
				switch {
				case r == utf8.RuneError && size == 1:
					invalid++
					cleaned.WriteRune(utf8.RuneError)
				case fuzzIsControl(r):
					controls++
					cleaned.WriteString("?")
				default:
					cleaned.WriteString(s[i : i+size])
				}
				i += size
			}
			if rep.Invalid != invalid || rep.Controls != controls {
				t.Fatalf("Clean(%q, %d): Repair %+v, want Invalid %d, Controls %d", s, lim, rep, invalid, controls)
			}
			n := textUTF16Len(cleaned.String())
			cut := lim > 0 && n > lim
			if cut != (rep.Truncated > 0) || cut && (rep.Truncated != n || rep.Shown >= n || !strings.HasSuffix(out, " characters shown; the full text is in the input file]")) {
				t.Fatalf("Clean(%q, %d): Repair %+v for a cleaned length of %d", s, lim, rep, n)
			}
			if !cut && textUTF16Len(out) != n {
				t.Fatalf("Clean(%q, %d) = %q: %d units, want %d", s, lim, out, textUTF16Len(out), n)
			}
		}
	})
}
