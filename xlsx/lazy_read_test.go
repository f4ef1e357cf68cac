package xlsx

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
)

// lazyLimits read every shared-strings table as sheets need it, queueing
// at most cells cells, and holding no string before a row names it.
func lazyLimits(cells int) readLimits {
	l := defaultLimits
	l.sstWhole, l.winCells, l.spareCount = 0, cells, 0
	return l
}

// spareLimits are lazyLimits(cells) that hold, in each pass, up to count
// strings of at most 8 bytes that no row has named yet.
func spareLimits(cells, count int) readLimits {
	l := lazyLimits(cells)
	l.spareLen, l.spareCount = 8, count
	return l
}

// TestLazySharedStrings reads workbooks whose shared strings are read as
// the sheets need them, and checks that every sheet reads as it does with
// the table read whole, in windows of any size.
func TestLazySharedStrings(t *testing.T) {
	var sst, rows strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sst, "<si><t>string %d</t></si>", i)
	}
	sst.WriteString(`<si><r><t>rich</t></r><r><t xml:space="preserve"> text_x000D_</t></r></si><si><t></t></si>`)
	rows.WriteString(`<row r="1"><c t="s"><v>0</v></c><c t="s"><v>1</v></c><c t="s"><v>40</v></c></row>`)
	for r := 2; r <= 30; r++ {
		fmt.Fprintf(&rows, `<row r="%d"><c t="s"><v>%d</v></c><c><v>%d</v></c><c t="b"><v>1</v></c>`+
			`<c t="inlineStr"><is><t>in %d</t></is></c><c s="1"><v>45365</v></c><c><f>1+1</f></c><c t="s"><v>%d</v></c></row>`,
			r, r%40, r, r, (r*7)%40)
	}
	// Rows that turn out empty: a string that is "", and one with nothing.
	rows.WriteString(`<row r="31"><c t="s"><v>41</v></c></row><row r="32"><c t="s"><v>41</v></c><c t="s"><v>3</v></c></row>`)
	path := oneSheet(rows.String(), sst.String(), `<cellXfs><xf/><xf numFmtId="14"/></cellXfs>`).file(t)
	_, want, err := readAllLimits(path, defaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	for _, cells := range []int{1, 5, 1 << 20} {
		for _, spare := range []int{0, 3, 1 << 10} {
			t.Run(fmt.Sprintf("window=%d/spare=%d", cells, spare), func(t *testing.T) {
				_, got, err := readAllLimits(path, spareLimits(cells, spare))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("rows (-whole +lazy):\n%s", diff)
				}
			})
		}
	}
}

// TestLazySkim checks that a sheet read with Skim holds only the shared
// strings of the columns kept, and reads the table twice: once for its
// header, once for the rest.
func TestLazySkim(t *testing.T) {
	var sst, rows strings.Builder
	sst.WriteString("<si><t>ID</t></si><si><t>Context</t></si><si><t>Answer</t></si>")
	rows.WriteString(`<row r="1"><c t="s"><v>0</v></c><c t="s"><v>1</v></c><c t="s"><v>2</v></c></row>`)
	var want []gridRow
	want = append(want, gridRow{1, []backend.ReadCell{str("ID"), str("Context"), str("Answer")}})
	for r := 2; r <= 100; r++ {
		fmt.Fprintf(&sst, "<si><t>u%d</t></si><si><t>%s</t></si><si><t>yes %d</t></si>", r, strings.Repeat("context ", 100), r)
		fmt.Fprintf(&rows, `<row r="%d"><c t="s"><v>%d</v></c><c t="s"><v>%d</v></c><c t="s"><v>%d</v></c></row>`, r, 3*r-3, 3*r-2, 3*r-1)
		want = append(want, gridRow{r, []backend.ReadCell{str(fmt.Sprintf("u%d", r)), {}, str(fmt.Sprintf("yes %d", r))}})
	}
	path := oneSheet(rows.String(), sst.String(), "").file(t)
	b, err := openPackage(path, path, lazyLimits(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	g := b.grid()
	var got []gridRow
	err = g.RowsKeeping("S1", func(col int) bool { return col != 1 }, func(n int, cells []backend.ReadCell) error {
		got = append(got, gridRow{n, cells})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	lazy := b.tables.lazy
	if lazy.passes != 2 || lazy.held.len() != 3+2*99 || lazy.held.total > 3000 {
		t.Errorf("%d passes over the table, %d strings held (%d bytes); want 2 passes, %d strings", lazy.passes, lazy.held.len(), lazy.held.total, 3+2*99)
	}
}

// TestLazySpare checks that a pass over the table holds short strings no
// row has named yet, within its budget: a sheet whose kept cells are all
// short costs one pass, its header's, and the long strings are fetched
// as rows name them. A string that is not as ECMA-376 allows is an error
// only once a row names it.
func TestLazySpare(t *testing.T) {
	var sst, rows strings.Builder
	sst.WriteString("<si><t>ID</t></si><si><t>Context</t></si><si><t>Answer</t></si>")
	rows.WriteString(`<row r="1"><c t="s"><v>0</v></c><c t="s"><v>1</v></c><c t="s"><v>2</v></c></row>`)
	var short, all []gridRow
	short = append(short, gridRow{1, []backend.ReadCell{str("ID"), str("Context"), str("Answer")}})
	all = append(all, short[0])
	for r := 2; r <= 100; r++ {
		long := strings.Repeat("context ", 100)
		fmt.Fprintf(&sst, "<si><t>u%d</t></si><si><t>%s</t></si><si><t>yes %d</t></si>", r, long, r)
		fmt.Fprintf(&rows, `<row r="%d"><c t="s"><v>%d</v></c><c t="s"><v>%d</v></c><c t="s"><v>%d</v></c></row>`, r, 3*r-3, 3*r-2, 3*r-1)
		short = append(short, gridRow{r, []backend.ReadCell{str(fmt.Sprintf("u%d", r)), {}, str(fmt.Sprintf("yes %d", r))}})
		all = append(all, gridRow{r, []backend.ReadCell{str(fmt.Sprintf("u%d", r)), str(long), str(fmt.Sprintf("yes %d", r))}})
	}
	// Two plain parts: not held, and no error while no row names it.
	sst.WriteString("<si><t>a</t><t>b</t></si>")
	bad := fmt.Sprintf(`<row r="101"><c t="s"><v>%d</v></c></row>`, 3*100)
	for _, c := range []struct {
		name         string
		spare        int
		keepAll, bad bool
		want         []gridRow
		passes, held int
	}{
		{"short kept cells, one pass", 1 << 10, false, false, short, 1, 3 + 2*99},
		{"no spare, a pass for the rest", 0, false, false, short, 2, 3 + 2*99},
		{"beyond the budget, a pass for the rest", 50, false, false, short, 2, 3 + 2*99},
		{"long kept cells fetched when named", 1 << 10, true, false, all, 2, 3 + 3*99},
		{"a string as ECMA-376 does not allow, once named", 1 << 10, false, true, nil, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := rows.String()
			if c.bad {
				body += bad
			}
			path := oneSheet(body, sst.String(), "").file(t)
			b, err := openPackage(path, path, spareLimits(1<<20, c.spare))
			if err != nil {
				t.Fatal(err)
			}
			defer b.close()
			var got []gridRow
			err = b.grid().RowsKeeping("S1", func(col int) bool { return c.keepAll || col != 1 }, func(n int, cells []backend.ReadCell) error {
				got = append(got, gridRow{n, cells})
				return nil
			})
			if c.bad {
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "shared string 300: its text is in two plain parts") {
					t.Errorf("got %v, want the damaged string 300", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			lazy := b.tables.lazy
			if lazy.passes != c.passes || lazy.held.len() != c.held {
				t.Errorf("%d passes over the table, %d strings held; want %d passes, %d strings", lazy.passes, lazy.held.len(), c.passes, c.held)
			}
		})
	}
}

// TestLazySpareBudget: strings held spare do not count against the
// budget of the strings the sheets name (MaxSharedStringBytes).
func TestLazySpareBudget(t *testing.T) {
	lim := spareLimits(1<<20, 10)
	lim.sstBytes = 20
	path := oneSheet(`<row r="1"><c t="s"><v>0</v></c></row><row r="2"><c t="s"><v>2</v></c></row>`,
		`<si><t>0123456789</t></si><si><t>abcdefgh</t></si><si><t>ABCDEFGHIJ</t></si>`, "").file(t)
	_, got, err := readAllLimits(path, lim)
	if err != nil {
		t.Fatal(err)
	}
	want := []gridRow{{1, []backend.ReadCell{str("0123456789")}}, {2, []backend.ReadCell{str("ABCDEFGHIJ")}}}
	if diff := cmp.Diff(want, got["S1"]); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestLazyErrors checks the errors of a table read as needed: each names
// the part it is in, and a cell only where the sheet is wrong.
func TestLazyErrors(t *testing.T) {
	small := lazyLimits(1 << 20)
	small.sstBytes, small.row = 20, 30
	for _, c := range []struct {
		name, rows, sst string
		lim             readLimits
		want            error
		msg             string
	}{
		{"a string that does not exist",
			`<row r="1"><c t="s"><v>0</v></c></row><row r="2"><c t="s"><v>0</v></c><c t="s"><v>7</v></c></row>`, `<si><t>a</t></si>`,
			lazyLimits(1 << 20), ErrDamaged, `part xl/worksheets/sheet1.xml, cell B2: shared string "7" does not exist (there are 1)`},
		{"a string that does not exist, once the table is read",
			`<row r="1"><c t="s"><v>0</v></c></row><row r="2"><c t="s"><v>7</v></c></row><row r="3"><c t="s"><v>7</v></c></row>`, `<si><t>a</t></si>`,
			lazyLimits(1), ErrDamaged, `part xl/worksheets/sheet1.xml, cell A2: shared string "7" does not exist (there are 1)`},
		{"a damaged table",
			`<row r="1"><c t="s"><v>0</v></c></row>`, `<si><t>a &bad; b</t></si>`,
			lazyLimits(1 << 20), ErrDamaged, `part xl/sharedStrings.xml: undefined entity &bad;`},
		{"strings beyond their budget",
			`<row r="1"><c t="s"><v>0</v></c><c t="s"><v>1</v></c></row>`, `<si><t>0123456789</t></si><si><t>0123456789abc</t></si>`,
			small, ErrTooLarge, `part xl/sharedStrings.xml: the shared strings a sheet names hold more than 20 bytes of text (MaxSharedStringBytes)`},
		{"the table read too often",
			`<row r="1"><c t="s"><v>0</v></c></row><row r="2"><c t="s"><v>1</v></c></row><row r="3"><c t="s"><v>2</v></c></row>`, `<si><t>a</t></si><si><t>b</t></si><si><t>c</t></si>`,
			func() readLimits { l := lazyLimits(1); l.sstScan = 100; return l }(), ErrTooLarge,
			`part xl/sharedStrings.xml: reading the sheets would pass over the shared strings again, beyond the 100 bytes it may read in all`},
		{"a queued row beyond its budget",
			`<row r="1"><c><v>1</v></c></row><row r="2"><c t="s"><v>0</v></c><c t="s"><v>0</v></c><c t="s"><v>0</v></c><c t="s"><v>0</v></c></row>`, `<si><t>0123456789</t></si>`,
			func() readLimits { l := small; l.sstBytes = 100; return l }(), ErrTooLarge, `part xl/worksheets/sheet1.xml, row 2: more than 30 bytes of text in one row (MaxRowBytes)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := oneSheet(c.rows, c.sst, "").file(t)
			_, _, err := readAllLimits(path, c.lim)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %v\nwant %v with %q", err, c.want, c.msg)
			}
		})
	}
}

// TestSharedStringNumber checks that a shared string's number may have
// white space around it, as excelize reads it, whether the table is read
// whole or as needed.
func TestSharedStringNumber(t *testing.T) {
	path := oneSheet(`<row r="1"><c t="s"><v> 1 </v></c><c t="s"><v>`+"\n0\t"+`</v></c><c t="s"><v>01</v></c></row>`,
		`<si><t>a</t></si><si><t>b</t></si>`, "").file(t)
	for _, lim := range []readLimits{defaultLimits, lazyLimits(1 << 20)} {
		_, got, err := readAllLimits(path, lim)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]gridRow{{1, []backend.ReadCell{str("b"), str("a"), str("b")}}}, got["S1"]); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
	}
}
