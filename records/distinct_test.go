package records_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
)

func TestRestoreIDs(t *testing.T) {
	t.Parallel()
	key := map[string]string{"item-0001": "model-x-17", "item-0001#2": "model-x-17#2"}
	for _, c := range []struct {
		name       string
		in         records.Annotation
		unit, item string
		err        error
	}{
		{"opaque", records.Annotation{Unit: "item-0001#2", Item: "item-0001", OpaqueIDs: true}, "model-x-17#2", "model-x-17", nil},
		{"already real", records.Annotation{Unit: "item-0001#2", Item: "item-0001"}, "item-0001#2", "item-0001", nil},
		{"not in the key", records.Annotation{Unit: "item-0009", Item: "item-0009", OpaqueIDs: true}, "item-0009", "item-0009", records.ErrNotInStudy},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := c.in
			err := records.RestoreIDs([]*records.Annotation{&a}, key, records.Origins{&a: "a.jsonl:3"})
			if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Errorf("error %v, want %v", err, c.err)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "a.jsonl:3: unit item-0009: ") {
				t.Errorf("error %q does not start with the record's origin and unit", err)
			}
			if a.Unit != c.unit || a.Item != c.item || a.OpaqueIDs != (err != nil) {
				t.Errorf("got unit %s, item %s, opaque %v", a.Unit, a.Item, a.OpaqueIDs)
			}
		})
	}
}

// TestDistinctControls: a control unit may be in several shared
// workbooks, and one annotator may answer it in two: each batch's record
// is kept. Two different records of an ordinary unit are still refused,
// and WithoutControls sets the controls' records apart in order.
func TestDistinctControls(t *testing.T) {
	t.Parallel()
	rec := func(unit, batch string, control bool, gaps string) *records.Annotation {
		return &records.Annotation{Unit: unit, Item: unit, Batch: batch, Annotator: "ak", Status: records.StatusComplete, Control: control, Values: map[string]any{"gaps": []string{gaps}}}
	}
	in := []*records.Annotation{rec("c1", "b01", true, "2"), rec("u1", "b01", false, "1"), rec("c1", "b02", true, "3"), rec("u2", "b02", false, "0")}
	out, dups, err := records.Distinct(in, records.Origins{})
	if err != nil || len(out) != 4 || len(dups) != 0 {
		t.Fatalf("%d records, %v duplicates, error %v", len(out), dups, err)
	}
	rest, controls := records.WithoutControls(out)
	if len(rest) != 2 || rest[0].Unit != "u1" || rest[1].Unit != "u2" || len(controls) != 2 || controls[0].Batch != "b01" || controls[1].Batch != "b02" {
		t.Errorf("rest %v, controls %v", rest, controls)
	}
	if _, _, err := records.Distinct([]*records.Annotation{rec("u1", "b01", false, "1"), rec("u1", "b02", false, "2")}, records.Origins{}); !errors.Is(err, records.ErrConflict) {
		t.Errorf("two records of an ordinary unit: %v", err)
	}
}
