package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/layout"
)

// testData holds the real data sets.
const testData = "../testdata/data/"

// sameRecords fails unless got and want are the same records, field by
// field (the decoded data too).
func sameRecords(t testing.TB, what string, got, want []*layout.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: record %d:\n got %+v\nwant %+v", what, i, *got[i], *want[i])
		}
	}
}

// checkSpool reads the input again through a Spool, whole and in
// subsets, and fails unless every read gives want's records.
func checkSpool(t testing.TB, format string, paths []string, want []*layout.Record, rng *rand.Rand) {
	t.Helper()
	src, err := Open(format, paths)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSpool(src)
	defer s.Close()
	for _, what := range []string{"first read (from the input)", "second read (from the copy)"} {
		got, err := inputReadAll(s)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		sameRecords(t, what, got, want)
	}
	// Subsets: any indexes, in any order, repeated; records come once
	// each, in input order.
	for range 4 {
		var idx []int
		var sub []*layout.Record
		for i, r := range want {
			if rng.IntN(3) == 0 {
				idx = append(idx, i, i)
				sub = append(sub, r)
			}
		}
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		got, err := inputReadAll(s.Subset(idx))
		if err != nil {
			t.Fatal(err)
		}
		sameRecords(t, "subset", got, sub)
	}
}

func TestSpool(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.json")
	// A byte-order mark, a key and a value that are not UTF-8, numbers as
	// written, nested lists, an empty object.
	os.WriteFile(odd, []byte("\xef\xbb\xbf{\n \"a\xffb\": {\"x\": 1.50, \"y\": [1e400, -0]},\n \"c\": {\"s\": \"\xfe\"},\n \"\": {}\n}\n"), 0o644)
	lines := filepath.Join(dir, "lines.jsonl")
	os.WriteFile(lines, []byte("\n{\"id\": 1}\r\n\n[1, {\"a\": null}]\n\"text\"\n"), 0o644)
	for _, c := range []struct {
		format string
		paths  []string
	}{
		{"jsonl", []string{testData + "legal-gaps/examples.sample.jsonl"}},
		{"json", []string{testData + "preference/preference_json_1.json"}},
		{"json", []string{testData + "qa-feedback/dev_feedback.sample.json"}},
		{"factgenie", []string{testData + "factgenie-d2t"}},
		{"auto", []string{odd, lines, testData + "mqm/segments.jsonl"}},
	} {
		t.Run(c.format+"/"+filepath.Base(c.paths[0]), func(t *testing.T) {
			src, err := Open(c.format, c.paths)
			if err != nil {
				t.Fatal(err)
			}
			want, err := inputReadAll(src)
			if err != nil || len(want) == 0 {
				t.Fatalf("%d records, %v", len(want), err)
			}
			checkSpool(t, c.format, c.paths, want, rand.New(rand.NewPCG(1, 2)))
		})
	}
	// Close leaves nothing behind.
	left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "annosheet-spool-*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// legalSpool is a Spool of the legal-gaps sample, not yet read, and its
// records; its temporary files go to a folder of the test's.
func legalSpool(t *testing.T) (*Spool, []*layout.Record) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	return jsonlSpool(t, testData+"legal-gaps/examples.sample.jsonl")
}

// jsonlSpool is a Spool of the JSON Lines at path, not yet read, and its
// records.
func jsonlSpool(t *testing.T, path string) (*Spool, []*layout.Record) {
	t.Helper()
	src, err := Open("jsonl", []string{path})
	if err != nil {
		t.Fatal(err)
	}
	want, err := inputReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSpool(src)
	t.Cleanup(func() { s.Close() })
	return s, want
}

// TestSpoolStopped: a read stopped half-way leaves no copy; the next read
// comes from the input again, and subsets still give the right records.
func TestSpoolStopped(t *testing.T) {
	s, want := legalSpool(t)
	stop := errors.New("stop")
	n := 0
	err := s.Each(func(*layout.Record) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Each: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "annosheet-spool-*")); len(left) != 0 {
		t.Errorf("a stopped read left %v", left)
	}
	got, err := inputReadAll(s.Subset([]int{4, 1}))
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, "subset before the copy", got, []*layout.Record{want[1], want[4]})
	got, _ = inputReadAll(s)
	sameRecords(t, "whole", got, want)
	got, _ = inputReadAll(s.Subset([]int{4, 1}))
	sameRecords(t, "subset from the copy", got, []*layout.Record{want[1], want[4]})
	if _, err := inputReadAll(s.Subset([]int{99})); err == nil {
		t.Error("a subset beyond the input gave no error")
	}
}

// TestSpoolReadAhead reads back from the copy more records than come in
// one batch of the reading ahead: whole, by a subset, and stopped part way
// by the callback, after which it reads as before.
func TestSpoolReadAhead(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "{\"n\": %d, \"text\": %q}\n", i, strings.Repeat("word ", i%50))
	}
	path := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, want := jsonlSpool(t, path)
	if _, err := inputReadAll(s); err != nil { // makes the copy
		t.Fatal(err)
	}
	stop := errors.New("stop")
	n := 0
	err := s.Each(func(*layout.Record) error {
		if n++; n == 100 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 100 {
		t.Errorf("Each from the copy: %v after %d records, want the callback's error after 100", err, n)
	}
	got, err := inputReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, "whole from the copy", got, want)
	var idx []int
	var sub []*layout.Record
	for i := 0; i < 500; i += 3 {
		idx = append(idx, i)
		sub = append(sub, want[i])
	}
	slices.Reverse(idx)
	got, err = inputReadAll(s.Subset(idx))
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, "every third from the copy", got, sub)
}

// TestSpoolNested: reading the spool again while it is copying reads the
// input, and the copy it is making stays whole.
func TestSpoolNested(t *testing.T) {
	s, want := legalSpool(t)
	var outer []*layout.Record
	err := s.Each(func(r *layout.Record) error {
		outer = append(outer, r)
		inner, err := inputReadAll(s)
		if err != nil {
			return err
		}
		sameRecords(t, "inner", inner, want)
		sub, err := inputReadAll(s.Subset([]int{r.Index}))
		if err != nil {
			return err
		}
		sameRecords(t, "inner subset", sub, []*layout.Record{want[r.Index]})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, "outer", outer, want)
	got, _ := inputReadAll(s)
	sameRecords(t, "from the copy", got, want)
}

// TestTempFile: the temporary files of the spool and of the rows
// layout.Build keeps are the owner's alone, gone from the temporary
// folder while still open where the system allows it, and closed (and
// gone) after Close.
func TestTempFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	src, err := Open("jsonl", []string{testData + "legal-gaps/examples.sample.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := src.(layout.Scratcher)
	if !ok {
		t.Fatalf("%T gives layout.Build no temporary storage", src)
	}
	s, err := sc.NewScratch()
	if err != nil {
		t.Fatal(err)
	}
	f := s.(*tempFile).File
	if fi, err := f.Stat(); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if _, err := s.Write([]byte("rows")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	if _, err := s.ReadAt(b, 1); err != nil || string(b) != "ows" {
		t.Errorf("read back %q, %v", b, err)
	}
	if left, _ := os.ReadDir(tmp); runtime.GOOS != "windows" && len(left) > 0 {
		t.Errorf("in the temporary folder while open: %v", left)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stat(); err == nil {
		t.Error("still open after Close")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestSpoolOrdered reads records in the order asked, before the copy is
// made (it is made first) and from it, and refuses an index beyond the
// input.
func TestSpoolOrdered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var lines []string
	for i := range 6 {
		lines = append(lines, fmt.Sprintf(`{"id": "r%d"}`, i))
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open("jsonl", []string{in})
	if err != nil {
		t.Fatal(err)
	}
	s := NewSpool(src)
	defer s.Close()
	for _, when := range []string{"before the copy", "from the copy"} {
		got, err := inputReadAll(s.Ordered([]int{4, 0, 5, 2}))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range got {
			var rec struct{ ID string }
			if err := json.Unmarshal(r.Raw, &rec); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, rec.ID+"@"+strconv.Itoa(r.Index))
		}
		if want := "r4@4 r0@0 r5@5 r2@2"; strings.Join(ids, " ") != want {
			t.Errorf("%s: %s, want %s", when, strings.Join(ids, " "), want)
		}
	}
	if _, err := inputReadAll(s.Ordered([]int{2, 99})); err == nil {
		t.Error("an index beyond the input gave no error")
	}
}
