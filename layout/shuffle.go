package layout

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"

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
