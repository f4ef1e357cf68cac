package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/xuri/excelize/v2"
)

// The tests in this file reproduce, through the CLI, each way a study
// lost work at its edges (issue 9, "Nothing lost at the edges").

// answer opens a workbook as an annotator would, sets a cell of each
// given unit (by index in the workbook's order) to v, and saves it. It
// returns the units' IDs.
func answer(t *testing.T, path, key string, v any, units ...int) []string {
	t.Helper()
	w, err := goldtest.OpenWorkbook(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, i := range units {
		if err := w.Set(w.Rows[w.Units[i]][0], key, v); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.Units[i])
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// snapshot reads the files' bytes, to tell whether a command changed them.
func snapshot(t *testing.T, paths ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

func unchanged(t *testing.T, before map[string][]byte) {
	t.Helper()
	for p, b := range before {
		if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, b) {
			t.Errorf("%s changed (%v)", p, err)
		}
	}
}

// legalPerAnnotator generates legal-gaps for ak and bt with a fixed seed
// and returns the folder and the two workbooks.
func legalPerAnnotator(t *testing.T) (dir, ak, bt string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "study")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "-a", "ak,bt", "--seed", "7"); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	return dir, filepath.Join(dir, "legal-gaps-ak-b01.xlsx"), filepath.Join(dir, "legal-gaps-bt-b01.xlsx")
}

func noFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s was written", path)
	}
}

// TestRegenerateOverAnswers: generate --force over returned workbooks
// used to rewrite them empty under a new study ID and seed.
func TestRegenerateOverAnswers(t *testing.T) {
	t.Parallel()
	dir, ak, bt := legalPerAnnotator(t)
	man := filepath.Join(dir, manifest.FileName)
	answer(t, ak, "q:gaps=2", true, 0)
	before := snapshot(t, ak, bt, man)
	gen := []string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "-a", "ak,bt", "--seed", "7", "--force"}
	code, _, errs := runCLI(t, gen...)
	if code != exitFailure || !strings.Contains(errs, ak) || !strings.Contains(errs, "holds answers for 1 unit") || !strings.Contains(errs, "--discard-answers") {
		t.Errorf("--force over an answered workbook: exit %d: %s", code, errs)
	}
	if strings.Contains(errs, bt) {
		t.Errorf("the unanswered workbook is named as holding answers: %s", errs)
	}
	unchanged(t, before)

	if code, _, errs := runCLI(t, append(gen, "--discard-answers")...); code != 0 {
		t.Fatalf("--force --discard-answers: exit %d: %s", code, errs)
	}
	if rep := statusJSON(t, dir); rep.Total.Complete != 0 || rep.Total.Partial != 0 {
		t.Errorf("after --discard-answers: %+v", rep.Total)
	}
}

// TestRegenerateKeepsStudy: regenerating the same plan keeps the study's
// ID and seed; a rerun says what is made, and resumes a deleted workbook.
func TestRegenerateKeepsStudy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "study")
	man := filepath.Join(dir, manifest.FileName)
	gen := []string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "-a", "ak,bt"}
	if code, _, errs := runCLI(t, gen...); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	first, err := manifest.Read(man)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, append(gen, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errs)
	}
	again, err := manifest.Read(man)
	if err != nil {
		t.Fatal(err)
	}
	if again.Study != first.Study || again.Seed != first.Seed {
		t.Errorf("--force over the same plan: study %s seed %d, was %s seed %d", again.Study, again.Seed, first.Study, first.Seed)
	}

	code, _, errs := runCLI(t, gen...)
	if code != exitFailure || !strings.Contains(errs, "all 2 workbooks of this study are made") {
		t.Errorf("rerun: exit %d: %s", code, errs)
	}

	ak, bt := filepath.Join(dir, "legal-gaps-ak-b01.xlsx"), filepath.Join(dir, "legal-gaps-bt-b01.xlsx")
	kept := snapshot(t, ak)
	if err := os.Remove(bt); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, gen...)
	if code != 0 || !strings.Contains(out, "wrote "+bt) || strings.Contains(out, "wrote "+ak) {
		t.Errorf("resume: exit %d: %s%s", code, out, errs)
	}
	unchanged(t, kept)
	if m, err := manifest.Read(man); err != nil || m.Study != first.Study || m.Seed != first.Seed {
		t.Errorf("resume: manifest %+v (%v), was study %s", m, err, first.Study)
	}
}

// TestOtherStudyRefused: a workbook of another study is not read however
// it is given, and --template is not ignored for folders and manifests.
func TestOtherStudyRefused(t *testing.T) {
	t.Parallel()
	dir, _ := legalStudy(t)
	other := filepath.Join(t.TempDir(), "other")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", other); code != 0 {
		t.Fatal(errs)
	}
	stray := filepath.Join(other, "legal-gaps-b01.xlsx")
	answer(t, stray, "q:gaps=1", true, 0, 1, 2)

	man := filepath.Join(dir, manifest.FileName)
	code, out, errs := runCLI(t, "pull", man, stray)
	if code != 0 || !regexp.MustCompile(`(?m)^warning: `+regexp.QuoteMeta(stray)+`: not read`).MatchString(errs) {
		t.Errorf("beside a manifest: exit %d: %s", code, errs)
	}
	recs := readRecords(t, out)
	if len(recs) != 5 {
		t.Errorf("%d records, want the study's 5 units", len(recs))
	}
	for _, r := range recs {
		if r.Annotator == "" || r.Status != records.StatusComplete {
			t.Errorf("a record of the other study's workbook: %s by %q, %s", r.Unit, r.Annotator, r.Status)
		}
	}

	code, _, errs = runCLI(t, "pull", stray, "--template", "qa-span-errors")
	if code != exitFailure || !strings.Contains(errs, "warning: "+stray) || !strings.Contains(errs, "no workbook was read") {
		t.Errorf("alone with --template: exit %d: %s", code, errs)
	}

	out2 := filepath.Join(t.TempDir(), "a.jsonl")
	code, _, errs = runCLI(t, "pull", dir, "--template", "qa-span-errors", "--out", out2)
	if code != exitFailure || !strings.Contains(errs, man) || !strings.Contains(errs, "qa-span-errors") {
		t.Errorf("a study folder with --template of another: exit %d: %s", code, errs)
	}
	noFile(t, out2)
}

// TestCorruptManifest: a manifest that cannot be read used to be ignored,
// and the missing-unit accounting with it.
func TestCorruptManifest(t *testing.T) {
	t.Parallel()
	dir, _ := legalStudy(t)
	man := filepath.Join(dir, manifest.FileName)
	records := filepath.Join(t.TempDir(), "a.jsonl")
	if code, _, errs := runCLI(t, "pull", dir, "--out", records); code != 0 {
		t.Fatal(errs)
	}
	if err := os.WriteFile(man, []byte("{\"schema\": \"annosheet.manifest/1\", garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string // OUT stands for a file that must not be written
	}{
		{"pull", []string{"pull", dir, "--out", "OUT"}},
		{"pull report", []string{"pull", dir, "--report", "OUT"}},
		{"pull manifest", []string{"pull", man, "--out", "OUT"}},
		{"status", []string{"status", dir}},
		{"status json", []string{"status", dir, "--json"}},
		{"export", []string{"export", dir, "--native", "--out", "OUT"}},
		{"export manifest", []string{"export", records, "--native", "--manifest", man, "--out", "OUT"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := slices.Clone(c.args)
			for i, a := range args {
				if a == "OUT" {
					args[i] = out
				}
			}
			code, _, errs := runCLI(t, args...)
			if code != exitFailure || !strings.Contains(errs, man) {
				t.Errorf("exit %d: %s", code, errs)
			}
			noFile(t, out)
		})
	}
}

// TestMovedStudy: input paths in the manifest used to be relative to the
// folder generate ran in, so a moved study could not export.
func TestMovedStudy(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj := filepath.Join(root, "project")
	in := filepath.Join(proj, "data", "gaps.jsonl")
	copyFile(t, legalData, in)
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", in, "-o", filepath.Join(proj, "study")); code != 0 {
		t.Fatal(errs)
	}
	book := filepath.Join(proj, "study", "legal-gaps-b01.xlsx")
	tick(t, book, "2", 0)
	answer(t, book, "annotator", "ak", 0)

	export := func(name, dir string, extra ...string) (int, string, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), name+".jsonl")
		code, stdout, errs := runCLI(t, append([]string{"export", dir, "--native", "--out", out}, extra...)...)
		if _, err := os.Stat(out); (err == nil) != (code == 0) {
			t.Errorf("%s: exit %d, output written: %v", name, code, err == nil)
		}
		return code, stdout, errs
	}
	rename := func(from, to string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(to), 0o755)
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}

	// The study folder alone moves (zipped, mailed); the inputs stay.
	alone := filepath.Join(root, "mail", "study")
	rename(filepath.Join(proj, "study"), alone)
	if code, _, errs := export("alone", alone); code != 0 {
		t.Errorf("the study folder moved alone: exit %d: %s", code, errs)
	}

	// The whole project moves: nothing is where the study was made.
	rename(alone, filepath.Join(proj, "study"))
	moved := filepath.Join(root, "elsewhere", "moved")
	rename(proj, moved)
	if code, _, errs := export("project", filepath.Join(moved, "study")); code != 0 {
		t.Errorf("the whole project moved: exit %d: %s", code, errs)
	}

	// The input changes: its hash no longer matches.
	changed := filepath.Join(moved, "data", "gaps.jsonl")
	b, err := os.ReadFile(changed)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(changed, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := export("changed", filepath.Join(moved, "study"))
	if code != exitFailure || !strings.Contains(errs, "changed") || !strings.Contains(errs, "--input") {
		t.Errorf("a changed input: exit %d: %s", code, errs)
	}
	code, _, errs = export("overridden", filepath.Join(moved, "study"), "--input", changed)
	if code != exitFailure || !strings.Contains(errs, "--input-changed") {
		t.Errorf("--input alone over a changed input: exit %d: %s", code, errs)
	}
	code, _, errs = export("overridden", filepath.Join(moved, "study"), "--input", changed, "--input-changed")
	if code != 0 || !regexp.MustCompile(`(?m)^warning: .*`+regexp.QuoteMeta(changed)).MatchString(errs) {
		t.Errorf("--input over a changed input: exit %d: %s", code, errs)
	}
}

// TestUnreadableFormats: files a folder pull cannot read used to be
// skipped without a word.
func TestUnreadableFormats(t *testing.T) {
	t.Parallel()
	dir, _ := legalStudy(t)
	numbers, csv := filepath.Join(dir, "notes.numbers"), filepath.Join(dir, "returned.csv")
	os.WriteFile(numbers, []byte("PK\x03\x04 not really"), 0o644)
	os.WriteFile(csv, []byte("unit,gaps\nx,1\n"), 0o644)
	code, out, errs := runCLI(t, "pull", dir)
	if code != 0 || len(readRecords(t, out)) != 5 {
		t.Errorf("exit %d: %s", code, errs)
	}
	for _, f := range []string{numbers, csv} {
		if !regexp.MustCompile(`(?m)^warning: ` + regexp.QuoteMeta(f) + `: not read: \S`).MatchString(errs) {
			t.Errorf("%s not listed as not read:\n%s", f, errs)
		}
	}
}

// TestErrorsNameFilesAsGiven: two copies of one name in two folders used
// to be reported by their base names only.
func TestErrorsNameFilesAsGiven(t *testing.T) {
	t.Parallel()
	dir, ak, _ := legalPerAnnotator(t)
	root := t.TempDir()
	a, b := filepath.Join(root, "inboxA", "x.xlsx"), filepath.Join(root, "inboxB", "x.xlsx")
	copyFile(t, ak, a)
	copyFile(t, ak, b)
	unit := realIDs(t, dir, tick(t, a, "1", 0))[0]
	tick(t, b, "3", 0)
	out := filepath.Join(t.TempDir(), "a.jsonl")
	code, _, errs := runCLI(t, "pull", dir, a, b, "--out", out)
	if code != exitFailure || !strings.Contains(errs, a+" and "+b+" answer unit "+`"`+unit+`"`) {
		t.Errorf("exit %d: %s", code, errs)
	}
	if !regexp.MustCompile(`"1".* vs .*"3"`).MatchString(errs) {
		t.Errorf("the conflict does not show both values:\n%s", errs)
	}
	noFile(t, out)
}

// TestDamagedWorkbook: a read error used to be reported as "not an
// annosheet workbook".
func TestDamagedWorkbook(t *testing.T) {
	t.Parallel()
	dir, ak, bt := legalPerAnnotator(t)
	tick(t, bt, "0", 0)
	b, err := os.ReadFile(ak)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ak, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	akUnits := map[string]bool{}
	for _, bat := range m.Batches {
		if bat.Annotator == "ak" {
			for _, u := range bat.Units {
				akUnits[u.ID] = true
			}
		}
	}

	_, out, errs := runCLI(t, "pull", dir)
	if !regexp.MustCompile(`(?m)^error: ` + regexp.QuoteMeta(ak) + `.*could not be read`).MatchString(errs) {
		t.Errorf("the damaged workbook is not named as unreadable:\n%s", errs)
	}
	if strings.Contains(errs, "not an annosheet workbook") {
		t.Errorf("a read error reported as not a workbook:\n%s", errs)
	}
	recs := readRecords(t, out)
	if len(recs) != 5 || len(akUnits) == 0 {
		t.Fatalf("%d records, %d units of ak", len(recs), len(akUnits))
	}
	for _, r := range recs {
		// A workbook that is there but damaged may hold answers: its
		// units are unreadable, never missing or empty.
		if akUnits[r.Unit] != (r.Status == records.StatusUnreadable) {
			t.Errorf("%s by %s: %s", r.Unit, r.Annotator, r.Status)
		}
	}

	code, stdout, errs := runCLI(t, "status", dir)
	if code != 0 || !strings.Contains(stdout, "bt-b01") {
		t.Errorf("status: exit %d:\n%s%s", code, stdout, errs)
	}
	// With the unreadable column, every row's bar still lines up.
	width := -1
	for _, l := range strings.Split(stdout, "\n") {
		if !strings.HasSuffix(l, "%") {
			continue
		}
		if width >= 0 && len(l) != width {
			t.Errorf("the table's rows do not line up:\n%s", stdout)
			break
		}
		width = len(l)
	}
	if rep := statusJSON(t, dir); rep.Total.Complete != 1 || rep.Total.Unreadable != len(akUnits) || rep.Total.Missing != 0 || !strings.Contains(stdout, "unreadable") {
		t.Errorf("status: %+v", rep.Total)
	}
}

// TestExportRefusesProblems: export used to write invalid and partial
// answers with exit 0.
func TestExportRefusesProblems(t *testing.T) {
	t.Parallel()
	dir, ak, _ := legalPerAnnotator(t)
	answer(t, ak, "q:gaps=2", "maybe", 0)
	tick(t, ak, "1", 1)
	for _, c := range []struct {
		name   string
		flags  []string
		code   int
		stdout []string
		stderr []string
	}{
		{"plain", nil, exitFailure, nil, []string{"--allow-problems"}},
		{"allow-problems", []string{"--allow-problems"}, 0, nil, []string{"warning: "}},
		{"complete-only", []string{"--complete-only"}, 0, []string{"left out", "partial", "empty"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "gaps.json")
			code, stdout, errs := runCLI(t, append([]string{"export", dir, "--native", "--out", out}, c.flags...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s%s", code, c.code, stdout, errs)
			}
			for _, s := range c.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range c.stderr {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
				}
			}
			if _, err := os.Stat(out); (err == nil) != (c.code == 0) {
				t.Errorf("exit %d, output written: %v", code, err == nil)
			}
		})
	}
}

// TestSharedAnnotatorIDs: in a shared workbook, ak, AK and " ak " used to
// be three annotators, and IDs outside the study's list passed silently.
func TestSharedAnnotatorIDs(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "study")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir); code != 0 {
		t.Fatal(errs)
	}
	book := filepath.Join(dir, "legal-gaps-b01.xlsx")
	w, err := goldtest.OpenWorkbook(book)
	if err != nil {
		t.Fatal(err)
	}
	w.RealIDs(readManifest(t, dir).OpaqueIDs) // the units as pull through the manifest names them
	ids := []string{"ak", " AK ", "a.k.", "akk"}
	for i, id := range ids {
		row := w.Rows[w.Units[i]][0]
		w.Set(row, "annotator", id)
		w.Set(row, "q:gaps=1", true)
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "pull", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	who := map[string]string{}
	for _, r := range readRecords(t, out) {
		who[r.Unit] = r.Annotator
	}
	if a, b := who[w.Units[0]], who[w.Units[1]]; a != b || strings.TrimSpace(strings.ToLower(a)) != "ak" {
		t.Errorf("ak and \" AK \" are two annotators: %q, %q", a, b)
	}

	cell := mustCell(t, w, w.Rows[w.Units[3]][0], "annotator")
	code, _, errs = runCLI(t, "pull", dir, "--annotators", "ak,bt")
	if code != 0 {
		t.Fatalf("--annotators: exit %d: %s", code, errs)
	}
	unknown := regexp.MustCompile(`(?m)^warning: .*` + regexp.QuoteMeta(backend.SheetAnnotate+"!"+cell) + `.*"akk"`)
	if !unknown.MatchString(errs) {
		t.Errorf("no warning by cell about akk:\n%s", errs)
	}
}

// TestConflictKeepsStatus: one pair of conflicting copies used to make
// status print nothing at all for the whole study.
func TestConflictKeepsStatus(t *testing.T) {
	t.Parallel()
	dir, ak, bt := legalPerAnnotator(t)
	one, two := filepath.Join(dir, "ak (1).xlsx"), filepath.Join(dir, "ak (2).xlsx")
	copyFile(t, ak, one)
	copyFile(t, ak, two)
	unit := realIDs(t, dir, tick(t, one, "1", 0))[0]
	tick(t, two, "3", 0)
	tick(t, bt, "0", 0)

	code, stdout, errs := runCLI(t, "status", dir)
	if code != 0 || !regexp.MustCompile(`(?m)^.*bt-b01.*$`).MatchString(stdout) {
		t.Errorf("status: exit %d:\n%s", code, stdout)
	}
	if !strings.Contains(errs, one+" and "+two+" answer unit "+`"`+unit+`"`) || !regexp.MustCompile(`"1".* vs .*"3"`).MatchString(errs) {
		t.Errorf("status does not name the conflict:\n%s", errs)
	}
	code, js, _ := runCLI(t, "status", dir, "--json")
	var raw map[string]json.RawMessage
	var conflicts []struct {
		Unit  string
		Files []string
	}
	if err := json.Unmarshal([]byte(js), &raw); err != nil || code != 0 {
		t.Fatalf("status --json: exit %d, %v: %s", code, err, js)
	}
	if err := json.Unmarshal(raw["conflicts"], &conflicts); err != nil || len(conflicts) != 1 || conflicts[0].Unit != unit || !slices.Equal(conflicts[0].Files, []string{one, two}) {
		t.Errorf("status --json conflicts (%v): %s", err, raw["conflicts"])
	}
}

// TestProblemLines: pull's lines say their severity and, for a cell, the
// unit; status counts the same problems.
func TestProblemLines(t *testing.T) {
	t.Parallel()
	dir, ak, _ := legalPerAnnotator(t)
	units := realIDs(t, dir, answer(t, ak, "q:gaps=2", "maybe", 0))
	// A warning: another study's workbook in the folder is not read.
	other := filepath.Join(t.TempDir(), "other")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", other); code != 0 {
		t.Fatal(errs)
	}
	copyFile(t, filepath.Join(other, "legal-gaps-b01.xlsx"), filepath.Join(dir, "stray.xlsx"))
	_, _, errs := runCLI(t, "pull", dir)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	var summary string
	cellLine := regexp.MustCompile(`^error: ` + regexp.QuoteMeta(ak) + `: ` + backend.SheetAnnotate + `!\S+ .*\(unit ` + regexp.QuoteMeta(units[0]) + `, shown as item-\d+\)$`)
	found := false
	for _, l := range lines {
		switch {
		case cellLine.MatchString(l):
			found = true
		case strings.HasPrefix(l, "error: "), strings.HasPrefix(l, "warning: "):
		case summary == "":
			summary = l
		default:
			t.Errorf("a line without its severity: %q", l)
		}
	}
	if !found {
		t.Errorf("no error line for the cell ending with its unit (%s):\n%s", units[0], errs)
	}
	_, _, serrs := runCLI(t, "status", dir)
	counts := regexp.MustCompile(`(\d+) errors?(?:,| and) (\d+) warnings?`)
	p, s := counts.FindStringSubmatch(summary), counts.FindStringSubmatch(serrs)
	if p == nil || s == nil || p[1] != s[1] || p[2] != s[2] || p[1] != "1" || p[2] != "1" {
		t.Errorf("pull counts %q, status %q:\npull: %s\nstatus: %s", p, s, errs, serrs)
	}
}

// TestPullOutputNeverASource: --out and --report never write over a
// workbook or a manifest, whatever their name says.
func TestPullOutputNeverASource(t *testing.T) {
	t.Parallel()
	dir, book := legalStudy(t)
	man := filepath.Join(dir, "manifest.json")
	for _, args := range [][]string{
		{"pull", dir, "--out", book},
		{"pull", dir, "--out", man},
		{"pull", dir, "--report", filepath.Join(dir, "returned.ods")},
	} {
		before := snapshot(t, book, man)
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, "that is a workbook or a study's manifest, which pull reads") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
		unchanged(t, before)
	}
}

// TestPullOutputKeepsOtherFiles: an existing file at --out or --report
// (an earlier pull's records, notes, an empty file) is refused before
// anything is read, and left as it was; --force replaces it. --out and
// --report never name one file.
func TestPullOutputKeepsOtherFiles(t *testing.T) {
	t.Parallel()
	dir, _ := legalStudy(t)
	out := t.TempDir()
	recs, rep := filepath.Join(out, "annotations.jsonl"), filepath.Join(out, "report.json")
	if code, _, errs := runCLI(t, "pull", dir, "--out", recs, "--report", rep); code != 0 {
		t.Fatalf("first pull: exit %d: %s", code, errs)
	}
	for _, c := range []struct{ flag, name, text string }{
		{"--out", "notes.txt", "call the annotators on Monday\n"},
		{"--out", "empty.jsonl", ""},
		{"--out", "annotations.jsonl", ""}, // the first pull's, as it is
		{"--report", "report.json", ""},
	} {
		p := filepath.Join(out, c.name)
		if c.text != "" || c.name == "empty.jsonl" {
			if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI(t, "pull", dir, c.flag, p)
		if code != exitUsage || !strings.Contains(errs, c.flag+" "+p+": the file exists; give another file, or --force to replace it") {
			t.Errorf("%s %s: exit %d: %s", c.flag, c.name, code, errs)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, before) {
			t.Errorf("%s %s: the file was changed to %.80q", c.flag, c.name, b)
		}
		if code, _, errs := runCLI(t, "pull", dir, c.flag, p, "--force"); code != 0 {
			t.Errorf("%s %s --force: exit %d: %s", c.flag, c.name, code, errs)
		} else if b, _ := os.ReadFile(p); !strings.Contains(string(b), `"schema":`) {
			t.Errorf("%s %s --force: not replaced: %.80q", c.flag, c.name, b)
		}
	}
	if b, _ := os.ReadFile(recs); len(readRecords(t, string(b))) != 5 {
		t.Errorf("records not written again: %.200q", b)
	}
	fresh := filepath.Join(out, "new.json")
	if code, _, errs := runCLI(t, "pull", dir, "--out", fresh, "--report", fresh); code != exitUsage || !strings.Contains(errs, "--out and --report are both") {
		t.Errorf("one file for both: exit %d: %s", code, errs)
	}
}

// TestPullFIFO: a named pipe called like a workbook, in a study's folder
// or given by name, is never opened (pull would block on it), and is said.
func TestPullFIFO(t *testing.T) {
	t.Parallel()
	dir, _ := legalStudy(t)
	fifo := filepath.Join(dir, "returned.xlsx")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	code, out, errs := runCLI(t, "pull", dir)
	if code != 0 || !strings.Contains(errs, "warning: "+fifo+": not read: it is not a regular file") || len(readRecords(t, out)) != 5 {
		t.Errorf("folder: exit %d: %s", code, errs)
	}
	code, _, errs = runCLI(t, "pull", fifo)
	if code != exitFailure || !strings.Contains(errs, "it is not a regular file (a named pipe)") {
		t.Errorf("by name: exit %d: %s", code, errs)
	}
}

// TestCopiedAnnotateSheet: answers typed into a copy of the Annotate
// sheet, the original left blank, are an error naming the copy, never a
// quiet "empty"; a sheet of the annotator's own is said not to be read.
func TestCopiedAnnotateSheet(t *testing.T) {
	t.Parallel()
	_, book := legalStudy(t)
	f, err := excelize.OpenFile(book)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := f.GetSheetIndex(backend.SheetAnnotate)
	to, err := f.NewSheet("Annotate (2)")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CopySheet(from, to); err != nil {
		t.Fatal(err)
	}
	f.SetCellValue("Annotate (2)", "H2", true)
	f.NewSheet("My notes")
	f.SetCellValue("My notes", "A1", "ask about gpt4o-11")
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, _, errs := runCLI(t, "pull", book, "--strict", "--out", filepath.Join(t.TempDir(), "a.jsonl"))
	if code != exitStrict || !strings.Contains(errs, `error: `+book+`: sheet "Annotate (2)" looks like a copy of Annotate`) ||
		!strings.Contains(errs, `warning: `+book+`: sheet "My notes": a sheet annosheet did not make; it is not read`) {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestControlCharacterID: an ID with a NUL is shown visibly, and the same
// ID is in the workbook, the manifest and the pull, so the study matches.
func TestControlCharacterID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"id": "a\u0000b", "previous_context": "p", "generation": "g", "cited_paragraphs": [], "target": "t"}`+"\n"), 0o644)
	out := filepath.Join(dir, "study")
	code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", in, "-o", out)
	if code != 0 || !strings.Contains(errs, `"a\x00b" has control characters`) {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	code, stdout, errs := runCLI(t, "pull", out)
	recs := readRecords(t, stdout)
	if code != 0 || len(recs) != 1 || recs[0].Unit != "a\u2400b" || recs[0].Status != records.StatusEmpty || !strings.Contains(errs, "1 empty, 0 missing; 0 errors") {
		t.Errorf("pull: exit %d: %+v\n%s", code, recs, errs)
	}
}
