package filename

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestPart(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 300)
	cases := []struct{ id, want string }{
		{"ak", "ak"},
		{"ann1@example.org", "ann1@example.org"},
		{"a/b", "a_b"},
		{`a\b:c*d?e"f<g>h|i`, "a_b_c_d_e_f_g_h_i"},
		{"../../etc", "_._.._etc"},
		{"..", "__"},
		{".", "_"},
		{"", "_"},
		{"tab\there", "tab_here"},
		{"trailing.", "trailing_"},
		{"Zoë", "Zoë"},
		{"Zoe\u0308", "Zoë"}, // decomposed: NFC
		{"\u202eevil", "_evil"},
	}
	for _, c := range cases {
		if got := Part(c.id); got != c.want {
			t.Errorf("Part(%q) = %q, want %q", c.id, got, c.want)
		}
	}
	p := Part(long)
	if len(p) != MaxPart || !strings.HasPrefix(p, strings.Repeat("x", MaxPart-9)+"-") {
		t.Errorf("Part of 300 x's = %q (%d bytes)", p, len(p))
	}
	if q := Part(long + "y"); q == p || len(q) != MaxPart {
		t.Errorf("two long IDs with one beginning share %q", p)
	}
	// A cut never splits a character.
	wide := strings.Repeat("é", 100)
	if w := Part(wide); len(w) > MaxPart || !utf8.ValidString(w) {
		t.Errorf("Part of 100 é's = %q (%d bytes)", w, len(w))
	}
}

func TestParts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ids  []string
		want map[string]string
		err  *CollisionError
	}{
		{ids: []string{"ak", "bt", "ak"}, want: map[string]string{"ak": "ak", "bt": "bt"}},
		{ids: []string{"a/b", "a_b"}, err: &CollisionError{A: "a/b", B: "a_b", Name: "a_b"}},
		{ids: []string{"AK", "ak"}, err: &CollisionError{A: "AK", B: "ak", Name: "ak"}},
		{ids: []string{"Zoë", "Zoe\u0308"}, err: &CollisionError{A: "Zoë", B: "Zoe\u0308", Name: "Zoë"}},
		{ids: []string{strings.Repeat("a", 300), strings.Repeat("a", 301)}, want: map[string]string{
			strings.Repeat("a", 300): Part(strings.Repeat("a", 300)), strings.Repeat("a", 301): Part(strings.Repeat("a", 301))}},
	}
	for _, c := range cases {
		got, err := Parts(c.ids)
		var ce *CollisionError
		if c.err != nil {
			if !errors.As(err, &ce) || !errors.Is(err, ErrCollision) {
				t.Errorf("Parts(%q): err %v, want a collision", c.ids, err)
				continue
			}
			if diff := cmp.Diff(c.err, ce); diff != "" {
				t.Errorf("Parts(%q) (-want +got):\n%s", c.ids, diff)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parts(%q): %v", c.ids, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Parts(%q) (-want +got):\n%s", c.ids, diff)
		}
	}
}

func TestUnique(t *testing.T) {
	t.Parallel()
	if err := Unique([]string{"legal-gaps-ak-b01.xlsx", "legal-gaps-bt-b01.xlsx"}); err != nil {
		t.Error(err)
	}
	for _, names := range [][]string{
		{"legal-gaps-AK-b01.xlsx", "legal-gaps-ak-b01.xlsx"},
		{"x.xlsx", "x.xlsx"},
	} {
		if err := Unique(names); !errors.Is(err, ErrCollision) {
			t.Errorf("Unique(%q) = %v, want a collision", names, err)
		}
	}
}
