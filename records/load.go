package records

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/templates"
)

// A Study is what records need of the study they are of: its template, as
// its manifest holds it, and its key of opaque IDs.
type Study struct {
	// Name is the study's manifest, for messages.
	Name     string
	Template *templates.Template
	// OpaqueIDs is the key from the opaque IDs workbooks show to the
	// real ones (nil when the study shows real IDs).
	OpaqueIDs map[string]string
	// Controls are the study's control units (generate --controls), which
	// only its manifest names: records pulled without it do not say so.
	Controls map[string]bool
}

// Pulled is what a Puller read.
type Pulled struct {
	Records []*Annotation
	// Study is the study a source named (its manifest or folder); nil
	// when the sources were workbooks or links alone.
	Study *Study
}

// A Puller reads the records of the sources that are not files of
// records: study folders and manifests, workbooks and spreadsheet links.
// Package study pulls them; the command line gives its puller to Load.
type Puller interface {
	Pull(ctx context.Context, sources []string) (*Pulled, error)
}

// LoadOptions say how Load finds records and their template.
type LoadOptions struct {
	// Template is the template the user named, if any; otherwise the
	// study's, or else the built-in the records name.
	Template *templates.Template
	// Params are given to the built-in template the records name.
	Params map[string]string
	// Study is the study the records are of, when it is named apart
	// from them (a manifest given beside files of records).
	Study *Study
	// Pull reads the sources that are not .jsonl files; nil refuses them.
	Pull Puller
	// Files are sources to read as files of records whatever their
	// names.
	Files []string
	// IncludeControls keeps the records of control units (generate
	// --controls) among the others; by default they are set apart in
	// Loaded.Controls, so that a study's agreement, results and exports
	// are of its own units.
	IncludeControls bool
}

// Loaded is what Load read: the records, every one of the template, with
// their real IDs and each kept once.
type Loaded struct {
	Template *templates.Template
	Records  []*Annotation
	// Origins name the records read from files by file and line.
	Origins Origins
	// Study is the study the records are of, when known.
	Study *Study
	// Duplicates are the records given more than once, identically:
	// kept once, and named so that the files can be put right.
	Duplicates []Duplicate
	// Controls are the records of control units, set apart from Records
	// unless LoadOptions.IncludeControls.
	Controls []*Annotation
}

// ErrMixedTemplates is wrapped by the error of sources whose records are
// of two templates.
var ErrMixedTemplates = errors.New("another template's records")

// ErrNoTemplate is wrapped by the error of records whose template is
// neither given, nor the study's, nor a built-in.
var ErrNoTemplate = errors.New("no template")

// ErrEmpty is wrapped, with ErrNoTemplate, when there is no record to
// name a template and none was given.
var ErrEmpty = errors.New("no records")

// ErrNotFile is wrapped when a source that is not a file of records is
// given where no Puller reads it.
var ErrNotFile = errors.New("not a file of records")

// IsFile reports whether a source names a file of records (.jsonl), which
// Load reads itself; every other source is pulled.
func IsFile(source string) bool {
	return strings.EqualFold(filepath.Ext(source), ".jsonl")
}

// Load reads the records that sources name, as every consumer of records
// sees them: files of records (.jsonl) read line by line within their
// budgets, every other source pulled by opt.Pull; all of one template,
// typed by it; opaque IDs given their real ones from the study's key;
// contradictory copies refused and identical ones kept once (Distinct).
func Load(ctx context.Context, sources []string, opt LoadOptions) (*Loaded, error) {
	var files, others []string
	for _, s := range sources {
		if IsFile(s) || slices.Contains(opt.Files, s) {
			files = append(files, s)
		} else {
			others = append(others, s)
		}
	}
	l := &loader{opt: opt, sources: sources, out: &Loaded{Origins: Origins{}, Study: opt.Study}}
	var all []*Annotation
	if len(others) > 0 {
		if opt.Pull == nil {
			return nil, fmt.Errorf("%s: %w", others[0], ErrNotFile)
		}
		p, err := opt.Pull.Pull(ctx, others)
		if err != nil {
			return nil, err
		}
		if p.Study != nil {
			l.out.Study = p.Study
		}
		if len(p.Records) > 0 {
			if _, err := l.resolve(p.Records[0].Template, strings.Join(others, ", ")); err != nil {
				return nil, fmt.Errorf("%s: %w", strings.Join(others, ", "), err)
			}
		}
		all = append(all, p.Records...)
	}
	for _, path := range files {
		recs, err := l.read(ctx, path)
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	if l.out.Template == nil {
		if _, err := l.resolve(TemplateID{}, ""); err != nil {
			return nil, err
		}
	}
	if s := l.out.Study; s != nil && s.OpaqueIDs != nil {
		if err := RestoreIDs(all, s.OpaqueIDs, l.out.Origins); err != nil {
			return nil, err
		}
	}
	if s := l.out.Study; s != nil {
		for _, r := range all {
			if s.Controls[r.Unit] {
				r.Control = true
			}
		}
	}
	// Copies are compared before any record is left out: leaving out a
	// partial copy would otherwise hide the other side of a
	// contradiction, and a record given twice would count twice.
	all, dups, err := Distinct(all, l.out.Origins)
	if err != nil {
		return nil, err
	}
	if !opt.IncludeControls {
		all, l.out.Controls = WithoutControls(all)
	}
	l.out.Records, l.out.Duplicates = all, dups
	return l.out, nil
}

// WithoutControls sets the records of control units apart from the
// others, each in the order given.
func WithoutControls(recs []*Annotation) (rest, controls []*Annotation) {
	rest = make([]*Annotation, 0, len(recs))
	for _, r := range recs {
		if r.Control {
			controls = append(controls, r)
		} else {
			rest = append(rest, r)
		}
	}
	return rest, controls
}

// loader is one Load: the template once known, and where it was named.
type loader struct {
	opt     LoadOptions
	sources []string
	out     *Loaded
	from    string // the source whose records named the template
}

// resolve gives the template of records that name id (zero when there is
// no record), read from where: the first call decides it, the others
// check that their records are of it.
func (l *loader) resolve(id TemplateID, where string) (*templates.Template, error) {
	if t := l.out.Template; t != nil {
		if id.Name != "" && (id.Name != t.Name || id.Version != t.Version) {
			return nil, fmt.Errorf("%w: its records are of template %s version %d, and those of %s of %s version %d; give the records of one template", ErrMixedTemplates, id.Name, id.Version, l.from, t.Name, t.Version)
		}
		return t, nil
	}
	var t *templates.Template
	switch {
	case l.opt.Template != nil:
		t = l.opt.Template
	case l.out.Study != nil && l.out.Study.Template != nil:
		t = l.out.Study.Template
	case id.Name != "":
		var err error
		if t, err = templates.BuiltinWithParams(id.Name, l.opt.Params); err != nil {
			return nil, noTemplate{err: err}
		}
	default:
		return nil, noTemplate{err: fmt.Errorf("%s: no records, and no template given", strings.Join(l.sources, ", ")), empty: true}
	}
	if id.Name != "" && (id.Name != t.Name || id.Version != t.Version) {
		return nil, fmt.Errorf("%w: the records are of template %s version %d, not %s version %d", ErrMixedTemplates, id.Name, id.Version, t.Name, t.Version)
	}
	l.out.Template, l.from = t, where
	return t, nil
}

// noTemplate is the error of records without a template: said as its
// cause says it, and ErrNoTemplate.
type noTemplate struct {
	err   error
	empty bool // no record named one either (ErrEmpty)
}

func (e noTemplate) Error() string { return e.err.Error() }
func (e noTemplate) Unwrap() []error {
	if e.empty {
		return []error{e.err, ErrNoTemplate, ErrEmpty}
	}
	return []error{e.err, ErrNoTemplate}
}

// read reads one file of records.
func (l *loader) read(ctx context.Context, path string) ([]*Annotation, error) {
	recs, origins, err := ReadFile(ctx, path, func(id TemplateID) (*templates.Template, error) { return l.resolve(id, path) })
	if err != nil {
		return nil, err
	}
	maps.Copy(l.out.Origins, origins)
	return recs, nil
}

// ReadFile is Read of the file at path, which stops being read when ctx
// ends (Ctrl-C on a large file). A path that is not a regular file (a
// named pipe, a device) is refused, never waited on.
func ReadFile(ctx context.Context, path string, template func(TemplateID) (*templates.Template, error)) ([]*Annotation, Origins, error) {
	f, err := boundedread.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return Read(ctxReader{ctx, f}, path, template)
}

// ctxReader reads r until ctx is done, then fails with ctx's error: a
// large file of records stops being read on Ctrl-C.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
