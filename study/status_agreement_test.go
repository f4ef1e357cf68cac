package study

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// verdictsTemplate is a tiny scheme: a choice and a free-text reason.
const verdictsTemplate = `name: verdicts
version: 1
title: Verdicts
summary: Say whether each claim holds, and why.
instructions: Read the claim; say whether it holds, and why.
input:
  format: jsonl
  id: "{id}"
rows:
  per: record
context:
  - name: claim
    header: Claim
    path: claim
questions:
  - name: holds
    header: Holds
    type: choice
    required: true
    options:
      - {code: "yes", label: "Yes"}
      - {code: "no", label: "No"}
      - {code: "unsure", label: "Unsure"}
  - name: why
    header: Why
    type: text
annotator:
  header: Annotator ID
  claim: row
`

// verdictsStudy generates a verdicts study of six claims, each for both
// ak and bt, into memory, and types in each annotator's answers: unit ->
// {holds, why} by annotator ("" leaves a cell blank).
func verdictsStudy(t *testing.T, answers map[string]map[string][2]string) *made {
	t.Helper()
	tp, err := templates.Load("verdicts.yaml", []byte(verdictsTemplate))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "claims.jsonl")
	var lines []string
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5", "c6"} {
		lines = append(lines, `{"id": "`+id+`", "claim": "claim `+id+`"}`)
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := input.Open(tp.Input.Format, []string{in})
	if err != nil {
		t.Fatal(err)
	}
	spool := input.NewSpool(src)
	t.Cleanup(func() { spool.Close() })
	w := &memWriter{}
	gen, err := Generate(context.Background(), GenerateOptions{Template: tp, Inputs: []string{in}, Dir: dir, Batch: "b01", Seed: 3, SeedSet: true,
		Annotators: []string{"ak", "bt"}, Overlap: 2, Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, spool, w)
	if err != nil {
		t.Fatal(err)
	}
	m := &made{dir: dir, gen: gen, w: w, files: &fakeFiles{}}
	for i, b := range gen.Manifest.Batches {
		m.files.serve(m.path(i), w, b)
		rows := w.books["verdicts-"+b.ID][backend.SheetAnnotate]
		head := rows[0]
		col := func(h string) int {
			i := slices.Index(head, h)
			if i < 0 {
				t.Fatalf("no column %s in %q", h, head)
			}
			return i
		}
		for _, row := range rows[1:] {
			a := answers[row[col("Unit")]][b.Annotator]
			row[col("Holds")], row[col("Why")] = a[0], a[1]
		}
	}
	return m
}

// alphaNominal is Krippendorff's α at the nominal level written out pair
// by pair, as the definition gives it: the values of units with two or
// more, each unit's ordered pairs weighted 1/(m-1), the expected
// disagreement over every ordered pair of values.
func alphaNominal(units [][]string) float64 {
	var all []string
	var do float64
	for _, u := range units {
		if len(u) < 2 {
			continue
		}
		for i := range u {
			for j := range u {
				if i != j && u[i] != u[j] {
					do += 1 / float64(len(u)-1)
				}
			}
		}
		all = append(all, u...)
	}
	n := float64(len(all))
	var de float64
	for i := range all {
		for j := range all {
			if i != j && all[i] != all[j] {
				de++
			}
		}
	}
	return 1 - (do/n)/(de/(n*(n-1)))
}

// statusOf pulls the sources of studies and counts them.
func statusOf(t *testing.T, studies ...*made) *Status {
	t.Helper()
	files := &fakeFiles{books: map[string]func() (*backend.Grid, func() error, error){}}
	var dirs []string
	for _, m := range studies {
		for k, v := range m.files.books {
			files.books[k] = v
		}
		dirs = append(dirs, m.dir)
	}
	src, err := Open(dirs, Backends{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pull(context.Background(), src, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := CountStatus(context.Background(), res)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestStatusAgreement: a study with overlap 2 reports each question's
// headline so far (α nominal for the choice, the share of identical
// texts for the reason), on the units both annotators completed, checked
// against values computed here; a study whose answers do not overlap yet
// reports none, and its JSON has no agreement key.
func TestStatusAgreement(t *testing.T) {
	t.Parallel()
	answers := map[string]map[string][2]string{
		"c1": {"ak": {"yes", "Clear"}, "bt": {"yes", " clear "}},
		"c2": {"ak": {"no", "off topic"}, "bt": {"no", "wrong"}},
		"c3": {"ak": {"yes", ""}, "bt": {"no", "unsupported"}},
		"c4": {"ak": {"unsure", "vague"}, "bt": {"unsure", "Vague"}},
		"c5": {"ak": {"no", ""}, "bt": {"yes", ""}},
		"c6": {"ak": {"yes", "fine"}}, // bt has not answered yet
	}
	t.Run("overlap 2", func(t *testing.T) {
		t.Parallel()
		rep := statusOf(t, verdictsStudy(t, answers))
		if len(rep.Agreement) != 1 {
			t.Fatalf("agreement %+v, want one study's", rep.Agreement)
		}
		a := rep.Agreement[0]
		if a.Study != "" || a.Template.Name != "verdicts" || a.Overlap != 5 || !slices.Equal(a.Annotators, []string{"ak", "bt"}) || a.Note != "" {
			t.Errorf("study %q, template %v, %d units overlap, annotators %v, note %q; want verdicts, 5, ak and bt, no note", a.Study, a.Template, a.Overlap, a.Annotators, a.Note)
		}
		// The units both completed: c1 to c5 (c6 is bt's to do).
		var holds [][]string
		same, texts := 0, 0
		for _, u := range []string{"c1", "c2", "c3", "c4", "c5"} {
			ak, bt := answers[u]["ak"], answers[u]["bt"]
			holds = append(holds, []string{ak[0], bt[0]})
			if ak[1] != "" && bt[1] != "" {
				texts++
				if strings.EqualFold(strings.TrimSpace(ak[1]), strings.TrimSpace(bt[1])) {
					same++
				}
			}
		}
		want := []struct {
			name, metric, param string
			value               float64
			pairable            int
		}{
			{"holds", "krippendorff_alpha", "nominal", alphaNominal(holds), 5},
			{"why", "percent_agreement", "trim_casefold", float64(same) / float64(texts), texts},
		}
		if len(a.Questions) != len(want) {
			t.Fatalf("questions %+v, want %d", a.Questions, len(want))
		}
		for i, w := range want {
			q := a.Questions[i]
			v, ok := q.Value.(float64)
			var param any
			for _, p := range q.Params {
				param = p
			}
			if q.Name != w.name || q.Metric.Metric != w.metric || param != w.param || len(q.Params) != 1 || !ok || math.Abs(v-w.value) > 1e-12 ||
				q.PairableUnits != w.pairable || !slices.Equal(q.Annotators, []string{"ak", "bt"}) {
				t.Errorf("question %d: %s %s %v = %v (%s), %d units pairable, annotators %v; want %s %s (%s) = %v, %d units pairable",
					i, q.Name, q.Metric.Metric, q.Params, q.Value, q.Note, q.PairableUnits, q.Annotators, w.name, w.metric, w.param, w.value, w.pairable)
			}
		}
		// The values written out: 3 of 5 verdicts the same; of 10 values
		// (4 yes, 4 no, 2 unsure), D_o = 4/10, D_e = 64/90.
		if got := alphaNominal(holds); math.Abs(got-(1-0.4/(64.0/90))) > 1e-12 {
			t.Errorf("α by hand %v", got)
		}
	})
	t.Run("no overlap yet", func(t *testing.T) {
		t.Parallel()
		akOnly := map[string]map[string][2]string{}
		for u, by := range answers {
			akOnly[u] = map[string][2]string{"ak": by["ak"]}
		}
		rep := statusOf(t, verdictsStudy(t, akOnly))
		if rep.Total.Complete != 6 || rep.Agreement != nil {
			t.Fatalf("%d complete, agreement %+v; want 6 and none", rep.Total.Complete, rep.Agreement)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"agreement"`) {
			t.Errorf("the JSON has an agreement key: %s", b)
		}
	})
	t.Run("two studies, one block each", func(t *testing.T) {
		t.Parallel()
		// The second study's annotators agree on every verdict: were the
		// studies' records mixed, ak and bt would each have two different
		// answers for a unit.
		agreed := map[string]map[string][2]string{}
		for u, by := range answers {
			agreed[u] = map[string][2]string{"ak": by["ak"], "bt": by["ak"]}
		}
		first, second := verdictsStudy(t, answers), verdictsStudy(t, agreed)
		rep := statusOf(t, first, second)
		if len(rep.Agreement) != 2 {
			t.Fatalf("agreement %+v, want one block per study", rep.Agreement)
		}
		for i, c := range []struct {
			m       *made
			overlap int
			alpha   float64
		}{{first, 5, 1 - 0.4/(64.0/90)}, {second, 6, 1}} {
			a := rep.Agreement[i]
			v, _ := a.Questions[0].Value.(float64)
			if a.Study != c.m.gen.Manifest.Study || a.Overlap != c.overlap || a.Note != "" || math.Abs(v-c.alpha) > 1e-12 {
				t.Errorf("block %d: study %q, %d units overlap, α %v, note %q; want %s, %d, %v", i, a.Study, a.Overlap, a.Questions[0].Value, a.Note, c.m.gen.Manifest.Study, c.overlap, c.alpha)
			}
		}
	})
}

// TestAgreementSoFarNotes: where the overlapping records cannot be
// compared, the study's agreement is a note that says why; records of
// another template are compared apart; units nobody else completed, and
// unclaimed ones, make no overlap.
func TestAgreementSoFarNotes(t *testing.T) {
	t.Parallel()
	tp, err := templates.Load("verdicts.yaml", []byte(verdictsTemplate))
	if err != nil {
		t.Fatal(err)
	}
	other := records.TemplateID{Name: "other", Version: 1}
	vrec := func(unit, annotator, status, holds string) *records.Annotation {
		r := arec(tp, unit, annotator, status, map[string]any{"holds": holds})
		r.Batch = "b01"
		return r
	}
	shuffled := vrec("u1", "bt", records.StatusComplete, "no")
	shuffled.Shuffled = true
	twice := vrec("u2", "ak", records.StatusComplete, "no")
	twice.Batch = "b02"
	otherRec := func(unit, annotator string) *records.Annotation {
		r := vrec(unit, annotator, records.StatusComplete, "yes")
		r.Template = other
		return r
	}
	known := map[templateKey]*templates.Template{{"s", records.TemplateID{Name: tp.Name, Version: tp.Version}}: tp}
	for _, c := range []struct {
		name      string
		recs      []*records.Annotation
		templates map[templateKey]*templates.Template
		want      []string // per block: template and note, or its first question's value
	}{
		{
			name: "no overlap: a unit each, a partial one, an unclaimed one",
			recs: []*records.Annotation{vrec("u1", "ak", records.StatusComplete, "yes"), vrec("u2", "bt", records.StatusComplete, "no"),
				vrec("u1", "bt", records.StatusPartial, "yes"), vrec("u2", "", records.StatusComplete, "no")},
			templates: known,
		},
		{
			name:      "the template is not known",
			recs:      []*records.Annotation{vrec("u1", "ak", records.StatusComplete, "yes"), vrec("u1", "bt", records.StatusComplete, "yes")},
			templates: map[templateKey]*templates.Template{},
			want:      []string{"verdicts: the template verdicts of these records is not known"},
		},
		{
			name:      "shuffled candidates not back in place",
			recs:      []*records.Annotation{vrec("u1", "ak", records.StatusComplete, "yes"), shuffled},
			templates: known,
			want:      []string{"verdicts: the answers are still on the candidates in the order shown; give the study's folder or manifest, which has the orders"},
		},
		{
			name: "two records of a unit by one annotator that differ",
			recs: []*records.Annotation{vrec("u1", "ak", records.StatusComplete, "yes"), vrec("u1", "bt", records.StatusComplete, "yes"),
				vrec("u2", "ak", records.StatusComplete, "yes"), twice},
			templates: known,
			want:      []string{"verdicts: unit u2 has two different records by ak; keep one (export says which lines)"},
		},
		{
			name: "another template's records apart",
			recs: []*records.Annotation{vrec("u1", "ak", records.StatusComplete, "yes"), otherRec("u1", "bt"),
				vrec("u2", "ak", records.StatusComplete, "yes"), vrec("u2", "bt", records.StatusComplete, "no"), otherRec("u2", "ak")},
			templates: known,
			want:      []string{"verdicts: holds 0"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res := &Result{Records: c.recs, studyOf: map[*records.Annotation]string{}, templateOf: c.templates}
			for _, r := range c.recs {
				res.studyOf[r] = "s"
			}
			var got []string
			so, err := agreementSoFar(context.Background(), res)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range so {
				s := a.Template.Name + ": " + a.Note
				if len(a.Questions) > 0 {
					s += fmt.Sprintf("%s %v", a.Questions[0].Name, a.Questions[0].Value)
				}
				got = append(got, s)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("agreement %q, want %q", got, c.want)
			}
		})
	}
}
