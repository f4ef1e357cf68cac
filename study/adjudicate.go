package study

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/filename"
	"github.com/annosheet/annosheet/internal/jsonkeys"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrAdjudication is wrapped by errors of an adjudication's folder: a
// manifest that cannot be read, a workbook that cannot be, another
// template's.
var ErrAdjudication = errors.New("adjudication")

// UnitRef is a unit of a study, as its manifest lists it.
type UnitRef struct {
	Unit, Item, Batch string
}

// StudyUnits lists every unit of a study, each in the first batch that
// has it: its own units, not its control units, whose answers are known.
func (m *Manifest) StudyUnits() []UnitRef {
	var out []UnitRef
	seen := map[string]bool{}
	if c := m.Controls; c != nil {
		for _, u := range c.Units {
			seen[u.Unit] = true
		}
	}
	for _, b := range m.Batches {
		for _, u := range b.Units {
			if !seen[u.ID] {
				seen[u.ID] = true
				out = append(out, UnitRef{Unit: u.ID, Item: u.Item, Batch: b.ID})
			}
		}
	}
	return out
}

// unanswered are the units with no complete record, as accepted ones
// with no annotator, that listed does not have: those the records show,
// then those only the study lists.
func unanswered(found *adjudicate.Found, study []UnitRef, listed map[string]bool) []*adjudicate.Accepted {
	var out []*adjudicate.Accepted
	add := func(u *adjudicate.Accepted) {
		if !listed[u.Unit] {
			listed[u.Unit] = true
			out = append(out, u)
		}
	}
	for _, u := range found.Unanswered {
		add(u)
	}
	for _, u := range study {
		add(&adjudicate.Accepted{Unit: u.Unit, Item: u.Item, Batch: u.Batch, Annotators: []string{}})
	}
	return out
}

// AdjudicateOptions say how to lay out an adjudication.
type AdjudicateOptions struct {
	// Dir is the adjudication's folder: its manifest and XLSX workbooks.
	// Adjudicate makes it (and its parents) when it is not there.
	Dir string
	// Kind is the backend of new workbooks: xlsx or gsheets.
	Kind string
	// Adjudicators share the items; each gets workbooks of at most
	// BatchSize items (0: one workbook each).
	Adjudicators []string
	BatchSize    int
	adjudicate.Options
	// ShowAnnotators shows the annotators' IDs instead of neutral names.
	ShowAnnotators bool
	// Sources are the sources as given, to record; Study is the study's
	// manifest file when the records came from one.
	Sources []string
	Study   string
	// Items are the study's input records (layout.Items): the context
	// shown beside each disagreement and the texts edited spans are found
	// in. Nil shows no context.
	Items []*layout.SourceItem
	// Shown maps a unit to the ID its annotators saw (opaque IDs); nil
	// shows the unit's own.
	Shown func(unit string) string
	// Share lists who gets edit access to new spreadsheets.
	Share []string
	// StudyUnits, when the study's manifest is at hand, are its units:
	// those no record names are in the gold set too.
	StudyUnits []UnitRef
	// Manifest is the study's manifest, when at hand: Study and
	// StudyUnits come from it, and Items and Shown too when they are nil
	// (inputs it cannot read are a warning, and no context).
	Manifest *Manifest
	// Warn is told of what the workbooks show less of than they could.
	Warn func(string)
	Now  func() time.Time
}

// Adjudicated is what an adjudicate run did.
type Adjudicated struct {
	Manifest *adjudicate.Manifest
	Found    *adjudicate.Found
	// Written are the workbooks written, as messages name them.
	Written []string
	// Notes say what an earlier run's decisions became.
	Notes []string
	// Problems are those of the earlier workbooks read to keep their
	// decisions.
	Problems records.Problems
	// Kept counts the decisions carried from earlier workbooks.
	Kept int
}

// Adjudicate writes the workbooks in which adjudicators decide what the
// annotators disagree on, and the adjudication's manifest, in opt.Dir,
// which it makes when it is not there. Run again on the same folder, it
// keeps every decision made in the workbooks there and adds the
// disagreements that are new.
func Adjudicate(ctx context.Context, t *templates.Template, recs []*records.Annotation, opt AdjudicateOptions, read Backends, store backend.Store) (*Adjudicated, error) {
	if err := connect(ctx, store); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	if len(opt.Adjudicators) == 0 {
		opt.Adjudicators = []string{"adjudicator"}
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if m := opt.Manifest; m != nil {
		opt.Study, opt.StudyUnits = m.Path, m.StudyUnits()
		if opt.Items == nil {
			var err error
			if opt.Items, opt.Shown, err = m.Context(t); err != nil && opt.Warn != nil {
				opt.Warn(fmt.Sprintf("%s: the study's inputs cannot be read (%v): the rows show no context", m.Path, err))
			}
		}
	}
	found, err := adjudicate.Find(t, recs, opt.Options)
	if err != nil {
		return nil, err
	}
	res := &Adjudicated{Found: found}
	path := filepath.Join(opt.Dir, adjudicate.ManifestFile)
	// The manifest and every workbook are rewritten below only while
	// they are what this run read: an adjudicator saving a decision, or
	// a coordinator the manifest, while it runs loses nothing.
	mfile, err := guardFile(path)
	if err != nil {
		return nil, err
	}
	prev, err := ReadAdjudication(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		prev = nil
	case err != nil:
		return nil, err
	}
	decided := map[string]*adjudicate.Decision{}
	vers := versions{}
	if prev != nil {
		if prev.Template.Name != t.Name || prev.Template.Version != t.Version {
			return nil, fmt.Errorf("%s: %w: it adjudicates template %s version %d, not %s version %d; give another folder", path, ErrAdjudication, prev.Template.Name, prev.Template.Version, t.Name, t.Version)
		}
		// Every decision made so far is read before anything is written:
		// a workbook that cannot be read stops the run, and so does a
		// cell that could not be written again as it is.
		stamp := func(at backend.Location) error { return vers.take(ctx, store, at) }
		if decided, res.Problems, err = readDecisions(ctx, opt.Dir, prev, read, stamp); err != nil {
			return nil, err
		}
		if err := rewritable(opt.Dir, res.Problems, decided, prev); err != nil {
			return res, err
		}
	}
	// Adjudicators' IDs name their workbooks' files: two that would name
	// one file are refused before anything is written.
	ids := slices.Clone(opt.Adjudicators)
	if prev != nil {
		for _, b := range prev.Workbooks {
			ids = append(ids, b.Adjudicator)
		}
	}
	if _, err := filename.Parts(ids); err != nil {
		return nil, fmt.Errorf("%w: adjudicator IDs: %w", ErrAdjudication, err)
	}
	m := newAdjudication(t, prev, opt)
	present := map[string]bool{}
	for _, u := range found.Units {
		present[u.Unit] = true
	}
	m.Units = found.Units
	listed := maps.Clone(present)
	var prevItems []*adjudicate.Item
	if prev != nil {
		prevItems = prev.Items
		// A unit this run has no complete record of keeps what the last
		// run accepted, and its items stay.
		for _, u := range prev.Units {
			if !present[u.Unit] && len(u.Annotators) > 0 {
				m.Units = append(m.Units, u)
				listed[u.Unit] = true
				res.Notes = append(res.Notes, fmt.Sprintf("unit %s has no complete record among these sources: what was accepted and decided for it is kept from the last run", u.Unit))
			}
		}
	}
	// Every unit of the study is in the gold set: those nobody has
	// completed yet with an empty record.
	m.Units = append(m.Units, unanswered(found, opt.StudyUnits, listed)...)
	carried := adjudicate.Merge(prevItems, decided, found.Items, present)
	res.Notes = append(res.Notes, carried.Notes...)
	res.Kept = len(carried.Filled)
	m.Items = carried.Items
	m.Annotators, m.Names = names(prev, found.Annotators, m.Items, opt.ShowAnnotators)
	if prev != nil && !slices.Equal(prev.Names, m.Names[:min(len(prev.Names), len(m.Names))]) {
		adjudicate.Rename(carried.Filled, prev.Names, m.Names)
		res.Notes = append(res.Notes, "the annotators are shown otherwise than in the last run: the names in Or use and Decision cells follow")
	}
	m.Saved = carried.Filled
	if len(m.Saved) == 0 {
		m.Saved = nil
	}
	fields := map[string]map[string]string{}
	contexts := map[string]map[string]string{}
	for _, it := range opt.Items {
		for u, f := range it.Fields {
			fields[u] = f
		}
		for u, c := range it.Context {
			contexts[u] = c
		}
	}
	for _, it := range m.Items {
		if c := it.Cluster; c != nil && c.Text == nil && c.Field != "" {
			if s, ok := fields[it.Unit][c.Field]; ok {
				c.Text = &s
			}
		}
	}
	shareItems(m, opt)
	// Every workbook a file of its own, checked before anything is
	// written: a manifest that names one file twice could not be read.
	if err := checkAdjudication(t, m); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrAdjudication, err)
	}
	var context func(string) map[string]string
	if len(opt.Items) > 0 {
		context = func(u string) map[string]string { return contexts[u] }
	}
	summary := summarise(t, m.Units, len(m.Annotators), m.Items)
	lim := backend.XLSX
	if opt.Kind == backend.KindGSheets {
		lim = backend.GSheets
	}
	// The decisions are in the manifest before any workbook is rewritten:
	// a run that stops part way leaves each unfinished workbook marked,
	// and the next run (or pull) takes its decisions from there.
	for w := range m.Workbooks {
		m.Workbooks[w].Incomplete = true
		if at := bookLocation(opt.Dir, &m.Workbooks[w]); at.Kind == backend.KindXLSX {
			if _, ok := vers[at]; !ok {
				// A new workbook's file: whatever is there now is
				// what it replaces.
				if err := vers.take(ctx, store, at); err != nil {
					return nil, err
				}
			}
		}
	}
	// The workbooks this run read, and their copies in other formats.
	wasRead := func(w int) bool {
		return prev != nil && w < len(prev.Workbooks) && m.Workbooks[w].File != ""
	}
	unchanged := func() error {
		if err := vers.unchanged(ctx, store); err != nil {
			return err
		}
		for w := range m.Workbooks {
			if wasRead(w) {
				if err := noNewCopies(bookLocation(opt.Dir, &m.Workbooks[w]), read.Files, vers); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := unchanged(); err != nil {
		return nil, fmt.Errorf("%w; its decisions saved meanwhile are kept: nothing was written", err)
	}
	if err := writeAdjudication(mfile, m); err != nil {
		return nil, err
	}
	for w := range m.Workbooks {
		ref := &m.Workbooks[w]
		book := &adjudicate.Book{
			Template: t, Adjudication: m.ID, Workbook: w, Adjudicator: ref.Adjudicator,
			Annotators: m.Annotators, Names: m.Names, Context: context, Shown: opt.Shown,
			Filled: carried.Filled, Summary: summary, Limits: lim,
		}
		for _, it := range m.Items {
			if it.Workbook == w {
				book.Items = append(book.Items, it)
			}
		}
		ref.Items = len(book.Items)
		plan, err := adjudicate.Plan(book)
		if err != nil {
			return nil, err
		}
		at := bookLocation(opt.Dir, ref)
		if wasRead(w) {
			if err := noNewCopies(at, read.Files, vers); err != nil {
				return nil, fmt.Errorf("%w; its decisions saved meanwhile are kept: nothing was replaced in it, and the workbooks still to write are as they were", err)
			}
		}
		loc, err := store.Write(ctx, plan, at, backend.WriteOptions{Share: opt.Share, Tag: m.ID + "/" + fmt.Sprint(w), Expect: vers.expect(at), Created: func(l backend.Location) error {
			setLocation(ref, l)
			return writeAdjudication(mfile, m)
		}})
		if errors.Is(err, backend.ErrChanged) {
			return nil, fmt.Errorf("%w; its decisions saved meanwhile are kept: nothing was replaced in it, and the workbooks still to write are as they were", err)
		}
		if err != nil {
			return nil, err
		}
		setLocation(ref, loc)
		ref.Incomplete = false
		if err := writeAdjudication(mfile, m); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, loc.String())
	}
	res.Manifest = m
	return res, nil
}

// ErrUnsafeRewrite says adjudicate will not make a workbook anew: some of
// what it holds could not be written again.
var ErrUnsafeRewrite = errors.New("the adjudication workbooks cannot be made anew without losing cells")

// rewritable refuses to make the workbooks anew while a cell filled in
// them would be lost: a row whose answers belong to no decision (no ID,
// another ID, two rows of one ID that disagree), or a formula or a
// formula's error in an answer cell (text never becomes a formula).
func rewritable(dir string, probs records.Problems, decided map[string]*adjudicate.Decision, m *adjudicate.Manifest) error {
	var why []string
	for _, p := range probs {
		if errors.Is(p.Err, adjudicate.ErrUnplaced) {
			why = append(why, p.Error())
		}
	}
	for _, it := range m.Items {
		if d := decided[it.ID]; d != nil {
			if key, ok := d.Unwritable(); ok {
				why = append(why, fmt.Sprintf("%s: %s: a formula or a formula's error (%s): type the answer instead", bookLocation(dir, &m.Workbooks[it.Workbook]), d.Cell(key), it.ID))
			}
		}
	}
	if len(why) == 0 {
		return nil
	}
	slices.Sort(why)
	return fmt.Errorf("%w; fix these in the workbook, then run adjudicate again (nothing was written):\n  %s", ErrUnsafeRewrite, strings.Join(slices.Compact(why), "\n  "))
}

// newAdjudication is the manifest of a run: the earlier one's identity
// and workbooks, or new ones.
func newAdjudication(t *templates.Template, prev *adjudicate.Manifest, opt AdjudicateOptions) *adjudicate.Manifest {
	m := &adjudicate.Manifest{
		Format: adjudicate.ManifestFormat, Created: opt.Now().UTC().Format(time.RFC3339),
		Template: manifest.Template{Name: t.Name, Version: t.Version, SHA256: t.Hash(), Params: t.ParamValues(), Source: string(t.Source)},
		Sources:  recordedSources(opt.Dir, opt.Sources), MinAgreement: opt.MinAgreement,
	}
	if len(m.Template.Params) == 0 {
		m.Template.Params = nil
	}
	if opt.Study != "" {
		m.Study = relativeTo(opt.Dir, []string{opt.Study})[0]
	}
	if prev != nil {
		m.ID, m.Created, m.Workbooks = prev.ID, prev.Created, prev.Workbooks
	} else {
		m.ID, _ = newStudyID()
	}
	return m
}

// recordedSources are the sources as the manifest records them: files
// and folders relative to its folder, so that they are found when both
// move together; spreadsheet links and IDs as given.
func recordedSources(dir string, sources []string) []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = s
		if _, err := os.Stat(s); err == nil {
			out[i] = relativeTo(dir, []string{s})[0]
		}
	}
	return out
}

// names keeps the earlier key and adds the annotators new to it: the
// same person keeps the same neutral name across runs.
func names(prev *adjudicate.Manifest, found []string, items []*adjudicate.Item, show bool) (ids, shown []string) {
	if prev != nil {
		ids = slices.Clone(prev.Annotators)
	}
	all := slices.Clone(found)
	for _, it := range items {
		for _, a := range it.Answers {
			all = append(all, a.Annotator)
		}
	}
	slices.Sort(all)
	for _, a := range slices.Compact(all) {
		if !slices.Contains(ids, a) {
			ids = append(ids, a)
		}
	}
	// The names follow --show-annotators of this run; a neutral name
	// stays with its annotator from run to run.
	for k, a := range ids {
		if show {
			shown = append(shown, a)
		} else {
			shown = append(shown, fmt.Sprintf("Annotator %d", k+1))
		}
	}
	return ids, shown
}

// shareItems gives each new item (Workbook -1) a workbook: the items of a
// unit together, in turn to each adjudicator, filling an adjudicator's
// last workbook up to BatchSize before starting another.
func shareItems(m *adjudicate.Manifest, opt AdjudicateOptions) {
	var units [][]*adjudicate.Item
	for _, it := range m.Items {
		if it.Workbook >= 0 {
			continue
		}
		if n := len(units); n > 0 && units[n-1][0].Unit == it.Unit {
			units[n-1] = append(units[n-1], it)
			continue
		}
		units = append(units, []*adjudicate.Item{it})
	}
	if len(units) == 0 {
		return
	}
	count := make([]int, len(m.Workbooks))
	for _, it := range m.Items {
		if it.Workbook >= 0 {
			count[it.Workbook]++
		}
	}
	last := func(adj string) int {
		for w := len(m.Workbooks) - 1; w >= 0; w-- {
			if m.Workbooks[w].Adjudicator == adj {
				return w
			}
		}
		return -1
	}
	newBook := func(adj string) int {
		n := 0
		for _, b := range m.Workbooks {
			if b.Adjudicator == adj {
				n++
			}
		}
		ref := adjudicate.BookRef{Adjudicator: adj, Kind: opt.Kind}
		if opt.Kind != backend.KindGSheets {
			// A name no workbook of the adjudication has, whoever's
			// (adjudicate-a-01.xlsx is adjudicator a-01's first, and
			// a's first of several): the next number that is free.
			taken := map[string]bool{}
			for _, b := range m.Workbooks {
				taken[filename.Key(b.File)] = true
			}
			ref.File = "adjudicate-" + filename.Part(adj) + ".xlsx"
			for k := n + 1; n > 0 || opt.BatchSize > 0 || taken[filename.Key(ref.File)]; k++ {
				ref.File = fmt.Sprintf("adjudicate-%s-%02d.xlsx", filename.Part(adj), k)
				if !taken[filename.Key(ref.File)] {
					break
				}
			}
		}
		m.Workbooks = append(m.Workbooks, ref)
		count = append(count, 0)
		return len(m.Workbooks) - 1
	}
	// Without a batch size, the units are shared out evenly.
	per := opt.BatchSize
	if per <= 0 {
		total := 0
		for _, u := range units {
			total += len(u)
		}
		per = (total + len(opt.Adjudicators) - 1) / len(opt.Adjudicators)
	}
	turn := 0
	w := -1
	for _, u := range units {
		if w < 0 || count[w]+len(u) > per && count[w] > 0 {
			adj := opt.Adjudicators[turn%len(opt.Adjudicators)]
			turn++
			w = last(adj)
			if w < 0 || opt.BatchSize > 0 && count[w]+len(u) > opt.BatchSize && count[w] > 0 {
				w = newBook(adj)
			}
		}
		for _, it := range u {
			it.Workbook = w
			count[w]++
		}
	}
}

// summarise counts, per question, what was accepted and what is left.
func summarise(t *templates.Template, units []*adjudicate.Accepted, annotators int, items []*adjudicate.Item) adjudicate.Summary {
	s := adjudicate.Summary{Annotators: annotators}
	for _, u := range units {
		if len(u.Annotators) > 0 {
			s.Units++
		}
	}
	names := questionNames(t)
	var qs []adjudicate.QuestionCount
	for _, n := range names {
		h := n
		if q := t.QuestionByName(n); q != nil {
			if t.Rows.Per == templates.PerBlock && q.Scope != "block" {
				continue
			}
			h = q.Header
		} else {
			h = "Spans (" + n + ")"
		}
		c := adjudicate.QuestionCount{Question: n, Header: h}
		for _, u := range units {
			if p := u.Provenance[n]; p != nil {
				switch p.Kind {
				case records.ProvenanceUnanimous:
					c.Unanimous++
				case records.ProvenanceMajority:
					c.Majority++
				case records.ProvenanceCarried:
					c.Carried++
				}
			}
			if n == t.Rows.Spans {
				for _, sp := range u.Spans {
					if sp.Provenance.Kind == records.ProvenanceUnanimous {
						c.Unanimous++
					} else {
						c.Majority++
					}
				}
			}
		}
		for _, it := range items {
			if it.Question == n {
				c.ToDecide++
			}
		}
		qs = append(qs, c)
	}
	s.Questions = qs
	return s
}

// bookLocation is where a workbook of the manifest is.
func bookLocation(dir string, b *adjudicate.BookRef) backend.Location {
	if b.Kind == backend.KindGSheets {
		if sp := b.Spreadsheet; sp != nil {
			return backend.Location{Kind: backend.KindGSheets, ID: sp.ID, URL: sp.URL, Endpoint: sp.Endpoint}
		}
		return backend.Location{Kind: backend.KindGSheets}
	}
	return backend.Location{Kind: backend.KindXLSX, Path: filepath.Join(dir, b.File)}
}

func setLocation(b *adjudicate.BookRef, l backend.Location) {
	if l.Kind == backend.KindGSheets {
		b.Spreadsheet = &manifest.Spreadsheet{ID: l.ID, URL: l.URL, Status: manifest.Complete, Endpoint: l.Endpoint}
	}
}

// MaxAdjudicationSize bounds an adjudication's manifest as read: it holds
// every unit's accepted answers and every item's, some hundreds of bytes
// each.
const MaxAdjudicationSize = 256 << 20

// ReadAdjudication reads an adjudication's manifest.
func ReadAdjudication(path string) (*adjudicate.Manifest, error) {
	b, err := boundedread.ReadFile(path, MaxAdjudicationSize, "an adjudication manifest")
	if err != nil {
		return nil, err
	}
	var m adjudicate.Manifest
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w: not an adjudication manifest: %v", path, ErrAdjudication, err)
	}
	if dup, ok := jsonkeys.Duplicate(b, jsonkeys.Never); ok {
		return nil, fmt.Errorf("%s:%d: %w: %s", path, bytes.Count(b[:dup.Offset], []byte("\n"))+1, ErrAdjudication, dup)
	}
	if m.Format != adjudicate.ManifestFormat {
		return nil, fmt.Errorf("%s: %w: format %q, want %q", path, ErrAdjudication, m.Format, adjudicate.ManifestFormat)
	}
	t, err := templates.LoadWithParams(path+" (its template)", []byte(m.Template.Source), m.Template.Params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: its template: %v", path, ErrAdjudication, err)
	}
	if err := typeManifest(t, &m); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrAdjudication, err)
	}
	if err := checkAdjudication(t, &m); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrAdjudication, err)
	}
	return &m, nil
}

// checkAdjudication checks what a manifest from disk says before anything
// is done with it: every index in range, every name known, no ID twice.
func checkAdjudication(t *templates.Template, m *adjudicate.Manifest) error {
	if len(m.Names) != len(m.Annotators) {
		return fmt.Errorf("%d names for %d annotators", len(m.Names), len(m.Annotators))
	}
	known := map[string]bool{}
	for _, a := range m.Annotators {
		known[a] = true
	}
	var files []string
	for _, b := range m.Workbooks {
		if b.File != "" {
			files = append(files, b.File)
		}
	}
	if err := filename.Unique(files); err != nil {
		return fmt.Errorf("two workbooks in one file: %w", err)
	}
	for _, b := range m.Workbooks {
		if b.Kind != backend.KindXLSX && b.Kind != backend.KindGSheets {
			return fmt.Errorf("a workbook of kind %q", b.Kind)
		}
		if b.File != "" && (filepath.IsAbs(b.File) || strings.ContainsAny(filepath.ToSlash(b.File), `/\`)) {
			return fmt.Errorf("the workbook %q is not a file of the adjudication's folder", b.File)
		}
		if b.File != "" && !strings.EqualFold(filepath.Ext(b.File), ".xlsx") {
			// Not "..", nor the manifest itself, which a rewrite of the
			// workbook would replace.
			return fmt.Errorf("the workbook %q is not an XLSX file", b.File)
		}
	}
	// Every reference a hand edit could break: units listed once, with
	// known annotators and the template's questions; items of listed
	// units.
	units := map[string]bool{}
	question := func(q string) bool { return t.QuestionByName(q) != nil || q != "" && q == t.Rows.Spans }
	for _, u := range m.Units {
		if units[u.Unit] {
			return fmt.Errorf("unit %s is listed twice", u.Unit)
		}
		units[u.Unit] = true
		for _, a := range u.Annotators {
			if !known[a] {
				return fmt.Errorf("unit %s has an answer of %q, who is not among the annotators", u.Unit, a)
			}
		}
		for q, p := range u.Provenance {
			if p == nil {
				return fmt.Errorf("unit %s: the provenance of %s is null", u.Unit, q)
			}
			if !question(q) {
				return fmt.Errorf("unit %s: a provenance of %q, which is no question of the template", u.Unit, q)
			}
		}
		for q := range u.Values {
			if !question(q) {
				return fmt.Errorf("unit %s: a value of %q, which is no question of the template", u.Unit, q)
			}
		}
	}
	seen := map[string]bool{}
	for _, it := range m.Items {
		switch {
		case seen[it.ID]:
			return fmt.Errorf("item %s is listed twice", it.ID)
		case it.Workbook < 0 || it.Workbook >= len(m.Workbooks):
			return fmt.Errorf("item %s names workbook %d of %d", it.ID, it.Workbook, len(m.Workbooks))
		case it.Suggested < -1 || it.Suggested >= len(it.Answers):
			return fmt.Errorf("item %s suggests answer %d of %d", it.ID, it.Suggested, len(it.Answers))
		case it.Kind == adjudicate.KindSpans && (it.Cluster == nil || t.Rows.Spans == "" || it.Question != t.Rows.Spans):
			return fmt.Errorf("item %s is a span cluster without its place, or of no spans of the template", it.ID)
		case it.Kind == adjudicate.KindValue && (it.Cluster != nil || t.QuestionByName(it.Question) == nil):
			return fmt.Errorf("item %s answers no question of the template (%q)", it.ID, it.Question)
		case it.Kind != adjudicate.KindValue && it.Kind != adjudicate.KindSpans:
			return fmt.Errorf("item %s is of kind %q", it.ID, it.Kind)
		case !units[it.Unit]:
			// Its value would vanish from the gold set of the unit it
			// was moved from.
			return fmt.Errorf("item %s is of unit %q, which the adjudication does not list", it.ID, it.Unit)
		}
		seen[it.ID] = true
		for _, a := range it.Answers {
			if !known[a.Annotator] {
				return fmt.Errorf("item %s has an answer of %q, who is not among the annotators", it.ID, a.Annotator)
			}
			if len(a.Order) != 0 && len(a.Order) != len(a.Spans) {
				return fmt.Errorf("item %s: %d places for %d spans", it.ID, len(a.Order), len(a.Spans))
			}
		}
	}
	for id := range m.Saved {
		if !seen[id] {
			return fmt.Errorf("cells are saved for item %s, which is not listed", id)
		}
	}
	for _, it := range m.Items {
		if it.Superseded != "" && !seen[it.Superseded] {
			return fmt.Errorf("item %s is superseded by %s, which is not listed", it.ID, it.Superseded)
		}
	}
	return nil
}

// typeManifest types the values the manifest holds, as records are typed.
func typeManifest(t *templates.Template, m *adjudicate.Manifest) error {
	typed := func(values map[string]any, spans []records.SpanAnswer) (map[string]any, []records.SpanAnswer, error) {
		rec := &records.Annotation{Values: values, Spans: spans}
		out, err := records.TypedRecord(t, rec)
		if err != nil {
			return nil, nil, err
		}
		return out.Values, out.Spans, nil
	}
	for _, u := range m.Units {
		if u == nil {
			return errors.New("a unit is null")
		}
		v, s, err := typed(u.Values, u.Spans)
		if err != nil {
			return fmt.Errorf("unit %s: %v", u.Unit, err)
		}
		u.Values, u.Spans = v, s
	}
	for _, it := range m.Items {
		if it == nil {
			return errors.New("an item is null")
		}
		for k := range it.Answers {
			a := &it.Answers[k]
			if it.Kind == adjudicate.KindSpans {
				_, s, err := typed(nil, a.Spans)
				if err != nil {
					return fmt.Errorf("item %s: %v", it.ID, err)
				}
				a.Spans = s
				continue
			}
			if a.Value == nil {
				continue
			}
			v, _, err := typed(map[string]any{it.Question: a.Value}, nil)
			if err != nil {
				return fmt.Errorf("item %s: %v", it.ID, err)
			}
			a.Value = v[it.Question]
		}
	}
	return nil
}

func writeAdjudication(f *guardedFile, m *adjudicate.Manifest) error {
	return f.write(func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		e.SetEscapeHTML(false)
		return e.Encode(m)
	})
}

// readDecisions reads every workbook of an adjudication; stamp, when set,
// is called with the location of each one written so far, before it is
// read.
func readDecisions(ctx context.Context, dir string, m *adjudicate.Manifest, b Backends, stamp func(backend.Location) error) (map[string]*adjudicate.Decision, records.Problems, error) {
	t, err := templates.LoadWithParams("adjudication template", []byte(m.Template.Source), m.Template.Params)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*adjudicate.Decision{}
	var probs records.Problems
	for w := range m.Workbooks {
		ref := &m.Workbooks[w]
		at := bookLocation(dir, ref)
		if ref.Kind != backend.KindGSheets && ref.File == "" || ref.Kind == backend.KindGSheets && ref.Spreadsheet == nil {
			// Never written: its decisions are those saved in the
			// manifest, if any.
			d, ps := bookReading(t, m, w, at.String(), nil).Saved(m.Saved)
			maps.Copy(out, d)
			probs = append(probs, ps...)
			continue
		}
		if stamp != nil {
			// Before it is read: a decision saved while the run reads
			// it is seen when the workbook is to be rewritten.
			if err := stamp(at); err != nil && !errors.Is(err, backend.ErrNotFound) {
				return nil, nil, fmt.Errorf("%s: %w: the adjudication workbook cannot be read, so its decisions would be lost: %w", at, ErrAdjudication, err)
			}
		}
		// The adjudicator may have saved it in another format (as .ods,
		// from LibreOffice): the newest copy holds the decisions.
		read := at
		if at.Kind == backend.KindXLSX && b.Files != nil {
			if stamp != nil {
				// Every copy the run meets, read or not: one changed or
				// added meanwhile stops the rewrite (noNewCopies).
				for _, c := range copiesOf(at.Path, b.Files) {
					if err := stamp(backend.Location{Kind: backend.KindXLSX, Path: c.path}); err != nil {
						return nil, nil, err
					}
				}
			}
			saved, ps, err := savedAs(at.Path, b.Files)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w: %w", at, ErrAdjudication, err)
			}
			probs = append(probs, ps...)
			if saved != "" {
				read = backend.Location{Kind: backend.KindXLSX, Path: saved}
			}
		}
		g, closeFn, err := openBook(ctx, read, b)
		if ref.Incomplete {
			d, ps := unfinishedBook(g, closeFn, err, read.String(), t, m, w)
			maps.Copy(out, d)
			probs = append(probs, ps...)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w: the adjudication workbook cannot be read, so its decisions would be lost: %w", read, ErrAdjudication, err)
		}
		d, ps, err := readBook(g, read.String(), t, m, w)
		if cerr := closeFn(); cerr != nil && err == nil {
			err = fmt.Errorf("%s: %w: the adjudication workbook cannot be read, so its decisions would be lost: %w", read, ErrAdjudication, cerr)
		}
		if err != nil {
			return nil, nil, err
		}
		maps.Copy(out, d)
		probs = append(probs, ps...)
	}
	return out, probs, nil
}

// openBook opens a workbook of an adjudication.
func openBook(ctx context.Context, at backend.Location, b Backends) (*backend.Grid, func() error, error) {
	switch {
	case at.Kind == backend.KindGSheets && b.Spreadsheets != nil:
		return b.Spreadsheets.Open(ctx, at)
	case at.Kind == backend.KindXLSX && b.Files != nil:
		return b.Files.Open(ctx, at)
	}
	return nil, nil, fmt.Errorf("no backend reads %s workbooks here", at.Kind)
}

// unfinishedBook reads a workbook adjudicate began to rewrite and did not
// finish. An XLSX file is still the whole workbook it was (the new one
// replaces it only once complete), and its adjudicator may have gone on
// deciding in it; a spreadsheet may be cleared or half written. So each
// row with cells in the workbook as it is (g, when it opened: err nil) is
// read from there, and every other item's cells from those saved in the
// manifest; the rows and sheets the unfinished rewrite left out are no
// problem.
func unfinishedBook(g *backend.Grid, closeFn func() error, err error, name string, t *templates.Template, m *adjudicate.Manifest, w int) (map[string]*adjudicate.Decision, records.Problems) {
	out := map[string]*adjudicate.Decision{}
	var probs records.Problems
	if err == nil {
		d, ps, err := readBook(g, name, t, m, w)
		if cerr := closeFn(); err == nil {
			err = cerr
		}
		if err == nil {
			for id, dec := range d {
				if len(dec.Cells) > 0 {
					out[id] = dec
				}
			}
			for _, p := range ps {
				if !errors.Is(p.Err, decode.ErrMissingUnit) {
					probs = append(probs, p)
				}
			}
		}
	}
	rest := map[string]map[string]backend.ReadCell{}
	for id, cells := range m.Saved {
		if _, ok := out[id]; !ok {
			rest[id] = cells
		}
	}
	d, ps := bookReading(t, m, w, name, nil).Saved(rest)
	maps.Copy(out, d)
	probs = append(probs, ps...)
	probs = append(probs, &records.Problem{Severity: records.Warning, File: name, Err: ErrAdjudication,
		Message: "adjudicate did not finish writing this workbook: the decisions it does not hold are those saved when it was last read; run adjudicate again to write it"})
	return out, probs
}

// readBook reads one adjudication workbook's decisions.
func readBook(g *backend.Grid, name string, t *templates.Template, m *adjudicate.Manifest, w int) (map[string]*adjudicate.Decision, records.Problems, error) {
	meta, err := adjudicate.ReadMeta(g)
	if err != nil {
		return nil, nil, err
	}
	if meta.Adjudication != m.ID || meta.Workbook != w {
		return nil, nil, fmt.Errorf("%s: %w: the workbook belongs to another adjudication (or is another workbook of it) than the manifest lists here", name, ErrAdjudication)
	}
	return bookReading(t, m, w, name, meta).Read(g)
}

// bookReading reads the items of workbook w of an adjudication.
func bookReading(t *templates.Template, m *adjudicate.Manifest, w int, name string, meta *adjudicate.Meta) *adjudicate.Reading {
	items := map[string]*adjudicate.Item{}
	for _, it := range m.Items {
		if it.Workbook == w {
			items[it.ID] = it
		}
	}
	return &adjudicate.Reading{Template: t, Meta: meta, Items: items, Annotators: m.Annotators, Names: m.Names, File: name}
}

// GoldSet is a pulled adjudication: one gold record per unit.
type GoldSet struct {
	Records  []*records.Annotation
	Problems records.Problems
	Manifest *adjudicate.Manifest
	Template *templates.Template
	// Unresolved counts the items nobody decided; Decided those decided.
	Unresolved, Decided int
}

// PullGold reads an adjudication's folder (or manifest) and its workbooks
// and makes the gold set. With resolve "majority", items nobody decided
// take their suggestion.
func PullGold(ctx context.Context, path string, b Backends, resolve string) (*GoldSet, error) {
	a, err := openAdjudication(ctx, path, b, nil)
	if err != nil {
		return nil, err
	}
	return gold(a.template, a.manifest, a.decided, a.problems, a.path, resolve), nil
}

// adjudication is an adjudication as read: its manifest, template and
// every decision in its workbooks.
type adjudication struct {
	path     string // its manifest
	manifest *adjudicate.Manifest
	template *templates.Template
	decided  map[string]*adjudicate.Decision
	problems records.Problems
}

// openAdjudication reads an adjudication's folder (or manifest) and its
// workbooks; before, when set, is called with the manifest before the
// workbooks are read.
func openAdjudication(ctx context.Context, path string, b Backends, before func(*adjudicate.Manifest) error) (*adjudication, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, adjudicate.ManifestFile)
	}
	m, err := ReadAdjudication(path)
	if err != nil {
		return nil, err
	}
	t, err := templates.LoadWithParams(path+" (its template)", []byte(m.Template.Source), m.Template.Params)
	if err != nil {
		return nil, err
	}
	if before != nil {
		if err := before(m); err != nil {
			return nil, err
		}
	}
	decided, probs, err := readDecisions(ctx, filepath.Dir(path), m, b, nil)
	if err != nil {
		return nil, err
	}
	return &adjudication{path: path, manifest: m, template: t, decided: decided, problems: probs}, nil
}

// Resolve makes the gold set of records without workbooks (ResolveGold),
// of every unit of the study when its manifest is given.
func Resolve(t *templates.Template, recs []*records.Annotation, man *Manifest, resolve string, opt adjudicate.Options) (*GoldSet, *adjudicate.Found, error) {
	found, err := adjudicate.Find(t, recs, opt)
	if err != nil {
		return nil, nil, err
	}
	var units []UnitRef
	if man != nil {
		units = man.StudyUnits()
	}
	return ResolveGold(t, found, resolve, "", units), found, nil
}

// Empty counts the units of a gold set nobody has completed yet.
func (g *GoldSet) Empty() int {
	n := 0
	for _, r := range g.Records {
		if r.Status == records.StatusEmpty {
			n++
		}
	}
	return n
}

// ResolveGold makes a gold set without workbooks: what the annotators
// agree on, and with resolve "majority" the suggestion of every item.
func ResolveGold(t *templates.Template, f *adjudicate.Found, resolve, source string, study []UnitRef) *GoldSet {
	listed := map[string]bool{}
	for _, u := range f.Units {
		listed[u.Unit] = true
	}
	m := &adjudicate.Manifest{Units: append(slices.Clone(f.Units), unanswered(f, study, listed)...), Items: f.Items}
	for k, it := range m.Items {
		it.ID = fmt.Sprintf("d%04d", k+1)
	}
	return gold(t, m, nil, nil, source, resolve)
}

func gold(t *templates.Template, m *adjudicate.Manifest, decided map[string]*adjudicate.Decision, probs records.Problems, path, resolve string) *GoldSet {
	src := records.RecordSource{Kind: records.SourceAdjudication, File: path, Rows: []int{}}
	adjudicator := func(it *adjudicate.Item) string {
		if it.Workbook >= 0 && it.Workbook < len(m.Workbooks) {
			return m.Workbooks[it.Workbook].Adjudicator
		}
		return ""
	}
	file := func(it *adjudicate.Item) string {
		if it.Workbook >= 0 && it.Workbook < len(m.Workbooks) {
			return bookLocation(filepath.Dir(path), &m.Workbooks[it.Workbook]).String()
		}
		return path
	}
	recs, gp := adjudicate.Gold(t, m.Units, m.Items, decided, adjudicate.GoldOptions{Resolve: resolve, Adjudicator: adjudicator, Source: src, File: file})
	out := &GoldSet{Records: recs, Problems: append(probs, gp...), Manifest: m, Template: t}
	for _, r := range recs {
		for _, p := range r.Problems {
			if strings.Contains(p.Message, " is unresolved: ") {
				out.Unresolved++
			}
		}
	}
	for _, d := range decided {
		if len(d.Cells) > 0 {
			out.Decided++
		}
	}
	return out
}

// savedAs finds copies of an adjudication workbook saved in another
// format beside it (adjudicate-lead.ods beside adjudicate-lead.xlsx): the
// path of the newest, when it is newer than the workbook (or the
// workbook is gone), to read instead, with a warning that says so; and
// a warning for each older copy, which is not read. A newer copy that no
// backend reads (.numbers) is an error: its decisions would be lost.
func savedAs(path string, files Files) (string, records.Problems, error) {
	base := filepath.Base(path)
	var since time.Time
	if st, err := os.Stat(path); err == nil {
		since = st.ModTime()
	}
	var newer, older []fileCopy
	for _, c := range copiesOf(path, files) {
		if c.at.After(since) {
			newer = append(newer, c)
		} else {
			older = append(older, c)
		}
	}
	var probs records.Problems
	for _, c := range older {
		probs = append(probs, &records.Problem{Severity: records.Warning, File: c.path, Err: ErrAdjudication,
			Message: fmt.Sprintf("an older copy of %s in another format: it is not read (the decisions are those of %s)", base, base)})
	}
	if len(newer) == 0 {
		return "", probs, nil
	}
	slices.SortFunc(newer, func(a, b fileCopy) int { return b.at.Compare(a.at) })
	c := newer[0]
	if c.why != "" {
		return "", nil, fmt.Errorf("%s: the adjudication workbook saved as %s, which cannot be read (%s), so its decisions would be lost: save it as .xlsx in place of %s", c.path, filepath.Ext(c.path), c.why, base)
	}
	for _, o := range newer[1:] {
		probs = append(probs, &records.Problem{Severity: records.Warning, File: o.path, Err: ErrAdjudication,
			Message: fmt.Sprintf("another copy of %s in another format, older than %s: it is not read", base, filepath.Base(c.path))})
	}
	probs = append(probs, &records.Problem{Severity: records.Warning, File: c.path, Err: ErrAdjudication,
		Message: fmt.Sprintf("the decisions are read from this copy of %s, saved in another format after it; adjudicate writes them into %s when it runs again", base, base)})
	return c.path, probs, nil
}

// fileCopy is a copy of a workbook in another format, beside it.
type fileCopy struct {
	path, why string // why no backend reads it, if none does
	at        time.Time
}

// copiesOf lists the copies of the workbook at path saved in another
// format beside it: files of its name but for the extension that are
// spreadsheets (adjudicate-lead.ods beside adjudicate-lead.xlsx).
func copiesOf(path string, files Files) []fileCopy {
	dir, base := filepath.Dir(path), filepath.Base(path)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []fileCopy
	for _, e := range ents {
		name := e.Name()
		ext := filepath.Ext(name)
		if name == base || !strings.EqualFold(strings.TrimSuffix(name, ext), stem) || e.IsDir() {
			continue
		}
		ok, why := files.Readable(name)
		if !ok && why == "" {
			continue // not a spreadsheet
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, fileCopy{path: filepath.Join(dir, name), why: why, at: info.ModTime()})
	}
	return out
}

// noNewCopies fails, naming it, when a copy of a workbook in another
// format is beside it that was not there when the run read the
// workbook (vers has every copy the run met): an adjudicator's Save As
// meanwhile, whose decisions a rewrite would leave behind unread.
func noNewCopies(at backend.Location, files Files, vers versions) error {
	if at.Kind != backend.KindXLSX || files == nil {
		return nil
	}
	for _, c := range copiesOf(at.Path, files) {
		if _, ok := vers[backend.Location{Kind: backend.KindXLSX, Path: c.path}]; !ok {
			return fmt.Errorf("%s: %w: a copy of %s in another format, saved after the run read it", c.path, backend.ErrChanged, filepath.Base(at.Path))
		}
	}
	return nil
}
