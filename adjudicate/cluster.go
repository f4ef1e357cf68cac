package adjudicate

import (
	"cmp"
	"slices"

	"github.com/annosheet/annosheet/records"
)

// clusterOf is one cluster of a unit's spans with every annotator's part
// of it.
type clusterOf struct {
	cluster Cluster
	answers []Answer
}

// clusters groups the spans of a unit's records (one per annotator) by
// overlap: spans of one field that share a character are in one cluster,
// and so is any span that overlaps a span of it. Answer rows without a
// span in the text (missing information, or a span not found) cluster by
// their label. Every cluster has an answer for every record, with no
// spans for an annotator who marked nothing there.
func clusters(recs []*records.Annotation) []clusterOf {
	type placed struct {
		rec, rank int
		span      records.SpanAnswer
	}
	var at []placed                // spans in the text
	loose := map[string][]placed{} // the others, by label
	var codes []string
	for i, r := range recs {
		for k, s := range r.Spans {
			if s.Field != "" && s.Start != nil && s.End != nil {
				at = append(at, placed{i, k, s})
				continue
			}
			if _, ok := loose[s.Code]; !ok {
				codes = append(codes, s.Code)
			}
			loose[s.Code] = append(loose[s.Code], placed{i, k, s})
		}
	}
	slices.SortStableFunc(at, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.span.Field, b.span.Field), cmp.Compare(*a.span.Start, *b.span.Start), cmp.Compare(*a.span.End, *b.span.End))
	})
	var out []clusterOf
	add := func(c Cluster, members []placed) {
		co := clusterOf{cluster: c, answers: make([]Answer, len(recs))}
		for i, r := range recs {
			co.answers[i].Annotator = r.Annotator
		}
		for _, m := range members {
			a := &co.answers[m.rec]
			a.Spans, a.Order = append(a.Spans, m.span), append(a.Order, m.rank)
		}
		out = append(out, co)
	}
	for i := 0; i < len(at); {
		c := Cluster{Field: at[i].span.Field, Start: *at[i].span.Start, End: *at[i].span.End}
		j := i + 1
		for ; j < len(at) && at[j].span.Field == c.Field && overlaps(*at[j].span.Start, *at[j].span.End, c.Start, c.End); j++ {
			c.End = max(c.End, *at[j].span.End)
		}
		add(c, at[i:j])
		i = j
	}
	slices.Sort(codes)
	for _, code := range codes {
		add(Cluster{Start: -1, End: -1, Code: code}, loose[code])
	}
	return out
}

// overlaps reports whether span [s, e) shares a character with the
// cluster [cs, ce) that starts no later; an empty span counts where it
// stands.
func overlaps(s, e, cs, ce int) bool {
	return s < ce || s == cs && e == s
}
