package templates

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A Path picks a value out of an input record: "previous_context",
// "feedback.errors[0].start", "passages[*]", `["key.with.dots"]`, or one that
// starts from a root other than the record: "@.text" (the current list element
// of a row-per-element layout), "$" (the current item inside a join), or a
// variable such as "$id", "$key", "$i" and "$n".
type Path struct {
	Root string // "" for the record, "@", "$", or a variable like "$id"
	Segs []Seg
	src  string
}

// Seg is one step of a Path: a key, an index, or every element of a list.
type Seg struct {
	Key   string
	Index int
	Kind  SegKind
}

// SegKind tells what a Seg steps into.
type SegKind uint8

// The kinds of path steps.
const (
	SegKey SegKind = iota
	SegIndex
	SegAll
)

// Env supplies the roots a path starts from: "" is the record, "@" the
// current element, "$" the current join item, "$id" and friends variables.
type Env func(root string) (any, bool)

func (p Path) String() string { return p.src }

// IsZero reports whether p is the empty path.
func (p Path) IsZero() bool { return p.src == "" }

// ParsePath parses the path syntax described on Path.
func ParsePath(s string) (Path, error) {
	p := Path{src: s}
	if strings.TrimSpace(s) == "" {
		return p, fmt.Errorf("empty path")
	}
	rest := s
	switch {
	case rest == "@" || strings.HasPrefix(rest, "@.") || strings.HasPrefix(rest, "@["):
		p.Root, rest = "@", rest[1:]
	case rest == "$" || strings.HasPrefix(rest, "$.") || strings.HasPrefix(rest, "$["):
		p.Root, rest = "$", rest[1:]
	case strings.HasPrefix(rest, "$"):
		end := 1
		for end < len(rest) && isVarByte(rest[end]) {
			end++
		}
		if end == 1 {
			return p, fmt.Errorf("path %q: %q is not a variable name", s, rest)
		}
		p.Root, rest = rest[:end], rest[end:]
	default:
		// A path from the record starts with a bare or a quoted key.
		if !strings.HasPrefix(rest, "[") {
			rest = "." + rest
		}
	}
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			key := rest[:end]
			if key == "" {
				return p, fmt.Errorf("path %q: empty key", s)
			}
			if strings.ContainsAny(key, "]{}") {
				return p, fmt.Errorf("path %q: key %q has a bracket or brace; quote it as [\"...\"]", s, key)
			}
			p.Segs = append(p.Segs, Seg{Kind: SegKey, Key: key})
			rest = rest[end:]
		case '[':
			end := closing(rest, ']')
			if end < 0 {
				return p, fmt.Errorf("path %q: missing ]", s)
			}
			inner := rest[1:end]
			rest = rest[end+1:]
			switch {
			case inner == "*":
				p.Segs = append(p.Segs, Seg{Kind: SegAll})
			case strings.HasPrefix(inner, `"`):
				key, err := strconv.Unquote(inner)
				if err != nil {
					return p, fmt.Errorf("path %q: bad quoted key %s", s, inner)
				}
				p.Segs = append(p.Segs, Seg{Kind: SegKey, Key: key})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil {
					return p, fmt.Errorf("path %q: [%s] is neither an index, * nor a quoted key", s, inner)
				}
				p.Segs = append(p.Segs, Seg{Kind: SegIndex, Index: n})
			}
		default:
			return p, fmt.Errorf("path %q: unexpected %q", s, rest[:1])
		}
	}
	if p.Root != "" && p.Root != "@" && p.Root != "$" && len(p.Segs) > 0 {
		return p, fmt.Errorf("path %q: variable %s takes no keys", s, p.Root)
	}
	return p, nil
}

func isVarByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// closing finds the end byte that closes s[0] (a [ or {), skipping quoted
// keys, which may hold brackets and braces.
func closing(s string, end byte) int {
	inQuote := false
	for i := 1; i < len(s); i++ {
		switch {
		case inQuote && s[i] == '\\':
			i++
		case s[i] == '"':
			inQuote = !inQuote
		case !inQuote && s[i] == end:
			return i
		}
	}
	return -1
}

// Lookup evaluates p. It reports false when a key or index on the way is
// missing. A path with [*] yields a []any of every match.
func (p Path) Lookup(env Env) (any, bool) {
	v, ok := env(p.Root)
	if !ok {
		return nil, false
	}
	return walk(v, p.Segs)
}

func walk(v any, segs []Seg) (any, bool) {
	for i, s := range segs {
		switch s.Kind {
		case SegKey:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[s.Key]; !ok {
				return nil, false
			}
		case SegIndex:
			l, ok := v.([]any)
			if !ok {
				return nil, false
			}
			n := s.Index
			if n < 0 {
				n += len(l)
			}
			if n < 0 || n >= len(l) {
				return nil, false
			}
			v = l[n]
		case SegAll:
			l, ok := v.([]any)
			if !ok {
				return nil, false
			}
			out := make([]any, 0, len(l))
			for _, e := range l {
				if r, ok := walk(e, segs[i+1:]); ok {
					out = append(out, r)
				}
			}
			return out, true
		}
	}
	return v, true
}

// Text renders a scalar the way it appears in a cell and in an ID: strings
// as they are, numbers as written in the input, null as "". Lists and
// objects are rendered as compact JSON.
func Text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	default:
		// Compact JSON as the reader wrote it: no HTML escaping of & < >.
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return fmt.Sprint(v)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
}

// expandParams replaces ${name} with the value of a template parameter.
func expandParams(s string, params map[string]string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("%q: ${ without a closing }", s)
		}
		name := s[i+2 : i+j]
		v, ok := params[name]
		if !ok {
			return "", fmt.Errorf("%q: unknown parameter %q", s, name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}
