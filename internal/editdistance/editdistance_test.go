package editdistance

import (
	"slices"
	"testing"
)

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"level", "levels", 1},
		{"héllo", "hello", 1}, // one code point, two bytes
	}
	for _, tt := range tests {
		for _, ab := range [][2]string{{tt.a, tt.b}, {tt.b, tt.a}} {
			if got := Levenshtein([]rune(ab[0]), []rune(ab[1])); got != tt.want {
				t.Errorf("Levenshtein(%q, %q) = %d, want %d", ab[0], ab[1], got, tt.want)
			}
		}
	}
	if got := Levenshtein([]byte("héllo"), []byte("hello")); got != 2 {
		t.Errorf("Levenshtein over bytes of héllo and hello = %d, want 2", got)
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	flags := []string{"out", "report", "strict", "template", "endpoint", "no-auth"}
	for _, c := range []struct {
		word string
		want []string
	}{
		{"output", []string{"out"}},
		{"templat", []string{"template"}},
		{"stric", []string{"strict"}},
		{"reprot", []string{"report"}},
		{"o", nil},
		{"verbose", nil},
		{"out", nil}, // itself: nothing to suggest
	} {
		if got := Closest(c.word, flags); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got := Closest("bbt", []string{"bb", "ak", "bt"}); !slices.Equal(got, []string{"bb", "bt"}) {
		t.Errorf("Closest(bbt) = %q, want both at distance 1", got)
	}
}
