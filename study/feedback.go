package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/filename"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// FeedbackOptions say what an annotator's feedback shows and where it
// goes.
type FeedbackOptions struct {
	// Dir is the folder the feedback workbooks are written to.
	Dir string
	// Records are the annotators' records, to find the answers a
	// majority outvoted (--min-agreement); nil shows only what the
	// adjudicators decided.
	Records []*records.Annotation
	// Items are the study's input records, for the context shown beside
	// each row; nil shows none. Shown maps a unit to the ID its
	// annotators saw (opaque IDs); nil shows the unit's own.
	Items []*layout.SourceItem
	Shown func(unit string) string
	// Force replaces the feedback workbooks already in Dir; without it,
	// any there that this run would write is an error naming them
	// (atomicfile.ErrExists), and nothing is written.
	Force bool
	// Reload, when Records is nil, reads the annotators' records again
	// from the sources the adjudication names (beside its folder), for an
	// adjudication that accepted answers by a majority: those keep no
	// trace of who was outvoted. A source it cannot read is a warning.
	Reload func(sources []string) ([]*records.Annotation, error)
	// Warn is told of what the feedback shows less of than it could: the
	// study's context or the outvoted answers, when they cannot be read.
	Warn func(string)
}

// FeedbackWritten is one annotator's feedback workbook.
type FeedbackWritten struct {
	Annotator string
	Location  string
	Rows      int
}

// Feedbacks is what a feedback run did.
type Feedbacks struct {
	Written []FeedbackWritten
	// None are the annotators with no corrected answer, who get no
	// workbook.
	None []string
	// Problems are those of the adjudication workbooks as read.
	Problems records.Problems
}

// Feedback writes each annotator of an adjudication (its folder or
// manifest) a workbook of their answers that the gold set corrects,
// read-only, named feedback-ANNOTATOR.xlsx in opt.Dir.
func Feedback(ctx context.Context, path string, opt FeedbackOptions, read Backends, store backend.Store) (*Feedbacks, error) {
	// Each annotator's workbook is where their ID, made a file name,
	// says; its version is taken before anything is read, and it is
	// replaced only while it is still that (someone may have it open).
	places := map[string]backend.Location{}
	vers := versions{}
	before := func(m *adjudicate.Manifest) error {
		parts, err := filename.Parts(m.Annotators)
		if err != nil {
			return fmt.Errorf("%s: %w: annotator IDs: %w", path, ErrAdjudication, err)
		}
		for _, who := range m.Annotators {
			at := backend.Location{Kind: backend.KindXLSX, Path: filepath.Join(opt.Dir, "feedback-"+parts[who]+".xlsx")}
			if store.Limits().Kind == backend.KindGSheets {
				at = backend.Location{Kind: backend.KindGSheets}
			}
			places[who] = at
			if err := vers.take(ctx, store, at); err != nil {
				return err
			}
		}
		return nil
	}
	a, err := openAdjudication(ctx, path, read, before)
	if err != nil {
		return nil, err
	}
	t, m := a.template, a.manifest
	opt.context(a)
	byAnnotator := adjudicate.Corrections(t, m, a.decided, opt.Records)
	if !opt.Force {
		var there []string
		for _, who := range m.Annotators {
			if at := places[who]; len(byAnnotator[who]) > 0 && vers[at] != "" {
				there = append(there, at.String())
			}
		}
		if len(there) > 0 {
			return nil, fmt.Errorf("%s: %w", strings.Join(there, ", "), atomicfile.ErrExists)
		}
	}
	var context func(string) map[string]string
	if len(opt.Items) > 0 {
		contexts := map[string]map[string]string{}
		for _, it := range opt.Items {
			for u, c := range it.Context {
				contexts[u] = c
			}
		}
		context = func(u string) map[string]string { return contexts[u] }
	}
	res := &Feedbacks{Problems: a.problems}
	for _, who := range m.Annotators {
		cs := byAnnotator[who]
		if len(cs) == 0 {
			res.None = append(res.None, who)
			continue
		}
		plan := adjudicate.FeedbackPlan(&adjudicate.Feedback{
			Template: t, Annotator: who, Others: m.Annotators, Corrections: cs,
			Context: context, Shown: opt.Shown, Limits: store.Limits(),
		})
		at := places[who]
		if at.Kind == backend.KindXLSX {
			// Made only once there is something to write in it: a run
			// that cannot read the adjudication, or corrects nobody,
			// leaves nothing behind.
			if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
				return nil, err
			}
		}
		loc, err := store.Write(ctx, plan, at, backend.WriteOptions{Tag: m.ID + "/feedback/" + who, Expect: vers.expect(at)})
		if err != nil {
			return nil, err
		}
		res.Written = append(res.Written, FeedbackWritten{Annotator: who, Location: loc.String(), Rows: len(cs)})
	}
	return res, nil
}

// context completes what opt leaves out and the adjudication names: the
// study's context for the rows, and the annotators' records.
func (opt *FeedbackOptions) context(a *adjudication) {
	warn := opt.Warn
	if warn == nil {
		warn = func(string) {}
	}
	dir, m := filepath.Dir(a.path), a.manifest
	if opt.Items == nil && m.Study != "" {
		if man, err := OpenManifest(besideAdjudication(dir, m.Study)); err != nil {
			warn(fmt.Sprintf("%s: the study's manifest %s cannot be read (%v): the rows show no context and the units' own IDs", a.path, m.Study, err))
		} else {
			var err error
			if opt.Items, opt.Shown, err = man.Context(a.template); err != nil {
				warn(fmt.Sprintf("%s: the study's inputs cannot be read (%v): the rows show no context", man.Path, err))
			}
		}
	}
	if m.MinAgreement > 0 && opt.Records == nil && opt.Reload != nil {
		var sources []string
		for _, s := range m.Sources {
			sources = append(sources, besideAdjudication(dir, s))
		}
		recs, err := opt.Reload(sources)
		if err != nil {
			warn(fmt.Sprintf("the annotators' records cannot be read again (%v): the feedback shows only what the adjudicators decided, not the answers a majority outvoted", err))
		}
		opt.Records = recs
	}
}

// besideAdjudication is a path an adjudication's manifest records,
// relative to its folder; one that is not there (a link) as recorded.
func besideAdjudication(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	j := filepath.Join(dir, filepath.FromSlash(p))
	if _, err := os.Stat(j); err != nil {
		return p
	}
	return j
}
