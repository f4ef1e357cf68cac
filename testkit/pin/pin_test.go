package pin

import "testing"

func TestText(t *testing.T) {
	t.Parallel()
	long := "abcdefghijklmnopqrstuvwxyz"
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, `"short"`},
		{"exactly10!", 10, `"exactly10!"`},
		{long, 12, `"abcdefgh"… (26 characters, sha256 71c480df93d6ae2f)`},
		{"ééééééé", 3, `"éé"… (7 characters, sha256 9fe8fcb1017c231d)`},
	} {
		if got := Text(c.s, c.max); got != c.want {
			t.Errorf("Text(%q, %d) = %s, want %s", c.s, c.max, got, c.want)
		}
	}
	// An edit past the prefix that keeps the length still changes the pin.
	a, b := Text(long, 12), Text(long[:20]+"ZZZZZZ", 12)
	if a == b {
		t.Errorf("an edit past the prefix left the pin as it was: %s", a)
	}
}
