package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/testkit/testreaders"
)

// ArtifactsEnv names a folder where tests keep what a person should look
// at (pictures of workbooks); without it they go to a temporary folder.
const ArtifactsEnv = "ANNOSHEET_ARTIFACTS"

// TestPictures renders a workbook of each built-in template, and of the
// MQM template written as YAML only, the way an annotator first sees it:
// LibreOffice prints every sheet to PDF, and each page becomes a PNG. The
// pictures are kept for review by eye (under $ANNOSHEET_ARTIFACTS/pictures
// when set); the test checks that every sheet printed.
func TestPictures(t *testing.T) {
	t.Parallel()
	soffice := testreaders.Soffice(t)
	pdftoppm := testreaders.Pdftoppm(t)
	keep := os.Getenv(ArtifactsEnv)
	for _, c := range []struct{ name, template, input string }{
		{"legal-gaps", "legal-gaps", legalData},
		{"preference-likert", "preference-likert", prefData},
		{"qa-span-errors", "qa-span-errors", qaData},
		{"factgenie-meta-eval", "factgenie-meta-eval", fgData},
		{"mqm-translation", "../../testdata/templates/mqm.yaml", "../../testdata/data/mqm/segments.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if code, _, errs := runCLI(t, "generate", "-t", c.template, "-i", c.input, "-o", dir); code != 0 {
				t.Fatalf("generate: exit %d: %s", code, errs)
			}
			books, _ := filepath.Glob(filepath.Join(dir, "*.xlsx"))
			if len(books) == 0 {
				t.Fatal("no workbook")
			}
			out := filepath.Join(dir, "pictures")
			if keep != "" {
				out = filepath.Join(keep, "pictures", c.name)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			testreaders.Convert(t, soffice, "pdf", out, books[0])
			pdf := filepath.Join(out, strings.TrimSuffix(filepath.Base(books[0]), ".xlsx")+".pdf")
			if b, err := exec.Command(pdftoppm, "-png", "-r", "60", pdf, filepath.Join(out, "page")).CombinedOutput(); err != nil {
				t.Fatalf("pdftoppm: %v\n%s", err, b)
			}
			pages, _ := filepath.Glob(filepath.Join(out, "page*.png"))
			// The Instructions and the Annotate sheet print at least a
			// page each; the hidden sheets do not print.
			if len(pages) < 2 {
				t.Errorf("%d pages printed; want the Instructions and the Annotate sheet at least", len(pages))
			}
			for _, p := range pages {
				if st, err := os.Stat(p); err != nil || st.Size() < 1000 {
					t.Errorf("%s: an empty picture (%v)", p, err)
				}
			}
			t.Logf("%d pictures of %s in %s", len(pages), filepath.Base(books[0]), out)
		})
	}
}
