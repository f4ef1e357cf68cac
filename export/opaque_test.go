package export_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/testkit/recordtest"
)

// opaqueLine is a record pulled without the study's manifest from a
// workbook that shows opaque IDs.
func opaqueLine(unit, values string) string {
	return strings.Replace(recordtest.Line(unit, "ann", "complete", values), `"status"`, `"opaque_ids":true,"status"`, 1)
}

// TestOpaqueIDs: records that keep their workbook's opaque IDs are
// refused by Native, naming where they were read, until RestoreIDs gives
// them the real IDs from the study's key; then they export as if pulled
// through the manifest, and a record of the same unit pulled either way
// is one record.
func TestOpaqueIDs(t *testing.T) {
	t.Parallel()
	tp := recordtest.Template(t)
	key := map[string]string{"item-0001": "u1", "item-0002": "u2"}
	for _, c := range []struct {
		name  string
		lines []string
		key   map[string]string
		want  string // the native file
		err   string // or the error, with its sentinels
		is    []error
	}{
		{
			name:  "restored",
			lines: []string{opaqueLine("item-0001", `{"pick":"y"}`), opaqueLine("item-0002", `{"pick":"n"}`)},
			key:   key,
			want:  "{\"unit\":\"u1\",\"who\":\"ann\",\"pick\":\"y\",\"labels\":[]}\n{\"unit\":\"u2\",\"who\":\"ann\",\"pick\":\"n\",\"labels\":[]}\n",
		},
		{
			name:  "pulled with the manifest and without: the same record, kept once",
			lines: []string{recordtest.Line("u1", "ann", "complete", `{"pick":"y"}`), opaqueLine("item-0001", `{"pick":"y"}`)},
			key:   key,
			want:  "{\"unit\":\"u1\",\"who\":\"ann\",\"pick\":\"y\",\"labels\":[]}\n",
		},
		{
			name:  "pulled with the manifest and without, answered differently: refused",
			lines: []string{recordtest.Line("u1", "ann", "complete", `{"pick":"y"}`), opaqueLine("item-0001", `{"pick":"n"}`)},
			key:   key,
			err:   "ann.jsonl:1 and ann.jsonl:2",
		},
		{
			name:  "without the key",
			lines: []string{opaqueLine("item-0001", `{"pick":"y"}`)},
			err:   "ann.jsonl:1: cannot export: unit item-0001 has the opaque ID its workbook shows (opaque IDs); export with the study's manifest, which holds the real IDs",
			is:    []error{export.ErrExport, decode.ErrOpaqueIDs},
		},
		{
			name:  "a key without the unit",
			lines: []string{opaqueLine("item-0001", `{"pick":"y"}`), opaqueLine("item-0003", `{"pick":"y"}`)},
			key:   key,
			err:   "ann.jsonl:2: unit item-0003: not of this study: the study's key has no real ID for it",
			is:    []error{records.ErrNotInStudy},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			recs, origins, err := recordtest.Read(t, tp, c.lines...)
			if err != nil {
				t.Fatal(err)
			}
			if c.key != nil {
				err = records.RestoreIDs(recs, c.key, origins)
			}
			var files []export.File
			if err == nil {
				files, err = export.Native(tp, recs, nil, export.Options{Origins: origins})
			}
			switch {
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				for _, is := range c.is {
					if !errors.Is(err, is) {
						t.Errorf("error %v is not %v", err, is)
					}
				}
			case err != nil:
				t.Fatal(err)
			default:
				if diff := cmp.Diff(c.want, string(files[0].Data)); diff != "" {
					t.Errorf("native file (-want +got):\n%s", diff)
				}
			}
		})
	}
}
