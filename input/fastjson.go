package input

import (
	"bytes"
	"encoding/json"
	u16 "unicode/utf16"
	"unicode/utf8"
)

// fastDecode decodes one JSON value, with the whole of b holding it and
// white space only around it, into what encoding/json's Decoder with
// UseNumber gives for an `any`: map[string]any, []any, string,
// json.Number, bool or nil. It is the common case of decodeRecord, made
// without encoding/json's reflection and per-byte scanner; records are
// decoded up to three times in a study of many batches.
//
// ok is false for anything it does not decode exactly as encoding/json
// would, which then decides: every error, and values nested deeper than
// encoding/json allows. FuzzFastDecode holds it to encoding/json.
func fastDecode(b []byte) (v any, ok bool) {
	d := fastDecoder{b: b}
	d.space()
	v, ok = d.value(0)
	if !ok {
		return nil, false
	}
	// What decodeRecord allows after the value (bytes.TrimSpace).
	if len(bytes.TrimSpace(b[d.i:])) > 0 {
		return nil, false
	}
	return v, true
}

// maxDepth is how deep encoding/json lets arrays and objects nest.
const maxDepth = 10000

type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

func (d *fastDecoder) literal(word string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		return false
	}
	d.i += len(word)
	return true
}

func (d *fastDecoder) object(depth int) (any, bool) {
	m := map[string]any{}
	ok := d.members(depth, '}', func() bool {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return false
		}
		k, ok := d.string()
		if !ok {
			return false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		d.space()
		v, ok := d.value(depth)
		m[k.(string)] = v // the last of keys given twice, as encoding/json
		return ok
	})
	return m, ok
}

func (d *fastDecoder) array(depth int) (any, bool) {
	a := []any{}
	ok := d.members(depth, ']', func() bool {
		v, ok := d.value(depth)
		a = append(a, v)
		return ok
	})
	return a, ok
}

// members reads an array's or an object's members, from its opening
// bracket to end, its closing one, with member reading each.
func (d *fastDecoder) members(depth int, end byte, member func() bool) bool {
	if depth > maxDepth {
		return false
	}
	d.i++
	d.space()
	if d.i < len(d.b) && d.b[d.i] == end {
		d.i++
		return true
	}
	for {
		if !member() {
			return false
		}
		d.space()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case end:
			d.i++
			return true
		default:
			return false
		}
	}
}

// number reads a number as JSON's grammar has it, kept as written.
func (d *fastDecoder) number() (any, bool) {
	b, start := d.b, d.i
	i := start
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	d.i = i
	return json.Number(b[start:i]), true
}

// string reads a string at its opening quote. Text without escapes and in
// valid UTF-8 is taken as it is; otherwise it is unquoted as encoding/json
// does: a lone surrogate, or a byte that is not UTF-8, becomes U+FFFD.
func (d *fastDecoder) string() (any, bool) {
	b := d.b
	start := d.i + 1
	i := start
	ascii := true
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			if ascii || utf8.Valid(b[start:i]) {
				d.i = i + 1
				return string(b[start:i]), true
			}
			return d.unquote(start)
		case c == '\\':
			return d.unquote(start)
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		i++
	}
	return nil, false
}

// unquote reads a string from start, just after its opening quote, one
// escape or rune at a time.
func (d *fastDecoder) unquote(start int) (any, bool) {
	b := d.b
	out := make([]byte, 0, 64)
	i := start
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			d.i = i + 1
			return string(out), true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if i+1 >= len(b) {
				return nil, false
			}
			i++
			switch e := b[i]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(b, i+1)
				if !ok {
					return nil, false
				}
				i += 4 // the escape's last digit
				if u16.IsSurrogate(r) {
					// A pair makes one rune; a surrogate without its pair
					// is U+FFFD, and what follows is read on its own.
					pair := utf8.RuneError
					if i+2 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
						if r2, ok := hex4(b, i+3); ok {
							pair = u16.DecodeRune(r, r2)
						}
					}
					r = utf8.RuneError
					if pair != utf8.RuneError {
						r = pair
						i += 6
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, false
			}
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			out = utf8.AppendRune(out, r) // U+FFFD for a byte that is not UTF-8
			i += size
		}
	}
	return nil, false
}

// hex4 reads the four hexadecimal digits of a \u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
