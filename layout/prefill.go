package layout

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Prefilled answers (generate --prefill): each unit's given record is
// written into its answer cells, as an annotator would have filled them
// in, and kept twice more: in a hidden, locked copy column beside each
// answer column, so that a conditional format shows a cell in blue
// italics while it still holds the suggestion; and in the unit's row of
// the metadata sheet, in the order shown, which is what pull compares the
// annotator's answers with. The copies are a help to the eye only: pull
// never reads them.

// Prefill modes (Options.PrefillAs).
const (
	PrefillAnswers     = "answers"     // the given values are in the answer cells
	PrefillSuggestions = "suggestions" // shown beside empty answer cells (manifest.PrefillSuggestions)
)

// PrefillMode is how a prefill given as as is shown: PrefillAnswers by
// default.
func PrefillMode(as string) string {
	if as == "" {
		return PrefillAnswers
	}
	return as
}

// PrefillModes are the ways a prefill can be shown.
var PrefillModes = []string{PrefillAnswers, PrefillSuggestions}

// styleSuggestion is a shown suggestion's: read-only, grey and italic, so
// that it is not taken for an answer.
var styleSuggestion = backend.Style{Fill: fillContext, Italic: true, Color: "595959", Wrap: true}

// checkMark says the annotator's ID marks a row checked: answer cells
// prefilled with suggestions cannot tell a kept suggestion from an
// untouched one (see decode's settle).
func (b *builder) checkMark() bool { return b.colOpt.Suggested }

// colourSuggestion is the font of an answer cell that still holds the
// value it was prefilled with.
const colourSuggestion = "1F4E9C"

// MetaPrefill says, in a workbook's metadata, that its answer cells
// started from given records.
type MetaPrefill struct {
	// From is whose answers they are: a model's name, or an annotator's.
	From string `json:"from"`
	// As is how they are shown: PrefillAnswers or PrefillSuggestions.
	As string `json:"as"`
}

// prefilledTexts is a unit's given record, its answers in the places
// shown, and the unit's span fields by name.
func (b *builder) prefilledTexts(it *item, unit string) (*records.Annotation, map[string]string) {
	if b.opt.Prefill == nil {
		return nil, nil
	}
	rec := b.opt.Prefill.Record(unit)
	if rec == nil {
		return nil, nil
	}
	shown := *rec
	if order := b.res.Orders[it.id]; order != nil {
		shown.Values, _ = ShownValues(b.t, rec.Values, order) // the order is the template's: checked when drawn
	}
	fields, _ := b.unitTexts(b.unitEnv(it, b.unitIndex(it, unit)))
	texts := make(map[string]string, len(fields))
	for name, v := range fields {
		texts[name] = v.(string)
	}
	// A span given by its text alone is where pull will find it: once in
	// its field (checkPrefill refuses one found more often).
	place := func(field, text string, start, end **int) {
		if *start != nil || text == "" {
			return
		}
		if f, ok := texts[field]; ok {
			if at := records.Occurrences(f, text); len(at) == 1 {
				s, e := at[0], at[0]+utf8.RuneCountInString(text)
				*start, *end = &s, &e
			}
		}
	}
	shown.Values = maps.Clone(shown.Values)
	for q, v := range shown.Values {
		if sv, ok := v.(records.SpanValue); ok && sv.Start == nil {
			place(sv.Field, sv.Text, &sv.Start, &sv.End)
			shown.Values[q] = sv
		}
	}
	if slices.ContainsFunc(rec.Spans, func(s records.SpanAnswer) bool { return s.Start == nil && s.Text != "" }) {
		shown.Spans = slices.Clone(rec.Spans)
		for i := range shown.Spans {
			s := &shown.Spans[i]
			place(s.Field, s.Text, &s.Start, &s.End)
		}
	}
	return &shown, texts
}

// shownPrefill is a unit's prefilled record as its rows show it, kept
// for the rest of its rows (see prefillCells).
type shownPrefill struct {
	it    *item
	unit  string
	rec   *records.Annotation
	texts map[string]string
}

// prefillOf is prefilledTexts, worked out once for all the rows of a
// unit. checkPrefill does not use it: it runs before a shuffled
// instance's order is drawn.
func (b *builder) prefillOf(it *item, unit string) (*records.Annotation, map[string]string) {
	if p := b.lastPrefill; p.it != it || p.unit != unit {
		rec, texts := b.prefilledTexts(it, unit)
		b.lastPrefill = shownPrefill{it: it, unit: unit, rec: rec, texts: texts}
	}
	return b.lastPrefill.rec, b.lastPrefill.texts
}

// checkPrefill checks what is given for the units of it against the
// units' texts and the sheet: every span where its record says, and
// found there by pull as it was given; evidence within the passages; no
// text longer than a cell; no more spans than a block has rows. Each
// problem names the prefill file's line.
func (b *builder) checkPrefill(it *item) records.Problems {
	g := b.opt.Prefill
	if g == nil {
		return nil
	}
	var bad records.Problems
	for k, unit := range it.units {
		if !g.Has(unit) {
			continue
		}
		b.prefillSeen[unit] = true
		problem := func(format string, args ...any) {
			bad = append(bad, &records.Problem{Severity: records.Error, File: g.Name, Line: g.Line[unit], Record: unit, Err: records.ErrBadValue, Message: fmt.Sprintf(format, args...)})
		}
		// As written: spans given by their text alone placed where pull
		// will find them (and found there, or it is a problem below).
		rec, texts := b.prefilledTexts(it, unit)
		if rec.Item != "" && rec.Item != it.id {
			problem("the record says instance %q, but the unit is of instance %q", rec.Item, it.id)
		}
		_, evidence := b.unitTexts(b.unitEnv(it, k))
		for _, p := range records.SpanTextProblems(rec, texts) {
			problem("%s", p)
		}
		if b.t.Rows.Per == templates.PerBlock && len(rec.Spans) > b.rowCount(it) {
			problem("%d spans, but a block has %d answer rows (rows.answer_rows of the template)", len(rec.Spans), b.rowCount(it))
		}
		for k := range max(1, len(rec.Spans)) {
			for key, v := range b.suggestedCells(rec, k, texts, problem) {
				if s, ok := v.(string); ok && utf8.RuneCountInString(s) > b.opt.CellLimit {
					problem("the answer for column %q is %d characters long, more than a cell holds (%d)", b.cols[slices.IndexFunc(b.cols, func(c templates.ColumnSpec) bool { return c.Key == key })].Header, utf8.RuneCountInString(s), b.opt.CellLimit)
				}
			}
		}
		checkEvidence := func(what string, ev records.Evidence, q string) {
			counts, _ := evidence[q].([]int)
			switch {
			case ev.Passage < 1 || ev.Passage > len(counts):
				problem("%sevidence passage %d: the unit has passages 1 to %d", what, ev.Passage, len(counts))
			default:
				for _, s := range ev.Sentences {
					if s < 0 || s >= counts[ev.Passage-1] {
						problem("%sevidence sentence %d: passage %d has sentences 0 to %d", what, s, ev.Passage, counts[ev.Passage-1]-1)
						break
					}
				}
			}
		}
		for _, q := range slices.Sorted(maps.Keys(rec.Values)) {
			if ev, ok := rec.Values[q].(records.Evidence); ok {
				checkEvidence("", ev, q)
			}
		}
		for i, s := range rec.Spans {
			if s.Evidence != nil {
				checkEvidence(fmt.Sprintf("span %d: ", i+1), *s.Evidence, b.t.RowEvidence())
			}
		}
	}
	return bad
}

// unprefilled reports the given records of units that are none of the
// inputs', once every record of the whole input has been read.
func (b *builder) unprefilled() records.Problems {
	g := b.opt.Prefill
	if g == nil || b.opt.Items != nil {
		// A batch's build reads its own records only.
		return nil
	}
	var bad records.Problems
	for _, unit := range g.Units() {
		if !b.prefillSeen[unit] {
			bad = append(bad, &records.Problem{Severity: records.Error, File: g.Name, Line: g.Line[unit], Record: unit, Err: records.ErrBadValue,
				Message: "no unit of the inputs has this ID"})
		}
	}
	return bad
}

// suggestedCells is what the answer cells of a unit's row k hold when
// prefilled with rec, by column key: the values of rec on a unit's one
// row (a block's first), and the span entry k on a block's row k. texts
// are the unit's span fields, for spans' occurrence numbers; problem
// says what cannot be written so that pull reads it back as given.
func (b *builder) suggestedCells(rec *records.Annotation, k int, texts map[string]string, problem func(string, ...any)) map[string]any {
	t := b.t
	out := map[string]any{}
	values := suggestedValues(t, rec, k)
	for _, name := range slices.Sorted(maps.Keys(values)) {
		q := t.QuestionByName(name)
		if q == nil {
			continue // refused when the record was read
		}
		b.putValue(out, q, values[name], values, texts, problem)
	}
	return out
}

// suggestedValues are the answers rec gives for row k of its unit, by
// question: its values on a unit's one row (a block's first), and a
// block's span entry k on its row k.
func suggestedValues(t *templates.Template, rec *records.Annotation, k int) map[string]any {
	if t.Rows.Per != templates.PerBlock {
		return rec.Values
	}
	values := map[string]any{}
	if k == 0 {
		maps.Copy(values, rec.Values)
	}
	if k < len(rec.Spans) {
		maps.Copy(values, records.RowAnswers(t, rec.Spans[k]))
	}
	return values
}

// putValue writes one typed answer into the cells of its question's
// columns, as an annotator would: a choice's label, a checkbox per
// option, a list's codes, a span's text and, where it occurs more than
// once, its occurrence number. values are the row's answers, of which a
// span's anchor is one.
func (b *builder) putValue(out map[string]any, q *templates.Question, v any, values map[string]any, texts map[string]string, problem func(string, ...any)) {
	key := "q:" + q.Name
	switch q.Type {
	case templates.TypeChoice:
		if o := q.Option(fmt.Sprint(v)); o != nil {
			out[key] = o.Label
		}
	case templates.TypeMulti:
		codes, _ := v.([]string)
		if q.Render == "checkboxes" {
			for _, o := range q.Options {
				out[key+"="+o.Code] = slices.Contains(codes, o.Code)
			}
		} else {
			out[key] = strings.Join(codes, ",")
		}
	case templates.TypeScale, templates.TypeBool, templates.TypeText:
		out[key] = v
	case templates.TypeEvidence:
		ev, _ := v.(records.Evidence)
		sentences := make([]string, len(ev.Sentences))
		for i, s := range ev.Sentences {
			sentences[i] = strconv.Itoa(s)
		}
		out[key+"#"+templates.PartPassage] = ev.Passage
		out[key+"#"+templates.PartSentences] = strings.Join(sentences, ", ")
	case templates.TypeSpan:
		sv, _ := v.(records.SpanValue)
		out[key] = sv.Text
		at := records.Occurrences(texts[sv.Field], sv.Text)
		switch {
		case len(at) == 0 && sv.Start != nil:
			// SpanTextProblems says what the field has there.
		case len(at) == 0:
			problem("question %q: %q is not in %q, so it cannot be found there", q.Name, sv.Text, sv.Field)
		case len(at) > 1 && sv.Start == nil:
			problem("question %q: %q occurs %d times in %q; the record must give its offsets to say which", q.Name, sv.Text, len(at), sv.Field)
		case q.Occurrence:
			if len(at) > 1 && sv.Start != nil {
				out[key+"#"+templates.PartOccurrence] = slices.Index(at, *sv.Start) + 1
			}
		case q.Before != "":
			// Pull reads it as the occurrence nearest before its anchor.
			anchor, _ := values[q.Before].(records.SpanValue)
			read := -1
			for i, start := range at {
				if anchor.Start != nil && start+utf8.RuneCountInString(sv.Text) <= *anchor.Start {
					read = i
				}
			}
			switch {
			case anchor.Start == nil || sv.Start == nil:
			case read < 0:
				problem("question %q: %q does not occur before the answer to %q in %q", q.Name, sv.Text, q.Before, sv.Field)
			case at[read] != *sv.Start:
				problem("question %q: %q at %d would be read as its occurrence nearest before the answer to %q, at %d, and the template has no occurrence column to say otherwise", q.Name, sv.Text, *sv.Start, q.Before, at[read])
			}
		case len(at) > 1 && sv.Start != nil && at[0] != *sv.Start:
			n := slices.Index(at, *sv.Start) + 1
			problem("question %q: %q occurs %d times in %q, and the template has no occurrence column to say it is the %d%s", q.Name, sv.Text, len(at), sv.Field, n, ordinal(n))
		}
	}
}

// ordinal is the suffix of a number said in order: "st", "nd", "rd", "th".
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return "th"
	case n%10 == 1:
		return "st"
	case n%10 == 2:
		return "nd"
	case n%10 == 3:
		return "rd"
	}
	return "th"
}

// prefillCells fills row k of a unit's answer cells, and their hidden
// copies, with what the unit was given.
func (b *builder) prefillCells(it *item, unit string, k int, row *backend.Row) {
	rec, texts := b.prefillOf(it, unit)
	if rec == nil {
		return
	}
	if b.colOpt.Suggestions {
		values := suggestedValues(b.t, rec, k)
		for i, c := range b.cols {
			if c.Role != templates.RoleSuggestion {
				continue
			}
			if v, ok := values[c.Question.Name]; ok {
				text := ShowValue(b.t, c.Question, v)
				if codes, ok := v.([]string); ok && c.Question.Render == "list" {
					text = strings.Join(codes, ",") // as the answer cell takes them
				}
				if sv, ok := v.(records.SpanValue); ok && sv.Start != nil {
					// Which of several places the span is, as the
					// occurrence column or the anchor would say.
					if at := records.Occurrences(texts[sv.Field], sv.Text); len(at) > 1 {
						text += fmt.Sprintf(" (occurrence %d of %d)", slices.Index(at, *sv.Start)+1, len(at))
					}
				}
				text, _ = Clean(text, b.opt.CellLimit)
				row.Cells[i].Value = text
			}
		}
		return
	}
	cells := b.suggestedCells(rec, k, texts, func(string, ...any) {})
	for i, c := range b.cols {
		key := c.Key
		if c.Role == templates.RoleSuggestion {
			key = c.For
		} else if c.Role != templates.RoleAnswer {
			continue
		}
		if v, ok := cells[key]; ok {
			row.Cells[i].Value = v
		}
	}
}

// unitIndex is the position of a unit among the units of it.
func (b *builder) unitIndex(it *item, unit string) int {
	return max(0, slices.Index(it.units, unit))
}

// prefillBlob is what the metadata sheet keeps of a unit's given record:
// its values and spans, in the order shown.
func (b *builder) prefillBlob(it *item, unit string) map[string]any {
	rec, _ := b.prefillOf(it, unit)
	if rec == nil {
		return nil
	}
	blob := map[string]any{"values": rec.Values}
	if len(rec.Spans) > 0 {
		blob["spans"] = rec.Spans
	}
	return blob
}

// suggestionFormats show each answer cell that still holds the value it
// was prefilled with in blue italics: the cell and its hidden copy say
// the same (EXACT, as = would not tell case apart). They come after the
// live checks' fills, so an error's colour still shows.
func (b *builder) suggestionFormats() []backend.ConditionalFormat {
	if !b.colOpt.Suggested || b.rows < 2 {
		return nil
	}
	at := b.at()
	var out []backend.ConditionalFormat
	for i, c := range b.cols {
		if c.Role != templates.RoleSuggestion {
			continue
		}
		j := at[c.For]
		answer, copyCol := backend.ColumnLetter(j), backend.ColumnLetter(i)
		out = append(out, backend.ConditionalFormat{
			FirstRow: 2, LastRow: b.rows, FirstCol: j, LastCol: j,
			Formula: fmt.Sprintf("AND(LEN($%s2)>0,EXACT(%s2,$%s2))", copyCol, answer, copyCol),
			Color:   colourSuggestion, Italic: true,
		})
	}
	return out
}

// prefillMeta is what the workbook's metadata says of its prefill.
func (b *builder) prefillMeta() *MetaPrefill {
	if b.opt.Prefill == nil {
		return nil
	}
	return &MetaPrefill{From: b.opt.Prefill.Annotator, As: b.opt.PrefillAs}
}

// marshalBlob is a unit's metadata as JSON: strings, numbers, lists and
// the records' own types, which cannot fail to marshal.
func marshalBlob(blob map[string]any) string {
	j, _ := json.Marshal(blob)
	return string(j)
}
