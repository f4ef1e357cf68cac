package layout

import (
	"slices"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/templates"
)

// TestCheckGuide checks that the Instructions explain a live check column
// where the sheet has one, with an example from the template's own
// checks, and say nothing of it where it has none.
func TestCheckGuide(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	all := tp.Columns()
	b := &builder{t: tp, cols: slices.DeleteFunc(slices.Clone(all), func(c templates.ColumnSpec) bool { return c.Role == templates.RoleCheck })}
	if s, _, _ := b.checkGuide(); s != "" {
		t.Errorf("without a check column: %q", s)
	}
	for _, s := range b.howTo() {
		if s == "" {
			t.Errorf("an empty how-to line")
		}
	}
	b.cols = all
	s, kind, what := b.checkGuide()
	for _, want := range []string{
		`The "Check" column says, as you work, what a row still misses or breaks`,
		"turn pale red (an error) or light yellow (missing, or worth a second look)",
		`For example, "0 excludes other codes" means: 0 (no gap) cannot be combined with another code.`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("how-to %q does not say %q", s, want)
		}
	}
	if !slices.Contains(b.howTo(), s) {
		t.Errorf("the how-to lines do not explain the Check column")
	}
	check := all[slices.IndexFunc(all, func(c templates.ColumnSpec) bool { return c.Role == templates.RoleCheck })]
	if k, w, req := b.guide(check); k != kind || w != what || req != "" || kind == "" {
		t.Errorf("columns table %q, %q, %q", k, w, req)
	}
	tp.Rules = nil
	if s, _, _ := b.checkGuide(); !strings.Contains(s, `For example, "Gaps missing" means that a row you have started has no answer in "Gaps" yet.`) {
		t.Errorf("without rules, the example is not a required answer: %q", s)
	}
}
