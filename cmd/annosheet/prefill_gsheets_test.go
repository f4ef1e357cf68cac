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
// labels, as Google Sheets through the fake. The spreadsheet gets the
// suggestions' conditional formats (blue italics), the annotator keeps
// one row's suggestions and changes another's through the API, and pull
// says so; the rows left are not answers.
func TestPrefillGSheets(t *testing.T) {
	googletest.NoAccount(t)
	_, endpoint := startFake(t, sheetsfake.Options{})
	dir := t.TempDir()
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	var model []records.Annotation
	for _, r := range recs {
		model = append(model, modelRecord("legal-gaps", r.ID, map[string]any{"gaps": []string{"2"}}, nil))
	}
	modelFile := filepath.Join(dir, "model.jsonl")
	writeRecords(t, modelFile, model)
	study := filepath.Join(dir, "study")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", study, "--format", "gsheets", "--endpoint", endpoint, "--no-auth", "--prefill", modelFile); code != 0 {
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
	if italic != 5 {
		t.Errorf("%d conditional formats style suggestions, want 5 (4 labels and the note)", italic)
	}
	fillAsAnnotator(t, endpoint, id, func(w *goldtest.Workbook) error {
		w = w.RealIDs(m.OpaqueIDs)
		if err := w.Set(w.Rows[recs[0].ID][0], "annotator", "ak"); err != nil {
			return err
		}
		if err := w.Set(w.Rows[recs[1].ID][0], "annotator", "ak"); err != nil {
			return err
		}
		return w.Set(w.Rows[recs[1].ID][0], "q:gaps=3", true)
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
}
