package report

import (
	"cmp"
	"maps"
	"slices"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// Controls is the page's "Control units": how well each annotator
// answered the units whose answers are known (generate --controls), as
// status scores them (study.ControlAccuracy), and per question.
type Controls struct {
	// Min is the accuracy that annotators are marked below
	// (Options.MinControlAccuracy); 0 when none was given.
	Min float64 `json:"min,omitempty"`
	// Annotators are the annotators with a scored control unit, in the
	// order of their IDs.
	Annotators []ControlAccuracy `json:"annotators"`
	// Questions are the questions scored, in the template's order, the
	// block's spans last.
	Questions []ControlQuestion `json:"questions"`
}

// ControlAccuracy is one annotator's accuracy on the control units: the
// units scored, and the mean of their scores (each unit's the mean of its
// questions'), from 0 to 1.
type ControlAccuracy struct {
	Annotator string  `json:"annotator"`
	Units     int     `json:"units"`
	Score     float64 `json:"score"`
	// Below says the score is below Controls.Min.
	Below bool `json:"below,omitempty"`
}

// ControlQuestion is each annotator's mean score on one question of the
// control units.
type ControlQuestion struct {
	// Question is the question's name; for a block's spans (Spans), the
	// name their records give them.
	Question string `json:"question"`
	Header   string `json:"header"`
	Spans    bool   `json:"spans,omitempty"`
	// Scores are the annotators' mean scores on the question, in the
	// order of Controls.Annotators: nil for an annotator whose control
	// units do not score it.
	Scores []*float64 `json:"scores"`
}

// Accuracy is each annotator's accuracy on the control units, as
// study.ControlAccuracy gives it.
func (c *Controls) Accuracy() map[string]*study.ControlTally {
	out := make(map[string]*study.ControlTally, len(c.Annotators))
	for _, a := range c.Annotators {
		out[a.Annotator] = &study.ControlTally{Units: a.Units, Score: a.Score}
	}
	return out
}

// controls makes the section of the control units from the records that
// are of them (others are passed over), the annotators below threshold
// marked; nil when no record of a control unit is scored. Questions come
// in the order of template t; one it does not have comes after, by name.
func controls(t *templates.Template, recs []*records.Annotation, threshold float64) *Controls {
	acc := study.ControlAccuracy(recs)
	if len(acc) == 0 {
		return nil
	}
	c := &Controls{Min: threshold}
	for _, a := range slices.Sorted(maps.Keys(acc)) {
		c.Annotators = append(c.Annotators, ControlAccuracy{Annotator: a, Units: acc[a].Units, Score: acc[a].Score, Below: acc[a].Score < threshold})
	}
	order := map[string]int{}
	for i, q := range t.Questions {
		order[q.Name] = i
	}
	spans := t.Rows.Spans
	rank := func(name string) int {
		if i, ok := order[name]; ok {
			return i
		}
		if spans != "" && name == spans {
			return len(order) + 1
		}
		return len(order)
	}
	byQuestion := study.ControlAccuracyByQuestion(recs)
	names := slices.SortedFunc(maps.Keys(byQuestion), func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b))
	})
	for _, name := range names {
		q := ControlQuestion{Question: name, Header: name, Spans: spans != "" && name == spans}
		header := name
		if q.Spans {
			header = primarySpan(t)
		}
		if tq := t.QuestionByName(header); tq != nil {
			q.Header = tq.Header
		}
		for _, a := range c.Annotators {
			if s := byQuestion[name][a.Annotator]; s != nil {
				q.Scores = append(q.Scores, &s.Score)
			} else {
				q.Scores = append(q.Scores, nil)
			}
		}
		c.Questions = append(c.Questions, q)
	}
	return c
}

// controlRecords are the records of control units among recs, then
// those of more (set apart from the study's records, see
// records.Loaded.Controls).
func controlRecords(recs, more []*records.Annotation) []*records.Annotation {
	var out []*records.Annotation
	for _, r := range recs {
		if r.Control {
			out = append(out, r)
		}
	}
	return append(out, more...)
}
