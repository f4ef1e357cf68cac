package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/googletest"
)

// TestPrefillGSheets: the legal-gaps study prefilled with a model's
// labels, as Google Sheets through the fake, both ways. As answers, the
// spreadsheet gets the suggestions' conditional formats (blue italics);
// as suggestions, columns that show them. The annotator keeps one row's
// suggestion and changes another's through the API, and pull says so;
// the rows left are not answers.
func TestPrefillGSheets(t *testing.T) {
	googletest.NoAccount(t)
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	for _, as := range []string{"answers", "suggestions"} {
		t.Run(as, func(t *testing.T) {
			_, endpoint := startFake(t, sheetsfake.Options{})
			dir := t.TempDir()
			var model []records.Annotation
			for _, r := range recs {
				model = append(model, modelRecord("legal-gaps", r.ID, map[string]any{"gaps": []string{"2"}}, nil))
			}
			modelFile := filepath.Join(dir, "model.jsonl")
			writeRecords(t, modelFile, model)
			study := filepath.Join(dir, "study")
			if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", study, "--format", "gsheets", "--endpoint", endpoint, "--no-auth",
				"--prefill", modelFile, "--prefill-as", as); code != 0 {
				t.Fatalf("generate: %s", errs)
			}
			m := readManifest(t, study)
			id := m.Batches[0].Spreadsheet.ID
			c, err := sheets.New(context.Background(), sheets.Options{Endpoint: endpoint, NoAuth: true})
			if err != nil {
				t.Fatal(err)
			}
			ss, err := c.Sheets.Spreadsheets.Get(id).Do()
			if err != nil {
				t.Fatal(err)
			}
			italic := 0
			for _, sh := range ss.Sheets {
				for _, cf := range sh.ConditionalFormats {
					if f := cf.BooleanRule.Format; f.TextFormat != nil && f.TextFormat.Italic && f.TextFormat.ForegroundColor != nil && f.BackgroundColor == nil {
						italic++
					}
				}
			}
			want := map[string]int{"answers": 5, "suggestions": 0}[as] // 4 labels and the note
			if italic != want {
				t.Errorf("%d conditional formats style suggestions, want %d", italic, want)
			}
			if as == "suggestions" {
				vals, err := c.Sheets.Spreadsheets.Values.Get(id, "Annotate!B1:B3").Do()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([][]any{{"Suggested: Gaps"}, {"2 Target Mismatch"}, {"2 Target Mismatch"}}, vals.Values); diff != "" {
					t.Errorf("the suggestion column (-want +got):\n%s", diff)
				}
			}
			fillAsAnnotator(t, endpoint, id, func(w *goldtest.Workbook) error {
				w = w.RealIDs(m.OpaqueIDs)
				for _, cell := range []struct {
					unit, key string
					v         any
				}{
					{recs[0].ID, "annotator", "ak"}, {recs[0].ID, "q:gaps=2", true},
					{recs[1].ID, "annotator", "ak"}, {recs[1].ID, "q:gaps=2", true}, {recs[1].ID, "q:gaps=3", true},
				} {
					if err := w.Set(w.Rows[cell.unit][0], cell.key, cell.v); err != nil {
						return err
					}
				}
				return nil
			})
			pulled := pulledByUnit(t, study, "--endpoint", endpoint, "--no-auth")
			for i, r := range recs {
				got := pulled[[2]string{"ak", r.ID}]
				var want *records.PrefillTrace
				switch i {
				case 0:
					want = &records.PrefillTrace{From: "gpt4o", Questions: map[string]string{"gaps": "kept"}}
				case 1:
					want = &records.PrefillTrace{From: "gpt4o", Questions: map[string]string{"gaps": "changed"}}
				default:
					got = pulled[[2]string{"", r.ID}]
					if got.Status != records.StatusEmpty {
						t.Errorf("%s, untouched: %s %v", r.ID, got.Status, got.Values)
					}
				}
				if diff := cmp.Diff(want, got.Prefill); diff != "" {
					t.Errorf("%s's trace (-want +got):\n%s", r.ID, diff)
				}
			}
			if g := pulled[[2]string{"ak", recs[1].ID}].Values["gaps"]; !cmp.Equal(g, []any{"2", "3"}) {
				t.Errorf("%s's labels: %v", recs[1].ID, g)
			}
		})
	}
}
