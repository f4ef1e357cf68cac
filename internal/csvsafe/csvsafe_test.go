package csvsafe

import "testing"

func TestText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, text, field string }{
		{"", "", ""},
		{"plain", "plain", "plain"},
		{"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
		{"+1", "'+1", "+1"},
		{"-1", "'-1", "-1"},
		{"-0.25", "'-0.25", "-0.25"},
		{"@SUM(1)", "'@SUM(1)", "'@SUM(1)"},
		{"\t=1", "'\t=1", "'\t=1"},
		{"\r=1", "'\r=1", "'\r=1"},
		{"a=1", "a=1", "a=1"},
		{"'quoted", "'quoted", "'quoted"},
		{"-", "'-", "'-"},
		{"+inf", "'+inf", "'+inf"},
		{"-Inf", "'-Inf", "'-Inf"},
		{"-0x1p3", "'-0x1p3", "'-0x1p3"},
		{"-1e-07", "'-1e-07", "-1e-07"},
		{"0.5", "0.5", "0.5"},
	} {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Field(c.in); got != c.field {
			t.Errorf("Field(%q) = %q, want %q", c.in, got, c.field)
		}
	}
}
