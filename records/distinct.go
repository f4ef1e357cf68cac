package records

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// ErrConflict is wrapped by the error of two records of one unit by one
// annotator that differ: which of them holds the answers, no reader can
// tell.
var ErrConflict = errors.New("conflicting records")

// Duplicate is a record given more than once, the same each time (a
// pulled file concatenated with itself, say). It is kept once: the copies
// lose nothing, but they are named so that the file can be put right.
type Duplicate struct {
	Unit, Annotator string
	// Where names every copy in the order given ("both.jsonl:1",
	// "both.jsonl:6"); the first is the one kept.
	Where []string
}

// String is the warning that names the copies, starting with where they
// are.
func (d Duplicate) String() string {
	times := "twice"
	if n := len(d.Where); n > 2 {
		times = strconv.Itoa(n) + " times"
	}
	where := strings.Join(d.Where[:len(d.Where)-1], ", ") + " and " + d.Where[len(d.Where)-1]
	whose := fmt.Sprintf("of annotator %q", d.Annotator)
	if d.Annotator == "" {
		whose = "(unclaimed)"
	}
	return fmt.Sprintf("%s: unit %s %s is recorded %s, identically; kept once", where, d.Unit, whose, times)
}

// Distinct checks records against each other before anything is selected
// from them, so that leaving some out cannot hide a contradiction: two
// records of one unit by one annotator (pulled twice, say) are an error
// when they differ (a control unit's, of one batch: shared workbooks
// may each have it), and a complete record must have answers. Identical
// copies are kept once (the first) and returned as duplicates. origins
// name the records in errors and duplicates.
func Distinct(recs []*Annotation, origins Origins) ([]*Annotation, []Duplicate, error) {
	type key struct {
		unit, annotator string
		// copies: nobody's unanswered unit, which may be in several
		// batches' copies that differ.
		copies bool
		// batch, for a control unit: shared workbooks may each have
		// it, and an annotator may answer it in more than one.
		batch string
	}
	kept := map[key][]*Annotation{}
	dupOf := map[*Annotation]int{} // kept record -> its entry in dups
	var dups []Duplicate
	out := make([]*Annotation, 0, len(recs))
	for _, r := range recs {
		if r.Status == StatusComplete && len(r.Values) == 0 && len(r.Spans) == 0 {
			return nil, nil, fmt.Errorf("%s: %w: unit %s is %q but has no values and no spans", origins.Name(r), ErrInvalid, r.Unit, r.Status)
		}
		k := key{unit: r.Unit, annotator: r.Annotator, copies: r.Annotator == "" && (r.Status == StatusEmpty || !InHand(r.Status))}
		if r.Control {
			k.batch = r.Batch
		}
		if i := slices.IndexFunc(kept[k], func(p *Annotation) bool { return reflect.DeepEqual(p, r) }); i >= 0 {
			first := kept[k][i]
			d, ok := dupOf[first]
			if !ok {
				d = len(dups)
				dupOf[first] = d
				dups = append(dups, Duplicate{Unit: r.Unit, Annotator: r.Annotator, Where: []string{origins.Name(first)}})
			}
			dups[d].Where = append(dups[d].Where, origins.Name(r))
			continue
		}
		if prev := kept[k]; len(prev) > 0 && !k.copies {
			return nil, nil, fmt.Errorf("%s and %s: %w: unit %s of annotator %q is recorded twice, differently; keep one of them", origins.Name(prev[0]), origins.Name(r), ErrConflict, r.Unit, r.Annotator)
		}
		kept[k] = append(kept[k], r)
		out = append(out, r)
	}
	return out, dups, nil
}

// ErrNotInStudy is wrapped by the error of a record whose opaque ID the
// study's key does not hold: it is another study's, or its workbook's
// metadata was edited.
var ErrNotInStudy = errors.New("not of this study")

// RestoreIDs gives records pulled without the study's manifest, which
// keep the opaque IDs their workbook showed ("opaque_ids": true), their
// real unit and instance IDs from the study's key (its manifest's
// opaque_ids), in place, so that every later step (copies compared,
// input records found, candidates unshuffled) sees one ID per unit. An
// ID the key lacks is an error naming the record by origins.
func RestoreIDs(recs []*Annotation, key map[string]string, origins Origins) error {
	for _, r := range recs {
		if !r.OpaqueIDs {
			continue
		}
		unit, ok1 := key[r.Unit]
		item, ok2 := key[r.Item]
		if !ok1 || !ok2 {
			return fmt.Errorf("%s: unit %s: %w: the study's key has no real ID for it", origins.Name(r), r.Unit, ErrNotInStudy)
		}
		r.Unit, r.Item, r.OpaqueIDs = unit, item, false
	}
	return nil
}
