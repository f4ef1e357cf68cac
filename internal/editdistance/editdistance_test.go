package editdistance

import "testing"

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
