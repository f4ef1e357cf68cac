package layout

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// Colours of the generated sheets.
const (
	fillHeader  = "D9D9D9" // header row
	fillContext = "F2F2F2" // read-only context
	fillNA      = "E7E6E6" // a block question's cells below the block's first row
	fontHint    = "595959"
)

var (
	styleHeader  = backend.Style{Bold: true, Fill: fillHeader, Wrap: true}
	styleContext = backend.Style{Fill: fillContext, Wrap: true}
)

// MaxRowHeight is the tallest row spreadsheets allow, in points.
const MaxRowHeight = 409

func (b *builder) resetBands() { b.bandKey, b.band = "\x00", -1 }

// bandFill advances the colour band when the row's key changes.
func (b *builder) bandFill(env templates.Env) string {
	var parts []string
	for _, f := range b.t.Bands.KeyFormats() {
		s, _ := f.Render(env)
		parts = append(parts, s)
	}
	key := strings.Join(parts, "\x00")
	if key != b.bandKey {
		b.bandKey = key
		b.band++
	}
	p := b.t.Bands.Palette
	return p[b.band%len(p)]
}

// answerStyle is the style of an empty answer cell in a column.
func answerStyle(c templates.ColumnSpec) backend.Style {
	s := backend.Style{Unlocked: true}
	if c.Role == templates.RoleAnnotator {
		s.Text = true
		return s
	}
	q := c.Question
	switch {
	case q.Type == templates.TypeText || q.Type == templates.TypeSpan && c.Part == "":
		s.Text, s.Wrap = true, true
	case c.Part == templates.PartSentences:
		s.Text = true
	case q.Type == templates.TypeMulti && q.Render == "list":
		s.Text = true
	}
	return s
}

// columnStyle is the default style of a column: what its empty cells and
// inserted rows get.
func columnStyle(c templates.ColumnSpec) backend.Style {
	switch c.Role {
	case templates.RoleAnswer, templates.RoleAnnotator:
		return answerStyle(c)
	case templates.RoleContext:
		return styleContext
	case templates.RoleID:
		return backend.Style{Wrap: true}
	}
	return backend.Style{}
}

func (b *builder) annotateSheet() *backend.Sheet {
	cols := make([]backend.Column, len(b.cols))
	for i, c := range b.cols {
		cols[i] = backend.Column{Width: c.Width, Hidden: c.Role == templates.RoleUnit || c.Role == templates.RoleSuggestion && b.colOpt.Suggested, Style: columnStyle(c)}
		if c.Role == templates.RoleSuggestion && b.colOpt.Suggestions {
			cols[i].Style = styleSuggestion
		}
		if c.Role == templates.RoleAnnotator && b.opt.Annotator != "" && !b.checkMark() {
			cols[i].Style.Unlocked = false // filled in for the annotator
		}
	}
	b.openSpanSources(cols)
	sh := &backend.Sheet{
		Name:       backend.SheetAnnotate,
		Columns:    cols,
		FreezeRows: 1,
		FreezeCols: b.t.FrozenColumnsWith(b.colOpt),
		Protect:    &backend.Protection{Sort: true, AutoFilter: true, FormatColumns: true, FormatRows: true, InsertRows: true},
		AutoFilter: true,
		FitWidth:   true,
		RowCount:   b.rows,
	}
	for i, c := range b.cols {
		note := columnNote(c)
		note = b.spanSourceNote(c, note)
		switch {
		case c.Role == templates.RoleSuggestion && b.colOpt.Suggestions:
			note = "The answer suggested for " + strconv.Quote(c.Question.Header) + ". It is not filled in: give your own answer in the question's columns, the same or another."
		case c.Role == templates.RoleAnnotator && b.checkMark():
			note = "Write your annotator ID on each row once you have checked its answers, even if you keep every one."
		case c.Role == templates.RoleAnnotator && b.opt.Annotator != "":
			note = "Your annotator ID, filled in for you: this workbook is yours alone."
		}
		if note != "" {
			sh.Notes = append(sh.Notes, backend.Note{Row: 1, Col: i, Text: note})
		}
	}
	if b.rows > 1 {
		sh.Validations = b.validations()
	}
	sh.Merges = b.blockMerges()
	sh.Rows = b.annotateRows(b.replayRows)
	sh.Facts = b.annotateFacts()
	b.liveChecks(sh)
	sh.ConditionalFormats = append(sh.ConditionalFormats, b.suggestionFormats()...)
	return sh
}

// annotateFacts tells what the Annotate sheet's rows hold, known from the
// first pass: the header's style and every style the kept rows use
// (liveChecks adds the Check cells'). The XLSX writer then reads the rows
// only once.
func (b *builder) annotateFacts() *backend.RowFacts {
	f := &backend.RowFacts{}
	f.Note(b.headerRow())
	cells := make([]backend.Cell, len(b.spool.styles))
	for i, st := range b.spool.styles {
		cells[i].Style = st
	}
	f.Note(backend.Row{Cells: cells})
	return f
}

// annotateRows is the Annotate sheet's rows: the header, then what body
// emits, with each row's Check cell when the template has the column.
func (b *builder) annotateRows(body func(emit func(backend.Row) error) error) func(emit func(backend.Row) error) error {
	col := b.checkColumn()
	return func(emit func(backend.Row) error) error {
		if col >= 0 && b.rows > 1 {
			emit = b.withCheckCells(col, emit)
		}
		if err := emit(b.headerRow()); err != nil {
			return err
		}
		return body(emit)
	}
}

// replayRows emits the rows the first pass kept, finished (see
// rowSpool).
func (b *builder) replayRows(emit func(backend.Row) error) error {
	return b.spool.eachItem(func(r *rendered) error {
		b.finish(r)
		return r.emit(emit)
	})
}

func (b *builder) headerRow() backend.Row {
	r := backend.Row{Cells: make([]backend.Cell, len(b.cols))}
	for i, c := range b.cols {
		r.Cells[i] = backend.Cell{Value: c.Header, Style: styleHeader}
	}
	r.Height = lineHeight(b.lines(r.Cells, true, nil))
	return r
}

// columnNote explains a column in a note on its header.
func columnNote(c templates.ColumnSpec) string {
	switch c.Role {
	case templates.RoleContext:
		return c.Context.Description
	case templates.RoleAnnotator:
		return "Write your annotator ID here for every row you annotate."
	case templates.RoleAnswer:
		q := c.Question
		s := q.Description
		if c.Option != nil {
			s = c.Option.Label
			if c.Option.Description != "" {
				s += ": " + c.Option.Description
			}
			s += "\nTick (TRUE) if it applies."
		}
		if q.Type == templates.TypeChoice {
			var lines []string
			for _, o := range q.Options {
				l := "• " + o.Label
				if o.Description != "" {
					l += ": " + o.Description
				}
				lines = append(lines, l)
			}
			s = strings.TrimSpace(s + "\n" + strings.Join(lines, "\n"))
		}
		if q.Required {
			s = strings.TrimSpace(s + "\n(required)")
		}
		return s
	}
	return ""
}

// rendered is the rows of one record and what sets their heights.
type rendered struct {
	rows []backend.Row
	// lines is, for each row, the lines its cells need, as lines counts
	// them; links the Read row its ID cell links to, 0 for none.
	lines, links []int
	// block is, for a block whose context is merged over its rows, the
	// lines its first row needs over all of them (blockLines); 0 for
	// rows of their own.
	block int
}

// itemRows renders the rows of one record. With pending, as the first
// pass does, the ID and unit cells hold what they stand for (itemIDCell,
// unitIDCell) and lines count the other cells only: b.finish completes
// them once the opaque IDs and the row mark are known. Without, the rows
// are complete. It stops with ctx's error once the build's ctx is done.
func (b *builder) itemRows(it *item, pending bool) (*rendered, error) {
	t := b.t
	n := b.rowCount(it)
	r := &rendered{rows: make([]backend.Row, 0, n), lines: make([]int, n), links: make([]int, n)}
	// A block's context is merged over its rows (see blockMerges), so the
	// rows share the height the context needs.
	merged := t.Rows.Per == templates.PerBlock && n > 1
	if len(b.known) != len(b.cols) {
		b.known = make([]int, len(b.cols))
	}
	for k := 0; k < n; k++ {
		// A record may have many rows (one per element of a long
		// list), each with long texts to fit.
		if err := b.ctx.Err(); err != nil {
			return nil, err
		}
		for i := range b.known {
			b.known[i] = -1
		}
		var elem any
		unit := it.units[0]
		pos := 0
		if t.Rows.Per == templates.PerElement {
			elem, unit, pos = it.elems[k], it.units[k], k
		}
		env := it.env(elem, pos)
		band := b.bandFill(env)
		row := backend.Row{Cells: make([]backend.Cell, len(b.cols))}
		for i, c := range b.cols {
			cell := &row.Cells[i]
			switch c.Role {
			case templates.RoleID:
				// Cleaned now for its warnings, even when pending.
				cell.Value = b.cleanText(it, t.Rows.IDHeader, b.shownItem(it.id))
				if pending {
					cell.Value = itemIDCell{it.id}
				}
				cell.Style = backend.Style{Fill: band, Wrap: true}
			case templates.RoleUnit:
				if pending {
					cell.Value = unitIDCell{unit, k}
				} else {
					cell.Value = b.unitText(unit, k)
				}
			case templates.RoleContext:
				cell.Style = b.contextStyle(c)
				show := k == 0 || t.Rows.Per == templates.PerElement && !c.Context.FirstRowOnly
				if show {
					cx := b.shown(it, c.Context)
					cell.Value, cell.Link, b.known[i] = b.contextCell(it, cx, i, k, b.contextText(it, cx, env))
				}
			case templates.RoleAnswer, templates.RoleAnnotator:
				cell.Style = answerStyle(c)
				if t.Bands.Columns == "row" {
					cell.Style.Fill = band
				}
				if c.Role == templates.RoleAnnotator && b.opt.Annotator != "" {
					// A workbook for one annotator: their ID, not to be
					// changed.
					cell.Value, cell.Style.Unlocked = b.opt.Annotator, false
				}
				if c.Role == templates.RoleAnnotator && b.checkMark() {
					// The annotator's ID marks a prefilled row as checked
					// (see annotatorGuide): left for them to write.
					cell.Value, cell.Style.Unlocked = nil, true
				}
				if c.Question != nil && c.Question.Scope == "block" && k > 0 {
					// Not asked below a block's first row: greyed and locked.
					cell.Style.Fill, cell.Style.Unlocked = fillNA, false
				}
			}
			if s, ok := cell.Value.(string); ok && s == "" {
				cell.Value = nil
			}
		}
		b.prefillCells(it, unit, k, &row)
		r.links[k] = b.takeRowLink()
		if !pending {
			b.linkID(row, r.links[k])
		}
		// contextCell counted its texts' lines with the limit these
		// counts need: a row's lines, or a block's.
		if merged && k == 0 {
			r.block = b.blockLines(row.Cells, n, b.known)
		}
		r.lines[k] = b.lines(row.Cells, !merged, b.known)
		r.rows = append(r.rows, row)
	}
	return r, nil
}

// unitText is what the hidden unit cell of row k of a record shows.
func (b *builder) unitText(unit string, k int) string {
	if k > 0 && b.rowMark != "" {
		return b.shownUnit(unit) + b.rowMark + strconv.Itoa(k+1)
	}
	return b.shownUnit(unit)
}

// finish completes rows rendered pending: their ID and unit cells, the
// ID cells' links, and the lines the IDs need, counted as lines and
// blockLines count them.
func (b *builder) finish(r *rendered) {
	n := len(r.rows)
	for k := range r.rows {
		cells := r.rows[k].Cells
		for i := range cells {
			c := &cells[i]
			var s string
			switch v := c.Value.(type) {
			case itemIDCell:
				s, _ = Clean(b.shownItem(v.item), b.opt.CellLimit)
			case unitIDCell:
				s = b.unitText(v.unit, v.row)
			default:
				continue
			}
			if s == "" {
				c.Value = nil
				continue
			}
			c.Value = s
			if b.cols[i].Role == templates.RoleID && r.links[k] != 0 {
				c.Link = &backend.Link{Sheet: backend.SheetRead, Row: r.links[k]}
			}
			if !c.Style.Wrap {
				continue
			}
			r.lines[k] = max(r.lines[k], countLines(s, b.cols[i].Width, maxLines))
			if k == 0 && r.block > 0 {
				r.block = max(r.block, countLines(s, b.cols[i].Width, n*maxLines))
			}
		}
	}
}

// emit emits the rows, with their heights.
func (r *rendered) emit(emit func(backend.Row) error) error {
	n := len(r.rows)
	share := 0
	if r.block > 0 {
		share = (r.block + n - 1) / n
	}
	for k, row := range r.rows {
		row.Height = lineHeight(max(r.lines[k], share))
		if err := emit(row); err != nil {
			return err
		}
	}
	return nil
}

// blockMerges merges each block's context cells over the block's rows, so
// that long passages can be read beside every answer row.
func (b *builder) blockMerges() []backend.Merge {
	if b.t.Rows.Per != templates.PerBlock || b.t.Rows.AnswerRows < 2 {
		return nil
	}
	var out []backend.Merge
	for _, u := range b.res.Units {
		for i, c := range b.cols {
			if c.Role == templates.RoleContext {
				out = append(out, backend.Merge{FirstRow: u.FirstRow, LastRow: u.FirstRow + u.Rows - 1, FirstCol: i, LastCol: i})
			}
		}
	}
	return out
}

// lines estimates how many lines the wrapped text of a row needs, since
// Excel does not fit row heights when it opens a file. Context cells count
// only when withContext is set. known, when not nil, holds the count of
// each cell already counted so (contextCell counts the texts it fits),
// and -1 for the others.
func (b *builder) lines(cells []backend.Cell, withContext bool, known []int) int {
	lines := 1
	for i, c := range cells {
		s, ok := c.Value.(string)
		if !ok || !c.Style.Wrap || s == "" || !withContext && b.cols[i].Role == templates.RoleContext {
			continue
		}
		if known != nil && known[i] >= 0 {
			lines = max(lines, known[i])
			continue
		}
		lines = max(lines, countLines(s, b.cols[i].Width, maxLines))
	}
	return lines
}

// lineHeight is the row height for n lines of default text; 0 leaves a
// single line to the application.
func lineHeight(n int) float64 {
	if n <= 1 {
		return 0
	}
	return min(float64(n)*15+2, MaxRowHeight)
}

// validations gives every answer column its data validation and prompt.
func (b *builder) validations() []backend.Validation {
	var out []backend.Validation
	last := b.rows
	for i, c := range b.cols {
		v := backend.Validation{Col: i, FirstRow: 2, LastRow: last, Kind: backend.ValidAny}
		switch c.Role {
		case templates.RoleAnnotator:
			v.PromptTitle, v.Prompt = c.Header, "Your annotator ID (for example your initials). Fill it in on every row you annotate."
			out = append(out, v)
			continue
		case templates.RoleAnswer:
		default:
			continue
		}
		q := c.Question
		v.PromptTitle, v.Prompt = c.Header, q.Description
		v.ErrorTitle = c.Header
		switch {
		case c.Option != nil:
			v.Kind, v.Strict = backend.ValidCheckbox, true
			v.Prompt = c.Option.Label
			if c.Option.Description != "" {
				v.Prompt += ": " + c.Option.Description
			}
			v.Error = "Enter TRUE (ticked) or FALSE."
		case q.Type == templates.TypeChoice:
			v.Kind, v.Strict = backend.ValidList, true
			for _, o := range q.Options {
				v.Values = append(v.Values, o.Label)
			}
			v.Source = b.listSource(q)
			v.Error = "Pick one of: " + strings.Join(v.Values, "; ")
		case q.Type == templates.TypeMulti:
			var codes []string
			for _, o := range q.Options {
				codes = append(codes, o.Code)
			}
			v.Prompt = strings.TrimSpace(v.Prompt + " Codes, separated by commas: " + strings.Join(codes, ", "))
		case q.Type == templates.TypeBool:
			v.Kind, v.Strict = backend.ValidCheckbox, true
			v.Error = "Enter TRUE (ticked) or FALSE."
		case q.Type == templates.TypeScale:
			lo, hi := *q.Min, *q.Max
			v.Kind, v.Strict, v.Min, v.Max = backend.ValidWhole, true, lo, hi
			v.Error = fmt.Sprintf("Enter a whole number from %d to %d.", lo, hi)
			if u := q.Unanswered; u != nil {
				v.Error = fmt.Sprintf("Enter a whole number from %d to %d (%d = not answered yet).", lo, hi, *u)
				switch {
				case *u == lo-1:
					v.Min = *u
				case *u == hi+1:
					v.Max = *u
				case hi-lo < 30:
					v.Kind = backend.ValidList
					v.Values = []string{strconv.Itoa(*u)}
					for n := lo; n <= hi; n++ {
						v.Values = append(v.Values, strconv.Itoa(n))
					}
				default:
					v.Strict = false
				}
			}
		case c.Part == templates.PartPassage:
			v.Kind, v.Strict, v.Min, v.Max = backend.ValidWhole, true, 1, max(1, b.maxPass)
			v.Prompt = fmt.Sprintf("The number of the passage (1 to %d) that holds the evidence.", max(1, b.maxPass))
			v.Error = v.Prompt
		case c.Part == templates.PartSentences:
			v.Prompt = "The numbers of the evidence sentences in that passage, separated by commas (0 is the title)."
		case c.Part == templates.PartOccurrence:
			v.Kind, v.Strict, v.Min, v.Max = backend.ValidWhole, true, 1, 10000
			v.Prompt = "Only when the span's text occurs more than once: which occurrence is meant (1 = the first)."
			v.Error = "Enter 1 for the first occurrence, 2 for the second, and so on."
		}
		if v.Kind == backend.ValidAny && v.Prompt == "" {
			continue // nothing to check and nothing to say
		}
		out = append(out, v)
	}
	return out
}

// listColumn is a column of the Lists sheet: one choice question's labels.
type listColumn struct {
	question string
	header   string
	labels   []string
}

// listSource puts a choice question's labels on the Lists sheet and returns
// the range that holds them.
func (b *builder) listSource(q *templates.Question) string {
	col := -1
	for i, l := range b.lists {
		if l.question == q.Name {
			col = i
		}
	}
	if col < 0 {
		var labels []string
		for _, o := range q.Options {
			labels = append(labels, o.Label)
		}
		b.lists = append(b.lists, listColumn{question: q.Name, header: q.Header, labels: labels})
		col = len(b.lists) - 1
	}
	letter := backend.ColumnLetter(col)
	return fmt.Sprintf("%s!$%s$2:$%s$%d", backend.SheetLists, letter, letter, len(b.lists[col].labels)+1)
}

func (b *builder) listsSheet() *backend.Sheet {
	// validations() has registered every list by now: Build calls
	// annotateSheet first.
	lists := b.lists
	rows := 1 // the header
	for _, l := range lists {
		rows = max(rows, len(l.labels)+1)
	}
	cols := make([]backend.Column, max(1, len(lists)))
	for i := range cols {
		cols[i] = backend.Column{Width: 30}
	}
	return &backend.Sheet{
		Name: backend.SheetLists, Visibility: backend.Hidden, Columns: cols, RowCount: rows,
		Protect: &backend.Protection{},
		Rows: func(emit func(backend.Row) error) error {
			for r := 0; r < rows; r++ {
				row := backend.Row{Cells: make([]backend.Cell, len(cols))}
				for i, l := range lists {
					switch {
					case r == 0:
						row.Cells[i] = backend.Cell{Value: l.header, Style: backend.Style{Bold: true}}
					case r-1 < len(l.labels):
						row.Cells[i] = backend.Cell{Value: l.labels[r-1]}
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

// MetaFormat is the version of the metadata a workbook carries.
const MetaFormat = 1

// WorkbookMeta is what a workbook records about itself so that pull needs
// no other file: which template made it, which batch it is, and where each
// column is. It holds nothing that could bias an annotator.
type WorkbookMeta struct {
	Format   int               `json:"format"`
	Template TemplateRef       `json:"template"`
	Params   map[string]string `json:"params,omitempty"`
	Batch    string            `json:"batch"`
	Study    string            `json:"study,omitempty"`
	Sheet    string            `json:"sheet"`
	Columns  []MetaColumn      `json:"columns"`
	Units    int               `json:"units"`
	// Annotator is the annotator the workbook was made for; "" for a
	// shared workbook, where annotators claim rows.
	Annotator string `json:"annotator,omitempty"`
	// Shuffled says the candidates were shown in a shuffled order; the
	// orders themselves are only in the coordinator's manifest.
	Shuffled bool `json:"shuffled,omitempty"`
	// RowMark numbers the rows of a block: the hidden unit cell of a
	// block's first row holds the unit ID, that of its row k (from 2) the
	// ID, RowMark and k ("q7#2"), so that pull reads a block's answers in
	// the order they were written even after the sheet is sorted. Empty
	// for one-row units, and in workbooks made before rows were numbered
	// (every row of a block holds the bare ID).
	RowMark string `json:"row_mark,omitempty"`
	// Prefill says the answer cells started from given records, and the
	// hidden suggestion columns are there (templates.ColumnOptions).
	Prefill *MetaPrefill `json:"prefill,omitempty"`
}

// ColumnOptions are the columns a workbook of this metadata adds to its
// template's.
func (m WorkbookMeta) ColumnOptions() templates.ColumnOptions {
	p := m.Prefill
	return templates.ColumnOptions{Suggested: p != nil && p.As != PrefillSuggestions, Suggestions: p != nil && p.As == PrefillSuggestions}
}

// TemplateRef names a template and pins its exact text.
type TemplateRef struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	SHA256  string `json:"sha256,omitempty"`
}

// MetaColumn records a column's key, header and 0-based position at
// generation, for pull to map columns that annotators moved or renamed.
type MetaColumn struct {
	Key    string `json:"key"`
	Header string `json:"header"`
	Index  int    `json:"index"`
}

// Metadata rows start with one of these in column A.
const (
	MetaWorkbook = "workbook"
	MetaTemplate = "template"
	MetaUnit     = "unit"
)

// metaChunk bounds the text of one metadata cell, well under every
// backend's cell limit.
const metaChunk = 30000

// metaUnitCells is how many cells of a unit's metadata row come before its
// data: kind, unit, item, first_row, rows.
const metaUnitCells = 5

func (b *builder) meta() WorkbookMeta {
	m := WorkbookMeta{
		Format:   MetaFormat,
		Template: TemplateRef{Name: b.t.Name, Version: b.t.Version, SHA256: b.t.Hash()},
		Params:   b.t.ParamValues(),
		Batch:    b.opt.Batch,
		Study:    b.opt.Study,
		Sheet:    backend.SheetAnnotate,
		Units:    len(b.res.Units),

		Annotator: b.opt.Annotator,
		Shuffled:  b.t.Shuffle != nil,
		RowMark:   b.rowMark,
		Prefill:   b.prefillMeta(),
	}
	if len(m.Params) == 0 {
		m.Params = nil
	}
	for i, c := range b.cols {
		m.Columns = append(m.Columns, MetaColumn{Key: c.Key, Header: c.Header, Index: i})
	}
	return m
}

func (b *builder) metaSheet() (*backend.Sheet, error) {
	units := b.res.Units
	wb, err := json.Marshal(b.meta())
	if err != nil {
		return nil, err
	}
	wbChunks, tmplChunks := chunks(string(wb)), chunks(string(b.t.Source))
	rows, width := 3+len(units), max(1+len(wbChunks), 1+len(tmplChunks), metaUnitCells+1, b.blobCols)
	if b.places() {
		rows += len(units)
		for _, u := range units {
			width = max(width, 2+u.Rows)
		}
	}
	return &backend.Sheet{
		Name: backend.SheetMeta, Visibility: backend.VeryHidden, Columns: []backend.Column{{Width: 12}, {Width: 30}},
		Width:    width,
		RowCount: rows, Protect: &backend.Protection{},
		Rows: func(emit func(backend.Row) error) error {
			if err := emit(textRow(MetaWorkbook, wbChunks...)); err != nil {
				return err
			}
			if err := emit(textRow(MetaTemplate, tmplChunks...)); err != nil {
				return err
			}
			if err := emit(textRow("kind", "unit", "item", "first_row", "rows", "data")); err != nil {
				return err
			}
			for _, u := range units {
				cells := []backend.Cell{{Value: MetaUnit}, {Value: b.shownUnit(u.ID)}, {Value: b.shownItem(u.Item)}, {Value: u.FirstRow}, {Value: u.Rows}}
				if blob, ok := b.blobs[u.ID]; ok {
					for _, c := range chunks(blob) {
						cells = append(cells, backend.Cell{Value: c})
					}
				}
				if err := emit(backend.Row{Cells: cells}); err != nil {
					return err
				}
			}
			if b.places() {
				for _, u := range units {
					if err := emit(b.placeRow(u)); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}, nil
}

func textRow(first string, rest ...string) backend.Row {
	r := backend.Row{Cells: []backend.Cell{{Value: first}}}
	for _, s := range rest {
		r.Cells = append(r.Cells, backend.Cell{Value: s})
	}
	return r
}

// chunks splits s into pieces of at most metaChunk UTF-16 units, never
// inside a character.
func chunks(s string) []string {
	var out []string
	for s != "" {
		c := cutUTF16(s, metaChunk)
		out = append(out, c)
		s = s[len(c):]
	}
	return out
}
