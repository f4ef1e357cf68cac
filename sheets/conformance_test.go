package sheets_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/googleauth"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/testkit/backendtest"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// TestConformance runs the suite through the real client against the
// fake server.
func TestConformance(t *testing.T) {
	backendtest.Run(t, newSheetsBackend(t))
}

// TestConformanceRealGoogle runs the suite against Google itself; see
// realGoogle for what it needs.
func TestConformanceRealGoogle(t *testing.T) {
	g := realGoogle(t)
	if g == nil {
		t.Skip("real Google not configured: set ANNOSHEET_TEST_GOOGLE_FOLDER to a Drive folder ID, and sign in with 'annosheet auth login' or set GOOGLE_APPLICATION_CREDENTIALS")
	}
	backendtest.Run(t, g)
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

// sheetsBackend writes spreadsheets with the real client; it reads what
// they offer with the Sheets API itself.
type sheetsBackend struct {
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
	return &sheetsBackend{c: c, ctx: ctx}
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
	return &sheetsBackend{c: c, ctx: ctx, folder: folder, remove: true}
}

func (b *sheetsBackend) Store() backend.Store {
	return sheets.Store{Client: func(context.Context) (*sheets.Client, error) { return b.c, nil }, Folder: b.folder}
}

func (*sheetsBackend) Target(*testing.T) backend.Location {
	return backend.Location{Kind: backend.KindGSheets}
}

func (b *sheetsBackend) Created(t *testing.T, at backend.Location) {
	if !b.remove {
		return
	}
	t.Cleanup(func() {
		if err := b.c.Drive.Files.Delete(at.ID).SupportsAllDrives(true).Context(b.ctx).Do(); err != nil {
			t.Errorf("delete test spreadsheet %s: %v", at.ID, err)
		}
	})
}

func (b *sheetsBackend) Fill(t *testing.T, at backend.Location) *goldtest.Workbook {
	w, err := goldtest.OpenSpreadsheet(b.ctx, b.c.Sheets, at.ID)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (b *sheetsBackend) Offer(t *testing.T, at backend.Location) *backendtest.Offer {
	ss, err := b.c.Sheets.Spreadsheets.Get(at.ID).IncludeGridData(true).Context(b.ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	o := &backendtest.Offer{Validations: map[string]string{}, Fills: map[string]string{}, Notes: map[string]string{}}
	sort.SliceStable(ss.Sheets, func(i, j int) bool { return ss.Sheets[i].Properties.Index < ss.Sheets[j].Properties.Index })
	var ann *sheetsapi.Sheet
	for _, s := range ss.Sheets {
		name := s.Properties.Title
		if s.Properties.Hidden {
			name += " (hidden)"
		}
		o.Tabs = append(o.Tabs, name)
		if s.Properties.Title == backend.SheetAnnotate {
			ann = s
		}
		if s.Properties.Title == backend.SheetMeta && len(s.Data) > 0 {
			for r, rd := range s.Data[0].RowData {
				for c, cd := range rd.Values {
					if v := cd.UserEnteredValue; v != nil && v.FormulaValue != nil {
						if o.MetaFormulas == nil {
							o.MetaFormulas = map[string]string{}
						}
						o.MetaFormulas[backend.CellName(c, r+1)] = planFormula(*v.FormulaValue)
					}
				}
			}
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
	o.Open = backendtest.SheetsOpen(ann)
	for r, rd := range gd.RowData {
		for c, cd := range rd.Values {
			cell := backend.CellName(c, r+1)
			if r < int(gp.RowCount) && c < ncol {
				fill := "FFFFFF"
				if f := cd.UserEnteredFormat; f != nil && f.BackgroundColor != nil {
					fill = sheetsColor(f.BackgroundColor)
				}
				o.Fills[cell] = fill
			}
			if cd.DataValidation != nil {
				o.Validations[cell] = backendtest.SheetsRule(cd.DataValidation)
			}
			if cd.Note != "" {
				o.Notes[cell] = cd.Note
			}
			if v := cd.UserEnteredValue; v != nil && v.FormulaValue != nil {
				if o.Formulas == nil {
					o.Formulas = map[string]string{}
				}
				o.Formulas[cell] = planFormula(*v.FormulaValue)
			}
		}
	}
	o.Links, o.TextLinks = sheetsLinks(t, ss)
	for _, cf := range ann.ConditionalFormats {
		g := cf.Ranges[0]
		rng := backend.CellName(int(g.StartColumnIndex), int(g.StartRowIndex+1)) + ":" + backend.CellName(int(g.EndColumnIndex-1), int(g.EndRowIndex))
		o.Conditional = append(o.Conditional, backendtest.ConditionalText(rng, backendtest.SheetsLook(cf.BooleanRule.Format), planFormula(cf.BooleanRule.Condition.Values[0].UserEnteredValue)))
	}
	return o
}

// sheetsLinks lists the links of every sheet that point inside the
// spreadsheet (#gid=ID&range=A1), naming the sheet of each ID: those of
// whole cells, and those from a part of a text on.
func sheetsLinks(t *testing.T, ss *sheetsapi.Spreadsheet) (whole, part map[string]string) {
	titles := map[string]string{}
	for _, s := range ss.Sheets {
		titles[fmt.Sprint(s.Properties.SheetId)] = s.Properties.Title
	}
	whole, part = map[string]string{}, map[string]string{}
	for _, s := range ss.Sheets {
		for r, rd := range s.Data[0].RowData {
			for c, cd := range rd.Values {
				for _, run := range cd.TextFormatRuns {
					if run.Format == nil || run.Format.Link == nil {
						continue
					}
					uri := run.Format.Link.Uri
					gid, rng, ok := strings.Cut(strings.TrimPrefix(uri, "#gid="), "&range=")
					if !ok || titles[gid] == "" {
						t.Errorf("%s!%s links to %q, not to a cell of the spreadsheet", s.Properties.Title, backend.CellName(c, r+1), uri)
						continue
					}
					links := whole
					if run.StartIndex > 0 {
						links = part
					}
					links[s.Properties.Title+"!"+backend.CellName(c, r+1)] = titles[gid] + "!" + rng
				}
			}
		}
	}
	return whole, part
}

func sheetsColor(c *sheetsapi.Color) string {
	b := func(x float64) int { return int(math.Round(x * 255)) }
	return fmt.Sprintf("%02X%02X%02X", b(c.Red), b(c.Green), b(c.Blue))
}
