package main

import (
	"context"
	"fmt"
	"io"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/internal/progress"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
	"github.com/urfave/cli/v2"
)

// recordsFrom is what a command that reads records is told of them.
type recordsFrom struct {
	Sources []string
	// Template and Params are --template and --param.
	Template string
	Params   map[string]string
	// Manifest is the study's manifest given beside files of records.
	Manifest *study.Manifest
	// Files are sources read as files of records whatever their names.
	Files  []string
	Google googleOptions
	// Problems prints the pull's problems (printProblems when nil).
	Problems func(io.Writer, records.Problems)
}

// recordFlags are the flags of a command that reads records, then the
// template of records whose template annosheet cannot tell, its
// parameters, and Google's.
func recordFlags(flags ...cli.Flag) []cli.Flag {
	return append(append(flags,
		&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "template `NAME|FILE` of the records, when it is not built in and no manifest names it"},
		&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`, as given to generate"},
	), googleFlags()...)
}

// sourcesOf reads recordFlags; the command's arguments are its sources.
func sourcesOf(c *cli.Context) (recordsFrom, error) {
	params, err := cliargs.Params(c, "param")
	return recordsFrom{Sources: c.Args().Slice(), Template: c.String("template"), Params: params, Google: googleFrom(c)}, err
}

// loaded is what loadRecords read, with the study's manifest when a
// source or --manifest named one, and the pull when there was one.
type loaded struct {
	*records.Loaded
	Manifest *study.Manifest
	Pulled   *study.Result
}

// loadRecords reads the records the sources name (records.Load): files
// of records read, the rest pulled as pull would, with a progress bar;
// copies kept once are named on stderr.
func loadRecords(ctx context.Context, from recordsFrom, stderr io.Writer) (*loaded, error) {
	opt := records.LoadOptions{Params: from.Params, Files: from.Files}
	if from.Template != "" {
		t, err := input.Template(from.Template, from.Params)
		if err != nil {
			return nil, err
		}
		opt.Template = t
	}
	if from.Manifest != nil {
		s, err := from.Manifest.ForRecords(from.Params, opt.Template != nil)
		if err != nil {
			return nil, err
		}
		opt.Study = s
	}
	print := from.Problems
	if print == nil {
		print = printProblems
	}
	p := &study.Puller{Backends: backends(from.Google, stderr), Params: from.Params, TemplateGiven: opt.Template != nil, Problems: func(ps records.Problems) { print(stderr, ps) }}
	var finish func()
	p.Options.Progress, finish = workbookBar(stderr)
	opt.Pull = p
	l, err := records.Load(ctx, from.Sources, opt)
	finish()
	if err != nil {
		return nil, endpointUsage(err)
	}
	for _, d := range l.Duplicates {
		fmt.Fprintln(stderr, "warning: "+d.String())
	}
	out := &loaded{Loaded: l, Manifest: from.Manifest, Pulled: p.Result}
	if p.Sources != nil && len(p.Sources.Manifests) > 0 {
		out.Manifest = p.Sources.Manifests[0]
	}
	return out, nil
}

// readGold reads the gold set of --against or --gold for records of t
// (study.ReadGold), naming copies kept once on stderr.
func readGold(ctx context.Context, path string, t *templates.Template, key map[string]string, google googleOptions, stderr io.Writer) (*study.Gold, error) {
	g, dups, err := study.ReadGold(ctx, path, t, key, backends(google, stderr))
	if err != nil {
		return nil, endpointUsage(err)
	}
	for _, d := range dups {
		fmt.Fprintln(stderr, "warning: "+d.String())
	}
	return g, nil
}

// key is the study's key of opaque IDs, when there is one.
func (l *loaded) key() map[string]string {
	if l.Study == nil {
		return nil
	}
	return l.Study.OpaqueIDs
}

// workbookBar is a progress bar of the workbooks a pull reads, drawn once
// the pull says how many there are, for PullOptions.Progress; finish
// clears it.
func workbookBar(stderr io.Writer) (add func(done, total int), finish func()) {
	var bar progress.Bar
	add = func(_, total int) {
		if bar == nil {
			bar = progress.New(stderr, int64(total), "reading workbooks")
		}
		bar.Add(1)
	}
	return add, func() {
		if bar != nil {
			bar.Finish()
		}
	}
}
