package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
)

// ErrAdjudication is wrapped by errors of an adjudication's folder: a
// manifest that cannot be read, a workbook that cannot be, another
// template's.
var ErrAdjudication = errors.New("adjudication")

// AdjudicateOptions say how to lay out an adjudication.
type AdjudicateOptions struct {
	// Dir is the adjudication's folder: its manifest and XLSX workbooks.
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
	// Items are the study's input records (mapping.Items): the context
	// shown beside each disagreement and the texts edited spans are found
	// in. Nil shows no context.
	Items []*mapping.SourceItem
	// Shown maps a unit to the ID its annotators saw (opaque IDs); nil
	// shows the unit's own.
	Shown func(unit string) string
	// Share lists who gets edit access to new spreadsheets.
	Share []string
	Now   func() time.Time
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
	Problems mapping.Problems
	// Kept counts the decisions carried from earlier workbooks.
	Kept int
}

// Adjudicate writes the workbooks in which adjudicators decide what the
// annotators disagree on, and the adjudication's manifest. Run again on
// the same folder, it keeps every decision made in the workbooks there and
// adds the disagreements that are new.
func Adjudicate(ctx context.Context, t *templates.Template, recs []*mapping.Annotation, opt AdjudicateOptions, read Backends, store backend.Store) (*Adjudicated, error) {
	if len(opt.Adjudicators) == 0 {
		opt.Adjudicators = []string{"adjudicator"}
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	found, err := adjudicate.Find(t, recs, opt.Options)
	if err != nil {
		return nil, err
	}
	res := &Adjudicated{Found: found}
	path := filepath.Join(opt.Dir, adjudicate.ManifestFile)
	prev, err := ReadAdjudication(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		prev = nil
	case err != nil:
		return nil, err
	}
	decided := map[string]*adjudicate.Decision{}
	if prev != nil {
		if prev.Template.Name != t.Name || prev.Template.Version != t.Version {
			return nil, fmt.Errorf("%s: %w: it adjudicates template %s version %d, not %s version %d; give another --out", path, ErrAdjudication, prev.Template.Name, prev.Template.Version, t.Name, t.Version)
		}
		// Every decision made so far is read before anything is written:
		// a workbook that cannot be read stops the run.
		if decided, res.Problems, err = readDecisions(ctx, opt.Dir, prev, read); err != nil {
			return nil, err
		}
	}
	m := newAdjudication(t, prev, opt)
	m.Units = found.Units
	var prevItems []*adjudicate.Item
	if prev != nil {
		prevItems = prev.Items
	}
	carried := adjudicate.Merge(prevItems, decided, found.Items)
	res.Notes = carried.Notes
	res.Kept = len(carried.Filled)
	m.Items = carried.Items
	m.Annotators, m.Names = names(prev, found.Annotators, m.Items, opt.ShowAnnotators)
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
	var context func(string) map[string]string
	if len(opt.Items) > 0 {
		context = func(u string) map[string]string { return contexts[u] }
	}
	summary := summarise(t, found, m.Items)
	lim := backend.XLSX
	if opt.Kind == backend.KindGSheets {
		lim = backend.GSheets
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
		loc, err := store.Write(ctx, plan, at, backend.WriteOptions{Share: opt.Share, Tag: m.ID + "/" + fmt.Sprint(w), Created: func(l backend.Location) error {
			setLocation(ref, l)
			return writeAdjudication(path, m)
		}})
		if err != nil {
			return nil, err
		}
		setLocation(ref, loc)
		res.Written = append(res.Written, loc.String())
	}
	if err := writeAdjudication(path, m); err != nil {
		return nil, err
	}
	res.Manifest = m
	return res, nil
}

// newAdjudication is the manifest of a run: the earlier one's identity
// and workbooks, or new ones.
func newAdjudication(t *templates.Template, prev *adjudicate.Manifest, opt AdjudicateOptions) *adjudicate.Manifest {
	m := &adjudicate.Manifest{
		Format: adjudicate.ManifestFormat, Created: opt.Now().UTC().Format(time.RFC3339),
		Template: manifest.Template{Name: t.Name, Version: t.Version, SHA256: mapping.TemplateHash(t), Params: t.ParamValues(), Source: string(t.Source)},
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
		ids, shown = slices.Clone(prev.Annotators), slices.Clone(prev.Names)
	}
	all := slices.Clone(found)
	for _, it := range items {
		for _, a := range it.Answers {
			all = append(all, a.Annotator)
		}
	}
	slices.Sort(all)
	for _, a := range slices.Compact(all) {
		if slices.Contains(ids, a) {
			continue
		}
		ids = append(ids, a)
		if show {
			shown = append(shown, a)
		} else {
			shown = append(shown, fmt.Sprintf("Annotator %d", len(ids)))
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
			ref.File = "adjudicate-" + fileSafe(adj) + ".xlsx"
			if n > 0 || opt.BatchSize > 0 {
				ref.File = fmt.Sprintf("adjudicate-%s-%02d.xlsx", fileSafe(adj), n+1)
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

// fileSafe is an ID as a file name part.
func fileSafe(s string) string {
	out := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' || strings.ContainsRune(`*?"<>|`, r) {
			return '_'
		}
		return r
	}, s)
	if out == "" || out == "." || out == ".." {
		return "_"
	}
	return out
}

// summarise counts, per question, what was accepted and what is left.
func summarise(t *templates.Template, f *adjudicate.Found, items []*adjudicate.Item) adjudicate.Summary {
	s := adjudicate.Summary{Units: len(f.Units), Annotators: len(f.Annotators)}
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
		for _, u := range f.Units {
			if p := u.Provenance[n]; p != nil {
				if p.Kind == mapping.ProvenanceUnanimous {
					c.Unanimous++
				} else {
					c.Majority++
				}
			}
			if n == t.Rows.Spans {
				for _, sp := range u.Spans {
					if sp.Provenance.Kind == mapping.ProvenanceUnanimous {
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

// MaxAdjudicationSize bounds an adjudication's manifest as read.
const MaxAdjudicationSize = 1 << 30

// ReadAdjudication reads an adjudication's manifest.
func ReadAdjudication(path string) (*adjudicate.Manifest, error) {
	b, err := boundedread.ReadFile(path, MaxAdjudicationSize, "an adjudication manifest")
	if err != nil {
		return nil, err
	}
	var m adjudicate.Manifest
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w: not an adjudication manifest: %v", path, ErrAdjudication, err)
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
	for _, it := range m.Items {
		if it.Workbook < 0 || it.Workbook >= len(m.Workbooks) {
			return nil, fmt.Errorf("%s: %w: item %s names workbook %d of %d", path, ErrAdjudication, it.ID, it.Workbook, len(m.Workbooks))
		}
	}
	if len(m.Names) != len(m.Annotators) {
		return nil, fmt.Errorf("%s: %w: %d names for %d annotators", path, ErrAdjudication, len(m.Names), len(m.Annotators))
	}
	return &m, nil
}

// typeManifest types the values the manifest holds, as records are typed.
func typeManifest(t *templates.Template, m *adjudicate.Manifest) error {
	typed := func(values map[string]any, spans []mapping.SpanAnswer) (map[string]any, []mapping.SpanAnswer, error) {
		rec := &mapping.Annotation{Values: values, Spans: spans}
		out, err := mapping.TypedRecord(t, rec)
		if err != nil {
			return nil, nil, err
		}
		return out.Values, out.Spans, nil
	}
	for _, u := range m.Units {
		v, s, err := typed(u.Values, u.Spans)
		if err != nil {
			return fmt.Errorf("unit %s: %v", u.Unit, err)
		}
		u.Values, u.Spans = v, s
	}
	for _, it := range m.Items {
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

func writeAdjudication(path string, m *adjudicate.Manifest) error {
	return atomicfile.Write(path, true, 0o644, func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		e.SetEscapeHTML(false)
		return e.Encode(m)
	})
}

// readDecisions reads every workbook of an adjudication.
func readDecisions(ctx context.Context, dir string, m *adjudicate.Manifest, b Backends) (map[string]*adjudicate.Decision, mapping.Problems, error) {
	t, err := templates.LoadWithParams("adjudication template", []byte(m.Template.Source), m.Template.Params)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*adjudicate.Decision{}
	var probs mapping.Problems
	for w := range m.Workbooks {
		ref := &m.Workbooks[w]
		if ref.Kind != backend.KindGSheets && ref.File == "" || ref.Kind == backend.KindGSheets && ref.Spreadsheet == nil {
			continue // never written
		}
		at := bookLocation(dir, ref)
		var g *backend.Grid
		var closeFn func() error
		switch {
		case at.Kind == backend.KindGSheets && b.Spreadsheets != nil:
			g, closeFn, err = b.Spreadsheets.Open(ctx, at)
		case at.Kind == backend.KindXLSX && b.Files != nil:
			g, closeFn, err = b.Files.Open(ctx, at)
		default:
			err = fmt.Errorf("no backend reads %s workbooks here", at.Kind)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w: the adjudication workbook cannot be read, so its decisions would be lost: %w", at, ErrAdjudication, err)
		}
		d, ps, err := readBook(g, at.String(), t, m, w)
		closeFn()
		if err != nil {
			return nil, nil, err
		}
		for id, dec := range d {
			out[id] = dec
		}
		probs = append(probs, ps...)
	}
	return out, probs, nil
}

// readBook reads one adjudication workbook's decisions.
func readBook(g *backend.Grid, name string, t *templates.Template, m *adjudicate.Manifest, w int) (map[string]*adjudicate.Decision, mapping.Problems, error) {
	meta, err := adjudicate.ReadMeta(g)
	if err != nil {
		return nil, nil, err
	}
	if meta.Adjudication != m.ID || meta.Workbook != w {
		return nil, nil, fmt.Errorf("%s: %w: the workbook belongs to another adjudication (or is another workbook of it) than the manifest lists here", name, ErrAdjudication)
	}
	items := map[string]*adjudicate.Item{}
	for _, it := range m.Items {
		if it.Workbook == w {
			items[it.ID] = it
		}
	}
	rd := &adjudicate.Reading{Template: t, Meta: meta, Items: items, Annotators: m.Annotators, Names: m.Names, File: name}
	return rd.Read(g)
}

// GoldSet is a pulled adjudication: one gold record per unit.
type GoldSet struct {
	Records  []*mapping.Annotation
	Problems mapping.Problems
	Manifest *adjudicate.Manifest
	Template *templates.Template
	// Unresolved counts the items nobody decided; Decided those decided.
	Unresolved, Decided int
}

// PullGold reads an adjudication's folder (or manifest) and its workbooks
// and makes the gold set. With resolve "majority", items nobody decided
// take their suggestion.
func PullGold(ctx context.Context, path string, b Backends, resolve string) (*GoldSet, error) {
	a, err := openAdjudication(ctx, path, b)
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
	problems mapping.Problems
}

// openAdjudication reads an adjudication's folder (or manifest) and its
// workbooks.
func openAdjudication(ctx context.Context, path string, b Backends) (*adjudication, error) {
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
	decided, probs, err := readDecisions(ctx, filepath.Dir(path), m, b)
	if err != nil {
		return nil, err
	}
	return &adjudication{path: path, manifest: m, template: t, decided: decided, problems: probs}, nil
}

// ResolveGold makes a gold set without workbooks: what the annotators
// agree on, and with resolve "majority" the suggestion of every item.
func ResolveGold(t *templates.Template, f *adjudicate.Found, resolve, source string) *GoldSet {
	m := &adjudicate.Manifest{Units: f.Units, Items: f.Items}
	for k, it := range m.Items {
		it.ID = fmt.Sprintf("d%04d", k+1)
	}
	return gold(t, m, nil, nil, source, resolve)
}

func gold(t *templates.Template, m *adjudicate.Manifest, decided map[string]*adjudicate.Decision, probs mapping.Problems, path, resolve string) *GoldSet {
	src := mapping.RecordSource{Kind: mapping.SourceAdjudication, File: path, Rows: []int{}}
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
