package layout

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Opaque IDs (templates.IDOpaque): a workbook shows item-0001, item-0002 …
// in place of the instances' own ids, numbered in an order drawn with the
// study's seed (the input's order would tell: in an input that alternates
// two models, the odd numbers would be one model's), and
// its hidden unit cells and metadata hold the same; an instance with
// several units (one row per list element) shows item-0001#1,
// item-0001#2 … for them. The key from opaque to real ID is the
// coordinator's (Result.OpaqueIDs, kept in the manifest): pull with it
// gives back the real IDs (records.RestoreIDs), and pull without it keeps the
// opaque ones and says so.

// OpaquePrefix starts every opaque instance ID; unit IDs add "#" and a
// number, which no instance's opaque ID holds.
const OpaquePrefix = "item-"

// OpaqueIndex is a study's key of opaque IDs (Result.OpaqueIDs) looked up
// by instance: made once with IndexOpaqueIDs, it spares each batch of a
// study a pass over the whole key.
type OpaqueIndex struct {
	key    map[string]string // opaque ID -> real ID, as given
	byItem map[string]string // instance ID -> its opaque ID
	items  int               // the key's instance IDs (those without "#")
}

// IndexOpaqueIDs indexes a key of opaque IDs by instance.
func IndexOpaqueIDs(key map[string]string) *OpaqueIndex {
	x := &OpaqueIndex{key: key, byItem: make(map[string]string, len(key))}
	for opaque, real := range key {
		if !strings.Contains(opaque, "#") {
			x.byItem[real] = opaque
			x.items++
		}
	}
	return x
}

// assignOpaqueIDs gives every instance of the workbook its opaque ID:
// the one the study's key (Options.OpaqueIDs) has for it, or else the
// next free number, taken in an order of the instances drawn with the
// study's seed (Options.Seed), with at least four digits (as many as the
// count of instances needs). Build calls it once every
// unit is known; the rows then show the opaque IDs.
func (b *builder) assignOpaqueIDs() {
	if !b.t.OpaqueIDs() {
		return
	}
	x := b.opt.OpaqueIndex
	if x == nil {
		x = IndexOpaqueIDs(b.opt.OpaqueIDs)
	}
	b.opaqueItem, b.opaqueUnit = map[string]string{}, map[string]string{}
	var fresh []string // instances without an opaque ID, in study order
	for _, u := range b.res.Units {
		if _, done := b.opaqueItem[u.Item]; done {
			continue
		}
		if opaque, ok := x.byItem[u.Item]; ok {
			b.opaqueItem[u.Item] = opaque
			continue
		}
		b.opaqueItem[u.Item] = ""
		fresh = append(fresh, u.Item)
	}
	if len(fresh) > 0 {
		// The same seed, the same numbers: a study's batches, and a run
		// that finishes it, number alike.
		r := rand.New(rand.NewPCG(b.opt.Seed, 0x6f70617175652121)) // "opaque!!"
		r.Shuffle(len(fresh), func(i, j int) { fresh[i], fresh[j] = fresh[j], fresh[i] })
		// A free number is one the key does not use.
		taken := map[string]bool{}
		width := max(4, len(strconv.Itoa(x.items+len(fresh))))
		n := 0
		for _, item := range fresh {
			for {
				n++
				id := fmt.Sprintf("%s%0*d", OpaquePrefix, width, n)
				if _, used := x.key[id]; !used && !taken[id] {
					b.opaqueItem[item], taken[id] = id, true
					break
				}
			}
		}
	}
	key := map[string]string{}
	pos := map[string]int{} // units of each instance so far
	for _, u := range b.res.Units {
		item := b.opaqueItem[u.Item]
		key[item] = u.Item
		pos[u.Item]++
		unit := item
		if u.ID != u.Item {
			unit = item + "#" + strconv.Itoa(pos[u.Item])
		}
		b.opaqueUnit[u.ID] = unit
		key[unit] = u.ID
	}
	b.res.OpaqueIDs = key
}

// shownItem is the ID the workbook shows for an instance: its own, or its
// opaque ID. Before assignOpaqueIDs (the first pass, which writes
// nothing) an opaque ID is not known yet, and nothing is shown.
func (b *builder) shownItem(item string) string {
	if b.opaqueItem == nil {
		if b.t.OpaqueIDs() {
			return ""
		}
		return item
	}
	return b.opaqueItem[item]
}

// shownUnit is the ID the workbook's hidden cells show for a unit, as
// shownItem.
func (b *builder) shownUnit(unit string) string {
	if b.opaqueUnit == nil {
		if b.t.OpaqueIDs() {
			return ""
		}
		return unit
	}
	return b.opaqueUnit[unit]
}

// shownUnits is the workbook's units as its metadata lists them.
func (b *builder) shownUnits() []Unit {
	if !b.t.OpaqueIDs() {
		return b.res.Units
	}
	out := make([]Unit, len(b.res.Units))
	for i, u := range b.res.Units {
		out[i] = u
		out[i].ID, out[i].Item = b.shownUnit(u.ID), b.shownItem(u.Item)
	}
	return out
}
