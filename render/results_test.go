package render

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/results"
)

func ptr(s string) *string { return &s }

// hostileReport has groups and options whose text a spreadsheet would
// take for a formula and LaTeX for commands.
func hostileReport() *results.Report {
	return &results.Report{Schema: results.Schema, Template: results.Template{Name: "my_scheme", Version: 2}, Basis: results.BasisAnnotators,
		Params: results.Params{Level: 0.9, Resamples: 10, Permutations: 10, Seed: 1},
		Questions: []results.Question{{Question: "q_1", Type: "choice", By: "model&co", Paired: false,
			Estimates: []results.Estimate{
				{Group: ptr("=HYPERLINK(\"x\")"), Statistic: "share", Option: ptr("50% #1 {a} ~b^c \\d $e"), Value: 0.25, Units: 4, CI: &[2]float64{0.1, 0.4}},
				{Group: ptr("+b"), Statistic: "share", Option: ptr("50% #1 {a} ~b^c \\d $e"), Value: 0.5, Units: 1, Note: "no interval: fewer than two units"},
			},
			Comparisons: []results.Comparison{{A: "=HYPERLINK(\"x\")", B: "+b", Statistic: "share", Option: ptr("50% #1 {a} ~b^c \\d $e"), Difference: -0.25, P: 0.0004, PHolm: 0.0008}},
			LeftOut:     results.LeftOut{Partial: 1, Unpaired: 2}}}}
}

// TestResultsCSVSafe: no field of the CSV starts as a formula; values
// keep every digit.
func TestResultsCSVSafe(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := ResultsCSV(&b, hostileReport()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want a header, 2 estimates and 1 comparison", len(rows))
	}
	for _, row := range rows {
		for _, f := range row {
			if f != "" && strings.ContainsRune("=+-@\t\r", rune(f[0])) && !strings.HasPrefix(f, "-0.") {
				t.Errorf("field %q starts as a formula", f)
			}
		}
	}
	if rows[1][7] != `'=HYPERLINK("x")` || rows[1][10] != "0.25" || rows[3][14] != "0.0004" || rows[2][16] == "" {
		t.Errorf("rows %q", rows)
	}
}

// TestResultsLaTeX: every character LaTeX gives a meaning to prints as
// itself; the tables are booktabs'.
func TestResultsLaTeX(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := ResultsLaTeX(&b, hostileReport()); err != nil {
		t.Fatal(err)
	}
	tex := b.String()
	for _, want := range []string{
		`\caption{q\_1 (choice), by model\&co}`,
		`50\% \#1 \{a\} \textasciitilde{}b\textasciicircum{}c \textbackslash{}d \$e`,
		`=HYPERLINK("x") & 0.250 & [0.100, 0.400] & 4`,
		`\toprule`, `\midrule`, `\bottomrule`, `90\% CI`, `\textless{}0.001`,
	} {
		if !strings.Contains(tex, want) {
			t.Errorf("no %q in\n%s", want, tex)
		}
	}
	// Outside the escapes, no special character is left bare in a cell.
	for _, line := range strings.Split(tex, "\n") {
		if !strings.HasSuffix(line, `\\`) || strings.HasPrefix(line, "Statistic") {
			continue
		}
		stripped := strings.NewReplacer(`\&`, "", `\%`, "", `\$`, "", `\#`, "", `\_`, "", `\{`, "", `\}`, "", `\textasciitilde{}`, "", `\textasciicircum{}`, "", `\textbackslash{}`, "", `\textless{}`, "", `\textgreater{}`, "", `$-$`, "", `\\`, "", " & ", "").Replace(line)
		if strings.ContainsAny(stripped, `&%$#_{}~^\`) {
			t.Errorf("a bare special character in %q (%q)", line, stripped)
		}
	}
}

// TestResultsText: a question's table, its comparisons and what was left
// out, for a person.
func TestResultsText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := ResultsText(&b, hostileReport()); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"90% intervals from 10 resamples", "q_1 (choice), by model&co", "[0.100, 0.400]", "no interval: fewer than two units", "<0.001", "left out: 1 partial record, 2 unpaired items"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
}
