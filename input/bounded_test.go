package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/fifo"
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
			want.Severity = records.Error
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

// readLimited reads one file with a record limit of limit bytes.
func readLimited(path, format string, limit int64) ([]*layout.Record, error) {
	return inputReadAll(&jsonSource{files: []jsonFile{{path: path, format: format}}, limit: limit})
}

// TestRecordBudget: a record over the limit (a JSON Lines line, a record
// of a JSON array or object) is a problem at its line naming the limit,
// with the bad lines before it; a record at the limit is read.
func TestRecordBudget(t *testing.T) {
	t.Parallel()
	big := `{"id": "b", "text": "` + strings.Repeat("x", 100<<10) + `"}` // over the limit by more than a read
	for _, tc := range []struct {
		name, format, data string
		limit              int64
		records            int
		want               []inputProb
	}{
		{name: "jsonl at the limit", format: "jsonl", data: "{\"id\": \"a\"}\n{\"id\": \"bbbb\"}\n", limit: 14, records: 2},
		{name: "jsonl one over", format: "jsonl", data: "{\"id\": \"a\"}\n{\"id\": \"bbbbb\"}\n{\"id\": \"c\"}\n", limit: 14,
			want: []inputProb{{Line: 2, Message: "the line is longer than the 14 bytes a record may be"}}},
		{name: "jsonl bad lines before", format: "jsonl", data: "{oops}\n\n{\"id\": \"" + strings.Repeat("b", 20) + "\"}\n", limit: 14,
			want: []inputProb{
				{Line: 1, Message: "invalid JSON: invalid character 'o' looking for beginning of object key string"},
				{Line: 3, Message: "the line is longer than the 14 bytes a record may be"},
			}},
		{name: "jsonl without line breaks", format: "jsonl", data: big, limit: 1 << 10,
			want: []inputProb{{Line: 1, Message: "the line is longer than the 1 KiB a record may be"}}},
		{name: "json at the limit", format: "json", data: "[\n{\"id\": \"a\"},\n{\"id\": \"bbbb\"}\n]\n", limit: 14, records: 2},
		{name: "json one over", format: "json", data: "[\n{\"id\": \"a\"},\n\n{\"id\": \"bbbbb\"}\n]\n", limit: 14,
			want: []inputProb{{Line: 4, Message: "the record here is larger than the 14 bytes a record may be"}}},
		{name: "json far over", format: "json", data: "[\n{\"id\": \"a\"},\n" + big + "\n]\n", limit: 1 << 10,
			want: []inputProb{{Line: 3, Message: "the record here is larger than the 1 KiB a record may be"}}},
		{name: "json object, key far over", format: "json", data: "{\"a\": {},\n\"" + strings.Repeat("k", 100<<10) + "\": {}}", limit: 1 << 10,
			want: []inputProb{{Line: 2, Message: "the record here is larger than the 1 KiB a record may be"}}},
		{name: "json white space far over", format: "json", data: "[{}," + strings.Repeat(" \n", 100<<10) + "{}]", limit: 1 << 10,
			want: []inputProb{{Line: 1, Message: "the record here is larger than the 1 KiB a record may be"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := inputWriteFile(t, dir, "in."+tc.format, tc.data)
			recs, err := readLimited(p, tc.format, tc.limit)
			for i := range tc.want {
				tc.want[i].Severity, tc.want[i].File, tc.want[i].Err = records.Error, "in."+tc.format, "ErrMalformed"
			}
			if d := inputDiff(tc.want, inputSplitErr(t, dir, err)); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
			if tc.want == nil && len(recs) != tc.records {
				t.Errorf("%d records, want %d", len(recs), tc.records)
			}
		})
	}
}

// TestInputBounded: through Open, a JSON Lines file with no line break is
// refused at MaxRecordSize (a sparse file costs no disk), and a named pipe
// is refused without waiting for a writer.
func TestInputBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.jsonl")
	sparse(MaxRecordSize+1)(t, huge)
	src, err := Open("auto", []string{huge})
	if err != nil {
		t.Fatal(err)
	}
	_, err = inputReadAll(src)
	want := []inputProb{{Severity: records.Error, File: "huge.jsonl", Line: 1, Err: "ErrMalformed", Message: "the line is longer than the 64 MiB a record may be"}}
	if d := inputDiff(want, inputSplitErr(t, dir, err)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}

	for _, name := range []string{"pipe.jsonl", "pipe.json"} {
		p := filepath.Join(dir, name)
		fifo.Make(t, p)
		fifo.Within(t, 10*time.Second, func() { _, err = Open("auto", []string{p}) })
		if want := "input: " + p + ": it is not a regular file (a named pipe)"; err == nil || err.Error() != want {
			t.Errorf("Open(%s) = %v, want %s", name, err, want)
		}
	}
}
