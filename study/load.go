package study

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrNothingRead is returned by a pull that read no workbook: every
// source was refused, for the reasons its problems give.
var ErrNothingRead = errors.New("no workbook was read: every source was refused (see above)")

// ErrCopiesDisagree is returned by a Puller whose pull found copies of a
// batch that answer a unit differently.
var ErrCopiesDisagree = errors.New("answered differently by copies of their batch")

// Puller pulls what records.Load does not read itself (study folders and
// manifests, workbooks, spreadsheet links), as pull does, and keeps what
// the pull found for its caller.
type Puller struct {
	Backends Backends
	Options  PullOptions
	// Params are given to the study's template, as they were to generate.
	Params map[string]string
	// TemplateGiven says the caller reads the records with a template of
	// its own: the study's is not loaded (nor given Params).
	TemplateGiven bool
	// Problems, when set, is given the pull's problems once it has them,
	// before anything else can fail.
	Problems func(records.Problems)
	// Result and Sources are the last pull's.
	Result  *Result
	Sources *Sources
}

// Pull opens and pulls the sources.
func (p *Puller) Pull(ctx context.Context, sources []string) (*records.Pulled, error) {
	res, src, err := PullSources(ctx, sources, p.Backends, p.Options)
	if res != nil && p.Problems != nil {
		p.Problems(res.Problems)
	}
	if err != nil {
		return nil, err
	}
	p.Result, p.Sources = res, src
	if len(res.Conflicts) > 0 {
		return nil, fmt.Errorf("%s %w (see above); keep only the current copy of each batch, then run the command again", words.Count(len(res.Conflicts), "unit"), ErrCopiesDisagree)
	}
	out := &records.Pulled{Records: res.Records}
	if len(src.Manifests) > 0 {
		if out.Study, err = src.Manifests[0].ForRecords(p.Params, p.TemplateGiven); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ForRecords is what records need of the study: its key of opaque IDs,
// its control units, and its template, with params given over those
// generate was given, unless the records are read with a template given
// (templateGiven): then the study's is not loaded, nor given params meant
// for the other.
func (m *Manifest) ForRecords(params map[string]string, templateGiven bool) (*records.Study, error) {
	var controls map[string]bool
	if m.Controls != nil {
		controls = make(map[string]bool, len(m.Controls.Units))
		for _, u := range m.Controls.Units {
			controls[u.Unit] = true
		}
	}
	if templateGiven {
		return &records.Study{Name: m.Path, OpaqueIDs: m.OpaqueIDs, Controls: controls}, nil
	}
	all := maps.Clone(m.Template.Params)
	if all == nil {
		all = map[string]string{}
	}
	maps.Copy(all, params)
	t, err := templates.LoadWithParams(m.Path+" (template)", []byte(m.Template.Source), all)
	if err != nil {
		return nil, err
	}
	return &records.Study{Name: m.Path, Template: t, OpaqueIDs: m.OpaqueIDs, Controls: controls}, nil
}

// ReadGold reads a gold set for records of template t: the pull of an
// adjudication (its folder or manifest), or the records that pull wrote
// from one, their opaque IDs restored with key when they keep them,
// identical copies kept once (and returned, to be named).
func ReadGold(ctx context.Context, path string, t *templates.Template, key map[string]string, b Backends) (*Gold, []records.Duplicate, error) {
	if dir, ok := AdjudicationDir([]string{path}); ok {
		// The adjudication itself: its pull is the gold set.
		g, err := PullGold(ctx, dir, b, "")
		if err != nil {
			return nil, nil, err
		}
		if g.Template.Name != t.Name || g.Template.Version != t.Version {
			return nil, nil, fmt.Errorf("%s: %w: it adjudicates template %s version %d; the sources are of %s version %d", path, ErrGold, g.Template.Name, g.Template.Version, t.Name, t.Version)
		}
		return &Gold{Name: path, Records: g.Records, Problems: g.Problems}, nil, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, nil, fmt.Errorf("%s: %w: a folder, and not an adjudication's: give the gold records that pull of an adjudication writes (or the adjudication's folder)", path, ErrGold)
	}
	recs, origins, err := records.ReadFile(ctx, path, func(id records.TemplateID) (*templates.Template, error) {
		if id.Name != "" && (id.Name != t.Name || id.Version != t.Version) {
			return nil, fmt.Errorf("%w: its records are of template %s version %d; the sources are of %s version %d", ErrGold, id.Name, id.Version, t.Name, t.Version)
		}
		return t, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if key != nil {
		if err := records.RestoreIDs(recs, key, origins); err != nil {
			return nil, nil, err
		}
	}
	recs, dups, err := records.Distinct(recs, origins)
	if err != nil {
		return nil, nil, err
	}
	return &Gold{Name: path, Records: recs, Origins: origins}, dups, nil
}

// AdjudicationDir reports whether sources name one adjudication (its
// folder, its manifest, or one of its workbooks), and gives its folder.
func AdjudicationDir(sources []string) (string, bool) {
	if len(sources) != 1 {
		return "", false
	}
	source := sources[0]
	dir := source
	if st, err := os.Stat(source); err != nil {
		return "", false
	} else if !st.IsDir() {
		if filepath.Base(source) != adjudicate.ManifestFile && !strings.EqualFold(filepath.Ext(source), ".xlsx") {
			return "", false
		}
		dir = filepath.Dir(source)
	}
	if _, err := os.Stat(filepath.Join(dir, adjudicate.ManifestFile)); err != nil {
		return "", false
	}
	return dir, true
}

// OpenManifest reads the study's manifest at path: a manifest.json, or
// the folder that holds one.
func OpenManifest(path string) (*Manifest, error) {
	src, err := Open([]string{path}, Backends{})
	if err != nil {
		return nil, err
	}
	if len(src.Manifests) == 0 {
		return nil, fmt.Errorf("%s: %w", path, manifest.ErrNotManifest)
	}
	return src.Manifests[0], nil
}

// Context is what a study's manifest lends the rows of an adjudication:
// its input records, for the context shown (nil, with err, when the
// inputs cannot be read), and the IDs the annotators saw (shown is nil
// when they saw the units' own).
func (m *Manifest) Context(t *templates.Template) (items []*layout.SourceItem, shown func(string) string, err error) {
	inputs, err := m.InputPaths()
	if err == nil {
		items, err = Items(t, inputs, m.InputOptions(), m.Keys)
	}
	if err != nil {
		items = nil
	}
	if len(m.OpaqueIDs) == 0 {
		return items, nil, err
	}
	opaque := map[string]string{}
	for o, real := range m.OpaqueIDs {
		opaque[real] = o
	}
	return items, func(u string) string {
		if o, ok := opaque[u]; ok {
			return o
		}
		return u
	}, err
}
