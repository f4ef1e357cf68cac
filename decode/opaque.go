package decode

import (
	"errors"
	"strings"

	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// ErrOpaqueIDs marks records whose unit and item are still the opaque IDs
// a workbook shows: the study's manifest holds the real ones.
var ErrOpaqueIDs = errors.New("opaque IDs")

// restoreIDs gives a pulled workbook's records, units and problems the
// real IDs, when the workbook shows opaque IDs and the study's key is
// given (units and problems keep the IDs shown, as Shown); without the key, the records keep the opaque IDs, marked, and a
// warning says once where the real IDs are. Rows were matched to units by
// what the sheet shows, so this comes last, before answers are put back
// on shuffled candidates (the manifest keys orders by real instance).
func (p *puller) restoreIDs(out *Pulled) {
	if !p.t.OpaqueIDs() {
		return
	}
	key := p.key
	if key == nil {
		for _, r := range out.Records {
			r.OpaqueIDs = true
		}
		p.problem(records.Warning, ErrOpaqueIDs, "", 0, -1, "the workbook shows opaque IDs (%s…); the records keep them (\"opaque_ids\": true), and the real IDs are in the study's manifest: pull with it (or export with it)", opaqueExample(out.Units))
		return
	}
	var unknown []string
	for i := range out.Units {
		u := &out.Units[i]
		if _, ok := key[u.ID]; !ok {
			unknown = append(unknown, u.ID)
		}
		if real := p.real(u.ID); real != u.ID {
			u.Shown, u.ID = u.ID, real
			if out.shown == nil {
				out.shown = map[string]string{}
			}
			out.shown[real] = u.Shown
		}
		u.Item = p.real(u.Item)
	}
	for _, r := range out.Records {
		r.Unit, r.Item = p.real(r.Unit), p.real(r.Item)
	}
	for _, pr := range p.probs {
		if real := p.real(pr.Record); real != pr.Record {
			pr.Shown, pr.Record = pr.Record, real
		}
	}
	if len(unknown) > 0 {
		// The study's manifest still checks the units; this says why
		// they do not match.
		p.problem(records.Error, ErrOtherStudy, "", 0, -1, "the study's key of opaque IDs lacks %d %s of this workbook (%s): its metadata was edited, or it is another study's", len(unknown), words.Pick(len(unknown), "unit", "units"), strings.Join(unknown[:min(len(unknown), 5)], ", "))
	}
}

// opaqueExample is the first opaque ID of a workbook, for messages.
func opaqueExample(units []layout.Unit) string {
	// The least of them: item-0001 in a study's one workbook, however
	// its rows are ordered.
	least := layout.OpaquePrefix + "0001"
	for i, u := range units {
		if i == 0 || u.Item < least {
			least = u.Item
		}
	}
	return least
}
