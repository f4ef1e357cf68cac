package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/mapping"
)

// pulled is one workbook as read.
type pulled struct {
	name string
	p    *mapping.Pulled
}

// answered says whether a record holds any answer.
func answered(r *mapping.Annotation) bool {
	return r.Status == mapping.StatusComplete || r.Status == mapping.StatusPartial
}

// sameAnswers says whether two records give the same answers.
func sameAnswers(a, b *mapping.Annotation) bool {
	type answers struct {
		Status   string
		Values   map[string]any
		Spans    []mapping.SpanAnswer
		Shuffled bool
	}
	ja, errA := json.Marshal(answers{a.Status, a.Values, a.Spans, a.Shuffled})
	jb, errB := json.Marshal(answers{b.Status, b.Values, b.Spans, b.Shuffled})
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// mergeCopies gives the records of one batch read from one or more
// workbooks: the original and the copies annotators returned, or the
// copies of a shared workbook that each annotator filled in part.
//
// Records are matched by unit and annotator. Of each, the copy that holds
// answers is kept; copies that answer the same unit alike are one; copies
// that answer it differently are an error, since pull cannot tell which
// is current. A unit that nobody claimed in one copy of a shared workbook
// but someone claimed in another (even if its row is gone there) is that
// someone's. Problems of copies
// whose records were not kept are dropped with them; problems of whole
// workbooks stay.
func mergeCopies(books []*pulled) ([]*mapping.Annotation, mapping.Problems, error) {
	if len(books) == 1 {
		return books[0].p.Records, books[0].p.Problems, nil
	}
	type version struct {
		book int
		rec  *mapping.Annotation
	}
	type key struct{ unit, annotator string }
	var (
		order    []key
		versions = map[key][]version{}
		claimed  = map[string]bool{} // units someone has claimed
	)
	for i, b := range books {
		for _, r := range b.p.Records {
			k := key{r.Unit, r.Annotator}
			if versions[k] == nil {
				order = append(order, k)
			}
			versions[k] = append(versions[k], version{i, r})
			if r.Annotator != "" {
				claimed[r.Unit] = true
			}
		}
	}
	// Records in the workbook's unit order (every copy has the units the
	// batch was made with), and by first appearance within a unit.
	pos := map[string]int{}
	for _, b := range books {
		for _, u := range b.p.Units {
			if _, ok := pos[u.ID]; !ok {
				pos[u.ID] = len(pos)
			}
		}
	}
	slices.SortStableFunc(order, func(a, b key) int { return pos[a.unit] - pos[b.unit] })
	type bookUnit struct {
		book int
		unit string
	}
	kept := map[bookUnit]bool{}
	var recs []*mapping.Annotation
	var conflicts []string
	for _, k := range order {
		vs := versions[k]
		if k.annotator == "" && claimed[k.unit] && !slices.ContainsFunc(vs, func(v version) bool { return answered(v.rec) }) {
			continue // unclaimed here, claimed in another copy
		}
		var pick *version
		for i := range vs {
			v := &vs[i]
			switch {
			case pick == nil:
				pick = v
			case answered(v.rec) && !answered(pick.rec):
				pick = v
			case answered(v.rec) && !sameAnswers(v.rec, pick.rec):
				conflicts = append(conflicts, fmt.Sprintf("%s and %s answer unit %q%s differently", books[pick.book].name, books[v.book].name, k.unit, by(k.annotator)))
			case !answered(pick.rec) && pick.rec.Status == mapping.StatusMissing && v.rec.Status == mapping.StatusEmpty:
				pick = v // there, if blank, beats deleted
			}
		}
		kept[bookUnit{pick.book, k.unit}] = true
		recs = append(recs, pick.rec)
	}
	if len(conflicts) > 0 {
		more := ""
		if len(conflicts) > 3 {
			more = fmt.Sprintf(" (and %d more)", len(conflicts)-3)
			conflicts = conflicts[:3]
		}
		return nil, nil, fmt.Errorf("batch %s is in %d workbooks whose answers differ: %s%s; keep only the current copy of the batch among the sources, then pull again",
			books[0].p.Meta.Batch, len(books), strings.Join(conflicts, "; "), more)
	}
	var probs mapping.Problems
	for i, b := range books {
		for _, p := range b.p.Problems {
			if p.Record == "" || kept[bookUnit{i, p.Record}] {
				probs = append(probs, p)
			}
		}
		if i > 0 {
			probs = append(probs, &mapping.Problem{Severity: mapping.Warning, File: b.name,
				Message: fmt.Sprintf("another copy of batch %s (so is %s): their answers are merged, unit by unit", b.p.Meta.Batch, books[0].name)})
		}
	}
	return recs, probs, nil
}

// by is " by ANNOTATOR", or nothing for no annotator.
func by(annotator string) string {
	if annotator == "" {
		return ""
	}
	return " by " + annotator
}
