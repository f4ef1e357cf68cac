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
