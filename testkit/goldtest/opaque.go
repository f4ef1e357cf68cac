package goldtest

import (
	"testing"

	"github.com/annosheet/annosheet/records"
)

// RealIDs re-keys the workbook's units by their real IDs, through the
// study's key of opaque IDs (the manifest's opaque_ids, or
// layout.Result.OpaqueIDs): the Fill functions then find each record's
// rows by its own ID in a workbook that shows opaque ones. A nil key
// changes nothing.
func (w *Workbook) RealIDs(key map[string]string) *Workbook {
	if key == nil {
		return w
	}
	real := func(id string) string {
		if r, ok := key[id]; ok {
			return r
		}
		return id
	}
	rows := make(map[string][]int, len(w.Rows))
	for u, rs := range w.Rows {
		rows[real(u)] = rs
	}
	w.Rows = rows
	for i, u := range w.Units {
		w.Units[i] = real(u)
	}
	return w
}

// restoredCopies are copies of records with their real IDs restored from
// the study's key, as records.RestoreIDs gives them, and the origins of
// the copies; the records themselves stay as they are.
func restoredCopies(t testing.TB, recs []*records.Annotation, origins records.Origins, key map[string]string) ([]*records.Annotation, records.Origins) {
	t.Helper()
	out := make([]*records.Annotation, len(recs))
	var where records.Origins
	if origins != nil {
		where = records.Origins{}
	}
	for i, r := range recs {
		c := *r
		out[i] = &c
		if o, ok := origins[r]; ok {
			where[&c] = o
		}
	}
	if err := records.RestoreIDs(out, key, where); err != nil {
		t.Fatal(err)
	}
	return out, where
}
