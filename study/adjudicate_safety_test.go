package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/backendtest"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/filename"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// cellBook is a workbook held as the cells a backend reads back.
type cellBook struct {
	order  []string
	sheets map[string][][]backend.ReadCell
}

// adjStore is a backend.Store, Files and Spreadsheets of adjudication
// workbooks in memory: XLSX files by path, spreadsheets by ID. fail, when
// set, fails the n-th Write of the store's life (1-based); with wipe, a
// failing Write of a spreadsheet that exists empties it first, as a
// rewrite of a Google spreadsheet that stops after clearing it does.
type adjStore struct {
	kind   string
	books  map[string]*cellBook
	writes int
	fail   func(n int, at backend.Location) error
	wipe   bool
	// saves counts the saves of each workbook, its version; edit saves
	// one as a person would.
	saves map[string]int
	// beforeWrite, when set, is called at the start of each Write;
	// afterRead when a workbook read is closed.
	beforeWrite, afterRead func(at backend.Location)
}

func newAdjStore(kind string) *adjStore {
	return &adjStore{kind: kind, books: map[string]*cellBook{}, saves: map[string]int{}}
}

func (s *adjStore) Version(_ context.Context, at backend.Location) (string, error) {
	if _, ok := s.books[key(at)]; !ok {
		return "", nil
	}
	return fmt.Sprint(s.saves[key(at)]), nil
}

func (s *adjStore) Limits() backend.Limits {
	if s.kind == backend.KindGSheets {
		return backend.GSheets
	}
	return backend.XLSX
}

func key(at backend.Location) string {
	if at.Kind == backend.KindGSheets {
		return at.ID
	}
	return at.Path
}

func (s *adjStore) Readable(string) (bool, string) { return true, "" }
func (s *adjStore) ID(link string) (string, bool)  { return link, true }

func (s *adjStore) Exists(_ context.Context, at backend.Location) (bool, error) {
	_, ok := s.books[key(at)]
	return ok, nil
}

func (s *adjStore) Write(ctx context.Context, p *backend.Plan, at backend.Location, opt backend.WriteOptions) (backend.Location, error) {
	if s.beforeWrite != nil {
		s.beforeWrite(at)
	}
	if opt.Expect != nil {
		if v, _ := s.Version(ctx, at); v != *opt.Expect {
			return at, fmt.Errorf("%s: %w", at, backend.ErrChanged)
		}
	}
	s.writes++
	if at.Kind == backend.KindGSheets && at.ID == "" {
		at.ID = fmt.Sprintf("sheet%d", s.writes)
		at.URL = "sheet:" + at.ID
		s.books[at.ID] = &cellBook{sheets: map[string][][]backend.ReadCell{}}
		if opt.Created != nil {
			if err := opt.Created(at); err != nil {
				return at, err
			}
		}
	}
	if s.fail != nil {
		if err := s.fail(s.writes, at); err != nil {
			if b, ok := s.books[key(at)]; ok && s.wipe {
				b.order, b.sheets = nil, map[string][][]backend.ReadCell{}
			}
			return at, err
		}
	}
	order, sheets, err := backendtest.PlanCells(p)
	if err != nil {
		return at, err
	}
	b := &cellBook{order: order, sheets: sheets}
	s.books[key(at)] = b
	s.saves[key(at)]++
	return at, nil
}

func (s *adjStore) Open(_ context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	b, ok := s.books[key(at)]
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w", at, ErrNotFound)
	}
	return &backend.Grid{Kind: at.Kind, Name: at.String(), Sheets: b.order, Rows: func(sheet string, fn func(int, []backend.ReadCell) error) error {
			for i, r := range b.sheets[sheet] {
				if err := fn(i+1, r); err != nil {
					return err
				}
			}
			return nil
		}}, func() error {
			if s.afterRead != nil {
				s.afterRead(at)
			}
			return nil
		}, nil
}

func (s *adjStore) backends() Backends { return Backends{Files: s, Spreadsheets: s} }

// snapshot is every workbook's cells, to compare before and after.
func (s *adjStore) snapshot() map[string]map[string][][]backend.ReadCell {
	out := map[string]map[string][][]backend.ReadCell{}
	for k, b := range s.books {
		out[k] = map[string][][]backend.ReadCell{}
		for n, rows := range b.sheets {
			for _, r := range rows {
				out[k][n] = append(out[k][n], slices.Clone(r))
			}
		}
	}
	return out
}

// sheet is a sheet of the store's only workbook, or of the one at key.
func (s *adjStore) sheet(t *testing.T, book, sheet string) [][]backend.ReadCell {
	t.Helper()
	b, ok := s.books[book]
	if !ok {
		t.Fatalf("no workbook %s among %v", book, slices.Sorted(func(yield func(string) bool) {
			for k := range s.books {
				if !yield(k) {
					return
				}
			}
		}))
	}
	rows, ok := b.sheets[sheet]
	if !ok {
		t.Fatalf("%s has no sheet %s", book, sheet)
	}
	return rows
}

// column is the 0-based column of a header on a sheet.
func column(t testing.TB, rows [][]backend.ReadCell, header string) int {
	t.Helper()
	for i, c := range rows[0] {
		if c.Value == header {
			return i
		}
	}
	t.Fatalf("no column %q", header)
	return -1
}

// set fills the cell under a header of the row of a decision ID.
func (s *adjStore) set(t *testing.T, book, sheet, id, header string, c backend.ReadCell) {
	t.Helper()
	rows := s.sheet(t, book, sheet)
	i := column(t, rows, header)
	for _, r := range rows[1:] {
		if r[0].Value == id {
			r[i] = c
			s.saves[book]++ // saved, as a person saves it
			return
		}
	}
	t.Fatalf("%s: no row %s on %s", book, id, sheet)
}

// get is the cell under a header of the row of a decision ID.
func (s *adjStore) get(t *testing.T, book, sheet, id, header string) backend.ReadCell {
	t.Helper()
	rows := s.sheet(t, book, sheet)
	i := column(t, rows, header)
	for _, r := range rows[1:] {
		if r[0].Value == id {
			return r[i]
		}
	}
	t.Fatalf("%s: no row %s on %s", book, id, sheet)
	return backend.ReadCell{}
}

// appendRow adds a row below the last of a sheet.
func (s *adjStore) appendRow(t *testing.T, book, sheet string, cells map[string]backend.ReadCell) {
	t.Helper()
	rows := s.sheet(t, book, sheet)
	r := make([]backend.ReadCell, len(rows[0]))
	for h, c := range cells {
		r[column(t, rows, h)] = c
	}
	s.books[book].sheets[sheet] = append(rows, r)
}

// copyRow pastes a decision's row again below the last.
func (s *adjStore) copyRow(t *testing.T, book, sheet, id string) {
	t.Helper()
	rows := s.sheet(t, book, sheet)
	for _, r := range rows[1:] {
		if r[0].Value == id {
			s.books[book].sheets[sheet] = append(rows, slices.Clone(r))
			return
		}
	}
	t.Fatalf("%s: no row %s on %s", book, id, sheet)
}

func text(s string) backend.ReadCell { return backend.ReadCell{Value: s} }

var tick = backend.ReadCell{Value: "TRUE", Type: backend.CellBool}

// legalRecs makes complete legal-gaps records: each "unit annotator
// codes [note]" line, codes separated by commas ("-" for none).
func legalRecs(tp *templates.Template, lines ...string) []*records.Annotation {
	var out []*records.Annotation
	for _, l := range lines {
		f := strings.Fields(l)
		codes := []string{}
		if f[2] != "-" {
			codes = strings.Split(f[2], ",")
		}
		vals := map[string]any{"gaps": codes}
		if len(f) > 3 {
			vals["note"] = strings.Join(f[3:], " ")
		}
		out = append(out, &records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: tp.Name, Version: tp.Version},
			Batch: "b01", Unit: f[0], Item: f[0], Annotator: f[1], Status: records.StatusComplete, Values: vals})
	}
	return out
}

// adjRun is an adjudication folder and its store, run again and again.
type adjRun struct {
	t     *testing.T
	tp    *templates.Template
	dir   string
	store *adjStore
	opt   AdjudicateOptions
}

func newAdjRun(t *testing.T, kind string) *adjRun {
	t.Helper()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return &adjRun{t: t, tp: tp, dir: dir, store: newAdjStore(kind), opt: AdjudicateOptions{Dir: dir, Kind: kind, Adjudicators: []string{"lead"}}}
}

// adjudicatingNotes is legal-gaps with its note adjudicated, as a
// template may ask (adjudicate: true).
func adjudicatingNotes(t *testing.T) *templates.Template {
	t.Helper()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(tp.Source), "  - name: note\n", "  - name: note\n    adjudicate: true\n", 1)
	if src == string(tp.Source) {
		t.Fatal("legal-gaps has no note question to adjudicate")
	}
	tp, err = templates.LoadWithParams("legal-gaps.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func (a *adjRun) run(recs []*records.Annotation) (*Adjudicated, error) {
	return Adjudicate(context.Background(), a.tp, recs, a.opt, a.store.backends(), a.store)
}

func (a *adjRun) mustRun(recs []*records.Annotation) *Adjudicated {
	a.t.Helper()
	res, err := a.run(recs)
	if err != nil {
		a.t.Fatal(err)
	}
	return res
}

// book is the key of workbook w of the manifest in the store.
func (a *adjRun) book(m *adjudicate.Manifest, w int) string {
	return key(bookLocation(a.dir, &m.Workbooks[w]))
}

func (a *adjRun) manifestBytes() []byte {
	a.t.Helper()
	b, err := os.ReadFile(filepath.Join(a.dir, adjudicate.ManifestFile))
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

func (a *adjRun) manifest() *adjudicate.Manifest {
	a.t.Helper()
	m, err := ReadAdjudication(filepath.Join(a.dir, adjudicate.ManifestFile))
	if err != nil {
		a.t.Fatal(err)
	}
	return m
}

// gold pulls the gold set, by unit.
func (a *adjRun) gold() (map[string]*records.Annotation, *GoldSet) {
	a.t.Helper()
	g, err := PullGold(context.Background(), a.dir, a.store.backends(), "")
	if err != nil {
		a.t.Fatal(err)
	}
	out := map[string]*records.Annotation{}
	for _, r := range g.Records {
		out[r.Unit] = r
	}
	return out, g
}

// itemOf is the ID of the item of a unit's question.
func itemOf(t *testing.T, m *adjudicate.Manifest, unit, question string) string {
	t.Helper()
	for _, it := range m.Items {
		if it.Unit == unit && it.Question == question {
			return it.ID
		}
	}
	t.Fatalf("no item of %s %s", unit, question)
	return ""
}

// gapsOf is a gold record's gaps and their provenance's kind.
func gapsOf(r *records.Annotation) string {
	if r == nil {
		return "no record"
	}
	kind := ""
	if p := r.Provenance["gaps"]; p != nil {
		kind = p.Kind
	}
	return fmt.Sprintf("%v %s", r.Values["gaps"], kind)
}

// TestAdjudicateRefusesUnplacedCells: a workbook with a row whose answers
// belong to no decision, or a Final or Note holding a formula with no
// saved value or a formula's error, is not made anew: the run fails with
// ErrUnsafeRewrite naming each such cell by file and cell, and writes
// nothing, the manifest and the workbook as they were. A row pasted twice
// with the same decision is no reason to refuse.
func TestAdjudicateRefusesUnplacedCells(t *testing.T) {
	t.Parallel()
	recs := func(tp *templates.Template) []*records.Annotation {
		return legalRecs(tp, "u1 ann1 1 odd", "u1 ann2 2 odd", "u2 ann1 0", "u2 ann2 3", "u3 ann1 2 x", "u3 ann2 2 y")
	}
	for _, c := range []struct {
		name string
		edit func(t *testing.T, s *adjStore, book string, m *adjudicate.Manifest)
		want []string // the cells named, "" to refuse nothing
	}{
		{"a row pasted twice with another decision", func(t *testing.T, s *adjStore, book string, m *adjudicate.Manifest) {
			s.copyRow(t, book, "Gaps", itemOf(t, m, "u1", "gaps"))
			rows := s.sheet(t, book, "Gaps")
			rows[len(rows)-1][column(t, rows, "Or use")] = text("Annotator 2")
		}, []string{"Gaps!A4: d0001 is on rows 2 and 4 with different decisions"}},
		{"answers on a row without an ID", func(t *testing.T, s *adjStore, book string, m *adjudicate.Manifest) {
			s.appendRow(t, book, "Gaps", map[string]backend.ReadCell{"Note": text("see the second citation")})
		}, []string{"Gaps!A4: row 4 has answers but no Decision ID"}},
		{"answers on a row of an ID of no item of the sheet", func(t *testing.T, s *adjStore, book string, m *adjudicate.Manifest) {
			s.appendRow(t, book, "Gaps", map[string]backend.ReadCell{"Decision ID": text(itemOf(t, m, "u3", "note")), "Reason": text("other")})
			s.appendRow(t, book, "Note", map[string]backend.ReadCell{"Decision ID": text("d0099"), "Final": text("a note")})
		}, []string{`Gaps!A4: "d0003" is not a decision of this sheet`, `Note!A3: "d0099" is not a decision of this sheet`}},
		{"a formula with no saved value in Final", func(t *testing.T, s *adjStore, book string, m *adjudicate.Manifest) {
			s.set(t, book, "Note", itemOf(t, m, "u3", "note"), "Final", backend.ReadCell{Type: backend.CellNoValue, Formula: "1/0"})
		}, []string{"Note!F2: a formula or a formula's error (d0003)"}},
		{"a formula's error in Note", func(t *testing.T, s *adjStore, book string, m *adjudicate.Manifest) {
			s.set(t, book, "Gaps", itemOf(t, m, "u2", "gaps"), "Note", backend.ReadCell{Value: "#DIV/0!", Type: backend.CellError})
		}, []string{"Gaps!L3: a formula or a formula's error (d0002)"}},
		{"a sheet renamed", func(t *testing.T, s *adjStore, book string, m *adjudicate.Manifest) {
			b := s.books[book]
			b.sheets["Gaps, done"] = b.sheets["Gaps"]
			delete(b.sheets, "Gaps")
			b.order[slices.Index(b.order, "Gaps")] = "Gaps, done"
		}, []string{"the sheet Gaps, done is not one adjudicate made"}},
		{"a row pasted twice with the same decision", func(t *testing.T, s *adjStore, book string, m *adjudicate.Manifest) {
			s.copyRow(t, book, "Gaps", itemOf(t, m, "u1", "gaps"))
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := newAdjRun(t, backend.KindXLSX)
			a.tp = adjudicatingNotes(t) // the note has a sheet of its own
			first := a.mustRun(recs(a.tp))
			book := a.book(first.Manifest, 0)
			d1 := itemOf(t, first.Manifest, "u1", "gaps")
			a.store.set(t, book, "Gaps", d1, "Or use", text("Annotator 1"))
			c.edit(t, a.store, book, first.Manifest)
			before, cells, writes := a.manifestBytes(), a.store.snapshot(), a.store.writes

			res, err := a.run(recs(a.tp))
			if c.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if res.Kept != 1 || a.store.get(t, book, "Gaps", d1, "Or use").Value != "Annotator 1" {
					t.Errorf("the decision of %s is not kept (%d kept)", d1, res.Kept)
				}
				return
			}
			if !errors.Is(err, ErrUnsafeRewrite) {
				t.Fatalf("the run: %v, want ErrUnsafeRewrite", err)
			}
			for _, w := range c.want {
				if want := book + ": " + w; !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q:\n%v", want, err)
				}
			}
			if got := strings.Count(err.Error(), "\n"); got != len(c.want) {
				t.Errorf("the error lists %d cells, want %d:\n%v", got, len(c.want), err)
			}
			if string(a.manifestBytes()) != string(before) {
				t.Error("the manifest changed")
			}
			if a.store.writes != writes {
				t.Errorf("%d workbooks written", a.store.writes-writes)
			}
			if diff := cmp.Diff(cells, a.store.snapshot()); diff != "" {
				t.Errorf("the workbook changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestAdjudicateKeepsUnitsMissing: a unit of the first run that the
// second run's sources leave out, or hold only partial records of, keeps
// what was accepted (its note) and its items, decided or not; the gold
// set still has it, with its decision; a note says so.
func TestAdjudicateKeepsUnitsMissing(t *testing.T) {
	t.Parallel()
	all := "u1 ann1 1|u1 ann2 2|u2 ann1 0 same|u2 ann2 3 same|u3 ann1 2 a|u3 ann2 1 b"
	for _, c := range []struct {
		name  string
		again func(recs []*records.Annotation) []*records.Annotation
	}{
		{"left out", func(recs []*records.Annotation) []*records.Annotation {
			return slices.DeleteFunc(recs, func(r *records.Annotation) bool { return r.Unit == "u2" })
		}},
		{"partial", func(recs []*records.Annotation) []*records.Annotation {
			for _, r := range recs {
				if r.Unit == "u2" {
					r.Status = records.StatusPartial
				}
			}
			return recs
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := newAdjRun(t, backend.KindXLSX)
			first := a.mustRun(legalRecs(a.tp, strings.Split(all, "|")...))
			m := first.Manifest
			book := a.book(m, 0)
			d2 := itemOf(t, m, "u2", "gaps")
			a.store.set(t, book, "Gaps", d2, "Final: 3 Citation Error", tick)
			var want []string
			for _, it := range m.Items {
				want = append(want, it.ID)
			}

			res := a.mustRun(c.again(legalRecs(a.tp, strings.Split(all, "|")...)))
			var got []string
			for _, it := range res.Manifest.Items {
				got = append(got, it.ID)
			}
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("items (-first run +second):\n%s", diff)
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "unit u2 has no complete record") }) {
				t.Errorf("no note says u2 is kept: %q", res.Notes)
			}
			if a.store.get(t, book, "Gaps", d2, "Final: 3 Citation Error") != tick {
				t.Error("the decision on u2 is not in the workbook")
			}
			gold, _ := a.gold()
			if got := gapsOf(gold["u2"]); got != "[3] adjudicated" {
				t.Errorf("u2's gaps in the gold set: %s", got)
			}
			if got := gold["u2"].Values["note"]; got != "same" {
				t.Errorf("u2's accepted note: %v", got)
			}
			if got := gapsOf(gold["u3"]); got != "<nil> unresolved" {
				t.Errorf("u3's gaps: %s, want unresolved", got)
			}
		})
	}
}

// failing fails the n-th write.
func failing(n int) func(int, backend.Location) error {
	return func(k int, at backend.Location) error {
		if k == n {
			return fmt.Errorf("%s: the disk is full", at)
		}
		return nil
	}
}

// TestAdjudicateInterrupted: a run that stops while writing its second
// workbook (of two, both decided in) loses no decision. Pull before the
// next run takes the unfinished workbook's from the manifest, and warns;
// the next run reads them from there too and finishes the job.
func TestAdjudicateInterrupted(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		kind string
		wipe bool
		fail int // which write of the second run fails
	}{
		{"a file", backend.KindXLSX, false, 2},
		{"a spreadsheet cleared, then the rewrite fails", backend.KindGSheets, true, 2},
		{"the first spreadsheet cleared", backend.KindGSheets, true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := newAdjRun(t, c.kind)
			a.opt.BatchSize = 1
			recs := func() []*records.Annotation {
				return legalRecs(a.tp, "u1 ann1 1", "u1 ann2 2", "u2 ann1 0", "u2 ann2 3")
			}
			first := a.mustRun(recs())
			m := first.Manifest
			if len(m.Workbooks) != 2 {
				t.Fatalf("%d workbooks, want 2", len(m.Workbooks))
			}
			d1, d2 := itemOf(t, m, "u1", "gaps"), itemOf(t, m, "u2", "gaps")
			a.store.set(t, a.book(m, 0), "Gaps", d1, "Or use", text("Annotator 2"))
			a.store.set(t, a.book(m, 1), "Gaps", d2, "Final: 0 No gap", tick)
			a.store.set(t, a.book(m, 1), "Gaps", d2, "Note", text("no gap at all"))
			want := map[string]string{"u1": "[2] adjudicated", "u2": "[0] adjudicated"}

			a.store.fail, a.store.wipe = failing(a.store.writes+c.fail), c.wipe
			if _, err := a.run(recs()); err == nil || !strings.Contains(err.Error(), "the disk is full") {
				t.Fatalf("the interrupted run: %v", err)
			}
			a.store.fail = nil
			if !c.wipe || c.fail != 2 {
				// The second workbook is as it was: its adjudicator,
				// unaware of the run, goes on working in it.
				a.store.set(t, a.book(m, 1), "Gaps", d2, "Reason", text("annotator error"))
			}
			after := a.manifest()
			for w := range after.Workbooks {
				if got, want := after.Workbooks[w].Incomplete, w >= c.fail-1; got != want {
					t.Errorf("workbook %d: incomplete %v, want %v", w, got, want)
				}
			}
			gold, g := a.gold()
			for u, w := range want {
				if got := gapsOf(gold[u]); got != w {
					t.Errorf("pull before the next run: %s is %s, want %s", u, got, w)
				}
			}
			reason := "annotator error"
			if c.wipe && c.fail == 2 {
				reason = ""
			}
			if p := gold["u2"].Provenance["gaps"]; p == nil || p.Note != "no gap at all" || p.Reason != reason {
				t.Errorf("u2's provenance: %+v, want the note and reason %q", p, reason)
			}
			if !slices.ContainsFunc(g.Problems, func(p *records.Problem) bool {
				return p.Severity == records.Warning && strings.Contains(p.Message, "did not finish writing this workbook")
			}) {
				t.Errorf("pull does not warn of the unfinished workbook: %v", g.Problems)
			}

			res := a.mustRun(recs())
			if res.Kept != 2 {
				t.Errorf("the next run kept %d decisions, want 2", res.Kept)
			}
			for w, b := range res.Manifest.Workbooks {
				if b.Incomplete {
					t.Errorf("workbook %d is still incomplete", w)
				}
			}
			for h, want := range map[string]string{"Note": "no gap at all", "Reason": reason} {
				if got := a.store.get(t, a.book(res.Manifest, 1), "Gaps", d2, h).Value; got != want {
					t.Errorf("the unfinished workbook's %s, written again: %q, want %q", h, got, want)
				}
			}
			gold, g = a.gold()
			for u, w := range want {
				if got := gapsOf(gold[u]); got != w {
					t.Errorf("pull after the next run: %s is %s, want %s", u, got, w)
				}
			}
			if len(g.Problems) != 0 {
				t.Errorf("problems after the next run: %v", g.Problems)
			}
		})
	}
}

// TestAdjudicateShowAnnotatorsToggled: the names follow --show-annotators
// of the latest run, in the headers and in a carried Or use cell, and
// the gold set reads the same decision every time.
func TestAdjudicateShowAnnotatorsToggled(t *testing.T) {
	t.Parallel()
	a := newAdjRun(t, backend.KindXLSX)
	recs := func() []*records.Annotation { return legalRecs(a.tp, "u1 ann1 1", "u1 ann2 2") }
	m := a.mustRun(recs()).Manifest
	book, d1 := a.book(m, 0), itemOf(t, m, "u1", "gaps")
	a.store.set(t, book, "Gaps", d1, "Or use", text("Annotator 2"))
	for k, show := range []bool{true, false, true} {
		a.opt.ShowAnnotators = show
		a.mustRun(recs())
		names := map[bool][2]string{true: {"ann1", "ann2"}, false: {"Annotator 1", "Annotator 2"}}[show]
		rows := a.store.sheet(t, book, "Gaps")
		column(t, rows, names[0])
		if got := a.store.get(t, book, "Gaps", d1, "Or use").Value; got != names[1] {
			t.Errorf("run %d (show %v): Or use is %q, want %q", k+2, show, got, names[1])
		}
		gold, _ := a.gold()
		if got := gapsOf(gold["u1"]); got != "[2] adjudicated" {
			t.Errorf("run %d (show %v): the gold's u1 is %s", k+2, show, got)
		}
	}
}

// TestAdjudicateMinAgreementOneAnnotator: with --min-agreement 2, a unit
// only one annotator completed is not accepted 1/1: its questions are
// items to decide.
func TestAdjudicateMinAgreementOneAnnotator(t *testing.T) {
	t.Parallel()
	a := newAdjRun(t, backend.KindXLSX)
	a.opt.MinAgreement = 2
	recs := legalRecs(a.tp, "u1 ann1 1 a note", "u1 ann2 2", "u2 ann1 3", "u2 ann2 3")
	recs[1].Status = records.StatusPartial
	res := a.mustRun(recs)
	var items []string
	for _, it := range res.Manifest.Items {
		items = append(items, it.Unit+" "+it.Question)
	}
	// The note is not adjudicated: its one answer is carried.
	if diff := cmp.Diff([]string{"u1 gaps"}, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	for _, u := range res.Manifest.Units {
		if u.Unit == "u1" && len(u.Values) > 0 {
			t.Errorf("u1 accepted %v from its one annotator", u.Values)
		}
	}
	gold, _ := a.gold()
	if got := gapsOf(gold["u1"]); got != "<nil> unresolved" {
		t.Errorf("u1 in the gold set: %s", got)
	}
	want := &records.Provenance{Kind: records.ProvenanceCarried, Annotators: 1, Answers: []records.CarriedAnswer{{Annotator: "ann1", Value: "a note"}}}
	if diff := cmp.Diff(want, gold["u1"].Provenance["note"]); diff != "" || gold["u1"].Values["note"] != nil {
		t.Errorf("u1's note in the gold set: %v (-want +got):\n%s", gold["u1"].Values["note"], diff)
	}
	if got := gapsOf(gold["u2"]); got != "[3] unanimous" {
		t.Errorf("u2 in the gold set: %s", got)
	}
}

// smallManifest is the manifest of a small run, as JSON: two units of
// legal-gaps, one decided in its workbook (the cells saved), and a row of
// another workbook.
func smallManifest(t testing.TB) []byte {
	t.Helper()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := newAdjStore(backend.KindXLSX)
	opt := AdjudicateOptions{Dir: dir, Kind: backend.KindXLSX, Adjudicators: []string{"lead", "second"}}
	recs := legalRecs(tp, "u1 ann1 1 a", "u1 ann2 2 b", "u2 ann1 0", "u2 ann3 3", "u3 ann2 2", "u3 ann3 2")
	res, err := Adjudicate(context.Background(), tp, recs, opt, s.backends(), s)
	if err != nil {
		t.Fatal(err)
	}
	b := s.books[key(bookLocation(dir, &res.Manifest.Workbooks[0]))]
	b.sheets["Gaps"][1][column(t, b.sheets["Gaps"], "Or use")] = text("Annotator 2")
	if _, err := Adjudicate(context.Background(), tp, recs, opt, s.backends(), s); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, adjudicate.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadAdjudicationRefuses: a manifest changed by hand is refused with
// an error wrapping ErrAdjudication that says what is wrong, never a
// panic.
func TestReadAdjudicationRefuses(t *testing.T) {
	t.Parallel()
	good := smallManifest(t)
	for _, c := range []struct {
		name, want string
		edit       func(m map[string]any)
	}{
		{"a suggestion out of range", "suggests answer 7 of 2", func(m map[string]any) { item(m, 0)["suggested"] = 7 }},
		{"a workbook out of range", "names workbook 5 of 2", func(m map[string]any) { item(m, 0)["workbook"] = 5 }},
		{"a negative workbook", "names workbook -1 of 2", func(m map[string]any) { item(m, 0)["workbook"] = -1 }},
		{"a value item with a cluster", "answers no question", func(m map[string]any) {
			item(m, 0)["cluster"] = map[string]any{"field": "generation", "start": 0, "end": 3}
		}},
		{"a spans item without a cluster", "span cluster without its place", func(m map[string]any) { item(m, 0)["kind"] = "spans" }},
		{"an unknown annotator", `an answer of "ann9"`, func(m map[string]any) {
			item(m, 0)["answers"].([]any)[0].(map[string]any)["annotator"] = "ann9"
		}},
		{"an item twice", "is listed twice", func(m map[string]any) { m["items"] = append(m["items"].([]any), item(m, 0)) }},
		{"a workbook in another folder", "is not a file of the adjudication's folder", func(m map[string]any) {
			m["workbooks"].([]any)[0].(map[string]any)["file"] = "../elsewhere/adjudicate-lead.xlsx"
		}},
		{"a workbook at an absolute path", "is not a file of the adjudication's folder", func(m map[string]any) {
			m["workbooks"].([]any)[1].(map[string]any)["file"] = "/tmp/adjudicate-second.xlsx"
		}},
		{"a workbook that is the folder above", "is not an XLSX file", func(m map[string]any) {
			m["workbooks"].([]any)[0].(map[string]any)["file"] = ".."
		}},
		{"a workbook that is the manifest", "is not an XLSX file", func(m map[string]any) {
			m["workbooks"].([]any)[0].(map[string]any)["file"] = "adjudication.json"
		}},
		{"a workbook in a folder, the other way", "is not a file of the adjudication's folder", func(m map[string]any) {
			m["workbooks"].([]any)[0].(map[string]any)["file"] = `sub\adjudicate-lead.xlsx`
		}},
		{"a name missing", "2 names for 3 annotators", func(m map[string]any) { m["names"] = m["names"].([]any)[:2] }},
		{"a null unit", "a unit is null", func(m map[string]any) { m["units"] = append(m["units"].([]any), nil) }},
		{"a null item", "an item is null", func(m map[string]any) { m["items"] = append(m["items"].([]any), nil) }},
		{"a null provenance", "unit u1: the provenance of gaps is null", func(m map[string]any) {
			m["units"].([]any)[0].(map[string]any)["provenance"] = map[string]any{"gaps": nil}
		}},
		{"spans of a template without spans", "span cluster without its place", func(m map[string]any) {
			it := item(m, 0)
			it["kind"], it["question"], it["cluster"] = "spans", "", map[string]any{"start": -1, "end": -1, "code": "x"}
		}},
		{"an item moved to a unit not listed", `item d0001 is of unit "u9", which the adjudication does not list`, func(m map[string]any) { item(m, 0)["unit"] = "u9" }},
		{"a unit twice", "unit u1 is listed twice", func(m map[string]any) { m["units"] = append(m["units"].([]any), m["units"].([]any)[0]) }},
		{"a unit's unknown annotator", `unit u1 has an answer of "ann9"`, func(m map[string]any) {
			m["units"].([]any)[0].(map[string]any)["annotators"] = []any{"ann1", "ann9"}
		}},
		{"a provenance of no question", `unit u1: a provenance of "gapz"`, func(m map[string]any) {
			m["units"].([]any)[0].(map[string]any)["provenance"] = map[string]any{"gapz": map[string]any{"kind": "unanimous", "agreeing": 2, "annotators": 2}}
		}},
		{"superseded by no item", "item d0001 is superseded by d0077", func(m map[string]any) { item(m, 0)["superseded"] = "d0077" }},
		{"two workbooks in one file", "two workbooks in one file", func(m map[string]any) {
			m["workbooks"].([]any)[1].(map[string]any)["file"] = "Adjudicate-Lead.xlsx"
		}},
		{"cells saved for no item", "cells are saved for item d0042", func(m map[string]any) {
			m["saved"].(map[string]any)["d0042"] = map[string]any{"note": map[string]any{"Value": "x"}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			c.edit(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), adjudicate.ManifestFile)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = ReadAdjudication(path)
			if !errors.Is(err, ErrAdjudication) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadAdjudication: %v, want ErrAdjudication saying %q", err, c.want)
			}
		})
	}
}

// item is a manifest's k-th item as JSON.
func item(m map[string]any, k int) map[string]any {
	return m["items"].([]any)[k].(map[string]any)
}

// spanManifest is the manifest of a small run of qa-span-errors, as
// JSON: three annotators marking errors of one prediction, with the
// prediction's text at hand, and decisions saved on two of its rows (an
// edit and a retyped annotator's version).
func spanManifest(t testing.TB) []byte {
	t.Helper()
	tp, err := templates.Builtin("qa-span-errors")
	if err != nil {
		t.Fatal(err)
	}
	const text = "Paris is the capital. It is in Spain. It is big."
	span := func(start, end int, code string) records.SpanAnswer {
		return records.SpanAnswer{Question: "errors", Field: "prediction", Start: &start, End: &end, Text: decode.Substring(text, start, end), Code: code}
	}
	rec := func(who string, spans ...records.SpanAnswer) *records.Annotation {
		return &records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: tp.Name, Version: tp.Version},
			Batch: "b01", Unit: "q0000", Item: "q0000", Annotator: who, Status: records.StatusComplete, Values: map[string]any{"checked": true}, Spans: spans}
	}
	recs := []*records.Annotation{
		rec("ann1", span(22, 37, "Wrong-Grounding"), span(38, 48, "Irrelevant"), records.SpanAnswer{Question: "errors", Code: "Missing-Answer"}),
		rec("ann2", span(28, 37, "Wrong-Grounding"), span(38, 48, "Irrelevant")),
		rec("ann3", span(22, 37, "Unverifiable"), span(0, 5, "Incoherent")),
	}
	dir := t.TempDir()
	s := newAdjStore(backend.KindXLSX)
	opt := AdjudicateOptions{Dir: dir, Kind: backend.KindXLSX, Adjudicators: []string{"lead"},
		Items: []*layout.SourceItem{{ID: "q0000", Fields: map[string]map[string]string{"q0000": {"prediction": text}}}}}
	if _, err := Adjudicate(context.Background(), tp, recs, opt, s.backends(), s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, adjudicate.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["saved"] = map[string]any{
		"d0001": map[string]any{"decision": map[string]any{"Value": "edit"}, "final_type": map[string]any{"Value": "Inconsistent Fact"}, "final_span": map[string]any{"Value": "in Spain"}},
		"d0002": map[string]any{"decision": map[string]any{"Value": "Annotator 3"}, "final_type": map[string]any{"Value": "Irrelevant"}, "note": map[string]any{"Value": "ann1 was right"}},
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzReadAdjudication feeds any bytes to ReadAdjudication as a manifest:
// it refuses or reads, never panics; what it reads makes a gold set
// without a panic, with no decision and with those its saved cells make.
// A manifest is bounded by MaxAdjudicationSize; the seeds are a few
// kilobytes, and the fuzzer's inputs stay near that.
func FuzzReadAdjudication(f *testing.F) {
	legal, spans := smallManifest(f), spanManifest(f)
	f.Add(legal)
	f.Add(spans)
	for _, seed := range [][]byte{legal, spans} {
		var m map[string]any
		if err := json.Unmarshal(seed, &m); err != nil {
			f.Fatal(err)
		}
		for _, edit := range []func(m map[string]any){
			func(m map[string]any) { item(m, 0)["suggested"] = -1 },
			func(m map[string]any) { item(m, 0)["kept"] = true },
			func(m map[string]any) { item(m, 1)["superseded"] = "d0001" },
			func(m map[string]any) { m["workbooks"].([]any)[0].(map[string]any)["incomplete"] = true },
			func(m map[string]any) { item(m, 0)["answers"] = []any{} },
			func(m map[string]any) { m["units"] = append(m["units"].([]any), nil) },
			func(m map[string]any) { m["items"] = append(m["items"].([]any), nil) },
			func(m map[string]any) {
				m["units"].([]any)[0].(map[string]any)["provenance"] = map[string]any{"gaps": nil, "checked": nil}
			},
			func(m map[string]any) {
				// A cluster of spans, of no span question of legal-gaps.
				it := item(m, 0)
				it["kind"], it["question"], it["cluster"] = "spans", "", map[string]any{"field": "", "start": -1, "end": -1, "code": "x"}
				m["saved"] = map[string]any{it["id"].(string): map[string]any{"final_type": map[string]any{"Value": "x"}, "decision": map[string]any{"Value": "edit"}}}
			},
			func(m map[string]any) {
				it := item(m, 0)
				if c, ok := it["cluster"].(map[string]any); ok {
					c["start"], c["end"], c["text"] = 40, 3, "short"
				}
			},
		} {
			c := map[string]any{}
			b, _ := json.Marshal(m)
			if err := json.Unmarshal(b, &c); err != nil {
				f.Fatal(err)
			}
			edit(c)
			b, err := json.Marshal(c)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return // a manifest is bounded; a megabyte is enough to find what breaks
		}
		path := filepath.Join(t.TempDir(), adjudicate.ManifestFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadAdjudication(path)
		if err != nil {
			if !errors.Is(err, ErrAdjudication) && !strings.Contains(err.Error(), "adjudication manifest") {
				t.Errorf("an error that is not ErrAdjudication: %v", err)
			}
			return
		}
		tp, err := templates.LoadWithParams("fuzz", []byte(m.Template.Source), m.Template.Params)
		if err != nil {
			t.Fatalf("a manifest read has a template that does not load: %v", err)
		}
		gold(tp, m, nil, nil, path, "")
		gold(tp, m, nil, nil, path, adjudicate.ResolveMajority)
		decided := map[string]*adjudicate.Decision{}
		for w := range m.Workbooks {
			d, _ := bookReading(tp, m, w, "fuzz.xlsx", nil).Saved(m.Saved)
			for id, dec := range d {
				decided[id] = dec
			}
		}
		gold(tp, m, decided, nil, path, "")
		gold(tp, m, decided, nil, path, adjudicate.ResolveMajority)
	})
}

// TestAdjudicateSavedMeanwhile: an adjudicator who saves a decision while
// adjudicate runs again loses nothing. Saved after the workbook was read
// and before anything is written, the run writes nothing and says which
// workbook changed; saved while the run writes the workbooks (the
// second, while the first is written), that workbook is left as it is,
// and pull and the next run both have the decision.
func TestAdjudicateSavedMeanwhile(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{backend.KindXLSX, backend.KindGSheets} {
		for _, during := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, saved while writing %v", kind, during), func(t *testing.T) {
				t.Parallel()
				a := newAdjRun(t, kind)
				a.opt.BatchSize = 1
				recs := legalRecs(a.tp, "u1 ann1 1", "u1 ann2 2", "u2 ann1 0", "u2 ann2 3")
				m := a.mustRun(recs).Manifest
				d1, d2 := itemOf(t, m, "u1", "gaps"), itemOf(t, m, "u2", "gaps")
				a.store.set(t, a.book(m, 0), "Gaps", d1, "Or use", text("Annotator 2"))
				second := a.book(m, 1)
				save := func(at backend.Location) {
					if key(at) == second {
						a.store.set(t, second, "Gaps", d2, "Or use", text("Annotator 1"))
						a.store.afterRead, a.store.beforeWrite = nil, nil
					}
				}
				if during {
					// At the first workbook's write, the second is saved.
					a.store.beforeWrite = func(backend.Location) { save(bookLocation(a.dir, &m.Workbooks[1])) }
				} else {
					a.store.afterRead = save
				}
				before, writes := a.manifestBytes(), a.store.writes
				_, err := a.run(recs)
				if !errors.Is(err, backend.ErrChanged) || !strings.Contains(err.Error(), second) {
					t.Fatalf("the run: %v, want ErrChanged naming %s", err, second)
				}
				switch {
				case !during && (a.store.writes != writes || !slices.Equal(a.manifestBytes(), before)):
					t.Errorf("a change found before writing: %d writes, manifest changed %v", a.store.writes-writes, !slices.Equal(a.manifestBytes(), before))
				case during && a.store.writes != writes+1:
					t.Errorf("%d workbooks written, want the first only", a.store.writes-writes)
				}
				if got := a.store.get(t, second, "Gaps", d2, "Or use").Value; got != "Annotator 1" {
					t.Errorf("the decision saved meanwhile: %q", got)
				}
				want := map[string]string{"u1": "[2] adjudicated", "u2": "[0] adjudicated"}
				gold, _ := a.gold()
				for u, w := range want {
					if got := gapsOf(gold[u]); got != w {
						t.Errorf("pull after the refused run: %s is %s, want %s", u, got, w)
					}
				}
				res := a.mustRun(recs)
				if res.Kept != 2 {
					t.Errorf("the next run kept %d decisions, want 2", res.Kept)
				}
				gold, _ = a.gold()
				for u, w := range want {
					if got := gapsOf(gold[u]); got != w {
						t.Errorf("pull after the next run: %s is %s, want %s", u, got, w)
					}
				}
			})
		}
	}
}

// TestAdjudicatorFileNames: adjudicators' IDs name their workbooks. Two
// that would name one file are refused before anything is written, in a
// first run and in a later one that adds an adjudicator; a long ID gives
// a file name of bounded length, and the folder stays one that later runs
// read.
func TestAdjudicatorFileNames(t *testing.T) {
	t.Parallel()
	recs := func(a *adjRun) []*records.Annotation {
		return legalRecs(a.tp, "u1 ann1 1", "u1 ann2 2", "u2 ann1 0", "u2 ann2 3")
	}
	for _, ids := range [][]string{{"a/b", "a_b"}, {"Lead", "lead"}} {
		a := newAdjRun(t, backend.KindXLSX)
		a.opt.Adjudicators = ids
		_, err := a.run(recs(a))
		var ce *filename.CollisionError
		if !errors.As(err, &ce) || ce.A != ids[0] || ce.B != ids[1] {
			t.Errorf("adjudicators %q: %v, want a collision of the two", ids, err)
		}
		if ents, _ := os.ReadDir(a.dir); len(ents) != 0 || a.store.writes != 0 {
			t.Errorf("adjudicators %q: the refused run wrote %d workbooks and left %d files", ids, a.store.writes, len(ents))
		}
	}
	// A later run adds an adjudicator whose ID names the first one's file.
	a := newAdjRun(t, backend.KindXLSX)
	a.opt.Adjudicators = []string{"a/b"}
	a.mustRun(recs(a))
	before := a.manifestBytes()
	a.opt.Adjudicators = []string{"a/b", "a_b"}
	if _, err := a.run(recs(a)); !errors.Is(err, filename.ErrCollision) {
		t.Errorf("a later run adding a_b: %v, want a collision", err)
	}
	if !slices.Equal(a.manifestBytes(), before) {
		t.Error("the refused run changed the manifest")
	}

	// An adjudicator whose ID ends as a number would (a-01), then one whose
	// numbered workbooks would take its name (a, in batches): the second
	// run names its workbooks so that each is a file of its own.
	a = newAdjRun(t, backend.KindXLSX)
	a.opt.Adjudicators = []string{"a-01"}
	a.mustRun(legalRecs(a.tp, "u1 ann1 1", "u1 ann2 2"))
	a.opt.Adjudicators, a.opt.BatchSize = []string{"a"}, 1
	res := a.mustRun(recs(a))
	var files []string
	for _, b := range res.Manifest.Workbooks {
		files = append(files, b.Adjudicator+" "+b.File)
	}
	if diff := cmp.Diff([]string{"a-01 adjudicate-a-01.xlsx", "a adjudicate-a-02.xlsx"}, files); diff != "" {
		t.Errorf("the workbooks (-want +got):\n%s", diff)
	}
	if _, err := ReadAdjudication(filepath.Join(a.dir, adjudicate.ManifestFile)); err != nil {
		t.Errorf("the manifest after both runs: %v", err)
	}

	long := strings.Repeat("x", 300)
	a = newAdjRun(t, backend.KindXLSX)
	a.opt.Adjudicators = []string{long}
	m := a.mustRun(recs(a)).Manifest
	if f := m.Workbooks[0].File; len(f) > filename.MaxPart+len("adjudicate-.xlsx") {
		t.Errorf("a 300-character ID gives the file %q (%d bytes)", f, len(f))
	}
	if _, err := ReadAdjudication(filepath.Join(a.dir, adjudicate.ManifestFile)); err != nil {
		t.Errorf("the manifest a long ID leaves: %v", err)
	}
	if res := a.mustRun(recs(a)); len(res.Manifest.Workbooks) != 1 {
		t.Errorf("the next run made %d workbooks", len(res.Manifest.Workbooks))
	}
}

// TestGoldHasEveryUnit: every unit of the study has a gold record: a unit
// whose only records are not complete, and a unit the study lists that no
// record names, are in the gold set, empty and said to be so; the
// silver set of --resolve majority has them too.
func TestGoldHasEveryUnit(t *testing.T) {
	t.Parallel()
	a := newAdjRun(t, backend.KindXLSX)
	recs := legalRecs(a.tp, "u1 ann1 1", "u1 ann2 2", "u2 ann1 0", "u2 ann2 0", "u3 ann1 2")
	recs[4].Status = records.StatusPartial
	recs = append(recs, &records.Annotation{Schema: records.AnnotationSchema, Template: recs[0].Template, Batch: "b02", Unit: "u4", Item: "u4", Status: records.StatusEmpty})
	a.opt.StudyUnits = []UnitRef{{"u1", "u1", "b01"}, {"u5", "u5", "b03"}, {"u2", "u2", "b01"}}
	res := a.mustRun(recs)
	if res.Found.Units[0].Unit != "u1" || len(res.Found.Units) != 2 {
		t.Errorf("units with a complete answer: %d", len(res.Found.Units))
	}
	check := func(what string, recs []*records.Annotation) {
		t.Helper()
		got := map[string]string{}
		for _, r := range recs {
			got[r.Unit] = r.Batch + " " + r.Status
			if r.Status == records.StatusEmpty && (len(r.Problems) != 1 || r.Problems[0].Message != adjudicate.NoAnswer || len(r.Values) != 0) {
				t.Errorf("%s: %s's empty gold record: %+v", what, r.Unit, r)
			}
		}
		want := map[string]string{"u1": "b01 partial", "u2": "b01 complete", "u3": "b01 empty", "u4": "b02 empty", "u5": "b03 empty"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	gold, _ := a.gold()
	var all []*records.Annotation
	for _, r := range gold {
		all = append(all, r)
	}
	check("the gold set", all)
	// Run again: the units nobody answered are listed once, and said
	// nothing of.
	again := a.mustRun(recs)
	if len(again.Manifest.Units) != 5 || len(again.Notes) != 0 {
		t.Errorf("run again: %d units, notes %q", len(again.Manifest.Units), again.Notes)
	}
	found, err := adjudicate.Find(a.tp, recs, adjudicate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("the silver set", ResolveGold(a.tp, found, adjudicate.ResolveMajority, "", a.opt.StudyUnits).Records)
}

// TestAdjudicateCopySavedMeanwhile: a copy of a workbook in another
// format (the adjudicator's Save As .ods) that appears while adjudicate
// runs again stops the run, naming it: rewritten, the .xlsx would be the
// newer and the copy's decisions would not be read again. Saved after the
// workbook was read, nothing is written; saved while the run writes the
// workbooks (the second's copy, while the first is written), that
// workbook is left as it is.
func TestAdjudicateCopySavedMeanwhile(t *testing.T) {
	t.Parallel()
	for _, during := range []bool{false, true} {
		a := newAdjRun(t, backend.KindXLSX)
		a.opt.BatchSize = 1
		recs := legalRecs(a.tp, "u1 ann1 1", "u1 ann2 2", "u2 ann1 0", "u2 ann2 3")
		m := a.mustRun(recs).Manifest
		second := a.book(m, 1)
		ods := strings.TrimSuffix(second, ".xlsx") + ".ods"
		saveAs := func(at backend.Location) {
			if _, err := os.Stat(ods); err != nil && (during || key(at) == second) {
				if err := os.WriteFile(ods, []byte("decisions"), 0o644); err != nil {
					t.Error(err)
				}
			}
		}
		if during {
			a.store.beforeWrite = saveAs
		} else {
			a.store.afterRead = saveAs
		}
		before, writes := a.manifestBytes(), a.store.writes
		_, err := a.run(recs)
		if !errors.Is(err, backend.ErrChanged) || !strings.Contains(err.Error(), ods+": changed since it was read: a copy of "+filepath.Base(second)+" in another format") {
			t.Errorf("saved as .ods while writing %v: %v", during, err)
		}
		switch {
		case !during && (a.store.writes != writes || !slices.Equal(a.manifestBytes(), before)):
			t.Error("saved as .ods after the read: the refused run wrote")
		case during && a.store.writes != writes+1:
			t.Errorf("saved as .ods while writing: %d workbooks written, want the first only", a.store.writes-writes)
		}
	}
}
