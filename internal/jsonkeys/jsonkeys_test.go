package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestDuplicate(t *testing.T) {
	t.Parallel()
	record := FoldOutside("values")
	for _, c := range []struct {
		name, json string
		fold       Fold
		want       string // "" for none
	}{
		{"none", `{"unit":"a","values":{"gaps":["1"],"note":"x"}}`, record, ""},
		{"a key twice", `{"unit":"a","status":"complete","unit":"b"}`, record, `the key "unit" is given twice`},
		{"a key twice, escaped", `{"unit":"a","\u0075nit":"b"}`, record, `the key "unit" is given twice`},
		{"case folded in a struct", `{"unit":"a","Unit":"b"}`, record, `the keys "unit" and "Unit" name one field`},
		{"case kept in a map", `{"values":{"note":"a","Note":"b"}}`, record, ""},
		{"twice in a map", `{"values":{"gaps":["1"],"gaps":["2"]}}`, record, `the key "gaps" is given twice in values`},
		{"in a list of objects", `{"spans":[{"row":2},{"row":3,"code":"x","row":4}]}`, record, `the key "row" is given twice in spans[1]`},
		{"inside a map's value", `{"values":{"q":{"field":"a","field":"b"}}}`, record, `the key "field" is given twice in values.q`},
		{"exact everywhere", `{"Study":"a","study":"b"}`, Never, ""},
		{"not JSON", `{"unit":`, record, ""},
		{"nested arrays", `[[{"a":1}],[{"b":1,"b":2}]]`, Never, `the key "b" is given twice in [1][0]`},
	} {
		d, ok := Duplicate([]byte(c.json), c.fold)
		got := ""
		if ok {
			got = d.String()
			if !strings.HasPrefix(c.json[d.Offset:], `"`) {
				t.Errorf("%s: offset %d is not at a key: %q", c.name, d.Offset, c.json[d.Offset:])
			}
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// duplicateByTokens is the reference: encoding/json's tokens, keys
// compared exactly.
func duplicateByTokens(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber() // a number past float64's range is still JSON
	var stack []map[string]bool
	var expectKey []bool
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, map[string]bool{})
				expectKey = append(expectKey, true)
				continue
			case '[':
				stack = append(stack, nil)
				expectKey = append(expectKey, false)
				continue
			default:
				stack, expectKey = stack[:len(stack)-1], expectKey[:len(expectKey)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1] != nil && expectKey[n-1] {
				if stack[n-1][v] {
					return true
				}
				stack[n-1][v] = true
				expectKey[n-1] = false
				continue
			}
		}
		if n := len(stack); n > 0 && stack[n-1] != nil {
			expectKey[n-1] = true
		}
		if len(stack) == 0 {
			return false
		}
	}
}

// FuzzDuplicate holds Duplicate, comparing keys exactly, to a reading of
// encoding/json's own tokens, on any input: it never reads past the
// data, and finds a key given twice exactly when there is one.
func FuzzDuplicate(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":1,"c":2}]}}`, `{"\u0061":1,"a":2}`, `[1,2,{"x":"y"}]`, `"s"`, `{}`, `{"a":"\"","b":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, got := Duplicate(data, Never)
		if !json.Valid(data) {
			if got {
				t.Fatalf("a duplicate found in invalid JSON %q", data)
			}
			return
		}
		if want := duplicateByTokens(data); got != want {
			t.Fatalf("Duplicate(%q) = %v, tokens say %v", data, got, want)
		}
	})
}

// TestDuplicateInvalidUTF8: two keys that differ only in bytes that are
// not UTF-8 name one key to encoding/json, which reads each as U+FFFD.
func TestDuplicateInvalidUTF8(t *testing.T) {
	t.Parallel()
	if _, ok := Duplicate([]byte("{\"a\xff\": 1, \"a\xfe\": 2}"), Never); !ok {
		t.Error("keys that json reads as one are not found twice")
	}
	if _, ok := Duplicate([]byte(`{"a": 1, "b": {"a": 2}, "c": ["x", {"a": 3}]}`), Never); ok {
		t.Error("keys of different objects found twice")
	}
}

// TestDuplicateManyKeys: an object of many keys (a manifest's key of
// opaque IDs) is checked whole, its twice-given key found wherever it is.
func TestDuplicateManyKeys(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{")
	for n := range 5000 {
		fmt.Fprintf(&b, `"item-%04d": "u%d", `, n, n)
	}
	b.WriteString(`"item-0017": "again"}`)
	d, ok := Duplicate([]byte(b.String()), Never)
	if !ok || d.Key != "item-0017" || d.First != "item-0017" {
		t.Errorf("%+v, %v", d, ok)
	}
	if _, ok := Duplicate([]byte(strings.Replace(b.String(), `"item-0017": "again"`, `"item-9999": "last"`, 1)), Never); ok {
		t.Error("a key given once found twice")
	}
	// Folded, past the first keys kept in a list.
	folded := strings.Replace(b.String(), `"item-0017": "again"`, `"ITEM-0003": "again"`, 1)
	if d, ok := Duplicate([]byte(folded), FoldOutside()); !ok || d.Key != "ITEM-0003" || d.First != "item-0003" {
		t.Errorf("folded: %+v, %v", d, ok)
	}
}
