package suggest

import "testing"

func TestWords(t *testing.T) {
	t.Parallel()
	decisions := []string{"accept", "reject", "edit"}
	for _, c := range []struct{ value, want string }{
		{"acept", `; did you mean "accept"?`},
		{"  REJECT  d", `; did you mean "reject"?`},
		{"maybe", ""},
		{"", ""},
		{"edit", ""}, // the word itself is no slip
	} {
		if got := Words(c.value, decisions); got != c.want {
			t.Errorf("Words(%q) = %q, want %q", c.value, got, c.want)
		}
	}
	if got, want := Fold("  Ａ\u0301  b\tC "), "ａ́ b c"; got != want {
		t.Errorf("Fold = %q, want %q", got, want)
	}
}
