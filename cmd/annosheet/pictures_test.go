package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// ArtifactsEnv names a folder where tests keep what a person should look
// at (pictures of workbooks); without it they go to a temporary folder.
const ArtifactsEnv = "ANNOSHEET_ARTIFACTS"

// TestPictures renders a workbook of each built-in template, and of the
// MQM template written as YAML only, and workbooks prefilled with a
// model's answers (in the cells, and as suggestions beside them) and
// with a control unit among the others, the way an annotator first sees
// it:
// LibreOffice prints every sheet to PDF, and each page becomes a PNG. The
// pictures are kept for review by eye (under $ANNOSHEET_ARTIFACTS/pictures
// when set); the test checks that every sheet printed.
func TestPictures(t *testing.T) {
	t.Parallel()
	soffice := testreaders.Soffice(t)
	pdftoppm := testreaders.Pdftoppm(t)
	keep := os.Getenv(ArtifactsEnv)
	given := t.TempDir()
	// A model's labels for the legal sample (as answers), the QA sample's
	// own error spans (as suggestions), and known answers for controls.
	legalModel, qaModel, legalGold := filepath.Join(given, "legal.jsonl"), filepath.Join(given, "qa.jsonl"), filepath.Join(given, "gold.jsonl")
	writeRecords(t, legalModel, []records.Annotation{
		modelRecord("legal-gaps", "gpt4o-11", map[string]any{"gaps": []string{"2"}, "note": "the citations are grouped differently"}, nil),
		modelRecord("legal-gaps", "llama3-11", map[string]any{"gaps": []string{"1"}}, nil),
	})
	qa := qaFeedback(t)[0]
	var spans []records.SpanAnswer
	for k, e := range qa.Feedback.Errors {
		start, end := e.Start, e.End
		spans = append(spans, records.SpanAnswer{Question: "errors", Row: k + 1, Field: "prediction", Start: &start, End: &end, Text: string([]rune(qa.Prediction)[start:end]), Code: e.Type})
	}
	writeRecords(t, qaModel, []records.Annotation{modelRecord("qa-span-errors", "q0000", map[string]any{"checked": true}, spans)})
	writeRecords(t, legalGold, []records.Annotation{modelRecord("legal-gaps", "gpt4o-12", map[string]any{"gaps": []string{"2", "3"}}, nil)})
	for _, c := range []struct {
		name, template, input string
		args                  []string
	}{
		{"legal-gaps", "legal-gaps", legalData, nil},
		{"preference-likert", "preference-likert", prefData, nil},
		{"qa-span-errors", "qa-span-errors", qaData, nil},
		{"factgenie-meta-eval", "factgenie-meta-eval", fgData, nil},
		{"mqm-translation", "../../testdata/templates/mqm.yaml", "../../testdata/data/mqm/segments.jsonl", nil},
		{"legal-gaps-prefilled", "legal-gaps", legalData, []string{"--prefill", legalModel}},
		{"qa-span-errors-suggestions", "qa-span-errors", qaData, []string{"--prefill", qaModel, "--prefill-as", "suggestions"}},
		{"legal-gaps-controls", "legal-gaps", legalData, []string{"--annotators", "ak", "--controls", legalGold, "--controls-per-batch", "1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if code, _, errs := runCLI(t, append([]string{"generate", "-t", c.template, "-i", c.input, "-o", dir}, c.args...)...); code != 0 {
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
