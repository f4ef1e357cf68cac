package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/annosheet/annosheet/assign"
	"github.com/annosheet/annosheet/compare"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// Control units (generate --controls): units of the inputs whose answers
// are known, hidden among the others so that a coordinator can see whose
// answers to trust. Their instances leave the normal assignment, and
// ControlsPerBatch of them join every batch at places drawn with the
// study's seed (assign.WithControls). They are laid out as every other
// unit is: only the manifest says which they are, and holds their
// answers, which pull scores each annotator's against.

// DefaultControlsPerBatch is how many control units join each batch when
// the study does not say.
const DefaultControlsPerBatch = 2

// perBatch is how many controls join each batch.
func (g *generation) perBatch() int {
	if g.opt.ControlsPerBatch > 0 {
		return g.opt.ControlsPerBatch
	}
	return DefaultControlsPerBatch
}

// checkControls checks the gold records against the study's units, once
// the inputs are read: each names a unit of the inputs; an instance with
// a control unit has known answers for all its units, since an annotator
// takes whole instances; and no known answer breaks one of the template's
// rules of error severity, which an annotator could not then give.
func (g *generation) checkControls() records.Problems {
	c := g.controls
	var bad records.Problems
	problem := func(unit, format string, args ...any) {
		bad = append(bad, &records.Problem{Severity: records.Error, File: c.Name, Line: c.Line[unit], Record: unit, Err: records.ErrBadValue, Message: fmt.Sprintf(format, args...)})
	}
	itemOf := map[string]string{}
	unitsOf := map[string][]string{}
	for _, u := range g.all.Units {
		itemOf[u.ID] = u.Item
		unitsOf[u.Item] = append(unitsOf[u.Item], u.ID)
	}
	told := map[string]bool{}
	for _, unit := range c.Units() {
		item, ok := itemOf[unit]
		if !ok {
			problem(unit, "no unit of the inputs has this ID")
			continue
		}
		for _, other := range unitsOf[item] {
			if !c.Has(other) && !told[item] {
				told[item] = true
				problem(unit, "instance %s is a control, but its unit %s has no known answer here: an annotator takes a whole instance, so give all its units or none", records.UnitName(item, ""), records.UnitName(other, ""))
			}
		}
		for _, b := range records.RuleBreaks(g.t, c.Record(unit)) {
			if b.Rule.Severity != records.Error {
				continue
			}
			if b.Span >= 0 {
				problem(unit, "span %d: the known answer breaks a rule: %s", b.Span+1, b.Rule.Message)
			} else {
				problem(unit, "the known answer breaks a rule: %s", b.Rule.Message)
			}
		}
	}
	return bad
}

// splitControls takes the control instances out of the items to assign.
func (g *generation) splitControls(items []assign.Item) (rest, controls []assign.Item) {
	if g.controls == nil {
		return items, nil
	}
	control := map[string]bool{}
	for _, u := range g.all.Units {
		if g.controls.Has(u.ID) {
			control[u.Item] = true
		}
	}
	for _, it := range items {
		if control[it.ID] {
			controls = append(controls, it)
		} else {
			rest = append(rest, it)
		}
	}
	return rest, controls
}

// controlsManifest is what the manifest records of the controls: the
// file, whose answers they are, how many join each batch, and each
// control unit with its answers, in input order.
func (g *generation) controlsManifest() (*manifest.Controls, error) {
	in, err := manifest.HashFile(g.opt.Controls)
	if err != nil {
		return nil, err
	}
	in.Path = relativeTo(g.opt.Dir, []string{g.opt.Controls})[0]
	mc := &manifest.Controls{Input: in, Annotator: g.controls.Annotator, PerBatch: g.perBatch(), Units: []manifest.ControlUnit{}}
	for _, u := range g.all.Units {
		rec := g.controls.Record(u.ID)
		if rec == nil {
			continue
		}
		j, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		mc.Units = append(mc.Units, manifest.ControlUnit{Unit: u.ID, Item: u.Item, Record: j})
	}
	return mc, nil
}

// sameControls says a previous run had the same controls: none, or the
// same file's content placed as many to a batch.
func (g *generation) sameControls(prev *manifest.Manifest) bool {
	if (g.opt.Controls != "") != (prev.Controls != nil) {
		return false
	}
	if g.opt.Controls == "" {
		return true
	}
	in, err := manifest.HashFile(g.opt.Controls)
	return err == nil && in.SHA256 == prev.Controls.SHA256 && g.perBatch() == prev.Controls.PerBatch
}

// markControls marks the records of a batch's control units, as its
// study's manifest lists them (a workbook does not say), and scores each
// answered one against the known answers (compare.Score). A known answer
// the manifest holds that the template cannot type (a hand edit) is an
// error of the manifest, and the unit's records are marked but not
// scored.
func (p *puller) markControls(ref Ref, recs []*records.Annotation, book *copyOf) {
	if ref.Manifest == nil || ref.Manifest.Controls == nil || len(ref.Batch.Controls) == 0 {
		return
	}
	t := book.Pulled.Template
	known := p.knownAnswers(ref, t)
	for _, r := range recs {
		gold, ok := known[r.Unit]
		if !ok {
			continue
		}
		r.Control = true
		if gold != nil && (r.Status == records.StatusComplete || r.Status == records.StatusPartial) {
			r.ControlScore = compare.Score(t, gold, r)
		}
	}
}

// knownAnswers are the known answers of a manifest's control units, by
// unit, typed once per manifest: nil for a unit whose answers cannot be
// typed, which is said once.
func (p *puller) knownAnswers(ref Ref, t *templates.Template) map[string]*records.Annotation {
	if k, ok := p.known[ref.Manifest.Manifest]; ok {
		return k
	}
	known := map[string]*records.Annotation{}
	for _, cu := range ref.Manifest.Controls.Units {
		d := json.NewDecoder(bytes.NewReader(cu.Record))
		d.UseNumber()
		var rec records.Annotation
		err := d.Decode(&rec)
		var typed *records.Annotation
		if err == nil {
			typed, err = records.TypedRecord(t, &rec)
		}
		if err != nil {
			p.res.Problems = append(p.res.Problems, &records.Problem{Severity: records.Error, File: ref.Manifest.Path, Record: cu.Unit, Err: manifest.ErrNotManifest,
				Message: fmt.Sprintf("the known answers of control unit %s cannot be read (%v): its records are not scored", cu.Unit, err)})
		}
		known[cu.Unit] = typed
	}
	if p.known == nil {
		p.known = map[*manifest.Manifest]map[string]*records.Annotation{}
	}
	p.known[ref.Manifest.Manifest] = known
	return known
}

// hinted says, in the problem of a file of records of several
// annotators, how to choose one.
func hinted(ps records.Problems, how string) records.Problems {
	for _, p := range ps {
		if errors.Is(p.Err, records.ErrSeveralAnnotators) {
			p.Message += " (" + how + ")"
		}
	}
	return ps
}
