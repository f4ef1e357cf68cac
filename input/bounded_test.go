package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/internal/testing/fifo"
	"github.com/annosheet/annosheet/mapping"
)

// sparse makes a file of size bytes that costs no disk.
func sparse(size int64) func(t testing.TB, p string) {
	return func(t testing.TB, p string) {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFactgenieConfigBounded: an evaluator's configuration over
// MaxConfigSize is a problem naming it and the limit, read no further; a
// named pipe is a problem too, never waited on.
func TestFactgenieConfigBounded(t *testing.T) {
	t.Parallel()
	const annotations = `{"dataset": "d", "split": "test", "setup_id": "s", "example_idx": 0, "annotations": []}` + "\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		path  string // the configuration, made by make
		make  func(t testing.TB, p string)
		want  inputProb
	}{
		{name: "config.yaml over", files: map[string]string{"evaluators/e/annotations.jsonl": annotations},
			path: "evaluators/e/config.yaml", make: sparse(MaxConfigSize + 1),
			want: inputProb{File: "evaluators/e/config.yaml", Err: "ErrMalformed", Message: "cannot read the span categories: larger than the 16 MiB an evaluator's configuration may be"}},
		{name: "metadata.json over", files: map[string]string{"evaluators/e/files/a.jsonl": annotations},
			path: "evaluators/e/metadata.json", make: sparse(10 << 30),
			want: inputProb{File: "evaluators/e/metadata.json", Err: "ErrMalformed", Message: "larger than the 16 MiB an evaluator's configuration may be"}},
		{name: "config.yaml a named pipe", files: map[string]string{"evaluators/e/annotations.jsonl": annotations},
			path: "evaluators/e/config.yaml", make: fifo.Make,
			want: inputProb{File: "evaluators/e/config.yaml", Err: "ErrMissingField", Message: "cannot read the span categories: {dir}/evaluators/e/config.yaml: it is not a regular file (a named pipe)"}},
		{name: "metadata.json a named pipe", files: map[string]string{"evaluators/e/files/a.jsonl": annotations},
			path: "evaluators/e/metadata.json", make: fifo.Make,
			want: inputProb{File: "evaluators/e/metadata.json", Err: "ErrMissingField", Message: "{dir}/evaluators/e/metadata.json: it is not a regular file (a named pipe)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			factgenieFiles(t, dir, tc.files)
			inputWriteFile(t, dir, "outputs.jsonl", factgenieOneOutput)
			tc.make(t, filepath.Join(dir, filepath.FromSlash(tc.path)))
			var err error
			fifo.Within(t, 10*time.Second, func() { _, err = Open("factgenie", []string{dir}) })
			want := tc.want
			want.Severity = mapping.Error
			want.Message = replaceDir(want.Message, dir)
			if d := inputDiff([]inputProb{want}, inputSplitErr(t, dir, err)); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

func replaceDir(s, dir string) string {
	return strings.ReplaceAll(s, "{dir}", dir)
}
