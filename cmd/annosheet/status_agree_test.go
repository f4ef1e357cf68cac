package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// TestStatusAgreement: status on a legal-gaps study shared out to ak and
// bt with overlap 2 adds nothing while no unit has both annotators'
// answers; once bt has done four of the five units, it prints the
// agreement so far after the counts (α MASI on the gaps, the share of
// identical notes), and --json gives the same under "agreement", checked
// against values the test computes itself.
func TestStatusAgreement(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", out, "--annotators", "ak,bt", "--overlap", "2", "--seed", "1"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	fill := func(who string, answers map[string][]string, notes map[string]string) {
		t.Helper()
		w, err := goldtest.OpenWorkbook(filepath.Join(out, "legal-gaps-"+who+"-b01.xlsx"))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range w.Units {
			id := realID(t, out, u)
			codes, ok := answers[id]
			if !ok {
				continue // not done yet
			}
			row := w.Rows[u][0]
			for _, code := range []string{"0", "1", "2", "3"} {
				if err := w.Set(row, "q:gaps="+code, slices.Contains(codes, code)); err != nil {
					t.Fatal(err)
				}
			}
			if n, ok := notes[id]; ok {
				if err := w.Set(row, "q:note", n); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Save(); err != nil {
			t.Fatal(err)
		}
	}
	ak := map[string][]string{"gpt4o-11": {"2", "3"}, "llama3-11": {"1"}, "gpt4o-12": {"0"}, "llama3-12": {"2"}, "gpt4o-13": {"1", "3"}}
	bt := map[string][]string{"gpt4o-11": {"2", "3"}, "llama3-11": {"1", "2"}, "gpt4o-12": {"0"}, "llama3-12": {"3"}}
	akNotes := map[string]string{"gpt4o-11": "Checked twice", "llama3-12": "see the target"}
	btNotes := map[string]string{"gpt4o-11": " checked TWICE", "llama3-12": "cites the wrong case"}

	// ak alone: no unit overlaps, and status says what it always said.
	fill("ak", ak, akNotes)
	code, stdout, stderr := runCLI(t, "status", out)
	if code != 0 || strings.Contains(stdout, "agreement") {
		t.Fatalf("status with ak's answers only: exit %d, an agreement section:\n%s%s", code, stdout, stderr)
	}
	if _, js, _ := runCLI(t, "status", out, "--json"); strings.Contains(js, `"agreement"`) {
		t.Errorf("status --json with ak's answers only has an agreement key:\n%s", js)
	}

	fill("bt", bt, btNotes)
	// α MASI written out pair by pair, over the units both did (gpt4o-13
	// has ak's value alone); the notes both wrote, compared trimmed and
	// case-folded.
	var units [][]any
	for _, u := range slices.Sorted(mapKeys(ak)) {
		unit := []any{ak[u]}
		if codes, ok := bt[u]; ok {
			unit = append(unit, codes)
		}
		units = append(units, unit)
	}
	alphaMASI := alpha(units, masi)
	same := 0
	for u, n := range akNotes {
		if strings.EqualFold(strings.TrimSpace(n), strings.TrimSpace(btNotes[u])) {
			same++
		}
	}
	notes := float64(same) / float64(len(akNotes))

	code, stdout, stderr = runCLI(t, "status", out)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, stderr)
	}
	counts, section, found := strings.Cut(stdout, "\nagreement so far")
	if !found || !strings.Contains(counts, "study") {
		t.Fatalf("no agreement section after the counts:\n%s", stdout)
	}
	for _, want := range []string{
		`^ \(4 units done by 2 or more annotators: ak, bt\)$`,
		fmt.Sprintf(`^  gaps +Krippendorff's α \(masi\) +%s +4 units pairable$`, regexp.QuoteMeta(fmt.Sprintf("%.3f", alphaMASI))),
		fmt.Sprintf(`^  note +percent agreement \(trim_casefold\) +%s +2 units pairable$`, regexp.QuoteMeta(fmt.Sprintf("%.3f", notes))),
	} {
		if !regexp.MustCompile(`(?m)` + want).MatchString(section) {
			t.Errorf("no line %s in the agreement section:\n%s", want, section)
		}
	}

	code, stdout, stderr = runCLI(t, "status", out, "--json")
	if code != 0 {
		t.Fatalf("status --json: exit %d: %s", code, stderr)
	}
	var rep study.Status
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Agreement) != 1 {
		t.Fatalf("agreement %+v, want one study's", rep.Agreement)
	}
	a := rep.Agreement[0]
	if a.Study != "" || a.Template.Name != "legal-gaps" || a.Overlap != 4 || !slices.Equal(a.Annotators, []string{"ak", "bt"}) || len(a.Questions) != 2 {
		t.Fatalf("agreement %+v", a)
	}
	for i, w := range []struct {
		name, metric, params string
		value                float64
		pairable             int
	}{
		{"gaps", "krippendorff_alpha", "map[distance:masi]", alphaMASI, 4},
		{"note", "percent_agreement", "map[normalize:trim_casefold]", notes, 2},
	} {
		q := a.Questions[i]
		v, ok := q.Value.(float64)
		if q.Name != w.name || q.Metric.Metric != w.metric || fmt.Sprint(q.Params) != w.params || !ok || math.Abs(v-w.value) > 1e-12 ||
			q.PairableUnits != w.pairable || !slices.Equal(q.Annotators, []string{"ak", "bt"}) {
			t.Errorf("question %d: %s %s %v = %v, %d units pairable, annotators %v; want %s %s %s = %v, %d units pairable",
				i, q.Name, q.Metric.Metric, q.Params, q.Value, q.PairableUnits, q.Annotators, w.name, w.metric, w.params, w.value, w.pairable)
		}
	}
}
