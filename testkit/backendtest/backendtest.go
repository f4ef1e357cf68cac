// Package backendtest is the conformance suite every backend's own test
// runs (after restic's internal/backend/test). For each built-in template
// on the real data, a scheme of a coordinator's own, and two built-ins
// whose units start from the data set's gold answers (generate
// --prefill, as answers and as suggestions), a backend renders the plan,
// and the suite checks that it offers the annotator the sheet every
// backend offers — tabs, headers, cells, dropdowns, checkboxes, ranges,
// bands, frozen header, hidden columns, which columns are open, the
// conditional formats' fills and fonts — and that the same answers,
// filled the way the backend's application stores them, pull to the same
// canonical records.
//
// "The same" is pinned by golden files in this package's testdata, shared
// by all backends: a backend that differs from them differs from the
// others. After a deliberate change, rewrite them from one backend and
// check that the others agree:
//
//	go test ./xlsx -run TestConformance -update-conformance
//	go test ./sheets -run TestConformance
//
// A backend's test implements Backend and calls Run:
//
//	func TestConformance(t *testing.T) {
//		backendtest.Run(t, &xlsxBackend{dir: t.TempDir()})
//	}
//
// where xlsxBackend's Store is the xlsx.Store the study writes through.
package backendtest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

var update = flag.Bool("update-conformance", false, "rewrite the conformance suite's golden files")

// Backend is a backend under test: its backend.Store, as the study
// writes and reads through it, and what only a test needs — where to put
// a workbook, the application's own view of it, and a way to fill it as
// an annotator's application stores answers. Each method fails the test
// on an error.
type Backend interface {
	// Store is the backend's backend.Store; the suite builds plans for
	// its Limits, and expects pull to record Limits().Kind as the source.
	Store() backend.Store
	// Target is where a new workbook goes: a fresh file, or no
	// spreadsheet yet.
	Target(t *testing.T) backend.Location
	// Created is told of each workbook as soon as it exists (a test on a
	// real service removes it afterwards).
	Created(t *testing.T, at backend.Location)
	// Offer reads what the written workbook offers an annotator, with the
	// application's own view of it (not through the Store).
	Offer(t *testing.T, at backend.Location) *Offer
	// Fill opens the written workbook for an annotator to fill, as the
	// application would store the answers.
	Fill(t *testing.T, at backend.Location) *goldtest.Workbook
}

// write renders a plan through the backend's Store.
func write(t *testing.T, b Backend, p *backend.Plan) backend.Location {
	t.Helper()
	at, err := b.Store().Write(context.Background(), p, b.Target(t), backend.WriteOptions{Created: func(at backend.Location) error {
		b.Created(t, at)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// grid reads a workbook back through the Store, as pull does.
func grid(t *testing.T, s backend.Store, at backend.Location) *backend.Grid {
	t.Helper()
	if ok, err := s.Exists(context.Background(), at); err != nil || !ok {
		t.Fatalf("the workbook written at %s does not exist (%v)", at, err)
	}
	g, closeFn, err := s.Open(context.Background(), at)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Damage in a part no read went through comes with the closing.
		if err := closeFn(); err != nil {
			t.Errorf("close the workbook written at %s: %v", at, err)
		}
	})
	return g
}

// Offer is what an annotator is offered, in terms common to all backends.
type Offer struct {
	Tabs        []string          // name, with "(hidden)" when hidden
	Frozen      [2]int            // rows, columns of the Annotate sheet
	Hidden      []int             // hidden columns of the Annotate sheet
	Open        []int             // columns annotators may edit on the first data row
	Validations map[string]string // Annotate cell -> rule
	Fills       map[string]string // Annotate cell -> RRGGBB
	Notes       map[string]string // Annotate cell -> note text
	// Links are the cells of any sheet that link, whole, to a cell of the
	// workbook: "Annotate!A2" -> "Read!A2".
	Links map[string]string
	// TextLinks are cells whose text links from a part of it on, where the
	// backend has such links (Google Sheets), to a cell of the workbook.
	// They are checked, not pinned: the other backends link whole cells.
	TextLinks map[string]string
	// Formulas are the Annotate sheet's formula cells (the live checks),
	// cell -> formula without its "=".
	Formulas map[string]string
	// MetaFormulas are the metadata sheet's formula cells (the places of
	// blocks' rows), cell -> formula without its "=".
	MetaFormulas map[string]string
	// Conditional lists the Annotate sheet's conditional formats in order
	// of precedence, each as ConditionalText spells it: "RANGE FILL:
	// FORMULA" for one that fills the cell, "RANGE FONT RRGGBB italic:
	// FORMULA" for one that changes the font (formula without "="). A
	// backend's reader takes the look from XLSXLook or SheetsLook.
	Conditional []string
}

// Rules of Offer.Validations, as each backend's reader spells them:
// "checkbox", "list a,b,c", "range Lists!$A$2:$A$9", "number 1..5", or
// "any" for a prompt alone, followed by " strict=true" or " strict=false"
// (except "any").

type testCase struct {
	// name names the case and its golden file; the template's base name
	// when "".
	name     string
	template string // a built-in, or a template file under the module root
	input    string // under the module's testdata/data
	// prefill, when set, gives the records the units start from
	// (layout.Options.Prefill), shown as prefillAs (layout.PrefillAnswers
	// or layout.PrefillSuggestions).
	prefill   func(t *testing.T, tp *templates.Template, data string) *records.Given
	prefillAs string
	// fill answers every unit the way an annotator would.
	fill func(t *testing.T, w *goldtest.Workbook, tp *templates.Template, data string)
	// check, when set, checks the records pulled after filling, beyond
	// the golden file: what a case is about.
	check func(t *testing.T, recs []*records.Annotation, tp *templates.Template, data string)
}

func cases() []testCase {
	fillLegal := func(t *testing.T, w *goldtest.Workbook, _ *templates.Template, data string) {
		recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](filepath.Join(data, "legal-gaps/examples.sample.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := goldtest.FillLegal(w, recs, "gold"); err != nil {
			t.Fatal(err)
		}
	}
	fillQA := func(t *testing.T, w *goldtest.Workbook, tp *templates.Template, data string) {
		recs, err := goldtest.ReadQA(filepath.Join(data, "qa-feedback/dev_feedback.sample.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := goldtest.FillQA(w, tp, recs, "gold"); err != nil {
			t.Fatal(err)
		}
	}
	return []testCase{
		{template: "legal-gaps", input: "legal-gaps/examples.sample.jsonl", fill: fillLegal},
		{template: "qa-span-errors", input: "qa-feedback/dev_feedback.sample.json", fill: fillQA},
		{template: "preference-likert", input: "preference/preference_json_1.json", fill: func(t *testing.T, w *goldtest.Workbook, _ *templates.Template, _ string) {
			if err := goldtest.FillPreference(w, w.Units, "1"); err != nil {
				t.Fatal(err)
			}
		}},
		{template: "factgenie-meta-eval", input: "factgenie-d2t", fill: func(t *testing.T, w *goldtest.Workbook, _ *templates.Template, _ string) {
			if err := goldtest.FillFactgenie(w); err != nil {
				t.Fatal(err)
			}
		}},
		// A scheme of a coordinator's own: blocks, spans, two dropdowns of
		// labels with colons, a scale, the rater on the left.
		{template: "testdata/templates/mqm.yaml", input: "mqm/segments.jsonl", fill: func(t *testing.T, w *goldtest.Workbook, _ *templates.Template, _ string) {
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
		// The gold labels prefilled as a model's answers, one unit's
		// wrong: the annotator writes the gold labels and signs every
		// row, keeping the model's labels but the one unit's, changed.
		{name: "legal-gaps+prefill", template: "legal-gaps", input: "legal-gaps/examples.sample.jsonl",
			prefill: legalPrefill, prefillAs: layout.PrefillAnswers, fill: fillLegal, check: checkLegalPrefill},
		// The gold feedback shown as suggestions beside empty answer
		// cells: the annotator fills in the gold feedback all the same,
		// keeping every suggestion, and adds the spans a block had no row
		// to suggest.
		{name: "qa-span-errors+suggestions", template: "qa-span-errors", input: "qa-feedback/dev_feedback.sample.json",
			prefill: qaPrefill, prefillAs: layout.PrefillSuggestions, fill: fillQA, check: checkQASuggestions},
	}
}

// Run runs the conformance suite against b.
func Run(t *testing.T, b Backend) {
	root := moduleRoot(t)
	data := filepath.Join(root, "testdata", "data")
	store := b.Store()
	kind := store.Limits().Kind
	for _, tc := range cases() {
		name := tc.name
		if name == "" {
			name = filepath.Base(tc.template)
		}
		t.Run(name, func(t *testing.T) {
			ref := tc.template
			if filepath.Ext(ref) == ".yaml" {
				ref = filepath.Join(root, ref)
			}
			tp, err := input.Template(ref, nil)
			if err != nil {
				t.Fatal(err)
			}
			src, err := input.Open(tp.Input.Format, []string{filepath.Join(data, tc.input)})
			if err != nil {
				t.Fatal(err)
			}
			opt := layout.Options{Study: "conformance", Seed: 7, CellLimit: store.Limits().CellChars}
			if tc.prefill != nil {
				opt.Prefill, opt.PrefillAs = tc.prefill(t, tp, data), tc.prefillAs
			}
			res, err := layout.Build(context.Background(), tp, src, opt)
			if err != nil {
				t.Fatal(err)
			}
			wb := write(t, b, res.Plan)
			res.Close()
			o := b.Offer(t, wb)
			cells := withoutComputed(gridCells(t, grid(t, store, wb)), annotateColumns(tp, opt))
			if len(o.Validations) == 0 || len(o.Open) == 0 || len(o.Fills) == 0 || o.Frozen[0] != 1 {
				t.Errorf("the offer is thin: %d validations, %d open columns, %d fills, frozen %v", len(o.Validations), len(o.Open), len(o.Fills), o.Frozen)
			}

			// Fill the way an annotator would, and pull.
			read := version(t, store, wb)
			w := b.Fill(t, wb)
			// A template that shows opaque IDs: the fill finds records by
			// their own IDs through the study's key.
			w.RealIDs(res.OpaqueIDs)
			tc.fill(t, w, tp, data)
			if err := w.Save(); err != nil {
				t.Fatal(err)
			}
			refusesStale(t, store, wb, read)
			p, err := decode.Pull(grid(t, store, wb), decode.PullOptions{Template: tp.Name, Study: "conformance", OpaqueIDs: res.OpaqueIDs})
			if err != nil {
				t.Fatal(err)
			}
			complete, answered := 0, 0
			for _, r := range p.Records {
				if r.Source.Kind != kind {
					t.Errorf("source kind %q, want %q", r.Source.Kind, kind)
				}
				r.Source.Kind, r.Source.File = "", ""
				if r.Status == records.StatusComplete {
					complete++
				}
				if r.Status != records.StatusEmpty {
					answered++
				}
			}
			t.Logf("%s: %d records, %d complete, %d problems", kind, len(p.Records), complete, len(p.Problems))
			if answered == 0 {
				t.Errorf("no answered record after filling")
			}
			if tc.check != nil {
				tc.check(t, p.Records, tp, data)
			}
			checkLinks(t, o, cells)
			compare(t, filepath.Join(root, "testkit", "backendtest", "testdata", name+".golden"), dump(t, o, cells, p.Records))
		})
	}
}

// version is the version of the workbook at a location; it must name one.
func version(t *testing.T, s backend.Store, at backend.Location) string {
	t.Helper()
	v, err := s.Version(context.Background(), at)
	if err != nil || v == "" {
		t.Fatalf("the version of the workbook at %s: %q, %v", at, v, err)
	}
	return v
}

// refusesStale checks that a workbook saved since its version read was
// taken has another version, and that a write expecting the version read
// fails with backend.ErrChanged, leaving the workbook as it was: the
// answers just saved are what pull then reads.
func refusesStale(t *testing.T, s backend.Store, at backend.Location, read string) {
	t.Helper()
	now := version(t, s, at)
	if now == read {
		t.Fatalf("the workbook at %s has version %s before and after the annotator saved it", at, read)
	}
	p := &backend.Plan{Title: "stale", Sheets: []*backend.Sheet{{Name: "S", Columns: []backend.Column{{Width: 10}}, RowCount: 1,
		Rows: func(emit func(backend.Row) error) error {
			return emit(backend.Row{Cells: []backend.Cell{{Value: "overwritten"}}})
		}}}}
	if _, err := s.Write(context.Background(), p, at, backend.WriteOptions{Expect: &read}); !errors.Is(err, backend.ErrChanged) {
		t.Fatalf("a rewrite of the version read before the annotator saved: %v, want backend.ErrChanged", err)
	}
	if v := version(t, s, at); v != now {
		t.Errorf("a refused rewrite changed the version: %s, then %s", now, v)
	}
}

// compare checks the dump got against the golden file at path, or
// rewrites the file with -update-conformance.
func compare(t *testing.T, path string, got []byte) {
	t.Helper()
	want := golden(t, path, got)
	if bytes.Equal(want, got) {
		return
	}
	w, g := sections(string(want)), sections(string(got))
	what := map[string]string{
		sectionOffer:   "offers a different sheet",
		sectionCells:   "holds different cells",
		sectionRecords: "pulls the same answers differently",
	}
	for _, k := range []string{sectionOffer, sectionCells, sectionRecords} {
		if diff := cmp.Diff(w[k], g[k]); diff != "" {
			t.Errorf("the backend %s than %s (-golden +got):\n%s", what[k], filepath.Base(path), diff)
		}
	}
	if !t.Failed() {
		t.Errorf("the dump differs from %s outside its sections (rewrite it with -update-conformance)", filepath.Base(path))
	}
}

// gridCells is every non-empty row of every sheet, as pull reads it.
func gridCells(t *testing.T, g *backend.Grid) [][]string {
	t.Helper()
	var out [][]string
	for _, sh := range g.Sheets {
		err := g.Rows(sh, func(row int, read []backend.ReadCell) error {
			cells := backend.Texts(read)
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

// moduleRoot is the module's directory, where the test data is: a
// backend's test runs in its own package's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
