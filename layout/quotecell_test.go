package layout_test

import (
	"strings"
	"testing"

	"github.com/annosheet/annosheet/layout"
)

func TestQuoteCell(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200)
	for _, c := range []struct{ in, want string }{
		{"maybe", `"maybe"`},
		{"\u202eKA", `"\u202eKA"`},
		{strings.Repeat("x", layout.QuotedRunes), `"` + strings.Repeat("x", layout.QuotedRunes) + `"`},
		{long, `"` + strings.Repeat("é", layout.QuotedRunes) + `…" (200 characters)`},
	} {
		if got := layout.QuoteCell(c.in); got != c.want {
			t.Errorf("QuoteCell(%.20q) = %q, want %q", c.in, got, c.want)
		}
	}
}
