package decode

import (
	"errors"
	"fmt"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrShuffled marks records whose answers are still in the order the
// candidates were shown: the study's manifest holds the orders that put
// them back.
var ErrShuffled = errors.New("shown in a shuffled order")

// Unshuffle puts a record's answers back on their candidates, given the
// order its instance was shown in (see layout.UnshuffleValues).
func Unshuffle(t *templates.Template, a *records.Annotation, order []string) error {
	if t.Shuffle == nil || !a.Shuffled {
		return nil
	}
	vals, err := layout.UnshuffleValues(t, a.Values, order)
	if err != nil {
		return fmt.Errorf("unit %s: %w", a.Unit, err)
	}
	if a.Prefill != nil {
		// The trace is by question, as the values are: it moves with them.
		// Its states are no candidate's code, so they move unchanged.
		states := make(map[string]any, len(a.Prefill.Questions))
		for q, st := range a.Prefill.Questions {
			states[q] = st
		}
		moved, err := layout.UnshuffleValues(t, states, order)
		if err != nil {
			return fmt.Errorf("unit %s: %w", a.Unit, err)
		}
		tr := *a.Prefill
		tr.Questions = make(map[string]string, len(moved))
		for q, st := range moved {
			tr.Questions[q] = st.(string)
		}
		a.Prefill = &tr
	}
	a.Values, a.Shuffled = vals, false
	return nil
}
