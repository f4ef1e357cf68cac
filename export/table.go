package export

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Kind is the type of a table column's cells.
type Kind int

// Column kinds. A cell of any kind may be empty (nil; null in Parquet).
const (
	KindString Kind = iota // a string
	KindInt                // an int64
	KindBool               // a bool
)

func (k Kind) String() string {
	switch k {
	case KindInt:
		return "int64"
	case KindBool:
		return "bool"
	}
	return "string"
}

// Column is one column of an analysis table.
type Column struct {
	Name string
	Kind Kind
	// Doc says what the column holds (for the long table's fixed
	// columns; the wide table's are named by pattern, see WideNames).
	Doc string
}

// Table is an analysis table: typed columns, and rows of cells, each nil
// (no value) or of its column's kind: string, int64 or bool.
type Table struct {
	Columns []Column
	Rows    [][]any
}

// Table shapes.
const (
	TableLong = "long" // a row per (unit, annotator, question, value): see LongColumns
	TableWide = "wide" // a row per unit, a column per (question, annotator): see WideNames
)

// TableOptions tune Long and Wide.
type TableOptions struct {
	// Orders are the study's candidate orders (from its manifest), for
	// records still in the order shown.
	Orders map[string][]string
	// Origins name where records were read from, for errors.
	Origins records.Origins
	// Gold is a gold set (the pull of an adjudication) to put beside the
	// annotators: records of annotator "gold", which the records given
	// may hold too.
	Gold []*records.Annotation
	// CompleteOnly leaves out every record that is not complete, the gold
	// set's too; Annotators, when set, keeps these annotators' records
	// only (and the gold set's). Both are applied once the records are
	// compared, so that leaving some out cannot hide a contradiction.
	CompleteOnly bool
	Annotators   []string
}

// keeps reports whether a table keeps a record, as CompleteOnly and
// Annotators say.
func (opt TableOptions) keeps(r *records.Annotation) bool {
	if opt.CompleteOnly && r.Status != records.StatusComplete {
		return false
	}
	return len(opt.Annotators) == 0 || slices.Contains(opt.Annotators, r.Annotator) || r.Annotator == records.GoldAnnotator
}

// listSeparator joins the sentence numbers of an evidence answer in a
// table cell ("0,3").
const listSeparator = ","

// WideSeparator goes between a question (or a fixed column's name) and
// the annotator in the wide table's column names: gaps__ak.
const WideSeparator = "__"

// The long table's columns, in order.
var longColumns = []Column{
	{"batch", KindString, "the batch of the record (each annotator's workbook is a batch)"},
	{"unit", KindString, "the unit: what one annotator judges once (a row, or a block of rows)"},
	{"item", KindString, "the input record (instance) the unit belongs to"},
	{"annotator", KindString, `the annotator's ID; "gold" for the gold set; empty for a unit nobody claimed`},
	{"status", KindString, "the record's status: complete, partial, empty, missing or unreadable"},
	{"question", KindString, "the question's name; for a span row, the name the template gives its spans (errors in qa-span-errors); empty on the one row of a record without answers"},
	{"question_type", KindString, "choice, multi, scale, bool, text, span or evidence"},
	{"value", KindString, "the answer as text: a choice's code, one code of a multi (a row per code; empty for an empty selection), a scale's number, true or false, a text; a span row's type (its label's code); empty for span and evidence answers (see span_* and evidence_*)"},
	{"label", KindString, "the label shown for the code in value (choice, multi, a span row's type)"},
	{"number", KindInt, "a scale's answer as a number"},
	{"span_index", KindInt, "the answer row of the unit's spans (from 1) the row belongs to: the span itself and the row's other answers share it; empty for answers to the unit as a whole"},
	{"span_field", KindString, "the context field a span was copied from"},
	{"span_start", KindInt, "where the span starts in that field, in characters (Unicode code points) from 0; empty when the span was not found, or for missing information"},
	{"span_end", KindInt, "where the span ends (exclusive)"},
	{"span_text", KindString, "the span's text, as copied"},
	{"evidence_passage", KindInt, "the passage the evidence points to, from 1"},
	{"evidence_sentences", KindString, "its sentence numbers (0 is the title), joined with commas: 0,3"},
	{"provenance", KindString, "for the gold set: how the value was decided (unanimous, majority, adjudicated, unresolved); empty for annotators"},
}

// LongColumns are the long table's columns, in order: their names are
// stable, and every long table has all of them.
func LongColumns() []Column { return slices.Clone(longColumns) }

// ColumnsHelp lists the columns of both tables for a help text: each
// long column with what it holds, wrapped at 70 characters, then how
// the wide table names its columns (WideNames).
func ColumnsHelp() string {
	var b strings.Builder
	for _, c := range longColumns {
		fmt.Fprintf(&b, "   %-18s %s\n", c.Name, words.Wrap(c.Doc, 70, strings.Repeat(" ", 22)))
	}
	b.WriteString("\nThe wide table has a row per unit; its columns:\n")
	for _, line := range strings.Split(WideNames, "\n") {
		b.WriteString("   " + line + "\n")
	}
	return b.String()
}

// WideNames says how the wide table names its columns, for help texts:
// the fixed columns, then patterns of question and annotator.
const WideNames = "unit, item: the unit and its input record\n" +
	"batch__A, status__A: annotator A's batch and status of the unit (A is gold for the gold set)\n" +
	"Q__A: annotator A's answer to question Q: a choice's code, a scale's number, a bool, a text,\n" +
	"  a span's text, evidence as passage:sentences (2:0,3)\n" +
	"Q=CODE__A: for a multi question, whether A selected CODE (true or false; empty when unanswered)\n" +
	"S__A, S=CODE__A: for the spans S of a block (errors), how many A marked, in all and of each type\n" +
	"Q__gold_provenance: how the gold value of Q was decided"

// prepareTable checks the records and the gold set of a table and gives
// them in the table's order, the gold set last: every record of the
// template, with its real IDs, its answers on their own candidates, one
// per unit and annotator (identical copies kept once), those opt keeps.
func prepareTable(t *templates.Template, recs []*records.Annotation, opt TableOptions) ([]*records.Annotation, error) {
	for _, r := range opt.Gold {
		if r.Annotator != records.GoldAnnotator {
			return nil, fmt.Errorf("%s: %w: unit %s is a record of annotator %q; a gold set's records are annotator %q's", opt.Origins.Name(r), ErrExport, r.Unit, r.Annotator, records.GoldAnnotator)
		}
	}
	recs = slices.Concat(recs, opt.Gold)
	where := map[*records.Annotation]string{}
	for _, r := range recs {
		where[r] = opt.Origins.Name(r)
		if r.Template.Name != t.Name || r.Template.Version != t.Version {
			return nil, fmt.Errorf("%s: %w: a record of template %s version %d among those of %s version %d", where[r], ErrExport, r.Template.Name, r.Template.Version, t.Name, t.Version)
		}
	}
	if err := stillOpaque(recs, where); err != nil {
		return nil, err
	}
	recs, _, err := records.Distinct(recs, opt.Origins)
	if err != nil {
		return nil, err
	}
	out := make([]*records.Annotation, 0, len(recs))
	var gold []*records.Annotation
	for _, r := range recs {
		if !opt.keeps(r) {
			continue
		}
		r, err := unshuffled(t, r, opt.Orders, where[r])
		if err != nil {
			return nil, err
		}
		if r.Annotator == records.GoldAnnotator {
			gold = append(gold, r)
		} else {
			out = append(out, r)
		}
	}
	return append(out, gold...), nil
}

// unitQuestions are the questions answered once per unit (in the record's
// values), in the template's order: all of them, or in a block layout
// those asked once per block.
func unitQuestions(t *templates.Template) []*templates.Question {
	var qs []*templates.Question
	for i := range t.Questions {
		q := &t.Questions[i]
		if t.Rows.Per != templates.PerBlock || q.Scope == "block" {
			qs = append(qs, q)
		}
	}
	return qs
}

// Long builds the long table of records: a row per (unit, annotator,
// question, value), with the columns LongColumns lists. Records of
// annotator "gold" are the gold set; they come after the annotators'.
//
// Rows, record by record in the order given: each answer to the unit
// (in the template's order; a multi gives a row per selected code), then
// each span of a block, followed by the other answers of its row (the
// repeated text of a repetition, say) on rows of their own that share its
// span_index. An unanswered question has no row; a question the gold set
// left unresolved has one, with provenance "unresolved" and no value (and
// one it carries the annotators' answers of, "carried"). A
// record without any of these (empty, missing) has one row, with the
// question empty, so that every unit and its status can be counted.
func Long(t *templates.Template, recs []*records.Annotation, opt TableOptions) (*Table, error) {
	recs, err := prepareTable(t, recs, opt)
	if err != nil {
		return nil, err
	}
	tb := &Table{Columns: LongColumns()}
	col := map[string]int{}
	for i, c := range tb.Columns {
		col[c.Name] = i
	}
	for _, r := range recs {
		n := len(tb.Rows)
		base := func() []any {
			row := make([]any, len(tb.Columns))
			row[col["batch"]], row[col["unit"]], row[col["item"]] = r.Batch, r.Unit, r.Item
			row[col["annotator"]], row[col["status"]] = r.Annotator, r.Status
			return row
		}
		provenance := func(p *records.Provenance) any {
			if p == nil || r.Annotator != records.GoldAnnotator {
				return nil
			}
			return p.Kind
		}
		// answer adds the rows of one answer: a row, or a multi's row per
		// code.
		answer := func(q *templates.Question, v any, spanIndex any, prov any) {
			cells := answerCells(q, v)
			for _, c := range cells {
				row := base()
				row[col["question"]], row[col["question_type"]] = q.Name, q.Type
				row[col["span_index"]], row[col["provenance"]] = spanIndex, prov
				for k, x := range c {
					row[col[k]] = x
				}
				tb.Rows = append(tb.Rows, row)
			}
		}
		for _, q := range unitQuestions(t) {
			if v, ok := r.Values[q.Name]; ok {
				answer(q, v, nil, provenance(r.Provenance[q.Name]))
			}
		}
		for k, s := range r.Spans {
			row := base()
			idx := int64(k + 1)
			row[col["question"]], row[col["question_type"]] = s.Question, templates.TypeSpan
			row[col["span_index"]] = idx
			row[col["value"]], row[col["label"]] = text(s.Code), text(s.Label)
			row[col["span_field"]], row[col["span_text"]] = text(s.Field), text(s.Text)
			row[col["span_start"]], row[col["span_end"]] = intCell(s.Start), intCell(s.End)
			if s.Evidence != nil {
				row[col["evidence_passage"]] = int64(s.Evidence.Passage)
				row[col["evidence_sentences"]] = sentences(s.Evidence.Sentences)
			}
			prov := provenance(s.Provenance)
			row[col["provenance"]] = prov
			tb.Rows = append(tb.Rows, row)
			for i := range t.Questions {
				if v, ok := s.Values[t.Questions[i].Name]; ok {
					answer(&t.Questions[i], v, idx, prov)
				}
			}
		}
		if r.Annotator == records.GoldAnnotator {
			for _, name := range unsettled(t, r) {
				row := base()
				row[col["question"]], row[col["question_type"]] = name, questionType(t, name)
				row[col["provenance"]] = r.Provenance[name].Kind
				tb.Rows = append(tb.Rows, row)
			}
		}
		if len(tb.Rows) == n {
			tb.Rows = append(tb.Rows, base())
		}
	}
	return tb, nil
}

// unsettled names the questions (and the spans) a gold record has no
// value for, left unresolved or with the annotators' answers carried, in
// the template's order.
func unsettled(t *templates.Template, r *records.Annotation) []string {
	var names []string
	for _, q := range unitQuestions(t) {
		names = append(names, q.Name)
	}
	if t.Rows.Per == templates.PerBlock {
		names = append(names, t.Rows.Spans)
	}
	return slices.DeleteFunc(names, func(name string) bool {
		p := r.Provenance[name]
		_, answered := r.Values[name]
		return p == nil || p.Settled() || answered
	})
}

// questionType is the type of a question, or span for a block's spans.
func questionType(t *templates.Template, name string) string {
	if q := t.QuestionByName(name); q != nil {
		return q.Type
	}
	return templates.TypeSpan
}

// answerCells are the cells of one answer, by column name: one set for
// most answers, one per code of a multi (one with an empty value for an
// empty selection).
func answerCells(q *templates.Question, v any) []map[string]any {
	switch v := v.(type) {
	case []string:
		if len(v) == 0 {
			return []map[string]any{{"value": ""}}
		}
		out := make([]map[string]any, len(v))
		for i, code := range v {
			out[i] = map[string]any{"value": code, "label": optionLabel(q, code)}
		}
		return out
	case string:
		if q.Type == templates.TypeChoice {
			return []map[string]any{{"value": v, "label": optionLabel(q, v)}}
		}
		return []map[string]any{{"value": v}}
	case int:
		return []map[string]any{{"value": strconv.Itoa(v), "number": int64(v)}}
	case bool:
		return []map[string]any{{"value": strconv.FormatBool(v)}}
	case records.SpanValue:
		return []map[string]any{{"span_field": text(v.Field), "span_start": intCell(v.Start), "span_end": intCell(v.End), "span_text": v.Text}}
	case records.Evidence:
		return []map[string]any{{"evidence_passage": int64(v.Passage), "evidence_sentences": sentences(v.Sentences)}}
	}
	// Typed records hold nothing else (records.TypedValues).
	return []map[string]any{{"value": fmt.Sprint(v)}}
}

// optionLabel is the label of a code, or nil when the question has no
// such option.
func optionLabel(q *templates.Question, code string) any {
	if o := q.Option(code); o != nil {
		return o.Label
	}
	return nil
}

// text is a string cell: nil for "".
func text(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// intCell is an int64 cell, nil for nil.
func intCell(p *int) any {
	if p == nil {
		return nil
	}
	return int64(*p)
}

// sentences joins sentence numbers with listSeparator.
func sentences(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, listSeparator)
}
