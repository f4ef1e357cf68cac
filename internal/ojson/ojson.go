// Package ojson reads and writes JSON keeping the order of object keys and
// the text of numbers, so that a file can be read, changed in a few places
// and written back in the same shape: same keys in the same order, same
// indentation, same escaping.
//
//	v, err := ojson.Decode(data)
//	obj := v.(*ojson.Object)
//	obj.Set("labels", []any{json.Number("2")})
//	out, err := ojson.Marshal(obj, ojson.Style{Indent: " "})
package ojson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Object is a JSON object whose keys keep their order. Values are nil,
// bool, json.Number, string, []any, *Object, or (when built in Go)
// map[string]any, int and other types encoding/json can write.
type Object struct {
	Keys []string
	Vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{Vals: map[string]any{}} }

// Set sets a key, keeping its place when it exists, appending it when not.
func (o *Object) Set(k string, v any) {
	if _, ok := o.Vals[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Vals[k] = v
}

// Get returns a key's value.
func (o *Object) Get(k string) (any, bool) {
	v, ok := o.Vals[k]
	return v, ok
}

// Decode reads one JSON value, keeping key order and number text.
func Decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				o.Set(k.(string), v)
			}
			_, err := d.Token()
			return o, err
		case '[':
			l := []any{}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := d.Token()
			return l, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// Style is how JSON is written.
type Style struct {
	// Indent is the indentation of one level; "" writes one line.
	Indent string
	// Spaced separates items with ", " and keys from values with ": " on
	// one line (Python's default), instead of "," and ":".
	Spaced bool
	// ASCII escapes every non-ASCII character as \uXXXX.
	ASCII bool
	// Newline ends the output with a newline.
	Newline bool
}

// Compact is the style for one JSON value per line (JSON Lines): no
// indentation and no final newline, separators and escaping kept.
func (s Style) Compact() Style {
	return Style{Spaced: s.Spaced, ASCII: s.ASCII}
}

// DetectStyle guesses the style a JSON file was written in, from its start
// and end, as Python's json.dump and most tools write it.
func DetectStyle(data []byte) Style {
	var d styleDetector
	d.write(data)
	return d.style()
}

// DetectStyleReader is DetectStyle for a file read to its end, holding a
// few bytes of it at a time however large it is.
func DetectStyleReader(r io.Reader) (Style, error) {
	var d styleDetector
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		d.write(buf[:n])
		if err == io.EOF {
			return d.style(), nil
		}
		if err != nil {
			return Style{}, err
		}
	}
}

// maxIndent bounds the indentation kept: real files indent by a few
// spaces or a tab.
const maxIndent = 64

// styleDetector reads a file's style as it goes: the indentation of its
// second line, the space after the first key's colon, whether it escapes
// all that is not ASCII, and whether it ends with a newline.
type styleDetector struct {
	n    int64
	prev byte // the last byte written
	// indentAt: 0 before the first newline, 1 in the white space after
	// it, 2 past that.
	indentAt int
	indent   []byte
	// colonAt: 0 before the first `":`, 1 just after it, 2 past that.
	colonAt  int
	spaced   bool
	nonASCII bool
	escapeU  bool // a \u escape
}

func (d *styleDetector) write(p []byte) {
	for _, b := range p {
		switch d.indentAt {
		case 0:
			if b == '\n' {
				d.indentAt = 1
			}
		case 1:
			if b != ' ' && b != '\t' {
				d.indentAt = 2
			} else if len(d.indent) < maxIndent {
				d.indent = append(d.indent, b)
			}
		}
		switch d.colonAt {
		case 0:
			if b == ':' && d.n > 0 && d.prev == '"' {
				d.colonAt = 1
			}
		case 1:
			d.spaced, d.colonAt = b == ' ', 2
		}
		d.nonASCII = d.nonASCII || b >= 0x80
		d.escapeU = d.escapeU || b == 'u' && d.n > 0 && d.prev == '\\'
		d.prev = b
		d.n++
	}
}

func (d *styleDetector) style() Style {
	s := Style{Newline: d.n > 0 && d.prev == '\n', Indent: string(d.indent)}
	// On one line, Python's default separators are ", " and ": ".
	if s.Indent == "" {
		s.Spaced = d.spaced
	}
	s.ASCII = !d.nonASCII && d.escapeU
	return s
}

// Marshal writes v in the given style, as Python's json module writes it:
// indented output separates keys with ": "; HTML characters are not
// escaped.
func Marshal(v any, s Style) ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b, v, s, 0); err != nil {
		return nil, err
	}
	if s.Newline {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

func write(b *bytes.Buffer, v any, s Style, depth int) error {
	nl := func(d int) {
		if s.Indent != "" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(s.Indent, d))
		}
	}
	colon, comma := ":", ","
	switch {
	case s.Indent != "":
		colon = ": "
	case s.Spaced:
		colon, comma = ": ", ", "
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		b.WriteString(v.String())
	case string:
		writeString(b, v, s.ASCII)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(depth + 1)
			if err := write(b, x, s, depth+1); err != nil {
				return err
			}
		}
		nl(depth)
		b.WriteByte(']')
	case *Object:
		if len(v.Keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(depth + 1)
			writeString(b, k, s.ASCII)
			b.WriteString(colon)
			if err := write(b, v.Vals[k], s, depth+1); err != nil {
				return err
			}
		}
		nl(depth)
		b.WriteByte('}')
	default:
		// Go values (ints, slices, maps): through encoding/json, then
		// rewritten in this style.
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		x, err := Decode(j)
		if err != nil {
			return err
		}
		return write(b, x, s, depth)
	}
	return nil
}

const hex = "0123456789abcdef"

// writeString writes a JSON string as Python's json module does: control
// characters, quotes and backslashes escaped, non-ASCII escaped only when
// ascii is set.
func writeString(b *bytes.Buffer, s string, ascii bool) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			// An invalid byte: written as the replacement character.
			b.WriteString(`\ufffd`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || ascii && r >= 0x7f:
			if r > 0xffff {
				r1, r2 := utf16Pair(r)
				writeU(b, r1)
				writeU(b, r2)
			} else {
				writeU(b, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func writeU(b *bytes.Buffer, r rune) {
	b.WriteString(`\u`)
	b.WriteByte(hex[r>>12&0xf])
	b.WriteByte(hex[r>>8&0xf])
	b.WriteByte(hex[r>>4&0xf])
	b.WriteByte(hex[r&0xf])
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
