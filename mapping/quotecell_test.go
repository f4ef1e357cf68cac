package mapping_test

import (
	"strings"
	"testing"

	"github.com/annosheet/annosheet/mapping"
)

func TestQuoteCell(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200)
	for _, c := range []struct{ in, want string }{
		{"maybe", `"maybe"`},
		{"\u202eKA", `"\u202eKA"`},
		{strings.Repeat("x", mapping.QuotedRunes), `"` + strings.Repeat("x", mapping.QuotedRunes) + `"`},
		{long, `"` + strings.Repeat("é", mapping.QuotedRunes) + `…" (200 characters)`},
	} {
		if got := mapping.QuoteCell(c.in); got != c.want {
			t.Errorf("QuoteCell(%.20q) = %q, want %q", c.in, got, c.want)
		}
	}
}
