package decode

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/annosheet/annosheet/compare"
	"github.com/annosheet/annosheet/layout"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// answers is what one unit (or one answer row of a block) says: the typed
// answer of each question, and where each came from.
type answers struct {
	vals    map[string]any
	cells   map[string]int // question -> the sheet column its answer is in
	row     int
	touched bool     // some cell of the row's questions has text, valid or not
	parent  *answers // a block's answers, seen by each of its rows
}

// get is a rule's view of the answers: an answer that could not be read
// counts as given, with no value a rule could test.
func (a *answers) get(q string) (any, bool) {
	v, ok := a.vals[q]
	if !ok && a.parent != nil {
		return a.parent.get(q)
	}
	if _, bad := v.(invalidAnswer); bad {
		return nil, true
	}
	return v, ok
}

// decode turns the rows of every unit into records.
func (p *puller) decode() []*records.Annotation {
	annotators := p.annotators()
	// Problems found so far that concern a unit (its annotator).
	byUnit := map[string]records.Problems{}
	for _, pr := range p.probs {
		if pr.Record != "" {
			byUnit[pr.Record] = append(byUnit[pr.Record], pr)
		}
	}
	out := make([]*records.Annotation, 0, len(p.units))
	// The records, in one allocation rather than one each.
	slab := make([]records.Annotation, len(p.units))
	for k := range p.units {
		u := p.unit(k)
		own := annotators[k] // as the rows say, before the workbook's own annotator
		if who := p.declared(p.meta.Annotator); who != "" {
			// A workbook made for one annotator is theirs, whatever a
			// cell says.
			if annotators[k] != "" && fold(annotators[k]) != fold(who) && len(p.rows[k]) > 0 {
				p.problem(records.Warning, ErrAnnotator, u.ID, p.rows[k][0].n, p.at[p.colIndex(templates.RoleAnnotator)], "this workbook is for annotator %s, but the row says %s; the answers are counted as %s's", who, records.QuoteCell(annotators[k]), who)
			}
			annotators[k] = who
		}
		rec := &slab[k]
		*rec = records.Annotation{
			Schema:    records.AnnotationSchema,
			Template:  records.TemplateID{Name: p.t.Name, Version: p.t.Version},
			Batch:     p.meta.Batch,
			Unit:      u.ID,
			Item:      u.Item,
			Annotator: annotators[k],
			Shuffled:  p.meta.Shuffled,
			Problems:  []records.UnitProblem{},
		}
		first := len(p.probs)
		rows := p.rows[k]
		rec.Source = records.RecordSource{Kind: p.g.Kind, File: p.g.Name, Sheet: p.sheet, Rows: make([]int, 0, len(rows))}
		for _, r := range rows {
			rec.Source.Rows = append(rec.Source.Rows, r.n)
		}
		answered := false
		switch {
		case len(rows) == 0:
			p.problem(records.Error, ErrMissingUnit, u.ID, 0, -1, "unit %s (row %d when generated) is not in the sheet: was its row deleted?", p.named(u.ID), u.FirstRow)
		case p.t.Rows.Per == templates.PerBlock:
			rec.Values = map[string]any{}
			answered = p.decodeBlock(u, blockOrder(rows), rec)
			if p.deletedRows(u, rows) {
				// The deleted rows may have held answers: the block is
				// not complete, and not empty either.
				answered = true
			}
		default:
			answered = p.decodeRow(u, rows[0], rec) // its Values are the row's
		}
		if u.prefill != nil && p.meta.Prefill != nil && len(rows) > 0 {
			answered = p.settle(u, rows, rec, own, answered, first)
		}
		if rec.Values == nil {
			rec.Values = map[string]any{}
		}
		mine := append(byUnit[u.ID], p.probs[first:]...)
		mine.Sort()
		for _, pr := range mine {
			rec.Problems = append(rec.Problems, pr.UnitProblem())
		}
		rec.Status = unitStatus(len(rows) > 0, answered, mine)
		out = append(out, rec)
		// The record holds what is needed of the rows from here on: the
		// sheet's rows are let go as the records take their place.
		p.rows[k] = nil
	}
	p.unjudged(out)
	return out
}

// settle decides what a prefilled unit's answers are, and says what the
// annotator did with the suggestions. Shown beside empty answer cells,
// the suggestions change nothing of the answers: an answered unit gets
// its trace. Written into the answer cells, the annotator's ID on its rows
// (own) marks the unit as checked. Answers the same as the suggestions,
// on rows without the ID, were never looked at: the unit is empty, with
// none of the problems its cells gave (first is where they start). A unit
// with the ID, or answers of its own, is answered, and gets the trace. A
// workbook for one annotator warns of changed answers without the ID,
// which are counted as that annotator's all the same; a shared one has
// already said that answers need an ID.
func (p *puller) settle(u unitRow, rows []sheetRow, rec *records.Annotation, own string, answered bool, first int) bool {
	sugg, err := records.TypedRecord(p.t, u.prefill)
	if err != nil {
		// The metadata sheet was edited: the answers stand, untraced.
		p.problem(records.Error, ErrLayout, u.ID, rows[0].n, -1, "the suggested answers this unit started from cannot be read from the workbook's metadata (%v); its answers are read without saying which were kept", err)
		return answered
	}
	trace := compare.Trace(p.t, sugg, rec)
	if p.meta.Prefill.As == layout.PrefillSuggestions {
		// The answer cells started empty: what is in them is the
		// annotator's, and a unit left empty was not answered.
		if !answered {
			return false
		}
		trace.From = p.meta.Prefill.From
		rec.Prefill = trace
		return true
	}
	if own == "" {
		if p.untouched(sugg, rec, trace, first) {
			p.probs = p.probs[:first]
			rec.Values, rec.Spans = map[string]any{}, nil
			return false
		}
		if p.meta.Annotator != "" {
			p.problem(records.Warning, ErrAnnotator, u.ID, rows[0].n, p.at[p.colIndex(templates.RoleAnnotator)],
				"the suggested answers were changed, but no annotator ID says the row was checked; the answers are counted as %s's", p.declared(p.meta.Annotator))
		}
	}
	if len(rec.Values) == 0 && len(rec.Spans) == 0 {
		// Checked, and every suggestion cleared: no answer is left to
		// count, as in a row nobody has filled in.
		p.problem(records.Warning, ErrRequired, u.ID, rows[0].n, -1, "every suggested answer was cleared and none given: the unit counts as not answered yet")
		return false
	}
	trace.From = p.meta.Prefill.From
	rec.Prefill = trace
	return true
}

// untouched says a unit's answers are the suggestions it was given,
// every one, and nothing else: no answer to a question the suggestions
// left open, no span added, no cell that could not be read (its problems
// start at first).
func (p *puller) untouched(sugg, rec *records.Annotation, tr *records.PrefillTrace, first int) bool {
	for _, st := range tr.Questions {
		if st != records.PrefillKept {
			return false
		}
	}
	if s := tr.Spans; s != nil && (s.Changed > 0 || s.Removed > 0 || s.Added > 0) {
		return false
	}
	for q := range rec.Values {
		if _, given := sugg.Values[q]; !given {
			return false
		}
	}
	for _, pr := range p.probs[first:] {
		if errors.Is(pr.Err, ErrInvalidAnswer) {
			return false
		}
	}
	return true
}

// deletedRows reports a block that has fewer of its generated rows (those
// with its unit cell; where rows are numbered, those with a place of their
// own, so that a copied row does not hide a deleted one) than the
// workbook's metadata records for it: rows were deleted, with whatever
// answers they held. Without the unit column generated rows cannot be told
// from inserted ones, and nothing is said.
func (p *puller) deletedRows(u unitRow, rows []sheetRow) bool {
	if p.at[p.colIndex(templates.RoleUnit)] < 0 {
		return false
	}
	generated := 0
	var now []int
	for _, r := range rows {
		if r.pos > 0 || p.meta.RowMark == "" && !r.inserted {
			generated++
		}
		now = append(now, r.n)
	}
	if generated >= u.Rows {
		return false
	}
	pr := p.problem(records.Error, ErrDeletedRow, u.ID, slices.Min(now), -1, "block %s had %d rows when generated (rows %d-%d); %d %s not in the sheet: deleted, with any answers %s held; the block is now on rows %s",
		p.named(u.ID), u.Rows, u.FirstRow, u.FirstRow+u.Rows-1, u.Rows-generated, words.Pick(u.Rows-generated, "is", "are"), words.Pick(u.Rows-generated, "it", "they"), joinInts(now))
	pr.Cell = strconv.Itoa(slices.Min(now)) + ":" + strconv.Itoa(slices.Max(now))
	return true
}

// unjudged reports, for templates where an annotator claims a whole
// instance, the rows of a claimed instance that nobody has judged yet: the
// instance is not done until every row is.
func (p *puller) unjudged(recs []*records.Annotation) {
	if p.t.Annotator.Claim != templates.ClaimInstance || p.t.Rows.Per != templates.PerElement {
		return
	}
	started := map[string]string{} // item -> annotator who has judged some row
	for _, r := range recs {
		if r.Status != records.StatusEmpty && r.Status != records.StatusMissing && r.Annotator != "" {
			if _, ok := started[r.Item]; !ok {
				started[r.Item] = r.Annotator
			}
		}
	}
	for _, r := range recs {
		who, ok := started[r.Item]
		if !ok || r.Status != records.StatusEmpty {
			continue
		}
		pr := p.problem(records.Warning, ErrRequired, r.Unit, r.Source.Rows[0], -1, "instance %s is claimed by %s, but this row is not judged yet", p.named(r.Item), who)
		r.Problems = append(r.Problems, pr.UnitProblem())
	}
}

// unitStatus is a unit's status from its rows, answers and problems.
func unitStatus(present, answered bool, probs records.Problems) string {
	switch {
	case !present:
		return records.StatusMissing
	case !answered:
		return records.StatusEmpty
	}
	for _, pr := range probs {
		if pr.Severity == records.Error || pr.Err == ErrRequired {
			return records.StatusPartial
		}
	}
	return records.StatusComplete
}

// dedupe leaves a one-row unit that is on several rows (a copied row)
// with the row to read: the one with answers. Copies are reported: a
// warning when they say the same, an error when answers differ.
func (p *puller) dedupe(k int) {
	rows := p.rows[k]
	if len(rows) < 2 {
		return
	}
	u := p.units[k]
	read := rows[0]
	for _, r := range rows {
		if p.hasAnswers(r) {
			read = r
			break
		}
	}
	for _, r := range rows {
		switch {
		case r.n == read.n:
		case !p.hasAnswers(r) || slices.Equal(p.answerCells(r), p.answerCells(read)):
			p.problem(records.Warning, ErrLayout, u.ID, r.n, -1, "row %d repeats unit %s of row %d; it is read once", r.n, p.named(u.ID), read.n)
		default:
			p.problem(records.Error, ErrLayout, u.ID, r.n, -1, "unit %s is on rows %d and %d with different answers; row %d is read, row %d is not", p.named(u.ID), read.n, r.n, read.n, r.n)
		}
	}
	p.rows[k] = []sheetRow{read}
}

func (p *puller) answerCells(r sheetRow) []string {
	var out []string
	for i, c := range p.cols {
		if c.Role == templates.RoleAnswer || c.Role == templates.RoleAnnotator {
			out = append(out, strings.TrimSpace(r.cells[i]))
		}
	}
	return out
}

// annotators works out who annotated each unit. IDs are one annotator
// whatever their case and surrounding spaces (see spellings). With claim:
// instance, every row of an instance must carry the same ID; a row without
// one takes the instance's, with a warning.
func (p *puller) annotators() []string {
	ac := p.colIndex(templates.RoleAnnotator)
	out := make([]string, len(p.units))
	spell := p.spellings()
	key := func(r sheetRow) string { return fold(r.cells[ac]) }
	own := func(k int) string {
		for _, r := range p.rows[k] {
			if id := key(r); id != "" {
				return spell[id]
			}
		}
		return ""
	}
	if p.t.Annotator.Claim != templates.ClaimInstance {
		for k := range p.units {
			out[k] = own(k)
		}
		return out
	}
	// Group the units of each instance.
	items := map[string][]int{}
	var order []string
	for k, u := range p.units {
		if _, seen := items[u.Item]; !seen {
			order = append(order, u.Item)
		}
		items[u.Item] = append(items[u.Item], k)
	}
	for _, item := range order {
		ks := items[item]
		byID := map[string][]int{} // annotator -> rows
		var ids []string
		for _, k := range ks {
			for _, r := range p.rows[k] {
				id := key(r)
				if id == "" {
					continue
				}
				if _, seen := byID[id]; !seen {
					ids = append(ids, id)
				}
				byID[id] = append(byID[id], r.n)
			}
		}
		switch len(ids) {
		case 0:
			continue
		case 1:
		default:
			var parts []string
			for _, id := range ids {
				parts = append(parts, fmt.Sprintf("%s (rows %s)", spell[id], joinInts(byID[id])))
			}
			for _, k := range ks {
				for _, r := range p.rows[k] {
					if id := key(r); id != "" && id != ids[0] {
						p.problem(records.Error, ErrAnnotator, p.units[k].ID, r.n, p.at[ac], "instance %s has more than one annotator: %s; one annotator takes a whole instance", p.named(item), strings.Join(parts, ", "))
					}
				}
			}
		}
		claimed := spell[ids[0]]
		for _, k := range ks {
			id := own(k)
			if id == "" {
				id = claimed
				if len(p.rows[k]) > 0 && p.t.Rows.Per != templates.PerBlock && p.hasAnswers(p.rows[k][0]) {
					p.problem(records.Warning, ErrAnnotator, p.units[k].ID, p.rows[k][0].n, p.at[ac], "no annotator ID; the instance's annotator %s is assumed", claimed)
				}
			}
			out[k] = id
		}
	}
	return out
}

// spellings decides how each annotator ID is written, by its folded form
// (case and white space evened out): as the study declares it
// (PullOptions.Annotators), else as first seen in sheet order. An ID the
// study does not declare, or, without a declared list, one that differs
// from another only in punctuation, is probably a typo: a warning on the
// first cell of each unit where it is.
func (p *puller) spellings() map[string]string {
	ac := p.colIndex(templates.RoleAnnotator)
	spell := map[string]string{}
	declared := map[string]bool{}
	byLoose := map[string]string{} // declared ID without punctuation -> its spelling
	for _, d := range p.opt.Annotators {
		k := fold(d)
		if k == "" || declared[k] {
			continue
		}
		spell[k], declared[k] = strings.TrimSpace(d), true
		byLoose[looseID(k)] = spell[k]
	}
	type idCell struct {
		row  sheetRow
		unit int
	}
	cells := make([]idCell, 0, len(p.rows))
	for k, rows := range p.rows {
		for _, r := range rows {
			if fold(r.cells[ac]) != "" {
				cells = append(cells, idCell{r, k})
			}
		}
	}
	slices.SortStableFunc(cells, func(a, b idCell) int { return a.row.n - b.row.n })
	firstLoose := map[string]idCell{} // loose form -> the first cell with it
	warned := map[[2]string]bool{}    // (unit, folded ID) already warned about
	for _, c := range cells {
		id := strings.TrimSpace(c.row.cells[ac])
		k := fold(id)
		if _, ok := spell[k]; !ok {
			spell[k] = id
		}
		if p.meta.Annotator != "" {
			continue // the workbook's own annotator counts, whatever a cell says
		}
		u := p.units[c.unit].ID
		if warned[[2]string{u, k}] {
			continue
		}
		loose := looseID(k)
		switch {
		case p.opt.Annotators != nil && !declared[k]:
			hint := ""
			if d, ok := byLoose[loose]; ok {
				hint = " (" + d + "?)"
			}
			p.problem(records.Warning, ErrAnnotator, u, c.row.n, p.at[ac], "annotator ID %s is not one of the study's annotators: %s%s", records.QuoteCell(id), strings.Join(p.opt.Annotators, ", "), hint)
			warned[[2]string{u, k}] = true
		case p.opt.Annotators == nil:
			first, seen := firstLoose[loose]
			if !seen {
				firstLoose[loose] = c
				continue
			}
			if other := strings.TrimSpace(first.row.cells[ac]); fold(other) != k {
				p.problem(records.Warning, ErrAnnotator, u, c.row.n, p.at[ac], "annotator ID %s differs from %s (%s!%s) only in punctuation: the same annotator? It is read as another one", records.QuoteCell(id), records.QuoteCell(other), p.sheet, backend.CellName(p.at[ac], first.row.n))
				warned[[2]string{u, k}] = true
			}
		}
	}
	return spell
}

// declared is an annotator ID as the study declares it, if it does.
func (p *puller) declared(id string) string {
	for _, d := range p.opt.Annotators {
		if fold(d) == fold(id) {
			return strings.TrimSpace(d)
		}
	}
	return id
}

// looseID is a folded annotator ID without punctuation and spaces: IDs
// that agree on it are probably one person typing differently.
func looseID(folded string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPunct(r) || unicode.IsSpace(r) || unicode.IsSymbol(r) {
			return -1
		}
		return r
	}, folded)
}

func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ", ")
}

// decodeRow reads a unit that is one row; it reports whether anything was
// answered.
func (p *puller) decodeRow(u unitRow, r sheetRow, rec *records.Annotation) bool {
	a := p.readAnswers(u, r, "", nil)
	rec.Values = a.valid()
	p.checkAnswers(u, a, "", a.touched)
	if a.touched && rec.Annotator == "" {
		p.problem(records.Error, ErrAnnotator, u.ID, r.n, p.at[p.colIndex(templates.RoleAnnotator)], "the row has answers but no annotator ID")
	}
	return a.touched
}

// decodeBlock reads a block: its block questions, asked once, and one span
// entry per answer row. It reports whether anything was answered.
func (p *puller) decodeBlock(u unitRow, rows []sheetRow, rec *records.Annotation) bool {
	// Block questions: whichever row holds the answer (rows may have been
	// moved); two different answers are an error.
	block := &answers{vals: map[string]any{}, cells: map[string]int{}}
	readOn := map[string]int{} // question -> the row its answer was read on
	for _, r := range rows {
		a := p.readAnswers(u, r, "block", nil)
		block.touched = block.touched || a.touched
		vals := a.valid()
		for _, q := range p.t.Questions {
			v, ok := vals[q.Name]
			if !ok {
				continue
			}
			if prev, seen := block.vals[q.Name]; seen {
				if !reflect.DeepEqual(prev, v) {
					p.problem(records.Error, ErrInvalidAnswer, u.ID, r.n, a.cells[q.Name], "%q is answered twice in this block (rows %d and %d) with different answers; row %d is read", q.Header, readOn[q.Name], r.n, readOn[q.Name])
				}
				continue
			}
			block.vals[q.Name], block.cells[q.Name], readOn[q.Name] = v, a.cells[q.Name], r.n
			if block.row == 0 {
				block.row = r.n
			}
		}
	}
	if block.row == 0 {
		block.row = rows[0].n
	}
	for q, v := range block.vals {
		rec.Values[q] = v
	}
	answered := block.touched
	for _, r := range rows {
		a := p.readAnswers(u, r, "row", block)
		if !a.touched {
			continue
		}
		answered = true
		if len(a.valid()) > 0 {
			rec.Spans = append(rec.Spans, p.spanEntry(r, a))
		}
		p.checkAnswers(u, a, "row", true)
	}
	p.checkAnswers(u, block, "block", answered)
	if answered && rec.Annotator == "" {
		p.problem(records.Error, ErrAnnotator, u.ID, rows[0].n, p.at[p.colIndex(templates.RoleAnnotator)], "the block has answers but no annotator ID")
	}
	return answered
}

// spanEntry turns one answer row of a block into its canonical entry.
func (p *puller) spanEntry(r sheetRow, a *answers) records.SpanAnswer {
	t := p.t
	e := records.SpanAnswer{Question: t.Rows.Spans, Row: r.n}
	primary, evidence := t.PrimarySpan(), t.RowEvidence()
	for name, v := range a.valid() {
		switch {
		case name == primary:
			s := v.(records.SpanValue)
			e.Field, e.Start, e.End, e.Text = s.Field, s.Start, s.End, s.Text
		case name == t.Rows.Label:
			code := v.(string)
			e.Code = code
			e.Label = t.QuestionByName(name).Option(code).Label
		case name == evidence:
			ev := v.(records.Evidence)
			e.Evidence = &ev
		default:
			if e.Values == nil {
				e.Values = map[string]any{}
			}
			e.Values[name] = v
		}
	}
	return e
}

// readAnswers reads the answers of one row to the questions of one scope
// ("" for all). block gives the block's answers, which span checks of a
// row may need.
func (p *puller) readAnswers(u unitRow, r sheetRow, scope string, block *answers) *answers {
	a := &answers{vals: map[string]any{}, cells: map[string]int{}, row: r.n, parent: block}
	var report func(q *templates.Question, col int, is *cellIssue)
	// cell is the text of a question's cell and its column. A cell whose
	// type the question cannot take (a date in a scale, a formula with no
	// saved value) is reported here and reads as "": its question counts
	// as answered, with an invalid answer.
	cell := func(q *templates.Question, key string) (string, int) {
		i, ok := p.colByKey[key]
		if !ok {
			return "", -1
		}
		if hasText(r.cells[i]) && !p.notYet(key, r.cells[i]) {
			a.touched = true
		}
		if c, ok := r.typed[i]; ok {
			if is := typeIssue(q, key, c); is != nil {
				report(q, p.at[i], is)
				return "", p.at[i]
			}
		}
		return r.cells[i], p.at[i]
	}
	report = func(q *templates.Question, col int, is *cellIssue) {
		if is == nil {
			return
		}
		p.problem(is.severity, is.err, u.ID, r.n, col, "%s", is.msg)
		if is.severity == records.Error {
			// Given but unreadable: answered for the required check and
			// the rules, then dropped from the values.
			if _, ok := a.vals[q.Name]; !ok {
				a.vals[q.Name], a.cells[q.Name] = invalidAnswer{}, col
			}
		}
	}
	var spans []*templates.Question
	for i := range p.t.Questions {
		q := &p.t.Questions[i]
		if scope != "" && q.Scope != scope {
			continue
		}
		key := "q:" + q.Name
		switch q.Type {
		case templates.TypeChoice:
			s, col := cell(q, key)
			if hasText(s) {
				code, is := parseChoice(q, s)
				report(q, col, is)
				if code != "" {
					a.vals[q.Name], a.cells[q.Name] = code, col
				}
			}
		case templates.TypeMulti:
			if q.Render == "list" {
				s, col := cell(q, key)
				if hasText(s) {
					codes, is := parseCodeList(q, s)
					report(q, col, is)
					if codes != nil {
						a.vals[q.Name], a.cells[q.Name] = codes, col
					}
				}
				continue
			}
			var codes []string
			any, bad := false, false
			firstCol := -1
			for _, o := range q.Options {
				s, col := cell(q, key+"="+o.Code)
				if firstCol < 0 {
					firstCol = col
				}
				if !hasText(s) {
					continue
				}
				any = true
				on, is := parseBool(s)
				report(q, col, is)
				bad = bad || is != nil
				if on {
					codes = append(codes, o.Code)
				}
			}
			if _, inv := a.vals[q.Name].(invalidAnswer); inv {
				continue // a cell of it was reported
			}
			if any && !bad {
				slices.Sort(codes)
				if codes == nil {
					codes = []string{}
				}
				a.vals[q.Name], a.cells[q.Name] = codes, firstCol
			}
		case templates.TypeScale:
			s, col := cell(q, key)
			if hasText(s) {
				n, ok, is := parseScale(q, s)
				report(q, col, is)
				if ok {
					a.vals[q.Name], a.cells[q.Name] = n, col
				}
			}
		case templates.TypeBool:
			s, col := cell(q, key)
			if hasText(s) {
				b, is := parseBool(s)
				report(q, col, is)
				if is == nil {
					a.vals[q.Name], a.cells[q.Name] = b, col
				}
			}
		case templates.TypeText:
			s, col := cell(q, key)
			if hasText(s) {
				a.vals[q.Name], a.cells[q.Name] = s, col
			}
		case templates.TypeSpan:
			spans = append(spans, q)
		case templates.TypeEvidence:
			ps, pcol := cell(q, key+"#"+templates.PartPassage)
			ss, scol := cell(q, key+"#"+templates.PartSentences)
			if !hasText(ps) && !hasText(ss) {
				continue
			}
			if _, inv := a.vals[q.Name].(invalidAnswer); inv {
				continue // a cell of it was reported
			}
			ev, pIssue, sIssue := parseEvidence(ps, ss, u.evidence[q.Name])
			report(q, pcol, pIssue)
			report(q, scol, sIssue)
			if ev != nil {
				a.vals[q.Name], a.cells[q.Name] = *ev, pcol
			} else {
				a.cells[q.Name] = pcol
				a.vals[q.Name] = invalidAnswer{}
			}
		}
	}
	// Spans last, anchored ones after the spans they must precede.
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Before == "" && spans[j].Before != "" })
	for _, q := range spans {
		s, col := cell(q, "q:"+q.Name)
		if !hasText(s) {
			continue
		}
		occ, ocol := cell(q, "q:"+q.Name+"#"+templates.PartOccurrence)
		v, is := p.locate(u, q, s, occ, a)
		if is != nil {
			icol := col
			if is.occurrence {
				icol = ocol
			}
			report(q, icol, is)
		}
		a.vals[q.Name], a.cells[q.Name] = v, col
	}
	return a
}

// notYet reports a scale cell holding the declared "not yet answered"
// value, which does not count as an answer.
func (p *puller) notYet(key, cell string) bool {
	q := p.cols[p.colByKey[key]].Question
	if q == nil || q.Type != templates.TypeScale || q.Unanswered == nil {
		return false
	}
	n, ok := parseWhole(cell)
	return ok && n == *q.Unanswered
}

// valid is the answers that could be read: what goes into a record.
// The map is the answers' own when every answer is valid: nothing
// writes to it once readAnswers has returned.
func (a *answers) valid() map[string]any {
	bad := 0
	for _, v := range a.vals {
		if _, ok := v.(invalidAnswer); ok {
			bad++
		}
	}
	if bad == 0 {
		return a.vals
	}
	out := make(map[string]any, len(a.vals)-bad)
	for q, v := range a.vals {
		if _, bad := v.(invalidAnswer); !bad {
			out[q] = v
		}
	}
	return out
}

// invalidAnswer stands for an answer that was given but could not be read;
// it counts as answered while rules are checked, then is dropped.
type invalidAnswer struct{}

// locate finds a span's text in its field, using the occurrence column
// when the text occurs more than once, and checking that a span anchored
// before another does precede it.
func (p *puller) locate(u unitRow, q *templates.Question, text, occCell string, a *answers) (records.SpanValue, *cellIssue) {
	v := records.SpanValue{Field: q.Field, Text: text}
	field, ok := u.fields[q.Field]
	if !ok {
		return v, invalid("the text of %q is not in the workbook's metadata; the span cannot be located", q.Field)
	}
	header := p.t.ContextByName(q.Field).Header
	matches := findExact(field, text)
	var issue *cellIssue
	if len(matches) == 0 {
		if matches = findNormalised(field, text); len(matches) > 0 {
			issue = normalised("found in %q only after evening out spaces, quotes or dashes; the record has the text as it is there", header)
		}
	}
	if len(matches) == 0 {
		return v, invalid("%s is not in %q; copy the span exactly", records.QuoteCell(text), header)
	}
	pick := -1
	if hasText(occCell) {
		n, ok := parseWhole(occCell)
		if !ok || n < 1 || n > len(matches) {
			return v, &cellIssue{severity: records.Error, err: ErrInvalidAnswer, occurrence: true, msg: fmt.Sprintf("occurrence %q: the span occurs %d time(s) in %q", occCell, len(matches), header)}
		}
		pick = n - 1
	}
	if q.Before != "" {
		anchor, ok := a.vals[q.Before].(records.SpanValue)
		if ok && anchor.Start != nil {
			before := -1
			for i, m := range matches {
				if m.end <= *anchor.Start {
					before = i
				}
			}
			switch {
			case pick >= 0 && matches[pick].end > *anchor.Start:
				return v, invalid("%s (occurrence %d) does not come before the %s", records.QuoteCell(text), pick+1, strings.ToLower(p.t.QuestionByName(q.Before).Header))
			case pick < 0 && before < 0:
				return v, invalid("%s does not occur before the %s in %q", records.QuoteCell(text), strings.ToLower(p.t.QuestionByName(q.Before).Header), header)
			case pick < 0:
				pick = before // the nearest earlier occurrence
			}
		}
	}
	if pick < 0 {
		if len(matches) > 1 {
			return v, invalid("%s occurs %d times in %q; say which in the occurrence column", records.QuoteCell(text), len(matches), header)
		}
		pick = 0
	}
	m := matches[pick]
	v.Start, v.End = &m.start, &m.end
	if issue != nil {
		// Offsets and text agree, as every reader of the record checks:
		// the text is the field's at the offsets, not the one typed.
		v.Text = string([]rune(field)[m.start:m.end])
	}
	return v, issue
}

// checkAnswers checks required questions and the template's rules on one
// set of answers. answered says whether the unit has any answer at all:
// an untouched unit is not missing anything yet.
func (p *puller) checkAnswers(u unitRow, a *answers, scope string, answered bool) {
	if !answered {
		return
	}
	t := p.t
	for i := range t.Questions {
		q := &t.Questions[i]
		if !q.Required || scope != "" && q.Scope != scope {
			continue
		}
		if v, ok := a.vals[q.Name]; ok {
			if codes, multi := v.([]string); !multi || len(codes) > 0 {
				continue
			}
		}
		if _, bad := a.vals[q.Name].(invalidAnswer); bad {
			continue // already reported as invalid
		}
		p.problem(records.Warning, ErrRequired, u.ID, a.row, p.questionCol(q), "%q is required and not answered yet", q.Header)
	}
	get := a.get
	for i := range t.Rules {
		r := &t.Rules[i]
		if !p.ruleInScope(r, scope) {
			continue
		}
		if r.When.Holds(get) && !r.Then.Holds(get) {
			sev := r.Severity
			p.problem(sev, ErrRule, u.ID, a.row, p.ruleCol(r, a), "%s", r.Message)
		}
	}
}

// ruleInScope reports whether a rule is checked in a scope: in a block,
// rules that name a question of the answer rows are checked on each row
// (with the block's answers in view), the others once for the block. ""
// checks all.
func (p *puller) ruleInScope(r *templates.Rule, scope string) bool {
	if scope == "" {
		return true
	}
	rowQ := false
	walkCond(r.When, func(q string) { rowQ = rowQ || p.t.QuestionByName(q).Scope == "row" })
	walkCond(r.Then, func(q string) { rowQ = rowQ || p.t.QuestionByName(q).Scope == "row" })
	return rowQ == (scope == "row")
}

func walkCond(c *templates.Cond, fn func(string)) {
	if c == nil {
		return
	}
	if c.Question != "" {
		fn(c.Question)
	}
	for _, s := range c.All {
		walkCond(s, fn)
	}
	for _, s := range c.Any {
		walkCond(s, fn)
	}
	walkCond(c.Not, fn)
}

// firstQuestion is the question a rule's problem is reported on: the first
// one its then names, else its when.
func firstQuestion(conds ...*templates.Cond) string {
	for _, c := range conds {
		found := ""
		walkCond(c, func(q string) {
			if found == "" {
				found = q
			}
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// questionCol is the sheet column of a question's first column, or -1.
func (p *puller) questionCol(q *templates.Question) int {
	if q == nil {
		return -1
	}
	for i, c := range p.cols {
		if c.Question == q {
			return p.at[i]
		}
	}
	return -1
}
