package study

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
)

// copyOf is one workbook of a batch as read: the original, or a copy an
// annotator returned.
type copyOf struct {
	Path   string // as the user gave it
	Pulled *decode.Pulled
}

// Conflict is a unit that two copies of a batch answer differently.
type Conflict struct {
	Batch string `json:"batch"`
	Unit  string `json:"unit"`
	// Shown is the ID the workbooks show for the unit where that is not
	// Unit (an opaque ID).
	Shown     string `json:"shown,omitempty"`
	Annotator string `json:"annotator"`
	// Files are the two copies, as the user gave them; Answers what each
	// says, as JSON.
	Files   [2]string `json:"files"`
	Answers [2]string `json:"answers"`
}

// Error says which copies disagree, on which unit, and how.
func (c Conflict) Error() string {
	return fmt.Sprintf("%s and %s answer unit %s%s differently: %s vs %s", c.Files[0], c.Files[1], records.UnitName(c.Unit, c.Shown), by(c.Annotator), c.Answers[0], c.Answers[1])
}

// merged is what merge makes of the copies of one batch.
type merged struct {
	Records   []*records.Annotation
	Problems  records.Problems
	Conflicts []Conflict
}

// answered says whether a record holds any answer.
func answered(r *records.Annotation) bool {
	return r.Status == records.StatusComplete || r.Status == records.StatusPartial
}

// answers is what two copies must agree on, as JSON.
func answers(r *records.Annotation) string {
	b, err := json.Marshal(struct {
		Status   string               `json:"status"`
		Values   map[string]any       `json:"values"`
		Spans    []records.SpanAnswer `json:"spans,omitempty"`
		Shuffled bool                 `json:"shuffled,omitempty"`
	}{r.Status, r.Values, spansWithoutRows(r.Spans), r.Shuffled})
	if err != nil {
		return fmt.Sprintf("%v", r.Values)
	}
	return string(b)
}

// spansWithoutRows drops where each span's row is now: two copies whose
// rows were moved around still say the same.
func spansWithoutRows(spans []records.SpanAnswer) []records.SpanAnswer {
	out := slices.Clone(spans)
	for i := range out {
		out[i].Row = 0
	}
	return out
}

// merge gives the records of one batch read from one or more workbooks:
// the original and the copies annotators returned, or the copies of a
// shared workbook that each annotator filled in part.
//
// Records are matched by unit and annotator (compared without case or
// surrounding spaces). Of each, the copy that holds answers is kept;
// copies that answer the same unit alike are one; copies that answer it
// differently are a conflict, since nobody can tell which is current: the
// first copy's record is kept with an error, and the conflict is listed.
// A unit that nobody claimed in one copy of a shared workbook but someone
// claimed in another (even if its row is gone there) is that someone's.
// Problems of copies whose records were not kept are dropped with them;
// problems of whole workbooks stay.
func merge(books []*copyOf) merged {
	if len(books) == 1 {
		return merged{Records: books[0].Pulled.Records, Problems: books[0].Pulled.Problems}
	}
	type version struct {
		book int
		rec  *records.Annotation
	}
	type key struct{ unit, annotator string }
	var (
		order    []key
		versions = map[key][]version{}
		claimed  = map[string]bool{} // units someone has claimed
	)
	for i, b := range books {
		for _, r := range b.Pulled.Records {
			k := key{r.Unit, foldID(r.Annotator)}
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
		for _, u := range b.Pulled.Units {
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
	var out merged
	for _, k := range order {
		vs := versions[k]
		if k.annotator == "" && claimed[k.unit] && !slices.ContainsFunc(vs, func(v version) bool { return answered(v.rec) }) {
			continue // unclaimed here, claimed in another copy
		}
		var pick *version
		var clash []Conflict
		for i := range vs {
			v := &vs[i]
			switch {
			case pick == nil:
				pick = v
			case answered(v.rec) && !answered(pick.rec):
				pick = v
			case answered(v.rec) && answers(v.rec) != answers(pick.rec):
				clash = append(clash, Conflict{Batch: books[0].Pulled.Meta.Batch, Unit: k.unit, Shown: books[0].Pulled.ShownAs(k.unit), Annotator: pick.rec.Annotator,
					Files:   [2]string{books[pick.book].Path, books[v.book].Path},
					Answers: [2]string{answers(pick.rec), answers(v.rec)}})
			case !answered(pick.rec) && pick.rec.Status == records.StatusMissing && v.rec.Status == records.StatusEmpty:
				pick = v // there, if blank, beats deleted
			}
		}
		kept[bookUnit{pick.book, k.unit}] = true
		rec := pick.rec
		if len(clash) > 0 {
			c := *rec
			c.Problems = slices.Clone(rec.Problems)
			for _, cf := range clash {
				c.Problems = append(c.Problems, records.UnitProblem{Severity: records.Error, Message: cf.Error()})
				out.Problems = append(out.Problems, &records.Problem{Severity: records.Error, File: cf.Files[1], Record: k.unit, Shown: cf.Shown, Err: ErrConflict, Message: cf.Error()})
			}
			if c.Status == records.StatusComplete {
				c.Status = records.StatusPartial
			}
			rec = &c
			out.Conflicts = append(out.Conflicts, clash...)
		}
		out.Records = append(out.Records, rec)
	}
	for i, b := range books {
		for _, p := range b.Pulled.Problems {
			if p.Record == "" || kept[bookUnit{i, p.Record}] {
				out.Problems = append(out.Problems, p)
			}
		}
		if i > 0 {
			out.Problems = append(out.Problems, &records.Problem{Severity: records.Warning, File: b.Path,
				Message: fmt.Sprintf("another copy of batch %s (so is %s): their answers are merged, unit by unit", b.Pulled.Meta.Batch, books[0].Path)})
		}
	}
	return out
}

// foldID is an annotator ID as IDs are compared: without case or
// surrounding spaces.
func foldID(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

// by is " by ANNOTATOR", or nothing for no annotator.
func by(annotator string) string {
	if annotator == "" {
		return ""
	}
	return " by " + annotator
}
