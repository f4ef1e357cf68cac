package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/xlsx"
)

type generateOptions struct {
	Template string
	Inputs   []string
	Out      string
	Format   string
	Batch    string
	Params   map[string]string
	Seed     uint64
	SeedSet  bool
	Force    bool
	Now      time.Time
}

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "turn a template and input data into annotator-ready workbooks",
		Description: "Writes one workbook per batch into the --out folder, named TEMPLATE-BATCH.xlsx,\n" +
			"and manifest.json, the coordinator's record of the study (keep it from annotators:\n" +
			"it holds the key to anonymised names).\n\n" +
			"Example:\n" +
			"   annosheet generate --template legal-gaps --input examples/legal-gaps.jsonl --out study/\n" +
			"   annosheet generate -t qa-span-errors -i dev.json --param 'prediction=prediction 2' -o qa/",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "built-in template `NAME` or template `FILE`"},
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `PATH` (JSON Lines, JSON, or a factgenie folder); repeat for several"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `DIR` (created if missing)"},
			&cli.StringFlag{Name: "format", Value: "xlsx", Usage: "output format: xlsx"},
			&cli.StringFlag{Name: "batch", Value: "b01", Usage: "batch `ID` recorded in the workbook"},
			&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`; repeat for several"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed for anonymised labels (random when not given; recorded in the manifest)"},
			&cli.BoolFlag{Name: "force", Usage: "replace existing output files"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			opt := generateOptions{
				Template: c.String("template"),
				Inputs:   c.StringSlice("input"),
				Out:      c.String("out"),
				Format:   c.String("format"),
				Batch:    c.String("batch"),
				Seed:     c.Uint64("seed"),
				SeedSet:  c.IsSet("seed"),
				Force:    c.Bool("force"),
				Now:      time.Now(),
			}
			var err error
			if opt.Params, err = parseParams(c.StringSlice("param")); err != nil {
				return err
			}
			return runGenerate(c.Context, opt, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func parseParams(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range list {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usagef("--param %q: expected NAME=VALUE", p)
		}
		out[k] = v
	}
	return out, nil
}

func runGenerate(ctx context.Context, opt generateOptions, stdout, stderr io.Writer) error {
	switch {
	case opt.Template == "":
		return usagef("generate needs --template NAME|FILE")
	case len(opt.Inputs) == 0:
		return usagef("generate needs --input PATH")
	case opt.Out == "":
		return usagef("generate needs --out DIR")
	case opt.Format != "xlsx":
		return usagef("--format %q: only xlsx is available", opt.Format)
	case !validBatch(opt.Batch):
		return usagef("--batch %q: use letters, digits, '-' and '_' (it names a file)", opt.Batch)
	}
	t, err := templates.Resolve(opt.Template, opt.Params)
	if err != nil {
		return err
	}
	src, err := mapping.Open(t.Input.Format, opt.Inputs)
	if err != nil {
		return err
	}
	if !opt.SeedSet {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		opt.Seed = binary.LittleEndian.Uint64(b[:])
	}
	study, err := newStudyID()
	if err != nil {
		return err
	}
	book := filepath.Join(opt.Out, fmt.Sprintf("%s-%s.xlsx", t.Name, opt.Batch))
	man := filepath.Join(opt.Out, manifest.FileName)
	if !opt.Force {
		for _, p := range []string{book, man} {
			if _, err := os.Lstat(p); err == nil {
				return fmt.Errorf("%s: %w (use --force to replace it)", p, atomicfile.ErrExists)
			}
		}
	}
	res, err := mapping.Build(t, src, mapping.Options{Batch: opt.Batch, Study: study, CellLimit: mapping.XLSXCellLimit, Seed: opt.Seed})
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "warning: "+w.Error())
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return err
	}
	err = atomicfile.Write(book, opt.Force, 0o644, func(w io.Writer) error {
		return xlsx.Write(res.Plan, w, xlsx.WriteOptions{Created: opt.Now})
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", book, err)
	}
	m := &manifest.Manifest{
		Schema:  manifest.Schema,
		Study:   study,
		Created: opt.Now.UTC().Format(time.RFC3339),
		Format:  opt.Format,
		Template: manifest.Template{
			Name: t.Name, Version: t.Version, SHA256: mapping.TemplateHash(t),
			Params: t.ParamValues(), Source: string(t.Source),
		},
		InputArgs: opt.Inputs,
		Seed:      opt.Seed,
		Keys:      res.Keys,
	}
	if len(m.Keys) == 0 {
		m.Keys = nil
	}
	for _, f := range src.Files() {
		in, err := manifest.HashFile(f)
		if err != nil {
			return err
		}
		m.Inputs = append(m.Inputs, in)
	}
	batch := manifest.Batch{ID: opt.Batch, File: filepath.Base(book), Rows: res.Rows}
	for _, u := range res.Units {
		batch.Units = append(batch.Units, manifest.Unit{ID: u.ID, Item: u.Item})
	}
	m.Batches = append(m.Batches, batch)
	err = atomicfile.Write(man, opt.Force, 0o644, m.Encode)
	if err != nil {
		return fmt.Errorf("write %s: %w", man, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d units in %d rows (template %s v%d, batch %s)\n", book, len(res.Units), batch.Rows, t.Name, t.Version, opt.Batch)
	if res.Skipped > 0 {
		fmt.Fprintf(stdout, "note: %d of %d records have nothing to annotate and got no rows\n", res.Skipped, res.Records)
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintf(stdout, "note: %d warnings (see above)\n", len(res.Warnings))
	}
	fmt.Fprintf(stdout, "wrote %s (the coordinator's record; keep it from annotators)\n", man)
	return nil
}

func validBatch(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
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
