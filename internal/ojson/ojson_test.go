package ojson

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestRoundTripRealFiles reads the real data files and writes them back in
// their detected style: the bytes must not change.
func TestRoundTripRealFiles(t *testing.T) {
	for _, name := range []string{
		"../../testdata/data/preference/preference_json_1.json",
		"../../testdata/data/qa-feedback/dev_feedback.sample.json",
	} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Marshal(v, DetectStyle(data))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, data) {
			i := 0
			for i < len(out) && i < len(data) && out[i] == data[i] {
				i++
			}
			t.Errorf("%s: differs at byte %d: %q vs %q", name, i, out[i:min(i+40, len(out))], data[i:min(i+40, len(data))])
		}
	}
}

func TestMarshalStyles(t *testing.T) {
	o := NewObject()
	o.Set("b", json.Number("1"))
	o.Set("a", []any{"é😀", nil, true, "<&>", "\x01"})
	o.Set("b", json.Number("2"))
	o.Set("e", NewObject())
	o.Set("g", map[string]any{"z": 1, "y": []int{}})
	cases := []struct {
		s    Style
		want string
	}{
		{Style{}, `{"b":2,"a":["é😀",null,true,"<&>","\u0001"],"e":{},"g":{"y":[],"z":1}}`},
		{Style{ASCII: true}, `{"b":2,"a":["\u00e9\ud83d\ude00",null,true,"<&>","\u0001"],"e":{},"g":{"y":[],"z":1}}`},
		{Style{Spaced: true}, `{"b": 2, "a": ["é😀", null, true, "<&>", "\u0001"], "e": {}, "g": {"y": [], "z": 1}}`},
		{Style{Indent: " ", Newline: true}, "{\n \"b\": 2,\n \"a\": [\n  \"é😀\",\n  null,\n  true,\n  \"<&>\",\n  \"\\u0001\"\n ],\n \"e\": {},\n \"g\": {\n  \"y\": [],\n  \"z\": 1\n }\n}\n"},
	}
	for _, c := range cases {
		got, err := Marshal(o, c.s)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("style %+v:\n got %s\nwant %s", c.s, got, c.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{`{"a":`, `[1,]`, `{"a":1}x`, ``} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestReplacementCharacter(t *testing.T) {
	got, err := Marshal([]any{"a\ufffdb", "c\xffd"}, Style{})
	if err != nil {
		t.Fatal(err)
	}
	// A real U+FFFD is written as itself, as Python does; an invalid byte
	// as its escape.
	if want := "[\"a\ufffdb\",\"c\\ufffdd\"]"; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestDetectStyle(t *testing.T) {
	cases := map[string]Style{
		"{\"id\": \"a\", \"n\": [1, 2]}\n{\"id\": \"b\"}\n": {Spaced: true, Newline: true},
		"{\"id\":\"a\"}\n":             {Newline: true},
		"[\n  {\"a\": \"\\u00e9\"}\n]": {Indent: "  ", ASCII: true},
	}
	for in, want := range cases {
		if got := DetectStyle([]byte(in)); got != want {
			t.Errorf("%q: %+v, want %+v", in, got, want)
		}
	}
}
