package records_test

import (
	"strings"
	"testing"

	"github.com/annosheet/annosheet/records"
)

func TestQuoteCell(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200)
	for _, c := range []struct{ in, want string }{
		{"maybe", `"maybe"`},
		{"\u202eKA", `"\u202eKA"`},
		{strings.Repeat("x", records.QuotedRunes), `"` + strings.Repeat("x", records.QuotedRunes) + `"`},
		{long, `"` + strings.Repeat("é", records.QuotedRunes) + `…" (200 characters)`},
	} {
		if got := records.QuoteCell(c.in); got != c.want {
			t.Errorf("records.QuoteCell(%.20q) = %q, want %q", c.in, got, c.want)
		}
	}
}
