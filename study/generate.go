package study

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/annosheet/annosheet/assign"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/filename"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrAnswered is wrapped by the error that refuses to rewrite workbooks
// annotators have answered in.
var ErrAnswered = errors.New("workbooks hold answers")

// ErrUnknownAnswers is wrapped when a workbook to replace cannot be read
// to tell whether it holds answers: never taken for "nothing to lose".
var ErrUnknownAnswers = errors.New("cannot tell whether it holds answers")

// answeredError is ErrAnswered in words that say which workbooks.
type answeredError string

func (e answeredError) Error() string        { return string(e) }
func (e answeredError) Is(target error) bool { return target == ErrAnswered }

// GenerateOptions describe a study to make.
type GenerateOptions struct {
	Template *templates.Template
	// Inputs are the input paths as given; Input how they are read
	// beside what the template says (recorded in the manifest).
	Inputs []string
	Input  input.Options
	// Dir is the study's folder: its manifest, and its workbook files.
	Dir string
	// Batch names the single shared workbook.
	Batch string
	// Seed seeds the assignment, anonymised labels and shuffled orders;
	// a random one when SeedSet is false.
	Seed    uint64
	SeedSet bool
	Now     time.Time
	// Force replaces what a previous run made; DiscardAnswers lets it
	// replace workbooks that hold answers.
	Force, DiscardAnswers bool
	// Assignment.
	Annotators []string
	Overlap    int
	BatchSize  int
	// Prefill is a file of canonical records whose answers the units'
	// answer cells start from; PrefillAnnotator picks whose, when it
	// holds several annotators' records.
	Prefill          string
	PrefillAnnotator string
	// PrefillAs is how the prefill is shown: layout.PrefillAnswers (the
	// default) or layout.PrefillSuggestions.
	PrefillAs string
	// Controls is a file of gold records: their units become control
	// units, ControlsPerBatch of which join every batch (2 when 0).
	Controls         string
	ControlsPerBatch int

	// Warn is told of each problem of the inputs that does not stop the
	// study; Note of each step worth saying; Wrote of each workbook made.
	Warn  func(error)
	Note  func(string)
	Wrote func(where string, b *manifest.Batch, sharedWith []string)
	// Endpoint is the API the store reaches spreadsheets on ("" for
	// Google's); a previous run's spreadsheets elsewhere stop the run.
	Endpoint string
	// Progress is told how many rows will be written, then of each row.
	Progress func(total int64) func(rows int)
	// saveRatio, when not 0, replaces the package's saveRatio (tests).
	saveRatio float64
}

// Generated is what Generate made.
type Generated struct {
	Manifest *manifest.Manifest
	Path     string // of the manifest
	// All is the whole study's build: units, warnings, keys, orders (its
	// plan is not kept).
	All *layout.Result
	// Kept counts the workbooks a previous run had made and this one
	// kept.
	Kept int
}

// Records are a study's input records, read as often as needed: the
// whole set, or the records of one batch by their indexes.
type Records interface {
	layout.Source
	Subset(indexes []int) layout.Source
	// Ordered is the records of these indexes in the order given: a
	// batch with control units placed among its others.
	Ordered(indexes []int) layout.Source
}

// generation is one Generate run.
type generation struct {
	opt    GenerateOptions
	w      backend.Store
	format string
	t      *templates.Template
	src    Records
	record map[string]int // item -> the Index of its input record
	study  string
	all    *layout.Result
	// opaqueIdx is all's key of opaque IDs indexed once for the batches.
	opaqueIdx *layout.OpaqueIndex
	plan      []assign.Batch
	// prefill is what opt.Prefill gives, and controls what opt.Controls
	// gives, read and checked by begin.
	prefill, controls *records.Given
	man               *manifest.Manifest
	path              string
	// mfile is the manifest's file, stamped before it was read; vers
	// the versions of the workbooks this run replaces, taken before they
	// were read: each is replaced only while it is still what was read.
	mfile *guardedFile
	vers  versions
}

// Generate plans a study, shares its instances out among the annotators
// and makes a workbook per batch through w, saving the manifest as each
// comes into being. A previous run of the same study in the folder is
// finished, never made twice; what it made is replaced only with Force,
// and workbooks that hold answers only with DiscardAnswers too.
func Generate(ctx context.Context, opt GenerateOptions, src Records, w backend.Store) (*Generated, error) {
	g := &generation{opt: opt, w: w, format: w.Limits().Kind, t: opt.Template, src: src, path: filepath.Join(opt.Dir, manifest.FileName)}
	if g.opt.Warn == nil {
		g.opt.Warn = func(error) {}
	}
	if g.opt.Note == nil {
		g.opt.Note = func(string) {}
	}
	if g.opt.Wrote == nil {
		g.opt.Wrote = func(string, *manifest.Batch, []string) {}
	}
	prev, err := g.previous()
	if err != nil {
		return nil, err
	}
	err = g.begin(ctx, prev)
	defer g.all.Close()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kept, err := g.check(ctx, prev)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := g.write(ctx, prev, kept); err != nil {
		return nil, err
	}
	return &Generated{Manifest: g.man, Path: g.path, All: g.all, Kept: len(kept)}, nil
}

// GenerateInputs generates the study of opt.Inputs, read as the
// template's input format says, once to plan and again for each batch
// from a spool of the records (input.NewSpool). A store that connects
// (as sheets.Store signs in at Connect) is connected first: a study whose
// store cannot be reached, or not with these credentials, fails before
// anything is read or written.
func GenerateInputs(ctx context.Context, opt GenerateOptions, w backend.Store) (*Generated, error) {
	if err := connect(ctx, w); err != nil {
		return nil, err
	}
	src, err := input.OpenFor(ctx, opt.Template, opt.Inputs, opt.Input)
	if err != nil {
		return nil, err
	}
	spool := input.NewSpool(src)
	defer spool.Close()
	return Generate(ctx, opt, spool, w)
}

// previous reads the manifest a previous run left in the folder, if any.
func (g *generation) previous() (*manifest.Manifest, error) {
	var err error
	if g.mfile, err = guardFile(g.path); err != nil {
		return nil, err
	}
	if g.mfile.stamp == "" {
		return nil, nil
	}
	prev, err := manifest.Read(g.path)
	if err != nil {
		if g.opt.Force {
			g.opt.Warn(fmt.Errorf("%w; it is replaced", err))
			return nil, nil
		}
		return nil, fmt.Errorf("%w: %w", atomicfile.ErrExists, err)
	}
	if prev.Format != g.format && !g.opt.Force {
		return nil, fmt.Errorf("%s: %w: it records a study of %s workbooks", g.path, atomicfile.ErrExists, prev.Format)
	}
	return prev, nil
}

// begin draws the study's identity and seed (those of the previous run,
// when it is the same study), checks every record, and shares out the
// instances. It stops with ctx's error once ctx is done.
func (g *generation) begin(ctx context.Context, prev *manifest.Manifest) error {
	opt := &g.opt
	var err error
	// The same study keeps its opaque IDs: the workbooks a previous run
	// made show them, whichever way that run numbered them.
	var key map[string]string
	if prev != nil && prev.Format == g.format && g.samePlan(prev) {
		g.study, opt.Seed, opt.SeedSet = prev.Study, prev.Seed, true
		key = prev.OpaqueIDs
	} else if g.study, err = newStudyID(); err != nil {
		return err
	}
	if !opt.SeedSet {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		opt.Seed = binary.LittleEndian.Uint64(b[:])
	}
	// A study of one shared workbook writes the whole build's plan; one
	// of several batches builds each batch's on its own.
	one := len(opt.Annotators) == 0 && opt.BatchSize == 0 && opt.Controls == ""
	var src layout.Source = g.src
	if in, ok := g.src.(interface{ Input() layout.Source }); ok && one && len(g.t.Anonymize) == 0 {
		// Read once, whole: no copy is needed. (Anonymised fields are
		// labelled in a pass of their own, which reads the copy.)
		src = in.Input()
	}
	// The problems of the prefill and the controls, their own and those
	// against the inputs, are said together with the inputs': their sound
	// records are checked against the inputs.
	var bad records.Problems
	if opt.Prefill != "" {
		var ps records.Problems
		g.prefill, ps = records.ReadGiven(ctx, opt.Prefill, g.t, opt.PrefillAnnotator)
		bad = append(bad, hinted(ps, "with --prefill-annotator NAME")...)
		if g.prefill != nil && g.prefill.Skipped > 0 && len(ps) == 0 {
			opt.Note(fmt.Sprintf("%s: %s with no answers (empty, missing or unreadable) left out of the prefill", opt.Prefill, words.Count(g.prefill.Skipped, "record")))
		}
	}
	if opt.Controls != "" {
		var ps records.Problems
		g.controls, ps = records.ReadGiven(ctx, opt.Controls, g.t, "")
		bad = append(bad, hinted(ps, "a gold set's known answers are one annotator's, such as \"gold\"")...)
	}
	if opt.Prefill != "" && g.prefill == nil || opt.Controls != "" && g.controls == nil {
		bad.Sort()
		return bad
	}
	g.all, err = layout.Build(ctx, g.t, src, layout.Options{Batch: opt.Batch, Study: g.study, CellLimit: g.w.Limits().CellChars, Seed: opt.Seed, CheckOnly: !one || len(bad) > 0, OpaqueIDs: key, Prefill: g.prefill, PrefillAs: opt.PrefillAs})
	var ps records.Problems
	if errors.As(err, &ps) {
		bad, err = append(bad, ps...), nil
	}
	if err != nil {
		return err
	}
	if g.all != nil && g.controls != nil {
		bad = append(bad, g.checkControls()...)
	}
	if len(bad) > 0 {
		bad.Sort()
		return bad
	}
	for _, w := range g.all.Warnings {
		opt.Warn(w)
	}
	var items []assign.Item
	g.record = map[string]int{}
	for _, u := range g.all.Units {
		g.record[u.Item] = u.Record
		if n := len(items); n > 0 && items[n-1].ID == u.Item {
			items[n-1].Units++
			continue
		}
		items = append(items, assign.Item{ID: u.Item, Units: 1})
	}
	items, controls := g.splitControls(items)
	g.plan, err = assign.Plan(items, assign.Options{Annotators: opt.Annotators, Overlap: opt.Overlap, BatchSize: opt.BatchSize, Seed: opt.Seed})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPlan, err)
	}
	if len(g.plan) == 1 && g.plan[0].Annotator == "" {
		g.plan[0].ID = opt.Batch
	}
	if g.controls != nil {
		// Placed after the batches are named: a batch's places are drawn
		// from its ID.
		if g.plan, err = assign.WithControls(g.plan, controls, assign.ControlOptions{PerBatch: g.perBatch(), Seed: opt.Seed}); err != nil {
			return fmt.Errorf("%w: %w", ErrPlan, err)
		}
		if !g.t.OpaqueIDs() {
			opt.Note("control units show their real IDs among the others; rows.id_display: opaque in the template hides every ID")
		}
		if len(opt.Annotators) == 0 && len(g.plan) > 1 {
			opt.Note(fmt.Sprintf("the %d shared workbooks take their controls in turn from the %s, so an annotator who works in several may meet one again; with --annotators, nobody meets a control twice", len(g.plan), words.Count(len(controls), "control unit")))
		}
	}
	g.man, err = g.newManifest()
	return err
}

// ErrPlan is wrapped by an assignment that cannot be made as asked (more
// overlap than annotators, say): the command line is at fault.
var ErrPlan = errors.New("cannot share out the instances")

// check decides what happens to what a previous run made: the batches it
// finished are kept when this is the same study; anything else this run
// would replace needs Force, and workbooks that hold answers need
// DiscardAnswers too. It returns the batches to keep.
func (g *generation) check(ctx context.Context, prev *manifest.Manifest) (map[string]manifest.Batch, error) {
	same := prev != nil && prev.Format == g.format && g.samePlan(prev)
	if prev != nil && !same && !g.opt.Force {
		return nil, fmt.Errorf("%s: %w: it records another study (its template, inputs, annotators, seed, prefill or controls differ)", g.path, atomicfile.ErrExists)
	}
	kept := map[string]manifest.Batch{}
	// In the way: the previous run's workbooks that this run replaces
	// (or leaves behind), and other files where this run's go.
	var there []*manifest.Batch
	// Another backend's workbooks, which this run's cannot read: whether
	// they hold answers cannot be told, and the manifest that leads to
	// them is replaced.
	var foreign []*manifest.Batch
	var unrecorded []*manifest.Batch
	listed := map[string]bool{}
	if prev != nil {
		for i := range prev.Batches {
			b := &prev.Batches[i]
			if prev.Format != g.format {
				if g.made(b) {
					foreign = append(foreign, b)
				}
				continue
			}
			listed[b.File] = b.File != ""
			ok, err := g.exists(ctx, b)
			if err != nil {
				return nil, err
			}
			switch {
			case !ok:
			case same && !g.opt.Force && g.finished(b):
				kept[b.ID] = *b
			case same && !g.opt.Force && b.Spreadsheet == nil:
				// A file the previous run made but had not recorded
				// when it was killed: made again, once it is known to
				// hold no answers.
				unrecorded = append(unrecorded, b)
			case same && !g.opt.Force:
				// Left unfinished: this run finishes it in place.
			default:
				there = append(there, b)
			}
		}
	}
	for i := range g.plan {
		mb := &g.man.Batches[i]
		if _, ok := kept[mb.ID]; ok {
			continue
		}
		g.place(mb)
		if mb.File == "" || listed[mb.File] {
			continue
		}
		ok, err := g.exists(ctx, mb)
		if err != nil {
			return nil, err
		}
		if ok {
			there = append(there, &manifest.Batch{ID: mb.ID, File: mb.File})
		}
	}
	if same && !g.opt.Force && len(kept) == len(g.plan) {
		noun := "workbook"
		if g.format == FormatGSheets {
			noun = "spreadsheet"
		}
		made := fmt.Sprintf("all %d %ss of this study are made", len(kept), noun)
		if len(kept) == 1 {
			made = "the one " + noun + " of this study is made"
		}
		return nil, fmt.Errorf("%s: %w: %s", g.path, atomicfile.ErrExists, made)
	}
	if len(there) > 0 && !g.opt.Force {
		var names []string
		for _, b := range there {
			names = append(names, g.where(b))
		}
		return nil, fmt.Errorf("%s: %w", strings.Join(names, ", "), atomicfile.ErrExists)
	}
	// The version of every workbook this run replaces is taken before
	// any is read: one saved while the run goes on is not replaced.
	g.vers = versions{}
	if prev != nil && prev.Format == g.format {
		for i := range prev.Batches {
			if b := &prev.Batches[i]; kept[b.ID].ID == "" {
				if err := g.vers.take(ctx, g.w, g.location(b)); err != nil {
					return nil, err
				}
			}
		}
	}
	for i := range g.plan {
		mb := &g.man.Batches[i]
		if _, ok := kept[mb.ID]; ok {
			continue
		}
		if _, ok := g.vers[g.location(mb)]; !ok {
			if err := g.vers.take(ctx, g.w, g.location(mb)); err != nil {
				return nil, err
			}
		}
	}
	if g.opt.DiscardAnswers {
		return kept, nil
	}
	if len(foreign) > 0 {
		var names []string
		for _, b := range foreign {
			names = append(names, g.where(b))
		}
		return nil, fmt.Errorf("%s: %w: of the study of %s workbooks this run replaces, which it cannot read", strings.Join(names, ", "), ErrUnknownAnswers, prev.Format)
	}
	var answered []string
	total := 0
	for _, b := range append(there, unrecorded...) {
		n, err := g.answered(ctx, b)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			answered = append(answered, fmt.Sprintf("%s holds answers for %s", g.where(b), words.Count(n, "unit")))
			total += n
		}
	}
	if total > 0 {
		return nil, answeredError(strings.Join(answered, "; "))
	}
	return kept, nil
}

// exists says whether a batch's workbook, as the manifest records it, is
// there (a recorded spreadsheet on another API than the one in use is an
// error).
func (g *generation) exists(ctx context.Context, b *manifest.Batch) (bool, error) {
	if sp := b.Spreadsheet; sp != nil && sp.Endpoint != g.opt.Endpoint {
		return false, &EndpointError{Spreadsheet: sp.URL, Recorded: sp.Endpoint, Used: g.opt.Endpoint}
	}
	at := g.location(b)
	if at.Path == "" && at.ID == "" {
		return false, nil
	}
	return g.w.Exists(ctx, at)
}

// made says whether a previous run of another format made a batch's
// workbook: a spreadsheet it recorded, or a file still there.
func (g *generation) made(b *manifest.Batch) bool {
	if b.Spreadsheet != nil {
		return b.Spreadsheet.ID != ""
	}
	if b.File == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(g.opt.Dir, b.File))
	return err == nil
}

// location is where a batch's workbook is, or goes.
func (g *generation) location(b *manifest.Batch) backend.Location {
	if sp := b.Spreadsheet; sp != nil {
		return backend.Location{Kind: backend.KindGSheets, ID: sp.ID, URL: sp.URL, Endpoint: sp.Endpoint}
	}
	if g.format == FormatXLSX && b.File != "" {
		return backend.Location{Kind: backend.KindXLSX, Path: filepath.Join(g.opt.Dir, b.File)}
	}
	return backend.Location{Kind: g.format}
}

// sharedWith is who gets a batch's spreadsheet besides those every
// spreadsheet goes to: its annotator, when the ID is an email address.
func sharedWith(b *manifest.Batch) []string {
	if strings.Contains(b.Annotator, "@") {
		return []string{b.Annotator}
	}
	return nil
}

// finished says whether a previous run finished a batch's workbook: a
// spreadsheet it marked complete, a file whose rows it recorded (or the
// one workbook of a study without instances, which has none).
func (g *generation) finished(b *manifest.Batch) bool {
	if b.Spreadsheet != nil {
		return b.Spreadsheet.Status == manifest.Complete
	}
	return b.Rows > 0 || g.emptyBatch(b.ID)
}

// emptyBatch says whether the plan's batch id has no instances.
func (g *generation) emptyBatch(id string) bool {
	for _, b := range g.plan {
		if b.ID == id {
			return len(b.Items) == 0
		}
	}
	return false
}

// where names a batch's workbook in messages.
func (g *generation) where(b *manifest.Batch) string {
	if b.Spreadsheet != nil {
		return b.Spreadsheet.URL
	}
	return filepath.Join(g.opt.Dir, b.File)
}

// answered counts the units a workbook holds answers for. A workbook that
// cannot be read is an error: never "nothing to lose".
func (g *generation) answered(ctx context.Context, b *manifest.Batch) (int, error) {
	grid, closeFn, err := g.w.Open(ctx, g.location(b))
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w: %w", g.where(b), ErrUnknownAnswers, err)
	}
	p, err := decode.Pull(grid, decode.PullOptions{})
	if cerr := closeFn(); cerr != nil && err == nil {
		return 0, fmt.Errorf("%s: %w: %w", g.where(b), ErrUnknownAnswers, cerr)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w: %w", g.where(b), ErrUnknownAnswers, unprefixed(err, grid.Name))
	}
	n := 0
	for _, r := range p.Records {
		if answered(r) {
			n++
		}
	}
	return n, nil
}

// place says where a batch's workbook goes when it is a file.
func (g *generation) place(mb *manifest.Batch) {
	if g.format == FormatXLSX {
		mb.File = fmt.Sprintf("%s-%s.xlsx", g.t.Name, mb.ID)
	}
}

// Formats of a study's workbooks, as the manifest names them: the kinds
// of their backends.
const (
	FormatXLSX    = backend.KindXLSX
	FormatGSheets = backend.KindGSheets
)

// saveRatio is how many times as long as saving the manifest took the
// batches made since must take before it is saved again (see write).
const saveRatio = 10

// write makes every batch's workbook, saving the manifest as they come
// into being, so that a failure at any point loses track of nothing.
func (g *generation) write(ctx context.Context, prev *manifest.Manifest, kept map[string]manifest.Batch) error {
	// saved says whether this run has saved the manifest; ours, whether
	// the manifest in the folder is this study's, holding its ID (a
	// previous run's of the same study is).
	saved, ours := false, prev != nil && prev.Study == g.study
	// The manifest lists every unit of the study, so saving it costs
	// more as the study grows: after a batch, it is saved once making
	// the batches since the last save took saveRatio times as long as
	// that save, and before write returns, whatever ends it. A run killed
	// outright leaves the workbooks made since unrecorded; the next run
	// makes them again, once it has checked that they hold no answers
	// (see previous).
	var lastSave time.Duration
	sinceSave, pending := time.Now(), false
	save := func() error {
		start := time.Now()
		if err := g.mfile.write(g.man.Encode); err != nil {
			return fmt.Errorf("write %s: %w", g.path, err)
		}
		saved, ours, pending = true, true, false
		sinceSave = time.Now()
		lastSave = sinceSave.Sub(start)
		return nil
	}
	saveSoon := func() error {
		if g.format == FormatGSheets {
			// A spreadsheet is shared, and may be answered, as soon as
			// it is written: it is marked complete at once, so that no
			// later run finishes it in place over its answers.
			return save()
		}
		ratio := float64(saveRatio)
		if g.opt.saveRatio != 0 {
			ratio = g.opt.saveRatio
		}
		if float64(time.Since(sinceSave)) < ratio*float64(lastSave) {
			pending = true
			return nil
		}
		return save()
	}
	// failed saves what is made before giving err.
	failed := func(err error) error {
		if !pending {
			return err
		}
		if serr := save(); serr != nil {
			return errors.Join(err, serr)
		}
		return err
	}
	before := map[string]manifest.Batch{}
	if prev != nil {
		for _, b := range prev.Batches {
			before[b.ID] = b
		}
	}
	step := func(int) {}
	if g.opt.Progress != nil {
		step = g.opt.Progress(g.rows())
	}
	made := 0
	// stopped says what an interrupted run leaves: the workbooks made,
	// recorded in the manifest, so that the same command goes on.
	stopped := func(err error) error {
		if made == 0 && len(kept) == 0 && !saved {
			return fmt.Errorf("interrupted (%w): no workbook was made", err)
		}
		if serr := save(); serr != nil {
			return fmt.Errorf("interrupted (%w): %d of %d workbooks are made, and the manifest that records them could not be saved: %w", err, made+len(kept), len(g.plan), serr)
		}
		return fmt.Errorf("interrupted (%w): %d of %d workbooks are made and recorded in %s; the same command makes the rest", err, made+len(kept), len(g.plan), g.path)
	}
	// The batch being made, whose rows its build keeps in temporary
	// files until it is written.
	var res *layout.Result
	defer func() { res.Close() }()
	// The batches kept are in the manifest from the first save on, not
	// only once the loop reaches them: a save part way must not leave
	// them out.
	for i, b := range g.plan {
		if k, ok := kept[b.ID]; ok {
			g.man.Batches[i] = k
		}
	}
	for i, b := range g.plan {
		if err := ctx.Err(); err != nil {
			return stopped(err)
		}
		mb := &g.man.Batches[i]
		if k, ok := kept[b.ID]; ok {
			*mb = k
			g.opt.Note(fmt.Sprintf("kept %s (batch %s)", g.where(mb), b.ID))
			continue
		}
		var err error
		if res, err = g.build(ctx, b); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return stopped(ctxErr)
			}
			return failed(err)
		}
		// Its rows are recorded once it is made: an interrupted run's
		// manifest must not count the rows of a workbook not there.
		mb.Units = nil
		for _, u := range res.Units {
			mb.Units = append(mb.Units, manifest.Unit{ID: u.ID, Item: u.Item})
		}
		if old := before[b.ID].Spreadsheet; old != nil && g.format == FormatGSheets {
			// Rewritten in place, keeping its link.
			mb.Spreadsheet = old
			if old.Status == manifest.Complete {
				g.opt.Note("rewriting " + old.URL)
			} else {
				g.opt.Note("finishing " + old.URL)
			}
		}
		if g.format == FormatGSheets && mb.Spreadsheet == nil && !ours {
			// The study's ID, which tags the spreadsheet about to be
			// made, is kept before it is made: when the answer to its
			// creation is lost and the run stopped, the next run finds
			// it by that tag.
			if err := save(); err != nil {
				return failed(err)
			}
		}
		share := sharedWith(mb)
		at, err := g.w.Write(ctx, counted(ctx, res.Plan, step), g.location(mb), backend.WriteOptions{Share: share,
			// The study's batch: a spreadsheet made for it by a run
			// stopped before its creation was answered is found and
			// finished, not made again.
			Tag: g.study + "/" + b.ID,
			// What this run read there: an answer saved since is not
			// replaced.
			Expect: g.vers.expect(g.location(mb)),
			// Recorded before anything else can fail, so that the next
			// run finishes this workbook instead of making another.
			Created: func(at backend.Location) error {
				if at.Kind == backend.KindGSheets && at.ID != "" && (mb.Spreadsheet == nil || mb.Spreadsheet.ID != at.ID) {
					mb.Spreadsheet = &manifest.Spreadsheet{ID: at.ID, URL: at.URL, Status: manifest.Incomplete, Endpoint: at.Endpoint}
					g.opt.Note("created " + at.URL)
					return save()
				}
				return nil
			}})
		res.Close()
		if errors.Is(err, backend.ErrNotFound) {
			return failed(fmt.Errorf("%w\n(recorded in %s: move it away to start afresh)", err, g.path))
		}
		if ctxErr := ctx.Err(); err != nil && ctxErr != nil {
			return stopped(ctxErr)
		}
		if err != nil {
			return failed(err)
		}
		mb.Rows = res.Rows
		if at.Kind == backend.KindGSheets {
			if mb.Spreadsheet == nil {
				mb.Spreadsheet = &manifest.Spreadsheet{ID: at.ID, Endpoint: at.Endpoint}
			}
			mb.Spreadsheet.URL, mb.Spreadsheet.Status = at.URL, manifest.Complete
		}
		if err := saveSoon(); err != nil {
			return err
		}
		made++
		g.opt.Wrote(at.String(), mb, share)
	}
	return save()
}

// opaque is the study's key of opaque IDs, indexed for the batches.
func (g *generation) opaque() *layout.OpaqueIndex {
	if g.opaqueIdx == nil {
		g.opaqueIdx = layout.IndexOpaqueIDs(g.all.OpaqueIDs)
	}
	return g.opaqueIdx
}

// build renders one batch's plan: the whole study's when it is one shared
// workbook, already checked and laid out.
func (g *generation) build(ctx context.Context, b assign.Batch) (*layout.Result, error) {
	if len(g.plan) == 1 && b.Annotator == "" && b.ID == g.opt.Batch && g.all.Plan != nil {
		return g.all, nil
	}
	picked := make(map[string]bool, len(b.Items))
	records := make([]int, 0, len(b.Items))
	for _, it := range b.Items {
		picked[it] = true
		records = append(records, g.record[it])
	}
	// Only the batch's records are read again (every record was checked
	// by begin), in the batch's order when control units are placed in it.
	src := g.src.Subset(records)
	if g.controls != nil {
		src = g.src.Ordered(records)
	}
	return layout.Build(ctx, g.t, src, layout.Options{
		Batch: b.ID, Study: g.study, CellLimit: g.w.Limits().CellChars, Seed: g.opt.Seed,
		Keys: g.all.Keys, Items: func(item string) bool { return picked[item] }, Annotator: b.Annotator, OpaqueIDs: g.all.OpaqueIDs, OpaqueIndex: g.opaque(),
		Prefill: g.prefill, PrefillAs: g.opt.PrefillAs,
	})
}

// rows counts the sheet rows the plan writes, for progress.
func (g *generation) rows() int64 {
	per := map[string]int{}
	for _, u := range g.all.Units {
		per[u.Item] += u.Rows
	}
	var n int64
	for _, b := range g.plan {
		for _, it := range b.Items {
			n += int64(per[it])
		}
	}
	return n
}

// counted reports each row of the Annotate sheet as it is written, and
// stops the writing when ctx is done (Ctrl-C in the middle of a large
// workbook): in the rows of every sheet, as the Read sheet of long texts
// and the metadata sheet of many units take long too.
func counted(ctx context.Context, p *backend.Plan, step func(int)) *backend.Plan {
	out := *p
	out.Sheets = slices.Clone(p.Sheets)
	for i, sh := range out.Sheets {
		if sh.Rows == nil {
			continue
		}
		c := *sh
		rows, annotate := sh.Rows, sh.Name == backend.SheetAnnotate
		c.Rows = func(emit func(backend.Row) error) error {
			first := true
			return rows(func(r backend.Row) error {
				// Every row: a row of long texts takes milliseconds,
				// a look at ctx nanoseconds, and a few hundred rows
				// could keep Ctrl-C waiting for seconds.
				if err := ctx.Err(); err != nil {
					return err
				}
				if annotate && !first {
					step(1)
				}
				first = false
				return emit(r)
			})
		}
		out.Sheets[i] = &c
	}
	return &out
}

// newManifest is the study's record, with a batch for every workbook
// planned (filled in as each is made).
func (g *generation) newManifest() (*manifest.Manifest, error) {
	opt, res := g.opt, g.all
	m := &manifest.Manifest{
		Schema:  manifest.Schema,
		Study:   g.study,
		Created: opt.Now.UTC().Format(time.RFC3339),
		Format:  g.format,
		Template: manifest.Template{
			Name: g.t.Name, Version: g.t.Version, SHA256: g.t.Hash(),
			Params: g.t.ParamValues(), Source: string(g.t.Source),
		},
		InputArgs:   relativeTo(opt.Dir, opt.Inputs),
		InputFormat: opt.Input.Format, InputSheet: opt.Input.Sheet,
		Dir:        absDir(opt.Dir),
		Seed:       opt.Seed,
		Assignment: &manifest.Assignment{Annotators: opt.Annotators, Overlap: max(opt.Overlap, 1), BatchSize: opt.BatchSize},
		Keys:       res.Keys,
		Orders:     res.Orders,
	}
	if len(m.Keys) == 0 {
		m.Keys = nil
	}
	m.OpaqueIDs = res.OpaqueIDs
	if g.controls != nil {
		var err error
		if m.Controls, err = g.controlsManifest(); err != nil {
			return nil, err
		}
	}
	if g.prefill != nil {
		in, err := manifest.HashFile(opt.Prefill)
		if err != nil {
			return nil, err
		}
		in.Path = relativeTo(opt.Dir, []string{opt.Prefill})[0]
		m.Prefill = &manifest.Prefill{Input: in, Annotator: g.prefill.Annotator, As: layout.PrefillMode(opt.PrefillAs), Units: g.prefill.Len()}
	}
	for _, f := range g.src.Files() {
		in, err := manifest.HashFile(f)
		if err != nil {
			return nil, err
		}
		in.Path = relativeTo(opt.Dir, []string{f})[0]
		m.Inputs = append(m.Inputs, in)
	}
	// Every batch's units are known before any workbook is made, so that a
	// batch never made still counts its units as missing.
	unitsOf := map[string][]manifest.Unit{}
	for _, u := range res.Units {
		unitsOf[u.Item] = append(unitsOf[u.Item], manifest.Unit{ID: u.ID, Item: u.Item})
	}
	var files []string
	for _, b := range g.plan {
		mb := manifest.Batch{ID: b.ID, Annotator: b.Annotator, Controls: b.Controls}
		for _, it := range b.Items {
			mb.Units = append(mb.Units, unitsOf[it]...)
		}
		m.Batches = append(m.Batches, mb)
		g.place(&mb)
		files = append(files, mb.File)
	}
	// Every workbook a file of its own, on any file system.
	if err := filename.Unique(files); g.format == FormatXLSX && err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPlan, err)
	}
	return m, nil
}

// relativeTo writes paths relative to the study's folder, so that the
// study still finds its inputs when the folder and its inputs move
// together; a path that cannot be made relative stays absolute.
func relativeTo(dir string, paths []string) []string {
	out := make([]string, len(paths))
	absDir, errDir := filepath.Abs(dir)
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		out[i] = abs
		if err != nil {
			out[i] = p
			continue
		}
		if errDir == nil {
			if rel, err := filepath.Rel(absDir, abs); err == nil {
				out[i] = filepath.ToSlash(rel)
			}
		}
	}
	return out
}

// absDir is a folder's absolute path, with forward slashes.
func absDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(abs)
}

// samePlan reports whether a previous run's manifest is of this very
// study: the same template, inputs, assignment and seed.
func (g *generation) samePlan(prev *manifest.Manifest) bool {
	opt := g.opt
	if prev.Template.SHA256 != g.t.Hash() || opt.SeedSet && opt.Seed != prev.Seed {
		return false
	}
	a := prev.Assignment
	if a == nil {
		a = &manifest.Assignment{Overlap: 1}
	}
	if !slices.Equal(a.Annotators, opt.Annotators) || a.Overlap != max(opt.Overlap, 1) || a.BatchSize != opt.BatchSize {
		return false
	}
	if len(prev.Batches) == 1 && prev.Batches[0].Annotator == "" && prev.Batches[0].ID != opt.Batch && opt.BatchSize == 0 && len(opt.Annotators) == 0 {
		return false
	}
	if (opt.Prefill != "") != (prev.Prefill != nil) {
		return false
	}
	if opt.Prefill != "" {
		in, err := manifest.HashFile(opt.Prefill)
		if err != nil || in.SHA256 != prev.Prefill.SHA256 || opt.PrefillAnnotator != "" && opt.PrefillAnnotator != prev.Prefill.Annotator || layout.PrefillMode(opt.PrefillAs) != prev.Prefill.As {
			return false
		}
	}
	if !g.sameControls(prev) {
		return false
	}
	files := g.src.Files()
	if len(files) != len(prev.Inputs) {
		return false
	}
	for i, f := range files {
		in, err := manifest.HashFile(f)
		if err != nil || in.SHA256 != prev.Inputs[i].SHA256 {
			return false
		}
	}
	return true
}

func newStudyID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}
