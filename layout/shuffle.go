package layout

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/annosheet/annosheet/templates"
)

// ShuffleOrder is the order an instance's candidates are shown in: their
// codes, place by place. It is drawn from the seed and the instance id, so
// the same study gives the same orders; the manifest records them too.
func ShuffleOrder(t *templates.Template, seed uint64, item string) []string {
	sh := t.Shuffle
	if sh == nil {
		return nil
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	sum := sha256.Sum256(append(b[:], item...))
	r := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
	out := make([]string, len(sh.Candidates))
	for i, j := range r.Perm(len(out)) {
		out[i] = sh.Candidates[j].Code
	}
	return out
}

// shown is the context column whose text a column shows for an instance:
// the column itself, or, when it belongs to a shuffled candidate, the same
// column of the candidate shown in its place.
func (b *builder) shown(it *item, cx *templates.Context) *templates.Context {
	slot, pos, ok := b.t.ShuffleSlot("context", cx.Name)
	if !ok {
		return cx
	}
	order := b.res.Orders[it.id]
	if order == nil {
		order = ShuffleOrder(b.t, b.opt.Seed, it.id)
	}
	for _, cd := range b.t.Shuffle.Candidates {
		if cd.Code == order[slot] {
			return b.t.ContextByName(cd.Context[pos])
		}
	}
	return cx
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

// ShownValues puts answers given on their candidates in the places the
// candidates were shown in (order): the inverse of UnshuffleValues, for
// writing a unit's given answers into a shuffled workbook.
func ShownValues(t *templates.Template, values map[string]any, order []string) (map[string]any, error) {
	sh := t.Shuffle
	if sh == nil {
		return values, nil
	}
	if len(order) != len(sh.Candidates) {
		return nil, fmt.Errorf("the recorded order %v does not fit the template's %d candidates", order, len(sh.Candidates))
	}
	// The candidate shown at place i goes back to place i: the order that
	// undoes order puts, at candidate j's index, the place j is shown in.
	inverse := make([]string, len(order))
	for i, code := range order {
		j := slices.IndexFunc(sh.Candidates, func(c templates.Candidate) bool { return c.Code == code })
		if j < 0 || inverse[j] != "" {
			return nil, fmt.Errorf("the recorded order %v is not an order of the candidates", order)
		}
		inverse[j] = sh.Candidates[i].Code
	}
	return UnshuffleValues(t, values, inverse)
}
