package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// TestControlAccuracyCLI: a legal-gaps study with three of the sample's
// units as controls (their labels as the data set gives them, none with
// code 0), one in each of the four workbooks. ak answers the controls as
// known, bt ticks 0 (no gap) everywhere. Each meets two controls: ak
// scores 1 in both, bt the Jaccard index of {0} and the known codes, 0.
// status (text and --json), pull's summary and the report give those
// accuracies; --min-control-accuracy 0.5 warns about bt only, and a
// threshold out of [0, 1] is a usage error.
func TestControlAccuracyCLI(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	labels, ids := legalGold(t)
	known := map[string][]string{}
	var gold []records.Annotation
	for _, id := range ids[:3] {
		for _, l := range labels[id] {
			known[id] = append(known[id], fmt.Sprint(l))
		}
		g := modelRecord("legal-gaps", id, map[string]any{"gaps": known[id]}, nil)
		g.Annotator = records.GoldAnnotator
		gold = append(gold, g)
	}
	goldFile := filepath.Join(dir, "gold.jsonl")
	writeRecords(t, goldFile, gold)
	study := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", study, "--annotators", "ak,bt", "--overlap", "2",
		"--batch-size", "1", "--controls", goldFile, "--controls-per-batch", "1"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	m := readManifest(t, study)
	met := map[string]int{}
	for _, b := range m.Batches {
		book := filepath.Join(study, b.File)
		w := openLayout(t, book).RealIDs(m.OpaqueIDs)
		var cells [][2]any
		for _, u := range w.Units {
			codes := []string{"0"}
			if b.Annotator == "ak" {
				codes = []string{"1"}
				if k, ok := known[u]; ok {
					codes = k
				}
			}
			for _, code := range codes {
				name, err := w.Cell(w.Rows[u][0], "q:gaps="+code)
				if err != nil {
					t.Fatal(err)
				}
				cells = append(cells, [2]any{name, true})
			}
		}
		fillWithOpenpyxl(t, py, book, cells, "")
		met[b.Annotator] += len(b.Controls)
	}
	if met["ak"] != 2 || met["bt"] != 2 {
		t.Fatalf("controls met: %v, want 2 each", met)
	}

	code, stdout, stderr := runCLI(t, "status", study)
	if code != 0 {
		t.Fatalf("status: exit %d, %s", code, stderr)
	}
	want := "\ncontrol units (known answers): accuracy by annotator\n" +
		"  ak  2 units  1.00\n" +
		"  bt  2 units  0.00\n"
	if !strings.Contains(stdout, want) {
		t.Errorf("status says\n%s\nwant a section\n%s", stdout, want)
	}
	if strings.Contains(stderr, "control accuracy") {
		t.Errorf("status warns with no threshold: %s", stderr)
	}

	code, stdout, stderr = runCLI(t, "status", study, "--json", "--min-control-accuracy", "0.5")
	if code != 0 {
		t.Fatalf("status --json: exit %d, %s", code, stderr)
	}
	var st struct {
		Controls json.RawMessage `json:"controls"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	var controls any
	if err := json.Unmarshal(st.Controls, &controls); err != nil {
		t.Fatalf("controls %s: %v", st.Controls, err)
	}
	wantJSON := map[string]any{"ak": map[string]any{"units": 2.0, "score": 1.0}, "bt": map[string]any{"units": 2.0, "score": 0.0}}
	if d := cmp.Diff(wantJSON, controls); d != "" {
		t.Errorf("status --json controls (-want +got):\n%s", d)
	}
	btWarning := "warning: annotator bt: control accuracy 0.00 over 2 units, below 0.50\n"
	if !strings.Contains(stderr, btWarning) || strings.Contains(stderr, "annotator ak") {
		t.Errorf("status --json --min-control-accuracy 0.5 warns:\n%s", stderr)
	}

	out := filepath.Join(dir, "pulled.jsonl")
	code, _, stderr = runCLI(t, "pull", study, "--out", out, "--min-control-accuracy", "0.5")
	if code != 0 {
		t.Fatalf("pull: exit %d, %s", code, stderr)
	}
	for _, s := range []string{"\ncontrol accuracy: ak 1.00 (2 units), bt 0.00 (2 units)\n", btWarning} {
		if !strings.Contains(stderr, s) {
			t.Errorf("pull says\n%s\nwant %q", stderr, s)
		}
	}
	if strings.Contains(stderr, "annotator ak") {
		t.Errorf("pull warns about ak:\n%s", stderr)
	}

	page := filepath.Join(dir, "r.html")
	code, _, stderr = runCLI(t, "report", study, "--out", page, "--min-control-accuracy", "0.5")
	if code != 0 {
		t.Fatalf("report: exit %d, %s", code, stderr)
	}
	if !strings.Contains(stderr, btWarning) || strings.Contains(stderr, "annotator ak") {
		t.Errorf("report warns:\n%s", stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`<h2>Control units</h2>`,
		`<td class="n">2</td><td class="n">1.000</td><td class="n">1.000</td></tr>`,
		`<td class="n">2</td><td class="n sev-warning">0.000 (below 0.500)</td><td class="n">0.000</td></tr>`,
	} {
		if !strings.Contains(string(html), s) {
			t.Errorf("the report has no %s", s)
		}
	}

	for _, x := range []string{"1.5", "-0.1", "NaN"} {
		if code, _, stderr := runCLI(t, "status", study, "--min-control-accuracy", x); code != 2 || !strings.Contains(stderr, "--min-control-accuracy") {
			t.Errorf("--min-control-accuracy %s: exit %d, %s", x, code, stderr)
		}
	}
}
