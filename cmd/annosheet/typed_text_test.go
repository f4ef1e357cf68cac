package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/internal/safetext"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// TestTypedTextShown: what an annotator typed is shown, in the terminal
// and in the report, as a bounded quote with every character that would
// act (a terminal escape, a direction override) escaped: a page pasted
// into a checkbox cell gives one short line, and an annotator ID that
// reverses the text around it reads as it is.
func TestTypedTextShown(t *testing.T) {
	t.Parallel()
	dir, book := legalStudy(t)
	w, err := goldtest.OpenWorkbook(book)
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Repeat("a pasted page of text ", 500)
	row := w.Rows[shownAs(t, dir)["gpt4o-12"]][0] // on row 4
	w.Set(row, "q:gaps=0", page)
	w.Set(row, "annotator", "\u202eKA")
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "pull", dir, "--out", filepath.Join(t.TempDir(), "a.jsonl"))
	if code != 0 {
		t.Fatalf("pull: exit %d: %s", code, stderr)
	}
	if strings.ContainsFunc(stderr, safetext.Acts) {
		t.Errorf("stderr holds a character that acts: %q", stderr)
	}
	want := `Annotate!B4: "` + page[:80] + `…" (11000 characters) is not a checkbox value`
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr does not quote the cell's beginning, escaped:\n%s\nwant %s", stderr, want)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if len(line) > 600 {
			t.Errorf("a line of %d bytes: %.200s…", len(line), line)
		}
	}
	// The status table shows the annotator's ID, escaped.
	code, status, errs := runCLI(t, "status", dir)
	if code != 0 || strings.ContainsFunc(status, safetext.Acts) || !strings.Contains(status, `\u202eKA`) {
		t.Errorf("status: exit %d, the ID not shown as its escape:\n%s%s", code, status, errs)
	}
	out := filepath.Join(t.TempDir(), "report.html")
	if code, _, errs := runCLI(t, "report", dir, "--out", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsFunc(string(html), safetext.Acts) || !strings.Contains(string(html), `\u202eKA`) {
		t.Errorf("the report shows the annotator ID as it would act, not as its escape")
	}
	if strings.Count(string(html), "a pasted page of text") > 20 {
		t.Errorf("the report quotes the pasted page %d times over", strings.Count(string(html), "a pasted page of text"))
	}
}
