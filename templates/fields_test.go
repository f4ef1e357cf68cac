package templates

import (
	"reflect"
	"testing"
)

// TestFields: the built-ins read the fields their data has, and those
// read as lists or objects are nested.
func TestFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		read   []string
		nested []string
	}{
		{"legal-gaps", []string{"id", "previous_context", "cited_paragraphs", "generation", "target"}, []string{"cited_paragraphs"}},
		{"preference-likert", []string{"reference", "first_prediction", "second_prediction", "third_prediction"}, nil},
		{"qa-span-errors", []string{"question", "passages", "gold", "prediction 1"}, []string{"passages"}},
		{"factgenie-meta-eval", []string{"dataset", "split", "example_idx", "system", "spans", "setup_id", "output"}, []string{"spans"}},
	} {
		tp, err := Builtin(c.name)
		if err != nil {
			t.Fatal(err)
		}
		read, nested := tp.Fields()
		if !reflect.DeepEqual(read, c.read) {
			t.Errorf("%s reads %q, want %q", c.name, read, c.read)
		}
		var got []string
		for _, f := range read {
			if nested[f] {
				got = append(got, f)
			}
		}
		if !reflect.DeepEqual(got, c.nested) {
			t.Errorf("%s reads %q as lists or objects, want %q", c.name, got, c.nested)
		}
	}
}
