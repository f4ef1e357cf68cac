package decode

import (
	"errors"
	"fmt"
	"slices"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// ErrShuffled marks records whose answers are still in the order the
// candidates were shown: the study's manifest holds the orders that put
// them back.
var ErrShuffled = errors.New("shown in a shuffled order")

// Unshuffle puts a record's answers back on their candidates, given the
// order its instance was shown in (see UnshuffleValues).
func Unshuffle(t *templates.Template, a *records.Annotation, order []string) error {
	if t.Shuffle == nil || !a.Shuffled {
		return nil
	}
	vals, err := UnshuffleValues(t, a.Values, order)
	if err != nil {
		return fmt.Errorf("unit %s: %w", a.Unit, err)
	}
	a.Values, a.Shuffled = vals, false
	return nil
}

// UnshuffleValues maps answers given in the order shown back onto the
// candidates: the answers of the questions of place i belong to the
// candidate shown there, and a choice of place i's code means that
// candidate. Multi answers may be []string or []any (as decoded from
// JSON); they come back sorted.
func UnshuffleValues(t *templates.Template, values map[string]any, order []string) (map[string]any, error) {
	sh := t.Shuffle
	if sh == nil {
		return values, nil
	}
	if len(order) != len(sh.Candidates) {
		return nil, fmt.Errorf("the recorded order %v does not fit the template's %d candidates", order, len(sh.Candidates))
	}
	byCode := map[string]int{}
	for i, cd := range sh.Candidates {
		byCode[cd.Code] = i
	}
	to := make([]int, len(order)) // place -> candidate
	seen := map[string]bool{}
	for i, code := range order {
		j, ok := byCode[code]
		if !ok || seen[code] {
			return nil, fmt.Errorf("the recorded order %v is not an order of the candidates", order)
		}
		seen[code], to[i] = true, j
	}
	vals := make(map[string]any, len(values))
	moved := map[string]bool{}
	for i, cd := range sh.Candidates {
		for k, q := range cd.Questions {
			moved[q] = true
			if v, ok := values[q]; ok {
				vals[sh.Candidates[to[i]].Questions[k]] = v
			}
		}
	}
	place := func(code string) string {
		if i, ok := byCode[code]; ok {
			return sh.Candidates[to[i]].Code
		}
		return code // an option that is no candidate ("none")
	}
	for q, v := range values {
		if moved[q] {
			continue
		}
		if slices.Contains(sh.Choices, q) {
			switch v := v.(type) {
			case string:
				vals[q] = place(v)
				continue
			case []string:
				out := make([]string, len(v))
				for i, c := range v {
					out[i] = place(c)
				}
				slices.Sort(out)
				vals[q] = out
				continue
			case []any:
				codes := make([]string, 0, len(v))
				for _, c := range v {
					if s, ok := c.(string); ok {
						codes = append(codes, place(s))
					}
				}
				slices.Sort(codes)
				out := make([]any, len(codes))
				for i, c := range codes {
					out[i] = c
				}
				vals[q] = out
				continue
			}
		}
		vals[q] = v
	}
	return vals, nil
}
