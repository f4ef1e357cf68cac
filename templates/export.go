package templates

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Export formats.
const (
	ExportJSONL      = "jsonl"       // one JSON object per line
	ExportJSONArray  = "json-array"  // one JSON array of objects
	ExportJSONObject = "json-object" // one JSON object, each record under its Key
)

// Export maps canonical records back to the file shape a study already
// uses (its "native" format).
type Export struct {
	Format string `yaml:"format" json:"format"`
	// Key is each record's key in a json-object export.
	Key *Expr `yaml:"key" json:"key,omitempty"`
	// From "input" starts each record from a copy of its input record, keys
	// and order kept; Fields then replace or add keys. Empty starts from {}.
	From string `yaml:"from" json:"from,omitempty"`
	// Include is "answered" (skip units nobody answered; the default) or
	// "all".
	Include string `yaml:"include" json:"include,omitempty"`
	// PerAnnotator writes one file per annotator, as studies do that hand
	// every annotator the same file.
	PerAnnotator bool   `yaml:"per_annotator" json:"per_annotator,omitempty"`
	Fields       Fields `yaml:"fields" json:"fields"`
	Line         int    `yaml:"-" json:"-"`
}

// Fields is an ordered list of keys and the expressions that fill them.
type Fields []Field

// Field is one key of an exported object.
type Field struct {
	Key  string
	Expr *Expr
	Line int
}

// Expr computes one exported value. Exactly one source is set: a constant,
// Input (a path in the input record), Element (a path in the list element a
// row was made from), Value (a question's answer, or a path into it, such
// as "evidence.passage"; inside Each, the answers of one span), Meta (unit,
// item, annotator, batch or status), Object, Each, JSON or Cases. Default
// stands in when the source has no value; As converts the result.
type Expr struct {
	Const   any    `yaml:"-" json:"const,omitempty"`
	IsConst bool   `yaml:"-" json:"-"`
	Input   string `yaml:"input" json:"input,omitempty"`
	Element string `yaml:"element" json:"element,omitempty"`
	Value   string `yaml:"value" json:"value,omitempty"`
	Meta    string `yaml:"meta" json:"meta,omitempty"`
	Object  Fields `yaml:"object" json:"object,omitempty"`
	// Each is "spans": a list with one item per span of the unit.
	Each string `yaml:"each" json:"each,omitempty"`
	// Where keeps the spans whose answers meet the condition.
	Where *Cond `yaml:"where" json:"where,omitempty"`
	// Item is what each span becomes.
	Item *Expr `yaml:"item" json:"item,omitempty"`
	// JSON renders the inner value as compact JSON text.
	JSON    *Expr  `yaml:"json" json:"json,omitempty"`
	Cases   []Case `yaml:"cases" json:"cases,omitempty"`
	Default *Expr  `yaml:"default" json:"default,omitempty"`
	// As is "int", "ints" (a sorted list of integers), "string" or "strings".
	As   string `yaml:"as" json:"as,omitempty"`
	Line int    `yaml:"-" json:"-"`

	input, element, value Path
}

// Case is one branch of Expr.Cases: the first whose When holds gives Then.
type Case struct {
	When *Cond `yaml:"when" json:"when"`
	Then *Expr `yaml:"then" json:"then"`
	Line int   `yaml:"-" json:"-"`
}

// Meta fields an export may read.
var metaFields = []string{"unit", "item", "annotator", "batch", "status"}

func (f *Fields) decodeNode(d *decoder, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		d.errs.add(n.Line, "expected a mapping of keys to values, got %s", kindName(n))
		return
	}
	d.pairs(n, func(k, v *yaml.Node) {
		e := new(Expr)
		e.decodeNode(d, v)
		*f = append(*f, Field{Key: k.Value, Expr: e, Line: k.Line})
	})
}

func (e *Expr) decodeNode(d *decoder, n *yaml.Node) {
	e.Line = n.Line
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		v, err := d.constValue(n, 0)
		if err != nil {
			d.constError(n.Line, err)
			return
		}
		e.Const, e.IsConst = v, true
		return
	}
	d.decodeFields(n, reflect.ValueOf(e).Elem())
}

// constValue reads a YAML constant into the shapes encoding/json produces
// for input values (json.Number for numbers, map[string]any for
// mappings), keeping dates as the text they are written as. Every node it
// visits, through aliases too, is counted against the decoder's budget, so
// that aliases which repeat aliases cannot blow a few lines up into
// billions of values.
func (d *decoder) constValue(n *yaml.Node, depth int) (any, error) {
	if depth > 32 {
		return nil, fmt.Errorf("constant nested too deeply")
	}
	if d.budget--; d.budget < 0 {
		return nil, errExpands
	}
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			err := n.Decode(&b)
			return b, err
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("%q is not a number JSON can hold", n.Value)
			}
			if n.ShortTag() == "!!int" {
				var i int64
				if err := n.Decode(&i); err == nil {
					return json.Number(strconv.FormatInt(i, 10)), nil
				}
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return n.Value, nil
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := d.constValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				return nil, fmt.Errorf("constant keys must be text, got %q", k.Value)
			}
			v, err := d.constValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected YAML node")
}

// MarshalJSON keeps the order of the fields.
func (f Fields) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, fl := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(fl.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(fl.Expr)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// MarshalJSON writes a constant as itself and any other expression as an
// object, the same shape the YAML has.
func (e *Expr) MarshalJSON() ([]byte, error) {
	if e.IsConst {
		return json.Marshal(e.Const)
	}
	type plain Expr
	return json.Marshal((*plain)(e))
}
