package templates

import (
	"fmt"
	"strconv"
	"strings"
)

// A Format is text with placeholders, such as "q{$i:04}" or
// "[P{$n1} S{$i2}] {$}". Each placeholder is a Path; ":0W" after the path
// pads a number with zeros to width W. "{{" and "}}" stand for braces.
type Format struct {
	parts []part
	src   string
}

type part struct {
	lit  string
	path *Path
	pad  int
}

func (f Format) String() string { return f.src }

// IsZero reports whether f is the empty format.
func (f Format) IsZero() bool { return f.src == "" }

// Paths lists the paths the format reads, in order.
func (f Format) Paths() []Path {
	var out []Path
	for _, p := range f.parts {
		if p.path != nil {
			out = append(out, *p.path)
		}
	}
	return out
}

// ParseFormat parses the syntax described on Format.
func ParseFormat(s string) (Format, error) {
	f := Format{src: s}
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			return f, fmt.Errorf("format %q: } without {; write }} for a brace", s)
		case c == '{':
			end := closing(s[i:], '}')
			if end < 0 {
				return f, fmt.Errorf("format %q: { without }; write {{ for a brace", s)
			}
			inner := s[i+1 : i+end]
			pad := 0
			if k := strings.LastIndexByte(inner, ':'); k >= 0 && k+1 < len(inner) && allDigits(inner[k+1:]) {
				pad, _ = strconv.Atoi(inner[k+1:])
				if pad > 32 {
					return f, fmt.Errorf("format %q: pad width %d is over 32", s, pad)
				}
				inner = inner[:k]
			}
			p, err := ParsePath(strings.TrimSpace(inner))
			if err != nil {
				return f, fmt.Errorf("format %q: %w", s, err)
			}
			if lit.Len() > 0 {
				f.parts = append(f.parts, part{lit: lit.String()})
				lit.Reset()
			}
			f.parts = append(f.parts, part{path: &p, pad: pad})
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		f.parts = append(f.parts, part{lit: lit.String()})
	}
	return f, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// MissingError says which path of a format had no value.
type MissingError struct{ Path string }

func (e *MissingError) Error() string { return fmt.Sprintf("no field %q", e.Path) }

// Render fills in the placeholders. A placeholder whose path is missing is
// an error of type *MissingError.
func (f Format) Render(env Env) (string, error) {
	var b strings.Builder
	for _, p := range f.parts {
		if p.path == nil {
			b.WriteString(p.lit)
			continue
		}
		v, ok := p.path.Lookup(env)
		if !ok {
			return "", &MissingError{Path: p.path.String()}
		}
		s := Text(v)
		if p.pad > 0 && len(s) < p.pad && allDigits(s) {
			s = strings.Repeat("0", p.pad-len(s)) + s
		}
		b.WriteString(s)
	}
	return b.String(), nil
}
