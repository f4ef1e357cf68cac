package goldtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/mapping"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/googleauth"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/xlsx"
)

// The conformance suite: one test body, run against the XLSX backend and
// the Google Sheets backend (through the real client, against the fake
// server). For each built-in template on the real data, both must offer
// the annotator the same sheet — tabs, headers, cells, dropdowns,
// checkboxes, ranges, bands, frozen header, hidden columns, which columns
// are open — and the same answers, filled the way each application stores
// them, must pull to the same canonical JSON.

// backend makes, fills and reads workbooks of one kind.
type backend interface {
	name() string
	kind() string // the grid kind pull records
	cellLimit() int
	// write renders a plan and returns its reference (a path or an ID).
	write(t *testing.T, p *mapping.Plan) string
	open(t *testing.T, ref string) *Workbook
	grid(t *testing.T, ref string) *mapping.Grid
	offer(t *testing.T, ref string) *offer
}

// offer is what an annotator is offered, in terms common to both backends.
type offer struct {
	Tabs        []string          // name, with "(hidden)" when hidden
	Frozen      [2]int            // rows, columns of the Annotate sheet
	Hidden      []int             // hidden columns of the Annotate sheet
	Open        []int             // columns annotators may edit on the first data row
	Validations map[string]string // Annotate cell -> rule
	Fills       map[string]string // Annotate cell -> RRGGBB
	Notes       map[string]string // Annotate cell -> note text
}

type conformanceCase struct {
	template string // a built-in, or a template file
	input    string
	// fill answers every unit the way an annotator would.
	fill func(t *testing.T, w *Workbook, tp *templates.Template)
}

func conformanceCases() []conformanceCase {
	return []conformanceCase{
		{"legal-gaps", data + "legal-gaps/examples.sample.jsonl", func(t *testing.T, w *Workbook, _ *templates.Template) {
			recs, err := ReadJSONL[LegalRecord](data + "legal-gaps/examples.sample.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if err := FillLegal(w, recs, "gold"); err != nil {
				t.Fatal(err)
			}
		}},
		{"qa-span-errors", data + "qa-feedback/dev_feedback.sample.json", func(t *testing.T, w *Workbook, tp *templates.Template) {
			recs, err := ReadQA(data + "qa-feedback/dev_feedback.sample.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := FillQA(w, tp, recs, "gold"); err != nil {
				t.Fatal(err)
			}
		}},
		{"preference-likert", data + "preference/preference_json_1.json", func(t *testing.T, w *Workbook, _ *templates.Template) {
			if err := FillPreference(w, w.Units, "1"); err != nil {
				t.Fatal(err)
			}
		}},
		{"factgenie-meta-eval", data + "factgenie-d2t", func(t *testing.T, w *Workbook, _ *templates.Template) {
			if err := FillFactgenie(w); err != nil {
				t.Fatal(err)
			}
		}},
		// A scheme of a coordinator's own: blocks, spans, two dropdowns of
		// labels with colons, a scale, the rater on the left.
		{"../../testdata/templates/mqm.yaml", data + "mqm/segments.jsonl", func(t *testing.T, w *Workbook, _ *templates.Template) {
			for i, u := range w.Units {
				row := w.Rows[u][0]
				set := map[string]any{"annotator": "r1", "q:no_errors": i%2 == 0}
				if i%2 == 1 {
					set["q:category"], set["q:severity"], set["q:confidence"] = "Style", "Minor", 2
				}
				for k, v := range set {
					if err := w.Set(row, k, v); err != nil {
						t.Fatal(err)
					}
				}
			}
		}},
	}
}

func TestConformance(t *testing.T) {
	conformance(t, &xlsxBackend{dir: t.TempDir()}, newSheetsBackend(t))
}

// TestConformanceRealGoogle runs the suite against Google itself; see
// realGoogle for what it needs.
func TestConformanceRealGoogle(t *testing.T) {
	g := realGoogle(t)
	if g == nil {
		t.Skip("real Google not configured: set ANNOSHEET_TEST_GOOGLE_FOLDER to a Drive folder ID, and sign in with 'annosheet auth login' or set GOOGLE_APPLICATION_CREDENTIALS")
	}
	conformance(t, &xlsxBackend{dir: t.TempDir()}, g)
}

// TestRealGoogleHarness runs the real-Google test's harness against the
// fake, signed in as a service account with a shared-drive folder, as a
// lab would run it: everything it makes is deleted afterwards.
func TestRealGoogleHarness(t *testing.T) {
	fake, srv, err := sheetsfake.Start(sheetsfake.Options{RequireAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const email = "conformance@lab.iam.gserviceaccount.com"
	keyFile := filepath.Join(t.TempDir(), "key.json")
	if err := fake.WriteServiceAccountKey(keyFile, email); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", keyFile)
	t.Setenv("ANNOSHEET_TEST_GOOGLE_FOLDER", fake.AddFolder("conformance", true, email))
	t.Setenv("ANNOSHEET_TEST_GOOGLE_ENDPOINT", srv.URL)
	t.Run("suite", TestConformanceRealGoogle)
	if left := fake.Spreadsheets(); len(left) != 0 {
		t.Errorf("%d spreadsheets left behind: %v", len(left), left)
	}
}

// conformance runs the suite, comparing every backend with the first.
func conformance(t *testing.T, backends ...backend) {
	for _, tc := range conformanceCases() {
		t.Run(filepath.Base(tc.template), func(t *testing.T) {
			tp, err := input.Template(tc.template, nil)
			if err != nil {
				t.Fatal(err)
			}
			refs := map[string]string{}
			offers := map[string]*offer{}
			grids := map[string][][]string{}
			for _, b := range backends {
				src, err := input.Open(tp.Input.Format, []string{tc.input})
				if err != nil {
					t.Fatal(err)
				}
				res, err := mapping.Build(tp, src, mapping.Options{Study: "conformance", Seed: 7, CellLimit: b.cellLimit()})
				if err != nil {
					t.Fatal(err)
				}
				refs[b.name()] = b.write(t, res.Plan)
				offers[b.name()] = b.offer(t, refs[b.name()])
				grids[b.name()] = gridCells(t, b.grid(t, refs[b.name()]))
			}
			x := backends[0].name()
			for _, b := range backends[1:] {
				s := b.name()
				if diff := cmp.Diff(offers[x], offers[s]); diff != "" {
					t.Errorf("%s and %s offer different sheets (-%s +%s):\n%s", x, s, x, s, diff)
				}
				if diff := cmp.Diff(grids[x], grids[s]); diff != "" {
					t.Errorf("%s and %s hold different cells (-%s +%s):\n%s", x, s, x, s, diff)
				}
			}
			o := offers[x]
			if len(o.Validations) == 0 || len(o.Open) == 0 || len(o.Fills) == 0 || o.Frozen[0] != 1 {
				t.Errorf("the offer is thin: %d validations, %d open columns, %d fills, frozen %v", len(o.Validations), len(o.Open), len(o.Fills), o.Frozen)
			}

			// Fill both the same way, pull both: the same records.
			pulled := map[string][]*mapping.Annotation{}
			for _, b := range backends {
				w := b.open(t, refs[b.name()])
				tc.fill(t, w, tp)
				if err := w.Save(); err != nil {
					t.Fatal(err)
				}
				p, err := mapping.Pull(b.grid(t, refs[b.name()]), mapping.PullOptions{Template: tp.Name, Study: "conformance"})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.Records {
					if r.Source.Kind != b.kind() {
						t.Errorf("%s: source kind %q", b.name(), r.Source.Kind)
					}
					r.Source.Kind, r.Source.File = "", ""
				}
				pulled[b.name()] = p.Records
				complete, answered := 0, 0
				for _, r := range p.Records {
					if r.Status == mapping.StatusComplete {
						complete++
					}
					if r.Status != mapping.StatusEmpty {
						answered++
					}
				}
				t.Logf("%s: %d records, %d complete, %d problems", b.name(), len(p.Records), complete, len(p.Problems))
				if answered == 0 {
					t.Errorf("%s: no answered record after filling", b.name())
				}
			}
			for _, b := range backends[1:] {
				s := b.name()
				if diff := cmp.Diff(pulled[x], pulled[s]); diff != "" {
					t.Errorf("the same answers pull differently from %s and %s (-%s +%s):\n%s", x, s, x, s, diff)
				}
			}
		})
	}
}

// gridCells is every non-empty row of every sheet, as pull reads it.
func gridCells(t *testing.T, g *mapping.Grid) [][]string {
	t.Helper()
	var out [][]string
	for _, sh := range g.Sheets {
		err := g.Rows(sh, func(row int, cells []string) error {
			for len(cells) > 0 && cells[len(cells)-1] == "" {
				cells = cells[:len(cells)-1]
			}
			if len(cells) > 0 {
				out = append(out, append([]string{fmt.Sprintf("%s!%d", sh, row)}, cells...))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// The XLSX backend.

type xlsxBackend struct{ dir string }

func (*xlsxBackend) name() string   { return "xlsx" }
func (*xlsxBackend) kind() string   { return "xlsx" }
func (*xlsxBackend) cellLimit() int { return mapping.XLSXCellLimit }

func (b *xlsxBackend) write(t *testing.T, p *mapping.Plan) string {
	f, err := os.CreateTemp(b.dir, "*.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := xlsx.Write(p, f, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

func (*xlsxBackend) open(t *testing.T, ref string) *Workbook {
	w, err := OpenWorkbook(ref)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (*xlsxBackend) grid(t *testing.T, ref string) *mapping.Grid {
	g, closeFn, err := xlsx.Open(ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeFn() })
	return g
}

func (*xlsxBackend) offer(t *testing.T, ref string) *offer {
	f, err := excelize.OpenFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o := &offer{Validations: map[string]string{}, Fills: map[string]string{}, Notes: map[string]string{}}
	for _, name := range f.GetSheetList() {
		if vis, _ := f.GetSheetVisible(name); !vis {
			name += " (hidden)"
		}
		o.Tabs = append(o.Tabs, name)
	}
	const sh = mapping.SheetAnnotate
	panes, err := f.GetPanes(sh)
	if err != nil {
		t.Fatal(err)
	}
	if panes.Freeze {
		o.Frozen = [2]int{panes.YSplit, panes.XSplit}
	}
	rows, err := f.GetRows(sh)
	if err != nil {
		t.Fatal(err)
	}
	ncol := len(rows[0])
	for c := 0; c < ncol; c++ {
		letter := mapping.ColumnLetter(c)
		if vis, _ := f.GetColVisible(sh, letter); !vis {
			o.Hidden = append(o.Hidden, c)
		}
		if st := cellStyle(t, f, sh, mapping.CellName(c, 2)); st.Protection != nil && !st.Protection.Locked {
			o.Open = append(o.Open, c)
		}
	}
	dvs, err := f.GetDataValidations(sh)
	if err != nil {
		t.Fatal(err)
	}
	for _, dv := range dvs {
		rule := xlsxRule(dv)
		for _, rng := range strings.Fields(dv.Sqref) {
			for _, cell := range expand(t, rng) {
				o.Validations[cell] = rule
			}
		}
	}
	for r := 1; r <= len(rows); r++ {
		for c := 0; c < ncol; c++ {
			cell := mapping.CellName(c, r)
			fill := "FFFFFF"
			if st := cellStyle(t, f, sh, cell); st.Fill.Pattern == 1 && len(st.Fill.Color) > 0 {
				fill = hexColor(st.Fill.Color[0])
			}
			o.Fills[cell] = fill
		}
	}
	comments, err := f.GetComments(sh)
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range comments {
		text := cm.Text
		if text == "" {
			for _, r := range cm.Paragraph {
				text += r.Text
			}
		}
		o.Notes[cm.Cell] = strings.TrimPrefix(text, cm.Author+":")
	}
	return o
}

func cellStyle(t *testing.T, f *excelize.File, sheet, cell string) *excelize.Style {
	id, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func xlsxRule(dv *excelize.DataValidation) string {
	strict := dv.ErrorStyle == nil || *dv.ErrorStyle == "stop"
	var rule string
	switch dv.Type {
	case "list":
		f := strings.Trim(dv.Formula1, `"`)
		switch {
		case f == "TRUE,FALSE":
			rule = "checkbox"
		case strings.Contains(f, "!"):
			rule = "range " + f
		default:
			rule = "list " + f
		}
	case "whole":
		rule = fmt.Sprintf("number %s..%s", dv.Formula1, dv.Formula2)
	default:
		return "any" // a prompt alone
	}
	return fmt.Sprintf("%s strict=%v", rule, strict)
}

// expand lists the cells of an A1 range.
func expand(t *testing.T, rng string) []string {
	from, to, ok := strings.Cut(rng, ":")
	if !ok {
		to = from
	}
	c0, r0, err := excelize.CellNameToCoordinates(from)
	if err != nil {
		t.Fatal(err)
	}
	c1, r1, err := excelize.CellNameToCoordinates(to)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			out = append(out, mapping.CellName(c-1, r))
		}
	}
	return out
}

func hexColor(s string) string {
	s = strings.ToUpper(strings.TrimPrefix(s, "#"))
	if len(s) == 8 {
		s = s[2:]
	}
	return s
}

// The Google Sheets backend, through the real client against the fake.

type sheetsBackend struct {
	label  string
	c      *sheets.Client
	ctx    context.Context
	folder string
	// remove deletes what the test made (on real Google).
	remove bool
}

func newSheetsBackend(t *testing.T) *sheetsBackend {
	_, srv, err := sheetsfake.Start(sheetsfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ctx := context.Background()
	c, err := sheets.New(ctx, sheets.Options{Endpoint: srv.URL, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	return &sheetsBackend{label: "gsheets", c: c, ctx: ctx}
}

// realGoogle is the Sheets backend on Google itself, when the environment
// names a Drive folder to work in (ANNOSHEET_TEST_GOOGLE_FOLDER) and
// credentials: a service account key in GOOGLE_APPLICATION_CREDENTIALS,
// or the token 'annosheet auth login' saved. Everything it makes is
// deleted afterwards. Without a folder it is nil.
func realGoogle(t *testing.T) *sheetsBackend {
	folder := os.Getenv("ANNOSHEET_TEST_GOOGLE_FOLDER")
	if folder == "" {
		return nil
	}
	ctx := context.Background()
	// ANNOSHEET_TEST_GOOGLE_ENDPOINT points the harness elsewhere (a fake,
	// to test the harness itself).
	o := sheets.Options{CredentialsFile: os.Getenv("GOOGLE_APPLICATION_CREDENTIALS"), Endpoint: os.Getenv("ANNOSHEET_TEST_GOOGLE_ENDPOINT")}
	if o.CredentialsFile == "" {
		path, err := googleauth.DefaultPath()
		if err != nil {
			t.Fatal(err)
		}
		if o.TokenSource, err = (googleauth.Store{Path: path}).TokenSource(ctx); err != nil {
			t.Fatalf("ANNOSHEET_TEST_GOOGLE_FOLDER is set, but: %v", err)
		}
	}
	c, err := sheets.New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return &sheetsBackend{label: "google", c: c, ctx: ctx, folder: folder, remove: true}
}

func (b *sheetsBackend) name() string { return b.label }
func (*sheetsBackend) kind() string   { return "gsheets" }
func (*sheetsBackend) cellLimit() int { return mapping.SheetsCellLimit }

func (b *sheetsBackend) write(t *testing.T, p *mapping.Plan) string {
	w, err := b.c.Write(b.ctx, p, sheets.WriteOptions{Folder: b.folder})
	var inc *sheets.IncompleteError
	if b.remove && (err == nil || errors.As(err, &inc)) {
		id := w.ID // Write returns what it made, finished or not
		if inc != nil {
			id = inc.ID
		}
		t.Cleanup(func() {
			if err := b.c.Drive.Files.Delete(id).SupportsAllDrives(true).Context(b.ctx).Do(); err != nil {
				t.Errorf("delete test spreadsheet %s: %v", id, err)
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return w.ID
}

func (b *sheetsBackend) open(t *testing.T, ref string) *Workbook {
	w, err := OpenSpreadsheet(b.ctx, b.c.Sheets, ref)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (b *sheetsBackend) grid(t *testing.T, ref string) *mapping.Grid {
	g, closeFn, err := b.c.Open(b.ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeFn() })
	return g
}

func (b *sheetsBackend) offer(t *testing.T, ref string) *offer {
	ss, err := b.c.Sheets.Spreadsheets.Get(ref).IncludeGridData(true).Context(b.ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	o := &offer{Validations: map[string]string{}, Fills: map[string]string{}, Notes: map[string]string{}}
	sort.SliceStable(ss.Sheets, func(i, j int) bool { return ss.Sheets[i].Properties.Index < ss.Sheets[j].Properties.Index })
	var ann *sheetsapi.Sheet
	for _, s := range ss.Sheets {
		name := s.Properties.Title
		if s.Properties.Hidden {
			name += " (hidden)"
		}
		o.Tabs = append(o.Tabs, name)
		if s.Properties.Title == mapping.SheetAnnotate {
			ann = s
		}
	}
	gp := ann.Properties.GridProperties
	o.Frozen = [2]int{int(gp.FrozenRowCount), int(gp.FrozenColumnCount)}
	gd := ann.Data[0]
	ncol := len(gd.RowData[0].Values)
	for c := 0; c < ncol; c++ {
		if gd.ColumnMetadata[c].HiddenByUser {
			o.Hidden = append(o.Hidden, c)
		}
	}
	// Open columns: those an unprotected range of the sheet's protection
	// covers on the first data row.
	for _, pr := range ann.ProtectedRanges {
		for _, u := range pr.UnprotectedRanges {
			if u.StartRowIndex <= 1 && 1 < u.EndRowIndex {
				for c := u.StartColumnIndex; c < u.EndColumnIndex; c++ {
					o.Open = append(o.Open, int(c))
				}
			}
		}
	}
	sort.Ints(o.Open)
	for r, rd := range gd.RowData {
		for c, cd := range rd.Values {
			cell := mapping.CellName(c, r+1)
			if r < int(gp.RowCount) && c < ncol {
				fill := "FFFFFF"
				if f := cd.UserEnteredFormat; f != nil && f.BackgroundColor != nil {
					fill = sheetsColor(f.BackgroundColor)
				}
				o.Fills[cell] = fill
			}
			if cd.DataValidation != nil {
				o.Validations[cell] = sheetsRule(cd.DataValidation)
			}
			if cd.Note != "" {
				o.Notes[cell] = cd.Note
			}
		}
	}
	return o
}

func sheetsColor(c *sheetsapi.Color) string {
	b := func(x float64) int { return int(math.Round(x * 255)) }
	return fmt.Sprintf("%02X%02X%02X", b(c.Red), b(c.Green), b(c.Blue))
}

func sheetsRule(r *sheetsapi.DataValidationRule) string {
	var vals []string
	for _, v := range r.Condition.Values {
		vals = append(vals, v.UserEnteredValue)
	}
	var rule string
	switch r.Condition.Type {
	case "BOOLEAN":
		rule = "checkbox"
	case "ONE_OF_LIST":
		rule = "list " + strings.Join(vals, ",")
	case "ONE_OF_RANGE":
		rule = "range " + strings.TrimPrefix(vals[0], "=")
	case "NUMBER_BETWEEN":
		rule = fmt.Sprintf("number %s..%s", vals[0], vals[1])
	case "CUSTOM_FORMULA":
		if vals[0] == "=TRUE" {
			return "any" // a prompt alone
		}
		rule = "formula " + vals[0]
	default:
		rule = r.Condition.Type
	}
	return fmt.Sprintf("%s strict=%v", rule, r.Strict)
}
