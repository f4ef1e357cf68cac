package manifest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	m := &Manifest{
		Schema: Schema, Study: "abc", Created: "2026-11-21T10:00:00Z", Format: "xlsx",
		Template: Template{Name: "legal-gaps", Version: 1, SHA256: "00ff", Source: "name: legal-gaps\n"},
		Inputs:   []Input{{Path: "in.jsonl", SHA256: "ab", Bytes: 3}},
		Seed:     7,
		Batches:  []Batch{{ID: "b01", File: "legal-gaps-b01.xlsx", Rows: 2, Units: []Unit{{ID: "a", Item: "a"}, {ID: "b#1", Item: "b"}}}},
		Keys:     map[string]map[string]string{"evaluator_label": {"gpt4o": "A"}},
	}
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(p, buf.Bytes(), 0o644)
	got, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestReadRefusesOtherJSON(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"other.json":  `{"schema": "something/1"}`,
		"broken.json": `{"schema": `,
		"array.json":  `[1, 2]`,
		"twice.json":  "{\"schema\": \"annosheet.manifest/1\",\n \"study\": \"a\",\n \"study\": \"b\"}",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		_, err := Read(p)
		if !errors.Is(err, ErrNotManifest) {
			t.Errorf("%s: err %v, want ErrNotManifest", name, err)
		}
		if name == "twice.json" && (err == nil || !strings.Contains(err.Error(), p+`:3: not an annosheet manifest: the key "study" is given twice`)) {
			t.Errorf("%s: %v, want the line of the key given twice", name, err)
		}
	}
}

func TestHashFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	os.WriteFile(p, []byte("abc"), 0o644)
	in, err := HashFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// SHA-256 of "abc", from FIPS 180-2.
	want := Input{Path: p, SHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", Bytes: 3}
	if in != want {
		t.Errorf("%+v", in)
	}
}

// TestValidBatchID: a batch ID names a file on every system.
func TestValidBatchID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"b01": true, "pilot_2-a": true, strings.Repeat("a", MaxBatchID): true,
		"": false, strings.Repeat("a", MaxBatchID+1): false, "a/b": false, "a b": false, "..": false, "é": false, "a:b": false,
	} {
		if got := ValidBatchID(id); got != want {
			t.Errorf("ValidBatchID(%q) = %v, want %v", id, got, want)
		}
	}
}
