package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// FuzzFactgenie feeds arbitrary evaluator annotations and categories to the
// factgenie reader. It must never panic; a failure must be Problems that
// name a file; a success must attach every span of every record.
func FuzzFactgenie(f *testing.F) {
	outputs := `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "output": "The home team won 3-1."}` + "\n" +
		`{"dataset": "d", "split": "test", "setup": {"id": "s"}, "example_idx": 1, "output": "A draw."}` + "\n"
	config := "annotation_span_categories:\n- name: Contradictory\n- name: Not checkable\n"
	real, err := os.ReadFile("../testdata/data/factgenie-d2t/evaluators/gpt4o/annotations.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": [{"text": "3-1", "start": 18, "type": 0, "reason": "r"}]}`+"\n"), []byte(config))
	f.Add(real[:bytes.IndexByte(real, '\n')+1], []byte(config))
	f.Add([]byte(`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 1, "annotations": null}`), []byte("annotation_span_categories: []\n"))
	f.Add([]byte(`{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 9, "annotations": [{"type": 7}]}`), []byte(": :"))
	f.Fuzz(func(t *testing.T, annotations, cfg []byte) {
		dir := t.TempDir()
		ev := filepath.Join(dir, "evaluators", "e")
		if err := os.MkdirAll(ev, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "outputs.jsonl"), []byte(outputs), 0o644)
		os.WriteFile(filepath.Join(ev, "annotations.jsonl"), annotations, 0o644)
		os.WriteFile(filepath.Join(ev, "config.yaml"), cfg, 0o644)
		src, err := OpenFactgenie([]string{dir})
		if err != nil {
			var ps records.Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error %v is not Problems", err)
			}
			for _, p := range ps {
				if p.File == "" || p.Severity != records.Error {
					t.Fatalf("problem without a file: %+v", p)
				}
			}
			return
		}
		// Every annotation of every line made it to a record.
		want := 0
		for _, line := range bytes.Split(annotations, []byte("\n")) {
			var r struct {
				Annotations []json.RawMessage `json:"annotations"`
			}
			if json.Unmarshal(bytes.TrimSpace(line), &r) == nil {
				want += len(r.Annotations)
			}
		}
		got := 0
		src.Each(func(r *layout.Record) error {
			got += len(r.Data.(map[string]any)["spans"].([]any))
			return nil
		})
		if got != want {
			t.Fatalf("%d spans attached, the file has %d", got, want)
		}
	})
}
