// Package jsonkeys finds what encoding/json reads without a word: an
// object with two keys that name one thing, of which it keeps the last.
// A file a person made (a record edited by hand, a manifest) that says
// something twice is refused rather than read half.
//
//	if d, ok := jsonkeys.Duplicate(line, jsonkeys.FoldOutside("values")); ok {
//		return fmt.Errorf("line %d: %s", n, d)
//	}
package jsonkeys

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Dup is a key given twice in one object.
type Dup struct {
	Key, First string // the key as written the second time, and the first
	Offset     int    // byte offset of the second in the data
	Path       string // where the object is, as "spans[2].values"
}

func (d Dup) String() string {
	where := ""
	if d.Path != "" {
		where = " in " + d.Path
	}
	if d.Key == d.First {
		return fmt.Sprintf("the key %q is given twice%s", d.Key, where)
	}
	return fmt.Sprintf("the keys %q and %q name one field%s", d.First, d.Key, where)
}

// Fold says, for the object at a path (the keys and indexes that lead to
// it), whether keys that differ only in case name one field there, as
// they do where encoding/json fills a Go struct.
type Fold func(path []string) bool

// Never compares keys exactly everywhere: for files decoded into maps.
func Never([]string) bool { return false }

// FoldOutside folds keys everywhere but in the objects named by one of
// names and in everything inside them (maps of answers, say), where keys
// are compared exactly.
func FoldOutside(names ...string) Fold {
	return func(path []string) bool {
		for _, p := range path {
			for _, n := range names {
				if p == n {
					return false
				}
			}
		}
		return true
	}
}

// Duplicate finds the first key given twice in an object of data, which
// must be valid JSON (as json.Valid says; what is not is not looked at).
func Duplicate(data []byte, fold Fold) (Dup, bool) {
	s := &scanner{data: data, fold: fold}
	if !json.Valid(data) {
		return Dup{}, false
	}
	s.space()
	s.value(nil)
	return s.dup, s.found
}

type scanner struct {
	data  []byte
	i     int
	fold  Fold
	dup   Dup
	found bool
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// indexes are the path elements of the first elements of arrays, made
// once: a file of records has arrays in every line.
var indexes = func() []string {
	out := make([]string, 64)
	for n := range out {
		out[n] = fmt.Sprintf("[%d]", n)
	}
	return out
}()

// index is the path element of element n of an array.
func index(n int) string {
	if n < len(indexes) {
		return indexes[n]
	}
	return fmt.Sprintf("[%d]", n)
}

// value scans one value at s.i; path leads to it.
func (s *scanner) value(path []string) {
	if s.found || s.i >= len(s.data) {
		return
	}
	switch s.data[s.i] {
	case '{':
		s.object(path)
	case '[':
		s.i++
		s.space()
		for n := 0; s.i < len(s.data) && s.data[s.i] != ']' && !s.found; n++ {
			s.value(append(path, index(n)))
			s.space()
			if s.i < len(s.data) && s.data[s.i] == ',' {
				s.i++
				s.space()
			}
		}
		s.i++
	case '"':
		s.skipStr()
	default:
		for s.i < len(s.data) && strings.IndexByte(",]} \t\r\n", s.data[s.i]) < 0 {
			s.i++
		}
	}
}

// seenKey is a key of an object met so far: as compared (folded or not),
// and as written.
type seenKey struct{ cmp, key string }

func (s *scanner) object(path []string) {
	fold := s.fold(path)
	// Most objects have few keys, which a list holds more cheaply than a
	// map; one with many (a manifest's key of IDs) gets a map.
	var seen []seenKey
	var many map[string]string
	s.i++
	s.space()
	for s.i < len(s.data) && s.data[s.i] != '}' && !s.found {
		at := s.i
		key := s.str()
		k := key
		if fold {
			k = strings.ToLower(key)
		}
		first, ok := many[k]
		for _, p := range seen {
			if p.cmp == k {
				first, ok = p.key, true
			}
		}
		if ok {
			s.dup, s.found = Dup{Key: key, First: first, Offset: at, Path: pathText(path)}, true
			return
		}
		switch {
		case many != nil:
			many[k] = key
		case len(seen) < 16:
			seen = append(seen, seenKey{k, key})
		default:
			many = make(map[string]string)
			for _, p := range seen {
				many[p.cmp] = p.key
			}
			many[k], seen = key, nil
		}
		s.space()
		s.i++ // ':'
		s.space()
		s.value(append(path, key))
		s.space()
		if s.i < len(s.data) && s.data[s.i] == ',' {
			s.i++
			s.space()
		}
	}
	s.i++
}

// skipStr scans past a string at s.i, and reports whether it has escapes.
func (s *scanner) skipStr() (escaped bool) {
	s.i++
	for s.i < len(s.data) && s.data[s.i] != '"' {
		if s.data[s.i] == '\\' {
			escaped = true
			s.i++
		}
		s.i++
	}
	s.i++
	return escaped
}

// str scans a string at s.i and returns its value.
func (s *scanner) str() string {
	start := s.i
	// Without escapes, and in UTF-8 (which json turns into U+FFFD
	// otherwise), the string is its bytes.
	if !s.skipStr() && s.i <= len(s.data) && utf8.Valid(s.data[start+1:s.i-1]) {
		return string(s.data[start+1 : s.i-1])
	}
	var out string
	if err := json.Unmarshal(s.data[start:s.i], &out); err != nil {
		return string(s.data[start:s.i])
	}
	return out
}

func pathText(path []string) string {
	var b strings.Builder
	for _, p := range path {
		if !strings.HasPrefix(p, "[") && b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}
