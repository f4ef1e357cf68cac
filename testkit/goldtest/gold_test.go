package goldtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/internal/ojson"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

const data = "../../testdata/data/"

// goldQAWorkbook generates the QA-Feedback workbook and fills in the gold
// feedback of every record.
func goldQAWorkbook(t *testing.T) (tp *templates.Template, in, path string, recs []QARecord) {
	t.Helper()
	tp = builtin.Template(t, "qa-span-errors")
	in = data + "qa-feedback/dev_feedback.sample.json"
	path, _ = Generate(t, t.TempDir(), tp, layout.Options{}, in)
	recs, err := ReadQA(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := FillQA(w, tp, recs, "gold"); err != nil {
		t.Fatal(err)
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	return tp, in, path, recs
}

// noProblems fails on any problem pull reported.
func noProblems(t *testing.T, p *decode.Pulled) {
	t.Helper()
	for _, pr := range p.Problems {
		t.Errorf("problem: %v", pr)
	}
}

// TestGoldQAFeedback fills every QA-Feedback record's gold feedback into
// the generated workbook, pulls it and exports it: every offset must be
// the gold offset, and every exported feedback the gold feedback.
func TestGoldQAFeedback(t *testing.T) {
	tp, in, path, recs := goldQAWorkbook(t)
	p, jsonl := PullFile(t, path)
	noProblems(t, p)
	ValidateRecords(t, jsonl)
	spans, exact, missing, missingOK := 0, 0, 0, 0
	for i, r := range p.Records {
		if r.Status != records.StatusComplete || r.Annotator != "gold" {
			t.Errorf("%s: status %s, annotator %q", r.Unit, r.Status, r.Annotator)
		}
		gold := recs[i].Feedback
		var got []records.SpanAnswer
		for _, s := range r.Spans {
			if s.Start != nil {
				got = append(got, s)
			}
		}
		for k, e := range gold.Errors {
			spans++
			if k < len(got) && *got[k].Start == e.Start && *got[k].End == e.End && got[k].Code == e.Type {
				exact++
			} else {
				t.Errorf("%s error %d: gold %s [%d, %d), pulled %+v", r.Unit, k, e.Type, e.Start, e.End, got[min(k, len(got)-1)])
			}
		}
		missing += len(gold.MissingInfo)
		missingOK += len(r.Spans) - len(got)
	}
	t.Logf("QA-Feedback gold round trip: %d of %d error spans with the gold offsets and type; %d of %d missing-information entries", exact, spans, missingOK, missing)

	files := Export(t, tp, jsonl, Study{}, in)
	var exported []map[string]any
	if err := json.Unmarshal(files[0].Data, &exported); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(in)
	var input []map[string]any
	json.Unmarshal(raw, &input)
	if len(exported) != len(input) {
		t.Fatalf("%d records exported, %d in the input", len(exported), len(input))
	}
	equal := 0
	for i := range input {
		want := input[i]["feedback"]
		got := exported[i]["feedback"]
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("record %d: exported feedback differs from the gold (-gold +exported):\n%s", i, diff)
		} else {
			equal++
		}
		// Everything else of the record is the input's, untouched.
		delete(input[i], "feedback")
		delete(exported[i], "feedback")
		if !reflect.DeepEqual(input[i], exported[i]) {
			t.Errorf("record %d: the exported record changed fields other than feedback", i)
		}
	}
	t.Logf("QA-Feedback native export: %d of %d feedback objects equal to the gold", equal, len(input))
	// The whole file, keys in the dataset's order (feedback's errors,
	// missing-info, corrected-prediction) and in its style, is the
	// dataset's file itself.
	if !bytes.Equal(files[0].Data, raw) {
		t.Errorf("the exported file is not the dataset's file byte for byte (first difference at byte %d)", firstDiff(files[0].Data, raw))
	}
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestGoldLegal ticks every legal example's gold labels, pulls and exports
// them: the labels must be the gold labels.
func TestGoldLegal(t *testing.T) {
	tp := builtin.Template(t, "legal-gaps")
	in := data + "legal-gaps/examples.sample.jsonl"
	path, res := Generate(t, t.TempDir(), tp, layout.Options{}, in)
	recs, err := ReadJSONL[LegalRecord](in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	// The workbook shows opaque IDs; the study's key finds the records.
	if err := FillLegal(w.RealIDs(res.OpaqueIDs), recs, "gold"); err != nil {
		t.Fatal(err)
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	p, jsonl := PullFileWith(t, path, decode.PullOptions{OpaqueIDs: res.OpaqueIDs})
	ValidateRecords(t, jsonl)
	// The real labels break the guideline's decision order in places (2
	// and 3 without 1 are fine; 3 alone or 1 with others are warnings):
	// the only problems allowed are those warnings.
	for _, pr := range p.Problems {
		if pr.Severity != records.Warning || pr.Err != decode.ErrRule {
			t.Errorf("problem: %v", pr)
		}
	}
	for i, r := range p.Records {
		if r.Unit != recs[i].ID || r.Item != recs[i].ID || r.OpaqueIDs {
			t.Errorf("record %d: unit %s, item %s (opaque %v), want %s", i, r.Unit, r.Item, r.OpaqueIDs, recs[i].ID)
		}
	}
	files := Export(t, tp, jsonl, Study{}, in)
	lines := strings.Split(strings.TrimSpace(string(files[0].Data)), "\n")
	if len(lines) != len(recs) {
		t.Fatalf("%d lines exported for %d records", len(lines), len(recs))
	}
	agree := 0
	for i, line := range lines {
		var got struct {
			ID     string `json:"id"`
			Labels []int  `json:"labels"`
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		// In the input's own style: Python's default separators.
		want := fmt.Sprintf(`{"id": %q, "labels": %s}`, recs[i].ID, strings.ReplaceAll(fmt.Sprint(recs[i].GoldLabels), " ", ", "))
		if line != want {
			t.Errorf("line %d: %s, want %s", i+1, line, want)
		} else {
			agree++
		}
	}
	t.Logf("legal-gaps gold round trip: %d of %d label sets equal to gold_labels", agree, len(recs))

	// Pulled without the manifest, the records keep the opaque IDs and
	// one warning says so; export with the study's key writes the same
	// file.
	p, jsonl = PullFile(t, path)
	ValidateRecords(t, jsonl)
	opaque := 0
	for _, pr := range p.Problems {
		if pr.Err == decode.ErrOpaqueIDs {
			opaque++
		}
	}
	shown := map[string]string{}
	for o, real := range res.OpaqueIDs {
		shown[real] = o
	}
	for i, r := range p.Records {
		if want := shown[recs[i].ID]; want == "" || r.Unit != want || r.Item != want || !r.OpaqueIDs {
			t.Errorf("record %d pulled without the manifest: unit %s, item %s (opaque %v), want %s", i, r.Unit, r.Item, r.OpaqueIDs, want)
		}
	}
	if opaque != 1 {
		t.Errorf("%d warnings of opaque IDs, want 1", opaque)
	}
	if again := Export(t, tp, jsonl, Study{OpaqueIDs: res.OpaqueIDs}, in); !bytes.Equal(again[0].Data, files[0].Data) {
		t.Errorf("exported from the opaque records:\n%s\nwant\n%s", again[0].Data, files[0].Data)
	}
}

// TestPreferenceExportShape checks the preference scheme's native file:
// the input object with its slots filled, keys and order kept, written in
// the input's own style — byte for byte what the study's script expects.
func TestPreferenceExportShape(t *testing.T) {
	tp := builtin.Template(t, "preference-likert")
	in := data + "preference/preference_json_1.json"
	raw, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, res := Generate(t, dir, tp, layout.Options{}, in)

	// Nobody has answered: the completed file is the input itself.
	_, jsonl := PullFile(t, path)
	ValidateRecords(t, jsonl)
	var ann bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(string(jsonl)), "\n") {
		// Give the empty records an annotator, as a per-annotator
		// workbook would have.
		ann.WriteString(strings.Replace(line, `"annotator":""`, `"annotator":"1"`, 1) + "\n")
	}
	files := Export(t, tp, ann.Bytes(), Study{Orders: res.Orders}, in)
	if len(files) != 1 || !bytes.Equal(files[0].Data, raw) {
		t.Fatalf("an unanswered export is not the input byte for byte:\n%.300s", files[0].Data)
	}

	// Answer some topics, leave others: filled slots typed, the rest as
	// the input has them.
	w, err := OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := FillPreference(w, w.Units[:7], "1"); err != nil {
		t.Fatal(err)
	}
	// Topic 4 has its third likert left at the "not yet" 0.
	if err := w.Set(w.Rows[w.Units[3]][0], "q:third_prediction_likert", 0); err != nil {
		t.Fatal(err)
	}
	// The predictions were shown shuffled: what the annotator put in a
	// place belongs to the prediction shown there.
	input, _ := ojson.Decode(raw)
	want := input.(*ojson.Object)
	for i, u := range w.Units[:7] {
		order := res.Orders[u] // the prediction shown in each place
		topic := want.Vals[u].(*ojson.Object)
		topic.Set("best_prediction_reference", order[i%3])
		topic.Set("best_prediction_topic", order[(i+1)%3])
		topic.Set(order[0]+"_prediction_likert", json.Number(fmt.Sprint(i%5+1)))
		topic.Set(order[1]+"_prediction_likert", json.Number(fmt.Sprint((i+2)%5+1)))
		if i != 3 {
			topic.Set(order[2]+"_prediction_likert", json.Number(fmt.Sprint((i+4)%5+1)))
		}
	}
	for _, u := range w.Units[7:] {
		if err := w.Set(w.Rows[u][0], "annotator", "1"); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	p, jsonl := PullFile(t, path)
	ValidateRecords(t, jsonl)
	statuses := map[string]int{}
	for _, r := range p.Records {
		statuses[r.Status]++
	}
	if statuses[records.StatusComplete] != 6 || statuses[records.StatusPartial] != 1 || statuses[records.StatusEmpty] != 3 {
		t.Errorf("statuses %v, want 6 complete, 1 partial (a likert not yet given), 3 empty", statuses)
	}
	files = Export(t, tp, jsonl, Study{Orders: res.Orders}, in)
	wantBytes, _ := ojson.Marshal(want, ojson.DetectStyle(raw))
	if len(files) != 1 || files[0].Annotator != "1" || !bytes.Equal(files[0].Data, wantBytes) {
		t.Errorf("completed file differs from the expected one:\n%s", cmp.Diff(string(wantBytes), string(files[0].Data)))
	}
}

// TestFactgenieExport judges every span, pulls and exports: each exported
// record carries its evaluator's real name, and its span is one that
// evaluator reported for that output.
func TestFactgenieExport(t *testing.T) {
	tp := builtin.Template(t, "factgenie-meta-eval")
	in := data + "factgenie-d2t"
	path, res := Generate(t, t.TempDir(), tp, layout.Options{Seed: 5}, in)
	w, err := OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := FillFactgenie(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	p, jsonl := PullFile(t, path)
	noProblems(t, p)
	ValidateRecords(t, jsonl)
	files := Export(t, tp, jsonl, Study{Keys: res.Keys}, in)
	lines := strings.Split(strings.TrimSpace(string(files[0].Data)), "\n")
	if len(lines) != 289 {
		t.Fatalf("%d records exported, want one per judged span (289)", len(lines))
	}
	// The spans each evaluator reported, by output.
	reported := map[string]bool{}
	for _, ev := range []string{"claude-3-7-sonnet", "gpt4o", "llama3-3"} {
		recs, err := ReadJSONL[struct {
			Setup       string `json:"setup_id"`
			Idx         int    `json:"example_idx"`
			Annotations []struct {
				Text  string `json:"text"`
				Start int    `json:"start"`
			} `json:"annotations"`
		}](filepath.Join(in, "evaluators", ev, "annotations.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			for _, a := range r.Annotations {
				reported[fmt.Sprintf("%s|%s|%d|%s|%d", ev, r.Setup, r.Idx, a.Text, a.Start)] = true
			}
		}
	}
	for _, line := range lines {
		var got struct {
			Dataset   string `json:"dataset"`
			Setup     string `json:"setup_id"`
			Idx       int    `json:"example_idx"`
			Evaluator string `json:"evaluator"`
			Span      struct {
				Text  string `json:"text"`
				Start int    `json:"start"`
			} `json:"span"`
			SpanOK    string   `json:"span_ok"`
			Flags     []string `json:"flags"`
			Annotator string   `json:"annotator"`
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("%s|%s|%d|%s|%d", got.Evaluator, got.Setup, got.Idx, got.Span.Text, got.Span.Start)
		if !reported[key] {
			t.Errorf("exported span not reported by %s for %s/%d: %q", got.Evaluator, got.Setup, got.Idx, got.Span.Text)
		}
		if got.SpanOK == "" || got.Flags == nil || got.Annotator == "" {
			t.Errorf("judgments missing: %s", line)
		}
	}
	t.Logf("factgenie meta-evaluation: %d judged spans exported, each under its evaluator's real name", len(lines))
}
