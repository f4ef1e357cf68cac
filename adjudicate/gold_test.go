package adjudicate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// fill is a cell an adjudicator filled: the row of a decision ID on a
// sheet, under a header.
type fill struct{ sheet, id, header, text string }

// goldOf is a gold record's values and provenance as texts: "value kind
// agreeing/annotators", then the adjudicated's reason, note and cell.
func goldOf(r *records.Annotation) map[string]string {
	out := map[string]string{}
	for q, p := range r.Provenance {
		s := provOf(p)
		if v, ok := r.Values[q]; ok {
			s = key(v) + " " + s
		}
		if p.Kind == records.ProvenanceAdjudicated {
			s += fmt.Sprintf(" by %s (%s; %s)", p.Adjudicator, p.Reason, p.Note)
		}
		if p.Decision != "" {
			s += " " + p.Decision
		}
		if p.Cell != "" {
			s += " " + p.Cell
		}
		out[q] = s
	}
	for q, v := range r.Values {
		if _, ok := r.Provenance[q]; !ok {
			out[q] = key(v) + " without provenance"
		}
	}
	return out
}

// goldRun fills an adjudication workbook, reads it and makes the gold.
func goldRun(t *testing.T, tp *templates.Template, f *Found, fills []fill, resolve string) ([]*records.Annotation, records.Problems, records.Problems) {
	t.Helper()
	m, rd := book(t, tp, f)
	for _, c := range fills {
		m.setText(t, c.sheet, c.id, c.header, c.text)
	}
	decided, readProbs := read(t, m, rd)
	recs, probs := Gold(tp, f.Units, f.Items, decided, GoldOptions{Resolve: resolve, Adjudicator: func(*Item) string { return "lead" }})
	return recs, readProbs, probs
}

// TestGoldValues makes gold values from decisions: Final before Or use,
// Or use by suggestion or annotator, a tie or an empty row unresolved
// with a problem naming its cell, and --resolve majority.
func TestGoldValues(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	recs := func() []*records.Annotation {
		return []*records.Annotation{
			// d0001 verdict (suggests good), d0002 tags (a tie), d0003
			// fine (suggests no answer); score is unanimous.
			rec(tp, "u1", "a", map[string]any{"verdict": "bad", "tags": []string{"a"}, "fine": true, "score": 3}),
			rec(tp, "u1", "b", map[string]any{"verdict": "good", "tags": []string{}, "score": 3}),
			rec(tp, "u1", "c", map[string]any{"verdict": "good", "tags": []string{"b"}, "score": 3}),
			// d0004 verdict, a tie of two.
			rec(tp, "u2", "a", map[string]any{"verdict": "bad", "tags": []string{}}),
			rec(tp, "u2", "b", map[string]any{"verdict": "good", "tags": []string{}}),
		}
	}
	const fine = "It's fine!"
	score := `3 unanimous 3/3`
	tags := `[] unanimous 2/2`
	cases := []struct {
		name    string
		resolve string
		fills   []fill
		u1, u2  map[string]string
		status  [2]string
		probs   []string // "severity sheet!cell unit" of Gold's problems
	}{
		{
			name: "Final wins over Or use",
			fills: []fill{
				{"Verdict", "d0001", "Final", "Meh"}, {"Verdict", "d0001", "Or use", "Annotator 1"}, {"Verdict", "d0001", "Reason", "other"}, {"Verdict", "d0001", "Note", "neither"},
				{"Tags", "d0002", "Final: Tags: Beta", "TRUE"}, {"Tags", "d0002", "Final: Tags: Alpha", "TRUE"}, {"Tags", "d0002", "Or use", "Annotator 3"},
				{fine, "d0003", "Final", "TRUE"},
				{"Verdict", "d0004", "Final", "Good"},
			},
			u1: map[string]string{
				"verdict": `"meh" adjudicated 0/3 by lead (other; neither) d0001 Verdict!G2`,
				"tags":    `["a","b"] adjudicated 0/3 by lead (; ) d0002 Tags!G2`,
				"fine":    `true adjudicated 1/3 by lead (; ) d0003 'It''s fine!'!G2`,
				"score":   score,
			},
			u2:     map[string]string{"verdict": `"good" adjudicated 1/2 by lead (; ) d0004 Verdict!G3`, "tags": tags},
			status: [2]string{records.StatusComplete, records.StatusComplete},
		},
		{
			name: "Or use takes the suggestion or an annotator's answer",
			fills: []fill{
				{"Verdict", "d0001", "Or use", "suggested"}, {"Verdict", "d0001", "Reason", "annotator error"},
				{"Tags", "d0002", "Or use", "Annotator 3"},
				{fine, "d0003", "Or use", "Annotator 1"},
				{"Verdict", "d0004", "Or use", "annotator 1"},
			},
			u1: map[string]string{
				"verdict": `"good" adjudicated 2/3 by lead (annotator error; ) d0001 Verdict!H2`,
				"tags":    `["b"] adjudicated 1/3 by lead (; ) d0002 Tags!I2`,
				"fine":    `true adjudicated 1/3 by lead (; ) d0003 'It''s fine!'!H2`,
				"score":   score,
			},
			u2:     map[string]string{"verdict": `"bad" adjudicated 1/2 by lead (; ) d0004 Verdict!H3`, "tags": tags},
			status: [2]string{records.StatusComplete, records.StatusComplete},
		},
		{
			name: "a multi with a reason and no tick is the empty set; an optional answer adjudicated to none",
			fills: []fill{
				{"Verdict", "d0001", "Or use", "Annotator 2"},
				{"Tags", "d0002", "Reason", "both acceptable"},
				{fine, "d0003", "Or use", "suggested"},
				{"Verdict", "d0004", "Final", "Bad"},
			},
			u1: map[string]string{
				"verdict": `"good" adjudicated 2/3 by lead (; ) d0001 Verdict!H2`,
				"tags":    `[] adjudicated 1/3 by lead (both acceptable; ) d0002 Tags!G2`,
				"fine":    `adjudicated 2/3 by lead (; ) d0003 'It''s fine!'!H2`,
				"score":   score,
			},
			u2:     map[string]string{"verdict": `"bad" adjudicated 1/2 by lead (; ) d0004 Verdict!G3`, "tags": tags},
			status: [2]string{records.StatusComplete, records.StatusComplete},
		},
		{
			name:  "empty rows and suggested on a tie are unresolved",
			fills: []fill{{"Verdict", "d0004", "Or use", "suggested"}},
			u1: map[string]string{
				"verdict": `unresolved 0/3 d0001 Verdict!G2`,
				"tags":    `unresolved 0/3 d0002 Tags!G2`,
				"fine":    `unresolved 0/3 d0003 'It''s fine!'!G2`,
				"score":   score,
			},
			u2:     map[string]string{"verdict": `unresolved 0/2 d0004 Verdict!G3`, "tags": tags},
			status: [2]string{records.StatusPartial, records.StatusPartial},
			probs:  []string{"warning Verdict!G2 u1", "warning Tags!G2 u1", "warning It's fine!!G2 u1", "warning Verdict!G3 u2"},
		},
		{
			name:    "resolve majority takes the suggestions and leaves ties",
			resolve: ResolveMajority,
			fills:   []fill{{"Verdict", "d0004", "Final", "Meh"}},
			u1: map[string]string{
				"verdict": `"good" majority 2/3 d0001`,
				"tags":    `unresolved 0/3 d0002 Tags!G2`,
				"fine":    `majority 2/3 d0003`,
				"score":   score,
			},
			u2:     map[string]string{"verdict": `"meh" adjudicated 0/2 by lead (; ) d0004 Verdict!G3`, "tags": tags},
			status: [2]string{records.StatusPartial, records.StatusComplete},
			probs:  []string{"warning Tags!G2 u1"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			gold, readProbs, probs := goldRun(t, tp, find(t, tp, Options{}, recs()...), c.fills, c.resolve)
			if len(readProbs) > 0 {
				t.Errorf("reading: %q", problemsOf(readProbs))
			}
			if len(gold) != 2 {
				t.Fatalf("%d gold records, want 2", len(gold))
			}
			for k, want := range []map[string]string{c.u1, c.u2} {
				g := gold[k]
				if g.Annotator != records.GoldAnnotator || g.Unit != fmt.Sprint("u", k+1) || g.Status != c.status[k] {
					t.Errorf("record %d: %s by %s, %s; want u%d by gold, %s", k, g.Unit, g.Annotator, g.Status, k+1, c.status[k])
				}
				if diff := cmp.Diff(want, goldOf(g)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", g.Unit, diff)
				}
			}
			var where []string
			for _, p := range probs {
				where = append(where, fmt.Sprintf("%s %s!%s %s", p.Severity, p.Sheet, p.Cell, p.Record))
				if !strings.Contains(p.Message, "is unresolved") {
					t.Errorf("problem %q", p.Message)
				}
			}
			if diff := cmp.Diff(c.probs, where); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGoldNothingDecided makes gold from the accepted answers alone when
// no workbook was read: items stay unresolved, each with a problem in its
// record, and a unit with every required answer accepted is complete.
func TestGoldNothingDecided(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	f := find(t, tp, Options{},
		rec(tp, "u1", "a", map[string]any{"verdict": "bad"}), rec(tp, "u1", "b", map[string]any{"verdict": "good"}),
		rec(tp, "u2", "a", map[string]any{"verdict": "good"}), rec(tp, "u2", "b", map[string]any{"verdict": "good"}),
	)
	number(f.Items)
	gold, probs := Gold(tp, f.Units, f.Items, nil, GoldOptions{})
	if len(probs) != 0 {
		t.Errorf("problems %q", problemsOf(probs))
	}
	if gold[0].Status != records.StatusPartial || len(gold[0].Problems) != 1 || !strings.Contains(gold[0].Problems[0].Message, "nobody decided it") {
		t.Errorf("u1: %s, %+v", gold[0].Status, gold[0].Problems)
	}
	if gold[1].Status != records.StatusComplete || len(gold[1].Problems) != 0 {
		t.Errorf("u2: %s, %+v", gold[1].Status, gold[1].Problems)
	}
	want := map[string]string{"verdict": `"good" unanimous 2/2`, "tags": `[] unanimous 2/2`}
	if diff := cmp.Diff(want, goldOf(gold[1])); diff != "" {
		t.Errorf("u2 (-want +got):\n%s", diff)
	}
}

// TestGoldSpans makes gold spans from decisions on clusters: keep, drop,
// edit (the text found in the field, the occurrence in or nearest the
// cluster), an annotator's version, a Final type that retypes; every span
// with its provenance and the record's spans in order.
func TestGoldSpans(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, blockTemplate)
	done := map[string]any{"done": true}
	// "one two three one four": d0001 0-7 (a: one, b: one two, c:
	// nothing; suggests a's, a tie), d0002 8-13 "three" (a, b: odd;
	// c: bad), d0003 18-22 "four" (c only), d0004 missing bad (b only);
	// 14-17 "one" is accepted.
	found := func(t *testing.T) *Found {
		return find(t, tp, Options{},
			rec(tp, "u1", "a", done, sp(0, 3, "bad"), sp(8, 13, "odd"), sp(14, 17, "odd")),
			rec(tp, "u1", "b", done, sp(0, 7, "bad"), sp(8, 13, "odd"), sp(14, 17, "odd"), missing("bad")),
			rec(tp, "u1", "c", done, sp(8, 13, "bad"), sp(14, 17, "odd"), sp(18, 22, "bad")),
		)
	}
	const s = "Spans"
	accepted := "14-17 odd unanimous 3/3"
	cases := []struct {
		name   string
		fills  []fill
		spans  []string // "start-end code provenance decision cell"
		status string
		probs  []string
	}{
		{
			name: "keep, an annotator's, drop",
			fills: []fill{
				{s, "d0001", "Decision", "Annotator 2"}, {s, "d0001", "Reason", "guideline unclear"},
				{s, "d0002", "Decision", "keep"},
				{s, "d0003", "Decision", "drop"},
				{s, "d0004", "Decision", "annotator 2"},
			},
			// In the order the annotators wrote them: b's missing
			// information came last.
			spans:  []string{"0-7 bad adjudicated 1/3 d0001 Spans!H2", "8-13 odd adjudicated 2/3 d0002 Spans!H3", accepted, "- bad adjudicated 1/3 d0004 Spans!H5"},
			status: records.StatusComplete,
		},
		{
			name: "a Final type retypes what is kept, and alone the suggestion",
			fills: []fill{
				{s, "d0001", "Decision", "Annotator 1"}, {s, "d0001", "Final type", "Odd"},
				{s, "d0002", "Final type", "Bad"},
				{s, "d0003", "Decision", "Annotator 3"},
				{s, "d0004", "Decision", "drop"},
			},
			spans:  []string{"0-3 odd adjudicated 0/3 d0001 Spans!H2", "8-13 bad adjudicated 1/3 d0002 Spans!H3", accepted, "18-22 bad adjudicated 1/3 d0003 Spans!H4"},
			status: records.StatusComplete,
		},
		{
			name: "edit finds the text in or nearest its cluster",
			fills: []fill{
				{s, "d0001", "Decision", "edit"}, {s, "d0001", "Final span", "one"},
				{s, "d0002", "Decision", "edit"}, {s, "d0002", "Final span", " one "}, {s, "d0002", "Final type", "Bad"},
				{s, "d0003", "Decision", "edit"}, {s, "d0003", "Final span", "two three"},
				{s, "d0004", "Decision", "edit"}, {s, "d0004", "Final type", "Odd"},
			},
			// An edited span takes the earliest place any annotator
			// wrote a span of its cluster in (d0002's: c's first; d0003's:
			// c's third), then its place in the text.
			spans:  []string{"0-3 bad adjudicated 1/3 d0001 Spans!H2", "14-17 bad adjudicated 0/3 d0002 Spans!H3", "4-13 bad adjudicated 0/3 d0003 Spans!H4", accepted, "- odd adjudicated 0/3 d0004 Spans!H5"},
			status: records.StatusComplete,
		},
		{
			name: "edit with a text not in the field, or without a text, and keep on a tie are unresolved",
			fills: []fill{
				{s, "d0001", "Decision", "keep"},
				{s, "d0002", "Decision", "edit"}, {s, "d0002", "Final span", "five"},
				{s, "d0003", "Decision", "edit"},
				{s, "d0004", "Decision", "keep"},
			},
			spans:  []string{accepted},
			status: records.StatusPartial,
			probs:  []string{"warning Spans!H2 u1", "error Spans!J3 u1", "warning Spans!H4 u1"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			gold, readProbs, probs := goldRun(t, tp, found(t), c.fills, "")
			if len(readProbs) > 0 {
				t.Errorf("reading: %q", problemsOf(readProbs))
			}
			g := gold[0]
			var spans []string
			for _, sa := range g.Spans {
				x := spansOf([]records.SpanAnswer{sa})[0] + " " + provOf(sa.Provenance)
				if p := sa.Provenance; p.Decision != "" {
					x += " " + p.Decision + " " + p.Cell
				}
				if sa.Row != 0 || sa.Start != nil && sa.Text != decode.Substring(blockText, *sa.Start, *sa.End) || sa.Label != label(sa.Code) {
					t.Errorf("span %+v", sa)
				}
				spans = append(spans, x)
			}
			if diff := cmp.Diff(c.spans, spans); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
			if g.Status != c.status {
				t.Errorf("status %s, want %s", g.Status, c.status)
			}
			var where []string
			for _, p := range probs {
				where = append(where, fmt.Sprintf("%s %s!%s %s", p.Severity, p.Sheet, p.Cell, p.Record))
			}
			if diff := cmp.Diff(c.probs, where); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%q", diff, problemsOf(probs))
			}
		})
	}
}

// TestGoldTwice makes the gold twice from the same decisions: the same
// records and problems, as Gold changes none of what it is given.
func TestGoldTwice(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, blockTemplate)
	done := map[string]any{"done": true}
	f := find(t, tp, Options{}, rec(tp, "u1", "a", done, sp(0, 3, "bad")), rec(tp, "u1", "b", done, sp(0, 7, "bad")))
	m, rd := book(t, tp, f)
	m.setText(t, "Spans", "d0001", "Decision", "edit")
	m.setText(t, "Spans", "d0001", "Final span", "five")
	decided, _ := read(t, m, rd)
	first, p1 := Gold(tp, f.Units, f.Items, decided, GoldOptions{})
	second, p2 := Gold(tp, f.Units, f.Items, decided, GoldOptions{})
	if diff := cmp.Diff(problemsOf(p1), problemsOf(p2)); diff != "" || len(p1) != 1 {
		t.Errorf("problems of the first run %q; of the second (-first +second):\n%s", problemsOf(p1), diff)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("records (-first +second):\n%s", diff)
	}
}

// TestGoldRowCells checks the cells an adjudication sheet is made with:
// the columns the tests above name.
func TestGoldRowCells(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, blockTemplate)
	f := find(t, tp, Options{}, rec(tp, "u1", "a", map[string]any{"done": true}, sp(0, 3, "bad")), rec(tp, "u1", "b", map[string]any{"done": true}))
	m, _ := book(t, tp, f)
	var headers []string
	for _, c := range m.sheets["Spans"][0] {
		headers = append(headers, c.Value)
	}
	want := []string{"Decision ID", "ID", "Where", "Annotator 1", "Annotator 2", "Suggested", "Decision", "Final type", "Final span", "Reason", "Note"}
	if diff := cmp.Diff(want, headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}
