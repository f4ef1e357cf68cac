package input

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

const factgenieData = "../testdata/data/factgenie-d2t"

// factgenieEvaluators are the evaluators of the real data, in name order,
// with the number of spans each reported (checked against the files by
// factgenieExpected).
var factgenieEvaluators = []struct {
	name  string
	spans int
}{
	{"claude-3-7-sonnet", 113},
	{"gpt4o", 74},
	{"llama3-3", 102},
}

// factgenieCategories are the span categories of every config.yaml of the
// real data, in order: type 0 is "Contradictory".
var factgenieCategories = []string{"Contradictory", "Not checkable", "Misleading", "Incoherent", "Repetitive", "Other"}

// factgenieDecodeLines decodes a JSON Lines file with encoding/json, numbers
// kept as written.
func factgenieDecodeLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for i, line := range bytes.Split(raw, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(line))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		m["_line"] = i + 1
		out = append(out, m)
	}
	return out
}

func factgenieKeyOf(m map[string]any) string {
	return fmt.Sprintf("%v/%v/%v/%v", m["dataset"], m["split"], m["setup_id"], m["example_idx"])
}

// factgenieExpected builds the records that reading the real factgenie
// folder must give, from the files themselves: every output with the spans
// of the evaluators in name order, each evaluator's spans in file order.
func factgenieExpected(t *testing.T) []inputRec {
	t.Helper()
	outputsPath := filepath.Join(factgenieData, "outputs.jsonl")
	outputs := factgenieDecodeLines(t, outputsPath)
	byKey := map[string]map[string]any{}
	for _, o := range outputs {
		o["spans"] = []any{}
		byKey[factgenieKeyOf(o)] = o
	}
	if len(outputs) != 40 || len(byKey) != 40 {
		t.Fatalf("outputs.jsonl has %d outputs, %d distinct; want 40", len(outputs), len(byKey))
	}
	total := 0
	for _, ev := range factgenieEvaluators {
		dir := filepath.Join(factgenieData, "evaluators", ev.name)
		raw, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			Cats []struct {
				Name string `yaml:"name"`
			} `yaml:"annotation_span_categories"`
		}
		if err := yaml.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		var cats []string
		for _, c := range cfg.Cats {
			cats = append(cats, c.Name)
		}
		if !reflect.DeepEqual(cats, factgenieCategories) {
			t.Fatalf("%s: categories %q, want %q", ev.name, cats, factgenieCategories)
		}
		n := 0
		for _, a := range factgenieDecodeLines(t, filepath.Join(dir, "annotations.jsonl")) {
			o := byKey[factgenieKeyOf(a)]
			if o == nil {
				t.Fatalf("%s: annotations for %s, which is not an output", ev.name, factgenieKeyOf(a))
			}
			for i, x := range a["annotations"].([]any) {
				am := x.(map[string]any)
				typ, err := am["type"].(json.Number).Int64()
				if err != nil {
					t.Fatal(err)
				}
				o["spans"] = append(o["spans"].([]any), map[string]any{
					"evaluator": ev.name,
					"text":      am["text"],
					"start":     am["start"],
					"type":      am["type"],
					"category":  cats[typ],
					"reason":    am["reason"],
					"index":     json.Number(fmt.Sprint(i)),
				})
				n++
			}
		}
		if n != ev.spans {
			t.Fatalf("%s has %d spans in its annotations.jsonl, the test expects %d", ev.name, n, ev.spans)
		}
		total += n
	}
	if total != 289 {
		t.Fatalf("%d spans in all, want 289", total)
	}
	var want []inputRec
	for i, o := range outputs {
		line := o["_line"].(int)
		delete(o, "_line")
		want = append(want, inputRec{Index: i, File: outputsPath, Line: line, Data: inputCanon(t, o)})
	}
	return want
}

// factgenieCheckTypes checks that what the reader attaches has the Go
// types the template engine expects: spans a []any of map[string]any,
// numbers json.Number.
func factgenieCheckTypes(t *testing.T, recs []*layout.Record) {
	t.Helper()
	for _, r := range recs {
		m, ok := r.Data.(map[string]any)
		if !ok {
			t.Fatalf("%s:%d: Data is %T", r.File, r.Line, r.Data)
		}
		spans, ok := m["spans"].([]any)
		if !ok {
			t.Fatalf("%s:%d: spans is %T, want []any", r.File, r.Line, m["spans"])
		}
		for i, s := range spans {
			sm, ok := s.(map[string]any)
			if !ok {
				t.Fatalf("%s:%d: span %d is %T", r.File, r.Line, i, s)
			}
			for _, f := range []string{"index", "start", "type"} {
				if _, ok := sm[f].(json.Number); !ok {
					t.Errorf("%s:%d: span %d: %s is %T, want json.Number", r.File, r.Line, i, f, sm[f])
				}
			}
			for _, f := range []string{"evaluator", "text", "category", "reason"} {
				v, present := sm[f]
				if _, ok := v.(string); !ok && (present || f != "reason") {
					t.Errorf("%s:%d: span %d: %s is %T, want string", r.File, r.Line, i, f, v)
				}
			}
		}
	}
}

func TestFactgenieRealData(t *testing.T) {
	want := factgenieExpected(t)
	outputs := filepath.Join(factgenieData, "outputs.jsonl")
	ev := func(name string) string { return filepath.Join(factgenieData, "evaluators", name) }
	// Files lists every file the records depend on, for the manifest: the
	// outputs, then per evaluator in name order its spans and categories.
	wantFiles := []string{
		outputs,
		filepath.Join(ev("claude-3-7-sonnet"), "annotations.jsonl"),
		filepath.Join(ev("claude-3-7-sonnet"), "config.yaml"),
		filepath.Join(ev("gpt4o"), "annotations.jsonl"),
		filepath.Join(ev("gpt4o"), "config.yaml"),
		filepath.Join(ev("llama3-3"), "annotations.jsonl"),
		filepath.Join(ev("llama3-3"), "config.yaml"),
	}
	tests := []struct {
		name   string
		format string
		paths  []string
	}{
		{"folder", "factgenie", []string{factgenieData}},
		{"folder, auto", "auto", []string{factgenieData}},
		{"folder with a trailing slash", "factgenie", []string{factgenieData + "/"}},
		{"separate inputs", "factgenie", []string{outputs, ev("claude-3-7-sonnet"), ev("gpt4o"), ev("llama3-3")}},
		{"separate inputs in another order", "factgenie", []string{ev("llama3-3") + "/", outputs, ev("gpt4o"), ev("claude-3-7-sonnet")}},
		{"separate inputs, auto", "auto", []string{outputs, ev("gpt4o"), ev("llama3-3"), ev("claude-3-7-sonnet")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := Open(tc.format, tc.paths)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			files := src.Files()
			for i := range files {
				files[i] = filepath.Clean(files[i])
			}
			if d := inputDiff(wantFiles, files); d != "" {
				t.Errorf("Files (-want +got):\n%s", d)
			}
			for pass := 1; pass <= 2; pass++ {
				recs, err := inputReadAll(src)
				if err != nil {
					t.Fatalf("Each: %v", err)
				}
				got := inputRecs(t, "", recs)
				for i := range got {
					got[i].File = filepath.Clean(got[i].File)
				}
				if d := inputDiff(want, got); d != "" {
					t.Errorf("pass %d: records (-want +got):\n%.8000s", pass, d)
				}
				factgenieCheckTypes(t, recs)
			}
		})
	}
}

// TestFactgenieRealDataSpot checks one record by hand, independently of
// factgenieExpected: gemma2's text for example 2 (the third line of
// outputs.jsonl), which claude-3-7-sonnet left without spans, and whose
// spans have the types 1, 2 and 3.
func TestFactgenieRealDataSpot(t *testing.T) {
	src, err := Open("factgenie", []string{factgenieData})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := inputReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 40 {
		t.Fatalf("got %d records, want 40", len(recs))
	}
	want := map[string]any{
		"dataset": "d2t-football", "split": "test", "example_idx": json.Number("2"), "setup_id": "gemma2",
		"output": "Sportivo Trinidense defeated Nacional Potosí 2-0 in their CONMEBOL Sudamericana Group Stage match. The home team scored a goal in the first half and another in the second half, with goals from F. Romero and J. Salcedo. Nacional Potosí had several substitutions throughout the game but were unable to score.",
		"spans": []any{
			map[string]any{
				"evaluator": "gpt4o", "index": json.Number("0"), "start": json.Number("149"), "type": json.Number("1"), "category": "Not checkable",
				"reason": "The player J. Salcedo scored in the second half, while the specific substitution mentioned occurred in a tied sequence of events.",
				"text":   "another in the second half, with goals from F. Romero and J. Salcedo.",
			},
			map[string]any{
				"evaluator": "gpt4o", "index": json.Number("1"), "start": json.Number("219"), "type": json.Number("2"), "category": "Misleading",
				"reason": "The text suggests the away team made changes throughout the game without specifying the impact.",
				"text":   "Nacional Potosí had several substitutions throughout the game but were unable to score.",
			},
			map[string]any{
				"evaluator": "llama3-3", "index": json.Number("0"), "start": json.Number("99"), "type": json.Number("3"), "category": "Incoherent",
				"reason": "The text does not specify that both goals were scored by different players in the respective halves.",
				"text":   "The home team scored a goal in the first half and another in the second half, with goals from F. Romero and J. Salcedo.",
			},
		},
	}
	r := recs[2]
	if r.Index != 2 || r.Line != 3 || filepath.Base(r.File) != "outputs.jsonl" || r.Key != "" || r.InvalidUTF8 {
		t.Errorf("record 2: Index %d, %s:%d, Key %q, InvalidUTF8 %v; want Index 2, outputs.jsonl:3", r.Index, r.File, r.Line, r.Key, r.InvalidUTF8)
	}
	if d := cmp.Diff(want, r.Data); d != "" {
		t.Errorf("record 2 (-want +got):\n%s", d)
	}
	// Every category of the real data is resolved from config.yaml.
	seen := map[string]int{}
	for _, r := range recs {
		for _, s := range r.Data.(map[string]any)["spans"].([]any) {
			sm := s.(map[string]any)
			typ, _ := sm["type"].(json.Number).Int64()
			if sm["category"] != factgenieCategories[typ] {
				t.Errorf("%s:%d: type %d has category %q, want %q", r.File, r.Line, typ, sm["category"], factgenieCategories[typ])
			}
			seen[sm["evaluator"].(string)]++
		}
	}
	wantSeen := map[string]int{}
	for _, ev := range factgenieEvaluators {
		wantSeen[ev.name] = ev.spans
	}
	if !reflect.DeepEqual(seen, wantSeen) {
		t.Errorf("spans per evaluator = %v, want %v", seen, wantSeen)
	}
}

// factgenieFiles writes files (name -> content, names with /) under dir.
func factgenieFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		inputWriteFile(t, dir, name, content)
	}
}

const factgenieCampaignOutputs = `{"dataset": "d", "split": "test", "setup": {"id": "sys1"}, "example_idx": 0, "output": "The cat sat."}
{"dataset": "d", "split": "test", "setup_id": "sys1", "example_idx": 1, "output": "Dogs bark loudly."}

{"dataset": "d", "split": "test", "setup_id": "sys2", "example_idx": 0, "output": "Birds fly south."}
`

// factgenieCampaign is a campaign folder in factgenie's own layout, with
// the older record shape ("setup": {"id"}, "annotator_id").
var factgenieCampaign = map[string]string{
	"metadata.json": `{"id": "camp", "mode": "crowdsourcing", "config": {
  "annotation_span_categories": [
    {"name": "Incorrect", "color": "#ff0000"},
    {"name": "Not checkable", "color": "#00ff00"},
    {"name": "Other", "color": "#0000ff"}
  ]}}`,
	"files/a.jsonl": `{"dataset": "d", "split": "test", "setup": {"id": "sys1"}, "example_idx": 0, "annotator_id": "ann-a", "annotations": [{"text": "cat", "start": 4, "type": 0, "reason": "it was a dog"}]}
{"dataset": "d", "split": "test", "setup": {"id": "sys2"}, "example_idx": 0, "annotator_id": "ann-a", "annotations": []}
`,
	"files/b.jsonl": `{"dataset": "d", "split": "test", "setup": {"id": "sys1"}, "example_idx": 1, "annotator_id": "ann-b", "annotations": [{"text": "loudly", "start": 11, "type": 2}, {"text": "Dogs", "start": 0, "type": 1, "reason": ""}]}
{"dataset": "d", "split": "test", "setup": {"id": "sys1"}, "example_idx": 0, "annotator_id": "ann-b", "annotations": null}
`,
	"files/notes.txt": "not read\n",
}

// factgenieZeta is an evaluator in the annotations.jsonl layout.
var factgenieZeta = map[string]string{
	"config.yaml": "annotation_span_categories:\n- name: Wrong\n  color: red\n- name: Odd\n",
	"annotations.jsonl": `{"dataset": "d", "split": "test", "setup_id": "sys1", "example_idx": 0, "annotations": [{"text": "The cat", "start": 0, "type": 1, "reason": "odd"}]}
{"dataset": "d", "split": "test", "setup_id": "sys2", "example_idx": 0, "annotations": [{"text": "south", "start": 10, "type": 0, "reason": "north"}]}
`,
}

func factgenieWithPrefix(prefix string, files map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[prefix+k] = v
	}
	return out
}

func TestFactgenieCampaign(t *testing.T) {
	want := []inputRec{
		{Index: 0, File: "outputs.jsonl", Line: 1, Data: `{"dataset": "d", "split": "test", "setup": {"id": "sys1"}, "example_idx": 0, "output": "The cat sat.", "spans": [
			{"evaluator": "camp", "text": "cat", "start": 4, "type": 0, "category": "Incorrect", "reason": "it was a dog", "index": 0},
			{"evaluator": "zeta", "text": "The cat", "start": 0, "type": 1, "category": "Odd", "reason": "odd", "index": 0}]}`},
		{Index: 1, File: "outputs.jsonl", Line: 2, Data: `{"dataset": "d", "split": "test", "setup_id": "sys1", "example_idx": 1, "output": "Dogs bark loudly.", "spans": [
			{"evaluator": "camp", "text": "loudly", "start": 11, "type": 2, "category": "Other", "index": 0},
			{"evaluator": "camp", "text": "Dogs", "start": 0, "type": 1, "category": "Not checkable", "reason": "", "index": 1}]}`},
		{Index: 2, File: "outputs.jsonl", Line: 4, Data: `{"dataset": "d", "split": "test", "setup_id": "sys2", "example_idx": 0, "output": "Birds fly south.", "spans": [
			{"evaluator": "zeta", "text": "south", "start": 10, "type": 0, "category": "Wrong", "reason": "north", "index": 0}]}`},
	}
	for i := range want {
		want[i].Data = inputJSON(t, want[i].Data)
	}
	tests := []struct {
		name      string
		files     map[string]string
		paths     []string
		wantFiles []string
	}{
		{
			name: "evaluators folder",
			files: factgenieMerge(
				map[string]string{"data/outputs.jsonl": factgenieCampaignOutputs},
				factgenieWithPrefix("data/evaluators/camp/", factgenieCampaign),
				factgenieWithPrefix("data/evaluators/zeta/", factgenieZeta)),
			paths:     []string{"data"},
			wantFiles: []string{"data/outputs.jsonl", "data/evaluators/camp/metadata.json", "data/evaluators/camp/files/a.jsonl", "data/evaluators/camp/files/b.jsonl", "data/evaluators/zeta/annotations.jsonl", "data/evaluators/zeta/config.yaml"},
		},
		{
			name: "separate inputs",
			files: factgenieMerge(
				map[string]string{"outputs.jsonl": factgenieCampaignOutputs},
				factgenieWithPrefix("campaigns/camp/", factgenieCampaign),
				factgenieWithPrefix("other/zeta/", factgenieZeta)),
			paths:     []string{"other/zeta", "outputs.jsonl", "campaigns/camp"},
			wantFiles: []string{"outputs.jsonl", "campaigns/camp/metadata.json", "campaigns/camp/files/a.jsonl", "campaigns/camp/files/b.jsonl", "other/zeta/annotations.jsonl", "other/zeta/config.yaml"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			factgenieFiles(t, dir, tc.files)
			var paths []string
			for _, p := range tc.paths {
				paths = append(paths, filepath.Join(dir, p))
			}
			src, err := Open("factgenie", paths)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			var files []string
			for _, f := range src.Files() {
				files = append(files, inputRel(dir, f))
			}
			if d := inputDiff(tc.wantFiles, files); d != "" {
				t.Errorf("Files (-want +got):\n%s", d)
			}
			recs, err := inputReadAll(src)
			if err != nil {
				t.Fatalf("Each: %v", err)
			}
			got := inputRecs(t, dir, recs)
			for i := range got {
				// The records come from outputs.jsonl wherever it is.
				got[i].File = filepath.Base(got[i].File)
			}
			if d := inputDiff(want, got); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			factgenieCheckTypes(t, recs)
		})
	}
}

func factgenieMerge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

const (
	factgenieOneOutput = `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "output": "x"}` + "\n"
	factgenieTwoCats   = "annotation_span_categories:\n- name: A\n- name: B\n"
)

func TestFactgenieErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		paths []string
		// Either the problems, with {dir} in messages standing for the
		// test's folder, or the error's text.
		probs []inputProb
		err   string
	}{
		{
			name: "span record for an output that does not exist",
			files: map[string]string{
				"outputs.jsonl":            factgenieOneOutput,
				"evaluators/e/config.yaml": factgenieTwoCats,
				"evaluators/e/annotations.jsonl": `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": []}
{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 5, "annotations": [{"text": "x", "start": 0, "type": 0}]}
{"dataset": "d", "split": "dev", "setup_id": "s", "example_idx": 0, "annotations": []}
`,
			},
			paths: []string{"."},
			probs: []inputProb{
				{File: "evaluators/e/annotations.jsonl", Line: 2, Err: "ErrMissingField", Message: "no output d/test/s/5 in the outputs for these spans"},
				{File: "evaluators/e/annotations.jsonl", Line: 3, Err: "ErrMissingField", Message: "no output d/dev/s/0 in the outputs for these spans"},
			},
		},
		{
			name: "type index out of range or not a whole number",
			files: map[string]string{
				"outputs.jsonl":            factgenieOneOutput,
				"evaluators/e/config.yaml": factgenieTwoCats,
				"evaluators/e/annotations.jsonl": `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": [` +
					`{"text": "a", "start": 0, "type": 1}, {"text": "b", "type": 2}, {"type": -1}, {"type": "1"}, {"type": 1.5}, {"text": "no type"}]}
`,
			},
			paths: []string{"."},
			probs: []inputProb{
				{File: "evaluators/e/annotations.jsonl", Line: 1, Field: "annotations[1].type", Err: "ErrBadValue", Message: "type 2 is not an index into the 2 categories of {dir}/evaluators/e/config.yaml"},
				{File: "evaluators/e/annotations.jsonl", Line: 1, Field: "annotations[2].type", Err: "ErrBadValue", Message: "type -1 is not an index into the 2 categories of {dir}/evaluators/e/config.yaml"},
				{File: "evaluators/e/annotations.jsonl", Line: 1, Field: "annotations[3].type", Err: "ErrBadValue", Message: "type 1 is not an index into the 2 categories of {dir}/evaluators/e/config.yaml"},
				{File: "evaluators/e/annotations.jsonl", Line: 1, Field: "annotations[4].type", Err: "ErrBadValue", Message: "type 1.5 is not an index into the 2 categories of {dir}/evaluators/e/config.yaml"},
				{File: "evaluators/e/annotations.jsonl", Line: 1, Field: "annotations[5].type", Err: "ErrBadValue", Message: "type <nil> is not an index into the 2 categories of {dir}/evaluators/e/config.yaml"},
			},
		},
		{
			name: "type out of range in a campaign",
			files: map[string]string{
				"outputs.jsonl":       factgenieOneOutput,
				"camp/metadata.json":  `{"config": {"annotation_span_categories": [{"name": "A"}]}}`,
				"camp/files/x.jsonl":  "\n" + `{"dataset": "d", "split": "test", "setup": {"id": "s"}, "example_idx": 0, "annotations": [{"type": 1}]}` + "\n",
				"camp/files/y.jsonl":  `{"dataset": "d", "split": "test", "setup": {"id": "s"}, "example_idx": 0, "annotations": [{"type": 0}, {"type": 3}]}` + "\n",
				"camp/files/z.jsonl~": "ignored",
			},
			paths: []string{"outputs.jsonl", "camp"},
			probs: []inputProb{
				{File: "camp/files/x.jsonl", Line: 2, Field: "annotations[0].type", Err: "ErrBadValue", Message: "type 1 is not an index into the 1 categories of {dir}/camp/metadata.json"},
				{File: "camp/files/y.jsonl", Line: 1, Field: "annotations[1].type", Err: "ErrBadValue", Message: "type 3 is not an index into the 1 categories of {dir}/camp/metadata.json"},
			},
		},
		{
			name: "missing config.yaml",
			files: map[string]string{
				"outputs.jsonl":                  factgenieOneOutput,
				"evaluators/e/annotations.jsonl": `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": []}` + "\n",
			},
			paths: []string{"."},
			probs: []inputProb{
				{File: "evaluators/e/config.yaml", Err: "ErrMissingField", Message: "cannot read the span categories: open {dir}/evaluators/e/config.yaml: no such file or directory"},
			},
		},
		{
			name: "config.yaml without categories",
			files: map[string]string{
				"outputs.jsonl":                  factgenieOneOutput,
				"evaluators/e/config.yaml":       "annotation_span_categories: []\n",
				"evaluators/e/annotations.jsonl": `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": []}` + "\n",
			},
			paths: []string{"."},
			probs: []inputProb{
				{File: "evaluators/e/config.yaml", Err: "ErrMissingField", Message: "no annotation_span_categories: the span types cannot be named"},
			},
		},
		{
			name: "config.yaml that is not YAML",
			files: map[string]string{
				"outputs.jsonl":                  factgenieOneOutput,
				"evaluators/e/config.yaml":       "annotation_span_categories: [\n",
				"evaluators/e/annotations.jsonl": `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": []}` + "\n",
			},
			paths: []string{"."},
			probs: []inputProb{
				{File: "evaluators/e/config.yaml", Err: "ErrMalformed", Message: "invalid YAML: yaml: line 1: did not find expected node content"},
			},
		},
		{
			name: "campaign without files",
			files: map[string]string{
				"outputs.jsonl":      factgenieOneOutput,
				"camp/metadata.json": `{"config": {"annotation_span_categories": [{"name": "A"}]}}`,
			},
			paths: []string{"outputs.jsonl", "camp"},
			probs: []inputProb{
				{File: "camp/files", Err: "ErrMissingField", Message: "a campaign folder needs its annotations in files/*.jsonl"},
			},
		},
		{
			name: "campaign metadata that is not JSON",
			files: map[string]string{
				"outputs.jsonl":      factgenieOneOutput,
				"camp/metadata.json": `{"config": `,
				"camp/files/a.jsonl": "",
			},
			paths: []string{"outputs.jsonl", "camp"},
			probs: []inputProb{
				{File: "camp/metadata.json", Err: "ErrMalformed", Message: "invalid JSON: unexpected end of JSON input"},
			},
		},
		{
			name: "two evaluators with the same folder name",
			files: map[string]string{
				"a/outputs.jsonl":                  factgenieOneOutput,
				"a/evaluators/e/config.yaml":       factgenieTwoCats,
				"a/evaluators/e/annotations.jsonl": "",
				"b/e/config.yaml":                  factgenieTwoCats,
				"b/e/annotations.jsonl":            "",
			},
			paths: []string{"a", "b/e"},
			err:   `input: two evaluators are both called "e" ({dir}/a/evaluators/e, {dir}/b/e)`,
		},
		{
			name: "the same evaluator given twice",
			files: map[string]string{
				"outputs.jsonl":       factgenieOneOutput,
				"e/config.yaml":       factgenieTwoCats,
				"e/annotations.jsonl": "",
			},
			paths: []string{"outputs.jsonl", "e", "e/"},
			err:   `input: two evaluators are both called "e" ({dir}/e, {dir}/e/)`,
		},
		{
			name:  "a folder that is not factgenie",
			files: map[string]string{"outputs.jsonl": factgenieOneOutput, "x/readme.txt": "hello", "x/data.jsonl": "{}\n"},
			paths: []string{"outputs.jsonl", "x"},
			err:   "input {dir}/x: not a factgenie folder: expected outputs.jsonl (or outputs.csv, .tsv, .parquet, .xlsx), evaluators/, or an evaluator's annotations.jsonl or metadata.json",
		},
		{
			name:  "no evaluator",
			files: map[string]string{"outputs.jsonl": factgenieOneOutput},
			paths: []string{"."},
			err:   "input: factgenie needs at least one evaluator folder (annotations.jsonl with config.yaml, or a campaign with metadata.json)",
		},
		{
			name:  "evaluators folder without evaluators",
			files: map[string]string{"outputs.jsonl": factgenieOneOutput, "evaluators/e/notes.txt": "x"},
			paths: []string{"."},
			err:   "input: factgenie needs at least one evaluator folder (annotations.jsonl with config.yaml, or a campaign with metadata.json)",
		},
		{
			name:  "no outputs",
			files: map[string]string{"e/config.yaml": factgenieTwoCats, "e/annotations.jsonl": ""},
			paths: []string{"e"},
			err:   "input: factgenie needs the outputs (outputs.jsonl, or a table such as outputs.csv) the spans refer to",
		},
		{
			name:  "missing input",
			files: map[string]string{"outputs.jsonl": factgenieOneOutput},
			paths: []string{"outputs.jsonl", "nowhere"},
			err:   "input: stat {dir}/nowhere: no such file or directory",
		},
		{
			name: "duplicate outputs",
			files: map[string]string{
				"outputs.jsonl": factgenieOneOutput +
					`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 1, "output": "y"}` + "\n" +
					`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "output": "x again"}` + "\n" +
					`{"dataset": "d", "split": "test", "setup": {"id": "s"}, "example_idx": 1, "output": "y again"}` + "\n",
				"e/config.yaml":       factgenieTwoCats,
				"e/annotations.jsonl": "",
			},
			paths: []string{"outputs.jsonl", "e"},
			probs: []inputProb{
				{File: "outputs.jsonl", Line: 3, Err: "ErrDuplicateID", Message: "output d/test/s/0 is also at {dir}/outputs.jsonl:1"},
				{File: "outputs.jsonl", Line: 4, Err: "ErrDuplicateID", Message: "output d/test/s/1 is also at {dir}/outputs.jsonl:2"},
			},
		},
		{
			name: "outputs that are not objects or lack key fields",
			files: map[string]string{
				"outputs.jsonl": "[1]\n" +
					`{"dataset": "d", "split": "test", "example_idx": 0}` + "\n" +
					`{"dataset": "d", "setup_id": "s", "example_idx": 0}` + "\n" +
					`{"split": "test", "setup": {"name": "s"}, "example_idx": 0}` + "\n" +
					`{"dataset": "d", "split": "test", "setup_id": "s"}` + "\n",
				"e/config.yaml":       factgenieTwoCats,
				"e/annotations.jsonl": "",
			},
			paths: []string{"outputs.jsonl", "e"},
			probs: []inputProb{
				{File: "outputs.jsonl", Line: 1, Err: "ErrBadValue", Message: "a factgenie output must be a JSON object"},
				{File: "outputs.jsonl", Line: 2, Field: "setup_id", Err: "ErrMissingField", Message: "a factgenie output needs dataset, split, setup_id and example_idx"},
				{File: "outputs.jsonl", Line: 3, Field: "split", Err: "ErrMissingField", Message: "a factgenie output needs dataset, split, setup_id and example_idx"},
				{File: "outputs.jsonl", Line: 4, Field: "setup_id", Err: "ErrMissingField", Message: "a factgenie output needs dataset, split, setup_id and example_idx"},
				{File: "outputs.jsonl", Line: 5, Field: "example_idx", Err: "ErrMissingField", Message: "a factgenie output needs dataset, split, setup_id and example_idx"},
			},
		},
		{
			name: "outputs as CSV, their problems by line",
			files: map[string]string{
				"outputs.csv":                    "dataset,split,setup_id,example_idx,output\nd,test,s,0,x\nd,test,,1,\"a\nb\"\nd,test,s,0,again\n",
				"evaluators/e/config.yaml":       factgenieTwoCats,
				"evaluators/e/annotations.jsonl": "",
			},
			paths: []string{"."},
			probs: []inputProb{
				{File: "outputs.csv", Line: 3, Field: "setup_id", Err: "ErrMissingField", Message: "a factgenie output needs dataset, split, setup_id and example_idx"},
				{File: "outputs.csv", Line: 5, Err: "ErrDuplicateID", Message: "output d/test/s/0 is also at {dir}/outputs.csv:2"},
			},
		},
		{
			name: "malformed outputs",
			files: map[string]string{
				"outputs.jsonl":       factgenieOneOutput + "{\"dataset\": \n",
				"e/config.yaml":       factgenieTwoCats,
				"e/annotations.jsonl": "",
			},
			paths: []string{"outputs.jsonl", "e"},
			probs: []inputProb{
				{File: "outputs.jsonl", Line: 2, Err: "ErrMalformed", Message: "invalid JSON: the value is cut off"},
			},
		},
		{
			name: "bad annotation records",
			files: map[string]string{
				"outputs.jsonl": factgenieOneOutput,
				"e/config.yaml": factgenieTwoCats,
				"e/annotations.jsonl": "\"text\"\n" +
					`{"dataset": "d", "split": "test", "setup_id": "s"}` + "\n" +
					`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0}` + "\n" +
					`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": "none"}` + "\n" +
					`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": null}` + "\n" +
					`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": [5, {"type": 0}, "x"]}` + "\n",
			},
			paths: []string{"outputs.jsonl", "e"},
			probs: []inputProb{
				{File: "e/annotations.jsonl", Line: 1, Err: "ErrBadValue", Message: "an annotation record must be a JSON object"},
				{File: "e/annotations.jsonl", Line: 2, Field: "example_idx", Err: "ErrMissingField", Message: "an annotation record needs dataset, split, setup_id and example_idx"},
				{File: "e/annotations.jsonl", Line: 3, Field: "annotations", Err: "ErrMissingField", Message: "expected a list of annotations"},
				{File: "e/annotations.jsonl", Line: 4, Field: "annotations", Err: "ErrMissingField", Message: "expected a list of annotations"},
				{File: "e/annotations.jsonl", Line: 6, Field: "annotations[0]", Err: "ErrBadValue", Message: "an annotation must be an object"},
				{File: "e/annotations.jsonl", Line: 6, Field: "annotations[2]", Err: "ErrBadValue", Message: "an annotation must be an object"},
			},
		},
		{
			name: "malformed annotations, problems of all evaluators together",
			files: map[string]string{
				"outputs.jsonl":        factgenieOneOutput,
				"e1/config.yaml":       factgenieTwoCats,
				"e1/annotations.jsonl": "{\"dataset\": \"d\", \"split\": \"test\", \"setup_id\": \"s\", \"example_idx\": 0, \"annotations\": []}\n{oops}\n",
				"e2/config.yaml":       factgenieTwoCats,
				"e2/annotations.jsonl": `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 9, "annotations": []}` + "\n",
			},
			paths: []string{"e2", "outputs.jsonl", "e1"},
			probs: []inputProb{
				{File: "e1/annotations.jsonl", Line: 2, Err: "ErrMalformed", Message: "invalid JSON: invalid character 'o' looking for beginning of object key string"},
				{File: "e2/annotations.jsonl", Line: 1, Err: "ErrMissingField", Message: "no output d/test/s/9 in the outputs for these spans"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			factgenieFiles(t, dir, tc.files)
			var paths []string
			for _, p := range tc.paths {
				q := filepath.Join(dir, p)
				if strings.HasSuffix(p, "/") {
					q += "/"
				}
				paths = append(paths, q)
			}
			src, err := Open("factgenie", paths)
			if err == nil {
				recs, _ := inputReadAll(src)
				t.Fatalf("Open succeeded with %d records", len(recs))
			}
			if src != nil {
				t.Errorf("Open returned a source along with the error %v", err)
			}
			if tc.err != "" {
				if want := strings.ReplaceAll(tc.err, "{dir}", dir); err.Error() != want {
					t.Errorf("error:\n got %s\nwant %s", err, want)
				}
				var ps records.Problems
				if errors.As(err, &ps) {
					t.Errorf("error is Problems, want a plain error: %v", err)
				}
				return
			}
			want := make([]inputProb, len(tc.probs))
			for i, p := range tc.probs {
				p.Severity = records.Error
				p.File = filepath.FromSlash(p.File)
				p.Message = strings.ReplaceAll(p.Message, "{dir}", dir)
				want[i] = p
			}
			got := inputSplitErr(t, dir, err)
			for i := range got {
				got[i].File = filepath.FromSlash(got[i].File)
			}
			if d := inputDiff(want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s\nerror: %v", d, err)
			}
		})
	}
}

// TestFactgenieDuplicateAcrossFiles: when outputs come from several files,
// the message about a duplicate must say in which file the first one is;
// "is also at line 1" sends the reader to line 1 of the wrong file.
func TestFactgenieDuplicateAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	factgenieFiles(t, dir, map[string]string{
		"first.jsonl":         "\n\n" + factgenieOneOutput,
		"second.jsonl":        factgenieOneOutput,
		"e/config.yaml":       factgenieTwoCats,
		"e/annotations.jsonl": "",
	})
	_, err := Open("factgenie", []string{filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl"), filepath.Join(dir, "e")})
	got := inputSplitErr(t, dir, err)
	if len(got) != 1 || got[0].File != "second.jsonl" || got[0].Line != 1 || got[0].Err != "ErrDuplicateID" {
		t.Fatalf("problems = %+v, want one ErrDuplicateID at second.jsonl:1", got)
	}
	if !strings.Contains(got[0].Message, "first.jsonl") || !strings.Contains(got[0].Message, "3") {
		t.Errorf("message %q does not say that the other one is at first.jsonl:3", got[0].Message)
	}
}

// TestFactgenieSpansOrder: spans follow the evaluators in name order
// whatever the order of the inputs, and within one evaluator the order of
// its files and records.
func TestFactgenieSpansOrder(t *testing.T) {
	dir := t.TempDir()
	ann := func(text string) string {
		return `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": [{"text": "` + text + `", "type": 0}]}` + "\n"
	}
	factgenieFiles(t, dir, map[string]string{
		"outputs.jsonl":       factgenieOneOutput,
		"b/config.yaml":       factgenieTwoCats,
		"b/annotations.jsonl": ann("b1") + ann("b2"),
		"a/config.yaml":       factgenieTwoCats,
		"a/annotations.jsonl": ann("a1"),
		"C/config.yaml":       factgenieTwoCats,
		"C/annotations.jsonl": ann("C1"),
	})
	src, err := Open("factgenie", []string{filepath.Join(dir, "b"), filepath.Join(dir, "a"), filepath.Join(dir, "outputs.jsonl"), filepath.Join(dir, "C")})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := inputReadAll(src)
	if err != nil || len(recs) != 1 {
		t.Fatalf("got %d records, error %v", len(recs), err)
	}
	var got []string
	for _, s := range recs[0].Data.(map[string]any)["spans"].([]any) {
		sm := s.(map[string]any)
		got = append(got, fmt.Sprintf("%v:%v:%v", sm["evaluator"], sm["text"], sm["index"]))
	}
	want := []string{"C:C1:0", "a:a1:0", "b:b1:0", "b:b2:0"}
	if d := inputDiff(want, got); d != "" {
		t.Errorf("spans (-want +got):\n%s", d)
	}
}

// doneAfter is a context that is done from its n-th look on: a run
// interrupted part way through reading, without timing. (Only its Err
// says so, which is all the reading looks at.)
type doneAfter struct {
	context.Context
	n, looks int
}

func (d *doneAfter) Err() error {
	if d.looks++; d.looks >= d.n {
		return context.Canceled
	}
	return nil
}

// TestOpenFactgenieStops: a factgenie folder, read whole as it is
// opened, is read no further once the run is interrupted, in its outputs
// or in an evaluator's spans, and the run is told why.
func TestOpenFactgenieStops(t *testing.T) {
	t.Parallel()
	outputs := len(factgenieDecodeLines(t, filepath.Join(factgenieData, "outputs.jsonl")))
	for _, c := range []struct {
		name   string
		format string
		at     int // the look at which the run is done
	}{
		{"before the first output", "factgenie", 1},
		{"in the outputs", "factgenie", outputs / 2},
		{"in the first evaluator's spans", "factgenie", outputs + 3},
		{"a folder, as auto reads it", "auto", outputs / 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := &doneAfter{Context: context.Background(), n: c.at}
			src, err := OpenContext(ctx, c.format, []string{factgenieData})
			if !errors.Is(err, context.Canceled) || src != nil {
				t.Fatalf("OpenContext: %v, %v; want context.Canceled", src, err)
			}
			if ctx.looks != c.at {
				t.Errorf("read on for %d records after the run was interrupted", ctx.looks-c.at)
			}
		})
	}
	// Not interrupted, it reads every output.
	ctx := &doneAfter{Context: context.Background(), n: 1 << 30}
	src, err := OpenContext(ctx, "factgenie", []string{factgenieData})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	src.Each(func(*layout.Record) error { n++; return nil })
	if n != outputs {
		t.Errorf("%d records, want %d", n, outputs)
	}
}
