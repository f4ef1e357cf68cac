package adjudicate

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/google/go-cmp/cmp"
)

// provOf is a provenance as "kind agreeing/annotators".
func provOf(p *records.Provenance) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%s %d/%d", p.Kind, p.Agreeing, p.Annotators)
}

// TestFind sorts the answers of each question into accepted ones and
// items to decide, by majority and ties, with and without
// --min-agreement, and leaves out the records that cannot be used.
func TestFind(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	v := func(verdict string) map[string]any { return map[string]any{"verdict": verdict, "tags": []string{"a"}} }
	r := func(unit, who string, vals map[string]any) *records.Annotation { return rec(tp, unit, who, vals) }
	with := func(a *records.Annotation, f func(a *records.Annotation)) *records.Annotation { f(a); return a }
	type item struct {
		Unit, Question string
		Suggested      int
		Answers        []string // annotator=value
	}
	type unit struct {
		Annotators []string
		Values     map[string]any
		Provenance map[string]string
	}
	cases := []struct {
		name  string
		min   int
		recs  []*records.Annotation
		units map[string]unit
		items []item
		left  int
	}{
		{
			name:  "unanimous is accepted without an item",
			recs:  []*records.Annotation{r("u1", "a", v("good")), r("u1", "b", v("good")), r("u1", "c", v("good"))},
			units: map[string]unit{"u1": {[]string{"a", "b", "c"}, v("good"), map[string]string{"verdict": "unanimous 3/3", "tags": "unanimous 3/3"}}},
		},
		{
			name:  "2 against 1 with every annotator required is an item suggesting the majority",
			recs:  []*records.Annotation{r("u1", "c", v("good")), r("u1", "a", v("bad")), r("u1", "b", v("good"))},
			units: map[string]unit{"u1": {[]string{"a", "b", "c"}, map[string]any{"tags": []string{"a"}}, map[string]string{"tags": "unanimous 3/3"}}},
			items: []item{{"u1", "verdict", 1, []string{`a="bad"`, `b="good"`, `c="good"`}}},
		},
		{
			name:  "a tie leaves no suggestion",
			recs:  []*records.Annotation{r("u1", "a", v("bad")), r("u1", "b", v("good"))},
			units: map[string]unit{"u1": {[]string{"a", "b"}, map[string]any{"tags": []string{"a"}}, map[string]string{"tags": "unanimous 2/2"}}},
			items: []item{{"u1", "verdict", -1, []string{`a="bad"`, `b="good"`}}},
		},
		{
			name:  "three different answers tie",
			recs:  []*records.Annotation{r("u1", "a", v("bad")), r("u1", "b", v("good")), r("u1", "c", v("meh"))},
			units: map[string]unit{"u1": {[]string{"a", "b", "c"}, map[string]any{"tags": []string{"a"}}, map[string]string{"tags": "unanimous 3/3"}}},
			items: []item{{"u1", "verdict", -1, []string{`a="bad"`, `b="good"`, `c="meh"`}}},
		},
		{
			name:  "min agreement 2 accepts 2 against 1 as a majority",
			min:   2,
			recs:  []*records.Annotation{r("u1", "a", v("bad")), r("u1", "b", v("good")), r("u1", "c", v("good"))},
			units: map[string]unit{"u1": {[]string{"a", "b", "c"}, v("good"), map[string]string{"verdict": "majority 2/3", "tags": "unanimous 3/3"}}},
		},
		{
			name:  "min agreement 2 with 2 against 2 is an item",
			min:   2,
			recs:  []*records.Annotation{r("u1", "a", v("bad")), r("u1", "b", v("good")), r("u1", "c", v("good")), r("u1", "d", v("bad"))},
			units: map[string]unit{"u1": {[]string{"a", "b", "c", "d"}, map[string]any{"tags": []string{"a"}}, map[string]string{"tags": "unanimous 4/4"}}},
			items: []item{{"u1", "verdict", -1, []string{`a="bad"`, `b="good"`, `c="good"`, `d="bad"`}}},
		},
		{
			name:  "min agreement 3 of 3 with 2 against 1 is an item",
			min:   3,
			recs:  []*records.Annotation{r("u1", "a", v("bad")), r("u1", "b", v("good")), r("u1", "c", v("good"))},
			units: map[string]unit{"u1": {[]string{"a", "b", "c"}, map[string]any{"tags": []string{"a"}}, map[string]string{"tags": "unanimous 3/3"}}},
			items: []item{{"u1", "verdict", 1, []string{`a="bad"`, `b="good"`, `c="good"`}}},
		},
		{
			name:  "a unit answered by one complete annotator is theirs",
			recs:  []*records.Annotation{r("u1", "b", v("meh")), with(r("u1", "a", v("bad")), func(a *records.Annotation) { a.Status = records.StatusPartial })},
			units: map[string]unit{"u1": {[]string{"b"}, v("meh"), map[string]string{"verdict": "unanimous 1/1", "tags": "unanimous 1/1"}}},
			left:  1,
		},
		{
			name:  "min agreement 2 on a unit one annotator completed leaves every question to decide",
			min:   2,
			recs:  []*records.Annotation{r("u1", "b", v("meh")), with(r("u1", "a", v("bad")), func(a *records.Annotation) { a.Status = records.StatusPartial })},
			units: map[string]unit{"u1": {[]string{"b"}, nil, map[string]string{}}},
			items: []item{{"u1", "verdict", 0, []string{`b="meh"`}}, {"u1", "tags", 0, []string{`b=["a"]`}}},
			left:  1,
		},
		{
			name: "a multi left blank on a complete record is the empty set",
			recs: []*records.Annotation{
				r("u1", "a", map[string]any{"verdict": "good"}), r("u1", "b", map[string]any{"verdict": "good", "tags": []string{}}),
				r("u2", "a", map[string]any{"verdict": "good"}), r("u2", "b", map[string]any{"verdict": "good", "tags": []string{"b"}}),
			},
			units: map[string]unit{
				"u1": {[]string{"a", "b"}, map[string]any{"verdict": "good", "tags": []string{}}, map[string]string{"verdict": "unanimous 2/2", "tags": "unanimous 2/2"}},
				"u2": {[]string{"a", "b"}, map[string]any{"verdict": "good"}, map[string]string{"verdict": "unanimous 2/2"}},
			},
			items: []item{{"u2", "tags", -1, []string{`a=[]`, `b=["b"]`}}},
		},
		{
			name:  "an optional question left blank by all has no value and no provenance",
			recs:  []*records.Annotation{r("u1", "a", map[string]any{"verdict": "good", "tags": []string{}}), r("u1", "b", map[string]any{"verdict": "good", "tags": []string{}})},
			units: map[string]unit{"u1": {[]string{"a", "b"}, map[string]any{"verdict": "good", "tags": []string{}}, map[string]string{"verdict": "unanimous 2/2", "tags": "unanimous 2/2"}}},
		},
		{
			name: "an optional question left blank by one is an item",
			recs: []*records.Annotation{r("u1", "a", v("good")), with(r("u1", "b", v("good")), func(a *records.Annotation) { a.Values["score"] = 4 })},
			units: map[string]unit{"u1": {[]string{"a", "b"}, v("good"),
				map[string]string{"verdict": "unanimous 2/2", "tags": "unanimous 2/2"}}},
			items: []item{{"u1", "score", -1, []string{`a=null`, `b=4`}}},
		},
		{
			name: "partial, empty, unnamed and gold records are left out",
			recs: []*records.Annotation{
				r("u1", "a", v("good")),
				with(r("u1", "b", v("bad")), func(a *records.Annotation) { a.Status = records.StatusPartial }),
				with(r("u1", "c", nil), func(a *records.Annotation) { a.Status = records.StatusEmpty }),
				with(r("u1", "d", nil), func(a *records.Annotation) { a.Status = records.StatusMissing }),
				r("u1", "", v("bad")),
				r("u1", records.GoldAnnotator, v("bad")),
				with(r("u2", "b", v("bad")), func(a *records.Annotation) { a.Status = records.StatusPartial }),
			},
			units: map[string]unit{"u1": {[]string{"a"}, v("good"), map[string]string{"verdict": "unanimous 1/1", "tags": "unanimous 1/1"}}},
			left:  6,
		},
		{
			name: "free text written by one annotator and not another is carried, not decided",
			recs: []*records.Annotation{with(r("u1", "a", v("good")), func(a *records.Annotation) { a.Values["remark"] = "see the second citation" }), r("u1", "b", v("good"))},
			units: map[string]unit{"u1": {[]string{"a", "b"}, v("good"),
				map[string]string{"verdict": "unanimous 2/2", "tags": "unanimous 2/2", "remark": "carried 0/2"}}},
		},
		{
			name: "free text written alike by all is accepted",
			recs: []*records.Annotation{with(r("u1", "a", v("good")), func(a *records.Annotation) { a.Values["remark"] = "odd" }), with(r("u1", "b", v("good")), func(a *records.Annotation) { a.Values["remark"] = "odd" })},
			units: map[string]unit{"u1": {[]string{"a", "b"}, map[string]any{"verdict": "good", "tags": []string{"a"}, "remark": "odd"},
				map[string]string{"verdict": "unanimous 2/2", "tags": "unanimous 2/2", "remark": "unanimous 2/2"}}},
		},
		{
			name: "free text is carried even where min agreement would take a majority",
			min:  2,
			recs: []*records.Annotation{
				with(r("u1", "a", v("good")), func(a *records.Annotation) { a.Values["remark"] = "x" }),
				with(r("u1", "b", v("good")), func(a *records.Annotation) { a.Values["remark"] = "x" }),
				with(r("u1", "c", v("good")), func(a *records.Annotation) { a.Values["remark"] = "y" }),
			},
			units: map[string]unit{"u1": {[]string{"a", "b", "c"}, v("good"),
				map[string]string{"verdict": "unanimous 3/3", "tags": "unanimous 3/3", "remark": "carried 0/3"}}},
		},
		{
			name:  "a record repeated as it was is read once",
			recs:  []*records.Annotation{r("u1", "a", v("good")), r("u1", "b", v("good")), r("u1", "a", v("good"))},
			units: map[string]unit{"u1": {[]string{"a", "b"}, v("good"), map[string]string{"verdict": "unanimous 2/2", "tags": "unanimous 2/2"}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := find(t, tp, Options{MinAgreement: c.min}, c.recs...)
			units := map[string]unit{}
			for _, u := range f.Units {
				prov := map[string]string{}
				for q, p := range u.Provenance {
					prov[q] = provOf(p)
				}
				units[u.Unit] = unit{u.Annotators, u.Values, prov}
			}
			if diff := cmp.Diff(c.units, units); diff != "" {
				t.Errorf("accepted (-want +got):\n%s", diff)
			}
			var items []item
			for _, it := range f.Items {
				if it.Kind != KindValue || it.Cluster != nil {
					t.Errorf("item %s/%s: kind %s, cluster %v", it.Unit, it.Question, it.Kind, it.Cluster)
				}
				var answers []string
				for _, a := range it.Answers {
					answers = append(answers, a.Annotator+"="+key(a.Value))
				}
				items = append(items, item{it.Unit, it.Question, it.Suggested, answers})
			}
			if diff := cmp.Diff(c.items, items); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if f.Left != c.left {
				t.Errorf("Left = %d, want %d", f.Left, c.left)
			}
		})
	}
}

// TestFindRefuses stops at records that cannot be adjudicated: another
// template's, candidates still shuffled, two different records of one
// annotator's unit.
func TestFindRefuses(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	good := func(who string) *records.Annotation { return rec(tp, "u1", who, map[string]any{"verdict": "good"}) }
	cases := []struct {
		name string
		bad  *records.Annotation
	}{
		{"another template", func() *records.Annotation { a := good("b"); a.Template.Name = "other"; return a }()},
		{"another version", func() *records.Annotation { a := good("b"); a.Template.Version = 2; return a }()},
		{"another template, even partial", func() *records.Annotation {
			a := good("b")
			a.Template.Name, a.Status = "other", records.StatusPartial
			return a
		}()},
		{"shuffled", func() *records.Annotation { a := good("b"); a.Shuffled = true; return a }()},
		{"two records of one annotator differ in a value", rec(tp, "u1", "a", map[string]any{"verdict": "bad"})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Find(tp, []*records.Annotation{good("a"), c.bad}, Options{})
			if !errors.Is(err, ErrAdjudicate) {
				t.Errorf("err = %v, want ErrAdjudicate", err)
			}
		})
	}
	t.Run("two records of one annotator differ in their spans", func(t *testing.T) {
		t.Parallel()
		bt := loadTemplate(t, blockTemplate)
		_, err := Find(bt, []*records.Annotation{rec(bt, "u1", "a", nil, sp(0, 3, "bad")), rec(bt, "u1", "a", nil, sp(0, 3, "odd"))}, Options{})
		if !errors.Is(err, ErrAdjudicate) {
			t.Errorf("err = %v, want ErrAdjudicate", err)
		}
	})
}

// TestFindSpans decides span clusters as values are decided: a cluster
// every annotator marked alike is accepted, each span with its
// provenance; one they differ on is an item, suggesting the majority's
// version (no span at all being one).
func TestFindSpans(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, blockTemplate)
	done := map[string]any{"done": true}
	cases := []struct {
		name     string
		min      int
		a, b, c  []records.SpanAnswer
		accepted []string // "start-end code provenance"
		items    []string // "where suggested"
	}{
		{
			name:     "all alike",
			a:        []records.SpanAnswer{sp(0, 3, "bad"), missing("odd")},
			b:        []records.SpanAnswer{missing("odd"), sp(0, 3, "bad")},
			c:        []records.SpanAnswer{sp(0, 3, "bad"), missing("odd")},
			accepted: []string{"0-3 bad unanimous 3/3", "- odd unanimous 3/3"},
		},
		{
			name:  "a span two marked and one did not",
			a:     []records.SpanAnswer{sp(0, 3, "bad")},
			b:     []records.SpanAnswer{sp(0, 3, "bad")},
			items: []string{"text 0-3 suggests 0"},
		},
		{
			name:     "a span two marked and one did not, with min agreement 2",
			min:      2,
			a:        []records.SpanAnswer{sp(0, 3, "bad")},
			b:        []records.SpanAnswer{sp(0, 3, "bad")},
			accepted: []string{"0-3 bad majority 2/3"},
		},
		{
			name:     "a span one marked, with min agreement 2, is dropped",
			min:      2,
			c:        []records.SpanAnswer{sp(0, 3, "bad")},
			accepted: nil,
		},
		{
			name:  "three versions tie",
			a:     []records.SpanAnswer{sp(0, 3, "bad")},
			b:     []records.SpanAnswer{sp(0, 7, "bad")},
			c:     []records.SpanAnswer{sp(0, 3, "odd")},
			items: []string{"text 0-7 suggests -1"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := find(t, tp, Options{MinAgreement: c.min}, rec(tp, "u1", "a", done, c.a...), rec(tp, "u1", "b", done, c.b...), rec(tp, "u1", "c", done, c.c...))
			var accepted []string
			for _, s := range f.Units[0].Spans {
				accepted = append(accepted, spansOf([]records.SpanAnswer{s})[0]+" "+provOf(s.Provenance))
				if s.Row != 0 {
					t.Errorf("an accepted span keeps row %d", s.Row)
				}
			}
			if diff := cmp.Diff(c.accepted, accepted); diff != "" {
				t.Errorf("accepted spans (-want +got):\n%s", diff)
			}
			var items []string
			for _, it := range f.Items {
				if it.Kind != KindSpans || it.Question != "errors" || len(it.Answers) != 3 {
					t.Errorf("item %+v", it)
				}
				items = append(items, fmt.Sprintf("%s %d-%d suggests %d", it.Cluster.Field, it.Cluster.Start, it.Cluster.End, it.Suggested))
			}
			if diff := cmp.Diff(c.items, items); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if got := provOf(f.Units[0].Provenance["done"]); got != "unanimous 3/3" {
				t.Errorf("done: %s", got)
			}
			if _, ok := f.Units[0].Provenance["kind"]; ok {
				t.Errorf("a question of the answer rows has a provenance of its own")
			}
		})
	}
}

// TestFindAdjudicateKey: the template's adjudicate key decides which
// questions become items where annotators differ: free text when it says
// true, and no other type when it says false; a question carried keeps
// each annotator's answer, in the order of their IDs, and the gold record
// is complete without a value for it.
func TestFindAdjudicateKey(t *testing.T) {
	t.Parallel()
	src := strings.Replace(strings.Replace(recordTemplate,
		"{name: remark, header: Remark, type: text}", "{name: remark, header: Remark, type: text, adjudicate: true}", 1),
		"{name: score, header: Score, type: scale, min: 1, max: 5}", "{name: score, header: Score, type: scale, min: 1, max: 5, adjudicate: false}", 1)
	tp := loadTemplate(t, src)
	vals := func(score int, remark string) map[string]any {
		return map[string]any{"verdict": "good", "tags": []string{"a"}, "score": score, "remark": remark}
	}
	f := find(t, tp, Options{}, rec(tp, "u1", "b", vals(4, "fine")), rec(tp, "u1", "a", vals(2, "not fine")))
	var items []string
	for _, it := range f.Items {
		items = append(items, it.Question)
	}
	if diff := cmp.Diff([]string{"remark"}, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	want := &records.Provenance{Kind: records.ProvenanceCarried, Annotators: 2, Answers: []records.CarriedAnswer{{Annotator: "a", Value: 2}, {Annotator: "b", Value: 4}}}
	if diff := cmp.Diff(want, f.Units[0].Provenance["score"]); diff != "" {
		t.Errorf("the score's provenance (-want +got):\n%s", diff)
	}
	gold, _ := Gold(tp, f.Units, number(f.Items), map[string]*Decision{}, GoldOptions{Resolve: ResolveMajority})
	if g := gold[0]; g.Values["score"] != nil || g.Provenance["score"].Kind != records.ProvenanceCarried {
		t.Errorf("the gold record's score: %v, %+v", g.Values["score"], g.Provenance["score"])
	}

	// Required and carried: nothing is left to decide, but the gold
	// record lacks a required value, and says so by its status.
	req := loadTemplate(t, strings.Replace(recordTemplate, "{name: remark, header: Remark, type: text}", "{name: remark, header: Remark, type: text, required: true}", 1))
	f = find(t, req, Options{}, rec(req, "u1", "a", vals(4, "fine")), rec(req, "u1", "b", vals(4, "odd")))
	gold, _ = Gold(req, f.Units, number(f.Items), map[string]*Decision{}, GoldOptions{})
	if g := gold[0]; len(f.Items) != 0 || g.Status != records.StatusPartial {
		t.Errorf("a required free text that differs: %d items, gold %s", len(f.Items), g.Status)
	}
}

// TestFoundAccepted counts the answers accepted without a decision by
// how they were accepted: unanimous, or by a majority of --min-agreement;
// answers left to decide are not counted.
func TestFoundAccepted(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	v := func(verdict string) map[string]any { return map[string]any{"verdict": verdict, "tags": []string{"a"}} }
	recs := []*records.Annotation{
		rec(tp, "u1", "a", v("bad")), rec(tp, "u1", "b", v("good")), rec(tp, "u1", "c", v("good")),
		rec(tp, "u2", "a", v("good")), rec(tp, "u2", "b", v("good")), rec(tp, "u2", "c", v("good")),
	}
	for _, c := range []struct{ min, unanimous, majority int }{
		{0, 3, 0}, // u1's verdict is an item; its tags and all of u2 are unanimous
		{2, 3, 1},
	} {
		f, err := Find(tp, recs, Options{MinAgreement: c.min})
		if err != nil {
			t.Fatal(err)
		}
		if u, m := f.Accepted(); u != c.unanimous || m != c.majority {
			t.Errorf("min %d: %d unanimous, %d majority; want %d, %d", c.min, u, m, c.unanimous, c.majority)
		}
	}
}
