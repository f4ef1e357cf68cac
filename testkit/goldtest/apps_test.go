package goldtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// The tests in this file let real applications change filled workbooks,
// as annotators' tools do: openpyxl (Python) and LibreOffice. They skip,
// saying why, when those are missing; .ci/run installs both and requires
// them.

// editWithOpenpyxl applies operations (see testdata/openpyxl_edit.py).
func editWithOpenpyxl(t *testing.T, path string, ops []map[string]any) {
	t.Helper()
	py := testreaders.Openpyxl(t)
	opsFile := filepath.Join(t.TempDir(), "ops.json")
	b, _ := json.Marshal(ops)
	if err := os.WriteFile(opsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "testdata/openpyxl_edit.py", path, opsFile).CombinedOutput(); err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, out)
	}
}

// resaveWithLibreOffice converts a workbook with LibreOffice, as an
// annotator's save would, and returns the new file.
func resaveWithLibreOffice(t *testing.T, path string) string {
	t.Helper()
	soffice := testreaders.Soffice(t)
	out := filepath.Join(t.TempDir(), "lo")
	testreaders.Convert(t, soffice, "xlsx:Calc MS Excel 2007 XML", out, path)
	return filepath.Join(out, filepath.Base(path))
}

// filledPreference generates the preference workbook and has annotator 1
// answer every topic.
func filledPreference(t *testing.T) (path string, w *Workbook) {
	t.Helper()
	tp := builtin.Template(t, "preference-likert")
	path, _ = Generate(t, t.TempDir(), tp, layout.Options{}, data+"preference/preference_json_1.json")
	w, err := OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"First prediction", "Second prediction", "Third prediction"}
	for i, u := range w.Units {
		row := w.Rows[u][0]
		for k, v := range map[string]any{
			"q:best_prediction_reference": labels[i%3], "q:best_prediction_topic": labels[(i+2)%3],
			"q:first_prediction_likert": i%5 + 1, "q:second_prediction_likert": (i+1)%5 + 1, "q:third_prediction_likert": (i+2)%5 + 1,
			"annotator": "1",
		} {
			if err := w.Set(row, k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	w, err = OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, w
}

type probKey struct{ Severity, Unit, Message string }

func probKeys(ps records.Problems) []probKey {
	var out []probKey
	for _, p := range ps {
		out = append(out, probKey{p.Severity, p.Record, p.Message})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Message < out[j].Message })
	return out
}

// TestSurvivesOpenpyxlAndLibreOffice changes a filled preference workbook
// with openpyxl — values pasted past the dropdown, numbers as text and
// floats, a formula, a renamed header, an inserted column, a deleted row,
// a copied row, and the rows sorted — then pulls it, before and after a
// LibreOffice save: every answer is read, and every change is reported.
func TestSurvivesOpenpyxlAndLibreOffice(t *testing.T) {
	testreaders.Openpyxl(t)
	path, w := filledPreference(t)
	before, _ := PullFile(t, path)
	want := map[string]map[string]any{}
	for _, r := range before.Records {
		want[r.Unit] = r.Values
	}
	u := w.Units
	cell := func(unit, key string) string {
		c, err := w.Cell(w.Rows[unit][0], key)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// The edits are addressed before any row or column moves.
	ops := []map[string]any{
		{"op": "set", "cell": cell(u[1], "q:best_prediction_topic"), "value": "  second PREDICTION "},
		{"op": "set", "cell": cell(u[2], "q:first_prediction_likert"), "value": "4"},
		{"op": "set", "cell": cell(u[2], "q:second_prediction_likert"), "value": 4.0, "type": "float"},
		{"op": "set", "cell": cell(u[3], "q:third_prediction_likert"), "value": "=2+1", "type": "formula"},
		{"op": "rename", "cell": cell(u[0], "q:best_prediction_reference")[:1] + "1", "value": "Best (ref)"},
		{"op": "copy_row", "from": w.Rows[u[4]][0]},
		{"op": "delete_row", "row": w.Rows[u[9]][0]},
		{"op": "insert_col", "before": "K", "header": "My notes"},
		{"op": "sort", "key": "A", "reverse": true},
	}
	editWithOpenpyxl(t, path, ops)
	want[u[1]]["best_prediction_topic"] = "second"
	want[u[2]]["first_prediction_likert"] = 4
	want[u[2]]["second_prediction_likert"] = 4
	delete(want[u[9]], "best_prediction_reference")
	wantProbs := []probKey{
		{"error", u[9], `unit "` + u[9] + `" (row 11 when generated) is not in the sheet: was its row deleted?`},
		{"warning", u[1], `"  second PREDICTION " read as "Second prediction"; pick it from the list`},
		{"warning", "", `column K ("My notes") is not part of the template; it is ignored`},
		{"warning", "", `the header "Best prediction (reference)" was renamed to "Best (ref)"; the column is read by its position`},
		{"warning", "", `the candidates were shown in a shuffled order; the answers stay in the order shown ("shuffled": true) until pulled with the study's manifest`},
	}

	check := func(t *testing.T, path string, formula any) {
		p, jsonl := PullFile(t, path)
		ValidateRecords(t, jsonl)
		got := map[string]map[string]any{}
		for _, r := range p.Records {
			got[r.Unit] = r.Values
		}
		w3 := maps(want)
		delete(w3[u[3]], "third_prediction_likert")
		if formula != nil {
			w3[u[3]]["third_prediction_likert"] = formula
		}
		w3[u[9]] = map[string]any{}
		if diff := cmp.Diff(w3, got); diff != "" {
			t.Errorf("values (-want +got):\n%s", diff)
		}
		wp := slices.Clone(wantProbs)
		// The copied row: reported on whatever row the sort put it.
		var dup probKey
		for _, pr := range p.Problems {
			if pr.Err == decode.ErrLayout && pr.Record == u[4] {
				dup = probKey{pr.Severity, pr.Record, pr.Message}
			}
		}
		if dup.Severity != "warning" {
			t.Errorf("the copied row is not reported: %v", p.Problems)
		}
		wp = append(wp, dup)
		if formula == nil {
			// openpyxl stores no value for a formula: the cell is reported
			// as a formula with no saved value, and nothing is made up.
			wp = append(wp, probKey{"error", u[3], "a formula with no saved value (=2+1): open the workbook in a spreadsheet application and save it, or type the value"})
		}
		sort.Slice(wp, func(i, j int) bool { return wp[i].Message < wp[j].Message })
		if diff := cmp.Diff(wp, probKeys(p.Problems)); diff != "" {
			t.Errorf("problems (-want +got):\n%s", diff)
		}
	}
	t.Run("openpyxl", func(t *testing.T) { check(t, path, nil) })
	t.Run("then LibreOffice", func(t *testing.T) {
		// LibreOffice computes the formula; the value is used, the formula
		// is not evaluated by pull.
		check(t, resaveWithLibreOffice(t, path), 3)
	})
}

func maps(m map[string]map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for k, v := range m {
		c := map[string]any{}
		for kk, vv := range v {
			c[kk] = vv
		}
		out[k] = c
	}
	return out
}

// TestLibreOfficeSavedGold checks that a gold-filled QA workbook saved by
// LibreOffice (shared strings, its own styles, inserted rows) pulls to the
// same records as before.
func TestLibreOfficeSavedGold(t *testing.T) {
	testreaders.Soffice(t)
	_, _, path, _ := goldQAWorkbook(t)
	want, _ := PullFile(t, path)
	got, jsonl := PullFile(t, resaveWithLibreOffice(t, path))
	ValidateRecords(t, jsonl)
	noProblems(t, got)
	if diff := cmp.Diff(want.Records, got.Records); diff != "" {
		t.Errorf("records after a LibreOffice save (-before +after):\n%s", diff)
	}
}
