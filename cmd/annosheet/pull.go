package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/xlsx"
)

type pullOptions struct {
	Sources  []string
	Out      string
	Report   string
	Strict   bool
	Template string
	Google   googleOptions
}

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Usage:     "read filled workbooks back into validated canonical JSON",
		ArgsUsage: "SOURCE...",
		Description: "SOURCE is a workbook (.xlsx), a folder of workbooks, a Google spreadsheet's link\n" +
			"or ID, or a study's manifest.json (or its folder), which names every batch.\n" +
			"Every cell is checked against the template the workbook carries; problems are\n" +
			"printed on stderr, one per line, by file and cell (Annotate!F14), and every\n" +
			"unit is written, empty and missing ones too.\n\n" +
			"Example:\n" +
			"   annosheet pull study/ --out annotations.jsonl --report report.json\n" +
			"   annosheet pull study/legal-gaps-b01.xlsx --strict > annotations.jsonl\n" +
			"   annosheet pull https://docs.google.com/spreadsheets/d/1AbC.../edit -o annotations.jsonl",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the records to `FILE.jsonl` (default: stdout)"},
			&cli.StringFlag{Name: "report", Usage: "write every problem, and counts, to `FILE.json`"},
			&cli.BoolFlag{Name: "strict", Usage: "exit with status 3 when any error-level problem is found"},
			&cli.StringFlag{Name: "template", Usage: "refuse workbooks not made with template `NAME`"},
		}, googleFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("pull needs a SOURCE: a workbook, a folder of them, a spreadsheet link or ID, or a manifest")
			}
			return runPull(c.Context, pullOptions{
				Sources: c.Args().Slice(), Out: c.String("out"), Report: c.String("report"),
				Strict: c.Bool("strict"), Template: c.String("template"), Google: googleFrom(c),
			}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// workbookRef is one workbook to pull, and what the study expects of it.
type workbookRef struct {
	path        string          // a file, or how the spreadsheet was named
	spreadsheet string          // a Google spreadsheet's ID
	endpoint    string          // the Sheets API it is on, when the manifest says
	study       string          // from the manifest; "" when unknown
	batch       *manifest.Batch // from the manifest
	man         *manifest.Manifest
	// beside: a workbook found in a study's folder that its manifest does
	// not list (a returned copy, say); read only if it is of that study.
	beside bool
}

// pullResult is everything one pull run read.
type pullResult struct {
	records  []*mapping.Annotation
	problems mapping.Problems
	books    []bookSummary
}

type bookSummary struct {
	File     string              `json:"file"`
	Template mapping.TemplateRef `json:"template"`
	Batch    string              `json:"batch"`
	Study    string              `json:"study,omitempty"`
	Units    int                 `json:"units"`
}

// expandSources turns SOURCE arguments into the workbooks to read.
func expandSources(sources []string) ([]workbookRef, error) {
	var refs []workbookRef
	for _, s := range sources {
		st, err := os.Stat(s)
		if err != nil {
			if id, ok := sheets.SpreadsheetID(s); ok && errors.Is(err, os.ErrNotExist) {
				refs = append(refs, workbookRef{path: s, spreadsheet: id})
				continue
			}
			return nil, fmt.Errorf("source %s: %w (not a file, a folder, or a spreadsheet link)", s, err)
		}
		switch {
		case st.IsDir():
			if m, err := manifest.Read(filepath.Join(s, manifest.FileName)); err == nil {
				more, err := studyFolderRefs(m, s)
				if err != nil {
					return nil, err
				}
				refs = append(refs, more...)
				continue
			}
			names, err := folderWorkbooks(s)
			if err != nil {
				return nil, err
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("source %s: no .xlsx workbooks in the folder", s)
			}
			for _, name := range names {
				refs = append(refs, workbookRef{path: filepath.Join(s, name)})
			}
		case strings.EqualFold(filepath.Ext(s), ".json"):
			m, err := manifest.Read(s)
			if err != nil {
				return nil, err
			}
			more, err := studyFolderRefs(m, filepath.Dir(s))
			if err != nil {
				return nil, err
			}
			refs = append(refs, more...)
		default:
			refs = append(refs, workbookRef{path: s})
		}
	}
	return refs, nil
}

// folderWorkbooks lists the .xlsx files in dir, leaving out the lock files
// and hidden files that spreadsheet applications leave beside them.
func folderWorkbooks(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.EqualFold(filepath.Ext(name), ".xlsx") || strings.HasPrefix(name, "~$") || strings.HasPrefix(name, ".") {
			continue
		}
		names = append(names, name)
	}
	return names, nil
}

// studyFolderRefs is every workbook the manifest lists, and every other
// workbook in its folder: an annotator's returned copy saved beside the
// original counts for its batch.
func studyFolderRefs(m *manifest.Manifest, dir string) ([]workbookRef, error) {
	refs := manifestRefs(m, dir)
	names, err := folderWorkbooks(dir)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if slices.ContainsFunc(m.Batches, func(b manifest.Batch) bool { return b.File == name }) {
			continue
		}
		refs = append(refs, workbookRef{path: filepath.Join(dir, name), study: m.Study, beside: true})
	}
	return refs, nil
}

func manifestRefs(m *manifest.Manifest, dir string) []workbookRef {
	var refs []workbookRef
	for i := range m.Batches {
		b := &m.Batches[i]
		if b.Spreadsheet != nil {
			refs = append(refs, workbookRef{path: b.Spreadsheet.URL, spreadsheet: b.Spreadsheet.ID, endpoint: b.Spreadsheet.Endpoint, study: m.Study, batch: b, man: m})
			continue
		}
		refs = append(refs, workbookRef{path: filepath.Join(dir, b.File), study: m.Study, batch: b, man: m})
	}
	return refs
}

// pullAll reads every workbook. A workbook that cannot be read at all is an
// error; so is a workbook of another template or study given by name. A
// workbook the manifest lists that is not there, or is not the one it lists
// (another study's, another batch's), turns its units into missing records,
// with an error that says why, unless another workbook given holds that
// batch (a returned copy, say). Several workbooks of one batch are merged
// unit by unit (see mergeCopies).
func pullAll(ctx context.Context, refs []workbookRef, opt pullOptions, stderr io.Writer) (*pullResult, error) {
	res := &pullResult{}
	orders := map[string]map[string][]string{}
	for _, ref := range refs {
		if ref.man != nil && ref.man.Orders != nil {
			orders[ref.man.Study] = ref.man.Orders
		}
	}
	type batchKey struct{ study, batch string }
	var (
		order   []batchKey                 // batches in the order of the sources
		seenKey = map[batchKey]bool{}      // in order
		copies  = map[batchKey][]*pulled{} // the workbooks read of each batch
		listed  = map[batchKey]workbookRef{}
		why     = map[batchKey]string{} // why a listed workbook gave nothing
		seen    = map[string]bool{}
	)
	note := func(k batchKey) {
		if !seenKey[k] {
			seenKey[k] = true
			order = append(order, k)
		}
	}
	var client *sheets.Client
	bar := newProgress(stderr, int64(len(refs)), "reading workbooks")
	defer bar.Finish()
	for _, ref := range refs {
		bar.Add(1)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if ref.batch != nil {
			k := batchKey{ref.study, ref.batch.ID}
			note(k)
			listed[k] = ref
		}
		// The same workbook given twice (a folder and a file in it, say) is
		// read once.
		if key := ref.key(); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		g, closeFn, missing, err := openRef(ctx, ref, opt, &client, stderr)
		if err != nil {
			return nil, err
		}
		if missing != "" {
			why[batchKey{ref.study, ref.batch.ID}] = missing
			continue
		}
		popt := mapping.PullOptions{Template: opt.Template, Study: ref.study, StudyOrders: orders}
		if ref.man != nil {
			popt.Template, popt.Version = ref.man.Template.Name, ref.man.Template.Version
		}
		p, err := mapping.Pull(g, popt)
		closeFn()
		if errors.Is(err, mapping.ErrOtherStudy) || errors.Is(err, mapping.ErrNotWorkbook) {
			switch {
			case ref.batch != nil:
				// Not the workbook the study made for this batch: its
				// units are not in hand.
				why[batchKey{ref.study, ref.batch.ID}] = "is not the one the manifest lists (" + strings.TrimPrefix(err.Error(), g.Name+": ") + ")"
				continue
			case ref.beside:
				res.problems = append(res.problems, &mapping.Problem{Severity: mapping.Warning, File: g.Name,
					Message: "not read: it is in the study's folder but not of its study (" + strings.TrimPrefix(err.Error(), g.Name+": ") + ")"})
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		k := batchKey{p.Meta.Study, p.Meta.Batch}
		if ref.batch != nil && p.Meta.Batch != ref.batch.ID {
			why[batchKey{ref.study, ref.batch.ID}] = fmt.Sprintf("is not the one the manifest lists (it is batch %s)", p.Meta.Batch)
		}
		note(k)
		copies[k] = append(copies[k], &pulled{name: g.Name, p: p})
		res.books = append(res.books, bookSummary{File: g.Name, Template: p.Meta.Template, Batch: p.Meta.Batch, Study: p.Meta.Study, Units: len(p.Units)})
	}
	for _, k := range order {
		books := copies[k]
		if len(books) == 0 {
			res.missingWorkbook(listed[k], why[k])
			continue
		}
		recs, probs, err := mergeCopies(books)
		if err != nil {
			return nil, err
		}
		res.records = append(res.records, recs...)
		res.problems = append(res.problems, probs...)
	}
	return res, nil
}

// openRef opens the grid of a workbook. For a workbook the manifest lists
// that is not there, it says why instead (missing).
func openRef(ctx context.Context, ref workbookRef, opt pullOptions, client **sheets.Client, stderr io.Writer) (g *backend.Grid, closeFn func() error, missing string, err error) {
	if ref.spreadsheet == "" {
		switch {
		case ref.batch != nil && ref.batch.File == "":
			return nil, nil, "was never made (generate did not finish)", nil
		case ref.batch != nil:
			if _, err := os.Stat(ref.path); err != nil {
				return nil, nil, "is missing", nil
			}
		}
		g, closeFn, err = xlsx.Open(ref.path)
		return g, closeFn, "", err
	}
	if ref.batch != nil && ref.endpoint != opt.Google.Endpoint {
		if ref.endpoint == "" {
			return nil, nil, "", usagef("the spreadsheet of batch %s is on Google: leave out --endpoint (and %s)", ref.batch.ID, envEndpoint)
		}
		return nil, nil, "", usagef("the spreadsheet of batch %s is on %s (a dry run): give --endpoint %s --no-auth", ref.batch.ID, ref.endpoint, ref.endpoint)
	}
	if *client == nil {
		c, err := opt.Google.client(ctx, stderr)
		if err != nil {
			return nil, nil, "", err
		}
		*client = c
	}
	g, closeFn, err = (*client).Open(ctx, ref.spreadsheet)
	var ge *googleapi.Error
	if ref.batch != nil && errors.As(err, &ge) && ge.Code == http.StatusNotFound {
		return nil, nil, "was not found, or this sign-in cannot open it (annosheet reaches only the spreadsheets it made while signed in as the same account)", nil
	}
	if err != nil {
		return nil, nil, "", explainGoogle(err)
	}
	return g, closeFn, "", nil
}

// key identifies the workbook a ref reads, whatever path led to it.
func (ref workbookRef) key() string {
	if ref.spreadsheet != "" {
		return "gsheets:" + ref.spreadsheet
	}
	key := ref.path
	if abs, err := filepath.Abs(ref.path); err == nil {
		key = abs
		if resolved, err := filepath.EvalSymlinks(abs); err == nil {
			key = resolved
		}
	}
	return key
}

// missingWorkbook records every unit of a workbook that was not returned.
func (res *pullResult) missingWorkbook(ref workbookRef, why string) {
	if why == "" {
		why = "is not the one the manifest lists (it was read as another study's or batch's)"
	}
	name, kind := filepath.Base(ref.path), "xlsx"
	if ref.spreadsheet != "" {
		name, kind = ref.spreadsheet, "gsheets"
	}
	res.problems = append(res.problems, &mapping.Problem{Severity: mapping.Error, File: name, Err: mapping.ErrMissingUnit,
		Message: fmt.Sprintf("the workbook of batch %s %s; its %d units are reported missing", ref.batch.ID, why, len(ref.batch.Units))})
	for _, u := range ref.batch.Units {
		res.records = append(res.records, &mapping.Annotation{
			Schema:   mapping.AnnotationSchema,
			Template: mapping.TemplateID{Name: ref.man.Template.Name, Version: ref.man.Template.Version},
			Batch:    ref.batch.ID, Unit: u.ID, Item: u.Item, Annotator: ref.batch.Annotator, Status: mapping.StatusMissing,
			Values: map[string]any{}, Source: mapping.RecordSource{Kind: kind, File: name, Rows: []int{}},
			Problems: []mapping.UnitProblem{{Severity: mapping.Error, Message: "the workbook " + why}},
		})
	}
}

// counts tallies records by status and problems by severity.
func (res *pullResult) counts() map[string]int {
	c := map[string]int{"records": len(res.records)}
	for _, s := range []string{mapping.StatusComplete, mapping.StatusPartial, mapping.StatusEmpty, mapping.StatusMissing} {
		c[s] = 0
	}
	for _, r := range res.records {
		c[r.Status]++
	}
	c["errors"], c["warnings"] = 0, 0
	for _, p := range res.problems {
		if p.Severity == mapping.Error {
			c["errors"]++
		} else {
			c["warnings"]++
		}
	}
	return c
}

func runPull(ctx context.Context, opt pullOptions, stdout, stderr io.Writer) error {
	refs, err := expandSources(opt.Sources)
	if err != nil {
		return err
	}
	res, err := pullAll(ctx, refs, opt, stderr)
	if err != nil {
		return err
	}
	res.problems.Sort()
	for _, p := range res.problems {
		fmt.Fprintln(stderr, p.Error())
	}
	write := func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, r := range res.records {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if opt.Out == "" {
		if err := write(stdout); err != nil {
			return err
		}
	} else if err := atomicfile.Write(opt.Out, true, 0o644, write); err != nil {
		return fmt.Errorf("write %s: %w", opt.Out, err)
	}
	c := res.counts()
	if opt.Report != "" {
		report := struct {
			Schema    string           `json:"schema"`
			Workbooks []bookSummary    `json:"workbooks"`
			Counts    map[string]int   `json:"counts"`
			Problems  mapping.Problems `json:"problems"`
		}{"annosheet.report/1", res.books, c, res.problems}
		if report.Problems == nil {
			report.Problems = mapping.Problems{}
		}
		err := atomicfile.Write(opt.Report, true, 0o644, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(report)
		})
		if err != nil {
			return fmt.Errorf("write %s: %w", opt.Report, err)
		}
	}
	fmt.Fprintf(stderr, "pulled %d records from %d workbook(s): %d complete, %d partial, %d empty, %d missing; %d errors, %d warnings\n",
		c["records"], len(res.books), c[mapping.StatusComplete], c[mapping.StatusPartial], c[mapping.StatusEmpty], c[mapping.StatusMissing], c["errors"], c["warnings"])
	if opt.Strict && c["errors"] > 0 {
		return errStrict
	}
	return nil
}
