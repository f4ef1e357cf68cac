package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"google.golang.org/api/googleapi"

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
	Params   map[string]string
	Seed     uint64
	SeedSet  bool
	Force    bool
	Now      time.Time
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
			"it holds the key to anonymised names). If making a spreadsheet fails half-way, the\n" +
			"same command again finishes that spreadsheet instead of making another.\n\n" +
			"Example:\n" +
			"   annosheet generate --template legal-gaps --input examples/legal-gaps.jsonl --out study/\n" +
			"   annosheet generate -t qa-span-errors -i dev.json --param 'prediction=prediction 2' -o qa/\n" +
			"   annosheet generate -t legal-gaps -i examples/legal-gaps.jsonl -o study/ \\\n" +
			"       --format gsheets --share ann1@example.org,ann2@example.org",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "built-in template `NAME` or template `FILE`"},
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "input `PATH` (JSON Lines, JSON, or a factgenie folder); repeat for several"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `DIR` (created if missing)"},
			&cli.StringFlag{Name: "format", Value: formatXLSX, Usage: "output format: xlsx or gsheets"},
			&cli.StringFlag{Name: "batch", Value: "b01", Usage: "batch `ID` recorded in the workbook"},
			&cli.StringSliceFlag{Name: "param", Usage: "template parameter `NAME=VALUE`; repeat for several"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed for anonymised labels (random when not given; recorded in the manifest)"},
			&cli.BoolFlag{Name: "force", Usage: "replace existing output (a spreadsheet is rewritten in place, keeping its link)"},
			&cli.StringSliceFlag{Name: "share", Usage: "gsheets: give these `EMAIL`s edit access (comma-separated or repeated)"},
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
				Template: c.String("template"),
				Inputs:   c.StringSlice("input"),
				Out:      c.String("out"),
				Format:   c.String("format"),
				Batch:    c.String("batch"),
				Seed:     c.Uint64("seed"),
				SeedSet:  c.IsSet("seed"),
				Force:    c.Bool("force"),
				Now:      time.Now(),
				Google:   googleFrom(c),
				Message:  c.String("message"),
				Folder:   c.String("folder"),
				Protect:  c.String("protect"),

				DiscardAnswers: c.Bool("discard-answers"),
			}
			for _, s := range c.StringSlice("share") {
				for _, e := range strings.Split(s, ",") {
					if e = strings.TrimSpace(e); e != "" {
						opt.Share = append(opt.Share, e)
					}
				}
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
			if opt.Message != "" && len(opt.Share) == 0 {
				return usagef("--message is the text of the sharing mail: give --share too")
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
	case opt.Format != formatXLSX && opt.Format != formatGSheets:
		return usagef("--format %q: use xlsx or gsheets", opt.Format)
	case !validBatch(opt.Batch):
		return usagef("--batch %q: use letters, digits, '-' and '_' (it names a file)", opt.Batch)
	case opt.Protect != "" && opt.Protect != sheets.ProtectWarning && opt.Protect != sheets.ProtectEditors:
		return usagef("--protect %q: use warning or editors", opt.Protect)
	}
	for _, e := range opt.Share {
		if !strings.Contains(e, "@") {
			return usagef("--share %q: not an email address", e)
		}
	}
	t, err := templates.Resolve(opt.Template, opt.Params)
	if err != nil {
		return err
	}
	src, err := mapping.Open(t.Input.Format, opt.Inputs)
	if err != nil {
		return err
	}
	man := filepath.Join(opt.Out, manifest.FileName)
	book := filepath.Join(opt.Out, fmt.Sprintf("%s-%s.xlsx", t.Name, opt.Batch))
	var resume *manifest.Spreadsheet
	var prev *manifest.Manifest
	if opt.Format == formatGSheets {
		if prev, resume, err = previousSpreadsheet(opt, t, man, stderr); err != nil {
			return err
		}
	}
	if !opt.Force && resume == nil {
		paths := []string{man}
		if opt.Format == formatXLSX {
			paths = []string{book, man}
		}
		for _, p := range paths {
			if _, err := os.Lstat(p); err == nil {
				return fmt.Errorf("%s: %w (use --force to replace it)", p, atomicfile.ErrExists)
			}
		}
	}
	study := ""
	if resume != nil && resume.Status == manifest.Incomplete {
		study = prev.Study
		if !opt.SeedSet {
			opt.Seed, opt.SeedSet = prev.Seed, true
		}
	}
	if study == "" {
		if study, err = newStudyID(); err != nil {
			return err
		}
	}
	if !opt.SeedSet {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		opt.Seed = binary.LittleEndian.Uint64(b[:])
	}
	limit := mapping.XLSXCellLimit
	if opt.Format == formatGSheets {
		limit = mapping.SheetsCellLimit
	}
	res, err := mapping.Build(t, src, mapping.Options{Batch: opt.Batch, Study: study, CellLimit: limit, Seed: opt.Seed})
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
	m, err := newManifest(opt, t, src, study, res)
	if err != nil {
		return err
	}
	batch := &m.Batches[0]
	saveManifest := func() error {
		if err := atomicfile.Write(man, true, 0o644, m.Encode); err != nil {
			return fmt.Errorf("write %s: %w", man, err)
		}
		return nil
	}
	var where string
	switch opt.Format {
	case formatXLSX:
		err = atomicfile.Write(book, opt.Force, 0o644, func(w io.Writer) error {
			return xlsx.Write(res.Plan, w, xlsx.WriteOptions{Created: opt.Now})
		})
		if err != nil {
			return fmt.Errorf("write %s: %w", book, err)
		}
		batch.File, where = filepath.Base(book), book
		if err := atomicfile.Write(man, opt.Force, 0o644, m.Encode); err != nil {
			return fmt.Errorf("write %s: %w", man, err)
		}
	case formatGSheets:
		c, err := opt.Google.client(ctx, stderr)
		if err != nil {
			return err
		}
		wo := sheets.WriteOptions{Folder: opt.Folder, Share: opt.Share, Message: opt.Message, Protect: opt.Protect,
			// Recorded before anything else can fail, so that the next
			// run finishes this spreadsheet.
			Created: func(id, url string) error {
				batch.Spreadsheet = &manifest.Spreadsheet{ID: id, URL: url, Status: manifest.Incomplete, Endpoint: opt.Google.Endpoint}
				fmt.Fprintf(stderr, "created %s\n", url)
				return saveManifest()
			}}
		if resume != nil {
			wo.Existing, wo.ExistingURL = resume.ID, resume.URL
			if resume.Status == manifest.Complete {
				// Rewriting loses what annotators wrote: not without
				// asking.
				if err := noAnswers(ctx, c, resume, opt.DiscardAnswers); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "rewriting %s\n", resume.URL)
			} else {
				fmt.Fprintf(stderr, "finishing %s\n", resume.URL)
			}
		}
		w, err := c.Write(ctx, res.Plan, wo)
		var ge *googleapi.Error
		if resume != nil && errors.As(err, &ge) && ge.Code == http.StatusNotFound {
			return fmt.Errorf("%w\n(the spreadsheet %s recorded in %s is gone; move %s away to start the batch afresh)", err, resume.URL, man, man)
		}
		if err != nil {
			return explainGoogle(err)
		}
		batch.Spreadsheet.URL, batch.Spreadsheet.Status = w.URL, manifest.Complete
		if err := saveManifest(); err != nil {
			return err
		}
		where = w.URL
	}
	fmt.Fprintf(stdout, "wrote %s: %d units in %d rows (template %s v%d, batch %s)\n", where, len(res.Units), batch.Rows, t.Name, t.Version, opt.Batch)
	if len(opt.Share) > 0 {
		fmt.Fprintf(stdout, "shared with %s (can edit)\n", strings.Join(opt.Share, ", "))
	}
	if res.Skipped > 0 {
		fmt.Fprintf(stdout, "note: %d of %d records have nothing to annotate and got no rows\n", res.Skipped, res.Records)
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintf(stdout, "note: %d warnings (see above)\n", len(res.Warnings))
	}
	fmt.Fprintf(stdout, "wrote %s (the coordinator's record; keep it from annotators)\n", man)
	return nil
}

// previousSpreadsheet reads the manifest a previous run left, and says
// which spreadsheet this run writes into: one a failed run left unfinished
// (finished in place, with the same study and seed, so that nothing is
// made twice), or with --force a finished one (rewritten in place).
func previousSpreadsheet(opt generateOptions, t *templates.Template, man string, stderr io.Writer) (*manifest.Manifest, *manifest.Spreadsheet, error) {
	if _, err := os.Lstat(man); err != nil {
		return nil, nil, nil
	}
	prev, err := manifest.Read(man)
	if err != nil {
		if opt.Force {
			fmt.Fprintf(stderr, "warning: %v; --force replaces it\n", err)
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("%w\n(move it away, or use --force to replace it)", err)
	}
	var resume *manifest.Spreadsheet
	for _, b := range prev.Batches {
		if b.ID == opt.Batch && b.Spreadsheet != nil && (b.Spreadsheet.Status == manifest.Incomplete || opt.Force) {
			sp := *b.Spreadsheet
			resume = &sp
		}
	}
	switch {
	case resume == nil:
	case resume.Endpoint != opt.Google.Endpoint:
		return nil, nil, fmt.Errorf("%s: batch %s's spreadsheet %s is on %s, not on %s; use another --out for this one", man, opt.Batch, resume.URL, endpointName(resume.Endpoint), endpointName(opt.Google.Endpoint))
	case resume.Status == manifest.Incomplete && prev.Template.Name != t.Name && !opt.Force:
		return nil, nil, fmt.Errorf("%s: batch %s has an unfinished spreadsheet of template %s (%s); generate it with that template, or use --force", man, opt.Batch, prev.Template.Name, resume.URL)
	}
	return prev, resume, nil
}

// endpointName is an endpoint as messages name it.
func endpointName(e string) string {
	if e == "" {
		return "Google"
	}
	return e
}

// noAnswers refuses to rewrite a spreadsheet annotators have answered in,
// unless told to.
func noAnswers(ctx context.Context, c *sheets.Client, sp *manifest.Spreadsheet, discard bool) error {
	g, closeFn, err := c.Open(ctx, sp.ID)
	if err != nil {
		return explainGoogle(err)
	}
	defer closeFn()
	p, err := mapping.Pull(g, mapping.PullOptions{})
	if err != nil {
		// Not a sheet pull can read: nothing of ours to lose.
		return nil
	}
	n := 0
	for _, r := range p.Records {
		if r.Status == mapping.StatusComplete || r.Status == mapping.StatusPartial {
			n++
		}
	}
	if n > 0 && !discard {
		return fmt.Errorf("spreadsheet %s holds answers for %d units: pull them first, then add --discard-answers to rewrite it (its version history in Drive keeps the old content)", sp.URL, n)
	}
	return nil
}

// newManifest is the study's record, with its one batch.
func newManifest(opt generateOptions, t *templates.Template, src mapping.Source, study string, res *mapping.Result) (*manifest.Manifest, error) {
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
		Orders:    res.Orders,
	}
	if len(m.Keys) == 0 {
		m.Keys = nil
	}
	for _, f := range src.Files() {
		in, err := manifest.HashFile(f)
		if err != nil {
			return nil, err
		}
		m.Inputs = append(m.Inputs, in)
	}
	batch := manifest.Batch{ID: opt.Batch, Rows: res.Rows}
	for _, u := range res.Units {
		batch.Units = append(batch.Units, manifest.Unit{ID: u.ID, Item: u.Item})
	}
	m.Batches = append(m.Batches, batch)
	return m, nil
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
