package study

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/annosheet/annosheet/internal/ojson"
	"github.com/annosheet/annosheet/testkit/fifo"
)

// TestInputStyle: the native file's style comes from the first input that
// can be read, streamed; a named pipe is passed over, never waited on.
func TestInputStyle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	indented := filepath.Join(dir, "in.json")
	if err := os.WriteFile(indented, []byte("[\n    {\"id\": \"\\u00e9\"}\n]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "pipe.jsonl")
	fifo.Make(t, pipe)
	for _, tc := range []struct {
		name   string
		inputs []string
		want   ojson.Style
	}{
		{"a file", []string{indented}, ojson.Style{Indent: "    ", ASCII: true, Newline: true}},
		{"a pipe, then a file", []string{pipe, indented}, ojson.Style{Indent: "    ", ASCII: true, Newline: true}},
		{"none readable", []string{pipe, filepath.Join(dir, "missing.jsonl")}, ojson.Style{Indent: "  ", Newline: true}},
	} {
		var got ojson.Style
		fifo.Within(t, 10*time.Second, func() { got = inputStyle(tc.inputs) })
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
