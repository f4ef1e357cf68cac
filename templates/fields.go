package templates

import "slices"

// Fields says which fields of an input record the template reads at the
// record's top level, in the template's order, and which of them it reads
// as a list or an object: a step into the field (a.b, a[0]), a list of
// elements (rows per element), a joined list, or evidence passages. A
// table (CSV, a spreadsheet) holds such a field's value as JSON text; the
// others are read as the cell's text. The fields that only the export
// reads are not among them.
func (t *Template) Fields() (read []string, nested map[string]bool) {
	nested = map[string]bool{}
	seen := map[string]bool{}
	add := func(p Path, list bool) {
		segs, ok := t.recordSegs(p)
		if !ok || len(segs) == 0 || segs[0].Kind != SegKey {
			return
		}
		f := segs[0].Key
		if !seen[f] {
			seen[f] = true
			read = append(read, f)
		}
		if len(segs) > 1 || list {
			nested[f] = true
		}
	}
	addFormat := func(f Format) {
		for _, p := range f.Paths() {
			add(p, false)
		}
	}
	addFormat(t.Input.id)
	if !t.Rows.path.IsZero() {
		add(t.Rows.path, true)
	}
	for _, p := range t.Rows.orderBy {
		add(p, false)
	}
	addFormat(t.Rows.unit)
	for i := range t.Anonymize {
		add(t.Anonymize[i].field, false)
	}
	for i := range t.Context {
		cx := &t.Context[i]
		add(cx.path, cx.Join != nil)
	}
	for i := range t.Questions {
		if q := &t.Questions[i]; !q.passages.IsZero() {
			add(q.passages, true)
		}
	}
	for _, f := range t.Bands.key {
		addFormat(f)
	}
	for i := range t.Groups {
		addFormat(t.Groups[i].from)
		addFormat(t.Groups[i].pairBy)
	}
	return read, nested
}

// recordSegs are a path's steps from the record: a path from the record
// as it is, one from the current element after the list's steps.
func (t *Template) recordSegs(p Path) ([]Seg, bool) {
	switch p.Root {
	case "":
		return p.Segs, true
	case "@":
		if t.Rows.path.IsZero() {
			return nil, false
		}
		out := append(slices.Clone(t.Rows.path.Segs), Seg{Kind: SegAll})
		return append(out, p.Segs...), true
	}
	return nil, false
}
