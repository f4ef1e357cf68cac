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
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/assign"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/xlsx"
)

type generateOptions struct {
	Template string
	Inputs   []string
	Out      string
	Format   string
	Batch    string
	BatchSet bool
	Params   map[string]string
	Seed     uint64
	SeedSet  bool
	Force    bool
	Now      time.Time
	// Assignment.
	Annotators []string
	Overlap    int
	BatchSize  int
	// Google Sheets only.
	Google  googleOptions
	Share   []string
	Message string
	Folder  string
	Protect string
	// DiscardAnswers lets --force rewrite a spreadsheet that holds answers.
	DiscardAnswers bool
}

const (
	formatXLSX    = "xlsx"
	formatGSheets = "gsheets"
)

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "turn a template and input data into annotator-ready workbooks",
		Description: "Writes one workbook per batch: with --format xlsx (the default) a file in the\n" +
			"--out folder named TEMPLATE-BATCH.xlsx; with --format gsheets a Google spreadsheet,\n" +
			"whose link is printed (sign in first with 'annosheet auth login'). The --out folder\n" +
			"gets manifest.json, the coordinator's record of the study (keep it from annotators:\n" +
			"it holds the keys to anonymised names and shuffled orders).\n\n" +
			"With --annotators, every instance goes to --overlap of them, loads kept even, and\n" +
			"each annotator gets workbooks of their own (TEMPLATE-ANNOTATOR-b01.xlsx …) with\n" +
			"their ID filled in; --batch-size cuts them into batches. Without --annotators,\n" +
			"one shared workbook (or several, with --batch-size) where annotators type their\n" +
			"ID. If making spreadsheets fails half-way, the same command again finishes them\n" +
			"instead of making others.\n\n" +
			"Example:\n" +
			"   annosheet generate --template legal-gaps --input examples/legal-gaps.jsonl --out study/\n" +
			"   annosheet generate -t preference-likert -i topics.json -o pref/ --annotators ak,bt,cm --overlap 3\n" +
			"   annosheet generate -t qa-span-errors -i dev.json -o qa/ --annotators ak,bt,cm --overlap 2 --batch-size 20\n" +
			"   annosheet generate -t legal-gaps -i examples/legal-gaps.jsonl -o study/ \\\n" +
			"       --format gsheets --annotators ann1@example.org,ann2@example.org",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "built-in template `NAME` or template `FILE`"},
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `PATH` (JSON Lines, JSON, or a factgenie folder); repeat for several"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `DIR` (created if missing)"},
			&cli.StringFlag{Name: "format", Value: formatXLSX, Usage: "output format: xlsx or gsheets"},
			&cli.StringSliceFlag{Name: "annotators", Aliases: []string{"a"}, Usage: "annotator `ID`s (comma-separated or repeated): a workbook each; an email address also gets the spreadsheet shared"},
			&cli.IntFlag{Name: "overlap", Usage: "`K` annotators judge each instance (all of them for the preference workflow)", DefaultText: "1"},
			&cli.IntFlag{Name: "batch-size", Usage: "at most `N` units per workbook", DefaultText: "no bound"},
			&cli.StringFlag{Name: "batch", Value: "b01", Usage: "batch `ID` of a single shared workbook"},
			&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`; repeat for several"},
			&cli.Uint64Flag{Name: "seed", Usage: "`N` seeds the assignment, anonymised labels and shuffled orders (recorded in the manifest)", DefaultText: "random"},
			&cli.BoolFlag{Name: "force", Usage: "replace existing output (a spreadsheet is rewritten in place, keeping its link)"},
			&cli.StringSliceFlag{Name: "share", Usage: "gsheets: give these `EMAIL`s edit access to every spreadsheet (comma-separated or repeated)"},
			&cli.StringFlag{Name: "message", Usage: "gsheets: `TEXT` of the sharing mail"},
			&cli.StringFlag{Name: "folder", Usage: "gsheets: Drive folder `ID` to create in (a shared drive's folder for a service account)"},
			&cli.StringFlag{Name: "protect", Value: sheets.ProtectWarning, Usage: "gsheets: context columns ask before an edit (warning) or only you may edit them (editors)"},
			&cli.BoolFlag{Name: "discard-answers", Usage: "gsheets: let --force rewrite a spreadsheet that holds annotators' answers (pull them first)"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			opt := generateOptions{
				Template:   c.String("template"),
				Inputs:     c.StringSlice("input"),
				Out:        c.String("out"),
				Format:     c.String("format"),
				Batch:      c.String("batch"),
				BatchSet:   c.IsSet("batch"),
				Seed:       c.Uint64("seed"),
				SeedSet:    c.IsSet("seed"),
				Force:      c.Bool("force"),
				Now:        time.Now(),
				Annotators: splitList(c.StringSlice("annotators")),
				Overlap:    c.Int("overlap"),
				BatchSize:  c.Int("batch-size"),
				Google:     googleFrom(c),
				Share:      splitList(c.StringSlice("share")),
				Message:    c.String("message"),
				Folder:     c.String("folder"),
				Protect:    c.String("protect"),

				DiscardAnswers: c.Bool("discard-answers"),
			}
			if opt.Format != formatGSheets {
				for _, f := range []string{"share", "message", "folder", "protect", "endpoint", "no-auth", "discard-answers"} {
					// An endpoint from the environment is for whichever
					// command wants it.
					if c.IsSet(f) && !(f == "endpoint" && c.String(f) == os.Getenv(envEndpoint)) {
						return usagef("--%s is for --format gsheets", f)
					}
				}
			}
			var err error
			if opt.Params, err = parseParams(c.StringSlice("param")); err != nil {
				return err
			}
			return runGenerate(c.Context, opt, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// splitList reads repeated and comma-separated values.
func splitList(values []string) []string {
	var out []string
	for _, s := range values {
		for _, e := range strings.Split(s, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
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

// check refuses command lines that cannot work, before anything is read.
func (opt generateOptions) check() error {
	switch {
	case opt.Template == "":
		return usagef("generate needs --template NAME|FILE")
	case len(opt.Inputs) == 0:
		return usagef("generate needs --input PATH")
	case opt.Out == "":
		return usagef("generate needs --out DIR")
	case opt.Format != formatXLSX && opt.Format != formatGSheets:
		return usagef("--format %q: use xlsx or gsheets", opt.Format)
	case !validBatch(opt.Batch):
		return usagef("--batch %q: use letters, digits, '-' and '_' (it names a file)", opt.Batch)
	case opt.BatchSet && (len(opt.Annotators) > 0 || opt.BatchSize > 0):
		return usagef("--batch names a single shared workbook; with --annotators or --batch-size, batches are named for you")
	case opt.Overlap < 0 || opt.BatchSize < 0:
		return usagef("--overlap and --batch-size take positive numbers")
	case opt.Protect != "" && opt.Protect != sheets.ProtectWarning && opt.Protect != sheets.ProtectEditors:
		return usagef("--protect %q: use warning or editors", opt.Protect)
	case opt.Message != "" && len(opt.Share) == 0 && !slices.ContainsFunc(opt.Annotators, isEmail):
		return usagef("--message is the text of the sharing mail: give --share, or annotators' email addresses")
	}
	for _, e := range opt.Share {
		if !isEmail(e) {
			return usagef("--share %q: not an email address", e)
		}
	}
	return nil
}

func isEmail(s string) bool { return strings.Contains(s, "@") }

// generation is one generate run: the study's plan and what it made.
type generation struct {
	opt    generateOptions
	t      *templates.Template
	src    *input.Spool
	record map[string]int // item -> the Index of its input record
	study  string
	limit  int
	all    *mapping.Result // every instance, checked: warnings, keys, orders
	plan   []assign.Batch
	man    *manifest.Manifest
	path   string // of the manifest
	stdout io.Writer
	stderr io.Writer
}

func runGenerate(ctx context.Context, opt generateOptions, stdout, stderr io.Writer) error {
	if err := opt.check(); err != nil {
		return err
	}
	t, err := input.Template(opt.Template, opt.Params)
	if err != nil {
		return err
	}
	src, err := input.Open(t.Input.Format, opt.Inputs)
	if err != nil {
		return err
	}
	spool := input.NewSpool(src)
	defer spool.Close()
	g := &generation{opt: opt, t: t, src: spool, path: filepath.Join(opt.Out, manifest.FileName), stdout: stdout, stderr: stderr, limit: mapping.XLSXCellLimit}
	var prev *manifest.Manifest
	if opt.Format == formatGSheets {
		g.limit = mapping.SheetsCellLimit
		if prev, err = g.previous(); err != nil {
			return err
		}
	}
	if err := g.begin(prev); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return err
	}
	switch opt.Format {
	case formatXLSX:
		err = g.writeFiles(ctx)
	case formatGSheets:
		err = g.writeSpreadsheets(ctx, prev)
	}
	if err != nil {
		return err
	}
	g.summary()
	return nil
}

// begin draws the study's identity and seed (those of the run it finishes,
// when it finishes one), checks every record, and shares out the
// instances.
func (g *generation) begin(prev *manifest.Manifest) error {
	opt := &g.opt
	var err error
	if prev != nil && g.samePlan(prev) && !opt.Force {
		g.study, opt.Seed, opt.SeedSet = prev.Study, prev.Seed, true
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
	g.all, err = mapping.Build(g.t, g.src, mapping.Options{Batch: opt.Batch, Study: g.study, CellLimit: g.limit, Seed: opt.Seed})
	if err != nil {
		return err
	}
	for _, w := range g.all.Warnings {
		fmt.Fprintln(g.stderr, "warning: "+w.Error())
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
	g.plan, err = assign.Plan(items, assign.Options{Annotators: opt.Annotators, Overlap: opt.Overlap, BatchSize: opt.BatchSize, Seed: opt.Seed})
	if err != nil {
		return usageError{err}
	}
	if len(g.plan) == 1 && g.plan[0].Annotator == "" {
		g.plan[0].ID = opt.Batch
	}
	g.man, err = g.newManifest()
	return err
}

// build renders one batch's plan: the whole study's when it is one shared
// workbook, already checked.
func (g *generation) build(b assign.Batch) (*mapping.Result, error) {
	if len(g.plan) == 1 && b.Annotator == "" && b.ID == g.opt.Batch {
		return g.all, nil
	}
	picked := make(map[string]bool, len(b.Items))
	records := make([]int, 0, len(b.Items))
	for _, it := range b.Items {
		picked[it] = true
		records = append(records, g.record[it])
	}
	// Only the batch's records are read again (every record was checked
	// by begin).
	return mapping.Build(g.t, g.src.Subset(records), mapping.Options{
		Batch: b.ID, Study: g.study, CellLimit: g.limit, Seed: g.opt.Seed,
		Keys: g.all.Keys, Items: func(item string) bool { return picked[item] }, Annotator: b.Annotator,
	})
}

// record puts what a batch's build made into its manifest entry.
func record(mb *manifest.Batch, res *mapping.Result) {
	mb.Rows, mb.Units = res.Rows, nil
	for _, u := range res.Units {
		mb.Units = append(mb.Units, manifest.Unit{ID: u.ID, Item: u.Item})
	}
}

func (g *generation) bookPath(b assign.Batch) string {
	return filepath.Join(g.opt.Out, fmt.Sprintf("%s-%s.xlsx", g.t.Name, b.ID))
}

// writeFiles writes a workbook per batch, then the manifest; nothing is
// replaced without --force.
func (g *generation) writeFiles(ctx context.Context) error {
	if !g.opt.Force {
		paths := []string{}
		for _, b := range g.plan {
			paths = append(paths, g.bookPath(b))
		}
		for _, p := range append(paths, g.path) {
			if _, err := os.Lstat(p); err == nil {
				return fmt.Errorf("%s: %w (use --force to replace it)", p, atomicfile.ErrExists)
			}
		}
	}
	bar := newProgress(g.stderr, g.rows(), "writing workbooks")
	defer bar.Finish()
	for i, b := range g.plan {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := g.build(b)
		if err != nil {
			return err
		}
		path := g.bookPath(b)
		err = atomicfile.Write(path, g.opt.Force, 0o644, func(w io.Writer) error {
			return xlsx.Write(counted(res.Plan, bar), w, xlsx.WriteOptions{Created: g.opt.Now})
		})
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		mb := &g.man.Batches[i]
		record(mb, res)
		mb.File = filepath.Base(path)
		g.wrote(path, b, mb)
	}
	bar.Finish()
	if err := atomicfile.Write(g.path, g.opt.Force, 0o644, g.man.Encode); err != nil {
		return fmt.Errorf("write %s: %w", g.path, err)
	}
	return nil
}

// rows counts the sheet rows the plan writes, for the progress bar.
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

// counted reports each row of the Annotate sheet to the progress bar as
// it is written.
func counted(p *mapping.Plan, bar progress) *mapping.Plan {
	out := *p
	out.Sheets = slices.Clone(p.Sheets)
	for i, sh := range out.Sheets {
		if sh.Name != mapping.SheetAnnotate {
			continue
		}
		c := *sh
		rows := sh.Rows
		c.Rows = func(emit func(mapping.Row) error) error {
			first := true
			return rows(func(r mapping.Row) error {
				if !first {
					bar.Add(1)
				}
				first = false
				return emit(r)
			})
		}
		out.Sheets[i] = &c
	}
	return &out
}

func (g *generation) wrote(where string, b assign.Batch, mb *manifest.Batch) {
	who := ""
	if b.Annotator != "" {
		who = "for " + b.Annotator + ", "
	}
	fmt.Fprintf(g.stdout, "wrote %s: %s in %s (%sbatch %s)\n", where, plural(len(mb.Units), "unit"), plural(mb.Rows, "row"), who, b.ID)
}

func (g *generation) summary() {
	res := g.all
	books := "workbook"
	if g.opt.Format == formatGSheets {
		books = "spreadsheet"
	}
	if len(g.opt.Annotators) > 0 {
		fmt.Fprintf(g.stdout, "%s, each for %d of %d annotators, in %s (template %s v%d)\n",
			plural(len(itemsOf(res)), "instance"), max(g.opt.Overlap, 1), len(g.opt.Annotators), plural(len(g.plan), books), g.t.Name, g.t.Version)
	} else if len(g.plan) > 1 {
		fmt.Fprintf(g.stdout, "%s in %s (template %s v%d)\n", plural(len(itemsOf(res)), "instance"), plural(len(g.plan), "shared "+books), g.t.Name, g.t.Version)
	} else {
		fmt.Fprintf(g.stdout, "template %s v%d\n", g.t.Name, g.t.Version)
	}
	if res.Skipped > 0 {
		fmt.Fprintf(g.stdout, "note: %d of %d records have nothing to annotate and got no rows\n", res.Skipped, res.Records)
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintf(g.stdout, "note: %d warnings (see above)\n", len(res.Warnings))
	}
	fmt.Fprintf(g.stdout, "wrote %s (the coordinator's record; keep it from annotators)\n", g.path)
}

func itemsOf(res *mapping.Result) []string {
	var out []string
	for _, u := range res.Units {
		if n := len(out); n == 0 || out[n-1] != u.Item {
			out = append(out, u.Item)
		}
	}
	return out
}

// newManifest is the study's record, with a batch for every workbook
// planned (filled in as each is made).
func (g *generation) newManifest() (*manifest.Manifest, error) {
	opt, res := g.opt, g.all
	m := &manifest.Manifest{
		Schema:  manifest.Schema,
		Study:   g.study,
		Created: opt.Now.UTC().Format(time.RFC3339),
		Format:  opt.Format,
		Template: manifest.Template{
			Name: g.t.Name, Version: g.t.Version, SHA256: mapping.TemplateHash(g.t),
			Params: g.t.ParamValues(), Source: string(g.t.Source),
		},
		InputArgs:  opt.Inputs,
		Seed:       opt.Seed,
		Assignment: &manifest.Assignment{Annotators: opt.Annotators, Overlap: max(opt.Overlap, 1), BatchSize: opt.BatchSize},
		Keys:       res.Keys,
		Orders:     res.Orders,
	}
	if len(m.Keys) == 0 {
		m.Keys = nil
	}
	for _, f := range g.src.Files() {
		in, err := manifest.HashFile(f)
		if err != nil {
			return nil, err
		}
		m.Inputs = append(m.Inputs, in)
	}
	// Every batch's units are known before any workbook is made, so that a
	// batch never made still counts its units as missing.
	unitsOf := map[string][]manifest.Unit{}
	for _, u := range res.Units {
		unitsOf[u.Item] = append(unitsOf[u.Item], manifest.Unit{ID: u.ID, Item: u.Item})
	}
	for _, b := range g.plan {
		mb := manifest.Batch{ID: b.ID, Annotator: b.Annotator}
		for _, it := range b.Items {
			mb.Units = append(mb.Units, unitsOf[it]...)
		}
		m.Batches = append(m.Batches, mb)
	}
	return m, nil
}

// samePlan reports whether a previous run's manifest is of this very
// study: the same template, inputs, assignment and seed.
func (g *generation) samePlan(prev *manifest.Manifest) bool {
	opt := g.opt
	if prev.Template.SHA256 != mapping.TemplateHash(g.t) || prev.Format != opt.Format || opt.SeedSet && opt.Seed != prev.Seed {
		return false
	}
	a := prev.Assignment
	if a == nil {
		a = &manifest.Assignment{Overlap: 1}
	}
	if !slices.Equal(a.Annotators, opt.Annotators) || a.Overlap != max(opt.Overlap, 1) || a.BatchSize != opt.BatchSize {
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

// plural is "1 unit", "2 units".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
