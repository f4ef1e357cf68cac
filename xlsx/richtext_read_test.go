package xlsx

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
)

// TestRichText checks the text of rich strings: a run of several <t> has
// its last, as excelize and LibreOffice read it, and text ECMA-376 does
// not allow, which they read differently, is an error naming where it is.
func TestRichText(t *testing.T) {
	path := oneSheet(`<row r="1"><c t="inlineStr"><is><t>a</t><r><t>b</t><t>c</t></r><rPh sb="0" eb="1"><t>x</t></rPh><r><t>d</t></r></is></c><c t="s"><v>0</v></c></row>`,
		`<si><r><rPr><b/></rPr><t>e</t></r><r><t/><t>f</t></r></si>`, "").file(t)
	_, got, err := readAllLimits(path, defaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]gridRow{{1, []backend.ReadCell{str("acd"), str("ef")}}}, got["S1"]); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	for _, c := range []struct{ name, rows, sst, want string }{
		{"two plain texts inline", `<row r="1"><c r="B1" t="inlineStr"><is><t>a</t><t>b</t></is></c></row>`, "",
			"part xl/worksheets/sheet1.xml, cell B1: an inline string: its text is in two plain parts, or in one after its runs"},
		{"a plain text after a run", `<row r="1"><c t="s"><v>0</v></c></row>`, `<si><t>x</t></si><si><r><t>a</t></r><t>b</t></si>`,
			"part xl/sharedStrings.xml: shared string 1: its text is in two plain parts, or in one after its runs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readAllLimits(oneSheet(c.rows, c.sst, "").file(t), defaultLimits)
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrDamaged with %q", err, c.want)
			}
		})
	}
}
