package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// statusJSON runs status --json.
func statusJSON(t *testing.T, src string) study.Status {
	t.Helper()
	code, out, errs := runCLI(t, "status", src, "--json")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errs)
	}
	var rep study.Status
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestPreferenceStudy runs the preference workflow: three annotators
// judge every topic, the predictions shown in a shuffled order. Each
// annotator scores what they read (from the text itself), and the native
// files must have every score back on the prediction that was read.
func TestPreferenceStudy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pref")
	code, out, errs := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", dir, "--annotators", "a1,a2,a3", "--overlap", "3", "--seed", "9")
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "10 instances, each for 3 of 3 annotators, in 3 workbooks") {
		t.Errorf("generate said:\n%s", out)
	}
	raw, err := os.ReadFile(prefData)
	if err != nil {
		t.Fatal(err)
	}
	var input map[string]map[string]any
	if err := json.Unmarshal(raw, &input); err != nil {
		t.Fatal(err)
	}
	score := func(text string, who int) int { return (len([]rune(text))+who)%5 + 1 }
	slots := []string{"first", "second", "third"}
	labels := []string{"First prediction", "Second prediction", "Third prediction"}
	moved := 0
	for who, a := range []string{"a1", "a2", "a3"} {
		path := filepath.Join(dir, "preference-likert-"+a+"-b01.xlsx")
		w, err := goldtest.OpenWorkbook(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, topic := range w.Units {
			row := w.Rows[topic][0]
			var shown []string
			for i, s := range slots {
				cell, _ := w.Cell(row, "context:"+s+"_prediction")
				text, err := w.F.GetCellValue(backend.SheetAnnotate, cell)
				if err != nil {
					t.Fatal(err)
				}
				shown = append(shown, text)
				if text != input[topic][s+"_prediction"] {
					moved++
				}
				if err := w.Set(row, "q:"+s+"_prediction_likert", score(text, who)); err != nil {
					t.Fatal(err)
				}
				_ = i
			}
			longest, shortest := 0, 0
			for i, s := range shown {
				if len(s) > len(shown[longest]) {
					longest = i
				}
				if len(s) < len(shown[shortest]) {
					shortest = i
				}
			}
			w.Set(row, "q:best_prediction_reference", labels[longest])
			w.Set(row, "q:best_prediction_topic", labels[shortest])
			if got, _ := w.Cell(row, "annotator"); got == "" {
				t.Fatal("no annotator column")
			}
			if id, _ := w.F.GetCellValue(backend.SheetAnnotate, mustCell(t, w, row, "annotator")); id != a {
				t.Errorf("%s's workbook has annotator %q filled in", a, id)
			}
		}
		if err := w.Save(); err != nil {
			t.Fatal(err)
		}
	}
	if moved == 0 {
		t.Fatal("no prediction was shown out of its place: nothing is shuffled")
	}
	rep := statusJSON(t, dir)
	if len(rep.Batches) != 3 || rep.Total.Complete != 30 || rep.Total.Units != 30 {
		t.Errorf("status: %+v, total %+v", rep.Batches, rep.Total)
	}

	outPattern := filepath.Join(t.TempDir(), "preference_json_{annotator}_completed.json")
	if code, out, errs := runCLI(t, "export", dir, "--native", "--out", outPattern); code != 0 {
		t.Fatalf("export: exit %d: %s %s", code, out, errs)
	}
	for who, a := range []string{"a1", "a2", "a3"} {
		b, err := os.ReadFile(strings.ReplaceAll(outPattern, "{annotator}", a))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for topic, in := range input {
			longest, shortest := "", ""
			for _, s := range slots {
				text := in[s+"_prediction"].(string)
				if want := float64(score(text, who)); got[topic][s+"_prediction_likert"] != want {
					t.Errorf("%s, %q: %s likert %v, want %v (the score of its own text)", a, topic, s, got[topic][s+"_prediction_likert"], want)
				}
				if longest == "" || len(text) > len(in[longest+"_prediction"].(string)) {
					longest = s
				}
				if shortest == "" || len(text) < len(in[shortest+"_prediction"].(string)) {
					shortest = s
				}
			}
			if got[topic]["best_prediction_reference"] != longest || got[topic]["best_prediction_topic"] != shortest {
				t.Errorf("%s, %q: best %v/%v, want %s/%s", a, topic, got[topic]["best_prediction_reference"], got[topic]["best_prediction_topic"], longest, shortest)
			}
		}
	}
	// The workbooks hold no order: only the manifest does.
	m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Orders) != 10 {
		t.Errorf("the manifest records %d orders, want 10", len(m.Orders))
	}
	for topic, order := range m.Orders {
		for _, a := range []string{"a1", "a2", "a3"} {
			text := packageText(t, filepath.Join(dir, "preference-likert-"+a+"-b01.xlsx"))
			if strings.Contains(text, strings.Join(order, ",")) || strings.Contains(text, `"orders"`) {
				t.Errorf("%s's workbook holds the order of %q", a, topic)
			}
		}
		break
	}
}

func mustCell(t *testing.T, w *goldtest.Workbook, row int, key string) string {
	c, err := w.Cell(row, key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// packageText is every part of an XLSX package, as text.
func packageText(t *testing.T, path string) string {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var b strings.Builder
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(&b, r)
		r.Close()
	}
	return b.String()
}

// TestFactgenieNoNames: no evaluator's or system's name is anywhere in the
// workbook — sheets, hidden sheets, metadata, styles — and the export has
// them all back.
func TestFactgenieNoNames(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fg")
	if code, _, errs := runCLI(t, "generate", "-t", "factgenie-meta-eval", "-i", fgData, "-o", dir, "--annotators", "ak,bt", "--overlap", "1", "--seed", "3"); code != 0 {
		t.Fatalf("generate: %s", errs)
	}
	names := []string{"claude-3-7-sonnet", "gpt4o", "llama3-3", "gemma2", "phi3-5", "claude", "sonnet", "llama", "gemma", "phi3"}
	m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range m.Batches {
		text := strings.ToLower(packageText(t, filepath.Join(dir, b.File)))
		for _, n := range names {
			if strings.Contains(text, n) {
				t.Errorf("%s contains %q", b.File, n)
			}
		}
	}
	// Each annotator judges the spans of their instances.
	for _, b := range m.Batches {
		w, err := goldtest.OpenWorkbook(filepath.Join(dir, b.File))
		if err != nil {
			t.Fatal(err)
		}
		if err := goldtest.FillFactgenie(w); err != nil {
			t.Fatal(err)
		}
		if err := w.Save(); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "judged.jsonl")
	if code, _, errs := runCLI(t, "export", dir, "--native", "--out", out); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	b, _ := os.ReadFile(out)
	evaluators := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Evaluator string `json:"evaluator"`
			Setup     string `json:"setup_id"`
			Annotator string `json:"annotator"`
		}
		json.Unmarshal([]byte(line), &r)
		evaluators[r.Evaluator] = true
		if !slices.Contains(names, r.Setup) || r.Annotator == "" {
			t.Errorf("exported %s", line)
		}
	}
	for _, e := range []string{"claude-3-7-sonnet", "gpt4o", "llama3-3"} {
		if !evaluators[e] {
			t.Errorf("evaluator %s is not in the export: %v", e, evaluators)
		}
	}
}

// TestStudyMissing: a workbook not returned, another study's workbook in
// a batch's place and a deleted row all show as missing units, in status
// and pull, each with its reason; nothing else is lost.
func TestStudyMissing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "study")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--annotators", "ak,bt", "--batch-size", "1", "--seed", "5"); code != 0 {
		t.Fatalf("generate: %s", errs)
	}
	m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Batches) != 5 {
		t.Fatalf("%d batches, want 5 of one unit", len(m.Batches))
	}
	// Batch 0 is not returned.
	os.Remove(filepath.Join(dir, m.Batches[0].File))
	// Batch 1's file is replaced by a workbook of another study.
	other := filepath.Join(t.TempDir(), "other")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", other); code != 0 {
		t.Fatal(errs)
	}
	b, _ := os.ReadFile(filepath.Join(other, "legal-gaps-b01.xlsx"))
	os.WriteFile(filepath.Join(dir, m.Batches[1].File), b, 0o644)
	// Batch 2's row is deleted; batch 3 is answered.
	f, err := excelize.OpenFile(filepath.Join(dir, m.Batches[2].File))
	if err != nil {
		t.Fatal(err)
	}
	f.RemoveRow(backend.SheetAnnotate, 2)
	f.Save()
	f.Close()
	w, err := goldtest.OpenWorkbook(filepath.Join(dir, m.Batches[3].File))
	if err != nil {
		t.Fatal(err)
	}
	w.Set(w.Rows[w.Units[0]][0], "q:gaps=2", true)
	w.Save()

	rep := statusJSON(t, dir)
	want := map[string][2]int{} // batch -> missing, complete
	for i, b := range m.Batches {
		switch i {
		case 0, 1, 2:
			want[b.ID] = [2]int{1, 0}
		case 3:
			want[b.ID] = [2]int{0, 1}
		default:
			want[b.ID] = [2]int{0, 0}
		}
	}
	for _, bt := range rep.Batches {
		if got := [2]int{bt.Missing, bt.Complete}; got != want[bt.Batch] || bt.Units != 1 {
			t.Errorf("status of %s: %+v, want missing/complete %v", bt.Batch, bt, want[bt.Batch])
		}
		if bt.Annotator == "" {
			t.Errorf("batch %s counted for nobody", bt.Batch)
		}
	}
	if rep.Total.Units != 5 || rep.Total.Missing != 3 {
		t.Errorf("total %+v", rep.Total)
	}
	code, stdout, errs := runCLI(t, "pull", dir)
	if code != 0 {
		t.Fatalf("pull: exit %d: %s", code, errs)
	}
	for _, why := range []string{
		m.Batches[0].File + ": the workbook of batch " + m.Batches[0].ID + " is missing",
		"the workbook of batch " + m.Batches[1].ID + " is not the one the manifest lists (workbook of another template or study: it belongs to study",
		"(row 2 when generated) is not in the sheet: was its row deleted?",
	} {
		if !strings.Contains(errs, why) {
			t.Errorf("pull does not say %q:\n%s", why, errs)
		}
	}
	recs := readRecords(t, stdout)
	missing := 0
	for _, r := range recs {
		if r.Status == records.StatusMissing {
			missing++
		}
		if r.Annotator == "" {
			t.Errorf("record %s/%s has no annotator", r.Batch, r.Unit)
		}
	}
	if len(recs) != 5 || missing != 3 {
		t.Errorf("%d records, %d missing; want 5 and 3", len(recs), missing)
	}
	// Re-pulling after more work: the same records, updated.
	w, _ = goldtest.OpenWorkbook(filepath.Join(dir, m.Batches[4].File))
	w.Set(w.Rows[w.Units[0]][0], "q:gaps=0", true)
	w.Save()
	_, again, _ := runCLI(t, "pull", dir)
	recs2 := readRecords(t, again)
	if len(recs2) != len(recs) {
		t.Fatalf("%d records after more work, %d before", len(recs2), len(recs))
	}
	for i := range recs {
		if recs[i].Unit != recs2[i].Unit || recs[i].Annotator != recs2[i].Annotator || recs[i].Batch != recs2[i].Batch {
			t.Errorf("record %d moved: %s/%s became %s/%s", i, recs[i].Batch, recs[i].Unit, recs2[i].Batch, recs2[i].Unit)
		}
	}
	if recs2[4].Status != records.StatusComplete || recs[4].Status != records.StatusEmpty {
		t.Errorf("the new answer is not in: %s then %s", recs[4].Status, recs2[4].Status)
	}
	_, third, _ := runCLI(t, "pull", dir)
	if third != again {
		t.Error("pulling twice gives different output")
	}
}

func TestStatusTable(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fg")
	if code, _, errs := runCLI(t, "generate", "-t", "factgenie-meta-eval", "-i", fgData, "-o", dir, "--seed", "2"); code != 0 {
		t.Fatal(errs)
	}
	// A shared workbook: annotators claim instances by typing their ID.
	w, err := goldtest.OpenWorkbook(filepath.Join(dir, "factgenie-meta-eval-b01.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	item := w.Units[0][:strings.LastIndex(w.Units[0], "#")]
	claimed := 0
	for _, u := range w.Units {
		if strings.HasPrefix(u, item+"#") {
			row := w.Rows[u][0]
			w.Set(row, "q:span_ok", "Error")
			w.Set(row, "q:explanation_ok", "Correct")
			w.Set(row, "annotator", "ak")
			claimed++
		}
	}
	w.Save()
	code, out, errs := runCLI(t, "status", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "batch") || !strings.Contains(out, "(unclaimed)") {
		t.Errorf("table:\n%s", out)
	}
	rep := statusJSON(t, dir)
	var ak *study.Tally
	for _, bt := range rep.Batches {
		if bt.Annotator == "ak" {
			ak = bt
		}
	}
	if ak == nil || ak.Complete != claimed || ak.Units != claimed || rep.Total.Units != 289 {
		t.Errorf("ak %+v, total %+v (claimed %d)", ak, rep.Total, claimed)
	}
	// Progress is per annotator too, and as a bar in the table.
	if !strings.Contains(out, "all batches") || !strings.Contains(out, "#") {
		t.Errorf("table lacks the per-annotator rows or bars:\n%s", out)
	}
}

// TestExportOverlap: with two annotators on every instance, a native file
// whose records say whose they are (factgenie's lines) holds both; one
// whose records do not (legal-gaps' labels) is refused as one file and
// written per annotator.
func TestExportOverlap(t *testing.T) {
	t.Parallel()
	fill := func(dir string, fn func(w *goldtest.Workbook) error) *manifest.Manifest {
		m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range m.Batches {
			w, err := goldtest.OpenWorkbook(filepath.Join(dir, b.File))
			if err != nil {
				t.Fatal(err)
			}
			if err := fn(w); err != nil {
				t.Fatal(err)
			}
			w.Save()
		}
		return m
	}
	fg := filepath.Join(t.TempDir(), "fg")
	if code, _, errs := runCLI(t, "generate", "-t", "factgenie-meta-eval", "-i", fgData, "-o", fg, "-a", "ak,bt", "--overlap", "2", "--seed", "1"); code != 0 {
		t.Fatal(errs)
	}
	fill(fg, goldtest.FillFactgenie)
	out := filepath.Join(t.TempDir(), "judged.jsonl")
	if code, _, errs := runCLI(t, "export", fg, "--native", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	who := map[string]int{}
	for _, l := range lines {
		var r struct{ Annotator string }
		json.Unmarshal([]byte(l), &r)
		who[r.Annotator]++
	}
	if who["ak"] == 0 || who["ak"] != who["bt"] || len(who) != 2 {
		t.Errorf("lines per annotator: %v", who)
	}

	legal := filepath.Join(t.TempDir(), "legal")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", legal, "-a", "ak,bt", "--overlap", "2", "--seed", "1"); code != 0 {
		t.Fatal(errs)
	}
	fill(legal, func(w *goldtest.Workbook) error { return w.Set(w.Rows[w.Units[0]][0], "q:gaps=1", true) })
	code, _, errs := runCLI(t, "export", legal, "--native", "--out", filepath.Join(t.TempDir(), "labels.jsonl"))
	if code != 1 || !strings.Contains(errs, "was judged by ak and bt") {
		t.Errorf("one file for two annotators' labels: exit %d: %s", code, errs)
	}
	per := filepath.Join(t.TempDir(), "labels-{annotator}.jsonl")
	if code, _, errs := runCLI(t, "export", legal, "--native", "--out", per); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, a := range []string{"ak", "bt"} {
		b, err := os.ReadFile(strings.Replace(per, "{annotator}", a, 1))
		if err != nil || !strings.Contains(string(b), `"labels": [1]`) {
			t.Errorf("%s's labels: %s %v", a, b, err)
		}
	}
}
