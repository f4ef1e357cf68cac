package study

import (
	"context"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/records"
)

// LoadOptions say how Load reads the records a user names.
type LoadOptions struct {
	// Template is the template the user named, a built-in's name or a
	// file, if any: the records are read with it, not the study's.
	Template string
	// Params are given to the template, as they were to generate.
	Params map[string]string
	// Manifest is the study's manifest when it is given beside files of
	// records; ManifestFile names it, to open before anything is read.
	Manifest     *Manifest
	ManifestFile string
	// Gold, when given, is a gold set to read for the records (ReadGold):
	// an adjudication, or the records pull wrote of one. Adjudication,
	// instead, is an adjudication whose pull is taken as the gold set as
	// it is (PullGold), its problems kept with it.
	Gold, Adjudication string
	// Files are sources read as files of records whatever their names.
	Files []string
	// Backends pull the sources that are not files of records.
	Backends Backends
	// Problems is given the pull's problems, once it has them.
	Problems func(records.Problems)
	// Progress is told of each workbook pulled (PullOptions.Progress).
	Progress func(done, total int)
	// Warn is told of each record given more than once, identically,
	// and kept once: the records' first, then the gold set's.
	Warn func(string)
	// IncludeControls keeps the records of control units among the
	// others (records.LoadOptions.IncludeControls).
	IncludeControls bool
}

// Loaded is what Load read: the records, with the study's manifest when a
// source or LoadOptions named one, and the pull when there was one.
type Loaded struct {
	*records.Loaded
	Manifest *Manifest
	Pulled   *Result
	// Gold is the gold set LoadOptions.Gold names.
	Gold *Gold
}

// Load reads the records that sources name as every command that reads
// records does (records.Load): files of records read, every other source
// (a study's folder or manifest, workbooks, spreadsheet links) pulled.
func Load(ctx context.Context, sources []string, opt LoadOptions) (*Loaded, error) {
	if opt.Manifest == nil && opt.ManifestFile != "" {
		m, err := OpenManifest(opt.ManifestFile)
		if err != nil {
			return nil, err
		}
		opt.Manifest = m
	}
	warn := func(dups []records.Duplicate) {
		for _, d := range dups {
			if opt.Warn != nil {
				opt.Warn(d.String())
			}
		}
	}
	lo := records.LoadOptions{Params: opt.Params, Files: opt.Files, IncludeControls: opt.IncludeControls}
	if opt.Template != "" {
		t, err := input.Template(opt.Template, opt.Params)
		if err != nil {
			return nil, err
		}
		lo.Template = t
	}
	if opt.Manifest != nil {
		s, err := opt.Manifest.ForRecords(opt.Params, lo.Template != nil)
		if err != nil {
			return nil, err
		}
		lo.Study = s
	}
	p := &Puller{Backends: opt.Backends, Params: opt.Params, TemplateGiven: lo.Template != nil, Problems: opt.Problems}
	p.Options.Progress = opt.Progress
	lo.Pull = p
	l, err := records.Load(ctx, sources, lo)
	if err != nil {
		return nil, err
	}
	warn(l.Duplicates)
	out := &Loaded{Loaded: l, Manifest: opt.Manifest, Pulled: p.Result}
	if p.Sources != nil && len(p.Sources.Manifests) > 0 {
		out.Manifest = p.Sources.Manifests[0]
	}
	switch {
	case opt.Gold != "":
		g, dups, err := ReadGold(ctx, opt.Gold, l.Template, out.Key(), opt.Backends)
		if err != nil {
			return nil, err
		}
		warn(dups)
		out.Gold = g
	case opt.Adjudication != "":
		g, err := PullGold(ctx, opt.Adjudication, opt.Backends, "")
		if err != nil {
			return nil, err
		}
		out.Gold = &Gold{Name: opt.Adjudication, Records: g.Records, Problems: g.Problems}
	}
	return out, nil
}

// Key is the study's key of opaque IDs, when there is one.
func (l *Loaded) Key() map[string]string {
	if l.Study == nil {
		return nil
	}
	return l.Study.OpaqueIDs
}
