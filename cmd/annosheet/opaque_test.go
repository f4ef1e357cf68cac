package main

import (
	"archive/zip"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/testkit/goldtest"
)

// realIDs are the real IDs of units a workbook of the study in dir shows
// by their opaque IDs (its manifest holds the key); IDs the key lacks stay
// as they are.
func realIDs(t *testing.T, dir string, ids []string) []string {
	t.Helper()
	key := readManifest(t, dir).OpaqueIDs
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if r, ok := key[id]; ok {
			out[i] = r
		}
	}
	return out
}

// TestOpaqueIDsNowhereInWorkbooks generates a legal-gaps study in several
// batches and reads every part of every workbook, unzipped — each sheet,
// the hidden metadata sheet, shared strings, styles, document properties
// — for the real IDs, which name the models (gpt4o-12), and the model
// names themselves: none may be anywhere. The manifest alone holds the
// key, each instance has one opaque ID in every workbook, numbered in an
// order drawn with the study's seed, and pull through the manifest gives
// the real IDs back.
func TestOpaqueIDsNowhereInWorkbooks(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "study")
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir,
		"--annotators", "ak,bt,cm", "--overlap", "2", "--batch-size", "2", "--seed", "9"); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"gpt4o", "llama3"}
	var wantIDs, numbers []string
	for i, r := range recs {
		secrets = append(secrets, r.ID)
		wantIDs = append(wantIDs, r.ID)
		numbers = append(numbers, fmt.Sprintf("item-%04d", i+1))
	}
	m := readManifest(t, dir)
	if diff := cmp.Diff(numbers, slices.Sorted(maps.Keys(m.OpaqueIDs))); diff != "" {
		t.Errorf("the manifest's opaque IDs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(wantIDs)), slices.Sorted(maps.Values(m.OpaqueIDs))); diff != "" {
		t.Errorf("the manifest's real IDs (-want +got):\n%s", diff)
	}
	inOrder := true
	for i, r := range recs {
		inOrder = inOrder && m.OpaqueIDs[numbers[i]] == r.ID
	}
	if inOrder {
		t.Error("the opaque IDs number the instances in the input's order")
	}
	if len(m.Batches) < 3 {
		t.Fatalf("%d batches: the test needs several", len(m.Batches))
	}
	sheetRe := regexp.MustCompile(`<sheet [^>]*name="([^"]*)"`)
	for _, b := range m.Batches {
		path := filepath.Join(dir, b.File)
		z, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		parts := map[string]string{}
		for _, f := range z.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			parts[f.Name] = string(body)
			for _, s := range secrets {
				for what, text := range map[string]string{"the part": string(body), "its name": f.Name, "its comment": f.Comment, "its extra field": string(f.Extra)} {
					if strings.Contains(text, s) {
						t.Errorf("%s: %s %s holds %q", b.File, f.Name, what, s)
					}
				}
			}
		}
		for _, s := range secrets {
			if strings.Contains(z.Comment, s) {
				t.Errorf("%s: the zip's comment holds %q", b.File, s)
			}
		}
		z.Close()
		// Every sheet was read, the hidden ones too: one worksheet part
		// for each sheet the workbook lists, the metadata sheet among them.
		var sheets []string
		for _, m := range sheetRe.FindAllStringSubmatch(parts["xl/workbook.xml"], -1) {
			sheets = append(sheets, m[1])
		}
		worksheets := 0
		for name := range parts {
			if strings.HasPrefix(name, "xl/worksheets/sheet") && strings.HasSuffix(name, ".xml") {
				worksheets++
			}
		}
		if !slices.Contains(sheets, "_annosheet") || !slices.Contains(sheets, "Annotate") || worksheets != len(sheets) {
			t.Errorf("%s: sheets %q, %d worksheet parts: not every sheet was read", b.File, sheets, worksheets)
		}
		// The cells' text is in the parts as written (not encoded out of
		// the search's sight): the opaque IDs, the context, the template
		// the metadata sheet carries.
		var all strings.Builder
		for _, body := range parts {
			all.WriteString(body)
		}
		for _, s := range []string{"item-000", "Previous context", "annosheet template: gaps between"} {
			if !strings.Contains(all.String(), s) {
				t.Errorf("%s: no part holds %q: the search does not see the cells", b.File, s)
			}
		}

		// The ID column and the hidden units show the study's opaque IDs:
		// through the key, the batch's units in the manifest's order.
		w, err := goldtest.OpenWorkbook(path)
		if err != nil {
			t.Fatal(err)
		}
		var shown, listed []string
		for _, u := range w.Units {
			if !regexp.MustCompile(`^item-\d{4}$`).MatchString(u) {
				t.Errorf("%s: unit %q is no opaque ID", b.File, u)
			}
			shown = append(shown, m.OpaqueIDs[u])
		}
		for _, u := range b.Units {
			listed = append(listed, u.ID)
		}
		if diff := cmp.Diff(listed, shown); diff != "" {
			t.Errorf("%s: its units through the key (-manifest +workbook):\n%s", b.File, diff)
		}
		w.F.Close()
	}

	// Through the manifest, pull gives every record its real IDs.
	code, out, errs := runCLI(t, "pull", dir)
	if code != 0 || strings.Contains(errs, "opaque") {
		t.Fatalf("pull: exit %d: %s", code, errs)
	}
	pulled := readRecords(t, out)
	if len(pulled) != 10 {
		t.Errorf("%d records, want 5 instances × 2 annotators", len(pulled))
	}
	for _, r := range pulled {
		if !slices.ContainsFunc(recs, func(l goldtest.LegalRecord) bool { return l.ID == r.Unit && l.ID == r.Item }) || r.OpaqueIDs {
			t.Errorf("record of unit %s, item %s (opaque %v): not a real ID", r.Unit, r.Item, r.OpaqueIDs)
		}
	}
}

// TestOpaqueIDsPulledAlone: a workbook pulled alone keeps its opaque IDs
// and says, once, where the real ones are; export gives the real IDs back
// with the study's manifest, and without it refuses, saying why.
func TestOpaqueIDsPulledAlone(t *testing.T) {
	t.Parallel()
	dir, book := legalStudy(t)
	out := filepath.Join(t.TempDir(), "alone.jsonl")
	code, _, errs := runCLI(t, "pull", book, "--out", out)
	if code != 0 || strings.Count(errs, "the workbook shows opaque IDs") != 1 || !strings.Contains(errs, "the real IDs are in the study's manifest") {
		t.Fatalf("pull alone: exit %d: %s", code, errs)
	}
	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	shown := shownAs(t, dir)
	for i, r := range readRecords(t, read(t, out)) {
		if want := shown[recs[i].ID]; r.Unit != want || r.Item != want || !r.OpaqueIDs {
			t.Errorf("record %d: unit %s, item %s (opaque %v), want %s", i, r.Unit, r.Item, r.OpaqueIDs, want)
		}
	}
	code, _, errs = runCLI(t, "export", out, "--native", "--input", legalData)
	if code != exitFailure || !strings.Contains(errs, ":1: cannot export: unit "+shown[recs[0].ID]+" has the opaque ID its workbook shows") {
		t.Errorf("export without the manifest: exit %d: %s", code, errs)
	}
	// With the manifest: the same file as from records pulled through it.
	_, fromAlone, errs := runCLI(t, "export", out, "--native", "--manifest", filepath.Join(dir, "manifest.json"))
	_, fromStudy, _ := runCLI(t, "export", dir, "--native")
	if fromAlone == "" || fromAlone != fromStudy || strings.Contains(fromAlone, "item-") {
		t.Errorf("export with the manifest:\n%s\nwant\n%s\n%s", fromAlone, fromStudy, errs)
	}
}
