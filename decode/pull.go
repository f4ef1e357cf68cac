package decode

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Errors that stop a workbook from being read at all.
var (
	// ErrNotWorkbook: the file has no annosheet metadata.
	ErrNotWorkbook = errors.New("not an annosheet workbook")
	// ErrOtherStudy: the workbook was made with another template, or for
	// another study, than the one being read.
	ErrOtherStudy = errors.New("workbook of another template or study")
)

// PullOptions restrict which workbooks Pull accepts.
type PullOptions struct {
	// Template, when set, is the name of the template the workbook must
	// have been made with; Version too when not 0.
	Template string
	Version  int
	// Study, when set, is the study the workbook must belong to.
	Study string
	// Orders, when set, are the orders the study showed each instance's
	// candidates in (from its manifest): the answers of a shuffled
	// workbook are put back on their candidates. Without them, such
	// records keep the order shown and say so (Shuffled).
	Orders map[string][]string
	// StudyOrders gives the orders of several studies by study ID, for
	// workbooks whose study is known only once they are read; Orders,
	// when set, comes first.
	StudyOrders map[string]map[string][]string
	// Annotators, when set, are the annotator IDs the study declares. IDs
	// typed in a shared workbook are matched to them without regard to
	// case and surrounding spaces, and written as declared; an ID that
	// matches none is read as is, with a warning.
	Annotators []string
	// OpaqueIDs, when set, is the study's key from the opaque IDs a
	// workbook shows to the real ones (from its manifest): records get
	// the real IDs back. Without it, records of such a workbook keep the
	// opaque IDs and say so (OpaqueIDs). StudyOpaqueIDs gives the keys of
	// several studies by study ID, as StudyOrders does.
	OpaqueIDs      map[string]string
	StudyOpaqueIDs map[string]map[string]string
}

// Pulled is what Pull reads from one workbook.
type Pulled struct {
	Meta     layout.WorkbookMeta
	Template *templates.Template
	// Units lists the workbook's units as generated.
	Units []layout.Unit
	// Records has one record per unit (and annotator), in the workbook's
	// unit order, missing units included.
	Records []*records.Annotation
	// Problems lists every problem found, sorted by row and column; each
	// unit's own problems are in its record too.
	Problems records.Problems

	shown map[string]string // real unit ID -> the opaque one shown
}

// ShownAs is the ID the workbook shows for a unit of its records, where
// that is not the unit's (real) ID; "" otherwise.
func (p *Pulled) ShownAs(unit string) string { return p.shown[unit] }

// UnitName names a unit of the workbook's records in a message, as
// records.UnitName does.
func (p *Pulled) UnitName(unit string) string { return records.UnitName(unit, p.ShownAs(unit)) }

// unitRow is a unit as the metadata sheet records it.
type unitRow struct {
	layout.Unit
	unitText
}

// unitText is what the metadata sheet records of a unit whose spans are
// found in its text.
type unitText struct {
	fields   map[string]string // span fields' full text
	evidence map[string][]int  // evidence question -> sentences per passage
	// prefill is what the unit's answer cells started from, in the
	// order shown (generate --prefill), as JSON decodes it; nil when
	// they started empty.
	prefill *records.Annotation
}

// sheetRow is a row of the Annotate sheet, its cells in template column
// order ("" where the column is missing).
type sheetRow struct {
	n     int
	cells []string // the text of each cell, as the annotator sees it
	// typed holds the cells that are not plain text or numbers (booleans,
	// dates, formula errors, formulas without a value), by template
	// column; nil when the row has none.
	typed map[int]backend.ReadCell
	// inserted: the row has no unit cell of its own (an annotator added
	// it), so it is none of the rows the workbook was generated with.
	inserted bool
	// pos is the row's place in its block when generated (1 for the
	// first), read from its unit cell; 0 when unknown: an inserted row, a
	// copy of a row read before it, a workbook whose rows are not numbered.
	pos int
	// unplaced: an inserted row that a sort has moved away from where it
	// was, which the workbook does not record (see presort).
	unplaced bool
}

type puller struct {
	g     *backend.Grid
	meta  layout.WorkbookMeta
	t     *templates.Template
	cols  []templates.ColumnSpec
	units []layout.Unit
	// texts holds each unit's unitText, by index into units, up to the
	// last unit that has any: most templates have none.
	texts []unitText
	byID  map[string]int // unit id -> index in units
	// byTrimmed and byItem find units by their id without surrounding
	// spaces and by their item (-1 where several units share the key);
	// byFirstRow by their row at generation.
	byTrimmed, byItem map[string]int
	byFirstRow        map[int]int
	at                []int          // template column -> sheet column (0-based), -1 if missing
	colByKey          map[string]int // column key -> template column
	rows              [][]sheetRow   // per unit, in sheet order
	probs             records.Problems
	sheet             string
	opt               PullOptions
	// places holds the place on the sheet of each generated row of each
	// block before the sheet was last sorted, by unit (see places.go); 0
	// where unknown, nil for a workbook that does not record them.
	places [][]int
	// key is the study's key from the opaque IDs the workbook shows to
	// the real ones, when it shows opaque IDs and the key was given:
	// messages name units by their real IDs from the start.
	key map[string]string
}

// Pull reads one filled workbook into canonical records, checking every
// cell against the template the workbook carries: Open, Workbook.Template
// and Workbook.Pull in one call. records.Problems with cells, rows and
// columns do not stop it: they are reported, and nothing is dropped
// silently. It fails only when the workbook cannot be read at all, or
// belongs to another template or study than opt asks for.
func Pull(g *backend.Grid, opt PullOptions) (*Pulled, error) {
	w, err := Open(g)
	if err != nil {
		return nil, err
	}
	t, err := w.Template()
	if err != nil {
		return nil, err
	}
	return w.Pull(t, opt)
}

// Workbook is a workbook whose metadata sheet has been read: how it was
// made (template, study, batch, columns) and the units it holds, before
// any answer is.
type Workbook struct {
	p   *puller
	src []byte // the template's text it carries
}

// Open reads a workbook's metadata sheet. It fails when the workbook is
// not one annosheet generated, or its metadata is damaged.
func Open(g *backend.Grid) (*Workbook, error) {
	p := &puller{g: g, byID: map[string]int{}, byTrimmed: map[string]int{}, byItem: map[string]int{}, byFirstRow: map[int]int{}}
	src, err := p.readMeta()
	if err != nil {
		return nil, err
	}
	return &Workbook{p: p, src: src}, nil
}

// Meta is the workbook's record of how it was made.
func (w *Workbook) Meta() layout.WorkbookMeta { return w.p.meta }

// Template loads the template the workbook carries, with the parameters
// it was generated with, and checks it against the workbook's record.
func (w *Workbook) Template() (*templates.Template, error) {
	t, err := w.load()
	if err != nil {
		return nil, err
	}
	return t, w.carries(t)
}

// load loads the template the workbook carries.
func (w *Workbook) load() (*templates.Template, error) {
	g := w.p.g
	t, err := templates.LoadWithParams(g.Name+" (its template)", w.src, w.p.meta.Params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: the template it carries does not load: %v", g.Name, ErrNotWorkbook, err)
	}
	return t, nil
}

// carries checks that t is the template the workbook records.
func (w *Workbook) carries(t *templates.Template) error {
	if m := w.p.meta; t.Hash() != m.Template.SHA256 || t.Name != m.Template.Name || t.Version != m.Template.Version {
		return fmt.Errorf("%s: %w: the template it carries does not match its record (edited metadata?)", w.p.g.Name, ErrNotWorkbook)
	}
	return nil
}

// Pull reads the workbook's answers with t, the template it carries
// (Template, or one loaded before from the same text and parameters: see
// Templates). A Workbook is pulled once.
func (w *Workbook) Pull(t *templates.Template, opt PullOptions) (*Pulled, error) {
	if err := w.carries(t); err != nil {
		return nil, err
	}
	p, g := w.p, w.p.g
	p.t, p.opt = t, opt
	m := p.meta
	switch {
	case opt.Template != "" && m.Template.Name != opt.Template:
		return nil, fmt.Errorf("%s: %w: made with template %s, not %s", g.Name, ErrOtherStudy, m.Template.Name, opt.Template)
	case opt.Version != 0 && m.Template.Version != opt.Version:
		return nil, fmt.Errorf("%s: %w: made with %s version %d, not version %d", g.Name, ErrOtherStudy, m.Template.Name, m.Template.Version, opt.Version)
	case opt.Study != "" && m.Study != opt.Study:
		return nil, fmt.Errorf("%s: %w: it belongs to study %s, not %s", g.Name, ErrOtherStudy, m.Study, opt.Study)
	}
	if p.t.OpaqueIDs() {
		p.key = opt.OpaqueIDs
		if p.key == nil {
			p.key = opt.StudyOpaqueIDs[m.Study]
		}
	}
	p.cols = p.t.ColumnsWith(p.meta.ColumnOptions())
	p.colByKey = map[string]int{}
	for i, c := range p.cols {
		p.colByKey[c.Key] = i
	}
	p.sheet = m.Sheet
	if !slices.Contains(g.Sheets, p.sheet) {
		renamed, err := p.renamedSheet()
		switch {
		case err != nil:
			return nil, err
		case renamed == "":
			return nil, fmt.Errorf("%s: %w: the sheet %q is missing (renamed or deleted?)", g.Name, ErrNotWorkbook, p.sheet)
		}
		p.sheet = renamed
		p.problem(records.Warning, ErrLayout, "", 0, -1, "the sheet %s was renamed %q; it is read as %s", m.Sheet, renamed, m.Sheet)
	}
	p.rows = make([][]sheetRow, len(p.units))
	if err := p.readSheet(); err != nil {
		return nil, err
	}
	if err := p.otherSheets(); err != nil {
		return nil, err
	}
	out := &Pulled{Meta: m, Template: p.t}
	out.Records = p.decode()
	out.Units = p.units
	p.restoreIDs(out)
	if m.Shuffled {
		orders := opt.Orders
		if orders == nil {
			orders = opt.StudyOrders[m.Study]
		}
		if err := p.unshuffle(out.Records, orders); err != nil {
			return nil, err
		}
	}
	p.probs.Sort()
	out.Problems = p.probs
	return out, nil
}

// unshuffle puts answers back on their candidates with the study's
// orders, or says once that they are still in the order shown.
func (p *puller) unshuffle(recs []*records.Annotation, orders map[string][]string) error {
	if orders == nil {
		p.problem(records.Warning, ErrShuffled, "", 0, -1, "the candidates were shown in a shuffled order; the answers stay in the order shown (\"shuffled\": true) until pulled with the study's manifest")
		return nil
	}
	for _, r := range recs {
		order, ok := orders[r.Item]
		if !ok {
			return fmt.Errorf("%s: %w: the manifest has no order for instance %q", p.g.Name, ErrOtherStudy, r.Item)
		}
		if err := Unshuffle(p.t, r, order); err != nil {
			return fmt.Errorf("%s: %w", p.g.Name, err)
		}
	}
	return nil
}

// problem records a problem at a cell of the Annotate sheet (col < 0: the
// whole row; row 0: the whole sheet) and returns it.
func (p *puller) problem(severity string, err error, unit string, row, col int, format string, args ...any) *records.Problem {
	pr := &records.Problem{Severity: severity, File: p.g.Name, Sheet: p.sheet, Row: row, Record: unit, Err: err, Message: fmt.Sprintf(format, args...)}
	if row > 0 && col >= 0 {
		pr.Cell = backend.CellName(col, row)
	} else if row > 0 {
		pr.Cell = strconv.Itoa(row) + ":" + strconv.Itoa(row)
	}
	p.probs = append(p.probs, pr)
	return pr
}

// real is the real ID of a unit or instance the workbook shows as id:
// from the study's key of opaque IDs, where it has id; id otherwise.
func (p *puller) real(id string) string {
	if r, ok := p.key[id]; ok {
		return r
	}
	return id
}

// named names a unit or instance the workbook shows as id, for messages
// (see records.UnitName): by its real ID, and the shown one where they differ.
func (p *puller) named(id string) string { return records.UnitName(p.real(id), id) }

// MetaAdjudication starts the metadata of an adjudication workbook
// (package adjudicate), which a study's pull does not read.
const MetaAdjudication = "adjudication"

var errAdjudicationBook = errors.New("an adjudication workbook")

func (p *puller) readMeta() ([]byte, error) {
	g := p.g
	if !slices.Contains(g.Sheets, backend.SheetMeta) {
		return nil, fmt.Errorf("%s: %w: it has no %s sheet; pull reads workbooks made by annosheet generate", g.Name, ErrNotWorkbook, backend.SheetMeta)
	}
	var wb, src string
	// damaged is what the metadata says wrong; any other error from Rows
	// is the workbook failing to read, which says nothing about whether
	// it is one of ours.
	var damaged error
	err := g.Rows(backend.SheetMeta, func(row int, cells []backend.ReadCell) error {
		damaged = p.metaRow(row, texts(cells), &wb, &src)
		return damaged
	})
	switch {
	case damaged == errAdjudicationBook:
		return nil, fmt.Errorf("%s: %w: it is an adjudication workbook; pull the adjudication's folder, where it lies beside the adjudication.json that adjudicate wrote", g.Name, ErrNotWorkbook)
	case damaged != nil:
		return nil, fmt.Errorf("%s: %w: the %s sheet is damaged: %v", g.Name, ErrNotWorkbook, backend.SheetMeta, damaged)
	case err != nil:
		return nil, fmt.Errorf("%s: read sheet %s: %w", g.Name, backend.SheetMeta, err)
	}
	if wb == "" || src == "" {
		return nil, fmt.Errorf("%s: %w: the %s sheet lacks the workbook or template record", g.Name, ErrNotWorkbook, backend.SheetMeta)
	}
	if err := json.Unmarshal([]byte(wb), &p.meta); err != nil {
		return nil, fmt.Errorf("%s: %w: bad workbook record: %v", g.Name, ErrNotWorkbook, err)
	}
	if p.meta.Format != layout.MetaFormat {
		return nil, fmt.Errorf("%s: %w: metadata format %d; this annosheet reads format %d", g.Name, ErrNotWorkbook, p.meta.Format, layout.MetaFormat)
	}
	if len(p.units) != p.meta.Units {
		// A sheet cut short reads without error but lacks units.
		return nil, fmt.Errorf("%s: %w: the %s sheet is damaged: it lists %d units, its record says %d", g.Name, ErrNotWorkbook, backend.SheetMeta, len(p.units), p.meta.Units)
	}
	return []byte(src), nil
}

// metaRow reads one row of the metadata sheet; an error says what is wrong
// with it.
func (p *puller) metaRow(row int, cells []string, wb, src *string) error {
	if len(cells) == 0 {
		return nil
	}
	switch cells[0] {
	case MetaAdjudication:
		return errAdjudicationBook
	case layout.MetaWorkbook:
		*wb = strings.Join(cells[1:], "")
	case layout.MetaTemplate:
		*src = strings.Join(cells[1:], "")
	case layout.MetaUnit:
		if len(cells) < 5 {
			return fmt.Errorf("row %d is cut short", row)
		}
		var u unitRow
		u.ID, u.Item = cells[1], cells[2]
		var err1, err2 error
		u.FirstRow, err1 = strconv.Atoi(cells[3])
		u.Rows, err2 = strconv.Atoi(cells[4])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("row %d: bad row numbers %q, %q", row, cells[3], cells[4])
		}
		if len(cells) > 5 {
			var blob struct {
				Fields   map[string]string   `json:"fields"`
				Evidence map[string][]int    `json:"evidence"`
				Prefill  *records.Annotation `json:"prefill"`
			}
			d := json.NewDecoder(strings.NewReader(strings.Join(cells[5:], "")))
			d.UseNumber()
			if err := d.Decode(&blob); err != nil {
				return fmt.Errorf("row %d: %v", row, err)
			}
			u.fields, u.evidence = blob.Fields, blob.Evidence
			u.prefill = blob.Prefill // typed once the template is known
		}
		if _, dup := p.byID[u.ID]; dup {
			return fmt.Errorf("row %d: unit %q is listed twice", row, u.ID)
		}
		k := len(p.units)
		p.byID[u.ID] = k
		for _, e := range [...]struct {
			m   map[string]int
			key string
		}{{p.byTrimmed, strings.TrimSpace(u.ID)}, {p.byItem, u.Item}} {
			if _, shared := e.m[e.key]; shared {
				e.m[e.key] = -1
			} else {
				e.m[e.key] = k
			}
		}
		p.byFirstRow[u.FirstRow] = k
		p.units = append(p.units, u.Unit)
		if u.fields != nil || u.evidence != nil || u.prefill != nil {
			p.texts = append(p.texts, make([]unitText, k+1-len(p.texts))...)
			p.texts[k] = u.unitText
		}
	case layout.MetaPlaces:
		p.readPlaces(cells)
	}
	return nil
}

// unit is unit k with its text, if the metadata sheet records any.
func (p *puller) unit(k int) unitRow {
	u := unitRow{Unit: p.units[k]}
	if k < len(p.texts) {
		u.unitText = p.texts[k]
	}
	return u
}

// headerKey normalises a header for matching: trimmed, white space
// collapsed, case folded.
func headerKey(s string) string { return fold(s) }

// mapColumns finds each template column on the sheet: by header text
// first, wherever it was moved; by its position at generation when the
// header was renamed. Columns nobody knows are reported once.
func (p *puller) mapColumns(header []string) {
	p.at = make([]int, len(p.cols))
	claimed := make([]bool, len(header))
	byHeader := map[string][]int{}
	for i, h := range header {
		if hasText(h) {
			byHeader[headerKey(h)] = append(byHeader[headerKey(h)], i)
		}
	}
	recorded := map[string]layout.MetaColumn{}
	for _, mc := range p.meta.Columns {
		recorded[mc.Key] = mc
	}
	for i, c := range p.cols {
		p.at[i] = -1
		found := byHeader[headerKey(c.Header)]
		var free []int
		for _, j := range found {
			if !claimed[j] {
				free = append(free, j)
			}
		}
		switch {
		case len(free) == 1:
			p.at[i] = free[0]
		case len(free) > 1:
			pick := free[0]
			if mc, ok := recorded[c.Key]; ok && slices.Contains(free, mc.Index) {
				pick = mc.Index
			}
			p.at[i] = pick
			var names []string
			for _, j := range free {
				names = append(names, backend.ColumnLetter(j))
			}
			p.problem(records.Warning, ErrLayout, "", 1, pick, "the header %q is in columns %s; reading column %s", c.Header, strings.Join(names, ", "), backend.ColumnLetter(pick))
		}
		if p.at[i] >= 0 {
			claimed[p.at[i]] = true
		}
	}
	// Renamed headers: the column still at its generated position.
	for i, c := range p.cols {
		if p.at[i] >= 0 {
			continue
		}
		mc, ok := recorded[c.Key]
		if ok && mc.Index < len(header) && !claimed[mc.Index] {
			p.at[i] = mc.Index
			claimed[mc.Index] = true
			p.problem(records.Warning, ErrLayout, "", 1, mc.Index, "the header %q was renamed to %q; the column is read by its position", c.Header, header[mc.Index])
			continue
		}
		switch c.Role {
		case templates.RoleContext, templates.RoleCheck, templates.RoleSuggestion:
			// Context is not read back, nor the Check column the sheet
			// computes, nor the copies of suggested answers; deleting
			// them loses nothing.
		case templates.RoleUnit:
			p.problem(records.Warning, ErrLayout, "", 1, -1, "the hidden %q column is gone; rows are matched to units by ID and position", c.Header)
		default:
			p.problem(records.Error, ErrLayout, "", 1, -1, "the column %q is missing; its answers cannot be read", c.Header)
		}
	}
	for j, h := range header {
		if !claimed[j] && hasText(h) {
			p.problem(records.Warning, ErrLayout, "", 1, j, "column %s (%q) is not part of the template; it is ignored", backend.ColumnLetter(j), h)
		}
	}
}

// readSheet reads the Annotate sheet and sorts its rows into units.
func (p *puller) readSheet() error {
	header := true
	unitCol, idCol := p.colIndex(templates.RoleUnit), p.colIndex(templates.RoleID)
	var seq []placedRow // every non-empty row, in sheet order
	err := p.g.RowsKeeping(p.sheet, p.readsColumn(), func(n int, cells []backend.ReadCell) error {
		if header {
			header = false
			if n != 1 {
				p.mapColumns(nil)
			} else {
				p.mapColumns(texts(cells))
				return nil
			}
		}
		row := sheetRow{n: n, cells: make([]string, len(p.cols))}
		any := false
		for i, j := range p.at {
			// Context is not read back: keeping it would hold every long
			// text of the sheet in memory.
			if j >= 0 && j < len(cells) && p.reads(p.cols[i]) {
				c := cells[j]
				row.cells[i] = cellText(c)
				any = any || hasText(row.cells[i])
				// Only what typeIssue may refuse is kept: a boolean is a
				// checkbox's usual value, and keeping each would cost a map
				// per row.
				if c.Type != backend.CellString && c.Type != backend.CellNumber && (c.Type != backend.CellBool || p.cols[i].Question != nil && p.cols[i].Question.Type == templates.TypeScale) {
					if row.typed == nil {
						row.typed = map[int]backend.ReadCell{}
					}
					row.typed[i] = c
				}
			}
		}
		if !any {
			return nil
		}
		p.readSpanSources(&row, cells)
		k := -1
		if unit := row.cells[unitCol]; hasText(unit) {
			found, pos, ok := p.unitOf(unit)
			if !ok {
				p.unattributed(row, fmt.Sprintf("its unit %s is not one of this workbook's units (a row from another workbook?)", p.named(strings.TrimSpace(unit))))
				return nil
			}
			k, row.pos = found, pos
		}
		p.checkSpanSources(k, &row)
		seq = append(seq, placedRow{row: row, k: k, id: strings.TrimSpace(row.cells[idCol])})
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: read sheet %s: %w", p.g.Name, p.sheet, err)
	}
	if header {
		p.mapColumns(nil) // an empty sheet
	}
	p.place(p.presort(seq))
	// Every row has found its unit: the indexes that found them are let
	// go before the records are made.
	p.byID, p.byTrimmed, p.byItem, p.byFirstRow = nil, nil, nil, nil
	if p.t.Rows.Per != templates.PerBlock {
		for k := range p.rows {
			p.dedupe(k)
		}
	}
	return nil
}

// readsColumn is whether readSheet reads a column of the sheet, once
// the header row has placed the template's columns: a context column only
// where spans are found in its text, never the Check column.
func (p *puller) readsColumn() func(col int) bool {
	var reads []bool
	return func(col int) bool {
		if reads == nil {
			reads = make([]bool, 0, len(p.at))
			for i, j := range p.at {
				c := p.cols[i]
				if j < 0 || !p.reads(c) && !(c.Role == templates.RoleContext && p.t.SpanSource(c.Context)) {
					continue
				}
				for len(reads) <= j {
					reads = append(reads, false)
				}
				reads[j] = true
			}
		}
		return col < len(reads) && reads[col]
	}
}

// reads says whether a column's cells are read into a sheetRow: not
// context (the texts it shows), the Check column (computed) or the copies
// of suggested answers (pull compares with the metadata's).
func (p *puller) reads(c templates.ColumnSpec) bool {
	return c.Role != templates.RoleContext && c.Role != templates.RoleCheck && c.Role != templates.RoleSuggestion
}

// placedRow is a row of the sheet and the unit it was found to belong to
// (-1 while unknown).
type placedRow struct {
	row sheetRow
	k   int
	id  string
}

// findUnit finds a unit by its ID: exactly, or with surrounding white
// space dropped (which spreadsheets may trim).
func (p *puller) findUnit(id string) (int, bool) {
	if k, ok := p.byID[id]; ok {
		return k, true
	}
	k, ok := p.byTrimmed[strings.TrimSpace(id)]
	return k, ok && k >= 0
}

// unitOf reads a hidden unit cell: the unit, and the row's place in its
// block when the workbook numbers them (see layout.WorkbookMeta.RowMark). A cell
// is a numbered row only when what precedes the mark is a unit with that
// many rows; generate chose the mark so that no such cell is also a unit's
// ID.
func (p *puller) unitOf(cell string) (k, pos int, ok bool) {
	mark := p.meta.RowMark
	if mark == "" {
		k, ok = p.findUnit(cell)
		return k, 0, ok
	}
	if k, ok := p.byID[cell]; ok {
		return k, 1, true
	}
	s := strings.TrimSpace(cell)
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	digits, rest := s[i:], s[:i]
	if n, err := strconv.Atoi(digits); err == nil && strconv.Itoa(n) == digits && strings.HasSuffix(rest, mark) {
		if k, ok := p.findUnit(strings.TrimSuffix(rest, mark)); ok && n >= 2 && n <= p.units[k].Rows {
			return k, n, true
		}
	}
	k, ok = p.findUnit(cell)
	return k, 1, ok
}

// place gives every row without a unit cell its unit: by its ID where that
// names one unit; inside a block, by its neighbours (see blockOf). Rows
// that cannot be placed are reported with their answers.
//
// A block's rows are kept in sheet order here, an inserted row with the
// row above it, so a block moved elsewhere, inserted rows and all, stays
// whole; decode reads them in the order the block had them (see blockOrder).
func (p *puller) place(seq []placedRow) {
	unitCol := p.colIndex(templates.RoleUnit)
	for i := range seq {
		r := &seq[i]
		if r.k >= 0 {
			continue
		}
		r.row.inserted = p.at[unitCol] >= 0
		// The instance ID names the unit when an instance has one unit.
		if k, ok := p.byItem[r.id]; ok && k >= 0 {
			r.k = k
			if p.t.Rows.Per != templates.PerBlock && p.at[unitCol] >= 0 {
				p.problem(records.Warning, ErrLayout, p.units[k].ID, r.row.n, p.at[unitCol], "the row has no unit id; it was matched to unit %s by its ID", p.named(p.units[k].ID))
			}
			continue
		}
		// Without unit ids, a row still where it was generated, with its
		// instance's ID, is its unit.
		if k, ok := p.byFirstRow[r.row.n]; ok && p.at[unitCol] < 0 && p.units[k].Item == r.id {
			r.k = k
			continue
		}
		if p.t.Rows.Per == templates.PerBlock {
			// A row a sort moved away from its block, which the workbook
			// cannot put back, is of the one block whose text holds its
			// spans, if one does.
			if r.row.unplaced {
				if k, ok := p.blockBySpans(r.row); ok {
					r.k = k
					continue
				}
			}
			if k, ok := p.blockOf(seq, i); ok {
				r.k = k
				continue
			}
		}
		if p.hasAnswers(r.row) {
			p.unattributed(r.row, "it belongs to no unit (an inserted row?)")
		}
	}
	seen := map[[2]int]bool{} // unit, place in its block
	for _, r := range seq {
		if r.k < 0 {
			continue
		}
		if r.row.unplaced && p.hasAnswers(r.row) {
			p.problem(records.Warning, ErrLayout, p.units[r.k].ID, r.row.n, -1, "the row was inserted in block %s, and the sheet has been sorted since: where in the block it was cannot be known (the workbook does not record where its rows were), so it is read where the sheet has it now", p.named(p.units[r.k].ID))
		}
		if r.row.pos > 0 {
			// A copied row: the first in sheet order is the row
			// generated there; the copies read as inserted below their
			// neighbour above.
			at := [2]int{r.k, r.row.pos}
			if seen[at] {
				r.row.pos = 0
			}
			seen[at] = true
		}
		p.rows[r.k] = append(p.rows[r.k], r.row)
	}
}

// blockOrder returns a block's rows (given in sheet order) in the order
// the block had them, whatever sorting did to the sheet: the generated
// rows by their place in the block, each followed by the rows below it on
// the sheet that have no place of their own (inserted or copied), in sheet
// order; such rows above every generated row come first. Without numbered
// rows, sheet order is all there is.
func blockOrder(rows []sheetRow) []sheetRow {
	type run struct {
		pos  int
		rows []sheetRow
	}
	var runs []run
	for _, r := range rows {
		if r.pos > 0 || len(runs) == 0 {
			runs = append(runs, run{pos: r.pos})
		}
		runs[len(runs)-1].rows = append(runs[len(runs)-1].rows, r)
	}
	slices.SortStableFunc(runs, func(a, b run) int { return a.pos - b.pos })
	out := make([]sheetRow, 0, len(rows))
	for _, r := range runs {
		out = append(out, r.rows...)
	}
	return out
}

// blockOf finds the block of a row inserted among blocks' rows: the block
// of the nearest placed row above it (below it, at the top), so that a
// block moved with its inserted rows keeps them. Between two blocks, a
// span that is in only one of their texts decides; otherwise the block
// above is taken, with a warning.
func (p *puller) blockOf(seq []placedRow, i int) (int, bool) {
	prev, next := -1, -1
	for j := i - 1; j >= 0; j-- {
		if seq[j].k >= 0 {
			prev = seq[j].k
			break
		}
	}
	for j := i + 1; j < len(seq); j++ {
		if seq[j].k >= 0 {
			next = seq[j].k
			break
		}
	}
	switch {
	case prev < 0 && next < 0:
		return 0, false
	case prev < 0:
		return next, true
	case next < 0 || next == prev:
		return prev, true
	}
	// Between two blocks: look for the row's span in each block's text.
	for _, q := range p.t.Questions {
		if q.Type != templates.TypeSpan || q.Scope != "row" {
			continue
		}
		text := strings.TrimSpace(seq[i].row.cells[p.colByKey["q:"+q.Name]])
		if text == "" {
			continue
		}
		inPrev := strings.Contains(p.unit(prev).fields[q.Field], text)
		inNext := strings.Contains(p.unit(next).fields[q.Field], text)
		if inPrev != inNext {
			if inNext {
				return next, true
			}
			return prev, true
		}
	}
	if p.hasAnswers(seq[i].row) {
		p.problem(records.Warning, ErrLayout, p.units[prev].ID, seq[i].row.n, -1, "the row was inserted between blocks %s and %s; it is read as part of %s", p.named(p.units[prev].ID), p.named(p.units[next].ID), p.named(p.units[prev].ID))
	}
	return prev, true
}

func (p *puller) colIndex(role string) int {
	for i, c := range p.cols {
		if c.Role == role {
			return i
		}
	}
	return -1
}

// hasAnswers reports whether a row has anything in an answer or annotator
// column.
func (p *puller) hasAnswers(r sheetRow) bool {
	for i, c := range p.cols {
		if (c.Role == templates.RoleAnswer || c.Role == templates.RoleAnnotator) && hasText(r.cells[i]) && !p.notYet(c.Key, r.cells[i]) {
			return true
		}
	}
	return false
}

// unattributed reports a row whose answers cannot be given to a unit,
// quoting them so that nothing is lost.
func (p *puller) unattributed(r sheetRow, why string) {
	var vals []string
	for i, c := range p.cols {
		if (c.Role == templates.RoleAnswer || c.Role == templates.RoleAnnotator) && hasText(r.cells[i]) {
			vals = append(vals, backend.CellName(p.at[i], r.n)+"="+records.QuoteCell(r.cells[i]))
		}
	}
	if len(vals) == 0 {
		p.problem(records.Warning, ErrLayout, "", r.n, -1, "the row is ignored: %s", why)
		return
	}
	p.problem(records.Error, ErrLayout, "", r.n, -1, "the row's answers cannot be read: %s; they are %s", why, strings.Join(vals, ", "))
}

// errStopSheet ends the reading of a sheet early, on purpose.
var errStopSheet = errors.New("stop")

// otherSheets looks at the sheets annosheet did not make. A copy of the
// Annotate sheet (Excel names one "Annotate (2)") may hold the answers
// while the original stays blank: it is an error that names it, never a
// silent blank. Any other sheet with content is said not to be read.
func (p *puller) otherSheets() error {
	return p.eachOtherSheet(func(name string, copyOf, empty bool) {
		pr := &records.Problem{File: p.g.Name, Sheet: name, Err: ErrLayout}
		switch {
		case empty:
			return
		case copyOf:
			pr.Severity = records.Error
			pr.Message = fmt.Sprintf("sheet %q looks like a copy of %s, and annosheet reads only %s: move any answers typed here into %s (or delete %s and give this sheet its name), then pull again", name, p.sheet, p.sheet, p.sheet, p.sheet)
		default:
			pr.Severity = records.Warning
			pr.Message = fmt.Sprintf("sheet %q: a sheet annosheet did not make; it is not read", name)
		}
		p.probs = append(p.probs, pr)
	})
}

// renamedSheet finds the Annotate sheet under another name, when the
// workbook has none by its own: the one other sheet whose header row is
// the template's. Two such sheets are an error, as either may hold the
// answers.
func (p *puller) renamedSheet() (string, error) {
	var found []string
	err := p.eachOtherSheet(func(name string, copyOf, _ bool) {
		if copyOf {
			found = append(found, name)
		}
	})
	switch {
	case err != nil:
		return "", err
	case len(found) > 1:
		return "", fmt.Errorf("%s: %w: the sheet %q is missing, and sheets %q all look like it: keep the one with the answers, named %s, and pull again",
			p.g.Name, ErrNotWorkbook, p.sheet, found, p.sheet)
	case len(found) == 1:
		return found[0], nil
	}
	return "", nil
}

// eachOtherSheet calls fn for each sheet annosheet did not make, saying
// whether its header row is mostly the template's (a copy, or a renamed
// Annotate sheet), or it is empty.
func (p *puller) eachOtherSheet(fn func(name string, copyOf, empty bool)) error {
	known := map[string]bool{p.sheet: true, backend.SheetInstructions: true, backend.SheetLists: true, backend.SheetMeta: true, backend.SheetRead: true}
	headers := map[string]bool{}
	for _, mc := range p.meta.Columns {
		if mc.Header != "" {
			headers[fold(mc.Header)] = true
		}
	}
	for _, name := range p.g.Sheets {
		if known[name] {
			continue
		}
		var first []string
		err := p.g.Rows(name, func(_ int, cells []backend.ReadCell) error {
			first = texts(cells)
			return errStopSheet
		})
		if err != nil && !errors.Is(err, errStopSheet) {
			return fmt.Errorf("%s: read sheet %s: %w", p.g.Name, name, err)
		}
		same := 0
		for _, c := range first {
			if headers[fold(c)] {
				same++
			}
		}
		fn(name, len(headers) > 0 && same*2 >= len(headers), first == nil)
	}
	return nil
}

// cellText is the text of a read cell as pull compares it: what the
// annotator sees, and a formula with no saved value as its formula (so
// that the cell counts as filled and is reported).
func cellText(c backend.ReadCell) string {
	if c.Type == backend.CellNoValue {
		return "=" + c.Formula
	}
	return c.Text()
}

// texts is the text of a row of read cells.
func texts(cells []backend.ReadCell) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = cellText(c)
	}
	return out
}
