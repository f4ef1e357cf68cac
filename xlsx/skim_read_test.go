package xlsx

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
)

// skimAll reads sheet S1 of path with Skim, keeping the columns keep
// says once the first row is read.
func skimAll(t *testing.T, path string, lim readLimits, keep func(int) bool) ([]gridRow, error) {
	t.Helper()
	g, closeFn, err := readBook(path, path, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	var rows []gridRow
	err = g.RowsKeeping("S1", keep, func(n int, cells []backend.ReadCell) error {
		rows = append(rows, gridRow{n, cells})
		return nil
	})
	return rows, err
}

// TestSkim checks that the cells of the columns a caller turns down are
// passed over after the first row, and that damage within them is still
// an error that names the cell.
func TestSkim(t *testing.T) {
	long := strings.Repeat("long &amp; text &#34;quoted&#34; _x000D_ ", 200)
	rows := `<row r="1"><c t="inlineStr"><is><t>ID</t></is></c><c t="inlineStr"><is><t>Context</t></is></c><c t="inlineStr"><is><t>Answer</t></is></c></row>` +
		`<row r="2"><c t="inlineStr"><is><t>u1</t></is></c><c t="inlineStr"><is><t>` + long + `</t></is></c><c t="b"><v>1</v></c></row>` +
		`<row r="3"><c r="B3" t="str"><f>A1&amp;"x"</f><v>` + long + `</v></c></row>` +
		`<row r="4"><c r="A4" t="s"><v>1</v></c><c r="B4" t="s"><v>0</v></c><c r="C4"><v>2</v></c></row>`
	sst := `<si><t>` + long + `</t></si><si><t>u2</t></si>`
	keepAC := func(col int) bool { return col != 1 }
	path := oneSheet(rows, sst, "").file(t)
	got, err := skimAll(t, path, defaultLimits, keepAC)
	if err != nil {
		t.Fatal(err)
	}
	want := []gridRow{
		{1, []backend.ReadCell{str("ID"), str("Context"), str("Answer")}},
		{2, []backend.ReadCell{str("u1"), {}, {Type: backend.CellBool, Value: "TRUE"}}},
		{4, []backend.ReadCell{str("u2"), {}, num("2")}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}

	for _, c := range []struct {
		name, rows, want string
	}{
		{"an undefined entity in a skipped cell",
			`<row r="1"><c><v>1</v></c></row><row r="2"><c r="B2" t="inlineStr"><is><t>a &foo; b</t></is></c></row>`,
			"cell B2: undefined entity &foo;"},
		{"a skipped cell of an unknown type",
			`<row r="1"><c><v>1</v></c></row><row r="2"><c r="B2" t="x"><v>1</v></c></row>`,
			`cell B2: a cell of the unknown type "x"`},
		{"a skipped cell out of order",
			`<row r="1"><c><v>1</v></c></row><row r="2"><c r="C2"><v>1</v></c><c r="B2"><v>1</v></c></row>`,
			"row 2: cell B2 comes after C2 in its row"},
		{"a skipped cell cut short",
			`<row r="1"><c><v>1</v></c></row><row r="2"><c r="B2" t="inlineStr"><is><t>abc</t></is></row>`,
			"cell B2: </row> closes <c>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := oneSheet(c.rows, "", "").file(t)
			_, err := skimAll(t, path, defaultLimits, keepAC)
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrDamaged with %q", err, c.want)
			}
		})
	}
}
