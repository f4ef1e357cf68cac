package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExportDuplicates: pulled files put together (cat pull.jsonl
// pull.jsonl) used to export a record given twice without a word. The
// same record twice is kept once, with a warning naming its lines; two
// records of one unit and annotator that differ are refused, whatever
// --complete-only leaves out.
func TestExportDuplicates(t *testing.T) {
	t.Parallel()
	dir, book := legalStudy(t)
	man := filepath.Join(dir, "manifest.json")
	tmp := t.TempDir()
	pull := func(name string) []string {
		t.Helper()
		out := filepath.Join(tmp, name)
		if code, _, errs := runCLI(t, "pull", dir, "--out", out); code != 0 {
			t.Fatalf("pull: exit %d: %s", code, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	first := pull("pull1.jsonl")
	// A second pull after the annotator changed one answer.
	changed := realIDs(t, dir, answer(t, book, "q:note", "second look", 2))[0]
	second := pull("pull2.jsonl")
	if len(first) != 5 || len(second) != 5 {
		t.Fatalf("pulled %d and %d records, want 5", len(first), len(second))
	}
	lineOf := func(unit string) int {
		for i, l := range first {
			if strings.Contains(l, `"unit":"`+unit+`"`) {
				return i + 1
			}
		}
		t.Fatalf("unit %s not pulled", unit)
		return 0
	}
	n := lineOf(changed)
	if first[n-1] == second[n-1] {
		t.Fatalf("the second pull does not differ in unit %s", changed)
	}
	units := make([]string, len(first))
	for i, l := range first {
		units[i] = l[strings.Index(l, `"unit":"`)+8:]
		units[i] = units[i][:strings.IndexByte(units[i], '"')]
	}
	// edit gives the first pull with the changed unit's line rewritten.
	edit := func(old, new string) []string {
		out := append([]string(nil), first...)
		if !strings.Contains(out[n-1], old) {
			t.Fatalf("line %d lacks %s", n, old)
		}
		out[n-1] = strings.Replace(out[n-1], old, new, 1)
		return out
	}
	values := first[n-1][strings.Index(first[n-1], `"values":`):]
	values = values[:strings.Index(values, `,"source"`)]
	unclaimed := edit(`"annotator":"AK","status":"complete",`+values, `"annotator":"","status":"empty","values":{}`)
	partial := edit(`"status":"complete",`+values, `"status":"partial","values":{"note":"later"}`)
	blank := edit(values, `"values":{}`)

	wantAll := filepath.Join(tmp, "want.jsonl")
	if code, _, errs := runCLI(t, "export", filepath.Join(tmp, "pull1.jsonl"), "--native", "--manifest", man, "--out", wantAll); code != 0 {
		t.Fatalf("export of one pull: exit %d: %s", code, errs)
	}
	native, err := os.ReadFile(wantAll)
	if err != nil {
		t.Fatal(err)
	}
	var withoutChanged strings.Builder
	for _, l := range strings.SplitAfter(string(native), "\n") {
		if !strings.Contains(l, `"`+changed+`"`) {
			withoutChanged.WriteString(l)
		}
	}

	// twice is the warnings of a five-line file given twice, unit
	// skipped (it has other lines).
	twice := func(file string, skip int) string {
		var b strings.Builder
		for i, u := range units {
			whose := `of annotator "AK"`
			if i+1 == skip {
				whose = "(unclaimed)"
			}
			fmt.Fprintf(&b, "warning: %s:%d and %s:%d: unit %s %s is recorded twice, identically; kept once\n", file, i+1, file, i+6, u, whose)
		}
		return b.String()
	}
	type result struct {
		Code           int
		Stdout, Stderr string
		Native         string // the file written, if any
	}
	tests := []struct {
		name  string
		parts [][]string // files put together
		flags []string
		toOut bool // --out, or stdout
		want  func(file, out string) result
	}{
		{"a pull twice", [][]string{first, first}, nil, true, func(file, out string) result {
			return result{0, "wrote " + out + ": 5 records\nexported; 5 records repeated identically, each kept once\n", twice(file, 0), string(native)}
		}},
		{"a pull twice, to stdout", [][]string{first, first}, nil, false, func(file, _ string) result {
			return result{0, string(native), twice(file, 0) + "exported; 5 records repeated identically, each kept once\n", ""}
		}},
		{"three times", [][]string{first, first, first}, []string{"--annotator", "AK"}, true, func(file, out string) result {
			var b strings.Builder
			for i, u := range units {
				fmt.Fprintf(&b, "warning: %s:%d, %s:%d and %s:%d: unit %s of annotator \"AK\" is recorded 3 times, identically; kept once\n", file, i+1, file, i+6, file, i+11, u)
			}
			return result{0, "wrote " + out + ": 5 records\nexported; 5 records repeated identically, each kept once\n", b.String(), string(native)}
		}},
		{"an unclaimed unit twice is left out once", [][]string{unclaimed, unclaimed}, nil, true, func(file, out string) result {
			return result{0, "wrote " + out + ": 4 records\nexported; left out 1 empty unit; 5 records repeated identically, each kept once\n", twice(file, n), withoutChanged.String()}
		}},
		{"two pulls, one answer changed", [][]string{first, second}, nil, true, func(file, _ string) result {
			return result{exitFailure, "", fmt.Sprintf("annosheet: %s:%d and %s:%d: conflicting records: unit %s of annotator \"AK\" is recorded twice, differently; keep one of them\n", file, n, file, n+5, changed), ""}
		}},
		{"a partial copy, with --complete-only", [][]string{first, partial}, []string{"--complete-only"}, true, func(file, _ string) result {
			return result{exitFailure, "", fmt.Sprintf("annosheet: %s:%d and %s:%d: conflicting records: unit %s of annotator \"AK\" is recorded twice, differently; keep one of them\n", file, n, file, n+5, changed), ""}
		}},
		{"complete without values", [][]string{blank}, nil, true, func(file, _ string) result {
			return result{exitFailure, "", fmt.Sprintf("annosheet: %s:%d: not a canonical record: unit %s is \"complete\" but has no values and no spans\n", file, n, changed), ""}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := filepath.Join(dir, "both.jsonl")
			var all strings.Builder
			for _, p := range tc.parts {
				all.WriteString(strings.Join(p, ""))
				all.WriteString("\n")
			}
			if err := os.WriteFile(file, []byte(all.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"export", file, "--native", "--manifest", man}, tc.flags...)
			out := filepath.Join(dir, "labels.jsonl")
			if tc.toOut {
				args = append(args, "--out", out)
			}
			var got result
			got.Code, got.Stdout, got.Stderr = runCLI(t, args...)
			if b, err := os.ReadFile(out); err == nil {
				got.Native = string(b)
			}
			if diff := cmp.Diff(tc.want(file, out), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
