package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/ojson"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
)

type exportOptions struct {
	Annotations string
	Native      bool
	Out         string
	Manifest    string
	Inputs      []string
	Template    string
	Params      map[string]string
	Annotator   string
	Force       bool
	Google      googleOptions
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write the study's native file from canonical records",
		ArgsUsage: "ANNOTATIONS.jsonl | STUDY",
		Description: "The native format is the one the template declares (the file shape the study\n" +
			"already uses). Offsets, real evaluator names and the rest of each record come from\n" +
			"the study's inputs: give the manifest that generate wrote (it names the inputs and\n" +
			"holds the anonymisation key), or the inputs and template themselves.\n" +
			"A template that exports one file per annotator writes OUT with the annotator's ID\n" +
			"in place of {annotator}, or before the extension.\n" +
			"Given the study itself (its manifest.json or folder) instead of pulled records,\n" +
			"export pulls every batch first, as pull would.\n\n" +
			"Example:\n" +
			"   annosheet export study/ --native --out labels.jsonl\n" +
			"   annosheet export annotations.jsonl --native --manifest study/manifest.json --out labels.jsonl\n" +
			"   annosheet export prefs.jsonl --native --manifest pref/manifest.json --out 'preference_json_{annotator}_completed.json'",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "native", Usage: "write the template's native format (the only export so far)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `FILE` (default: stdout)"},
			&cli.StringFlag{Name: "manifest", Usage: "the study's `manifest.json`: template, inputs and keys"},
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `PATH` the workbooks were generated from (instead of the manifest's)"},
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "template `NAME|FILE` (default: the manifest's, or the built-in the records name)"},
			&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`, as given to generate"},
			&cli.StringFlag{Name: "annotator", Usage: "export the records of annotator `ID` only"},
			&cli.BoolFlag{Name: "force", Usage: "replace existing output files"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("export takes one ANNOTATIONS.jsonl file, or a study's manifest or folder")
			}
			if !c.Bool("native") {
				return usagef("export needs --native (the study's own format)")
			}
			params, err := parseParams(c.StringSlice("param"))
			if err != nil {
				return err
			}
			return runExport(exportOptions{
				Annotations: c.Args().First(), Native: true, Out: c.String("out"), Manifest: c.String("manifest"),
				Inputs: c.StringSlice("input"), Template: c.String("template"), Params: params,
				Annotator: c.String("annotator"), Force: c.Bool("force"), Google: googleFrom(c),
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// exportRecords reads the records to export: a file of them, or a
// study's manifest (or its folder), pulled first.
func exportRecords(opt *exportOptions, stderr io.Writer) ([]*export.Record, error) {
	path := opt.Annotations
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, manifest.FileName)
	}
	if m, err := manifest.Read(path); err == nil {
		if opt.Manifest == "" {
			opt.Manifest = path
		}
		refs, err := studyFolderRefs(m, filepath.Dir(path))
		if err != nil {
			return nil, err
		}
		res, err := pullAll(context.Background(), refs, pullOptions{Google: opt.Google}, stderr)
		if err != nil {
			return nil, err
		}
		res.problems.Sort()
		for _, p := range res.problems {
			fmt.Fprintln(stderr, p.Error())
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		for _, r := range res.records {
			if err := enc.Encode(r); err != nil {
				return nil, err
			}
		}
		return export.ReadRecords(&b, path)
	}
	f, err := os.Open(opt.Annotations)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return export.ReadRecords(f, opt.Annotations)
}

func runExport(opt exportOptions, stdout, stderr io.Writer) error {
	recs, err := exportRecords(&opt, stderr)
	if err != nil {
		return err
	}
	var man *manifest.Manifest
	if opt.Manifest != "" {
		if man, err = manifest.Read(opt.Manifest); err != nil {
			return err
		}
	}
	t, err := exportTemplate(opt, man, recs)
	if err != nil {
		return err
	}
	inputs := opt.Inputs
	var keys map[string]map[string]string
	var orders map[string][]string
	if man != nil {
		keys, orders = man.Keys, man.Orders
		if len(inputs) == 0 {
			if inputs, err = manifestInputs(man, opt.Manifest); err != nil {
				return err
			}
		}
	}
	if len(inputs) == 0 {
		return usagef("export needs the study's inputs: --manifest FILE or --input PATH")
	}
	if len(t.Anonymize) > 0 && keys == nil {
		return fmt.Errorf("template %s anonymises names; export needs the manifest (--manifest) to restore them", t.Name)
	}
	src, err := input.Open(t.Input.Format, inputs)
	if err != nil {
		return err
	}
	var items []*mapping.SourceItem
	err = mapping.Items(t, src, keys, func(it *mapping.SourceItem) error {
		items = append(items, it)
		return nil
	})
	if err != nil {
		return err
	}
	files, err := export.Native(t, recs, items, export.Options{Annotator: opt.Annotator, Style: inputStyle(inputs), Orders: orders, PerAnnotator: strings.Contains(opt.Out, "{annotator}")})
	if err != nil {
		return err
	}
	for _, f := range files {
		for _, w := range f.Warnings {
			fmt.Fprintln(stderr, "warning: "+w)
		}
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "annosheet: nothing to export: no record has an annotator")
		return nil
	}
	if opt.Out == "" {
		if len(files) > 1 {
			return usagef("%d annotators' files to write: give --out (with {annotator} where the ID goes)", len(files))
		}
		_, err := stdout.Write(files[0].Data)
		return err
	}
	paths := map[string]string{} // path -> annotator
	for _, file := range files {
		path := opt.Out
		if file.Annotator != "" {
			path = annotatorPath(opt.Out, file.Annotator, len(files))
		}
		if other, dup := paths[path]; dup {
			return fmt.Errorf("annotators %q and %q would both be written to %s; give --out with {annotator}, or --annotator", other, file.Annotator, path)
		}
		paths[path] = file.Annotator
	}
	for _, file := range files {
		path := opt.Out
		if file.Annotator != "" {
			path = annotatorPath(opt.Out, file.Annotator, len(files))
		}
		err := atomicfile.Write(path, opt.Force, 0o644, func(w io.Writer) error {
			_, err := w.Write(file.Data)
			return err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %d records\n", path, file.Records)
	}
	return nil
}

// annotatorPath puts an annotator's ID into an output path: in place of
// {annotator}, or before the extension when several files are written.
func annotatorPath(out, annotator string, n int) string {
	// Only letters, digits, '.', '-' and '_' reach the file name: an ID
	// cannot name another folder.
	safe := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, annotator)
	if strings.Trim(safe, ".") == "" {
		safe = "_" + safe
	}
	if strings.Contains(out, "{annotator}") {
		return strings.ReplaceAll(out, "{annotator}", safe)
	}
	if n == 1 {
		return out
	}
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + "-" + safe + ext
}

// exportTemplate finds the template of the records: the manifest's, a
// given one, or the built-in they name; it must match their version.
func exportTemplate(opt exportOptions, man *manifest.Manifest, recs []*export.Record) (*templates.Template, error) {
	var t *templates.Template
	var err error
	switch {
	case opt.Template != "":
		t, err = input.Template(opt.Template, opt.Params)
	case man != nil:
		params := maps.Clone(man.Template.Params)
		if params == nil {
			params = map[string]string{}
		}
		maps.Copy(params, opt.Params)
		t, err = templates.LoadWithParams(opt.Manifest+" (template)", []byte(man.Template.Source), params)
	case len(recs) > 0:
		t, err = templates.BuiltinWithParams(recs[0].Template.Name, opt.Params)
	default:
		return nil, fmt.Errorf("%s: no records, and no template given", opt.Annotations)
	}
	if err != nil {
		return nil, err
	}
	if len(recs) > 0 && (recs[0].Template.Name != t.Name || recs[0].Template.Version != t.Version) {
		return nil, fmt.Errorf("%s: the records are of template %s version %d, not %s version %d", opt.Annotations, recs[0].Template.Name, recs[0].Template.Version, t.Name, t.Version)
	}
	return t, nil
}

// manifestInputs finds the study's inputs: where generate was given them,
// or beside the manifest; every file must still have the content it had.
func manifestInputs(m *manifest.Manifest, manPath string) ([]string, error) {
	resolve := func(p string) string {
		if _, err := os.Stat(p); err != nil && !filepath.IsAbs(p) {
			return filepath.Join(filepath.Dir(manPath), p)
		}
		return p
	}
	for _, in := range m.Inputs {
		path := resolve(in.Path)
		h, err := manifest.HashFile(path)
		if err != nil {
			return nil, fmt.Errorf("input %s from the manifest: %w (give --input)", in.Path, err)
		}
		if h.SHA256 != in.SHA256 {
			return nil, fmt.Errorf("input %s changed since the workbooks were generated (SHA-256 %s…, was %s…)", path, h.SHA256[:12], in.SHA256[:12])
		}
	}
	var out []string
	for _, a := range m.InputArgs {
		out = append(out, resolve(a))
	}
	return out, nil
}

// inputStyle is the JSON style of the study's input, which the native file
// keeps: the first input file, or a factgenie folder's outputs.jsonl.
func inputStyle(inputs []string) ojson.Style {
	for _, in := range inputs {
		path := in
		if st, err := os.Stat(in); err == nil && st.IsDir() {
			path = filepath.Join(in, "outputs.jsonl")
		}
		if b, err := os.ReadFile(path); err == nil {
			return ojson.DetectStyle(b)
		}
	}
	return ojson.Style{Indent: "  ", Newline: true}
}
