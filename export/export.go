// Package export writes a study's native file from canonical records: the
// file shape the study already uses, as its template's export mapping
// declares it (one JSON line per record, a JSON array, or a JSON object
// keyed by id, starting from the input records themselves where the
// native file is the input with answers filled in).
//
//	recs, origins, err := records.Read(f, name, resolve) // canonical JSON Lines
//	files, err := export.Native(tmpl, recs, items, export.Options{Origins: origins})
//	// files[0].Data is the native file
//
// The input records come from the coordinator's inputs (layout.Items),
// never from the annotator-editable sheet: offsets, real evaluator names
// and the untouched parts of each record are taken from there.
package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/internal/ojson"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrExport is wrapped by the errors of an export that cannot be written.
var ErrExport = errors.New("cannot export")

// ErrSeveralAnnotators is wrapped when one native file would hold the
// records of several annotators that it cannot tell apart: one unit
// judged by two, or two records for one key.
var ErrSeveralAnnotators = errors.New("several annotators' records in one file")

// Options tune Native.
type Options struct {
	// Annotators, when set, exports these annotators' records only.
	Annotators []string
	// Style is how JSON is written for formats that start from the input
	// file (json-array, json-object); the input file's own style when
	// detected by the caller.
	Style ojson.Style
	// Orders are the study's candidate orders (from its manifest), for
	// records still in the order shown.
	Orders map[string][]string
	// PerAnnotator writes a file per annotator even when the template's
	// native format is one file for all.
	PerAnnotator bool
	// Origins name where records were read from (records.Read gives them);
	// other records are named by the sheet they were pulled from.
	Origins records.Origins
}

// File is one native file to write.
type File struct {
	// Annotator is set for per-annotator exports.
	Annotator string
	Data      []byte
	Records   int
	// Warnings name the records given more than once, identically (see
	// Duplicate), and the units exported although pull found errors in
	// them: their native records may lack what the errors concern.
	Warnings []string
}

// Native writes the template's native format from canonical records and
// the input records they came from. It returns one file, or one per
// annotator when the template's export says per_annotator. Records that
// contradict each other are refused and identical copies kept once, as
// Distinct says.
func Native(t *templates.Template, recs []*records.Annotation, items []*layout.SourceItem, opt Options) ([]File, error) {
	e := t.Export
	if e == nil {
		return nil, fmt.Errorf("%w: template %s declares no native format", ErrExport, t.Name)
	}
	x := &exporter{t: t, e: e, items: map[string]*layout.SourceItem{}, opt: opt, where: map[*records.Annotation]string{}}
	for _, r := range recs {
		x.where[r] = opt.Origins.Name(r)
		if r.Template.Name != t.Name || r.Template.Version != t.Version {
			return nil, fmt.Errorf("%s: %w: a record of template %s version %d among those of %s version %d", x.where[r], ErrExport, r.Template.Name, r.Template.Version, t.Name, t.Version)
		}
	}
	if err := stillOpaque(recs, x.where); err != nil {
		return nil, err
	}
	recs, dups, err := records.Distinct(recs, opt.Origins)
	if err != nil {
		return nil, err
	}
	if len(opt.Annotators) > 0 {
		recs = slices.DeleteFunc(recs, func(r *records.Annotation) bool { return !slices.Contains(opt.Annotators, r.Annotator) })
		dups = slices.DeleteFunc(dups, func(d records.Duplicate) bool { return !slices.Contains(opt.Annotators, d.Annotator) })
	}
	for i, r := range recs {
		c, err := unshuffled(t, r, opt.Orders, x.where[r])
		if err != nil {
			return nil, err
		}
		recs[i], x.where[c] = c, x.where[r]
	}
	for _, it := range items {
		x.items[it.ID] = it
		x.order = append(x.order, it.ID)
	}
	if !e.PerAnnotator && !opt.PerAnnotator {
		// One file for all: an instance judged by several annotators
		// would appear once per annotator, indistinguishable, unless each
		// record of a list says whose it is.
		whose := e.Format != templates.ExportJSONObject && slices.ContainsFunc(e.Fields, func(f templates.Field) bool { return f.Expr != nil && f.Expr.Meta == "annotator" })
		first := map[string]string{}
		for _, r := range recs {
			if whose || !x.included(r) || r.Annotator == "" {
				continue
			}
			if a, ok := first[r.Unit]; ok && a != r.Annotator {
				return nil, fmt.Errorf("%w: %w: unit %s was judged by %s and %s", ErrExport, ErrSeveralAnnotators, r.Unit, a, r.Annotator)
			}
			first[r.Unit] = r.Annotator
		}
		data, n, warnings, err := x.file(recs, "")
		if err != nil {
			return nil, err
		}
		return []File{{Data: data, Records: n, Warnings: append(dupWarnings(dups, nil), warnings...)}}, nil
	}
	var names []string
	by := map[string][]*records.Annotation{}
	for _, r := range recs {
		if r.Annotator == "" {
			continue // nobody's work: nothing to export per annotator
		}
		if _, ok := by[r.Annotator]; !ok {
			names = append(names, r.Annotator)
		}
		by[r.Annotator] = append(by[r.Annotator], r)
	}
	sort.Strings(names)
	var out []File
	for _, a := range names {
		data, n, warnings, err := x.file(by[a], a)
		if err != nil {
			return nil, err
		}
		mine := func(d records.Duplicate) bool { return d.Annotator == a }
		out = append(out, File{Annotator: a, Data: data, Records: n, Warnings: append(dupWarnings(dups, mine), warnings...)})
	}
	return out, nil
}

// dupWarnings are the warnings of the duplicates that keep says concern a
// file (all when keep is nil).
func dupWarnings(dups []records.Duplicate, keep func(records.Duplicate) bool) []string {
	var out []string
	for _, d := range dups {
		if keep == nil || keep(d) {
			out = append(out, d.String())
		}
	}
	return out
}

type exporter struct {
	t     *templates.Template
	e     *templates.Export
	items map[string]*layout.SourceItem
	order []string // item ids in input order
	opt   Options
	where map[*records.Annotation]string // where each record was read
}

// unshuffled is a record with its answers on their own candidates: the
// record itself, or, when it is still in the order its candidates were
// shown in, a copy put back with the study's orders (the caller's record
// stays as it is). where names it in errors.
func unshuffled(t *templates.Template, r *records.Annotation, orders map[string][]string, where string) (*records.Annotation, error) {
	if !r.Shuffled {
		return r, nil
	}
	order, ok := orders[r.Item]
	if !ok {
		return nil, fmt.Errorf("%s: %w: unit %s is in the order its candidates were shown in; export with the study's manifest, which holds the orders", where, ErrExport, r.Unit)
	}
	vals, err := layout.UnshuffleValues(t, r.Values, order)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: unit %s: %v", where, ErrExport, r.Unit, err)
	}
	c := *r
	c.Values, c.Shuffled = vals, false
	return &c, nil
}

// included reports whether a record goes into the native file.
func (x *exporter) included(r *records.Annotation) bool {
	if x.e.Include == "all" {
		return records.InHand(r.Status)
	}
	return r.Status != records.StatusEmpty && records.InHand(r.Status)
}

// file builds one native file from records (of one annotator, when set).
func (x *exporter) file(recs []*records.Annotation, annotator string) ([]byte, int, []string, error) {
	e := x.e
	var outs []any
	var keys []string
	seenKey := map[string]bool{}
	n := 0
	var warnings []string
	add := func(r *records.Annotation) error {
		v, err := x.record(r)
		if err != nil {
			return err
		}
		for _, pr := range r.Problems {
			if pr.Severity == records.Error {
				warnings = append(warnings, fmt.Sprintf("unit %s (%s): exported although pull found an error there: %s", r.Unit, pr.Cell, pr.Message))
			}
		}
		if e.Format == templates.ExportJSONObject {
			k, ok, err := x.eval(e.Key, x.ctx(r, nil))
			if err != nil || !ok {
				return fmt.Errorf("unit %s: %w: the export key has no value (%v)", r.Unit, ErrExport, err)
			}
			ks := templates.Text(plain(k))
			if seenKey[ks] {
				return fmt.Errorf("unit %s: %w: %w: two records for key %q", r.Unit, ErrExport, ErrSeveralAnnotators, ks)
			}
			seenKey[ks] = true
			keys = append(keys, ks)
		}
		outs = append(outs, v)
		n++
		return nil
	}
	if e.From == "input" {
		// The native file is the input with answers filled in: every
		// input record, in input order; records without answers keep
		// their input values (or get the declared defaults).
		byItem := map[string][]*records.Annotation{}
		for _, r := range recs {
			if x.included(r) {
				byItem[r.Item] = append(byItem[r.Item], r)
			}
		}
		for _, id := range x.order {
			rs := byItem[id]
			if len(rs) == 0 && e.Include == "all" {
				rs = []*records.Annotation{{Item: id, Unit: id, Annotator: annotator, Status: records.StatusEmpty, Values: map[string]any{}}}
			}
			for _, r := range rs {
				if err := add(r); err != nil {
					return nil, 0, nil, err
				}
			}
			delete(byItem, id)
		}
		if len(byItem) > 0 {
			items := slices.Sorted(maps.Keys(byItem))
			return nil, 0, nil, fmt.Errorf("%w: records of %d item(s) not in the input, such as %q", ErrExport, len(items), items[0])
		}
	} else {
		for _, r := range recs {
			if x.included(r) {
				if err := add(r); err != nil {
					return nil, 0, nil, err
				}
			}
		}
	}
	var data []byte
	var err error
	switch e.Format {
	case templates.ExportJSONL:
		var b bytes.Buffer
		for _, v := range outs {
			line, err := ojson.Marshal(v, x.opt.Style.Compact())
			if err != nil {
				return nil, 0, nil, err
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		data = b.Bytes()
	case templates.ExportJSONArray:
		if outs == nil {
			outs = []any{}
		}
		data, err = ojson.Marshal(outs, x.opt.Style)
	case templates.ExportJSONObject:
		o := ojson.NewObject()
		for i, v := range outs {
			o.Set(keys[i], v)
		}
		data, err = ojson.Marshal(o, x.opt.Style)
	}
	return data, n, warnings, err
}

// ctx is the evaluation context of a record, or of one of its spans.
type ctx struct {
	rec     *records.Annotation
	item    *layout.SourceItem
	element any
	values  map[string]any // the unit's answers, or one span row's
	inSpan  bool
	json    map[string]any // values in JSON form, once a path needs them
}

func (x *exporter) ctx(r *records.Annotation, span map[string]any) *ctx {
	c := &ctx{rec: r, item: x.items[r.Item], values: r.Values}
	if c.item != nil && c.item.Elements != nil {
		c.element = c.item.Elements[r.Unit]
	}
	if span != nil {
		c.values, c.inSpan = span, true
	}
	return c
}

// record builds one native record.
func (x *exporter) record(r *records.Annotation) (any, error) {
	var obj *ojson.Object
	if x.e.From == "input" {
		it := x.items[r.Item]
		if it == nil {
			return nil, fmt.Errorf("unit %s: %w: item %q is not in the input", r.Unit, ErrExport, r.Item)
		}
		v, err := ojson.Decode(it.Raw)
		if err != nil {
			return nil, fmt.Errorf("item %s: %w: %v", r.Item, ErrExport, err)
		}
		o, ok := v.(*ojson.Object)
		if !ok {
			return nil, fmt.Errorf("item %s: %w: the input record is not an object", r.Item, ErrExport)
		}
		obj = o
	} else {
		obj = ojson.NewObject()
		if x.e.From == "" && x.items[r.Item] == nil && needsInput(x.e.Fields) {
			return nil, fmt.Errorf("unit %s: %w: item %q is not in the input given", r.Unit, ErrExport, r.Item)
		}
	}
	c := x.ctx(r, nil)
	for _, f := range x.e.Fields {
		v, ok, err := x.eval(f.Expr, c)
		if err != nil {
			return nil, fmt.Errorf("unit %s: field %q: %w", r.Unit, f.Key, err)
		}
		if ok {
			obj.Set(f.Key, v)
		}
	}
	return obj, nil
}

func needsInput(fs templates.Fields) bool {
	for _, f := range fs {
		if f.Expr.Input != "" || f.Expr.Element != "" || needsInput(f.Expr.Object) {
			return true
		}
	}
	return false
}

// eval computes an expression; ok is false when it has no value (a field
// then stays out of its object).
func (x *exporter) eval(e *templates.Expr, c *ctx) (any, bool, error) {
	v, ok, err := x.source(e, c)
	if err != nil {
		return nil, false, err
	}
	if !ok && e.Default != nil {
		v, ok, err = x.eval(e.Default, c)
		if err != nil || !ok {
			return v, ok, err
		}
	}
	if !ok {
		return nil, false, nil
	}
	if e.As != "" {
		v, err = convert(v, e.As)
	}
	return v, true, err
}

func (x *exporter) source(e *templates.Expr, c *ctx) (any, bool, error) {
	switch {
	case e.IsConst:
		return e.Const, true, nil
	case e.Input != "":
		if c.item == nil {
			return nil, false, fmt.Errorf("%w: item %q is not in the input", ErrExport, c.rec.Item)
		}
		v, ok := e.InputPath().Lookup(func(root string) (any, bool) {
			switch root {
			case "":
				return c.item.Data, true
			case "$key":
				return c.item.Key, c.item.Key != ""
			case "$id":
				return c.item.ID, true
			}
			return nil, false
		})
		return v, ok, nil
	case e.Element != "":
		if c.element == nil {
			return nil, false, fmt.Errorf("%w: unit %q has no source element in the input", ErrExport, c.rec.Unit)
		}
		v, ok := e.ElementPath().Lookup(func(root string) (any, bool) { return c.element, true })
		return v, ok, nil
	case e.Value != "":
		if c.json == nil {
			c.json = jsonValue(c.values).(map[string]any)
		}
		v, ok := e.ValuePath().Lookup(func(string) (any, bool) { return c.json, true })
		return v, ok, nil
	case e.Meta != "":
		r := c.rec
		v := map[string]string{"unit": r.Unit, "item": r.Item, "annotator": r.Annotator, "batch": r.Batch, "status": r.Status}[e.Meta]
		return v, true, nil
	case e.Object != nil:
		o := ojson.NewObject()
		for _, f := range e.Object {
			v, ok, err := x.eval(f.Expr, c)
			if err != nil {
				return nil, false, err
			}
			if ok {
				o.Set(f.Key, v)
			}
		}
		return o, true, nil
	case e.Each != "":
		out := []any{}
		for _, s := range c.rec.Spans {
			row := records.RowAnswers(x.t, s)
			if e.Where != nil && !e.Where.Holds(answerFunc(row)) {
				continue
			}
			v, ok, err := x.eval(e.Item, x.ctx(c.rec, row))
			if err != nil {
				return nil, false, err
			}
			if ok {
				out = append(out, v)
			}
		}
		return out, true, nil
	case e.JSON != nil:
		v, ok, err := x.eval(e.JSON, c)
		if err != nil || !ok {
			return nil, ok, err
		}
		b, err := ojson.Marshal(v, ojson.Style{})
		return string(b), true, err
	case e.Cases != nil:
		for _, cs := range e.Cases {
			if cs.When.Holds(answerFunc(c.values)) {
				return x.eval(cs.Then, c)
			}
		}
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("%w: empty expression", ErrExport)
}

// answerFunc lets a template condition test typed answers.
func answerFunc(vals map[string]any) templates.AnswerFunc {
	return func(q string) (any, bool) {
		v, ok := vals[q]
		return v, ok
	}
}

// jsonValue is the JSON form of a typed answer, as an export expression's
// path walks it and the native file holds it: objects as map[string]any,
// lists as []any, numbers as json.Number.
func jsonValue(v any) any {
	num := func(n int) json.Number { return json.Number(strconv.Itoa(n)) }
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonValue(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonValue(x)
		}
		return out
	case int:
		return num(v)
	case []string:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = x
		}
		return out
	case []int:
		if v == nil {
			return nil
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = num(x)
		}
		return out
	case records.SpanValue:
		out := map[string]any{"field": v.Field, "text": v.Text}
		if v.Start != nil {
			out["start"] = num(*v.Start)
		}
		if v.End != nil {
			out["end"] = num(*v.End)
		}
		return out
	case records.Evidence:
		return map[string]any{"passage": num(v.Passage), "sentences": jsonValue(v.Sentences)}
	}
	return v
}

// plain turns an ojson value into one templates.Text renders.
func plain(v any) any {
	if o, ok := v.(*ojson.Object); ok {
		m := map[string]any{}
		for _, k := range o.Keys {
			m[k] = plain(o.Vals[k])
		}
		return m
	}
	return v
}

// convert applies an expression's "as".
func convert(v any, as string) (any, error) {
	toInt := func(x any) (any, error) {
		s := templates.Text(plain(x))
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not a whole number", ErrExport, s)
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	list := func() []any {
		if l, ok := v.([]any); ok {
			return l
		}
		return []any{v}
	}
	switch as {
	case "int":
		return toInt(v)
	case "string":
		return templates.Text(plain(v)), nil
	case "ints":
		var out []any
		for _, x := range list() {
			n, err := toInt(x)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		sort.Slice(out, func(i, j int) bool {
			a, _ := out[i].(json.Number).Int64()
			b, _ := out[j].(json.Number).Int64()
			return a < b
		})
		if out == nil {
			out = []any{}
		}
		return out, nil
	case "strings":
		out := []any{}
		for _, x := range list() {
			out = append(out, templates.Text(plain(x)))
		}
		return out, nil
	}
	return v, nil
}

// stillOpaque refuses records that keep their workbook's opaque IDs: the
// native file needs the real ones, which only the study's manifest holds.
func stillOpaque(recs []*records.Annotation, where map[*records.Annotation]string) error {
	for _, r := range recs {
		if r.OpaqueIDs {
			return fmt.Errorf("%s: %w: unit %s has the opaque ID its workbook shows (%w); export with the study's manifest, which holds the real IDs", where[r], ErrExport, r.Unit, decode.ErrOpaqueIDs)
		}
	}
	return nil
}
