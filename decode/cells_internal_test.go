package decode

import (
	"testing"

	"github.com/annosheet/annosheet/templates"
)

// TestParseChoiceNFC: a label typed in another Unicode form (NFD, as
// macOS keyboards give) is the label, silently; a real difference is not.
func TestParseChoiceNFC(t *testing.T) {
	t.Parallel()
	q := &templates.Question{Name: "q", Options: []templates.Option{{Code: "cafe", Label: "Caf\u00e9 au lait"}, {Code: "the", Label: "Th\u00e9"}}}
	for _, tc := range []struct {
		cell, code string
		issue      bool
	}{
		{"Caf\u00e9 au lait", "cafe", false},
		{"Cafe\u0301 au lait", "cafe", false},
		{" cafe\u0301  AU lait ", "cafe", true},
		{"The\u0301", "the", false},
		{"Cafe au lait", "", true},
	} {
		code, issue := parseChoice(q, tc.cell)
		if code != tc.code || (issue != nil) != tc.issue {
			t.Errorf("parseChoice(%q) = %q, %v; want %q, issue %v", tc.cell, code, issue, tc.code, tc.issue)
		}
	}
}
