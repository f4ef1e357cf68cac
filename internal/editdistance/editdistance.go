// Package editdistance computes the Levenshtein distance: between
// template field names, to suggest one, and between free-text answers,
// for their agreement.
package editdistance

// Levenshtein is the least number of insertions, deletions and
// substitutions of one element that turn a into b (Levenshtein, V. I.
// (1966). "Binary codes capable of correcting deletions, insertions, and
// reversals", Soviet Physics Doklady 10(8)), computed in two rows of the
// dynamic programme.
func Levenshtein[T comparable](a, b []T) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest are the candidates a mistyped word most likely meant: those at
// the least Levenshtein distance from it, when that is at most 2 and less
// than the word's length, counting a candidate that the word begins with,
// or that begins with the word, of at least three letters each, as at
// distance 2 ("output" for "out"). Candidates keep their order; none is
// returned when none is close.
func Closest(word string, candidates []string) []string {
	w := []rune(word)
	best := -1
	var out []string
	for _, c := range candidates {
		r := []rune(c)
		d := Levenshtein(w, r)
		short, long := w, r
		if len(short) > len(long) {
			short, long = long, short
		}
		if len(short) >= 3 && string(long[:len(short)]) == string(short) {
			d = min(d, 2)
		}
		if d == 0 || d > 2 || d >= len(w) {
			continue
		}
		switch {
		case best < 0 || d < best:
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	return out
}
