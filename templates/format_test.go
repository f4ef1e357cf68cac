package templates

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// formatEnv is a record and the variables a format may read.
func formatEnv(t testing.TB) Env {
	rec := decodeJSON(t, `{
		"id": "r1",
		"doc": "news-7",
		"seg": 3,
		"score": 1.5,
		"neg": -5,
		"prediction 1": "an answer",
		"a.b": {"c": "dotted"},
		"list": ["x", "y"],
		"none": null,
		"a:b": "colon"
	}`)
	return func(root string) (any, bool) {
		switch root {
		case "":
			return rec, true
		case "$id":
			return "r1", true
		case "$i":
			return json.Number("7"), true
		case "$n":
			return 8, true
		case "$key":
			return "topic", true
		case "$":
			return "item", true
		}
		return nil, false
	}
}

func TestFormatRender(t *testing.T) {
	env := formatEnv(t)
	tests := []struct {
		format string
		paths  []string
		want   string
	}{
		{"", nil, ""},
		{"plain text", nil, "plain text"},
		{"{{", nil, "{"},
		{"}}", nil, "}"},
		{"{{literal}}", nil, "{literal}"},
		{"a{{b}}c{id}", []string{"id"}, "a{b}cr1"},
		{"{{{id}}}", []string{"id"}, "{r1}"},
		{"{id}", []string{"id"}, "r1"},
		{"{ id }", []string{"id"}, "r1"},
		{"{id}{id}", []string{"id", "id"}, "r1r1"},
		{"{$id}#{$n}", []string{"$id", "$n"}, "r1#8"},
		{"{$key}", []string{"$key"}, "topic"},
		{"[{$}]", []string{"$"}, "[item]"},
		{"{prediction 1}", []string{"prediction 1"}, "an answer"},
		{`{["a.b"].c}`, []string{`["a.b"].c`}, "dotted"},
		{`{["a:b"]}`, []string{`["a:b"]`}, "colon"},
		{"{a:b}", []string{"a:b"}, "colon"}, // ":b" is no pad width, so the key is "a:b"
		{"{list[-1]}/{list}", []string{"list[-1]", "list"}, `y/["x","y"]`},
		{"<{none}>", []string{"none"}, "<>"},
		{"{doc}-{seg:03}", []string{"doc", "seg"}, "news-7-003"},

		// Padding: zeros up to the width, for digits only, never cutting.
		{"q{$i:04}", []string{"$i"}, "q0007"},
		{"q{$i:4}", []string{"$i"}, "q0007"},
		{"q{$i:01}", []string{"$i"}, "q7"},
		{"q{$i:00}", []string{"$i"}, "q7"},
		{"{$n:2}", []string{"$n"}, "08"},
		{"{seg:032}", []string{"seg"}, strings.Repeat("0", 31) + "3"},
		{"{id:04}", []string{"id"}, "r1"},
		{"{score:04}", []string{"score"}, "1.5"},
		{"{neg:04}", []string{"neg"}, "-5"},
		{"{$id:1}", []string{"$id"}, "r1"},
	}
	for _, tt := range tests {
		f, err := ParseFormat(tt.format)
		if err != nil {
			t.Errorf("ParseFormat(%q): %v", tt.format, err)
			continue
		}
		if f.String() != tt.format {
			t.Errorf("ParseFormat(%q).String() = %q", tt.format, f.String())
		}
		if f.IsZero() != (tt.format == "") {
			t.Errorf("ParseFormat(%q).IsZero() = %v", tt.format, f.IsZero())
		}
		var paths []string
		for _, p := range f.Paths() {
			paths = append(paths, p.String())
		}
		if !reflect.DeepEqual(paths, tt.paths) {
			t.Errorf("ParseFormat(%q).Paths() = %q; want %q", tt.format, paths, tt.paths)
		}
		got, err := f.Render(env)
		if err != nil {
			t.Errorf("ParseFormat(%q).Render: %v", tt.format, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseFormat(%q).Render = %q; want %q", tt.format, got, tt.want)
		}
	}
}

func TestFormatRenderMissing(t *testing.T) {
	env := formatEnv(t)
	tests := []struct {
		format, path string
	}{
		{"{missing}", "missing"},
		{"id {id}, then {nothing.here}", "nothing.here"},
		{"{list[2]}", "list[2]"},
		{"{id.x}", "id.x"},
		{"{$n1}", "$n1"},
		{"{@.text}", "@.text"},
		{"{first} {second}", "first"}, // the first missing path is the one reported
	}
	for _, tt := range tests {
		f, err := ParseFormat(tt.format)
		if err != nil {
			t.Fatalf("ParseFormat(%q): %v", tt.format, err)
		}
		got, err := f.Render(env)
		var me *MissingError
		if !errors.As(err, &me) {
			t.Errorf("ParseFormat(%q).Render = %q, %v; want a *MissingError", tt.format, got, err)
			continue
		}
		if got != "" || me.Path != tt.path {
			t.Errorf("ParseFormat(%q).Render = %q, missing %q; want \"\", missing %q", tt.format, got, me.Path, tt.path)
		}
		if want := `no field "` + tt.path + `"`; err.Error() != want {
			t.Errorf("ParseFormat(%q).Render error %q; want %q", tt.format, err, want)
		}
	}
}

func TestParseFormatErrors(t *testing.T) {
	tests := []struct {
		in, err string
	}{
		{"{id", `format "{id": { without }; write {{ for a brace`},
		{"a{", `format "a{": { without }; write {{ for a brace`},
		{"{{{", `format "{{{": { without }; write {{ for a brace`},
		{"id}", `format "id}": } without {; write }} for a brace`},
		{"}", `format "}": } without {; write }} for a brace`},
		{"{id}}", `format "{id}}": } without {; write }} for a brace`},
		{"}}}", `format "}}}": } without {; write }} for a brace`},
		{"{a:33}", `format "{a:33}": pad width 33 is over 32`},
		{"q{$i:040}", `format "q{$i:040}": pad width 40 is over 32`},
		{"{a:99999999999999999999}", `format "{a:99999999999999999999}": pad width 9223372036854775807 is over 32`},
		{"{}", `format "{}": empty path`},
		{"{ }", `format "{ }": empty path`},
		{"{:04}", `format "{:04}": empty path`},
		{"{a..b}", `format "{a..b}": path "a..b": empty key`},
		{"{$id.x}", `format "{$id.x}": path "$id.x": variable $id takes no keys`},
		{"{a[x]}", `format "{a[x]}": path "a[x]": [x] is neither an index, * nor a quoted key`},
		{"{$}{$$}", `format "{$}{$$}": path "$$": "$$" is not a variable name`},
	}
	for _, tt := range tests {
		_, err := ParseFormat(tt.in)
		if err == nil {
			t.Errorf("ParseFormat(%q) succeeded; want error %q", tt.in, tt.err)
			continue
		}
		if err.Error() != tt.err {
			t.Errorf("ParseFormat(%q) error:\n got %s\nwant %s", tt.in, err, tt.err)
		}
	}
}

// TestFormatQuotedKeyWithBrace: ParsePath tells the user to quote a key that
// has a brace (`["a}b"]`), but a format ends the placeholder at the first }
// even inside the quotes, so such a key cannot be read by any format (input
// id, join item, rows unit, bands key).
func TestFormatQuotedKeyWithBrace(t *testing.T) {
	if _, err := ParsePath(`["a}b"]`); err != nil {
		t.Fatalf("ParsePath: %v", err)
	}
	f, err := ParseFormat(`x{["a}b"]}y`)
	if err != nil {
		t.Fatalf("ParseFormat(%q): %v", `x{["a}b"]}y`, err)
	}
	rec := map[string]any{"a}b": "v"}
	got, err := f.Render(func(string) (any, bool) { return rec, true })
	if err != nil || got != "xvy" {
		t.Errorf("Render = %q, %v; want \"xvy\"", got, err)
	}
}
