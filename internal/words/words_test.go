package words

import "testing"

func TestCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "unit", "1 unit"},
		{0, "unit", "0 units"},
		{2, "error", "2 errors"},
		{1, "warning", "1 warning"},
		{3, "match", "3 matches"},
		{2, "pass", "2 passes"},
		{2, "copy", "2 copies"},
		{2, "day", "2 days"},
		{2, "corrected answer", "2 corrected answers"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

func TestSome(t *testing.T) {
	t.Parallel()
	abc := []string{"a", "b", "c"}
	for _, c := range []struct {
		items []string
		most  int
		want  string
	}{
		{nil, 3, ""},
		{abc, 3, "a, b, c"},
		{abc, 4, "a, b, c"},
		{abc, 2, "a, b and 1 more"},
		{abc, 1, "a and 2 more"},
		{abc, 0, "a and 2 more"},
	} {
		if got := Some(c.items, c.most); got != c.want {
			t.Errorf("Some(%q, %d) = %q, want %q", c.items, c.most, got, c.want)
		}
	}
}

func TestPick(t *testing.T) {
	t.Parallel()
	if got := Pick(1, "is", "are") + " " + Pick(0, "is", "are") + " " + Pick(2, "it", "they"); got != "is are they" {
		t.Errorf("Pick: %q", got)
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1_000_000: "1,000,000", 12345: "12,345", -1234567: "-1,234,567"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{"", ""},
		{"one two three", "one two\n  three"},
		{"  one   two ", "one two"},
		{"unbreakableword x", "unbreakableword\n  x"},
		{"a b c d e f", "a b c d\n  e f"},
	} {
		if got := Wrap(tc.text, 7, "  "); got != tc.want {
			t.Errorf("Wrap(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
