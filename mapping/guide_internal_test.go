package mapping

import (
	"testing"

	"github.com/annosheet/annosheet/templates"
)

// TestCheckGuide checks that the Instructions explain a live check column
// where the sheet has one, and say nothing of it where it has none.
func TestCheckGuide(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{t: tp, cols: tp.Columns()}
	if s, _, _ := b.checkGuide(); s != "" {
		t.Errorf("without a check column: %q", s)
	}
	for _, s := range b.howTo() {
		if s == "" {
			t.Errorf("an empty how-to line")
		}
	}
	b.cols = append(b.cols, templates.ColumnSpec{Key: "check", Header: "Check", Role: roleCheck})
	s, kind, what := b.checkGuide()
	want := `The "Check" column shows, as you answer, what the checks listed at the end of this sheet find on each row; it fills itself in, so leave it as it is.`
	if s != want {
		t.Errorf("how-to %q, want %q", s, want)
	}
	if k, w, req := b.guide(b.cols[len(b.cols)-1]); k != kind || w != what || req != "" || kind == "" {
		t.Errorf("columns table %q, %q, %q", k, w, req)
	}
}
