package templates

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/annosheet/annosheet/internal/editdistance"
)

// MaxSize is the largest template file Load accepts. Real templates are a
// few kilobytes; the bound keeps a hostile file from exhausting memory.
const MaxSize = 1 << 20

// Load parses and checks a template. file names the source in errors. The
// error, if any, is an ErrorList with every problem found, each with the
// YAML line it concerns.
func Load(file string, src []byte) (*Template, error) {
	return load(file, src, nil)
}

// LoadWithParams is Load with values for the template's parameters
// (generate's --param); unset ones keep their defaults.
func LoadWithParams(file string, src []byte, params map[string]string) (*Template, error) {
	return load(file, src, params)
}

func load(file string, src []byte, params map[string]string) (*Template, error) {
	c := &errs{file: file}
	if len(src) > MaxSize {
		c.add(0, "template is %d bytes; templates are limited to %d", len(src), MaxSize)
		return nil, c.err()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		c.add(line, "%s", msg)
		return nil, c.err()
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		c.add(0, "template is empty")
		return nil, c.err()
	}
	t := &Template{Source: src, File: file}
	// Aliases may repeat a part of the template, but not explode it: the
	// decoder visits at most a few times as many nodes as the text has.
	d := &decoder{errs: c, budget: 4*countNodes(doc.Content[0]) + 1000, active: map[*yaml.Node]bool{}}
	d.decodeStruct(doc.Content[0], t)
	if err := c.err(); err != nil {
		return nil, err
	}
	check(t, c, params)
	if err := c.err(); err != nil {
		return nil, err
	}
	return t, nil
}

var yamlLineRe = regexp.MustCompile(`line (\d+): `)

// yamlParserProblems are the messages of yaml.v3's parser (as opposed to
// its scanner). The parser reports 0-based lines, the scanner 1-based ones.
var yamlParserProblems = []string{"did not find expected", "found undefined tag handle",
	"found duplicate %YAML directive", "found incompatible YAML document", "found duplicate %TAG directive"}

// yamlErrorLine pulls the line number out of a yaml.v3 syntax error.
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRe.FindStringSubmatchIndex(msg); m != nil {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[:m[0]] + msg[m[1]:]
	}
	for _, p := range yamlParserProblems {
		if strings.HasPrefix(msg, p) {
			line++
			break
		}
	}
	return line, msg
}

// decoder fills Go values from YAML nodes strictly: an unknown key is an
// error (a typo must not silently drop a setting), and every struct with a
// Line field learns the line it came from.
type decoder struct {
	errs   *errs
	budget int                 // nodes left to decode
	active map[*yaml.Node]bool // anchors being decoded, to catch an alias inside its own anchor
	failed bool                // the budget ran out (reported once)
}

// countNodes counts the nodes of a document without following aliases.
// constError reports a constant that cannot be read; a budget run out is
// reported once.
func (d *decoder) constError(line int, err error) {
	if errors.Is(err, errExpands) {
		if d.failed {
			return
		}
		d.failed = true
	}
	d.errs.add(line, "%v", err)
}

// errExpands says the decoding budget ran out.
var errExpands = errors.New("the template expands to too many values (aliases that repeat aliases?)")

func countNodes(n *yaml.Node) int {
	c := 1
	for _, x := range n.Content {
		c += countNodes(x)
	}
	return c
}

// nodeDecoder is implemented by types that decode themselves.
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node)
}

var nodeDecoderType = reflect.TypeFor[nodeDecoder]()

func (d *decoder) decodeStruct(n *yaml.Node, out any) {
	d.decode(n, reflect.ValueOf(out).Elem())
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value) {
	if d.budget--; d.budget < 0 {
		if !d.failed {
			d.failed = true
			d.errs.add(n.Line, "%v", errExpands)
		}
		return
	}
	for n.Kind == yaml.AliasNode {
		target := n.Alias
		if d.active[target] {
			d.errs.add(n.Line, "alias *%s is used inside its own anchor", n.Value)
			return
		}
		d.active[target] = true
		defer delete(d.active, target)
		n = target
	}
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(nodeDecoder).decodeNode(d, n)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		// A null is no value, except for types that give null a meaning of
		// their own (an export constant null).
		if isNull(n) && !v.Type().Implements(nodeDecoderType) {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decode(n, p.Elem())
		v.Set(p)
	case reflect.Struct:
		d.decodeFields(n, v)
	case reflect.Slice:
		if isNull(n) {
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.errs.add(n.Line, "expected a list, got %s", kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i))
		}
		v.Set(s)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.errs.add(n.Line, "expected text, got %s", kindName(n))
			return
		}
		if !isNull(n) {
			v.SetString(n.Value)
		}
	case reflect.Int, reflect.Float64, reflect.Bool:
		if n.Kind != yaml.ScalarNode || isNull(n) || v.Kind() == reflect.Int && n.ShortTag() != "!!int" {
			d.errs.add(n.Line, "expected %s, got %s", typeWord(v.Kind()), kindName(n))
			return
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.errs.add(n.Line, "expected %s, got %q", typeWord(v.Kind()), n.Value)
		}
	case reflect.Interface:
		x, err := d.constValue(n, 0)
		if err != nil {
			d.constError(n.Line, err)
			return
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		panic(fmt.Sprintf("templates: cannot decode into %s", v.Type()))
	}
}

func (d *decoder) decodeFields(n *yaml.Node, v reflect.Value) {
	t := v.Type()
	if f, ok := t.FieldByName("Line"); ok && f.Type.Kind() == reflect.Int {
		v.FieldByIndex(f.Index).SetInt(int64(n.Line))
	}
	if n.Kind != yaml.MappingNode {
		if isNull(n) {
			return
		}
		d.errs.add(n.Line, "expected a mapping for %s, got %s", structWord(t), kindName(n))
		return
	}
	fields := yamlFields(t)
	d.pairs(n, func(k, val *yaml.Node) {
		idx, ok := fields[k.Value]
		if !ok {
			d.errs.add(k.Line, "unknown field %q in %s%s", k.Value, structWord(t), knownField(k.Value, fields))
			return
		}
		d.decode(val, v.FieldByIndex(idx))
	})
}

// pairs calls fn for each key and value of a mapping, reporting a key that
// is given twice instead of letting the last one silently win.
func (d *decoder) pairs(n *yaml.Node, fn func(k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if first, dup := seen[k.Value]; dup {
			d.errs.add(k.Line, "%q is given twice (first on line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		fn(k, n.Content[i+1])
	}
}

var fieldCache sync.Map // reflect.Type -> map[string][]int

// yamlFields maps the YAML keys of a struct type to its fields.
func yamlFields(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		m[tag] = f.Index
	}
	fieldCache.Store(t, m)
	return m
}

// knownField offers the known key closest to a misspelt one.
func knownField(key string, fields map[string][]int) string {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	if close := editdistance.Closest(key, names); len(close) > 0 {
		return fmt.Sprintf(" (did you mean %q?)", close[0])
	}
	return fmt.Sprintf(" (known fields: %s)", strings.Join(names, ", "))
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func typeWord(k reflect.Kind) string {
	switch k {
	case reflect.Int:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	}
	return k.String()
}

// structWord names a struct type in messages: "question", "rule", ….
func structWord(t reflect.Type) string {
	var b strings.Builder
	for i, r := range t.Name() {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte(' ')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
