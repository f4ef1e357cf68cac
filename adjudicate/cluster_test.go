package adjudicate

import (
	"fmt"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/google/go-cmp/cmp"
)

// spansOf is a span list as "start-end code" texts, "- code" for a row
// without a span, and "field:start-end code" for a field other than text.
func spansOf(spans []records.SpanAnswer) []string {
	out := []string{}
	for _, s := range spans {
		switch {
		case s.Start == nil:
			out = append(out, "- "+s.Code)
		case s.Field != "text":
			out = append(out, fmt.Sprintf("%s:%d-%d %s", s.Field, *s.Start, *s.End, s.Code))
		default:
			out = append(out, fmt.Sprintf("%d-%d %s", *s.Start, *s.End, s.Code))
		}
	}
	return out
}

// TestClusters groups the spans of a unit's records by overlap: spans that
// share a character, directly or through a chain, are one cluster; spans
// that only touch, or are of different fields, are not; rows without a
// span cluster by their label. Every cluster has an answer for every
// annotator, empty for one who marked nothing there.
func TestClusters(t *testing.T) {
	t.Parallel()
	other := func(start, end int, code string) records.SpanAnswer {
		s := sp(start, end, code)
		s.Field = "title"
		return s
	}
	type cl struct {
		Where   string
		Answers map[string][]string
	}
	cases := []struct {
		name string
		a, b []records.SpanAnswer
		want []cl
	}{
		{
			name: "disjoint",
			a:    []records.SpanAnswer{sp(0, 3, "bad"), sp(8, 13, "odd")},
			b:    []records.SpanAnswer{sp(4, 7, "bad")},
			want: []cl{
				{"text 0-3", map[string][]string{"a": {"0-3 bad"}, "b": {}}},
				{"text 4-7", map[string][]string{"a": {}, "b": {"4-7 bad"}}},
				{"text 8-13", map[string][]string{"a": {"8-13 odd"}, "b": {}}},
			},
		},
		{
			name: "a chain is one cluster though its ends do not overlap",
			a:    []records.SpanAnswer{sp(0, 5, "bad"), sp(8, 13, "bad")},
			b:    []records.SpanAnswer{sp(4, 9, "odd")},
			want: []cl{{"text 0-13", map[string][]string{"a": {"0-5 bad", "8-13 bad"}, "b": {"4-9 odd"}}}},
		},
		{
			name: "touching spans do not overlap",
			a:    []records.SpanAnswer{sp(0, 5, "bad")},
			b:    []records.SpanAnswer{sp(5, 9, "bad")},
			want: []cl{
				{"text 0-5", map[string][]string{"a": {"0-5 bad"}, "b": {}}},
				{"text 5-9", map[string][]string{"a": {}, "b": {"5-9 bad"}}},
			},
		},
		{
			name: "identical spans",
			a:    []records.SpanAnswer{sp(4, 7, "bad")},
			b:    []records.SpanAnswer{sp(4, 7, "odd")},
			want: []cl{{"text 4-7", map[string][]string{"a": {"4-7 bad"}, "b": {"4-7 odd"}}}},
		},
		{
			name: "a zero-length span inside another is in its cluster",
			a:    []records.SpanAnswer{sp(0, 7, "bad")},
			b:    []records.SpanAnswer{sp(3, 3, "bad")},
			want: []cl{{"text 0-7", map[string][]string{"a": {"0-7 bad"}, "b": {"3-3 bad"}}}},
		},
		{
			name: "zero-length spans at one place are one cluster",
			a:    []records.SpanAnswer{sp(3, 3, "bad")},
			b:    []records.SpanAnswer{sp(3, 3, "odd")},
			want: []cl{{"text 3-3", map[string][]string{"a": {"3-3 bad"}, "b": {"3-3 odd"}}}},
		},
		{
			name: "a zero-length span where another ends is not in it",
			a:    []records.SpanAnswer{sp(0, 3, "bad")},
			b:    []records.SpanAnswer{sp(3, 3, "bad")},
			want: []cl{
				{"text 0-3", map[string][]string{"a": {"0-3 bad"}, "b": {}}},
				{"text 3-3", map[string][]string{"a": {}, "b": {"3-3 bad"}}},
			},
		},
		{
			name: "spans of different fields never cluster",
			a:    []records.SpanAnswer{sp(0, 5, "bad")},
			b:    []records.SpanAnswer{other(0, 5, "bad")},
			want: []cl{
				{"text 0-5", map[string][]string{"a": {"0-5 bad"}, "b": {}}},
				{"title 0-5", map[string][]string{"a": {}, "b": {"title:0-5 bad"}}},
			},
		},
		{
			name: "rows without a span cluster by label, after the spans",
			a:    []records.SpanAnswer{missing("odd"), missing("bad"), sp(0, 3, "bad")},
			b:    []records.SpanAnswer{missing("odd")},
			want: []cl{
				{"text 0-3", map[string][]string{"a": {"0-3 bad"}, "b": {}}},
				{"bad", map[string][]string{"a": {"- bad"}, "b": {}}},
				{"odd", map[string][]string{"a": {"- odd"}, "b": {"- odd"}}},
			},
		},
		{
			name: "an annotator with two spans in one cluster",
			a:    []records.SpanAnswer{sp(8, 13, "odd"), sp(4, 7, "bad")},
			b:    []records.SpanAnswer{sp(4, 13, "bad")},
			want: []cl{{"text 4-13", map[string][]string{"a": {"4-7 bad", "8-13 odd"}, "b": {"4-13 bad"}}}},
		},
		{
			name: "nobody marked anything",
			want: nil,
		},
	}
	tp := loadTemplate(t, blockTemplate)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := clusters([]*records.Annotation{rec(tp, "u1", "a", nil, c.a...), rec(tp, "u1", "b", nil, c.b...)})
			var have []cl
			for _, co := range got {
				x := co.cluster
				where := fmt.Sprintf("%s %d-%d", x.Field, x.Start, x.End)
				if x.Start < 0 {
					where = x.Code
				}
				answers := map[string][]string{}
				for _, a := range co.answers {
					if _, dup := answers[a.Annotator]; dup {
						t.Errorf("%s: two answers of %s", where, a.Annotator)
					}
					answers[a.Annotator] = spansOf(a.Spans)
				}
				have = append(have, cl{where, answers})
			}
			if diff := cmp.Diff(c.want, have); diff != "" {
				t.Errorf("clusters (-want +got):\n%s", diff)
			}
		})
	}
}
