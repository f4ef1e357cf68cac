package templates

import "fmt"

// What the ID column shows (Rows.IDDisplay).
const (
	// IDReal shows each instance's own id, as the input gives it.
	IDReal = "real"
	// IDOpaque shows item-0001, item-0002 … in the order of the study,
	// for ids that reveal what annotators must not know (which model
	// wrote the text, say). The same instance has the same opaque ID in
	// every workbook of a study; the key from opaque to real ID is kept
	// in the coordinator's manifest, never in a workbook.
	IDOpaque = "opaque"
)

// OpaqueIDs reports whether the template shows opaque IDs in place of the
// instances' own.
func (t *Template) OpaqueIDs() bool { return t.Rows.IDDisplay == IDOpaque }

// idDisplay checks rows.id_display and, for opaque IDs, that no context
// column shows the real id after all.
func (k *checker) idDisplay() {
	t := k.t
	r := &t.Rows
	switch r.IDDisplay {
	case "":
		r.IDDisplay = IDReal
	case IDReal, IDOpaque:
	default:
		k.c.add(r.Line, "rows: id_display %q is not one of real, opaque", r.IDDisplay)
	}
	if r.IDDisplay != IDOpaque {
		return
	}
	for i := range t.Context {
		cx := &t.Context[i]
		if f, bad := k.showsID(cx); bad {
			k.c.add(cx.Line, "context %q would show %s, which id_display: opaque hides; leave it out", cx.Name, f)
		}
	}
}

// showsID reports what of the real id a context column would show: the
// id itself ($id), or a field of the record that the input id is made
// from, something inside it, or an object or list that holds it.
func (k *checker) showsID(cx *Context) (string, bool) {
	p := cx.path
	if p.IsZero() {
		return "", false // not compiled: reported by the context check
	}
	if p.Root == "$id" {
		return "the id", true
	}
	pr, ok := k.recordPath(p)
	if !ok {
		return "", false
	}
	for _, ip := range k.t.Input.id.Paths() {
		ir, ok := k.recordPath(ip)
		if !ok {
			continue
		}
		n := min(len(pr), len(ir))
		match := true
		for i := range n {
			if !segsMayMeet(pr[i], ir[i]) {
				match = false
				break
			}
		}
		if match {
			return fmt.Sprintf("field %q of the id %q", ip.String(), k.t.Input.ID), true
		}
	}
	return "", false
}
