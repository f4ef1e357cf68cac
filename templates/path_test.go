package templates

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Shorthands for the steps of a path.
func sk(k string) Seg     { return Seg{Kind: SegKey, Key: k} }
func si(n int) Seg        { return Seg{Kind: SegIndex, Index: n} }
func sa() Seg             { return Seg{Kind: SegAll} }
func segs(s ...Seg) []Seg { return s }

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		root string
		segs []Seg
	}{
		{"id", "", segs(sk("id"))},
		{"previous_context", "", segs(sk("previous_context"))},
		{"prediction 1", "", segs(sk("prediction 1"))},
		{"feedback.errors[0].start", "", segs(sk("feedback"), sk("errors"), si(0), sk("start"))},
		{`["a.b"]`, "", segs(sk("a.b"))},
		{`["a.b"].c`, "", segs(sk("a.b"), sk("c"))},
		{`a["x]y"]`, "", segs(sk("a"), sk("x]y"))},
		{`a["{b}"]`, "", segs(sk("a"), sk("{b}"))},
		{`a["q\"]"]`, "", segs(sk("a"), sk(`q"]`))},
		{`[""]`, "", segs(sk(""))},
		{"a[-1]", "", segs(sk("a"), si(-1))},
		{"a[12][-3]", "", segs(sk("a"), si(12), si(-3))},
		{"passages[*]", "", segs(sk("passages"), sa())},
		{"a[*].b[*][0]", "", segs(sk("a"), sa(), sk("b"), sa(), si(0))},
		{"@x", "", segs(sk("@x"))}, // not the element root: a key that starts with @
		{"@", "@", nil},
		{"@.x", "@", segs(sk("x"))},
		{"@.text.value", "@", segs(sk("text"), sk("value"))},
		{"@[0]", "@", segs(si(0))},
		{`@["evaluator name"]`, "@", segs(sk("evaluator name"))},
		{"$", "$", nil},
		{"$.title", "$", segs(sk("title"))},
		{"$[1]", "$", segs(si(1))},
		{"$id", "$id", nil},
		{"$key", "$key", nil},
		{"$i", "$i", nil},
		{"$n", "$n", nil},
		{"$i2", "$i2", nil},
		{"$n1", "$n1", nil},
	}
	for _, tt := range tests {
		p, err := ParsePath(tt.in)
		if err != nil {
			t.Errorf("ParsePath(%q): %v", tt.in, err)
			continue
		}
		if p.Root != tt.root || !reflect.DeepEqual(p.Segs, tt.segs) {
			t.Errorf("ParsePath(%q) = root %q segs %#v; want root %q segs %#v", tt.in, p.Root, p.Segs, tt.root, tt.segs)
		}
		if p.String() != tt.in {
			t.Errorf("ParsePath(%q).String() = %q", tt.in, p.String())
		}
		if p.IsZero() {
			t.Errorf("ParsePath(%q).IsZero() = true", tt.in)
		}
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct {
		in, err string
	}{
		{"", "empty path"},
		{"   ", "empty path"},
		{"a..b", `path "a..b": empty key`},
		{"a.", `path "a.": empty key`},
		{".a", `path ".a": empty key`},
		{"@.", `path "@.": empty key`},
		{"a[", `path "a[": missing ]`},
		{`a["b]`, `path "a[\"b]": missing ]`},
		{"a[]", `path "a[]": [] is neither an index, * nor a quoted key`},
		{"a[x]", `path "a[x]": [x] is neither an index, * nor a quoted key`},
		{"a[1.5]", `path "a[1.5]": [1.5] is neither an index, * nor a quoted key`},
		{"a['b']", `path "a['b']": ['b'] is neither an index, * nor a quoted key`},
		{`a["b\q"]`, `path "a[\"b\\q\"]": bad quoted key "b\q"`},
		{"a[0]b", `path "a[0]b": unexpected "b"`},
		{"a}b", `path "a}b": key "a}b" has a bracket or brace; quote it as ["..."]`},
		{"a{b", `path "a{b": key "a{b" has a bracket or brace; quote it as ["..."]`},
		{"a]", `path "a]": key "a]" has a bracket or brace; quote it as ["..."]`},
		{"$$", `path "$$": "$$" is not a variable name`},
		{"$-x", `path "$-x": "$-x" is not a variable name`},
		{"$id.x", `path "$id.x": variable $id takes no keys`},
		{"$i[0]", `path "$i[0]": variable $i takes no keys`},
		{"$key[*]", `path "$key[*]": variable $key takes no keys`},
	}
	for _, tt := range tests {
		_, err := ParsePath(tt.in)
		if err == nil {
			t.Errorf("ParsePath(%q) succeeded; want error %q", tt.in, tt.err)
			continue
		}
		if err.Error() != tt.err {
			t.Errorf("ParsePath(%q) error:\n got %s\nwant %s", tt.in, err, tt.err)
		}
	}
}

func TestPathZero(t *testing.T) {
	if !(Path{}).IsZero() || (Path{}).String() != "" {
		t.Errorf("the zero Path is not zero: %q", Path{}.String())
	}
}

// decodeJSON decodes s the way input readers do: numbers stay json.Number.
func decodeJSON(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

const lookupRecord = `{
	"id": "r1",
	"prediction 1": "The answer.",
	"a.b": {"c": 1},
	"n": 1.50,
	"big": 12345678901234567890,
	"ok": true,
	"no": false,
	"none": null,
	"list": [10, 20, 30],
	"objs": [{"x": 1}, {"y": 2}, {"x": 3, "y": [4]}],
	"nested": [[1, 2], [3]],
	"obj": {"k": ["v", 2.0, false, null, {"z": "w"}]},
	"empty": []
}`

func TestLookup(t *testing.T) {
	rec := decodeJSON(t, lookupRecord)
	elem := rec.(map[string]any)["objs"].([]any)[2]
	env := func(root string) (any, bool) {
		switch root {
		case "":
			return rec, true
		case "@":
			return elem, true
		case "$":
			return "the item", true
		case "$id":
			return "r1", true
		case "$i":
			return json.Number("7"), true
		}
		return nil, false
	}
	n := func(s string) json.Number { return json.Number(s) }
	tests := []struct {
		path string
		want any
		ok   bool
		text string
	}{
		{"id", "r1", true, "r1"},
		{"prediction 1", "The answer.", true, "The answer."},
		{`["a.b"].c`, n("1"), true, "1"},
		{`["a.b"]`, map[string]any{"c": n("1")}, true, `{"c":1}`},
		{"n", n("1.50"), true, "1.50"},
		{"big", n("12345678901234567890"), true, "12345678901234567890"},
		{"ok", true, true, "true"},
		{"no", false, true, "false"},
		{"none", nil, true, ""},
		{"list", []any{n("10"), n("20"), n("30")}, true, "[10,20,30]"},
		{"list[0]", n("10"), true, "10"},
		{"list[2]", n("30"), true, "30"},
		{"list[-1]", n("30"), true, "30"},
		{"list[-3]", n("10"), true, "10"},
		{"list[*]", []any{n("10"), n("20"), n("30")}, true, "[10,20,30]"},
		{"objs[*].x", []any{n("1"), n("3")}, true, "[1,3]"},
		{"objs[*].y[0]", []any{n("4")}, true, "[4]"},
		{"objs[*].nothing", []any{}, true, "[]"},
		{"objs[1]", map[string]any{"y": n("2")}, true, `{"y":2}`},
		{"nested[*][*]", []any{[]any{n("1"), n("2")}, []any{n("3")}}, true, "[[1,2],[3]]"},
		{"nested[*][1]", []any{n("2")}, true, "[2]"},
		{"nested[-1][0]", n("3"), true, "3"},
		{"obj.k", []any{"v", n("2.0"), false, nil, map[string]any{"z": "w"}}, true, `["v",2.0,false,null,{"z":"w"}]`},
		{"obj.k[4].z", "w", true, "w"},
		{"empty", []any{}, true, "[]"},
		{"empty[*]", []any{}, true, "[]"},
		{"@", map[string]any{"x": n("3"), "y": []any{n("4")}}, true, `{"x":3,"y":[4]}`},
		{"@.x", n("3"), true, "3"},
		{"@.y[-1]", n("4"), true, "4"},
		{"$", "the item", true, "the item"},
		{"$id", "r1", true, "r1"},
		{"$i", n("7"), true, "7"},

		// Missing keys, out-of-range indexes, wrong shapes, missing roots.
		{"missing", nil, false, ""},
		{"obj.missing", nil, false, ""},
		{"ID", nil, false, ""},
		{"a", nil, false, ""},
		{"a.b.c", nil, false, ""},
		{"list[3]", nil, false, ""},
		{"list[-4]", nil, false, ""},
		{"empty[0]", nil, false, ""},
		{"empty[-1]", nil, false, ""},
		{"id[0]", nil, false, ""},
		{"id.x", nil, false, ""},
		{"list.x", nil, false, ""},
		{"obj[0]", nil, false, ""},
		{"obj[*]", nil, false, ""},
		{"none.x", nil, false, ""},
		{"none[*]", nil, false, ""},
		{"$.title", nil, false, ""},
		{"@.z", nil, false, ""},
		{"$n", nil, false, ""},
		{"$key", nil, false, ""},
	}
	for _, tt := range tests {
		p, err := ParsePath(tt.path)
		if err != nil {
			t.Fatalf("ParsePath(%q): %v", tt.path, err)
		}
		got, ok := p.Lookup(env)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Lookup(%q) = %#v, %v; want %#v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
		if s := Text(got); s != tt.text {
			t.Errorf("Text(Lookup(%q)) = %q; want %q", tt.path, s, tt.text)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{nil, ""},
		{"", ""},
		{"plain text\nwith a line", "plain text\nwith a line"},
		{json.Number("007"), "007"},
		{json.Number("-1.50e3"), "-1.50e3"},
		{true, "true"},
		{false, "false"},
		{42, "42"},
		{int64(-9007199254740993), "-9007199254740993"},
		{0.1, "0.1"},
		{1e21, "1e+21"},
		{float64(3), "3"},
		{[]any{}, "[]"},
		{map[string]any{}, "{}"},
		{[]any{"a", json.Number("1"), nil, true}, `["a",1,null,true]`},
		{map[string]any{"b": []any{json.Number("2")}, "a": map[string]any{"c": nil}}, `{"a":{"c":null},"b":[2]}`},
		{[]any{[]any{"x"}, []any{}}, `[["x"],[]]`},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%#v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestTextKeepsCharacters: Text renders lists and objects for a cell that a
// person reads, so characters must come out as they are, not with
// encoding/json's default HTML escaping ("&" as \u0026, "<" as \u003c).
func TestTextKeepsCharacters(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{[]any{"Smith & Jones <2020>"}, `["Smith & Jones <2020>"]`},
		{map[string]any{"cite": "A > B"}, `{"cite":"A > B"}`},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%#v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
