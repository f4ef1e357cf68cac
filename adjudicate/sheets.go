package adjudicate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// Reasons an adjudicator gives for a decision (the Reason column's list).
var Reasons = []string{"annotator error", "guideline unclear", "both acceptable", "other"}

// What the Decision column of the spans sheet offers, besides an
// annotator's name (that annotator's version).
const (
	DecideKeep = "keep" // the suggested version
	DecideDrop = "drop" // no span here
	DecideEdit = "edit" // the span in Final span, typed Final type
)

// UseSuggested is the Use column's word for the suggested answer.
const UseSuggested = "suggested"

// Sheet names of an adjudication workbook besides the questions' own.
const (
	SheetSummary = "Summary"
	SheetSpans   = "Spans"
)

// Column keys of the adjudication sheets; a multi's Final has a column
// per option, "final=CODE".
const (
	colID        = "id"
	colUnit      = "unit"
	colWhere     = "where"
	colSuggested = "suggested"
	colFinal     = "final"
	colUse       = "use"
	colDecision  = "decision"
	colType      = "final_type"
	colSpan      = "final_span"
	colReason    = "reason"
	colNote      = "note"
	prefContext  = "context:"
	prefAnn      = "annotator:"
)

// Book is one adjudication workbook: its items and how to show them.
type Book struct {
	Template     *templates.Template
	Adjudication string // the adjudication's ID
	Workbook     int    // its index in the adjudication
	Adjudicator  string
	Items        []*Item
	// Annotators are the study's annotators; Names how each is shown
	// ("Annotator 1" …, or the IDs themselves).
	Annotators, Names []string
	// Context gives a unit's context texts by context name, as the
	// annotators' workbooks showed them; nil shows no context.
	Context func(unit string) map[string]string
	// Shown is the unit ID the sheet shows (an opaque one); nil shows the
	// unit's own.
	Shown func(unit string) string
	// Filled holds cells an adjudicator filled in an earlier version of
	// the workbook, by item ID and column key: written again as they were.
	Filled map[string]map[string]backend.ReadCell
	// Summary is what the Summary sheet counts.
	Summary Summary
	// Limits are the backend's.
	Limits backend.Limits
}

// Summary counts what was accepted without an adjudicator and what is
// left to decide, by question.
type Summary struct {
	Units, Annotators int
	Questions         []QuestionCount
}

// QuestionCount is one question's line of the summary.
type QuestionCount struct {
	Question, Header              string
	Unanimous, Majority, ToDecide int
	// Carried counts the units whose answers to a question that is not
	// adjudicated differ: the gold set carries each.
	Carried int
}

// Meta is what an adjudication workbook records about itself, on its
// hidden sheet: which adjudication it belongs to and where its columns
// are, so that its pull maps columns an adjudicator moved or renamed.
type Meta struct {
	Kind         string             `json:"kind"` // "adjudication"
	Format       int                `json:"format"`
	Adjudication string             `json:"adjudication"`
	Workbook     int                `json:"workbook"`
	Adjudicator  string             `json:"adjudicator"`
	Template     layout.TemplateRef `json:"template"`
	Sheets       []MetaSheet        `json:"sheets"`
}

// MetaSheet is one adjudication sheet: its question and columns.
type MetaSheet struct {
	Name     string              `json:"name"`
	Kind     string              `json:"kind"`
	Question string              `json:"question"`
	Columns  []layout.MetaColumn `json:"columns"`
}

// MetaKind marks an adjudication workbook's metadata.
const MetaKind = decode.MetaAdjudication

// column is one column of an adjudication sheet.
type column struct {
	key, header string
	width       float64
	input       bool // the adjudicator's: unlocked
	validation  *backend.Validation
	q           *templates.Question
	option      *templates.Option
	// annotator is whose answers an annotator's column shows: its key
	// names them by number only, as the metadata must not hold their IDs.
	annotator string
}

// sheetOf is one adjudication sheet being built.
type sheetOf struct {
	name  string
	kind  string
	q     *templates.Question
	items []*Item
	cols  []column
	names []int // the annotators shown, by index into Book.Annotators
	// cells are the locked cells' texts, by item and column, as shown;
	// read the Read sheet's row the item's ID links to (0: none).
	cells [][]string
	read  []int
}

// Plan lays a book out: a sheet per question with disagreements, one for
// the span clusters, a Summary, Instructions, the lists the dropdowns
// offer, and the hidden metadata.
func Plan(b *Book) (*backend.Plan, error) {
	t := b.Template
	sheets := b.sheets()
	lists := &listSheet{}
	var out []*backend.Sheet
	meta := Meta{Kind: MetaKind, Format: 1, Adjudication: b.Adjudication, Workbook: b.Workbook, Adjudicator: b.Adjudicator,
		Template: layout.TemplateRef{Name: t.Name, Version: t.Version, SHA256: t.Hash()}}
	rs := layout.NewReadSheet(b.Limits.CellChars)
	for _, s := range sheets {
		b.columns(s, lists)
		b.fit(s, rs)
		out = append(out, b.sheet(s))
		ms := MetaSheet{Name: s.name, Kind: s.kind, Question: s.items[0].Question}
		for i, c := range s.cols {
			ms.Columns = append(ms.Columns, layout.MetaColumn{Key: c.key, Header: c.header, Index: i})
		}
		meta.Sheets = append(meta.Sheets, ms)
	}
	out = append([]*backend.Sheet{b.summarySheet(sheets)}, out...)
	out = append(out, b.instructions(sheets))
	if r := rs.Sheet(); r != nil {
		out = append(out, r)
	}
	out = append(out, lists.sheet())
	ms, err := metaSheet(meta, sheets)
	if err != nil {
		return nil, err
	}
	out = append(out, ms)
	active := 0
	if len(sheets) > 0 {
		active = 1
	}
	return &backend.Plan{Title: fmt.Sprintf("%s adjudication · %s", t.Name, b.Adjudicator), Sheets: out, Active: active}, nil
}

// sheets groups the book's items by question, in the template's order,
// the span clusters last.
func (b *Book) sheets() []*sheetOf {
	t := b.Template
	byQ := map[string]*sheetOf{}
	used := map[string]bool{}
	for _, n := range []string{SheetSummary, backend.SheetInstructions, backend.SheetLists, backend.SheetMeta, backend.SheetRead} {
		used[n], used[strings.ToLower(n)] = true, true
	}
	var out []*sheetOf
	add := func(name string) *sheetOf {
		if s, ok := byQ[name]; ok {
			return s
		}
		s := &sheetOf{q: t.QuestionByName(name), kind: KindValue}
		if name == t.Rows.Spans {
			s.kind, s.name = KindSpans, uniqueName(SheetSpans, used)
		} else {
			s.name = uniqueName(s.q.Header, used)
		}
		byQ[name] = s
		return s
	}
	for i := range t.Questions {
		for _, it := range b.Items {
			if it.Question == t.Questions[i].Name && it.Kind == KindValue {
				s := add(it.Question)
				s.items = append(s.items, it)
			}
		}
	}
	for _, it := range b.Items {
		if it.Kind == KindSpans {
			s := add(it.Question)
			s.items = append(s.items, it)
		}
	}
	for _, s := range byQ {
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, c *sheetOf) int { return order(t, a) - order(t, c) })
	for _, s := range out {
		seen := map[string]bool{}
		for _, it := range s.items {
			for _, a := range it.Answers {
				seen[a.Annotator] = true
			}
		}
		for i, a := range b.Annotators {
			if seen[a] {
				s.names = append(s.names, i)
			}
		}
	}
	return out
}

// order places a sheet: its question's place in the template, spans last.
func order(t *templates.Template, s *sheetOf) int {
	if s.kind == KindSpans {
		return len(t.Questions)
	}
	for i := range t.Questions {
		if &t.Questions[i] == s.q {
			return i
		}
	}
	return len(t.Questions)
}

// uniqueName makes a sheet name from a header: at most 31 characters,
// none of those sheet names refuse, and not yet used.
func uniqueName(header string, used map[string]bool) string {
	base := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) || r < ' ' {
			return ' '
		}
		return r
	}, header)
	base = strings.Trim(strings.Join(strings.Fields(base), " "), "'")
	if base == "" {
		base = "Question"
	}
	base = cutRunes(base, 31)
	name := base
	for n := 2; used[strings.ToLower(name)] || used[name]; n++ {
		suffix := " " + strconv.Itoa(n)
		name = cutRunes(base, 31-len(suffix)) + suffix
	}
	used[name], used[strings.ToLower(name)] = true, true
	return name
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// columns lays out a sheet's columns.
func (b *Book) columns(s *sheetOf, lists *listSheet) {
	t := b.Template
	s.cols = []column{{key: colID, header: "Decision ID", width: 11}, {key: colUnit, header: unitHeader(t), width: 14}}
	if b.Context != nil {
		for i := range t.Context {
			cx := &t.Context[i]
			s.cols = append(s.cols, column{key: prefContext + cx.Name, header: cx.Header, width: contextWidth(cx)})
		}
	}
	if s.kind == KindSpans {
		s.cols = append(s.cols, column{key: colWhere, header: "Where", width: 18})
	}
	width := 22.0
	if s.kind == KindSpans || s.q.Type == templates.TypeText {
		width = 36
	}
	for _, i := range s.names {
		s.cols = append(s.cols, column{key: prefAnn + strconv.Itoa(i+1), header: b.Names[i], width: width, annotator: b.Annotators[i]})
	}
	s.cols = append(s.cols, column{key: colSuggested, header: "Suggested", width: width})
	last := len(s.items) + 1
	valid := func(v backend.Validation) *backend.Validation {
		v.FirstRow, v.LastRow = 2, last
		return &v
	}
	names := make([]string, len(s.names))
	for k, i := range s.names {
		names[k] = b.Names[i]
	}
	reason := column{key: colReason, header: "Reason", width: 18, input: true, validation: valid(lists.list("Reason", Reasons, backend.Validation{
		PromptTitle: "Reason", Prompt: "Why the final answer is what it is.", Strict: true, ErrorTitle: "Reason", Error: "Pick one of: " + strings.Join(Reasons, "; ")}))}
	note := column{key: colNote, header: "Note", width: 30, input: true, validation: valid(backend.Validation{Kind: backend.ValidAny, PromptTitle: "Note", Prompt: "Optional: anything worth keeping about this decision."})}
	if s.kind == KindSpans {
		decisions := append([]string{DecideKeep, DecideDrop, DecideEdit}, names...)
		s.cols = append(s.cols, column{key: colDecision, header: "Decision", width: 14, input: true, validation: valid(lists.list("Decision", decisions, backend.Validation{
			PromptTitle: "Decision", Strict: true, ErrorTitle: "Decision", Error: "Pick one of: " + strings.Join(decisions, "; "),
			Prompt: "keep: the suggested version; drop: no span here; edit: the span in Final span; an annotator: that annotator's version."}))})
		if lq := t.QuestionByName(t.Rows.Label); lq != nil {
			s.cols = append(s.cols, column{key: colType, header: "Final type", width: 20, input: true, q: lq, validation: valid(b.questionValidation(lq, nil, lists))})
		}
		s.cols = append(s.cols, column{key: colSpan, header: "Final span", width: 30, input: true, validation: valid(backend.Validation{Kind: backend.ValidAny,
			PromptTitle: "Final span", Prompt: "With edit: copy the span's text exactly from its field. Leave empty for a row without a span."})})
		s.cols = append(s.cols, reason, note)
		return
	}
	q := s.q
	if q.Type == templates.TypeMulti {
		for k := range q.Options {
			o := &q.Options[k]
			s.cols = append(s.cols, column{key: colFinal + "=" + o.Code, header: "Final: " + layout.OptionName(q, o.Code), width: 12, input: true, q: q, option: o, validation: valid(b.questionValidation(q, o, lists))})
		}
	} else {
		w := 16.0
		if q.Type == templates.TypeText || q.Type == templates.TypeSpan {
			w = 36
		}
		s.cols = append(s.cols, column{key: colFinal, header: "Final", width: w, input: true, q: q, validation: valid(b.questionValidation(q, nil, lists))})
	}
	uses := append([]string{UseSuggested}, names...)
	s.cols = append(s.cols, column{key: colUse, header: "Or use", width: 14, input: true, validation: valid(lists.list("Or use", uses, backend.Validation{
		PromptTitle: "Or use", Strict: true, ErrorTitle: "Or use", Error: "Pick one of: " + strings.Join(uses, "; "),
		Prompt: "Instead of typing Final: take the suggested answer, or an annotator's."}))})
	s.cols = append(s.cols, reason, note)
}

// unitHeader heads the column of unit IDs, as the annotators' sheets do.
func unitHeader(t *templates.Template) string {
	if t.Rows.IDHeader == "" {
		return "ID"
	}
	return t.Rows.IDHeader
}

// contextWidth is a context column's width: the template's, or 40.
func contextWidth(cx *templates.Context) float64 {
	if cx.Width == 0 {
		return 40
	}
	return cx.Width
}

// questionValidation is a Final cell's validation: the question's own.
func (b *Book) questionValidation(q *templates.Question, o *templates.Option, lists *listSheet) backend.Validation {
	v := backend.Validation{Kind: backend.ValidAny, PromptTitle: q.Header, Prompt: q.Description, ErrorTitle: q.Header}
	switch {
	case o != nil:
		v.Kind, v.Strict = backend.ValidCheckbox, true
		v.Prompt = o.Label
		if o.Description != "" {
			v.Prompt += ": " + o.Description
		}
		v.Error = "Enter TRUE (ticked) or FALSE."
	case q.Type == templates.TypeChoice:
		var labels []string
		for _, o := range q.Options {
			labels = append(labels, o.Label)
		}
		v = lists.list(q.Header, labels, v)
		v.Strict, v.Error = true, "Pick one of: "+strings.Join(labels, "; ")
	case q.Type == templates.TypeBool:
		v.Kind, v.Strict, v.Error = backend.ValidCheckbox, true, "Enter TRUE (ticked) or FALSE."
	case q.Type == templates.TypeScale:
		v.Kind, v.Strict, v.Min, v.Max = backend.ValidWhole, true, *q.Min, *q.Max
		v.Error = fmt.Sprintf("Enter a whole number from %d to %d.", *q.Min, *q.Max)
	}
	return v
}

// listSheet gathers the lists the dropdowns offer, a column each.
type listSheet struct {
	headers []string
	values  [][]string
}

// list makes v a dropdown of values, held on the Lists sheet too.
func (l *listSheet) list(header string, values []string, v backend.Validation) backend.Validation {
	col := -1
	for i := range l.headers {
		if l.headers[i] == header && slices.Equal(l.values[i], values) {
			col = i
		}
	}
	if col < 0 {
		l.headers, l.values = append(l.headers, header), append(l.values, values)
		col = len(l.headers) - 1
	}
	letter := backend.ColumnLetter(col)
	v.Kind, v.Values = backend.ValidList, values
	v.Source = fmt.Sprintf("%s!$%s$2:$%s$%d", backend.SheetLists, letter, letter, len(values)+1)
	return v
}

func (l *listSheet) sheet() *backend.Sheet {
	rows := 1
	for _, v := range l.values {
		rows = max(rows, len(v)+1)
	}
	cols := make([]backend.Column, max(1, len(l.headers)))
	for i := range cols {
		cols[i] = backend.Column{Width: 30}
	}
	return &backend.Sheet{
		Name: backend.SheetLists, Visibility: backend.Hidden, Columns: cols, RowCount: rows, Protect: &backend.Protection{},
		Rows: func(emit func(backend.Row) error) error {
			for r := 0; r < rows; r++ {
				row := backend.Row{Cells: make([]backend.Cell, len(cols))}
				for i := range l.headers {
					switch {
					case r == 0:
						row.Cells[i] = backend.Cell{Value: l.headers[i], Style: backend.Style{Bold: true}}
					case r-1 < len(l.values[i]):
						row.Cells[i] = backend.Cell{Value: l.values[i][r-1]}
					}
				}
				if err := emit(row); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// sheet renders one adjudication sheet.
func (b *Book) sheet(s *sheetOf) *backend.Sheet {
	t := b.Template
	cols := make([]backend.Column, len(s.cols))
	var vals []backend.Validation
	var notes []backend.Note
	for i, c := range s.cols {
		cols[i] = backend.Column{Width: c.width, Style: backend.Style{Wrap: true}}
		if c.input {
			cols[i].Style.Unlocked = true
		}
		if c.validation != nil {
			v := *c.validation
			v.Col = i
			vals = append(vals, v)
		}
	}
	notes = append(notes, backend.Note{Row: 1, Col: 0, Text: "The decision's ID: pull finds each row by it, wherever the row is moved or sorted to. Do not change it."})
	headers := make([]string, len(s.cols))
	for i, c := range s.cols {
		headers[i] = c.header
	}
	return &backend.Sheet{
		Name: s.name, Columns: cols, FreezeRows: 1, FreezeCols: 2, AutoFilter: true, FitWidth: true,
		Protect:     &backend.Protection{Sort: true, AutoFilter: true, FormatColumns: true, FormatRows: true},
		Validations: vals, Notes: notes, RowCount: len(s.items) + 1,
		Rows: bandedRows(headers, t.Bands.Palette, len(s.items), func(i int) string { return s.items[i].Unit }, func(i int, fill string) backend.Row {
			return b.row(s, i, fill)
		}),
	}
}

// bandedRows emits a header row, then n rows, those of one unit in one
// fill of the palette and the next unit's in the next.
func bandedRows(headers, palette []string, n int, unit func(i int) string, row func(i int, fill string) backend.Row) func(emit func(backend.Row) error) error {
	return func(emit func(backend.Row) error) error {
		head := backend.Row{}
		for _, h := range headers {
			head.Cells = append(head.Cells, backend.Cell{Value: h, Style: layout.StyleHeader})
		}
		if err := emit(head); err != nil {
			return err
		}
		band, prev := -1, "\x00"
		for i := range n {
			if u := unit(i); u != prev {
				band, prev = band+1, u
			}
			fill := ""
			if len(palette) > 0 {
				fill = palette[band%len(palette)]
			}
			if err := emit(row(i, fill)); err != nil {
				return err
			}
		}
		return nil
	}
}

// texts are the texts of an item's locked cells, by column ("" for
// the adjudicator's).
func (b *Book) texts(s *sheetOf, it *Item) []string {
	t := b.Template
	var ctx map[string]string
	if b.Context != nil {
		ctx = b.Context(it.Unit)
	}
	answer := map[string]*Answer{}
	for k := range it.Answers {
		answer[it.Answers[k].Annotator] = &it.Answers[k]
	}
	out := make([]string, len(s.cols))
	for i, c := range s.cols {
		var text string
		switch {
		case c.key == colID:
			text = it.ID
		case c.key == colUnit:
			text = b.shown(it.Unit)
		case strings.HasPrefix(c.key, prefContext):
			text = ctx[strings.TrimPrefix(c.key, prefContext)]
		case c.key == colWhere:
			text = where(t, it.Cluster)
		case strings.HasPrefix(c.key, prefAnn):
			a := answer[c.annotator]
			switch {
			case a == nil:
				text = notAsked
			case s.kind == KindSpans:
				text = layout.ShowSpans(t, a.Spans)
			default:
				text = layout.ShowValue(t, s.q, a.Value)
			}
		case c.key == colSuggested:
			switch {
			case it.Superseded != "":
				text = "(superseded by " + it.Superseded + ", whose cluster holds this one's spans now: decide there)"
			case it.Kept:
				text = "(the annotators now agree: a decision here overrules them; leave it empty to accept their answer)"
			case it.Suggested < 0:
			case s.kind == KindSpans && len(it.Answers[it.Suggested].Spans) == 0:
				text = DecideDrop
			case s.kind == KindSpans:
				text = layout.ShowSpans(t, it.Answers[it.Suggested].Spans)
			default:
				text = layout.ShowValue(t, s.q, it.Answers[it.Suggested].Value)
			}
		}
		out[i] = text
	}
	return out
}

// shown is the unit ID the sheets show.
func (b *Book) shown(unit string) string {
	if b.Shown != nil {
		return b.Shown(unit)
	}
	return unit
}

// fit works out what each locked cell of a sheet shows: a text over what
// the tallest row shows is shown in part, whole on the Read sheet, and
// the row's ID cell links there.
func (b *Book) fit(s *sheetOf, rs *layout.ReadSheet) {
	s.cells = make([][]string, len(s.items))
	s.read = make([]int, len(s.items))
	for k, it := range s.items {
		texts := b.texts(s, it)
		for i, c := range s.cols {
			if texts[i] == "" || c.input || c.key == colID || c.key == colUnit {
				continue
			}
			tail := false
			if cx := b.Template.ContextByName(strings.TrimPrefix(c.key, prefContext)); cx != nil && strings.HasPrefix(c.key, prefContext) {
				tail = cx.Show == templates.ShowTail
			}
			var at int
			texts[i], at = rs.Fit(s.name, k+2, i, c.width, texts[i], it.ID+" ("+b.shown(it.Unit)+")", c.header, tail)
			if at > 0 && s.read[k] == 0 {
				s.read[k] = at
			}
		}
		s.cells[k] = texts
	}
}

// row renders the k-th item of a sheet.
func (b *Book) row(s *sheetOf, k int, fill string) backend.Row {
	it := s.items[k]
	r := backend.Row{Cells: make([]backend.Cell, len(s.cols))}
	height := 0.0
	for i, c := range s.cols {
		if c.input {
			st := backend.Style{Unlocked: true, Wrap: true}
			if f, ok := b.Filled[it.ID][c.key]; ok {
				r.Cells[i] = backend.Cell{Value: carried(f), Style: st}
			} else {
				r.Cells[i] = backend.Cell{Style: st}
			}
			continue
		}
		st := backend.Style{Wrap: true, Fill: fill}
		if strings.HasPrefix(c.key, prefContext) {
			st.Fill = layout.FillContext
		}
		text, _ := layout.Clean(s.cells[k][i], b.Limits.CellChars)
		r.Cells[i] = backend.Cell{Value: text, Style: st}
		if c.key == colID && s.read[k] > 0 {
			r.Cells[i].Link = &backend.Link{Sheet: backend.SheetRead, Row: s.read[k]}
		}
		if text != "" {
			height = max(height, layout.RowHeight(text, c.width))
		}
	}
	r.Height = height
	return r
}

// carried is a cell filled in an earlier version of the workbook, to be
// written again: a tick stays a tick, a number a number, text text.
func carried(c backend.ReadCell) any {
	switch c.Type {
	case backend.CellNoValue:
		// A formula typed where text was meant: kept as its text.
		return "=" + c.Formula
	case backend.CellBool:
		return c.Value == "TRUE"
	case backend.CellNumber:
		if n, err := strconv.Atoi(c.Value); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(c.Value, 64); err == nil {
			return f
		}
	}
	return c.Text()
}

// metaSheet is the hidden sheet with the workbook's record of itself.
func metaSheet(m Meta, sheets []*sheetOf) (*backend.Sheet, error) {
	js, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(js) > 30000 {
		return nil, fmt.Errorf("the adjudication workbook's metadata is %d bytes, over what a cell holds: too many columns", len(js))
	}
	return &backend.Sheet{
		Name: backend.SheetMeta, Visibility: backend.VeryHidden, Columns: []backend.Column{{Width: 14}, {Width: 30}},
		RowCount: 1, Protect: &backend.Protection{},
		Rows: func(emit func(backend.Row) error) error {
			return emit(backend.Row{Cells: []backend.Cell{{Value: MetaKind}, {Value: string(js)}}})
		},
	}, nil
}
