package study

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
)

func TestSelectForExport(t *testing.T) {
	t.Parallel()
	bad := records.UnitProblem{Severity: records.Error, Cell: "Annotate!F2", Message: `"maybe" is not one of: Yes, No`}
	warn := records.UnitProblem{Severity: records.Warning, Cell: "Annotate!F3", Message: "answer normalised"}
	var (
		complete       = rec("c1", "ak", records.StatusComplete, map[string]any{"q": "yes"})
		partial        = rec("p1", "ak", records.StatusPartial, map[string]any{"note": "n"})
		partialErr     = rec("p2", "ak", records.StatusPartial, nil, bad)
		empty          = rec("e1", "bt", records.StatusEmpty, nil)
		missing        = rec("m1", "bt", records.StatusMissing, nil, records.UnitProblem{Severity: records.Error, Message: "the workbook is missing"})
		completeErr    = rec("x1", "ak", records.StatusComplete, map[string]any{"q": "yes"}, bad)
		completeWarned = rec("w1", "", records.StatusComplete, map[string]any{"q": "no"}, warn)
	)
	all := []*records.Annotation{complete, partial, partialErr, empty, missing, completeErr, completeWarned}
	var many []*records.Annotation
	for i := range 7 {
		many = append(many, rec(fmt.Sprintf("u%d", i), "", records.StatusComplete, nil, bad))
	}
	const fix = ""
	gold := func(unit string, prov map[string]*records.Provenance, spans ...records.SpanAnswer) *records.Annotation {
		r := rec(unit, records.GoldAnnotator, records.StatusPartial, nil)
		r.Provenance, r.Spans = prov, spans
		return r
	}
	unresolved := gold("llama3-12", map[string]*records.Provenance{
		"gaps": {Kind: records.ProvenanceUnresolved, Decision: "d0003", Cell: "Gaps!H4"},
		"note": {Kind: records.ProvenanceCarried}})
	spansOpen := gold("q7", nil, records.SpanAnswer{Question: "errors", Provenance: &records.Provenance{Kind: records.ProvenanceAdjudicated}},
		records.SpanAnswer{Question: "errors", Provenance: &records.Provenance{Kind: records.ProvenanceUnresolved, Decision: "d0009"}})
	decided := gold("gpt4o-12", map[string]*records.Provenance{"gaps": {Kind: records.ProvenanceAdjudicated}})
	decided.Status = records.StatusComplete
	for _, c := range []struct {
		name                        string
		recs                        []*records.Annotation
		completeOnly, allowProblems bool
		allowUnresolved             bool
		want                        *Selection
		wantErr                     string
		wantIs                      []error
	}{
		{
			name:    "gold values nobody decided are refused, a line per unit",
			recs:    []*records.Annotation{decided, unresolved, spansOpen},
			wantErr: "gold records with unresolved values: 2 gold units nobody decided:\n  llama3-12: gaps (decision d0003, Gaps!H4) unresolved\n  q7: errors (decision d0009) unresolved",
			wantIs:  []error{ErrUnresolved},
		},
		{
			name:            "allowed, they are kept and named",
			recs:            []*records.Annotation{decided, unresolved, spansOpen},
			allowUnresolved: true,
			want: &Selection{Records: []*records.Annotation{decided, unresolved, spansOpen},
				Unresolved: []string{"llama3-12: gaps (decision d0003, Gaps!H4) unresolved", "q7: errors (decision d0009) unresolved"}},
		},
		{
			name:    "errors and unresolved values are said together",
			recs:    []*records.Annotation{completeErr, unresolved},
			wantErr: "records with errors: 1 unit with error-level problems (x1 by ak)\ngold records with unresolved values: 1 gold unit nobody decided:\n  llama3-12: gaps (decision d0003, Gaps!H4) unresolved",
			wantIs:  []error{ErrProblems, ErrUnresolved},
		},
		{
			name:    "records with errors are refused, naming them",
			recs:    all,
			wantErr: "records with errors: 2 units with error-level problems (p2 by ak, x1 by ak)" + fix,
		},
		{
			name:          "allowed, they are kept and counted; missing units are always left out",
			recs:          all,
			allowProblems: true,
			want:          &Selection{Records: []*records.Annotation{complete, partial, partialErr, empty, completeErr, completeWarned}, Missing: 1, WithErrors: 2},
		},
		{
			name:         "complete only leaves out the rest before looking for errors",
			recs:         all,
			completeOnly: true,
			wantErr:      "records with errors: 1 unit with error-level problems (x1 by ak)" + fix,
		},
		{
			name:          "complete only, errors allowed",
			recs:          all,
			completeOnly:  true,
			allowProblems: true,
			want:          &Selection{Records: []*records.Annotation{complete, completeErr, completeWarned}, Partial: 2, Empty: 1, Missing: 1, WithErrors: 1},
		},
		{
			name: "warnings do not stop an export",
			recs: []*records.Annotation{complete, completeWarned, partial, empty, missing},
			want: &Selection{Records: []*records.Annotation{complete, completeWarned, partial, empty}, Missing: 1},
		},
		{
			name:    "many records with errors: the first five are named",
			recs:    many,
			wantErr: "records with errors: 7 units with error-level problems (u0, u1, u2, u3, u4 and 2 more)" + fix,
		},
		{
			name: "nothing to export",
			want: &Selection{},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := SelectForExport(c.recs, SelectOptions{CompleteOnly: c.completeOnly, AllowProblems: c.allowProblems, AllowUnresolved: c.allowUnresolved})
			if c.wantErr != "" {
				if c.wantIs == nil {
					c.wantIs = []error{ErrProblems}
				}
				if err == nil || err.Error() != c.wantErr {
					t.Errorf("SelectForExport: error %v, want %s", err, c.wantErr)
				}
				for _, is := range c.wantIs {
					if !errors.Is(err, is) {
						t.Errorf("SelectForExport: error %v is not %v", err, is)
					}
				}
				if got != nil {
					t.Errorf("SelectForExport: %d records kept along with an error", len(got.Records))
				}
				return
			}
			if err != nil {
				t.Fatalf("SelectForExport: %v", err)
			}
			if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("SelectForExport (-want +got):\n%s", diff)
			}
		})
	}
}

// put writes content to path, making its folder.
func put(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sum(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:])
}

func TestInputPaths(t *testing.T) {
	t.Parallel()
	legal, err := os.ReadFile(legalData)
	if err != nil {
		t.Fatal(err)
	}
	const made = "records\n"
	rel := manifest.Input{Path: "../data/in.jsonl", SHA256: sum(made)}
	for _, c := range []struct {
		name string
		// files are made in the test's folder, ROOT.
		files map[string]string
		// path is where the manifest is read from; dir is where the
		// study was made (both under ROOT).
		path, dir string
		inputs    []manifest.Input
		args      []string
		want      []string // under ROOT
		wantErr   string
		wantIs    error
	}{
		{
			name:   "beside the manifest: the study moved with its inputs",
			files:  map[string]string{"moved/data/in.jsonl": made},
			path:   "moved/study/manifest.json",
			dir:    "made/study",
			inputs: []manifest.Input{rel},
			args:   []string{"../data"},
			want:   []string{"ROOT/moved/data"},
		},
		{
			name:   "where the study was made: the study moved alone",
			files:  map[string]string{"made/data/in.jsonl": made},
			path:   "elsewhere/deeper/study/manifest.json",
			dir:    "made/study",
			inputs: []manifest.Input{rel},
			args:   []string{"../data/in.jsonl"},
			want:   []string{"ROOT/made/data/in.jsonl"},
		},
		{
			name:   "beside the manifest comes first",
			files:  map[string]string{"made/data/in.jsonl": made, "moved/data/in.jsonl": made},
			path:   "moved/study/manifest.json",
			dir:    "made/study",
			inputs: []manifest.Input{rel},
			args:   []string{"../data/in.jsonl"},
			want:   []string{"ROOT/moved/data/in.jsonl"},
		},
		{
			name:   "changed beside the manifest, as made where the study was made",
			files:  map[string]string{"made/data/in.jsonl": made, "moved/data/in.jsonl": "edited\n"},
			path:   "moved/study/manifest.json",
			dir:    "made/study",
			inputs: []manifest.Input{rel},
			args:   []string{"../data/in.jsonl"},
			want:   []string{"ROOT/made/data/in.jsonl"},
		},
		{
			name:   "an older manifest: paths relative to where generate ran",
			path:   "study/manifest.json",
			inputs: []manifest.Input{{Path: legalData, SHA256: sum(string(legal))}},
			args:   []string{legalData},
			want:   []string{legalData},
		},
		{
			name:    "a changed input is an error",
			files:   map[string]string{"study/data/in.jsonl": "edited\n"},
			path:    "study/manifest.json",
			inputs:  []manifest.Input{{Path: "data/in.jsonl", SHA256: sum(made)}},
			args:    []string{"data/in.jsonl"},
			wantErr: "ROOT/study/data/in.jsonl: input changed since the workbooks were generated (SHA-256 " + sum("edited\n")[:12] + "…, was " + sum(made)[:12] + "…)",
			wantIs:  ErrInputChanged,
		},
		{
			name:    "a missing input is an error",
			path:    "study/manifest.json",
			dir:     "made/study",
			inputs:  []manifest.Input{rel, {Path: "../data/more.jsonl", SHA256: sum(made)}},
			args:    []string{"../data"},
			wantErr: "ROOT/study/manifest.json: input not found: ../data/in.jsonl, ../data/more.jsonl (looked beside the manifest and where the study was made)",
			wantIs:  ErrInputMissing,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for name, content := range c.files {
				put(t, filepath.Join(root, name), content)
			}
			m := &Manifest{Manifest: &manifest.Manifest{Inputs: c.inputs, InputArgs: c.args}, Path: filepath.Join(root, c.path)}
			if c.dir != "" {
				m.Manifest.Dir = filepath.ToSlash(filepath.Join(root, c.dir))
			}
			got, err := m.InputPaths()
			if c.wantErr != "" {
				if err == nil || strings.ReplaceAll(err.Error(), root, "ROOT") != c.wantErr || !errors.Is(err, c.wantIs) {
					t.Errorf("InputPaths: error %v, want %s (%v)", err, c.wantErr, c.wantIs)
				}
				return
			}
			if err != nil {
				t.Fatalf("InputPaths: %v", err)
			}
			var want []string
			for _, w := range c.want {
				want = append(want, filepath.FromSlash(strings.Replace(w, "ROOT", root, 1)))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("InputPaths (-want +got):\n%s", diff)
			}
		})
	}
}
