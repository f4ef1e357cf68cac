package study

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// PullOptions tune Pull.
type PullOptions struct {
	// Template, when set, is the template name every workbook must have
	// been made with; others are refused with a warning.
	Template string
	// Annotators declares who may claim units in shared workbooks (the
	// manifest's declared annotators are added); an ID outside them is
	// warned about by cell.
	Annotators []string
	// Progress, when set, is called after each workbook is read.
	Progress func(done, total int)
}

// Workbook is one workbook read.
type Workbook struct {
	File     string             `json:"file"`
	Template layout.TemplateRef `json:"template"`
	Batch    string             `json:"batch"`
	Study    string             `json:"study,omitempty"`
	Units    int                `json:"units"`
}

// Result is everything a pull of a study read.
type Result struct {
	// Records has one record per (unit, annotator): the batches in the
	// order of the sources, units in workbook order; missing units too.
	Records  []*records.Annotation
	Problems records.Problems
	// Workbooks lists the workbooks read.
	Workbooks []Workbook
	// Conflicts lists the units that copies of a batch answer
	// differently. Their records hold the first copy's answers and an
	// error; Pull's caller decides whether to write them.
	Conflicts []Conflict

	batchOf map[string]batchKey            // a problem's file -> its study and batch
	studyOf map[*records.Annotation]string // record -> its study
	// templateOf is the template the workbooks of a study carry, which
	// their records were read with, by study and template.
	templateOf map[templateKey]*templates.Template
}

// templateKey is a template of a study.
type templateKey struct {
	study string
	id    records.TemplateID
}

// NothingRead says that no workbook was read and no study named: every
// source was refused (see the problems).
func (r *Result) NothingRead(src *Sources) bool {
	return len(r.Workbooks) == 0 && len(src.Manifests) == 0
}

// Counts tallies a result: records by status, problems by severity.
type Counts struct {
	Records, Complete, Partial, Empty, Missing, Unreadable int
	Errors, Warnings                                       int
}

// Counts tallies the records by status and problems by severity.
func (r *Result) Counts() Counts {
	c := Counts{Records: len(r.Records)}
	for _, rec := range r.Records {
		switch rec.Status {
		case records.StatusComplete:
			c.Complete++
		case records.StatusPartial:
			c.Partial++
		case records.StatusEmpty:
			c.Empty++
		case records.StatusMissing:
			c.Missing++
		case records.StatusUnreadable:
			c.Unreadable++
		}
	}
	for _, p := range r.Problems {
		if p.Severity == records.Error {
			c.Errors++
		} else {
			c.Warnings++
		}
	}
	return c
}

type batchKey struct{ study, batch string }

// unitKey is a unit of a batch of a study.
type unitKey struct{ study, batch, unit string }

// puller is one Pull run.
type puller struct {
	src    *Sources
	opt    PullOptions
	res    *Result
	orders map[string]map[string][]string
	opaque map[string]map[string]string
	order  []batchKey // batches in the order of the sources
	noted  map[batchKey]bool
	copies map[batchKey][]*copyOf // the workbooks read of each batch
	listed map[batchKey]Ref
	why    map[batchKey]string // why a listed workbook gave nothing
	cause  map[batchKey]error  // the error behind why, if any
	// templates are those the workbooks carry, each loaded once.
	templates decode.Templates
	// known are the known answers of each manifest's control units,
	// typed once (see knownAnswers).
	known map[*manifest.Manifest]map[string]*records.Annotation
}

// Pull reads every workbook of the sources. A workbook the sources name
// directly that cannot be read is an error. A workbook a manifest lists
// that is not there, or is not the one it lists (another study's, another
// batch's), turns its units into missing records, with an error that says
// why, unless another workbook holds that batch (a returned copy, say).
// A workbook of another study or template than the sources' is refused
// with a warning that names it. Several workbooks of one batch are merged
// unit by unit (see Merge).
func Pull(ctx context.Context, src *Sources, opt PullOptions) (*Result, error) {
	p := &puller{src: src, opt: opt, res: &Result{batchOf: map[string]batchKey{}, studyOf: map[*records.Annotation]string{}, templateOf: map[templateKey]*templates.Template{}}, orders: map[string]map[string][]string{}, opaque: map[string]map[string]string{},
		noted: map[batchKey]bool{}, copies: map[batchKey][]*copyOf{}, listed: map[batchKey]Ref{}, why: map[batchKey]string{}, cause: map[batchKey]error{}}
	for _, m := range src.Manifests {
		if opt.Template != "" && m.Template.Name != opt.Template {
			return nil, fmt.Errorf("%s: %w: the study was made with template %s, not %s", m.Path, decode.ErrOtherStudy, m.Template.Name, opt.Template)
		}
		if m.Orders != nil {
			p.orders[m.Study] = m.Orders
		}
		if m.OpaqueIDs != nil {
			p.opaque[m.Study] = m.OpaqueIDs
		}
	}
	for _, k := range src.Skipped {
		p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Warning, File: k.Path, Message: "not read: " + k.Why})
	}
	seen := map[string]bool{}
	for i, ref := range src.Refs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if ref.Batch != nil {
			k := batchKey{ref.Study, ref.Batch.ID}
			p.note(k)
			p.listed[k] = ref
		}
		// The same workbook given twice (a folder and a file in it, say)
		// is read once.
		if key := ref.key(); !seen[key] {
			seen[key] = true
			if err := p.read(ctx, ref); err != nil {
				return nil, err
			}
		}
		if opt.Progress != nil {
			opt.Progress(i+1, len(src.Refs))
		}
	}
	// A read cut short by Ctrl-C is no unreadable workbook.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, k := range p.order {
		books := p.copies[k]
		if len(books) == 0 {
			p.missingWorkbook(p.listed[k], p.why[k], p.cause[k])
			continue
		}
		if ref, cause := p.listed[k], p.cause[k]; cause != nil && !errors.Is(cause, decode.ErrOtherStudy) {
			// The listed workbook may hold answers its copies do not.
			p.res.batchOf[ref.Path] = k
			p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Error, File: ref.Path, Err: cause,
				Message: fmt.Sprintf("the workbook of batch %s %s; its units are read from the other copies", k.batch, p.why[k])})
		}
		m := merge(books)
		if ref, ok := p.listed[k]; ok && ref.Batch != nil {
			m.Records = p.checkUnits(ref, m.Records, books[0])
			p.markControls(ref, m.Records, books[0])
		}
		for _, r := range m.Records {
			p.res.studyOf[r] = k.study
		}
		p.res.Records = append(p.res.Records, m.Records...)
		p.res.Problems = append(p.res.Problems, m.Problems...)
		p.res.Conflicts = append(p.res.Conflicts, m.Conflicts...)
	}
	p.res.Problems.Sort()
	return p.res, nil
}

// annotatorOf gives each unit's annotator, by study, batch and unit: the
// one a record names, where one does.
func (r *Result) annotatorOf() map[unitKey]string {
	of := map[unitKey]string{}
	for _, rec := range r.Records {
		k := unitKey{r.studyOf[rec], rec.Batch, rec.Unit}
		if _, ok := of[k]; !ok || rec.Annotator != "" {
			of[k] = rec.Annotator
		}
	}
	return of
}

func (p *puller) note(k batchKey) {
	if !p.noted[k] {
		p.noted[k] = true
		p.order = append(p.order, k)
	}
}

// warn adds a warning about a whole workbook.
func (p *puller) warn(file, format string, args ...any) {
	p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Warning, File: file, Message: fmt.Sprintf(format, args...)})
}

// unopened files a workbook that could not be opened, or whose check
// found damage: err.
func (p *puller) unopened(ref Ref, k batchKey, err error) error {
	switch {
	case ref.Batch != nil && errors.Is(err, ErrNotFound):
		switch {
		case ref.Spreadsheet != "":
			p.why[k] = "was not found, or this sign-in cannot open it (annosheet reaches only the spreadsheets it made while signed in as the same account)"
		case ref.Batch.File == "":
			p.why[k] = "was never made (generate did not finish)"
		default:
			p.why[k] = "is missing"
		}
		return nil
	case ref.Batch != nil && ref.Spreadsheet == "":
		// A damaged file, say: its units are not in hand, and the rest of
		// the study goes on. (A spreadsheet that cannot be reached is a
		// matter of sign-in or network, which stops the run.)
		p.why[k] = "could not be read: " + strings.TrimPrefix(err.Error(), ref.Path+": ")
		p.cause[k] = err
		return nil
	case ref.Found:
		// A file found in a folder that cannot be read: said, and the
		// rest of the study goes on.
		p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Error, File: ref.Path, Err: err, Message: "not read: " + strings.TrimPrefix(err.Error(), ref.Path+": ")})
		return nil
	}
	return err
}

// read reads one workbook and files it under its batch.
func (p *puller) read(ctx context.Context, ref Ref) error {
	g, closeFn, err := p.open(ctx, ref)
	if err == nil {
		g = interruptible(ctx, g)
	}
	var k batchKey
	if ref.Batch != nil {
		k = batchKey{ref.Study, ref.Batch.ID}
	}
	if err != nil {
		return p.unopened(ref, k, err)
	}
	popt := decode.PullOptions{Template: p.opt.Template, Study: ref.Study, StudyOrders: p.orders, StudyOpaqueIDs: p.opaque}
	if m := ref.Manifest; m != nil {
		popt.Template, popt.Version = m.Template.Name, m.Template.Version
		popt.Annotators = declared(m.Manifest, p.opt.Annotators)
	} else {
		popt.Annotators = p.opt.Annotators
	}
	var pulled *decode.Pulled
	wb, err := decode.Open(g)
	if err == nil {
		var t *templates.Template
		if t, err = p.templates.Of(wb); err == nil {
			pulled, err = wb.Pull(t, popt)
		}
	}
	// Damage found in a part no read reached comes with the closing.
	if cerr := closeFn(); cerr != nil && err == nil {
		return p.unopened(ref, k, cerr)
	}
	if err == nil && ref.Manifest != nil && pulled.Meta.Template.SHA256 != "" && ref.Manifest.Template.SHA256 != "" && pulled.Meta.Template.SHA256 != ref.Manifest.Template.SHA256 {
		err = fmt.Errorf("%s: %w: made with another text of template %s version %d than the study's", g.Name, decode.ErrOtherStudy, pulled.Meta.Template.Name, pulled.Meta.Template.Version)
	}
	if err == nil && ref.Loose && ref.Manifest == nil && len(p.src.Manifests) > 1 && !p.ofStudies(pulled.Meta.Study) {
		err = fmt.Errorf("%s: %w: it belongs to study %s, which none of the manifests given is", g.Name, decode.ErrOtherStudy, pulled.Meta.Study)
	}
	if errors.Is(err, decode.ErrOtherStudy) || (errors.Is(err, decode.ErrNotWorkbook) && (ref.Batch != nil || ref.Found)) {
		why := strings.TrimPrefix(err.Error(), g.Name+": ")
		switch {
		case ref.Batch != nil:
			// Not the workbook the study made for this batch: its units
			// are not in hand.
			p.why[k] = "is not the one the manifest lists (" + why + ")"
			p.cause[k] = err
		case ref.Loose && ref.Manifest == nil:
			p.warn(ref.Path, "not read: %s", why)
		case ref.Loose && ref.Found:
			p.warn(ref.Path, "not read: it is in the study's folder but not of its study (%s)", why)
		case ref.Loose:
			p.warn(ref.Path, "not read: it was given with the manifest of study %s but is not of that study (%s)", ref.Study, why)
		default:
			p.warn(ref.Path, "not read: %s", why)
		}
		return nil
	}
	switch {
	case err != nil && ref.Batch != nil:
		p.why[k] = "could not be read: " + unprefixed(err, g.Name).Error()
		p.cause[k] = err
		return nil
	case err != nil && ref.Found:
		p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Error, File: ref.Path, Err: err, Message: "not read: " + unprefixed(err, g.Name).Error()})
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", ref.Path, unprefixed(err, g.Name))
	}
	// Messages name the file as the user gave it; records keep the
	// workbook's own name as their source.
	for _, pr := range pulled.Problems {
		if pr.File == g.Name {
			pr.File = ref.Path
		}
	}
	bk := batchKey{pulled.Meta.Study, pulled.Meta.Batch}
	if ref.Batch != nil && pulled.Meta.Batch != ref.Batch.ID {
		p.why[k] = fmt.Sprintf("is not the one the manifest lists (it is batch %s)", pulled.Meta.Batch)
	}
	p.note(bk)
	p.res.batchOf[ref.Path] = bk
	p.copies[bk] = append(p.copies[bk], &copyOf{Path: ref.Path, Pulled: pulled})
	tk := templateKey{pulled.Meta.Study, records.TemplateID{Name: pulled.Template.Name, Version: pulled.Template.Version}}
	if _, ok := p.res.templateOf[tk]; !ok {
		p.res.templateOf[tk] = pulled.Template
	}
	p.res.Workbooks = append(p.res.Workbooks, Workbook{File: ref.Path, Template: pulled.Meta.Template, Batch: pulled.Meta.Batch, Study: pulled.Meta.Study, Units: len(pulled.Units)})
	return nil
}

func (p *puller) ofStudies(study string) bool {
	for _, m := range p.src.Manifests {
		if m.Study == study {
			return true
		}
	}
	return false
}

// unprefixed drops a leading "NAME: " from an error's text, keeping the
// error itself for errors.Is.
func unprefixed(err error, name string) error {
	if msg := err.Error(); strings.HasPrefix(msg, name+": ") {
		return prefixless{err, strings.TrimPrefix(msg, name+": ")}
	}
	return err
}

type prefixless struct {
	err error
	msg string
}

func (e prefixless) Error() string { return e.msg }
func (e prefixless) Unwrap() error { return e.err }

// open opens a ref's workbook through its backend. A workbook the
// manifest lists that was never made counts as not found.
func (p *puller) open(ctx context.Context, ref Ref) (*backend.Grid, func() error, error) {
	b := p.src.backends
	if ref.Spreadsheet != "" {
		if b.Spreadsheets == nil {
			return nil, nil, fmt.Errorf("%s: a spreadsheet, and no way to reach spreadsheets was given", ref.Path)
		}
		at := backend.Location{Kind: backend.KindGSheets, ID: ref.Spreadsheet, URL: ref.Path, Endpoint: b.Endpoint}
		if ref.Batch != nil && ref.Batch.Spreadsheet != nil {
			sp := ref.Batch.Spreadsheet
			if sp.Endpoint != b.Endpoint {
				return nil, nil, &EndpointError{Spreadsheet: sp.URL, Recorded: sp.Endpoint, Used: b.Endpoint}
			}
			at.URL = sp.URL
		}
		return b.Spreadsheets.Open(ctx, at)
	}
	if ref.Batch != nil && ref.Batch.File == "" {
		return nil, nil, fmt.Errorf("%w: never made", ErrNotFound)
	}
	if b.Files == nil {
		return nil, nil, fmt.Errorf("%s: no way to read workbook files was given", ref.Path)
	}
	return b.Files.Open(ctx, backend.Location{Kind: backend.KindXLSX, Path: ref.Path})
}

// interruptible stops the reading of a grid's rows soon after ctx ends
// (Ctrl-C), however large the sheet.
func interruptible(ctx context.Context, g *backend.Grid) *backend.Grid {
	rows, skim := g.Rows, g.Skim
	out := *g
	checked := func(fn func(int, []backend.ReadCell) error) func(int, []backend.ReadCell) error {
		n := 0
		return func(row int, cells []backend.ReadCell) error {
			if n++; n%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			return fn(row, cells)
		}
	}
	out.Rows = func(sheet string, fn func(int, []backend.ReadCell) error) error {
		return rows(sheet, checked(fn))
	}
	if skim != nil {
		out.Skim = func(sheet string, keep func(int) bool, fn func(int, []backend.ReadCell) error) error {
			return skim(sheet, keep, checked(fn))
		}
	}
	return &out
}

// unreadable reports an error that says a workbook is there but could not
// be read, rather than absent or another study's.
func unreadable(cause error) bool {
	return cause != nil && !errors.Is(cause, ErrNotFound) && !errors.Is(cause, decode.ErrOtherStudy)
}

// declared is who may claim units of a study's shared workbooks.
func declared(m *manifest.Manifest, more []string) []string {
	var out []string
	if m.Assignment != nil {
		out = append(out, m.Assignment.Annotators...)
	}
	return append(out, more...)
}

// missingWorkbook records every unit of a workbook that was not returned;
// its problem keeps cause, the error that said why, for errors.Is.
func (p *puller) missingWorkbook(ref Ref, why string, cause error) {
	if why == "" {
		why = "is not the one the manifest lists (it was read as another study's or batch's)"
	}
	name := ref.Path
	if ref.Spreadsheet != "" {
		name = ref.Spreadsheet
	}
	p.res.batchOf[name] = batchKey{ref.Study, ref.Batch.ID}
	sentinel := decode.ErrMissingUnit
	if cause != nil {
		sentinel = errors.Join(decode.ErrMissingUnit, cause)
	}
	// A workbook that is there but could not be read may hold answers:
	// its units are unreadable, not missing.
	status, reported := records.StatusMissing, "missing"
	if unreadable(cause) && !(ref.Batch.Spreadsheet != nil && ref.Batch.Spreadsheet.Status == manifest.Incomplete) {
		status, reported = records.StatusUnreadable, "unreadable"
	}
	p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Error, File: name, Err: sentinel,
		Message: fmt.Sprintf("the workbook of batch %s %s; its %s reported %s", ref.Batch.ID, why, words.Count(len(ref.Batch.Units), "unit")+map[bool]string{true: " is", false: " are"}[len(ref.Batch.Units) == 1], reported)})
	for _, u := range ref.Batch.Units {
		r := absentRecord(ref, u, status, "the workbook "+why)
		p.res.studyOf[r] = ref.Study
		p.res.Records = append(p.res.Records, r)
	}
}

// absentRecord is the record of a unit the manifest lists whose answers
// are not in hand.
func absentRecord(ref Ref, u manifest.Unit, status, why string) *records.Annotation {
	kind, source := backend.KindXLSX, ref.Path
	switch {
	case ref.Spreadsheet != "":
		kind, source = backend.KindGSheets, ref.Spreadsheet
	case ref.Batch.File != "":
		source = ref.Batch.File
	}
	m := ref.Manifest
	return &records.Annotation{
		Schema:   records.AnnotationSchema,
		Template: records.TemplateID{Name: m.Template.Name, Version: m.Template.Version},
		Batch:    ref.Batch.ID, Unit: u.ID, Item: u.Item, Annotator: ref.Batch.Annotator, Status: status,
		Values: map[string]any{}, Source: records.RecordSource{Kind: kind, File: source, Rows: []int{}},
		Problems: []records.UnitProblem{{Severity: records.Error, Message: why}},
	}
}

// checkUnits holds a batch's records to the units its manifest lists: the
// study's list wins over the workbook's metadata. A unit the manifest
// lists and the workbook does not gets a missing record; a unit the
// workbook has and the manifest does not, or has under another instance,
// keeps its answers with an error. book is the workbook read, for the
// problems.
func (p *puller) checkUnits(ref Ref, recs []*records.Annotation, book *copyOf) []*records.Annotation {
	file := book.Path
	listed := make(map[string]string, len(ref.Batch.Units))
	for _, u := range ref.Batch.Units {
		listed[u.ID] = u.Item
	}
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Unit] = true
		item, ok := listed[r.Unit]
		var msg string
		switch {
		case !ok:
			msg = fmt.Sprintf("unit %s is not one the manifest lists for batch %s (the workbook's metadata was edited, or it is another study's)", book.Pulled.UnitName(r.Unit), ref.Batch.ID)
		case item != r.Item:
			msg = fmt.Sprintf("unit %s is of instance %s in the workbook but of %s in the manifest (the workbook's metadata was edited)", book.Pulled.UnitName(r.Unit), r.Item, item)
		default:
			continue
		}
		r.Problems = append(r.Problems, records.UnitProblem{Severity: records.Error, Message: msg})
		p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Error, File: file, Record: r.Unit, Shown: book.Pulled.ShownAs(r.Unit), Err: decode.ErrOtherStudy, Message: msg})
	}
	var absent []string
	for _, u := range ref.Batch.Units {
		if !seen[u.ID] {
			absent = append(absent, u.ID)
			recs = append(recs, absentRecord(ref, u, records.StatusMissing, "the workbook does not list this unit, which the manifest lists for its batch"))
		}
	}
	if len(absent) > 0 {
		p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Error, File: file, Err: decode.ErrMissingUnit,
			Message: fmt.Sprintf("the workbook of batch %s does not list %s that the manifest lists for it (%s): its metadata sheet was edited; they are reported missing",
				ref.Batch.ID, words.Count(len(absent), "unit"), strings.Join(absent, ", "))})
	}
	return recs
}

// PullReportSchema tags pull's report.
const PullReportSchema = "annosheet.report/1"

// PullReport is what pull's --report holds: the workbooks read, the
// records counted by status and the problems by severity, and every
// problem.
type PullReport struct {
	Schema    string           `json:"schema"`
	Workbooks []Workbook       `json:"workbooks"`
	Counts    map[string]int   `json:"counts"`
	Problems  records.Problems `json:"problems"`
}

// Report is the pull's report; lists are empty, never null.
func (r *Result) Report() *PullReport {
	c := r.Counts()
	rep := &PullReport{Schema: PullReportSchema, Workbooks: r.Workbooks, Problems: r.Problems, Counts: map[string]int{
		"records": c.Records, records.StatusComplete: c.Complete, records.StatusPartial: c.Partial,
		records.StatusEmpty: c.Empty, records.StatusMissing: c.Missing, records.StatusUnreadable: c.Unreadable, "errors": c.Errors, "warnings": c.Warnings,
	}}
	if rep.Workbooks == nil {
		rep.Workbooks = []Workbook{}
	}
	if rep.Problems == nil {
		rep.Problems = records.Problems{}
	}
	return rep
}
