package adjudicate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"slices"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/internal/suggest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"golang.org/x/text/unicode/norm"
)

// ErrNotAdjudication says a workbook carries no adjudication metadata.
var ErrNotAdjudication = errors.New("not an adjudication workbook")

// ErrUnresolved is wrapped by the problem of an item nobody decided.
var ErrUnresolved = errors.New("unresolved")

// ErrUnplaced is wrapped by the problem of a row whose answers belong to
// no decision: no Decision ID, one of no item of the sheet, or two rows of
// one ID that say different things; and of a column or a filled sheet
// adjudicate did not make. Such cells would be lost if the workbook were
// made again.
var ErrUnplaced = errors.New("answers not placed")

// Decision is one row of an adjudication sheet as read back.
type Decision struct {
	Item  string // the item's ID
	Sheet string
	Row   int
	// Value rows: Final, read with the question's own rules (HasFinal
	// says it was given), and Use: UseSuggested or an annotator's ID.
	Final    any
	HasFinal bool
	Use      string
	// Span rows: Choice is keep, drop, edit or an annotator's ID; Type
	// the Final type's code; Span the Final span's text.
	Choice string
	Type   string
	Span   string
	Reason string
	Note   string
	// Cells are the row's input cells as read, by column key, to write
	// again when the workbook is made anew.
	Cells map[string]backend.ReadCell
	// Bad says a cell of the row could not be read; the item stays
	// unresolved (the problem names the cell).
	Bad bool
	// cell names the row's cells by key (Sheet!H4); first is a multi's
	// first Final checkbox.
	cell  map[string]string
	first string
}

// Decides reports whether the row settles its item: a Final, an Or use,
// or, for spans, a Decision or a Final type. A row with only a reason or
// a note decides nothing (but a multi's Reason alone settles it to none).
func (d *Decision) Decides() bool {
	return d != nil && !d.Bad && (d.HasFinal || d.Use != "" || d.Choice != "" || d.Type != "")
}

// Unwritable names an input cell that holds a formula or a formula's
// error: such a cell cannot be written again as it was (text never
// becomes a formula), so the workbook is not made anew while it has one.
func (d *Decision) Unwritable() (key string, ok bool) {
	for k, c := range d.Cells {
		if c.Type == backend.CellNoValue || c.Type == backend.CellError {
			return k, true
		}
	}
	return "", false
}

// Saved makes decisions of cells saved in the adjudication's manifest,
// for a workbook that adjudicate did not finish writing: by item ID, the
// cells by column key. Their problems name no cell.
func (rd *Reading) Saved(saved map[string]map[string]backend.ReadCell) (map[string]*Decision, records.Problems) {
	r := &reader{Reading: rd, out: map[string]*Decision{}, who: map[string]string{}}
	for i, n := range rd.Names {
		r.who[fold(n)] = rd.Annotators[i]
		r.who[fold(rd.Annotators[i])] = rd.Annotators[i]
	}
	for _, it := range sortedItems(rd.Items) {
		cells, ok := saved[it.ID]
		if !ok {
			continue
		}
		d := &Decision{Item: it.ID, Cells: cells, cell: map[string]string{}}
		r.parse(it, d)
		r.out[it.ID] = d
	}
	return r.out, r.probs
}

// Cell is the A1 name, with its sheet, of the row's cell of a column key;
// the row's first answer cell when key is "". A decision saved in the
// manifest has none: "".
func (d *Decision) Cell(key string) string {
	if d.Sheet == "" {
		return ""
	}
	if c, ok := d.cell[key]; ok {
		return c
	}
	for _, k := range []string{colFinal, colDecision} {
		if c, ok := d.cell[k]; ok {
			return c
		}
	}
	if d.first != "" {
		return d.first // a multi's first Final checkbox
	}
	if c, ok := d.cell[colUse]; ok {
		return c
	}
	return fmt.Sprintf("%s!A%d", quoteSheet(d.Sheet), d.Row)
}

func quoteSheet(name string) string {
	l := backend.Link{Sheet: name, Row: 1}
	ref := l.Ref()
	return ref[:strings.LastIndex(ref, "!")]
}

// ReadMeta reads an adjudication workbook's record of itself.
func ReadMeta(g *backend.Grid) (*Meta, error) {
	found := false
	for _, s := range g.Sheets {
		found = found || s == backend.SheetMeta
	}
	if !found {
		return nil, fmt.Errorf("%s: %w: it has no %s sheet", g.Name, ErrNotAdjudication, backend.SheetMeta)
	}
	var m *Meta
	err := g.Rows(backend.SheetMeta, func(row int, cells []backend.ReadCell) error {
		if row != 1 {
			return nil
		}
		if len(cells) < 2 || cells[0].Value != MetaKind {
			return fmt.Errorf("%s: %w (a study's workbook is pulled with its study, not as an adjudication)", g.Name, ErrNotAdjudication)
		}
		m = &Meta{}
		if err := json.Unmarshal([]byte(cells[1].Value), m); err != nil || m.Kind != MetaKind {
			return fmt.Errorf("%s: %s!B1: %w: its metadata cannot be read", g.Name, backend.SheetMeta, ErrNotAdjudication)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%s: %w: its %s sheet is empty", g.Name, ErrNotAdjudication, backend.SheetMeta)
	}
	return m, nil
}

// Reading reads one adjudication workbook.
type Reading struct {
	Template *templates.Template
	Meta     *Meta
	// Items are the workbook's items by ID; Annotators and Names as the
	// book was made with.
	Items             map[string]*Item
	Annotators, Names []string
	File              string // the workbook, as problems name it
}

// Read reads the decisions of an adjudication workbook, by item ID. Every
// cell it cannot use, row it cannot place and item it cannot find is a
// problem naming the sheet and cell.
func (rd *Reading) Read(g *backend.Grid) (map[string]*Decision, records.Problems, error) {
	r := &reader{Reading: rd, out: map[string]*Decision{}, dup: map[string]bool{}}
	r.who = map[string]string{}
	for i, n := range rd.Names {
		r.who[fold(n)] = rd.Annotators[i]
		r.who[fold(rd.Annotators[i])] = rd.Annotators[i]
	}
	have := map[string]bool{}
	for _, s := range g.Sheets {
		have[s] = true
	}
	placed := map[string]bool{}
	for _, ms := range rd.Meta.Sheets {
		if !have[ms.Name] {
			r.problem(records.Error, decode.ErrMissingUnit, ms.Name, "", "", "the sheet %s is not in the workbook (deleted or renamed): its rows stay unresolved", ms.Name)
			continue
		}
		if err := r.sheet(g, ms, placed); err != nil {
			return nil, nil, err
		}
	}
	if err := r.unknownSheets(g); err != nil {
		return nil, nil, err
	}
	for id := range r.dup {
		delete(r.out, id)
	}
	for _, ms := range rd.Meta.Sheets {
		for _, it := range sortedItems(rd.Items) {
			if placed[it.ID] || !have[ms.Name] || !sheetHolds(rd.Template, ms, it) {
				continue
			}
			r.problem(records.Error, decode.ErrMissingUnit, ms.Name, "", it.Unit, "the row of %s (unit %s, %s) is not on the sheet %s: it was deleted, and stays unresolved", it.ID, it.Unit, describe(rd.Template, it), ms.Name)
		}
	}
	return r.out, r.probs, nil
}

// errFilled stops reading a sheet at its first filled cell.
var errFilled = errors.New("filled")

// unknownSheets reports each sheet adjudicate did not make (one added, or
// one of its own renamed) that holds anything: it is not read, and would
// be lost if the workbook were made anew.
func (r *reader) unknownSheets(g *backend.Grid) error {
	known := map[string]bool{SheetSummary: true, backend.SheetInstructions: true, backend.SheetLists: true, backend.SheetMeta: true, backend.SheetRead: true}
	for _, ms := range r.Meta.Sheets {
		known[ms.Name] = true
	}
	for _, s := range g.Sheets {
		if known[s] {
			continue
		}
		err := g.Rows(s, func(_ int, cells []backend.ReadCell) error {
			for _, c := range cells {
				if strings.TrimSpace(c.Text()) != "" || c.Type == backend.CellNoValue || c.Type == backend.CellError {
					return errFilled
				}
			}
			return nil
		})
		switch {
		case errors.Is(err, errFilled):
			r.problem(records.Warning, ErrUnplaced, s, "", "", "the sheet %s is not one adjudicate made (added, or one of its sheets renamed): it is not read, and adjudicate would not keep it", s)
		case err != nil:
			return fmt.Errorf("%s: %w", r.File, err)
		}
	}
	return nil
}

type reader struct {
	*Reading
	out   map[string]*Decision
	dup   map[string]bool
	who   map[string]string // a name or ID as typed, folded -> the annotator
	probs records.Problems
}

func (r *reader) problem(sev string, err error, sheet, cell, unit, format string, args ...any) *records.Problem {
	p := &records.Problem{Severity: sev, File: r.File, Sheet: sheet, Cell: cell, Record: unit, Message: fmt.Sprintf(format, args...), Err: err}
	r.probs = append(r.probs, p)
	return p
}

// sheetHolds reports whether an item belongs on a sheet.
func sheetHolds(t *templates.Template, ms MetaSheet, it *Item) bool {
	return ms.Question == it.Question && ms.Kind == it.Kind
}

// describe names an item's question for messages.
func describe(t *templates.Template, it *Item) string {
	if it.Kind == KindSpans {
		return "spans at " + where(t, it.Cluster)
	}
	if q := t.QuestionByName(it.Question); q != nil {
		return q.Header
	}
	return it.Question
}

func fold(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(norm.NFC.String(s)), " "))
}

// sheet reads one adjudication sheet.
func (r *reader) sheet(g *backend.Grid, ms MetaSheet, placed map[string]bool) error {
	var at map[string]int // column key -> 0-based index
	seen := map[string]int{}
	err := g.Rows(ms.Name, func(row int, cells []backend.ReadCell) error {
		if row == 1 {
			at = r.header(ms, cells)
			return nil
		}
		if at == nil {
			return nil
		}
		get := func(key string) backend.ReadCell {
			if i, ok := at[key]; ok && i < len(cells) {
				return cells[i]
			}
			return backend.ReadCell{}
		}
		id := strings.TrimSpace(get(colID).Text())
		d := r.decision(ms, row, at, get)
		if id == "" {
			if len(d.Cells) > 0 {
				r.problem(records.Warning, ErrUnplaced, ms.Name, fmt.Sprintf("A%d", row), "", "row %d has answers but no Decision ID: it is ignored (copy the row's ID back if it was lost)", row)
			}
			return nil
		}
		it, ok := r.Items[id]
		if !ok || !sheetHolds(r.Template, ms, it) {
			err := decode.ErrLayout
			if len(d.Cells) > 0 {
				err = ErrUnplaced
			}
			r.problem(records.Warning, err, ms.Name, fmt.Sprintf("A%d", row), "", "%s is not a decision of this sheet: the row is ignored", records.QuoteCell(id))
			return nil
		}
		d.Item = id
		if prev, dup := seen[id]; dup {
			if sameCells(r.out[id].Cells, d.Cells) {
				r.problem(records.Warning, decode.ErrLayout, ms.Name, fmt.Sprintf("A%d", row), it.Unit, "row %d repeats row %d (%s) with the same decision: read once", row, prev, id)
				return nil
			}
			r.problem(records.Error, ErrUnplaced, ms.Name, fmt.Sprintf("A%d", row), it.Unit, "%s is on rows %d and %d with different decisions: neither is used, and it stays unresolved until one row is deleted", id, prev, row)
			r.dup[id] = true
			return nil
		}
		seen[id] = row
		placed[id] = true
		r.parse(it, d)
		r.out[id] = d
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", r.File, err)
	}
	if at == nil {
		r.problem(records.Error, decode.ErrLayout, ms.Name, "", "", "the sheet %s has no header row: its rows cannot be read and stay unresolved", ms.Name)
	}
	return nil
}

// header maps column keys to where the columns are now: by header text,
// else where the column was made (a renamed header, warned about).
func (r *reader) header(ms MetaSheet, cells []backend.ReadCell) map[string]int {
	at := map[string]int{}
	taken := map[int]bool{}
	byText := map[string][]int{}
	for i, c := range cells {
		if t := fold(c.Text()); t != "" {
			byText[t] = append(byText[t], i)
		}
	}
	// Columns of one header (the row's ID and the spans' Decision) are
	// each found where they were made, else in the order they were made.
	for _, mc := range ms.Columns {
		found := byText[fold(mc.Header)]
		if slices.Contains(found, mc.Index) && !taken[mc.Index] {
			at[mc.Key], taken[mc.Index] = mc.Index, true
		}
	}
	for _, mc := range ms.Columns {
		if _, ok := at[mc.Key]; ok {
			continue
		}
		for _, i := range byText[fold(mc.Header)] {
			if !taken[i] {
				at[mc.Key], taken[i] = i, true
				break
			}
		}
	}
	for _, mc := range ms.Columns {
		if _, ok := at[mc.Key]; ok || taken[mc.Index] {
			continue
		}
		if mc.Index < len(cells) || mc.Key == colID {
			at[mc.Key], taken[mc.Index] = mc.Index, true
			got := ""
			if mc.Index < len(cells) {
				got = cells[mc.Index].Text()
			}
			r.problem(records.Warning, decode.ErrLayout, ms.Name, backend.CellName(mc.Index, 1), "", "the header %q is not there; column %s (headed %q now) is read as %s, where it was made", mc.Header, backend.ColumnLetter(mc.Index), got, mc.Header)
			continue
		}
		if inputKey(mc.Key) {
			// The adjudicator's column is gone: what it held cannot be read.
			r.problem(records.Error, decode.ErrLayout, ms.Name, backend.CellName(mc.Index, 1), "", "the column %q is not on the sheet (deleted?): its cells cannot be read, and decisions made in it are lost to the gold set until it is put back", mc.Header)
		}
	}
	for i, c := range cells {
		if !taken[i] && strings.TrimSpace(c.Text()) != "" {
			r.problem(records.Warning, ErrUnplaced, ms.Name, backend.CellName(i, 1), "", "the column %q was added: it is not read, and adjudicate would not keep it", c.Text())
		}
	}
	return at
}

// decision gathers a row's input cells.
func (r *reader) decision(ms MetaSheet, row int, at map[string]int, get func(string) backend.ReadCell) *Decision {
	d := &Decision{Sheet: ms.Name, Row: row, Cells: map[string]backend.ReadCell{}, cell: map[string]string{}}
	for _, mc := range ms.Columns {
		i, ok := at[mc.Key]
		if !ok {
			continue
		}
		d.cell[mc.Key] = quoteSheet(ms.Name) + "!" + backend.CellName(i, row)
		if d.first == "" && strings.HasPrefix(mc.Key, colFinal+"=") {
			d.first = d.cell[mc.Key]
		}
		if !inputKey(mc.Key) {
			continue
		}
		c := get(mc.Key)
		if strings.TrimSpace(c.Text()) != "" || c.Type == backend.CellNoValue || c.Type == backend.CellError {
			d.Cells[mc.Key] = c
		}
	}
	return d
}

// inputKey reports whether a column is the adjudicator's to fill.
func inputKey(key string) bool {
	switch key {
	case colFinal, colUse, colDecision, colType, colSpan, colReason, colNote:
		return true
	}
	return strings.HasPrefix(key, colFinal+"=")
}

func sameCells(a, b map[string]backend.ReadCell) bool {
	if len(a) != len(b) {
		return false
	}
	for k, c := range a {
		if b[k].Text() != c.Text() {
			return false
		}
	}
	return true
}

// parse reads a row's input cells with their questions' rules.
func (r *reader) parse(it *Item, d *Decision) {
	t := r.Template
	bad := func(key string, p *decode.CellProblem) {
		if p == nil {
			return
		}
		r.problem(p.Severity, p.Err, d.Sheet, strings.TrimPrefix(d.Cell(key), quoteSheet(d.Sheet)+"!"), it.Unit, "%s", p.Message)
		if p.Severity == records.Error {
			d.Bad = true
		}
	}
	pick := func(key string, allowed []string) string {
		c, ok := d.Cells[key]
		if !ok {
			return ""
		}
		want := fold(c.Text())
		for _, a := range allowed {
			if fold(a) == want {
				return a
			}
		}
		if a, ok := r.who[want]; ok {
			for _, ans := range it.Answers {
				if ans.Annotator == a {
					return a
				}
			}
			bad(key, &decode.CellProblem{Severity: records.Error, Err: decode.ErrInvalidAnswer, Message: fmt.Sprintf("%s has no answer on this unit; pick one of: %s", c.Text(), strings.Join(append(allowed, r.namesOf(it)...), "; "))})
			return ""
		}
		words := append(allowed, r.namesOf(it)...)
		bad(key, &decode.CellProblem{Severity: records.Error, Err: decode.ErrInvalidAnswer, Message: fmt.Sprintf("%s is not one of: %s%s", records.QuoteCell(c.Text()), strings.Join(words, "; "), suggest.Words(c.Text(), words))})
		return ""
	}
	if c, ok := d.Cells[colReason]; ok {
		d.Reason = c.Text()
		for _, a := range Reasons {
			if fold(a) == fold(c.Text()) {
				d.Reason = a
			}
		}
		if d.Reason == c.Text() && !slices.Contains(Reasons, d.Reason) {
			r.problem(records.Warning, decode.ErrInvalidAnswer, d.Sheet, strings.TrimPrefix(d.Cell(colReason), quoteSheet(d.Sheet)+"!"), it.Unit, "%s is not one of the reasons (%s): kept as written", records.QuoteCell(c.Text()), strings.Join(Reasons, "; "))
		}
	}
	d.Note = r.text(d, it, colNote)
	if it.Kind == KindSpans {
		d.Choice = pick(colDecision, []string{DecideKeep, DecideDrop, DecideEdit})
		if c, ok := d.Cells[colType]; ok {
			lq := t.QuestionByName(t.Rows.Label)
			v, ok, p := decode.ReadAnswer(lq, colType, c)
			bad(colType, p)
			if ok {
				d.Type = v.(string)
			}
		}
		d.Span = r.text(d, it, colSpan)
		return
	}
	d.Use = pick(colUse, []string{UseSuggested})
	q := t.QuestionByName(it.Question)
	if q.Type == templates.TypeMulti {
		var codes []string
		ticked := false
		for k := range q.Options {
			o := &q.Options[k]
			key := colFinal + "=" + o.Code
			c, ok := d.Cells[key]
			if !ok {
				continue
			}
			yes, ok, p := decode.ReadCheckbox(c)
			bad(key, p)
			if ok && yes {
				codes, ticked = append(codes, o.Code), true
			}
		}
		if ticked || d.Reason != "" && d.Use == "" {
			d.Final, d.HasFinal = sortedCodes(codes), true
		}
		return
	}
	if c, ok := d.Cells[colFinal]; ok {
		v, ok, p := decode.ReadAnswer(q, colFinal, c)
		bad(colFinal, p)
		if ok {
			if q.Type == templates.TypeSpan {
				v = records.SpanValue{Field: q.Field, Text: v.(string)}
			}
			d.Final, d.HasFinal = v, true
		}
	}
}

// text reads a cell of free text: a formula with no saved value is read
// as its text, with a warning, and never evaluated.
func (r *reader) text(d *Decision, it *Item, key string) string {
	c, ok := d.Cells[key]
	if !ok {
		return ""
	}
	if c.Type == backend.CellNoValue {
		r.problem(records.Warning, decode.ErrNormalised, d.Sheet, strings.TrimPrefix(d.Cell(key), quoteSheet(d.Sheet)+"!"), it.Unit, "a formula with no saved value (=%s): read as its text", c.Formula)
		return "=" + c.Formula
	}
	return c.Text()
}

// namesOf is how an item's annotators are named on the sheet.
func (r *reader) namesOf(it *Item) []string {
	var out []string
	for _, a := range it.Answers {
		for i, id := range r.Annotators {
			if id == a.Annotator {
				out = append(out, r.Names[i])
			}
		}
	}
	return out
}
