package layout

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// refCountLines is countLines as it was before it measured runs of ASCII
// letters bytewise: rune by rune. countLines must count as it does.
func refCountLines(s string, w float64, limit int) int {
	per := perLine(w)
	n, lines, used, wl := 0, 1, 0, -1
	place := func() {
		switch {
		case used == 0:
		case used+1+wl <= per:
			used++
		default:
			lines++
			used = 0
		}
		for wl > per { // a word longer than the line is broken
			lines++
			wl -= per
		}
		used += wl
		wl = -1
	}
	for _, r := range s {
		switch {
		case r == '\n':
			if wl >= 0 {
				place()
			}
			n += lines
			if n > limit {
				return n
			}
			lines, used = 1, 0
		case isSpace(r):
			if wl >= 0 {
				place()
			}
		default:
			wl = max(wl, 0) + runeWidth(r)
			if wl > per*(limit+1) { // wider than all the lines
				return limit + 1
			}
		}
		if n+lines > limit {
			return n + lines
		}
	}
	if wl >= 0 {
		place()
	}
	return n + lines
}

// lineTexts are texts for comparing countLines with refCountLines: the
// long texts, and short ones where every kind of character meets every
// other.
func lineTexts() []string {
	var out []string
	for _, s := range longTexts() {
		out = append(out, s)
	}
	pieces := []string{"a", "word", "x", "longerword" + strings.Repeat("y", 70), " ", "  ", "\n", "\n\n", "\t", "\r\n", "\v", "\f",
		"中文", "法院", "ｆｕｌｌ", "한국어", "𝄞", "é", "e\u0301", "\u00a0", "\u0085", "\u2028", "\u3000", "\u200b", "\xff", "\xe4\xb8", ".", "—", "…"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		var b strings.Builder
		for k := r.IntN(40); k >= 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestCountLinesAsBefore: countLines counts exactly as refCountLines,
// whatever the width and the limit.
func TestCountLinesAsBefore(t *testing.T) {
	widths := []float64{0, 1, 2, 3, 8, 16, 30, 60, 100, 255}
	limits := []int{-1, 0, 1, 2, 3, 5, maxLines, 8 * maxLines, 1000}
	for _, s := range lineTexts() {
		for _, w := range widths {
			for _, l := range limits {
				if got, want := countLines(s, w, l), refCountLines(s, w, l); got != want {
					t.Fatalf("%.60q (%d bytes), width %g, limit %d: countLines %d, refCountLines %d", s, len(s), w, l, got, want)
				}
			}
		}
	}
}

func FuzzCountLines(f *testing.F) {
	for _, s := range lineTexts()[:200] {
		f.Add(s, 30.0, maxLines)
	}
	f.Add("a b\n中文 𝄞", 1.0, 0)
	f.Fuzz(func(t *testing.T, s string, w float64, limit int) {
		if w != w || w < 0 || w > 1000 || limit < -1 || limit > 100000 {
			return
		}
		if got, want := countLines(s, w, limit), refCountLines(s, w, limit); got != want {
			t.Errorf("%q, width %g, limit %d: countLines %d, refCountLines %d", s, w, limit, got, want)
		}
	})
}

// BenchmarkCountLines counts the lines of the contexts of a legal-gaps
// row: prose, in columns 60 wide.
func BenchmarkCountLines(b *testing.B) {
	s := strings.Repeat("The court held that the plan administrator’s reading was reasonable. ", 45)
	for _, c := range []struct {
		name string
		fn   func(string, float64, int) int
	}{{"bytewise", countLines}, {"runewise", refCountLines}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for range b.N {
				c.fn(s, 60, maxLines)
			}
		})
	}
}
