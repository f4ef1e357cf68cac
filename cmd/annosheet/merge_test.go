package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tick opens a workbook, ticks the legal-gaps code for the units at the
// given indexes, and saves it.
func tick(t *testing.T, path, code string, units ...int) []string {
	t.Helper()
	return answer(t, path, "q:gaps="+code, true, units...)
}

// byUnit indexes records by unit and annotator, and fails on a pair seen
// twice.
func byUnit(t *testing.T, recs []records.Annotation) map[[2]string]*records.Annotation {
	t.Helper()
	out := map[[2]string]*records.Annotation{}
	for i := range recs {
		r := &recs[i]
		k := [2]string{r.Unit, r.Annotator}
		if out[k] != nil {
			t.Errorf("unit %q by %q twice: from %s and %s", r.Unit, r.Annotator, out[k].Source.File, r.Source.File)
		}
		out[k] = r
	}
	return out
}

// TestReturnedCopies: annotators send their workbooks back under other
// names, beside the blank originals or in another folder. Pull counts each
// batch once, takes the answers wherever they are, merges partial copies
// and refuses copies that disagree.
func TestReturnedCopies(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "study")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "-a", "ak,bt", "--overlap", "2", "--seed", "4"); code != 0 {
		t.Fatal(errs)
	}
	ak, bt := filepath.Join(dir, "legal-gaps-ak-b01.xlsx"), filepath.Join(dir, "legal-gaps-bt-b01.xlsx")
	// ak's answers come back as a copy beside the blank original.
	akCopy := filepath.Join(dir, "legal-gaps-ak-b01 (1).xlsx")
	copyFile(t, ak, akCopy)
	// The workbooks show opaque IDs; records through the manifest, real ones.
	akDone := realIDs(t, dir, tick(t, akCopy, "2", 0, 1))
	// bt's come back by mail into an inbox; the original is gone.
	inbox := filepath.Join(t.TempDir(), "inbox", "bt-done.xlsx")
	copyFile(t, bt, inbox)
	os.Remove(bt)
	btDone := realIDs(t, dir, tick(t, inbox, "0", 0))

	code, out, errs := runCLI(t, "pull", dir, inbox)
	if code != 0 {
		t.Fatalf("pull: exit %d: %s", code, errs)
	}
	recs := byUnit(t, readRecords(t, out))
	if len(recs) != 10 {
		t.Errorf("%d records, want 5 units × 2 annotators", len(recs))
	}
	for k, r := range recs {
		if r.Status == records.StatusMissing {
			t.Errorf("%v missing: %v", k, r.Problems)
		}
	}
	for _, u := range akDone {
		if r := recs[[2]string{u, "ak"}]; r == nil || r.Status != records.StatusComplete || r.Source.File != filepath.Base(akCopy) {
			t.Errorf("ak's answer to %s: %+v", u, r)
		}
	}
	if r := recs[[2]string{btDone[0], "bt"}]; r == nil || r.Status != records.StatusComplete || r.Source.File != "bt-done.xlsx" {
		t.Errorf("bt's answer: %+v", r)
	}
	if !strings.Contains(errs, "another copy of batch ak-b01") || strings.Contains(errs, "is missing") {
		t.Errorf("pull said:\n%s", errs)
	}
	rep := statusJSON(t, dir)
	if rep.Total.Complete != 2 || rep.Total.Missing != 5 || rep.Total.Units != 10 {
		t.Errorf("status of the folder alone (bt's in the inbox): %+v", rep.Total)
	}

	// A second copy with ak's work on another unit: merged unit by unit.
	akMore := filepath.Join(dir, "legal-gaps-ak-b01 (2).xlsx")
	copyFile(t, ak, akMore)
	more := realIDs(t, dir, tick(t, akMore, "1", 2))
	_, out, errs = runCLI(t, "pull", dir, inbox)
	recs = byUnit(t, readRecords(t, out))
	for _, u := range append(akDone, more...) {
		if r := recs[[2]string{u, "ak"}]; r == nil || r.Status != records.StatusComplete {
			t.Errorf("after merging, ak's %s: %+v (%s)", u, r, errs)
		}
	}

	// A copy that answers a unit differently: pull cannot tell which is
	// current, says so, and writes nothing.
	tick(t, akMore, "3", 0)
	outFile := filepath.Join(t.TempDir(), "a.jsonl")
	code, _, errs = runCLI(t, "pull", dir, "--out", outFile)
	if code != 1 || !regexp.MustCompile(regexp.QuoteMeta(filepath.Join(dir, "legal-gaps-ak-b01 (1).xlsx")+" and "+akMore+" answer unit "+`"`+akDone[0]+`" (shown as "item-`)+`\d+"\) by ak differently`).MatchString(errs) || !strings.Contains(errs, "keep only the current copy") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(outFile); err == nil {
		t.Error("a conflicting pull wrote its output")
	}
	os.Remove(akMore)

	// Another study's workbook in the folder is not read, and said so.
	other := filepath.Join(t.TempDir(), "other")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", other); code != 0 {
		t.Fatal(errs)
	}
	copyFile(t, filepath.Join(other, "legal-gaps-b01.xlsx"), filepath.Join(dir, "stray.xlsx"))
	code, out2, errs := runCLI(t, "pull", dir, inbox)
	if code != 0 || !strings.Contains(errs, "stray.xlsx: not read: it is in the study's folder but not of its study") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if got := readRecords(t, out2); len(got) != 10 {
		t.Errorf("%d records with a stray workbook in the folder", len(got))
	}
}

// TestSharedCopies: one shared workbook, a copy sent to each annotator,
// each claiming instances by typing their ID. The copies merge into one
// record per unit: the claimed ones under their annotator, the rest
// unclaimed.
func TestSharedCopies(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fg")
	if code, _, errs := runCLI(t, "generate", "-t", "factgenie-meta-eval", "-i", fgData, "-o", dir, "--seed", "2"); code != 0 {
		t.Fatal(errs)
	}
	orig := filepath.Join(dir, "factgenie-meta-eval-b01.xlsx")
	// claim copies the workbook for an annotator, who claims an instance
	// and answers its rows; with drop, the instance's last row is deleted
	// instead of answered.
	var want []string // the units in workbook order
	claim := func(path, who string, item int, drop bool) (answered int, dropped string) {
		copyFile(t, orig, path)
		w, err := goldtest.OpenWorkbook(path)
		if err != nil {
			t.Fatal(err)
		}
		want = w.Units
		var items []string
		for _, u := range w.Units {
			it := u[:strings.LastIndex(u, "#")]
			if len(items) == 0 || items[len(items)-1] != it {
				items = append(items, it)
			}
		}
		var mine []string
		for _, u := range w.Units {
			if strings.HasPrefix(u, items[item]+"#") {
				mine = append(mine, u)
			}
		}
		if drop {
			dropped, mine = mine[len(mine)-1], mine[:len(mine)-1]
		}
		for _, u := range mine {
			row := w.Rows[u][0]
			w.Set(row, "q:span_ok", "Error")
			w.Set(row, "q:explanation_ok", "Correct")
			w.Set(row, "annotator", who)
		}
		w.Save()
		if drop {
			f, err := excelize.OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f.RemoveRow(backend.SheetAnnotate, w.Rows[dropped][0])
			f.Save()
			f.Close()
		}
		return len(mine), dropped
	}
	// Claims in later copies, of later and earlier instances; ak deletes
	// a row of the instance ak claimed.
	nAK, gone := claim(filepath.Join(dir, "from-ak.xlsx"), "ak", 2, true)
	nBT, _ := claim(filepath.Join(dir, "from-bt.xlsx"), "bt", 0, false)
	code, out, errs := runCLI(t, "pull", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs := readRecords(t, out)
	byUnit(t, recs)
	count := map[string]int{}
	var units []string
	for _, r := range recs {
		units = append(units, r.Unit)
		count[r.Annotator]++
		switch {
		case r.Unit == gone:
			if r.Annotator != "ak" || r.Status != records.StatusMissing {
				t.Errorf("the deleted row's unit: %s, %s", r.Annotator, r.Status)
			}
		case r.Annotator != "" && r.Status != records.StatusComplete:
			t.Errorf("%s's %s: %s", r.Annotator, r.Unit, r.Status)
		}
	}
	if !slices.Equal(units, want) {
		t.Errorf("records not in the workbook's unit order")
	}
	if len(recs) != 289 || count["ak"] != nAK+1 || count["bt"] != nBT || count[""] != 289-nAK-1-nBT {
		t.Errorf("%d records: %v (ak claimed %d, bt %d)", len(recs), count, nAK+1, nBT)
	}
	if rep := statusJSON(t, dir); rep.Total.Complete != nAK+nBT || rep.Total.Missing != 1 || rep.Total.Units != 289 {
		t.Errorf("status: %+v", rep.Total)
	}
}

// TestShuffledCopyWithManifest: a returned copy of a shuffled workbook,
// pulled beside its study's manifest, has its answers put back on their
// candidates; without the manifest they stay as shown, and say so.
func TestShuffledCopyWithManifest(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pref")
	if code, _, errs := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", dir, "-a", "a1,a2", "--overlap", "2", "--seed", "11"); code != 0 {
		t.Fatal(errs)
	}
	orig := filepath.Join(dir, "preference-likert-a1-b01.xlsx")
	w, err := goldtest.OpenWorkbook(orig)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range w.Units {
		row := w.Rows[u][0]
		for i, s := range []string{"first", "second", "third"} {
			w.Set(row, "q:"+s+"_prediction_likert", i+1)
		}
	}
	w.Save()
	_, inPlace, _ := runCLI(t, "pull", filepath.Join(dir, manifest.FileName))
	inbox := filepath.Join(t.TempDir(), "a1.xlsx")
	copyFile(t, orig, inbox)
	os.Remove(orig)
	code, fromInbox, errs := runCLI(t, "pull", filepath.Join(dir, manifest.FileName), inbox)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, got := readRecords(t, inPlace), readRecords(t, fromInbox)
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	moved := 0
	for i := range want {
		a, b := want[i], got[i]
		if a.Unit != b.Unit || a.Annotator != b.Annotator || b.Shuffled || !reflect.DeepEqual(a.Values, b.Values) || !reflect.DeepEqual(a.Spans, b.Spans) {
			t.Errorf("record %d: %s/%s %v (shuffled %v), want %v", i, b.Unit, b.Annotator, b.Values, b.Shuffled, a.Values)
		}
		if a.Annotator == "a1" && a.Values["first_prediction_likert"] != float64(1) {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no instance was shown shuffled: the test checks nothing")
	}
	_, alone, _ := runCLI(t, "pull", inbox)
	for _, r := range readRecords(t, alone) {
		if !r.Shuffled {
			t.Errorf("without the manifest, %s is not marked shuffled", r.Unit)
		}
	}
}
