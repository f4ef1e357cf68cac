package input

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// slowDecode is what decodeRecord did before fastDecode: encoding/json's
// Decoder with UseNumber, white space only after the value.
func slowDecode(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, len(bytes.TrimSpace(b[d.InputOffset():])) == 0
}

// checkFastDecode holds fastDecode to encoding/json: it decodes exactly
// what encoding/json decodes, to the same value, and nothing else.
func checkFastDecode(t *testing.T, b []byte) {
	t.Helper()
	want, wantOK := slowDecode(b)
	got, ok := fastDecode(b)
	switch {
	case ok != wantOK:
		t.Fatalf("%q: fastDecode ok %v, encoding/json ok %v", b, ok, wantOK)
	case ok && !reflect.DeepEqual(got, want):
		t.Fatalf("%q:\nfastDecode    %#v\nencoding/json %#v", b, got, want)
	}
}

var fastDecodeCases = []string{
	`{"id": "a1", "text": "plain", "n": 3, "x": -0.5e+10, "ok": true, "no": false, "none": null, "list": [1, "two", [], {}]}`,
	" \t\r\n{}\n ",
	`"top"`, `12`, `-0`, `0.25`, `1E9`, `1e-2`, `true`, `null`,
	// Escapes, the kinds Python's ensure_ascii writes among them.
	`{"t": "caf\u00e9 \"quoted\" back\\slash \/ \b\f\n\r\t"}`,
	`"\ud83d\ude00 pair"`, `"\uD83D\uDE00 upper"`,
	`"\ud800 lone high"`, `"\udc00 lone low"`, `"\ud800\u0041 high then A"`, `"\ud800\ud800\udc00"`,
	`"\ud800\u00"`, `"\ud800\"`, `"\ud800\`,
	"\"raw \xe9 latin-1 byte\"", "\"\xff\xfe\"", "\"\xef\xbf\xbd replacement\"", "\"caf\xc3\xa9\"",
	"{\"k\xff\": 1}", `{"a": 1, "a": 2}`,
	// What encoding/json refuses.
	``, `   `, `{`, `[`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{1: 2}`, `{'a': 1}`,
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`, `Infinity`, `tru`, `truex`, `nul`,
	"\"tab\tinside\"", "\"new\nline\"", `"\x"`, `"\u12"`, `"\u12G4"`, `"unterminated`,
	`{} {}`, `{}x`, `1 2`, `[] ,`, "{}\u00a0", "{}\x00", "\xef\xbb\xbf{}",
	`{"a": [1, {"b": [true, null]}]}]`,
}

func TestFastDecode(t *testing.T) {
	t.Parallel()
	for _, c := range fastDecodeCases {
		checkFastDecode(t, []byte(c))
	}
	// Nesting at encoding/json's limit and past it.
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		checkFastDecode(t, []byte(strings.Repeat("[", depth)+strings.Repeat("]", depth)))
		checkFastDecode(t, []byte(strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth)))
	}
	// Real records, whole, and the first cut short at each of its first
	// 2,000 bytes, then at every 101st.
	data, err := os.ReadFile("../examples/legal-gaps.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	for _, line := range lines {
		checkFastDecode(t, line)
		if _, ok := fastDecode(line); !ok && len(bytes.TrimSpace(line)) > 0 {
			t.Errorf("a record of the example was not decoded: %.60q", line)
		}
	}
	for i := 0; i < len(lines[0]); i++ {
		checkFastDecode(t, lines[0][:i])
		if i >= 2000 {
			i += 100
		}
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, c := range fastDecodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFastDecode(t, b)
	})
}
