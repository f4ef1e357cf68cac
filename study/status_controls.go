package study

import (
	"fmt"
	"maps"
	"slices"

	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/records"
)

// ControlTally is how well one annotator answered the control units of a
// study (generate --controls), whose answers are known: over the records
// of control units they answered that pull scored (records.Annotation's
// ControlScore).
type ControlTally struct {
	// Units counts the control units with a scored record.
	Units int `json:"units"`
	// Score is their mean score, from 0 to 1, each record's score being
	// the mean of its questions' scores (and a unit's, the mean of its
	// records', when shared workbooks had it more than once): every
	// control unit weighs the same, however many questions it has.
	Score float64 `json:"score"`
}

// ControlAccuracy is each annotator's accuracy on the control units of
// recs, by annotator: the records marked Control that have a score (those
// answered, complete or partial, pulled through the study's manifest).
// Records of no annotator (the unclaimed units of a shared workbook) are
// left out. The IDs of an annotator typed in different cases count as
// one, named as their first record names them. It is nil when no record
// is a scored control.
func ControlAccuracy(recs []*records.Annotation) map[string]*ControlTally {
	return controlAccuracy(recs, nil, wholeScore)
}

// ControlAccuracyByQuestion is ControlAccuracy question by question, by
// question name then annotator: over the annotator's scored control
// records that score the question, how many there are and their mean
// score on it. A block's spans score under the name of the block's spans
// (templates.Template's Rows.Spans), as pull scores them.
func ControlAccuracyByQuestion(recs []*records.Annotation) map[string]map[string]*ControlTally {
	// Each annotator is named as ControlAccuracy names them, whichever
	// of their records scores the question first.
	questions := map[string]bool{}
	first := map[string]string{}
	for _, r := range recs {
		if !r.Control || len(r.ControlScore) == 0 || r.Annotator == "" {
			continue
		}
		if _, ok := first[foldID(r.Annotator)]; !ok {
			first[foldID(r.Annotator)] = r.Annotator
		}
		for q := range r.ControlScore {
			questions[q] = true
		}
	}
	if len(questions) == 0 {
		return nil
	}
	name := func(id string) string { return first[foldID(id)] }
	out := make(map[string]map[string]*ControlTally, len(questions))
	for q := range questions {
		out[q] = controlAccuracy(recs, name, func(scores map[string]float64) (float64, bool) {
			s, ok := scores[q]
			return s, ok
		})
	}
	return out
}

// controlAccuracy is ControlAccuracy with each record's score given by
// score (not counted when it reports false), and each annotator named by
// name (given their first record's ID), or as their first record names
// them when name is nil or gives "".
func controlAccuracy(recs []*records.Annotation, name func(string) string, score func(map[string]float64) (float64, bool)) map[string]*ControlTally {
	// A control unit met in several shared workbooks is one unit, its
	// score the mean of its records'.
	type unitSum struct {
		total float64
		n     int
	}
	type sum struct {
		name  string
		order []string // the units, as first met
		units map[string]*unitSum
	}
	var order []string
	sums := map[string]*sum{}
	for _, r := range recs {
		if !r.Control || len(r.ControlScore) == 0 || r.Annotator == "" {
			continue
		}
		x, ok := score(r.ControlScore)
		if !ok {
			continue
		}
		id := foldID(r.Annotator)
		s := sums[id]
		if s == nil {
			s = &sum{name: r.Annotator, units: map[string]*unitSum{}}
			if name != nil {
				if n := name(r.Annotator); n != "" {
					s.name = n
				}
			}
			sums[id] = s
			order = append(order, id)
		}
		u := s.units[r.Unit]
		if u == nil {
			u = &unitSum{}
			s.units[r.Unit] = u
			s.order = append(s.order, r.Unit)
		}
		u.total += x
		u.n++
	}
	if len(sums) == 0 {
		return nil
	}
	out := make(map[string]*ControlTally, len(sums))
	for _, id := range order {
		s := sums[id]
		total := 0.0
		for _, unit := range s.order {
			u := s.units[unit]
			total += u.total / float64(u.n)
		}
		out[s.name] = &ControlTally{Units: len(s.order), Score: total / float64(len(s.order))}
	}
	return out
}

// wholeScore is a control record's score: the mean of its questions'.
func wholeScore(scores map[string]float64) (float64, bool) { return meanScore(scores), true }

// meanScore is the mean of a control record's scores, by question; in
// the order of the questions' names, so that the sum is the same every
// run, to the last bit.
func meanScore(scores map[string]float64) float64 {
	total := 0.0
	for _, q := range slices.Sorted(maps.Keys(scores)) {
		total += scores[q]
	}
	return total / float64(len(scores))
}

// BelowAccuracy is a message for each annotator of acc whose accuracy on
// the control units is below threshold, in the order of their IDs:
// "annotator ak: control accuracy 0.62 over 8 units, below 0.80".
// Commands given --min-control-accuracy print them as warnings.
func BelowAccuracy(acc map[string]*ControlTally, threshold float64) []string {
	var out []string
	for _, a := range slices.Sorted(maps.Keys(acc)) {
		if t := acc[a]; t.Score < threshold {
			out = append(out, fmt.Sprintf("annotator %s: control accuracy %.2f over %s, below %.2f", a, t.Score, words.Count(t.Units, "unit"), threshold))
		}
	}
	return out
}
