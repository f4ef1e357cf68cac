package layout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Options tune Build.
type Options struct {
	// Batch is the batch id recorded in the workbook; "b01" by default.
	Batch string
	// Study identifies the run that made the workbooks, so that pull can
	// tell a workbook of another study.
	Study string
	// CellLimit is the backend's limit on cell text (its
	// backend.Limits.CellChars); longer text is cut visibly and reported.
	CellLimit int
	// Keys is the anonymisation key to reuse (Anonymize.As -> real value ->
	// label); values it lacks get fresh labels.
	Keys map[string]map[string]string
	// Seed shuffles the anonymisation labels, so that A is not simply the
	// first evaluator in alphabetical order, and draws the order of each
	// instance's candidates when the template shuffles them.
	Seed uint64
	// Items, when set, picks the instances (by id) this workbook holds:
	// one batch of a study. Every record is still checked.
	Items func(item string) bool
	// Annotator, when set, is the annotator this workbook is for: the
	// annotator column is filled in with it and locked.
	Annotator string
	// OpaqueIDs is the study's key of opaque IDs (Result.OpaqueIDs) to
	// reuse when the template shows opaque IDs, so that an instance has
	// the same opaque ID in every batch; instances it lacks get the next
	// free ones.
	OpaqueIDs map[string]string
	// OpaqueIndex, when set, is OpaqueIDs indexed (IndexOpaqueIDs): a
	// study sets it once for all of its batches.
	OpaqueIndex *OpaqueIndex
	// CheckOnly checks every record and finds the units, warnings, keys,
	// orders and opaque IDs, but lays out no workbook: Result.Plan is
	// nil, and no rows are kept for it. A study of several batches checks
	// its whole input so, and builds each batch's workbook on its own.
	CheckOnly bool
	// Prefill, when set, holds the answers units start from (generate
	// --prefill), by unit ID: they are written into the answer cells,
	// shown as suggestions while unchanged, and kept in the metadata for
	// pull to say what the annotator did with them. Build checks each
	// against its unit and refuses one it cannot write so that pull reads
	// it back as given, naming the file and line.
	Prefill *records.Given
	// PrefillAs is how Prefill is shown: PrefillAnswers (the default)
	// or PrefillSuggestions.
	PrefillAs string
}

// Unit is one unit of annotation and where its rows are.
type Unit struct {
	ID       string `json:"unit"`
	Item     string `json:"item"`
	FirstRow int    `json:"first_row"`
	Rows     int    `json:"rows"`
	// Record is the Index of the input record the unit comes from.
	Record int `json:"-"`
	// Shown is the ID a pulled workbook shows for the unit where that is
	// not ID: its opaque ID, once the study's key gave the real one.
	Shown string `json:"-"`
}

// Result is what Build produces.
type Result struct {
	Plan *backend.Plan
	// Warnings are problems that did not stop the build: text cut to fit a
	// cell, characters replaced. Each names the record and field.
	Warnings records.Problems
	// Units lists every unit in sheet order.
	Units []Unit
	// Keys maps each anonymised field (Anonymize.As) from real value to
	// label. It belongs to the coordinator and never enters the workbook.
	Keys map[string]map[string]string
	// Orders gives, for a template that shuffles candidates, each
	// instance's candidate codes in the order shown. Like Keys, it belongs
	// to the coordinator and never enters the workbook.
	Orders map[string][]string
	// OpaqueIDs maps each opaque ID the workbook shows (item-0001, and
	// item-0001#2 for the second unit of an instance with several) to the
	// real ID, when the template shows opaque IDs. Like Keys, it belongs
	// to the coordinator and never enters the workbook.
	OpaqueIDs map[string]string
	// Records counts the input records; Skipped those that got no row
	// (per: element with an empty list).
	Records, Skipped int
	// Rows counts the rows of the Annotate sheet below its header.
	Rows int

	spool *rowSpool // the Annotate sheet's rows, kept by the first pass
}

// Instances counts the instances (items) of the units, in sheet order:
// an instance's units are side by side.
func (r *Result) Instances() int {
	n := 0
	for i, u := range r.Units {
		if i == 0 || r.Units[i-1].Item != u.Item {
			n++
		}
	}
	return n
}

// Close frees what the build keeps for writing its plan: the Annotate
// sheet's rows, in the temporary storage the Source gave (see
// Scratcher). Call it once the plan is written: the plan's rows are gone
// after it. It may be called more than once, and on a nil Result.
func (r *Result) Close() error {
	if r == nil || r.spool == nil {
		return nil
	}
	return r.spool.close()
}

// Build checks every record against the template and lays out the
// workbook. It reads the source once (twice for a template that
// anonymises: once to draw the labels), finding every problem before
// anything is written, and keeps the Annotate sheet's rows as it renders
// them, in the temporary storage the source gives (see Scratcher), for
// writing the plan to read back: records are never all held in memory.
// Input problems come back together as records.Problems. The caller closes the
// Result once the plan is written.
//
// Build looks at ctx before each record and each row it renders, and
// once ctx is done it stops reading and returns ctx's error: Ctrl-C in
// the check of a large input is honoured at once. The plan's rows, read
// when it is written, are the writer's to stop.
func Build(ctx context.Context, t *templates.Template, src Source, opt Options) (*Result, error) {
	b, err := build(ctx, t, src, opt)
	if err != nil {
		return nil, err
	}
	return b.res, nil
}

// build is Build, with the builder, for tests.
func build(ctx context.Context, t *templates.Template, src Source, opt Options) (_ *builder, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opt.Batch == "" {
		opt.Batch = "b01"
	}
	if opt.CellLimit == 0 {
		opt.CellLimit = backend.XLSXCellLimit
	}
	b := &builder{ctx: ctx, t: t, src: src, opt: opt}
	if opt.Prefill != nil {
		opt.PrefillAs = PrefillMode(opt.PrefillAs)
	}
	b.opt = opt
	b.colOpt = templates.ColumnOptions{Suggested: opt.PrefillAs == PrefillAnswers, Suggestions: opt.PrefillAs == PrefillSuggestions}
	b.cols = t.ColumnsWith(b.colOpt)
	b.res = &Result{Keys: map[string]map[string]string{}}
	if t.Shuffle != nil {
		b.res.Orders = map[string][]string{}
	}
	if err := b.assignLabels(); err != nil {
		return nil, err
	}
	if !opt.CheckOnly {
		b.spool = newRowSpool(src)
		b.res.spool = b.spool
		defer func() {
			if err != nil {
				b.spool.close()
			}
		}()
	}
	if err := b.scan(); err != nil {
		return nil, err
	}
	b.assignOpaqueIDs()
	if opt.CheckOnly {
		return b, nil
	}
	b.rowMark = RowMark(t, b.shownUnits())
	// The Annotate sheet registers the dropdown lists that the Lists sheet
	// then holds, so it is laid out first.
	annotate := b.annotateSheet()
	sheets := []*backend.Sheet{b.instructionsSheet(), annotate}
	if read := b.readSheet(); read != nil {
		sheets = append(sheets, read)
	}
	if len(b.lists) > 0 {
		sheets = append(sheets, b.listsSheet())
	}
	meta, err := b.metaSheet()
	if err != nil {
		return nil, err
	}
	b.res.Plan = &backend.Plan{
		Title:  fmt.Sprintf("%s — %s", t.Title, opt.Batch),
		Sheets: append(sheets, meta),
		Active: 0,
	}
	return b, nil
}

type builder struct {
	// ctx stops the build (see Build); the builder lives for one call.
	ctx  context.Context
	t    *templates.Template
	src  Source
	opt  Options
	cols []templates.ColumnSpec
	res  *Result
	// colOpt are the columns the workbook adds to the template's;
	// prefillSeen the units whose given record was found.
	colOpt      templates.ColumnOptions
	prefillSeen map[string]bool
	lastPrefill shownPrefill

	rows     int               // rows of the Annotate sheet, header included
	blobs    map[string]string // per item: what pull needs to check spans and evidence, as JSON
	blobCols int               // cells of the widest unit row of the metadata sheet
	maxPass  int               // the most passages any record has (evidence validation)
	lists    []listColumn
	bandKey  string
	band     int
	collect  bool   // collect warnings (the first pass) or not (the second)
	rowMark  string // see WorkbookMeta.RowMark
	warnSeen map[string]bool
	long     longState // where cut context goes on the Read sheet
	spool    *rowSpool // the rows and cut texts the first pass renders
	known    []int     // itemRows' lines of each cell of a row, -1 where not counted yet
	// opaqueItem and opaqueUnit map real IDs to the opaque IDs shown,
	// when the template shows opaque IDs (see assignOpaqueIDs).
	opaqueItem, opaqueUnit map[string]string
}

// item is one record expanded by the template.
type item struct {
	rec   *Record
	data  any // the record, with anonymised labels added where needed
	id    string
	elems []any    // per: element, in row order
	units []string // one per element (per: element), else one
}

// env gives paths their roots for one record and, optionally, one element.
func (it *item) env(elem any, pos int) templates.Env {
	return func(root string) (any, bool) {
		switch root {
		case "":
			return it.data, true
		case "$id":
			return it.id, true
		case "$key":
			if it.rec.Key == "" {
				return nil, false
			}
			return it.rec.Key, true
		case "@":
			return elem, elem != nil
		case "$i":
			if elem != nil {
				return json.Number(strconv.Itoa(pos)), true
			}
			return json.Number(strconv.Itoa(it.rec.Index)), true
		case "$n":
			if elem != nil {
				return json.Number(strconv.Itoa(pos + 1)), true
			}
			return json.Number(strconv.Itoa(it.rec.Index + 1)), true
		}
		return nil, false
	}
}

func (b *builder) problem(it *item, field string, err error, format string, args ...any) *records.Problem {
	p := &records.Problem{Severity: records.Error, File: it.rec.File, Line: it.rec.Line, Record: it.id, Field: field, Err: err, Message: fmt.Sprintf(format, args...)}
	if it.id == "" {
		p.Record = ""
	}
	return p
}

// expand applies the template's input, anonymisation and row layout to one
// record. records.Problems are returned, not raised, so that scan can report all.
func (b *builder) expand(rec *Record) (*item, records.Problems) {
	t := b.t
	it := &item{rec: rec, data: rec.Data}
	var bad records.Problems
	// Record-level labels come first: the id may use them.
	if len(t.Anonymize) > 0 {
		it.data = shallowCopy(it.data)
	}
	for _, a := range t.Anonymize {
		if a.FieldPath().Root == "" {
			b.label(it, it.data, a, &bad)
		}
	}
	id, err := t.Input.IDFormat().Render(it.env(nil, 0))
	if err != nil {
		var me *templates.MissingError
		if errors.As(err, &me) {
			return nil, append(bad, b.problem(it, me.Path, records.ErrMissingField, "the id %q needs this field", t.Input.ID))
		}
		return nil, append(bad, b.problem(it, "", records.ErrBadValue, "%v", err))
	}
	if strings.TrimSpace(id) == "" {
		return nil, append(bad, b.problem(it, "", records.ErrBadValue, "the id %q is empty for this record", t.Input.ID))
	}
	// The ID is made safe once, here, and the same text goes into the
	// workbook, the manifest and what pull reads back.
	if clean, r := Clean(id, 0); r.Changed() {
		it.id = clean
		b.warn(it, "", records.ErrReplaced, "the id %q has control characters or bytes that are not UTF-8; it is %q in the workbook and the manifest", id, clean)
	}
	it.id = cleanID(id)
	switch t.Rows.Per {
	case templates.PerElement:
		v, ok := t.Rows.ListPath().Lookup(it.env(nil, 0))
		if !ok {
			return nil, append(bad, b.problem(it, pathName(t.Rows.ListPath(), t.Rows.Path), records.ErrMissingField, "rows are made from this list, which the record lacks"))
		}
		list, ok := v.([]any)
		if !ok && v != nil {
			return nil, append(bad, b.problem(it, pathName(t.Rows.ListPath(), t.Rows.Path), records.ErrBadValue, "rows are made from this field, which is not a list"))
		}
		for _, e := range list {
			e = shallowCopy(e)
			for _, a := range t.Anonymize {
				if a.FieldPath().Root == "@" {
					b.label(it, e, a, &bad)
				}
			}
			it.elems = append(it.elems, e)
		}
		if paths := t.Rows.OrderPaths(); len(paths) > 0 {
			keys := make([][]string, len(it.elems))
			for i, e := range it.elems {
				env := it.env(e, i)
				for _, p := range paths {
					v, _ := p.Lookup(env)
					keys[i] = append(keys[i], templates.Text(v))
				}
			}
			idx := make([]int, len(it.elems))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(x, y int) bool { return lessStrings(keys[idx[x]], keys[idx[y]]) })
			sorted := make([]any, len(idx))
			for i, j := range idx {
				sorted[i] = it.elems[j]
			}
			it.elems = sorted
		}
		seen := map[string]bool{}
		for i, e := range it.elems {
			u, err := t.Rows.UnitFormat().Render(it.env(e, i))
			if err != nil {
				bad = append(bad, b.problem(it, missingPath(err), records.ErrMissingField, "the unit id %q needs this field (element %d)", t.Rows.Unit, i+1))
				continue
			}
			u = cleanID(u)
			if seen[u] {
				bad = append(bad, b.problem(it, "", records.ErrDuplicateID, "two elements have the unit id %q; make rows.unit unique, e.g. with {$id} and {$n}", u))
			}
			seen[u] = true
			it.units = append(it.units, u)
		}
	default:
		it.units = []string{it.id}
	}
	return it, append(bad, b.checkFields(it)...)
}

// pathName is how a problem names the field at path p, written raw in
// the template: as the record has it, its parameters filled in
// ("prediction 1", not "${prediction}").
func pathName(p templates.Path, raw string) string {
	if p.IsZero() {
		return raw
	}
	return p.String()
}

func missingPath(err error) string {
	var me *templates.MissingError
	if errors.As(err, &me) {
		return me.Path
	}
	return ""
}

func lessStrings(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// shallowCopy copies a map so that labels can be added without changing
// the source's data.
func shallowCopy(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	c := make(map[string]any, len(m)+1)
	for k, x := range m {
		c[k] = x
	}
	return c
}

// label adds the anonymised label next to the real value in obj.
func (b *builder) label(it *item, obj any, a templates.Anonymize, bad *records.Problems) {
	m, ok := obj.(map[string]any)
	if !ok {
		*bad = append(*bad, b.problem(it, pathName(a.FieldPath(), a.Field), records.ErrBadValue, "cannot anonymise inside a value that is not an object"))
		return
	}
	p := a.FieldPath()
	v, ok := templates.Path{Segs: p.Segs}.Lookup(func(string) (any, bool) { return m, true })
	if !ok {
		*bad = append(*bad, b.problem(it, pathName(a.FieldPath(), a.Field), records.ErrMissingField, "the field to anonymise is missing"))
		return
	}
	label, ok := b.res.Keys[a.As][templates.Text(v)]
	if !ok {
		*bad = append(*bad, b.problem(it, pathName(a.FieldPath(), a.Field), records.ErrBadValue, "no label for %q", templates.Text(v)))
		return
	}
	m[a.As] = label
}

// assignLabels finds every value of the anonymised fields and gives each a
// label (A, B, C …) in an order shuffled by the seed.
func (b *builder) assignLabels() error {
	t := b.t
	if len(t.Anonymize) == 0 {
		return nil
	}
	values := map[string]map[string]bool{}
	for _, a := range t.Anonymize {
		values[a.As] = map[string]bool{}
	}
	err := b.src.Each(func(rec *Record) error {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		it := &item{rec: rec, data: rec.Data}
		var objs []any
		for _, a := range t.Anonymize {
			p := a.FieldPath()
			if p.Root == "" {
				objs = []any{rec.Data}
			} else {
				v, _ := t.Rows.ListPath().Lookup(it.env(nil, 0))
				objs, _ = v.([]any)
			}
			for _, o := range objs {
				m, ok := o.(map[string]any)
				if !ok {
					continue
				}
				if v, ok := (templates.Path{Segs: p.Segs}).Lookup(func(string) (any, bool) { return m, true }); ok {
					values[a.As][templates.Text(v)] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(b.opt.Seed, 0x616e6e6f))
	for _, a := range t.Anonymize {
		key := map[string]string{}
		used := map[string]bool{}
		for real, label := range b.opt.Keys[a.As] {
			key[real], used[label] = label, true
		}
		var fresh []string
		for v := range values[a.As] {
			if _, ok := key[v]; !ok {
				fresh = append(fresh, v)
			}
		}
		sort.Strings(fresh)
		rng.Shuffle(len(fresh), func(i, j int) { fresh[i], fresh[j] = fresh[j], fresh[i] })
		n := 0
		for _, v := range fresh {
			for {
				l := anonLabel(n, a)
				n++
				if !used[l] {
					key[v], used[l] = l, true
					break
				}
			}
		}
		b.res.Keys[a.As] = key
	}
	return nil
}

// anonLabel is the n-th label: A … Z, AA, AB … for letters; 1, 2 … for
// numbers; after the prefix.
func anonLabel(n int, a templates.Anonymize) string {
	if a.Labels == "numbers" {
		return a.Prefix + strconv.Itoa(n+1)
	}
	s := ""
	for n++; n > 0; n = (n - 1) / 26 {
		s = string(rune('A'+(n-1)%26)) + s
	}
	return a.Prefix + s
}

// nullNote says that a field is there but null.
func nullNote(present bool) string {
	if present {
		return ", which is null"
	}
	return ""
}

// checkFields reports the fields the template reads that the record lacks.
func (b *builder) checkFields(it *item) records.Problems {
	var bad records.Problems
	for i := range b.t.Context {
		cx := &b.t.Context[i]
		if cx.Optional {
			continue
		}
		p := cx.ValuePath()
		if p.Root == "@" {
			for k, e := range it.elems {
				// A null is no value: shown, it would be an empty cell
				// that nobody asked for.
				if v, ok := p.Lookup(it.env(e, k)); !ok || v == nil {
					bad = append(bad, b.problem(it, pathName(p, cx.Path), records.ErrMissingField, "context %q needs this field (element %d)%s; mark it optional: true if it may be absent", cx.Name, k+1, nullNote(ok)))
					break
				}
			}
			continue
		}
		if v, ok := p.Lookup(it.env(nil, 0)); !ok || v == nil {
			bad = append(bad, b.problem(it, pathName(p, cx.Path), records.ErrMissingField, "context %q needs this field%s; mark it optional: true if it may be absent", cx.Name, nullNote(ok)))
		}
	}
	for i := range b.t.Questions {
		q := &b.t.Questions[i]
		if q.Type != templates.TypeEvidence {
			continue
		}
		v, ok := q.PassagesPath().Lookup(it.env(nil, 0))
		if !ok {
			bad = append(bad, b.problem(it, pathName(q.PassagesPath(), q.Passages), records.ErrMissingField, "question %q points into these passages, which the record lacks", q.Name))
			continue
		}
		if _, err := sentenceCounts(v); err != nil {
			bad = append(bad, b.problem(it, pathName(q.PassagesPath(), q.Passages), records.ErrBadValue, "question %q: %v", q.Name, err))
		}
	}
	return bad
}

// sentenceCounts reads passages as a list of lists of sentences.
func sentenceCounts(v any) ([]int, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("passages must be a list of passages, each a list of sentences")
	}
	out := make([]int, len(list))
	for i, p := range list {
		s, ok := p.([]any)
		if !ok {
			return nil, fmt.Errorf("passage %d is not a list of sentences", i+1)
		}
		out[i] = len(s)
	}
	return out, nil
}

// scan is the first pass: it expands every record, reports every problem,
// counts rows and units, and gathers what the metadata sheet records.
func (b *builder) scan() error {
	var bad records.Problems
	// Where each id was first seen; only the position, so that no record
	// stays in memory.
	type pos struct {
		file string
		line int
	}
	ids := map[string]pos{}
	unitAt := map[string]pos{} // units of per-element rows, whose ids the template makes
	b.rows = 1
	b.blobs = map[string]string{}
	b.blobCols = 0
	b.collect = true
	b.warnSeen = map[string]bool{}
	b.prefillSeen = map[string]bool{}
	b.resetBands()
	err := b.src.Each(func(rec *Record) error {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		b.res.Records++
		it, ps := b.expand(rec)
		if it != nil && len(ps) == 0 {
			ps = b.checkPrefill(it)
		}
		bad = append(bad, ps...)
		if it != nil {
			if prev, dup := ids[it.id]; dup {
				bad = append(bad, &records.Problem{Severity: records.Error, File: rec.File, Line: rec.Line, Record: it.id, Err: records.ErrDuplicateID,
					Message: fmt.Sprintf("the id is also used by the record at %s:%d", prev.file, prev.line)})
			} else {
				ids[it.id] = pos{rec.File, rec.Line}
			}
			if b.t.Rows.Per == templates.PerElement {
				for _, u := range it.units {
					if prev, dup := unitAt[u]; dup && len(bad) < records.MaxErrors {
						bad = append(bad, &records.Problem{Severity: records.Error, File: rec.File, Line: rec.Line, Record: it.id, Err: records.ErrDuplicateID,
							Message: fmt.Sprintf("the unit id %q is also a unit of the record at %s:%d; make rows.unit unique across records, e.g. with {$id}", u, prev.file, prev.line)})
					} else if !dup {
						unitAt[u] = pos{rec.File, rec.Line}
					}
				}
			}
		}
		if len(bad) >= records.MaxErrors {
			return errTooMany
		}
		if it == nil || len(ps) > 0 || len(bad) > 0 || !b.picked(it) {
			return nil
		}
		if rec.InvalidUTF8 {
			b.warn(it, "", records.ErrReplaced, "the record has bytes that are not UTF-8; they are shown as \uFFFD")
		}
		n := b.rowCount(it)
		if n == 0 {
			b.res.Skipped++
			return nil
		}
		switch b.t.Rows.Per {
		case templates.PerElement:
			for k, u := range it.units {
				b.res.Units = append(b.res.Units, Unit{ID: u, Item: it.id, FirstRow: b.rows + 1 + k, Rows: 1, Record: it.rec.Index})
			}
		default:
			b.res.Units = append(b.res.Units, Unit{ID: it.id, Item: it.id, FirstRow: b.rows + 1, Rows: n, Record: it.rec.Index})
		}
		if b.t.Shuffle != nil {
			b.res.Orders[it.id] = ShuffleOrder(b.t, b.opt.Seed, it.id)
		}
		b.gather(it)
		// The rows are rendered once, now, for their warnings, and kept
		// for writing.
		r, err := b.itemRows(it, true)
		if err != nil {
			return err
		}
		if err := b.keep(r); err != nil {
			return err
		}
		b.rows += n
		return nil
	})
	if errors.Is(err, errTooMany) {
		err = nil
	}
	var ps records.Problems
	if errors.As(err, &ps) {
		bad = append(bad, ps...)
		err = nil
	}
	if err != nil {
		return err
	}
	if len(bad) < records.MaxErrors {
		bad = append(bad, b.unprefilled()...)
	}
	if len(bad) > 0 {
		bad.Sort()
		return bad
	}
	if b.spool != nil {
		if err := b.spool.finish(); err != nil {
			return err
		}
	}
	b.res.Warnings.Sort()
	b.res.Rows = b.rows - 1
	b.collect = false
	return nil
}

var errTooMany = errors.New("too many problems")

// keep keeps the rows of a record, and the texts of it that the Read
// sheet holds, for writing (see rowSpool).
func (b *builder) keep(r *rendered) error {
	defer func() { b.long.texts = b.long.texts[:0] }()
	if b.spool == nil {
		return nil
	}
	if err := b.spool.addItem(r); err != nil {
		return err
	}
	for i := range b.long.texts {
		if err := b.spool.addText(&b.long.texts[i]); err != nil {
			return err
		}
	}
	return nil
}

// RowMark chooses the mark that numbers the rows of blocks in their
// hidden unit cells (see WorkbookMeta.RowMark): "#", unless some unit's
// numbered cell would read as another unit's ID ("q" and "q#2" both
// units), with or without surrounding spaces; then "##", and so on, until
// every cell names one unit and one row.
func RowMark(t *templates.Template, units []Unit) string {
	if t.Rows.Per != templates.PerBlock || t.Rows.AnswerRows < 2 {
		return ""
	}
	ids := map[string]bool{}
	for _, u := range units {
		ids[strings.TrimSpace(u.ID)] = true
	}
	mark := "#"
	for clash := true; clash; {
		clash = false
		for _, u := range units {
			for k := 2; k <= u.Rows && !clash; k++ {
				clash = ids[strings.TrimSpace(u.ID+mark+strconv.Itoa(k))]
			}
			if clash {
				mark += "#"
				break
			}
		}
	}
	return mark
}

// picked reports whether this workbook holds an instance.
func (b *builder) picked(it *item) bool { return b.opt.Items == nil || b.opt.Items(it.id) }

func (b *builder) rowCount(it *item) int {
	switch b.t.Rows.Per {
	case templates.PerElement:
		return len(it.elems)
	case templates.PerBlock:
		return b.t.Rows.AnswerRows
	}
	return 1
}

// gather records what pull needs to check spans and evidence without any
// other file: the full text of every span field and the sentence count of
// every passage, per unit; and, when the unit is prefilled, what it was
// given.
func (b *builder) gather(it *item) {
	for k, unit := range it.units {
		fields, evidence := b.unitTexts(b.unitEnv(it, k))
		blob := map[string]any{}
		if len(fields) > 0 {
			blob["fields"] = fields
		}
		if len(evidence) > 0 {
			blob["evidence"] = evidence
		}
		if p := b.prefillBlob(it, unit); p != nil {
			blob["prefill"] = p
		}
		if len(blob) == 0 {
			continue
		}
		j := marshalBlob(blob)
		b.blobs[unit] = j
		b.blobCols = max(b.blobCols, metaUnitCells+len(chunks(j)))
	}
}

// unitTexts looks up, in a unit's env, the full text of every span
// field, by field, and the sentence count of every passage, by evidence
// question.
func (b *builder) unitTexts(env templates.Env) (fields, evidence map[string]any) {
	fields, evidence = map[string]any{}, map[string]any{}
	for i := range b.t.Questions {
		q := &b.t.Questions[i]
		switch q.Type {
		case templates.TypeSpan:
			cx := b.t.ContextByName(q.Field)
			if v, ok := cx.ValuePath().Lookup(env); ok {
				fields[q.Field] = templates.Text(v)
			}
		case templates.TypeEvidence:
			v, _ := q.PassagesPath().Lookup(env)
			counts, _ := sentenceCounts(v)
			evidence[q.Name] = counts
			b.maxPass = max(b.maxPass, len(counts))
		}
	}
	return fields, evidence
}

// cleanID is an ID as a cell shows it: control characters and bytes that
// are not UTF-8 replaced visibly (see Clean).
func cleanID(id string) string {
	clean, _ := Clean(id, 0)
	return clean
}

// warn records a warning once per record and field, during the first pass.
func (b *builder) warn(it *item, field string, err error, format string, args ...any) {
	if !b.collect {
		return
	}
	key := it.id + "\x00" + field + "\x00" + err.Error()
	if b.warnSeen[key] {
		return
	}
	b.warnSeen[key] = true
	p := b.problem(it, field, err, format, args...)
	p.Severity = records.Warning
	b.res.Warnings = append(b.res.Warnings, p)
}

// cleanText makes a context value safe for a cell and reports what changed.
func (b *builder) cleanText(it *item, field, s string) string {
	s, r := Clean(s, b.opt.CellLimit)
	if r.Invalid > 0 || r.Controls > 0 {
		b.warn(it, field, records.ErrReplaced, "%d control character(s) and %d invalid byte(s) are shown as visible symbols (␀…␟, \uFFFD)", r.Controls, r.Invalid)
	}
	if r.Truncated > 0 {
		b.warn(it, field, records.ErrTruncated, "the text has %d characters, more than a cell holds (%d); the cell shows the first %d with a marker", r.Truncated, b.opt.CellLimit, r.Shown)
	}
	return s
}

// contextText renders one context column for a record (and element).
func (b *builder) contextText(it *item, cx *templates.Context, env templates.Env) string {
	v, ok := cx.ValuePath().Lookup(env)
	if !ok {
		return ""
	}
	if cx.Join == nil {
		return templates.Text(v)
	}
	list, ok := v.([]any)
	if !ok {
		return templates.Text(v)
	}
	j := cx.Join
	f := j.ItemFormat()
	var sb strings.Builder
	render := func(leaf any, vars map[string]int) {
		s, err := f.Render(func(root string) (any, bool) {
			switch root {
			case "$", "":
				return leaf, true
			}
			if n, ok := vars[root]; ok {
				return json.Number(strconv.Itoa(n)), true
			}
			return env(root)
		})
		if err != nil {
			s = "(" + err.Error() + ")"
		}
		sb.WriteString(s)
	}
	for i, e := range list {
		if inner, nested := e.([]any); nested {
			if i > 0 {
				sb.WriteString(*j.GroupSeparator)
			}
			for k, leaf := range inner {
				if k > 0 {
					sb.WriteString(*j.Separator)
				}
				render(leaf, map[string]int{"$i": k, "$n": k + 1, "$i1": i, "$n1": i + 1, "$i2": k, "$n2": k + 1})
			}
			continue
		}
		if i > 0 {
			sb.WriteString(*j.Separator)
		}
		render(e, map[string]int{"$i": i, "$n": i + 1, "$i1": i, "$n1": i + 1})
	}
	return sb.String()
}

// SourceItem is an input record as the template sees it, for writing the
// study's native file: its id, the record as written, and, for rows made
// from list elements, the element behind each unit.
type SourceItem struct {
	ID       string
	Key      string          // its key, when the input is a JSON object keyed by id
	Raw      json.RawMessage // the record as written, keys in their order
	Data     any             // the decoded record, anonymised labels added
	Elements map[string]any  // unit id -> the list element its row shows
	// Context is each unit's context texts by context name, whole, as the
	// context columns render them with the candidates in their own order.
	Context map[string]map[string]string
	// Fields is each unit's span fields by name: the texts spans are
	// found in.
	Fields map[string]map[string]string
	// Groups is each unit's value of each of the template's groups, by
	// unit then group name; Pairs each unit's pair key of each paired
	// group. Both are nil when the template declares no groups. They
	// are the real values, anonymised or not: they are for results, which
	// only the coordinator sees. A unit whose groups cannot all be found
	// is in neither, and GroupErr says why.
	Groups map[string]map[string]string
	Pairs  map[string]map[string]string
	// GroupErr, when a unit's group or pair key cannot be found (a
	// field missing, text a pattern does not match), is the
	// records.Problems naming the record, the unit and the group. Items
	// does not stop for it: exports and adjudication read the items too,
	// and need no groups; whatever compares groups must refuse the item.
	GroupErr error
}

// Items reads every record of src as Build would, with the given
// anonymisation key (the one the workbooks were made with), and calls fn
// for each in input order, with each unit's groups (see
// SourceItem.GroupErr for those that cannot be found).
func Items(t *templates.Template, src Source, keys map[string]map[string]string, fn func(*SourceItem) error) error {
	b := &builder{ctx: context.Background(), t: t, src: src, opt: Options{Keys: keys}, cols: t.Columns()}
	b.res = &Result{Keys: map[string]map[string]string{}}
	if err := b.assignLabels(); err != nil {
		return err
	}
	return src.Each(func(rec *Record) error {
		it, ps := b.expand(rec)
		if len(ps) > 0 {
			return ps
		}
		si := &SourceItem{ID: it.id, Key: rec.Key, Raw: rec.Raw, Data: it.data, Context: map[string]map[string]string{}, Fields: map[string]map[string]string{}}
		if len(t.Groups) > 0 {
			si.Groups, si.Pairs = map[string]map[string]string{}, map[string]map[string]string{}
		}
		if t.Rows.Per == templates.PerElement {
			si.Elements = map[string]any{}
			for k, u := range it.units {
				si.Elements[u] = it.elems[k]
			}
		}
		for k, u := range it.units {
			env := b.unitEnv(it, k)
			texts := map[string]string{}
			for i := range t.Context {
				cx := &t.Context[i]
				texts[cx.Name] = b.contextText(it, cx, env)
			}
			si.Context[u] = texts
			for i := range t.Questions {
				if q := &t.Questions[i]; q.Type == templates.TypeSpan {
					if v, ok := t.ContextByName(q.Field).ValuePath().Lookup(env); ok {
						if si.Fields[u] == nil {
							si.Fields[u] = map[string]string{}
						}
						si.Fields[u][q.Field] = templates.Text(v)
					}
				}
			}
		}
		if bad := b.groups(it, si); len(bad) > 0 {
			si.GroupErr = bad
		}
		return fn(si)
	})
}

// unitEnv is the env of the k-th unit of a record: the record's, with
// the element behind the unit's row when rows are made from elements.
func (b *builder) unitEnv(it *item, k int) templates.Env {
	if b.t.Rows.Per == templates.PerElement {
		return it.env(it.elems[k], k)
	}
	return it.env(nil, 0)
}

// groups finds each unit's value of each group of the template, and its
// pair key of each paired group, for si. A value that cannot be found is
// a problem of the record, naming the unit (where it is not the record)
// and the group, and leaves the unit out of si.Groups and si.Pairs, so
// that no unit is counted in a group it may not belong to. Only a group's
// first failing unit is reported, as checkFields reports only a context's
// first failing element.
func (b *builder) groups(it *item, si *SourceItem) records.Problems {
	if len(b.t.Groups) == 0 {
		return nil
	}
	var bad records.Problems
	reported := map[string]bool{}
	for k, u := range it.units {
		env := b.unitEnv(it, k)
		groups, pairs := map[string]string{}, map[string]string{}
		ok := true
		report := func(g *templates.Group, err error) {
			ok = false
			if reported[g.Name] {
				return
			}
			reported[g.Name] = true
			kind := records.ErrBadValue
			if missingPath(err) != "" {
				kind = records.ErrMissingField
			}
			if u != it.id {
				bad = append(bad, b.problem(it, missingPath(err), kind, "unit %q: %v", u, err))
				return
			}
			bad = append(bad, b.problem(it, missingPath(err), kind, "%v", err))
		}
		for i := range b.t.Groups {
			g := &b.t.Groups[i]
			v, err := g.Value(env)
			if err != nil {
				report(g, err)
				continue
			}
			groups[g.Name] = v
			if !g.Paired() {
				continue
			}
			key, err := g.PairKey(env)
			if err != nil {
				report(g, err)
				continue
			}
			pairs[g.Name] = key
		}
		if !ok {
			continue
		}
		si.Groups[u] = groups
		if len(pairs) > 0 {
			si.Pairs[u] = pairs
		}
	}
	return bad
}
