package export

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// wideUnit is one row of the wide table: a unit and its records, by
// annotator.
type wideUnit struct {
	unit, item string
	by         map[string]*records.Annotation
}

// wideColumn is a column of the wide table and how a unit fills it.
type wideColumn struct {
	Column
	cell func(u *wideUnit) any
	// from says what made the column, for the error when two columns
	// would have one name.
	from string
}

// Wide builds the wide table of records: a row per unit, in the order
// the units first appear, with the columns WideNames describes. The
// annotators' columns are in the order of their IDs, the gold set's
// (annotator "gold") after them; each question's columns are together,
// the annotators side by side, then the gold value's provenance.
//
// Answers to the unit as a whole have a column each; a block's spans are
// counted, in all and per type (their label's code), for records
// complete or partial; the long table has each span, with its offsets,
// evidence and the row's other answers. A cell is empty when the
// annotator has no record of the unit or did not answer. A unit nobody
// claimed that is in several batches (its copies all unanswered) shows
// its first copy.
func Wide(t *templates.Template, recs []*records.Annotation, opt TableOptions) (*Table, error) {
	recs, err := prepareTable(t, recs, opt)
	if err != nil {
		return nil, err
	}
	var units []*wideUnit
	byID := map[string]*wideUnit{}
	seen := map[string]bool{}
	for _, r := range recs {
		u := byID[r.Unit]
		if u == nil {
			u = &wideUnit{unit: r.Unit, item: r.Item, by: map[string]*records.Annotation{}}
			byID[r.Unit] = u
			units = append(units, u)
		}
		if prev, ok := u.by[r.Annotator]; ok && (answered(prev) || !answered(r)) {
			continue
		}
		u.by[r.Annotator] = r
		seen[r.Annotator] = true
	}
	var names []string
	for a := range seen {
		if a != records.GoldAnnotator {
			names = append(names, a)
		}
	}
	slices.Sort(names)
	gold := seen[records.GoldAnnotator]
	if gold {
		names = append(names, records.GoldAnnotator)
	}

	cols := []wideColumn{
		{Column{Name: "unit", Kind: KindString}, func(u *wideUnit) any { return u.unit }, "the unit ID"},
		{Column{Name: "item", Kind: KindString}, func(u *wideUnit) any { return u.item }, "the input record"},
	}
	// perAnnotator adds a column per annotator, named prefix__ID.
	perAnnotator := func(prefix string, kind Kind, from string, cell func(r *records.Annotation) any) {
		for _, a := range names {
			cols = append(cols, wideColumn{Column{Name: prefix + WideSeparator + a, Kind: kind}, func(u *wideUnit) any {
				if r := u.by[a]; r != nil {
					return cell(r)
				}
				return nil
			}, fmt.Sprintf("%s and annotator %q", from, a)})
		}
	}
	perAnnotator("batch", KindString, "the batch column", func(r *records.Annotation) any { return r.Batch })
	perAnnotator("status", KindString, "the status column", func(r *records.Annotation) any { return r.Status })
	provenance := func(name string, kind func(r *records.Annotation) any) {
		if !gold {
			return
		}
		cols = append(cols, wideColumn{Column{Name: name + WideSeparator + records.GoldAnnotator + "_provenance", Kind: KindString}, func(u *wideUnit) any {
			if r := u.by[records.GoldAnnotator]; r != nil {
				return kind(r)
			}
			return nil
		}, fmt.Sprintf("the gold provenance of %q", name)})
	}
	for _, q := range unitQuestions(t) {
		from := fmt.Sprintf("question %q", q.Name)
		if q.Type == templates.TypeMulti {
			for _, o := range q.Options {
				perAnnotator(q.Name+"="+o.Code, KindBool, fmt.Sprintf("%s, code %q", from, o.Code), func(r *records.Annotation) any {
					codes, ok := r.Values[q.Name].([]string)
					if !ok {
						return nil
					}
					return slices.Contains(codes, o.Code)
				})
			}
		} else {
			perAnnotator(q.Name, wideKind(q.Type), from, func(r *records.Annotation) any { return wideCell(r.Values[q.Name]) })
		}
		provenance(q.Name, func(r *records.Annotation) any {
			if p := r.Provenance[q.Name]; p != nil {
				return p.Kind
			}
			return nil
		})
	}
	if t.Rows.Per == templates.PerBlock {
		spans := t.Rows.Spans
		from := fmt.Sprintf("the spans %q", spans)
		perAnnotator(spans, KindInt, from, func(r *records.Annotation) any {
			if !counted(r) {
				return nil
			}
			return int64(len(r.Spans))
		})
		if label := t.QuestionByName(t.Rows.Label); label != nil {
			for _, o := range label.Options {
				perAnnotator(spans+"="+o.Code, KindInt, fmt.Sprintf("%s, type %q", from, o.Code), func(r *records.Annotation) any {
					if !counted(r) {
						return nil
					}
					n := 0
					for _, s := range r.Spans {
						if s.Code == o.Code {
							n++
						}
					}
					return int64(n)
				})
			}
		}
		provenance(spans, spansProvenance(spans))
	}

	tb := &Table{}
	named := map[string]string{}
	for _, c := range cols {
		if other, dup := named[c.Name]; dup {
			return nil, fmt.Errorf("%w: the wide table would have two columns named %q: from %s and from %s; use the long table, or rename the question or annotator", ErrExport, c.Name, other, c.from)
		}
		named[c.Name] = c.from
		tb.Columns = append(tb.Columns, c.Column)
	}
	for _, u := range units {
		row := make([]any, len(cols))
		for i, c := range cols {
			row[i] = c.cell(u)
		}
		tb.Rows = append(tb.Rows, row)
	}
	return tb, nil
}

// answered reports whether a record has any answer.
func answered(r *records.Annotation) bool {
	return len(r.Values) > 0 || len(r.Spans) > 0
}

// counted reports whether a record's spans are counted: it was read and
// answered, so that no span is an answer too.
func counted(r *records.Annotation) bool {
	return r.Status == records.StatusComplete || r.Status == records.StatusPartial
}

// wideKind is the kind of a question's wide column (all but multi).
func wideKind(typ string) Kind {
	switch typ {
	case templates.TypeScale:
		return KindInt
	case templates.TypeBool:
		return KindBool
	}
	return KindString
}

// wideCell is one answer in the wide table, as wideKind says: a code or
// a text, a number, a bool; a span's text; evidence as passage:sentences.
func wideCell(v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case string, bool:
		return v
	case int:
		return int64(v)
	case records.SpanValue:
		return v.Text
	case records.Evidence:
		return strconv.Itoa(v.Passage) + ":" + sentences(v.Sentences)
	}
	return fmt.Sprint(v)
}

// spansProvenance is the provenance of a gold record's spans: the
// record's own for them when it has one (unresolved), else the kind
// all its spans share, else "mixed" (the long table has each).
func spansProvenance(spans string) func(r *records.Annotation) any {
	return func(r *records.Annotation) any {
		if p := r.Provenance[spans]; p != nil {
			return p.Kind
		}
		kind := ""
		for _, s := range r.Spans {
			if s.Provenance == nil {
				continue
			}
			switch {
			case kind == "":
				kind = s.Provenance.Kind
			case kind != s.Provenance.Kind:
				return "mixed"
			}
		}
		if kind == "" {
			return nil
		}
		return kind
	}
}
