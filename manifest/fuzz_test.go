package manifest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// namesFile is what follows the file's name in an error that names it,
// with or without a line: ": " or ":12: ".
var namesFile = regexp.MustCompile(`^:(\d+:)? `)

// FuzzRead: any file is read or refused with an error naming it; one that
// is read encodes to a manifest that reads back the same.
func FuzzRead(f *testing.F) {
	real, err := os.ReadFile(filepath.Join("testdata", "preference-likert.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	f.Add(real[:len(real)/2])
	f.Add(bytes.ReplaceAll(real, []byte(`"units"`), []byte(`"units":null,"x"`)))
	f.Add(bytes.ReplaceAll(real, []byte(`"seed": 7`), []byte(`"seed": -7`)))
	// Anonymisation keys and a Google spreadsheet, which the real one
	// lacks.
	var keyed bytes.Buffer
	(&Manifest{Schema: Schema, Format: "gsheets",
		Keys:    map[string]map[string]string{"evaluator_label": {"gpt4o": "A"}},
		Batches: []Batch{{ID: "b01", Spreadsheet: &Spreadsheet{ID: "x", URL: "https://docs.google.com/spreadsheets/d/x", Status: Incomplete}}},
	}).Encode(&keyed)
	f.Add(keyed.Bytes())
	for _, s := range []string{``, `{}`, `null`, `[]`, `{"schema":"annosheet.manifest/1"}`, `{"schema":"annosheet.manifest/1","orders":{"a":null}}`, "\xef\xbb\xbf{}"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, FileName)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Read(p)
		if err != nil {
			if !errors.Is(err, ErrNotManifest) || !namesFile.MatchString(strings.TrimPrefix(err.Error(), p)) || !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error %v: not ErrNotManifest naming the file (and perhaps the line)", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := m.Encode(&buf); err != nil {
			t.Fatalf("encode: %v", err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := Read(p)
		if err != nil {
			t.Fatalf("re-encoded manifest: %v\n%s", err, buf.Bytes())
		}
		if diff := cmp.Diff(m, again, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("re-encoded manifest (-read +again):\n%s", diff)
		}
	})
}
