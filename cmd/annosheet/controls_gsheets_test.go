package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/testkit/googletest"
)

// TestControlsGSheets: a preference study with control units as Google
// spreadsheets through the fake. Nothing of any spreadsheet (every sheet
// with its cells, hidden ones too, developer metadata, protected ranges,
// notes, titles) says which units are controls, and pull through the
// manifest marks their records.
func TestControlsGSheets(t *testing.T) {
	googletest.NoAccount(t)
	_, endpoint := startFake(t, sheetsfake.Options{})
	dir := t.TempDir()
	topics := preferenceTopics(t)
	var gold []records.Annotation
	for _, topic := range topics[:2] {
		r := modelRecord("preference-likert", topic, map[string]any{"best_prediction_reference": "first", "best_prediction_topic": "first",
			"first_prediction_likert": 3, "second_prediction_likert": 3, "third_prediction_likert": 3}, nil)
		r.Annotator = "gold"
		gold = append(gold, r)
	}
	goldFile := filepath.Join(dir, "gold.jsonl")
	writeRecords(t, goldFile, gold)
	study := filepath.Join(dir, "study")
	if code, _, errs := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", study, "--format", "gsheets", "--endpoint", endpoint, "--no-auth",
		"--annotators", "ak,bt", "--controls", goldFile, "--controls-per-batch", "1"); code != 0 {
		t.Fatalf("generate: %s", errs)
	}
	m := readManifest(t, study)
	c, err := sheets.New(context.Background(), sheets.Options{Endpoint: endpoint, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	word := regexp.MustCompile(`(?i)control`)
	for _, b := range m.Batches {
		if len(b.Controls) != 1 {
			t.Errorf("batch %s: controls %v", b.ID, b.Controls)
		}
		ss, err := c.Sheets.Spreadsheets.Get(b.Spreadsheet.ID).IncludeGridData(true).Do()
		if err != nil {
			t.Fatal(err)
		}
		all, err := json.Marshal(ss)
		if err != nil {
			t.Fatal(err)
		}
		if loc := word.FindIndex(all); loc != nil {
			t.Errorf("spreadsheet of batch %s says %q", b.ID, all[max(0, loc[0]-60):min(len(all), loc[1]+60)])
		}
	}
	pulled := pulledByUnit(t, study, "--endpoint", endpoint, "--no-auth")
	controls := 0
	for _, r := range pulled {
		if r.Control {
			controls++
		}
	}
	if controls != 2 {
		t.Errorf("%d records marked control, want 2 (one in each of the two workbooks)", controls)
	}
}
