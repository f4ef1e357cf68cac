package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// adjSheet is an adjudication sheet of a spreadsheet as its values read:
// columns by header, rows by Decision ID.
type adjSheet struct {
	name string
	col  map[string]int
	row  map[string]int
	rows [][]string
}

func readAdjSheet(t *testing.T, c *sheets.Client, id, name string) *adjSheet {
	t.Helper()
	vr, err := c.Sheets.Spreadsheets.Values.Get(id, "'"+name+"'").ValueRenderOption("FORMATTED_VALUE").Do()
	if err != nil {
		t.Fatal(err)
	}
	s := &adjSheet{name: name, col: map[string]int{}, row: map[string]int{}}
	for _, r := range vr.Values {
		var row []string
		for _, v := range r {
			row = append(row, fmt.Sprint(v))
		}
		s.rows = append(s.rows, row)
	}
	for i, h := range s.rows[0] {
		s.col[h] = i
	}
	for i, r := range s.rows[1:] {
		if len(r) > 0 {
			s.row[r[0]] = i + 2
		}
	}
	return s
}

// cell is the text of a decision's cell under a header.
func (s *adjSheet) cell(t *testing.T, decision, header string) string {
	t.Helper()
	r, ok := s.row[decision]
	c, ok2 := s.col[header]
	if !ok || !ok2 {
		t.Fatalf("%s: no row %s or column %q (headers %v)", s.name, decision, header, s.rows[0])
	}
	if row := s.rows[r-1]; c < len(row) {
		return row[c]
	}
	return ""
}

// fillAdjudication types an adjudicator's decisions into a spreadsheet,
// as the browser stores them: by decision ID and column header.
func fillAdjudication(t *testing.T, c *sheets.Client, id string, s *adjSheet, cells map[[2]string]any) {
	t.Helper()
	var data []*sheetsapi.ValueRange
	for k, v := range cells {
		r, ok := s.row[k[0]]
		col, ok2 := s.col[k[1]]
		if !ok || !ok2 {
			t.Fatalf("%s: no row %s or column %q", s.name, k[0], k[1])
		}
		data = append(data, &sheetsapi.ValueRange{Range: "'" + s.name + "'!" + backend.CellName(col, r), Values: [][]any{{v}}})
	}
	if _, err := c.Sheets.Spreadsheets.Values.BatchUpdate(id, &sheetsapi.BatchUpdateValuesRequest{ValueInputOption: "USER_ENTERED", Data: data}).Do(); err != nil {
		t.Fatal(err)
	}
}

// TestAdjudicateGSheets runs the adjudication of a three-annotator study
// through the CLI against the fake: the annotators disagree on three
// units; the adjudicator decides two in the spreadsheet, one by ticking
// Final and one by naming an annotator, and leaves the third; pull gives
// the gold set with each value's provenance. Adjudicate run again writes
// into the same spreadsheet, the decisions kept.
func TestAdjudicateGSheets(t *testing.T) {
	t.Parallel()
	fake, endpoint := startFake(t, sheetsfake.Options{})
	google := []string{"--endpoint", endpoint, "--no-auth"}
	dir := filepath.Join(t.TempDir(), "study")
	code, _, errs := runCLI(t, append([]string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--format", "gsheets",
		"--annotators", "ann1,ann2,ann3", "--overlap", "2", "--seed", "1"}, google...)...)
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	m := readManifest(t, dir)
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	gold := map[string][]int{}
	for _, r := range recs {
		gold[r.ID] = r.GoldLabels
	}
	// Each annotator ticks the gold labels, except ann3 on its first
	// three units, where it sees no gap.
	var disputed []string
	who := map[string][]string{} // unit -> its annotators
	for _, b := range m.Batches {
		fillAsAnnotator(t, endpoint, b.Spreadsheet.ID, func(w *goldtest.Workbook) error {
			w.RealIDs(m.OpaqueIDs)
			for _, u := range w.Units {
				who[u] = append(who[u], b.Annotator)
				on := gold[u]
				if b.Annotator == "ann3" && len(disputed) < 3 {
					on, disputed = []int{0}, append(disputed, u)
				}
				for code := 0; code <= 3; code++ {
					if err := w.Set(w.Rows[u][0], fmt.Sprintf("q:gaps=%d", code), slices.Contains(on, code)); err != nil {
						return err
					}
				}
				if err := w.Set(w.Rows[u][0], "annotator", b.Annotator); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for _, r := range recs {
		if len(who[r.ID]) != 2 {
			t.Fatalf("unit %s has annotators %v, want 2", r.ID, who[r.ID])
		}
	}
	if len(disputed) != 3 {
		t.Fatalf("ann3 disputes %v: the test needs three units", disputed)
	}

	code, _, errs = runCLI(t, append([]string{"pull", dir}, google...)...)
	if code != 0 || !strings.Contains(errs, "10 complete") {
		t.Fatalf("pull: exit %d: %s", code, errs)
	}
	adj := filepath.Join(t.TempDir(), "adj")
	adjArgs := append([]string{"adjudicate", dir, "--out", adj, "--format", "gsheets", "--adjudicator", "lead"}, google...)
	code, out, errs := runCLI(t, adjArgs...)
	if code != 0 {
		t.Fatalf("adjudicate: exit %d: %s", code, errs)
	}
	am, err := study.ReadAdjudication(filepath.Join(adj, adjudicate.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(am.Workbooks) != 1 {
		t.Fatalf("%d workbooks, want 1", len(am.Workbooks))
	}
	ref := am.Workbooks[0]
	sp := ref.Spreadsheet
	if ref.Kind != backend.KindGSheets || ref.File != "" || ref.Adjudicator != "lead" || sp == nil || sp.ID == "" || sp.Endpoint != endpoint || sp.Status != "complete" {
		t.Fatalf("the manifest's workbook %+v (spreadsheet %+v)", ref, sp)
	}
	if !strings.Contains(out, "wrote "+sp.URL+": 3 rows for lead") {
		t.Errorf("adjudicate does not give the spreadsheet's link:\n%s", out)
	}
	if ids := fake.Spreadsheets(); len(ids) != 4 || !slices.Contains(ids, sp.ID) {
		t.Fatalf("spreadsheets %v: want the 3 annotators' and the adjudication", ids)
	}
	byUnit := map[string]*adjudicate.Item{}
	for _, it := range am.Items {
		byUnit[it.Unit] = it
		if it.Question != "gaps" || it.Suggested != -1 {
			t.Errorf("item %s: question %s, suggested %d (two annotators who differ tie)", it.ID, it.Question, it.Suggested)
		}
	}
	if len(am.Items) != 3 {
		t.Fatalf("%d items, want one per disputed unit %v", len(am.Items), disputed)
	}

	// The adjudicator: the first disputed unit takes 2 and 3 ticked in
	// Final; the second takes ann3's answer by its neutral name; the
	// third is left.
	c, err := sheets.New(context.Background(), sheets.Options{Endpoint: endpoint, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	name := func(ann string) string { return am.Names[slices.Index(am.Annotators, ann)] }
	s := readAdjSheet(t, c, sp.ID, "Gaps")
	d1, d2, d3 := byUnit[disputed[0]].ID, byUnit[disputed[1]].ID, byUnit[disputed[2]].ID
	for _, d := range []string{d1, d2, d3} {
		if got := s.cell(t, d, name("ann3")); got != "0 No gap" {
			t.Errorf("%s: %s's answer shows %q", d, name("ann3"), got)
		}
		if got := s.cell(t, d, "Final: 2 Target Mismatch"); got != "" {
			t.Errorf("%s: a Final checkbox not yet ticked reads %q", d, got)
		}
	}
	fillAdjudication(t, c, sp.ID, s, map[[2]string]any{
		{d1, "Final: 2 Target Mismatch"}: true, {d1, "Final: 3 Citation Error"}: true, {d1, "Reason"}: "annotator error", {d1, "Note"}: "3 too",
		{d2, "Or use"}: name("ann3"), {d2, "Reason"}: "guideline unclear",
	})
	// What pull must give: the annotators' answer where they agree, the
	// adjudicator's where they decided, no value where nobody did; cells
	// as the sheet s has them now.
	type goldWant struct {
		labels string
		prov   records.Provenance
	}
	expect := func(s *adjSheet, unresolved ...*adjudicate.Item) map[string]goldWant {
		first := func(d string) string { return "Gaps!" + backend.CellName(s.col["Final: 0 No gap"], s.row[d]) }
		use := func(d string) string { return "Gaps!" + backend.CellName(s.col["Or use"], s.row[d]) }
		out := map[string]goldWant{}
		for _, r := range recs {
			out[r.ID] = goldWant{fmt.Sprint(gold[r.ID]), records.Provenance{Kind: records.ProvenanceUnanimous, Agreeing: 2, Annotators: 2}}
		}
		out[disputed[0]] = goldWant{"[2 3]", records.Provenance{Kind: records.ProvenanceAdjudicated, Agreeing: agreeingWith(gold[disputed[0]], []int{2, 3}), Annotators: 2,
			Adjudicator: "lead", Reason: "annotator error", Note: "3 too", Decision: d1, Cell: first(d1)}}
		out[disputed[1]] = goldWant{"[0]", records.Provenance{Kind: records.ProvenanceAdjudicated, Agreeing: 1, Annotators: 2,
			Adjudicator: "lead", Reason: "guideline unclear", Decision: d2, Cell: use(d2)}} // decided by Or use
		for _, it := range unresolved {
			out[it.Unit] = goldWant{"[]", records.Provenance{Kind: records.ProvenanceUnresolved, Annotators: 2, Decision: it.ID, Cell: first(it.ID)}}
		}
		return out
	}
	goldFile := filepath.Join(t.TempDir(), "gold.jsonl")
	checkGold := func(run string, want map[string]goldWant, summary string) {
		t.Helper()
		code, _, errs := runCLI(t, append([]string{"pull", adj, "-o", goldFile, "--force"}, google...)...)
		if code != 0 || !strings.Contains(errs, summary) {
			t.Fatalf("%s: pull %s: exit %d: %s", run, adj, code, errs)
		}
		b, _ := os.ReadFile(goldFile)
		goldtest.ValidateRecords(t, b)
		got := readRecords(t, string(b))
		if len(got) != len(recs) {
			t.Fatalf("%s: %d gold records, want %d", run, len(got), len(recs))
		}
		for _, r := range got {
			w := want[r.Unit]
			p := r.Provenance["gaps"]
			if r.Annotator != records.GoldAnnotator || p == nil {
				t.Errorf("%s: %s by %q, provenance %+v", run, r.Unit, r.Annotator, r.Provenance)
				continue
			}
			v, _ := r.Values["gaps"].([]any)
			if labels := fmt.Sprint(v); labels != w.labels {
				t.Errorf("%s: %s is %s, want %s", run, r.Unit, labels, w.labels)
			}
			if !reflect.DeepEqual(*p, w.prov) {
				t.Errorf("%s: %s's provenance\n got %+v\nwant %+v", run, r.Unit, *p, w.prov)
			}
			// An unresolved row is reported by its cell.
			if w.prov.Kind == records.ProvenanceUnresolved && !strings.Contains(errs, w.prov.Cell+": "+w.prov.Decision+" (Gaps) is unresolved") {
				t.Errorf("%s: %s is not reported at %s:\n%s", run, w.prov.Decision, w.prov.Cell, errs)
			}
		}
	}
	checkGold("first run", expect(s, byUnit[disputed[2]]), "2 decisions read, 1 unresolved")

	// An annotator changes an answer the two agreed on; run again on the
	// same folder: the same spreadsheet is rewritten in place, with the
	// new disagreement and every decision typed so far.
	var changed string
	for _, r := range recs {
		if !slices.Contains(disputed, r.ID) {
			changed = r.ID
			break
		}
	}
	for _, b := range m.Batches {
		if b.Annotator != who[changed][0] {
			continue
		}
		fillAsAnnotator(t, endpoint, b.Spreadsheet.ID, func(w *goldtest.Workbook) error {
			w.RealIDs(m.OpaqueIDs)
			for code := 0; code <= 3; code++ {
				if err := w.Set(w.Rows[changed][0], fmt.Sprintf("q:gaps=%d", code), code == 0); err != nil {
					return err
				}
			}
			return nil
		})
	}
	code, out, errs = runCLI(t, adjArgs...)
	if code != 0 || !strings.Contains(out, "2 decided already and kept") || !strings.Contains(out, "wrote "+sp.URL+": 4 rows for lead") {
		t.Fatalf("adjudicate again: exit %d: %s\n%s", code, errs, out)
	}
	if ids := fake.Spreadsheets(); len(ids) != 4 {
		t.Errorf("%d spreadsheets after the second run, want the same 4: %v", len(ids), ids)
	}
	am2, err := study.ReadAdjudication(filepath.Join(adj, adjudicate.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(am2.Workbooks) != 1 || am2.Workbooks[0].Spreadsheet == nil || am2.Workbooks[0].Spreadsheet.ID != sp.ID || am2.ID != am.ID {
		t.Errorf("the manifest after the second run: %+v", am2.Workbooks)
	}
	var added *adjudicate.Item
	for _, it := range am2.Items {
		if old := byUnit[it.Unit]; old != nil && old.ID != it.ID {
			t.Errorf("unit %s's decision was %s, is %s", it.Unit, old.ID, it.ID)
		}
		if it.Unit == changed {
			added = it
		}
	}
	if len(am2.Items) != 4 || added == nil || slices.Contains([]string{d1, d2, d3}, added.ID) {
		t.Fatalf("items after the second run: %d, the new one %+v", len(am2.Items), added)
	}
	s = readAdjSheet(t, c, sp.ID, "Gaps")
	for _, k := range [][3]string{{d1, "Final: 2 Target Mismatch", "TRUE"}, {d1, "Final: 3 Citation Error", "TRUE"}, {d1, "Final: 0 No gap", ""},
		{d1, "Reason", "annotator error"}, {d1, "Note", "3 too"}, {d2, "Or use", name("ann3")}, {d2, "Reason", "guideline unclear"},
		{d3, "Or use", ""}, {added.ID, "Or use", ""}} {
		if got := s.cell(t, k[0], k[1]); got != k[2] {
			t.Errorf("after the second run, %s's %s is %q, want %q", k[0], k[1], got, k[2])
		}
	}
	checkGold("second run", expect(s, byUnit[disputed[2]], added), "2 decisions read, 2 unresolved")
}

// agreeingWith counts the annotators of a disputed unit whose answer is
// want: the one who gave the gold labels, if they are want.
func agreeingWith(gold, want []int) int {
	if slices.Equal(gold, want) {
		return 1
	}
	return 0
}
