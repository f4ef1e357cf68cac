package mapping

import (
	"slices"
	"testing"

	"github.com/annosheet/annosheet/templates"
)

// TestCheckboxSpellings: the sheet's live checks read a checkbox with the
// spellings pull reads it with.
func TestCheckboxSpellings(t *testing.T) {
	if !slices.Equal(yes, templates.CheckboxTrue) || !slices.Equal(no, templates.CheckboxFalse) {
		t.Errorf("pull reads checkboxes as %q and %q; the live checks as %q and %q", yes, no, templates.CheckboxTrue, templates.CheckboxFalse)
	}
}
