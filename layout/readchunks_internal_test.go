package layout

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// refPrefixFit is prefixFit as it was before it stopped reading early: it
// read the whole of a word before placing it, and the whole of a run of
// spaces. prefixFit must cut where it does.
func refPrefixFit(s string, w float64, lines int, para bool) int {
	if lines < 1 {
		return 0
	}
	per := perLine(w)
	n, used := 1, 0
	brk, blank := 0, 0
	word, wl := -1, 0
	place := func() bool {
		switch {
		case used == 0:
		case used+1+wl <= per:
			used++
		default:
			n++
			used = 0
		}
		for wl > per {
			n++
			wl -= per
		}
		used += wl
		return n <= lines
	}
	cut := func(at int, word bool) int {
		if at == 0 && word {
			return widthCut(s, per*lines)
		}
		switch {
		case !para:
		case blank > 0:
			return blank
		case brk > 0:
			return brk
		}
		return at
	}
	for i, r := range s {
		if !isSpace(r) {
			if word < 0 {
				word, wl = i, 0
			}
			wl += runeWidth(r)
			continue
		}
		if word >= 0 {
			if !place() {
				return cut(word, true)
			}
			word = -1
		}
		if r == '\n' {
			if n+1 > lines {
				return cut(i, false)
			}
			n, used = n+1, 0
			if 3*n >= 2*lines {
				brk = i + 1
				if i > 0 && s[i-1] == '\n' {
					blank = i + 1
				}
			}
		}
	}
	if word >= 0 && !place() {
		return cut(word, true)
	}
	return len(s)
}

// refReadChunks is readChunks as it was: each part cut from all the rest.
func refReadChunks(s string) []string {
	var out []string
	for s != "" {
		n := len(cutUTF16(s[:refPrefixFit(s, readWidth, maxLines, true)], readPartMax))
		if n == 0 {
			_, n = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// splitTexts are texts on which splitting could go wrong or slow: every
// long text, and the shapes that made it quadratic (one long word, wide
// characters without spaces, long runs of spaces), each alone and mixed
// with line breaks in the last third of a part, which a part goes back
// to.
func splitTexts() map[string]string {
	out := longTexts()
	breaks := strings.Repeat("line\n", 20)
	blanks := strings.Repeat("line\n\n", 10)
	shapes := map[string]string{
		"word":         strings.Repeat("abcdefghij", 6000),
		"wide word":    strings.Repeat("法院认为计划管理人的解释是合理的", 1300),
		"clef word":    strings.Repeat("𝄞", 15000),
		"spaces":       strings.Repeat(" ", 60000),
		"ideographic":  strings.Repeat("\u3000", 20000),
		"tabs and cr":  strings.Repeat("\t\r", 30000),
		"short lines":  strings.Repeat("ab\n", 20000),
		"empty lines":  strings.Repeat("\n", 60000),
		"crlf lines":   strings.Repeat("a b\r\n", 12000),
		"long lines":   strings.Repeat(strings.Repeat("x", 5000)+" "+strings.Repeat("y", 3000)+"\n", 8),
		"word spaces":  strings.Repeat(strings.Repeat("z", 4000)+strings.Repeat(" ", 9000), 5),
		"spaced words": strings.Repeat("x"+strings.Repeat(" ", 3000), 20),
		"a then word":  "a " + strings.Repeat("w", 60000),
		"space word":   " " + strings.Repeat("w", 60000),
		// A part goes back to its last line break past the spaces, again
		// and again.
		"breaks and spaces":         strings.Repeat(breaks+strings.Repeat(" ", 20000), 4),
		"blanks, spaces and a word": strings.Repeat(blanks+strings.Repeat(" ", 20000)+strings.Repeat("q", 3000), 4),
	}
	for name, s := range shapes {
		out[name] = s
		out["breaks, "+name] = breaks + s
		out["blanks, "+name] = blanks + s
		out["breaks, "+name+", word"] = breaks + s + strings.Repeat("q", 3000)
		out["blanks, "+name+", breaks"] = blanks + s + breaks + s
	}
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "word", " ", "  ", "\n", "\n\n", "\t", "\r\n", "\u3000", "\u00a0", "中文", "𝄞", "é",
		strings.Repeat("x", 130), strings.Repeat("y", 3000), strings.Repeat(" ", 9000), strings.Repeat("法", 1400), breaks, blanks}
	for k := range 40 {
		var b strings.Builder
		for b.Len() < 60000 {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		out[fmt.Sprintf("random %d", k)] = b.String()
	}
	return out
}

// TestReadChunksAsBefore checks that readChunks splits every text into
// the parts it did when each part was cut from all the rest of the text.
func TestReadChunksAsBefore(t *testing.T) {
	t.Parallel()
	for name, s := range splitTexts() {
		if diff := cmp.Diff(refReadChunks(s), readChunks(s)); diff != "" {
			t.Errorf("%s: parts differ (-want +got):\n%s", name, first(diff, 2000))
		}
	}
}

// TestPrefixFitAsBefore checks that prefixFit cuts where it did, at any
// width and any number of lines, and that prefixFitUpTo agrees with it
// up to where its caller stops.
func TestPrefixFitAsBefore(t *testing.T) {
	t.Parallel()
	texts := lineTexts()
	for _, s := range splitTexts() {
		texts = append(texts, first(s, 20000))
	}
	for _, s := range texts {
		for _, w := range []float64{0, 1, 3, 8, 60, 100} {
			for _, lines := range []int{0, 1, 2, 5, maxLines, 3 * maxLines} {
				for _, para := range []bool{false, true} {
					want := refPrefixFit(s, w, lines, para)
					if got := prefixFit(s, w, lines, para); got != want {
						t.Fatalf("%.60q (%d bytes), width %g, %d lines, para %v: prefixFit %d, before %d", s, len(s), w, lines, para, got, want)
					}
					for _, units := range []int{0, 1, 2, len(s) / 3, len(s) / 2, len(s) - 1} {
						if got, _ := prefixFitUpTo(s, w, lines, para, units); cutUTF16(s[:got], units) != cutUTF16(s[:want], units) {
							t.Fatalf("%.60q (%d bytes), width %g, %d lines, para %v, %d units: prefixFitUpTo %d, before %d", s, len(s), w, lines, para, units, got, want)
						}
					}
				}
			}
		}
	}
}

// FuzzReadChunksAsBefore checks the same of any text, with pieces that
// make the fuzzer's texts long without making it slow.
func FuzzReadChunksAsBefore(f *testing.F) {
	for _, s := range longTexts() {
		f.Add(first(s, 300), uint16(0), uint8(0))
	}
	f.Add("line\n", uint16(20), uint8(2))
	f.Fuzz(func(t *testing.T, s string, repeat uint16, long uint8) {
		// Repeated, with a run of long words or spaces after it.
		s = strings.Repeat(s, 1+int(repeat)%50) + strings.Repeat([]string{"w", " ", "法", "\n"}[long%4], int(long)*40)
		if got, want := readChunks(s), refReadChunks(s); !cmp.Equal(got, want) {
			t.Errorf("%.80q (%d bytes): parts differ (-want +got):\n%s", s, len(s), first(cmp.Diff(want, got), 2000))
		}
		for _, lines := range []int{1, maxLines} {
			for _, para := range []bool{false, true} {
				if got, want := prefixFit(s, 60, lines, para), refPrefixFit(s, 60, lines, para); got != want {
					t.Errorf("%.80q (%d bytes), %d lines, para %v: prefixFit %d, before %d", s, len(s), lines, para, got, want)
				}
			}
		}
	})
}

// TestReadChunksLinear checks that splitting a text reads it a bounded
// number of times, whatever its shape: the count of bytes read, not
// time, so that it holds on any machine.
func TestReadChunksLinear(t *testing.T) {
	t.Parallel()
	for name, s := range splitTexts() {
		if len(s) < 30000 {
			continue
		}
		_, read := readChunksRead(s)
		if read > 4*len(s) {
			t.Errorf("%s: splitting %d bytes read %d (%.1f times)", name, len(s), read, float64(read)/float64(len(s)))
		}
	}
}

// BenchmarkReadChunks splits one word of 1, 2, 4 and 10 MB, the shape
// that took time quadratic in its length, and as much prose: the time a
// byte should not grow with the length.
func BenchmarkReadChunks(b *testing.B) {
	for _, c := range []struct{ name, unit string }{{"word", "x"}, {"wide", "法"}, {"prose", "The court held that the plan administrator’s reading was reasonable. "}} {
		for _, mb := range []int{1, 2, 4, 10} {
			s := strings.Repeat(c.unit, mb<<20/len(c.unit))
			b.Run(fmt.Sprintf("%s/%dMB", c.name, mb), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for range b.N {
					readChunks(s)
				}
			})
		}
	}
}
