package layout_test

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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/plantest"
)

const data = "../testdata/data/"

func TestBuildPerRecord(t *testing.T) {
	tp, res := plantest.Build(t, "legal-gaps", layout.Options{}, data+"legal-gaps/examples.sample.jsonl")
	if res.Records != 5 || res.Rows != 5 || len(res.Units) != 5 || len(res.Warnings) != 0 {
		t.Fatalf("records %d rows %d units %d warnings %v", res.Records, res.Rows, len(res.Units), res.Warnings)
	}
	want := []layout.Unit{
		{ID: "gpt4o-11", Item: "gpt4o-11", FirstRow: 2, Rows: 1, Record: 0},
		{ID: "llama3-11", Item: "llama3-11", FirstRow: 3, Rows: 1, Record: 1},
		{ID: "gpt4o-12", Item: "gpt4o-12", FirstRow: 4, Rows: 1, Record: 2},
		{ID: "llama3-12", Item: "llama3-12", FirstRow: 5, Rows: 1, Record: 3},
		{ID: "gpt4o-13", Item: "gpt4o-13", FirstRow: 6, Rows: 1, Record: 4},
	}
	if diff := cmp.Diff(want, res.Units); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	rows := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetAnnotate))
	// The cited paragraphs are joined, numbered, with their citations;
	// too long for the cell, they are all on the Read sheet.
	cited := plantest.Text(rows[1].Cells[plantest.Col(t, tp, "context:cited_paragraphs")])
	var read strings.Builder
	for _, r := range plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetRead)) {
		read.WriteString(plantest.Text(r.Cells[0]))
	}
	if !strings.HasPrefix(cited, "[1] 564 F.3d 856\n") || !strings.Contains(read.String(), "\n\n[6] 855 F.2d 394\n") {
		t.Errorf("cited paragraphs: %.120q", cited)
	}
	// Every row has its own band colour here: one record, one group.
	for r := 2; r < len(rows); r++ {
		if rows[r].Cells[0].Style.Fill == rows[r-1].Cells[0].Style.Fill {
			t.Errorf("rows %d and %d share a band colour", r, r+1)
		}
	}
}

func TestBuildPerElementFactgenie(t *testing.T) {
	tp, res := plantest.Build(t, "factgenie-meta-eval", layout.Options{Seed: 42}, data+"factgenie-d2t")
	if len(res.Units) != 289 || res.Records != 40 {
		t.Fatalf("%d units from %d records", len(res.Units), res.Records)
	}
	keys := res.Keys["evaluator_label"]
	labels := slices.Sorted(func(yield func(string) bool) {
		for _, l := range keys {
			if !yield(l) {
				return
			}
		}
	})
	if !slices.Equal(labels, []string{"A", "B", "C"}) || len(keys) != 3 {
		t.Fatalf("evaluator key %v", keys)
	}
	if sys := res.Keys["system"]; len(sys) != 4 || sys["gemma2"] == "" {
		t.Errorf("system key %v", sys)
	}
	rows := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetAnnotate))
	evalCol, outCol, unitCol := plantest.Col(t, tp, "context:evaluator"), plantest.Col(t, tp, "context:output"), plantest.Col(t, tp, "unit")
	// Within an instance rows are ordered by evaluator label; the output
	// text is on the instance's first row only.
	for i, u := range res.Units {
		row := rows[u.FirstRow-1]
		if got := plantest.Text(row.Cells[unitCol]); got != u.ID {
			t.Fatalf("row %d unit %q, want %q", u.FirstRow, got, u.ID)
		}
		first := i == 0 || res.Units[i-1].Item != u.Item
		if hasOut := plantest.Text(row.Cells[outCol]) != ""; hasOut != first {
			t.Errorf("row %d: output shown = %v, first row of its instance = %v", u.FirstRow, hasOut, first)
		}
		if !first && plantest.Text(row.Cells[evalCol]) < plantest.Text(rows[u.FirstRow-2].Cells[evalCol]) {
			t.Errorf("row %d: evaluator %s after %s", u.FirstRow, plantest.Text(row.Cells[evalCol]), plantest.Text(rows[u.FirstRow-2].Cells[evalCol]))
		}
		if !strings.HasPrefix(u.ID, u.Item+"#"+plantest.Text(row.Cells[evalCol])) {
			t.Errorf("unit %q does not name its instance and evaluator label", u.ID)
		}
	}
	// The spans of the first instance, under their labels, match the data.
	var spans []string
	for _, ev := range []string{"claude-3-7-sonnet", "gpt4o", "llama3-3"} {
		b, err := os.ReadFile(filepath.Join(data+"factgenie-d2t/evaluators", ev, "annotations.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				Setup       string `json:"setup_id"`
				Idx         int    `json:"example_idx"`
				Annotations []struct {
					Text string `json:"text"`
				} `json:"annotations"`
			}
			json.Unmarshal([]byte(line), &r)
			if r.Setup == "gemma2" && r.Idx == 0 {
				for _, a := range r.Annotations {
					spans = append(spans, keys[ev]+" "+a.Text)
				}
			}
		}
	}
	slices.Sort(spans)
	var got []string
	spanCol := plantest.Col(t, tp, "context:span_text")
	want := "d2t-football/test/0/" + res.Keys["system"]["gemma2"]
	for _, u := range res.Units {
		if u.Item == want {
			got = append(got, plantest.Text(rows[u.FirstRow-1].Cells[evalCol])+" "+plantest.Text(rows[u.FirstRow-1].Cells[spanCol]))
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff(spans, got); diff != "" {
		t.Errorf("spans of gemma2/0 (-data +sheet):\n%s", diff)
	}
}

func TestBuildLabelsFollowSeedAndKeys(t *testing.T) {
	key := func(seed uint64, keys map[string]map[string]string) map[string]string {
		_, res := plantest.Build(t, "factgenie-meta-eval", layout.Options{Seed: seed, Keys: keys}, data+"factgenie-d2t")
		return res.Keys["evaluator_label"]
	}
	a, b := key(7, nil), key(7, nil)
	if !maps(a, b) {
		t.Errorf("same seed, different labels: %v %v", a, b)
	}
	differs := false
	for seed := uint64(1); seed < 20 && !differs; seed++ {
		differs = !maps(a, key(seed, nil))
	}
	if !differs {
		t.Error("the labels do not depend on the seed: A would always be the same evaluator")
	}
	// A given key is kept, whatever the seed.
	given := map[string]map[string]string{"evaluator_label": {"gpt4o": "B", "llama3-3": "A"}}
	got := key(99, given)
	if got["gpt4o"] != "B" || got["llama3-3"] != "A" || got["claude-3-7-sonnet"] != "C" {
		t.Errorf("with a given key: %v", got)
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestBuildBlocks(t *testing.T) {
	tp, res := plantest.Build(t, "qa-span-errors", layout.Options{}, data+"qa-feedback/dev_feedback.sample.json")
	if len(res.Units) != 40 || res.Rows != 320 {
		t.Fatalf("%d units, %d rows", len(res.Units), res.Rows)
	}
	ann := plantest.Sheet(t, res.Plan, backend.SheetAnnotate)
	if len(ann.Merges) != 40*4 {
		t.Errorf("%d merges, want the 4 context columns of 40 blocks", len(ann.Merges))
	}
	rows := plantest.Rows(t, ann)
	checked := plantest.Col(t, tp, "q:checked")
	for _, u := range res.Units {
		if u.Rows != 8 || u.ID != u.Item {
			t.Fatalf("unit %+v", u)
		}
		for k := 0; k < u.Rows; k++ {
			row := rows[u.FirstRow-1+k]
			if plantest.Text(row.Cells[0]) != u.ID {
				t.Errorf("row %d carries id %q, want %q", u.FirstRow+k, plantest.Text(row.Cells[0]), u.ID)
			}
			// The block question is open on the first row only.
			if open := row.Cells[checked].Style.Unlocked; open != (k == 0) {
				t.Errorf("row %d: Checked open = %v", u.FirstRow+k, open)
			}
			if k > 0 && row.Cells[1].Value != nil {
				t.Errorf("row %d repeats the context", u.FirstRow+k)
			}
		}
	}
	passages := plantest.Text(rows[1].Cells[plantest.Col(t, tp, "context:passages")])
	if !strings.HasPrefix(passages, "[P1 S0] Bloom (Troye Sivan album)\n[P1 S1] ") || !strings.Contains(passages, "\n\n[P2 S0] Bloom (Troye Sivan album)\n[P2 S1] ") {
		t.Errorf("passages: %.200q", passages)
	}
	// The metadata carries each prediction in full and the passage sizes.
	meta := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetMeta))
	var blob struct {
		Fields   map[string]string `json:"fields"`
		Evidence map[string][]int  `json:"evidence"`
	}
	var j strings.Builder
	for _, c := range meta[3].Cells[5:] {
		j.WriteString(plantest.Text(c))
	}
	if err := json.Unmarshal([]byte(j.String()), &blob); err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	b, _ := os.ReadFile(data + "qa-feedback/dev_feedback.sample.json")
	json.Unmarshal(b, &recs)
	if blob.Fields["prediction"] != recs[0]["prediction 1"] || !slices.Equal(blob.Evidence["evidence"], []int{10, 12}) {
		t.Errorf("metadata blob %+v", blob)
	}
}

// TestBuildReportsEveryProblem checks that one run reports every bad record
// at once, sorted by line, and writes nothing.
func TestBuildReportsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var b strings.Builder
	for i := range 150 {
		// Every record lacks "target"; every third repeats an id.
		fmt.Fprintf(&b, `{"id": "r%d", "previous_context": "p", "generation": "g", "cited_paragraphs": []}`+"\n", i-i%3)
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	tp, _ := templates.Builtin("legal-gaps")
	src, _ := input.Open("jsonl", []string{in})
	_, err := layout.Build(context.Background(), tp, src, layout.Options{})
	var ps records.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v is not Problems", err)
	}
	if len(ps) != records.MaxErrors {
		t.Errorf("%d problems, want the first %d", len(ps), records.MaxErrors)
	}
	for i, p := range ps {
		if i > 0 && p.Line < ps[i-1].Line {
			t.Fatalf("problems not sorted by line: %d after %d", p.Line, ps[i-1].Line)
		}
	}
	want := &records.Problem{Severity: records.Error, File: in, Line: 2, Record: "r0", Field: "target", Err: records.ErrMissingField,
		Message: `context "target" needs this field; mark it optional: true if it may be absent`}
	var got *records.Problem
	for _, p := range ps {
		if p.Line == 2 && p.Field == "target" {
			got = p
		}
	}
	if got == nil {
		t.Fatal("no problem for line 2")
	}
	if diff := cmp.Diff(*want, *got, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) })); diff != "" {
		t.Errorf("problem (-want +got):\n%s", diff)
	}
	dups := 0
	for _, p := range ps {
		if errors.Is(p, records.ErrDuplicateID) {
			dups++
		}
	}
	if dups == 0 {
		t.Error("duplicate ids not reported")
	}
}

// TestMissingFieldNamed: a field the record lacks is named as a record
// would have it, the template's parameters filled in: the prediction
// qa-span-errors reads is "prediction 1" (or the one --param gives), not
// "${prediction}".
func TestMissingFieldNamed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		params map[string]string
		want   []string // the fields of the problems, in order
	}{
		{nil, []string{"passages", "prediction 1", "passages"}},
		{map[string]string{"prediction": "prediction 3"}, []string{"passages", "prediction 3", "passages"}},
	} {
		tp, err := input.Template("qa-span-errors", c.params)
		if err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(t.TempDir(), "in.json")
		os.WriteFile(in, []byte(`[{"question": "q?", "gold": "g"}]`), 0o644)
		src, err := input.Open(tp.Input.Format, []string{in})
		if err != nil {
			t.Fatal(err)
		}
		_, err = layout.Build(context.Background(), tp, src, layout.Options{})
		var ps records.Problems
		if !errors.As(err, &ps) {
			t.Fatalf("error %v is not Problems", err)
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.Field)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("params %v: fields (-want +got):\n%s", c.params, diff)
		}
	}
}

// TestBuildLongList checks that a dropdown too long for an inline list gets
// its values from the Lists sheet.
func TestBuildLongList(t *testing.T) {
	var opts strings.Builder
	for i := range 30 {
		fmt.Fprintf(&opts, "      - {code: c%d, label: \"A rather long category label number %d\"}\n", i, i)
	}
	src := `name: long
version: 1
title: Long list
instructions: Pick one.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, path: text}
questions:
  - name: cat
    type: choice
    options:
` + opts.String()
	tp, err := templates.Load("long.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"id": "a", "text": "x"}`+"\n"), 0o644)
	s, _ := input.Open("jsonl", []string{in})
	res, err := layout.Build(context.Background(), tp, s, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ann := plantest.Sheet(t, res.Plan, backend.SheetAnnotate)
	v := ann.Validations[0]
	if v.Kind != backend.ValidList || v.Source != "Lists!$A$2:$A$31" || len(v.Values) != 30 {
		t.Errorf("validation %+v", v)
	}
	lists := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetLists))
	if plantest.Text(lists[30].Cells[0]) != "A rather long category label number 29" || plantest.Sheet(t, res.Plan, backend.SheetLists).Visibility != backend.Hidden {
		t.Errorf("Lists sheet row 31: %q", plantest.Text(lists[30].Cells[0]))
	}
}

// TestBuildEmptyListGivesNoRows checks that an instance with nothing to
// judge (no spans) gets no rows and is counted.
func TestBuildEmptyListGivesNoRows(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "outputs.jsonl"), []byte(
		`{"dataset": "d", "split": "s", "setup_id": "m", "example_idx": 0, "output": "text one"}`+"\n"+
			`{"dataset": "d", "split": "s", "setup_id": "m", "example_idx": 1, "output": "text two"}`+"\n"), 0o644)
	ev := filepath.Join(dir, "evaluators", "e1")
	os.MkdirAll(ev, 0o755)
	os.WriteFile(filepath.Join(ev, "config.yaml"), []byte("annotation_span_categories:\n- name: Wrong\n"), 0o644)
	os.WriteFile(filepath.Join(ev, "annotations.jsonl"), []byte(
		`{"dataset": "d", "split": "s", "setup_id": "m", "example_idx": 0, "annotations": [{"text": "one", "start": 5, "type": 0, "reason": "r"}]}`+"\n"+
			`{"dataset": "d", "split": "s", "setup_id": "m", "example_idx": 1, "annotations": []}`+"\n"), 0o644)
	_, res := plantest.Build(t, "factgenie-meta-eval", layout.Options{Seed: 1}, dir)
	if res.Records != 2 || res.Skipped != 1 || len(res.Units) != 1 || res.Rows != 1 {
		t.Errorf("records %d skipped %d units %d rows %d", res.Records, res.Skipped, len(res.Units), res.Rows)
	}
	if res.Units[0].ID != "d/s/0/S1#A1" {
		t.Errorf("unit %q", res.Units[0].ID)
	}
}

// TestBuildMultiAsList checks a multi question rendered as one cell of
// codes: a single text column whose prompt lists the codes.
func TestBuildMultiAsList(t *testing.T) {
	src := `name: tags
version: 1
title: Tags
instructions: Tag it.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, path: text}
questions:
  - name: tags
    header: Tags
    description: Every tag that applies.
    type: multi
    render: list
    options: [{code: a}, {code: b}, {code: c}]
`
	tp, err := templates.Load("tags.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"id": "x", "text": "t"}`+"\n"), 0o644)
	s, _ := input.Open("jsonl", []string{in})
	res, err := layout.Build(context.Background(), tp, s, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ann := plantest.Sheet(t, res.Plan, backend.SheetAnnotate)
	col := plantest.Col(t, tp, "q:tags")
	if len(tp.Columns()) != 6 || !ann.Columns[col].Style.Text || !ann.Columns[col].Style.Unlocked {
		t.Errorf("columns %d, style %+v", len(tp.Columns()), ann.Columns[col].Style)
	}
	var v *backend.Validation
	for i := range ann.Validations {
		if ann.Validations[i].Col == col {
			v = &ann.Validations[i]
		}
	}
	if v == nil || v.Kind != backend.ValidAny || v.Prompt != "Every tag that applies. Codes, separated by commas: a, b, c" {
		t.Errorf("validation %+v", v)
	}
}

// TestUnitIDsAcrossRecords: a per-element template whose unit ids do not
// name their record would give two records' rows the same unit, and the
// workbook could not be read back: generating refuses, naming both.
func TestUnitIDsAcrossRecords(t *testing.T) {
	src, _ := templates.BuiltinSource("factgenie-meta-eval")
	yaml := strings.Replace(string(src), `unit: "{$id}#{@.evaluator_label}{$n}"`, `unit: "{@.evaluator_label}{$n}"`, 1)
	if yaml == string(src) {
		t.Fatal("the built-in's rows.unit moved; update the test")
	}
	tp, err := templates.Load("units.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	in, err := input.Open(tp.Input.Format, []string{data + "factgenie-d2t"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = layout.Build(context.Background(), tp, in, layout.Options{})
	var ps records.Problems
	if !errors.As(err, &ps) || !errors.Is(ps[0].Err, records.ErrDuplicateID) || !strings.Contains(ps[0].Message, `the unit id "A1" is also a unit of the record at`) {
		t.Fatalf("got %v", err)
	}
}

// TestBuildNullField: a required field that is null is missing, said so,
// never an empty cell without a word.
func TestBuildNullField(t *testing.T) {
	t.Parallel()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(`{"id": "a", "previous_context": "p", "generation": "g", "cited_paragraphs": [], "target": null}`+"\n"), 0o644)
	tp, _ := templates.Builtin("legal-gaps")
	src, _ := input.Open("jsonl", []string{in})
	_, err := layout.Build(context.Background(), tp, src, layout.Options{})
	want := records.Problems{{Severity: records.Error, File: in, Line: 1, Record: "a", Field: "target", Err: records.ErrMissingField,
		Message: `context "target" needs this field, which is null; mark it optional: true if it may be absent`}}
	var got records.Problems
	if !errors.As(err, &got) {
		t.Fatalf("error %v is not Problems", err)
	}
	if len(got) != 1 {
		t.Fatalf("%d problems: %v", len(got), got)
	}
	if diff := cmp.Diff(*want[0], *got[0], cmpopts.EquateErrors()); diff != "" {
		t.Errorf("problem (-want +got):\n%s", diff)
	}
}
