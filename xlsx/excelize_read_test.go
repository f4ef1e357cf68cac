package xlsx

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
)

// excelizeBook is a workbook as excelize reads it, the reader Open used
// before: its sheets, each sheet's rows as its Rows iterator gives them
// (raw values, rows without cells left out), and the type each cell's XML
// names (its t attribute, as excelize's GetCellType reads it).
type excelizeBook struct {
	sheets []string
	rows   map[string]map[int][]string
	types  map[string]map[string]excelize.CellType // by sheet, by cell
}

// errExcelize is wrapped when excelize cannot read a workbook: the
// differential fuzzer has nothing to compare it with.
var errExcelize = errors.New("excelize does not read it")

// readExcelize reads path with excelize. A workbook counts as one
// excelize reads only when its own strict reading of every sheet (the
// whole XML decoded, as GetCellType does) succeeds too: the Rows iterator
// alone passes over damage silently.
func readExcelize(path string) (b *excelizeBook, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("%w: it panics: %v", errExcelize, p)
		}
	}()
	// excelize makes room for each part as large as the archive says it
	// is: a fuzzed size would take gigabytes.
	f, err := excelize.OpenFile(path, excelize.Options{UnzipSizeLimit: 64 << 20, UnzipXMLSizeLimit: 64 << 20})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errExcelize, err)
	}
	defer f.Close()
	b = &excelizeBook{sheets: f.GetSheetList(), rows: map[string]map[int][]string{}, types: map[string]map[string]excelize.CellType{}}
	for _, sheet := range b.sheets {
		rows, err := f.Rows(sheet)
		if err != nil {
			return nil, fmt.Errorf("%w: sheet %s: %v", errExcelize, sheet, err)
		}
		b.rows[sheet] = map[int][]string{}
		for n := 1; rows.Next(); n++ {
			cells, err := rows.Columns(excelize.Options{RawCellValue: true})
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("%w: sheet %s, row %d: %v", errExcelize, sheet, n, err)
			}
			if len(cells) > 0 {
				b.rows[sheet][n] = cells
			}
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("%w: sheet %s: %v", errExcelize, sheet, err)
		}
	}
	// Only now: once a sheet is decoded whole, Rows reads that copy.
	parts := sheetParts(path)
	for _, sheet := range b.sheets {
		if _, err := f.GetCellType(sheet, "A1"); err != nil {
			return nil, fmt.Errorf("%w: sheet %s: %v", errExcelize, sheet, err)
		}
		if b.types[sheet], err = xmlTypes(parts[sheet]); err != nil {
			return nil, fmt.Errorf("%w: sheet %s: %v", errExcelize, sheet, err)
		}
	}
	return b, nil
}

// compareExcelize reads every sheet of g and lists where it differs from
// what excelize read (nil when nowhere). With keep set, the sheets are
// read with Skim, and only the columns keep says are compared after the
// first row. An error is g's.
//
// The two differ, by design, in what is compared here as equal:
//   - a boolean is TRUE or FALSE where excelize gives the text stored
//     (1, true, 0, false, in any case, spaces around);
//   - a cell of type d (an ISO 8601 date) is its serial number where
//     excelize gives the date as stored: both are only checked to be
//     dates;
//   - the text in the <v> of a text cell (a formula's text result, of
//     type str, or an inline string without its <is>) has its _xHHHH_
//     escapes decoded, as the text of shared and inline strings has in
//     both;
//   - a formula whose text result is empty is an empty cell, where
//     excelize gives "" (see skimmed).
func compareExcelize(ex *excelizeBook, g *backend.Grid, keep func(int) bool) ([]string, error) {
	var diffs []string
	if diff := cmp.Diff(ex.sheets, g.Sheets); diff != "" {
		return []string{"sheets (-excelize +ours):\n" + diff}, nil
	}
	for _, sheet := range g.Sheets {
		got := map[int][]string{}
		first := 0
		err := g.RowsKeeping(sheet, keep, func(n int, cells []backend.ReadCell) error {
			if first == 0 {
				first = n
			}
			row := make([]string, len(cells))
			for i, c := range cells {
				row[i] = rawText(c)
				if c == (backend.ReadCell{}) {
					continue
				}
				name := backend.CellName(i, n)
				xt := ex.types[sheet][name]
				if d := typeDiff(xt, c); d != "" {
					diffs = append(diffs, fmt.Sprintf("%s!%s: %s", sheet, name, d))
				}
				if exRow := ex.rows[sheet][n]; i < len(exRow) && sameByDesign(xt, c, exRow[i]) {
					row[i] = exRow[i]
				}
			}
			got[n] = row
			return nil
		})
		if err != nil {
			return diffs, err
		}
		want, got := skimmed(ex.rows[sheet], first, keep), skimmed(got, first, keep)
		if diff := cmp.Diff(want, got); diff != "" {
			diffs = append(diffs, fmt.Sprintf("sheet %s (-excelize +ours):\n%s", sheet, diff))
		}
	}
	return diffs, nil
}

// rawText is a read cell's value as excelize gives it raw: a boolean as 1
// or 0, a date as its serial number, a formula never computed as "".
func rawText(c backend.ReadCell) string {
	switch {
	case c.Type == backend.CellBool && c.Value == "TRUE":
		return "1"
	case c.Type == backend.CellBool:
		return "0"
	}
	return c.Value
}

// sheetParts is the XML of each worksheet of the workbook at path, by
// name; the package's own reader says where each is.
func sheetParts(path string) map[string][]byte {
	out := map[string][]byte{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	b, err := openPackage(path, path, defaultLimits)
	if err != nil {
		return out
	}
	defer b.close()
	for _, e := range b.sheets {
		out[e.name], _ = zipPart(data, e.part)
	}
	return out
}

// xmlTypes is the type the t attribute of each cell of a sheet names, by
// cell, each cell placed as excelize's Rows places it: a row where its r
// says or after the one before, a cell where its r says or after the one
// before.
func xmlTypes(sheet []byte) (map[string]excelize.CellType, error) {
	types := map[string]excelize.CellType{}
	names := map[string]excelize.CellType{"b": excelize.CellTypeBool, "d": excelize.CellTypeDate, "n": excelize.CellTypeNumber,
		"e": excelize.CellTypeError, "s": excelize.CellTypeSharedString, "str": excelize.CellTypeFormula, "inlineStr": excelize.CellTypeInlineString}
	d := xml.NewDecoder(bytes.NewReader(sheet))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	row, col := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return types, nil
		}
		if err != nil {
			return nil, err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := func(name string) string {
			for _, a := range se.Attr {
				if a.Name.Local == name {
					return a.Value
				}
			}
			return ""
		}
		switch se.Name.Local {
		case "row":
			if n, err := strconv.Atoi(attr("r")); err == nil && n != 0 {
				row = n
			} else {
				row++
			}
			col = 0
		case "c":
			col++
			if r := attr("r"); r != "" {
				if col, _, err = excelize.CellNameToCoordinates(r); err != nil {
					return nil, err
				}
			}
			name, err := excelize.CoordinatesToCellName(col, row)
			if err != nil {
				return nil, err
			}
			types[name] = names[attr("t")]
		}
	}
}

// sameByDesign is whether a cell that excelize read as ex is the same
// where the two read cells differently by design (see compareExcelize).
func sameByDesign(xt excelize.CellType, c backend.ReadCell, ex string) bool {
	switch {
	case xt == excelize.CellTypeBool && c.Type == backend.CellBool:
		switch strings.ToLower(strings.TrimSpace(ex)) {
		case "1", "true":
			return c.Value == "TRUE"
		case "0", "false":
			return c.Value == "FALSE"
		}
	case xt == excelize.CellTypeDate && c.Type == backend.CellDate:
		return true
	case (xt == excelize.CellTypeFormula || xt == excelize.CellTypeInlineString) && c.Type == backend.CellString:
		return string(decodeEscapes([]byte(ex))) == c.Value
	}
	return false
}

// typeDiff says how a cell's type differs from the one excelize says its
// XML has ("" where it does not).
func typeDiff(xt excelize.CellType, c backend.ReadCell) string {
	var ok bool
	switch xt {
	case excelize.CellTypeBool:
		ok = c.Type == backend.CellBool
	case excelize.CellTypeError:
		ok = c.Type == backend.CellError
	case excelize.CellTypeSharedString, excelize.CellTypeInlineString:
		ok = c.Type == backend.CellString
	case excelize.CellTypeFormula:
		// A formula's text result, or none saved.
		ok = c.Type == backend.CellString || c.Type == backend.CellNoValue
	case excelize.CellTypeDate:
		ok = c.Type == backend.CellDate
	case excelize.CellTypeNumber, excelize.CellTypeUnset:
		ok = c.Type == backend.CellNumber || c.Type == backend.CellDate || c.Type == backend.CellNoValue
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("read as type %d (%q), but excelize says its XML has type %d", c.Type, c.Value, xt)
}

// skimmed is rows as compared: empty cells at the end of a row are left
// out, and so is a row of empty cells (a formula whose text result is
// empty shows nothing: excelize gives it, the reader leaves it out); with
// keep set, the cells of the columns it turns down are empty after row
// first, as Skim gives them.
func skimmed(rows map[int][]string, first int, keep func(int) bool) map[int][]string {
	out := map[int][]string{}
	for n, cells := range rows {
		cells = slices.Clone(cells)
		if keep != nil && n > first {
			for i := range cells {
				if !keep(i) {
					cells[i] = ""
				}
			}
		}
		for len(cells) > 0 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		if len(cells) > 0 {
			out[n] = cells
		}
	}
	return out
}

// CompareExcelize reads path with Open and with excelize, and lists where
// they differ (see compareExcelize): for the tests of package xlsx_test.
func CompareExcelize(path string) ([]string, error) {
	ex, err := readExcelize(path)
	if err != nil {
		return nil, err
	}
	g, closeFn, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return compareExcelize(ex, g, nil)
}

// differentialReads are the ways FuzzReadLikeExcelize reads a workbook:
// each must give what excelize gives.
var differentialReads = []struct {
	name string
	lim  readLimits
	keep func(int) bool
}{
	{"whole", fuzzLimits, nil},
	// Every part read ahead, on another core.
	{"lazy", func() readLimits { l := fuzzLimits; l.sstWhole, l.winCells, l.ahead = 0, 3, 0; return l }(), nil},
	{"skim", fuzzLimits, func(col int) bool { return col%2 == 0 }},
	{"lazy-skim", func() readLimits { l := fuzzLimits; l.sstWhole, l.winCells = 0, 3; return l }(), func(col int) bool { return col%3 != 1 }},
	// Holding no string before a row names it, and holding few and short ones.
	{"lazy-nospare", func() readLimits { l := fuzzLimits; l.sstWhole, l.winCells, l.spareCount = 0, 3, 0; return l }(), nil},
	{"lazy-clip", func() readLimits {
		l := fuzzLimits
		l.sstWhole, l.winCells, l.spareLen, l.spareCount = 0, 3, 3, 4
		return l
	}(), func(col int) bool { return col%2 == 1 }},
}

// FuzzReadLikeExcelize reads fuzzed workbooks with the package's reader
// and with excelize. The fuzzer writes the XML of a sheet and of its
// shared strings (none when empty), and the harness packs them in a
// workbook, with styles that show some numbers as dates, so that its
// mutations reach the XML rather than break the zip archive's checksums. Where excelize reads the
// workbook (its strict reading of the sheet included), the reader must
// read the same cells, values and types (see compareExcelize), whether
// its shared strings are read whole or as needed and whether columns are
// passed over, or refuse it for one of the reasons excelize does not
// check (see allowedRefusal).
func FuzzReadLikeExcelize(f *testing.F) {
	for _, s := range differentialSeeds(f) {
		f.Add(s.sheet, s.sst)
	}
	path := filepath.Join(f.TempDir(), "in.xlsx")
	f.Fuzz(func(t *testing.T, sheet, sst []byte) {
		data := packParts(t, sheet, sst)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ex, err := readExcelize(path)
		if err != nil {
			return
		}
		for _, r := range differentialReads {
			b, err := openPackage(path, path, r.lim)
			var diffs []string
			if err == nil {
				diffs, err = compareExcelize(ex, b.grid(), r.keep)
				b.close()
			}
			if err != nil {
				if why := allowedRefusal(data, err); why != "" {
					t.Fatalf("%s: %v\nexcelize reads it, and %s", r.name, err, why)
				}
				continue
			}
			if len(diffs) > 0 {
				t.Fatalf("%s: read unlike excelize:\n%s", r.name, strings.Join(diffs, "\n"))
			}
		}
	})
}

// packParts is a workbook of one sheet S1 whose parts are sheet and the
// shared strings sst (none where empty), stored, with the styles of
// differentialStyles.
func packParts(t testing.TB, sheet, sst []byte) []byte {
	p := oneSheet("", "", differentialStyles)
	p["xl/worksheets/sheet1.xml"] = string(sheet)
	if len(sst) > 0 {
		p["xl/sharedStrings.xml"] = string(sst)
	}
	return seed(t, p.zip(t), zip.Store)
}

// differentialStyles are cell formats 0 (General), 1 (a date) and 2 (a
// date and time of a custom format).
const differentialStyles = `<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm"/></numFmts>` +
	`<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/></cellXfs>`

// allowedRefusal says why the reader's refusal of a workbook excelize
// reads is not one it may make ("" when it is). The reader may refuse:
//   - for a budget (ErrTooLarge), a DTD (ErrDTD), or a character encoding
//     other than UTF-8 and UTF-16 (ErrUnsupported);
//   - for what is wrong with the cells, which excelize passes over
//     silently: rows or cells out of order, a cell named in another row
//     or beyond the sheet's edge, a cell of an unknown type, a boolean or
//     a date that is none, a shared string that does not exist, rich
//     text in a form ECMA-376 does not allow (two plain texts, or one
//     after the runs, which excelize and LibreOffice read differently), a
//     part the workbook names but lacks (ErrDamaged, without a fault of
//     the XML);
//   - for a fault of the XML that excelize's decoder does not look at:
//     outside the root element (text before it, anything after it, where
//     it stops), or in a part it does not decode; or what it does not
//     check in a start tag: an attribute given twice, or two attributes
//     with no white space between them.
//
// A fault of the XML anywhere else is a difference: excelize decodes it
// strictly, so the XML is well formed there.
func allowedRefusal(data []byte, err error) string {
	var re *readError
	if !errors.As(err, &re) {
		return "the error is not the reader's"
	}
	switch {
	case re.kind == ErrTooLarge, re.kind == ErrDTD, re.kind == ErrUnsupported:
		return ""
	case re.kind != ErrDamaged && re.kind != ErrNotSpreadsheet:
		return fmt.Sprintf("the error is of the kind %v", re.kind)
	}
	var se *scanError
	if !errors.As(err, &se) || se.cause != nil {
		return "" // the cells, a missing part, or a read error
	}
	part, ok := zipPart(data, re.part)
	if !ok {
		return "" // the package itself
	}
	start, end, unchecked, xerr := decodeLikeExcelize(part)
	switch {
	case xerr != nil, unchecked, se.off < start, se.off >= end:
		return ""
	case !decodedByExcelize(re.part):
		return ""
	}
	return fmt.Sprintf("its XML is well formed at byte %d of part %s, where the reader finds a fault", se.off, re.part)
}

// decodedByExcelize is whether excelize decodes a part strictly when it
// reads a workbook as compared here.
func decodedByExcelize(part string) bool {
	p := partKey(part)
	return strings.HasPrefix(p, "xl/worksheets/") || p == "xl/sharedstrings.xml" || p == "xl/workbook.xml" ||
		p == "[content_types].xml" || strings.HasSuffix(p, ".rels")
}

// zipPart is the inflated part named part of the zip archive data.
func zipPart(data []byte, part string) ([]byte, bool) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, false
	}
	for _, f := range zr.File {
		if partKey(f.Name) == partKey(part) {
			rc, err := f.Open()
			if err != nil {
				return nil, false
			}
			defer rc.Close()
			b, err := io.ReadAll(io.LimitReader(rc, 64<<20))
			return b, err == nil
		}
	}
	return nil, false
}

// decodeLikeExcelize decodes the root element of an XML part as excelize's
// decoder does: start is its offset and end the offset just past it,
// outside of which encoding/xml looks at little; unchecked says whether a
// start tag has a fault encoding/xml lets pass (an attribute twice, or
// attributes not separated by white space).
func decodeLikeExcelize(part []byte) (start, end int64, unchecked bool, err error) {
	d := xml.NewDecoder(bytes.NewReader(part))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	depth := 0
	for {
		at := d.InputOffset()
		tok, err := d.Token()
		if err != nil {
			return 0, 0, unchecked, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				start = at
			}
			depth++
			for i, a := range tok.Attr {
				for _, b := range tok.Attr[:i] {
					unchecked = unchecked || a.Name == b.Name
				}
			}
			unchecked = unchecked || unseparatedAttributes(part[at:d.InputOffset()])
		case xml.EndElement:
			if depth--; depth == 0 {
				return start, d.InputOffset(), unchecked, nil
			}
		}
	}
}

// unseparatedAttributes is whether a start tag encoding/xml has decoded
// (tag, its bytes from '<' to '>') has an attribute's value followed
// straight by another attribute's name, which XML does not allow.
func unseparatedAttributes(tag []byte) bool {
	for i := 0; i < len(tag); i++ {
		if tag[i] != '=' {
			continue
		}
		j := i + 1
		for j < len(tag) && isSpace(tag[j]) {
			j++
		}
		if j >= len(tag) || (tag[j] != '"' && tag[j] != '\'') {
			continue
		}
		k := bytes.IndexByte(tag[j+1:], tag[j])
		if k < 0 {
			return false
		}
		i = j + 1 + k
		if next := i + 1; next < len(tag) && !isSpace(tag[next]) && tag[next] != '/' && tag[next] != '>' {
			return true
		}
	}
	return false
}

// differentialSeed is the XML of a sheet and of its shared strings.
type differentialSeed struct{ sheet, sst []byte }

// differentialSeeds are small workbooks' parts: one of each kind of cell
// and text, as Excel, LibreOffice, openpyxl and our writer save them.
func differentialSeeds(t testing.TB) []differentialSeed {
	t.Helper()
	sst := `<si><t>plain</t></si>` +
		`<si><t xml:space="preserve">  spaced _x000D_ text  </t></si>` +
		`<si><r><t>rich</t></r><r><rPr><b/><sz val="11"/></rPr><t xml:space="preserve"> run</t></r><rPh sb="0" eb="1"><t>ル</t></rPh><phoneticPr fontId="1"/></si>` +
		`<si><t>&lt;tag&gt; &amp; &quot;q&quot; &#233; &#x1F600;</t></si>` +
		`<si><t><![CDATA[cdata <b>&amp;</b>]]></t></si>` +
		`<si><t/></si>`
	books := []parts{
		oneSheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>`+
			`<row r="2"><c r="A2" t="s"><v>3</v></c><c r="B2" t="s"><v>4</v></c><c r="C2" t="s"><v>5</v></c></row>`+
			`<row r="3"><c r="A3"><v>42</v></c><c r="B3"><v>-1.5E-3</v></c><c r="C3" t="n"><v>7</v></c><c r="D3" s="1"><v>45365</v></c><c r="E3" s="2"><v>45365.5</v></c></row>`+
			`<row r="5"><c r="B5" t="b"><v>1</v></c><c r="C5" t="b"><v>0</v></c><c r="D5" t="e"><v>#DIV/0!</v></c></row>`+
			`<row r="7"><c r="A7" t="str"><f>A1&amp;"x"</f><v>plainx</v></c><c r="B7"><f>1+1</f><v>2</v></c><c r="C7" t="b"><f>TRUE()</f><v>1</v></c><c r="D7"><f>SUM(A3:B3)</f></c></row>`,
			sst, ""),
		oneSheet(`<row><c t="inlineStr"><is><t>no r</t></is></c><c t="inlineStr"><is><t xml:space="preserve"> two </t></is></c></row>`+
			`<row><c><v>1</v></c><c/><c><v>3</v></c></row>`+
			`<row r="10" spans="1:3"><c r="C10" t="inlineStr"><is><r><t>a</t></r><r><t>b</t></r></is></c></row>`+
			`<row r="11"><c r="A11" t="inlineStr"><is><t>line&#10;break &#13;cr _x0041_ _x005F_x0041_</t></is></c></row>`+
			`<row r="12"><c r="A12" t="d"><v>2024-03-14T10:00:00</v></c><c r="B12" t="str"><f>"a"</f><v>tab_x0009_</v></c></row>`,
			"", ""),
		oneSheet(`<row r="1" customFormat="false" ht="12.8" hidden="false" customHeight="false" outlineLevel="0" collapsed="false">`+
			`<c r="A1" s="0" t="s"><v>0</v></c><c r="B1" s="0" t="b"><f aca="false">TRUE()</f><v>1</v></c><c r="C1" s="0" t="str"><f aca="false">A1</f><v>plain</v></c></row>`,
			`<si><t xml:space="preserve">plain</t></si>`, ""),
	}
	var seeds []differentialSeed
	for _, p := range books {
		seeds = append(seeds, differentialSeed{[]byte(p["xl/worksheets/sheet1.xml"]), []byte(p["xl/sharedStrings.xml"])})
	}
	// Our writer's, without the namespace declarations it does not use.
	var b bytes.Buffer
	if err := Write(tinyPlan(), &b, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	data := seed(t, b.Bytes(), zip.Store)
	sheet, _ := zipPart(data, "xl/worksheets/sheet1.xml")
	return append(seeds, differentialSeed{sheet, nil})
}

// TestReadLikeExcelizeSeeds checks that the fuzzer's seeds read alike,
// and that excelize reads each.
func TestReadLikeExcelizeSeeds(t *testing.T) {
	for i, s := range differentialSeeds(t) {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("seed-%d.xlsx", i))
		if err := os.WriteFile(path, packParts(t, s.sheet, s.sst), 0o644); err != nil {
			t.Fatal(err)
		}
		ex, err := readExcelize(path)
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		for _, r := range differentialReads {
			b, err := openPackage(path, path, r.lim)
			if err != nil {
				t.Fatalf("seed %d, %s: %v", i, r.name, err)
			}
			diffs, err := compareExcelize(ex, b.grid(), r.keep)
			b.close()
			if err != nil || len(diffs) > 0 {
				t.Errorf("seed %d, %s: %v\n%s", i, r.name, err, strings.Join(diffs, "\n"))
			}
		}
	}
}

// FuzzReadLikeExcelizeCells is FuzzReadLikeExcelize on workbooks made from
// the fuzzer's bytes, which choose each row, cell, type, value and shared
// string from the forms spreadsheet applications write (and some they
// do not): nearly every one is well formed, so that the two readers are
// compared on the cells rather than on the XML.
func FuzzReadLikeExcelizeCells(f *testing.F) {
	for _, s := range []string{"", "\x00\x01\x02\x03", "\x05\x13\x27\x31\x45\x59\x6a\x7b\x8c\x9d\xae\xbf", strings.Repeat("\x11\x22\x33\x44\x55\x66\x77\x88\x99", 8)} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "in.xlsx")
	f.Fuzz(func(t *testing.T, choices []byte) {
		sheet, sst := cellsFrom(choices)
		data := packParts(t, sheet, sst)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ex, err := readExcelize(path)
		if err != nil {
			return
		}
		for _, r := range differentialReads {
			b, err := openPackage(path, path, r.lim)
			var diffs []string
			if err == nil {
				diffs, err = compareExcelize(ex, b.grid(), r.keep)
				b.close()
			}
			if err != nil {
				if why := allowedRefusal(data, err); why != "" {
					t.Fatalf("%s: %v\nexcelize reads it, and %s\n%s\n%s", r.name, err, why, sheet, sst)
				}
				continue
			}
			if len(diffs) > 0 {
				t.Fatalf("%s: read unlike excelize:\n%s\n%s\n%s", r.name, strings.Join(diffs, "\n"), sheet, sst)
			}
		}
	})
}

// cellsFrom makes the XML of a sheet and its shared strings from choices.
func cellsFrom(choices []byte) (sheet, sst []byte) {
	next := func(n int) int {
		if len(choices) == 0 {
			return 0
		}
		c := int(choices[0])
		choices = choices[1:]
		return c % n
	}
	texts := []string{"plain", " spaced ", "a &amp; b", "&lt;x&gt; &quot;", "<![CDATA[c&d]]>", "_x000D_", "_x005F_x0041_",
		"é漢😀", "", "line\nbreak", "&#13;", "\t", "x_x0041_y", "&#x1F600;", "  ", "1", "TRUE"}
	text := func() string {
		t := texts[next(len(texts))]
		if next(4) == 0 {
			t += texts[next(len(texts))]
		}
		return t
	}
	// A <t>, or runs, as a shared or an inline string holds them.
	rich := func() string {
		space := ""
		if next(2) == 0 {
			space = ` xml:space="preserve"`
		}
		switch next(6) {
		case 0, 1:
			return "<t" + space + ">" + text() + "</t>"
		case 2:
			return "<t" + space + "/>"
		case 3:
			// Not as ECMA-376 has it: refused.
			return []string{"<t>a</t><t>b</t>", "<r><t>a</t></r><t>b</t>"}[next(2)]
		}
		var b strings.Builder
		if next(3) == 0 {
			b.WriteString("<t>" + text() + "</t>")
		}
		for range 1 + next(3) {
			b.WriteString("<r>")
			if next(2) == 0 {
				b.WriteString(`<rPr><b/><sz val="11"/></rPr>`)
			}
			for range 1 + next(2) {
				b.WriteString("<t" + space + ">" + text() + "</t>")
			}
			b.WriteString("</r>")
		}
		if next(3) == 0 {
			b.WriteString(`<rPh sb="0" eb="1"><t>ル</t></rPh>`)
		}
		return b.String()
	}
	strs := next(6)
	var sb strings.Builder
	if strs > 0 {
		sb.WriteString(`<sst ` + nsMain + `>`)
		for range strs {
			sb.WriteString("<si>" + rich() + "</si>")
		}
		sb.WriteString("</sst>")
	}
	numbers := []string{"1", "-2.5", "1E3", "0", "45365.5", " 7 ", "00012", "1e-7"}
	var b strings.Builder
	row := 0
	for len(choices) > 0 {
		b.WriteString("<row")
		if next(3) != 0 {
			row += 1 + next(3)
			fmt.Fprintf(&b, ` r="%d"`, row)
		} else {
			row++
		}
		b.WriteString(">")
		col := -1
		for range next(6) {
			col += 1 + next(3)
			b.WriteString("<c")
			if next(3) != 0 {
				fmt.Fprintf(&b, ` r="%s"`, backend.CellName(col, row))
			}
			if s := next(5); s < 3 {
				fmt.Fprintf(&b, ` s="%d"`, s)
			}
			formula := ""
			if next(4) == 0 {
				formula = "<f>A1&amp;\"x\"</f>"
			}
			switch next(12) {
			case 0:
				b.WriteString("/>")
				continue
			case 1:
				b.WriteString(">" + formula + "<v>" + numbers[next(len(numbers))] + "</v>")
			case 2:
				b.WriteString(` t="n">` + formula + "<v>" + numbers[next(len(numbers))] + "</v>")
			case 3:
				fmt.Fprintf(&b, ` t="s"><v>%d</v>`, next(max(strs, 1)))
			case 4:
				b.WriteString(` t="inlineStr"><is>` + rich() + "</is>")
			case 5:
				b.WriteString(` t="str">` + formula + "<v>" + text() + "</v>")
			case 6:
				b.WriteString(` t="b">` + formula + "<v>" + []string{"0", "1", "true", "FALSE"}[next(4)] + "</v>")
			case 7:
				b.WriteString(` t="e">` + formula + "<v>#N/A</v>")
			case 8:
				b.WriteString(` t="d"><v>` + []string{"2024-03-14", "2024-03-14T10:30:00", "1900-01-01"}[next(3)] + "</v>")
			case 9:
				fmt.Fprintf(&b, []string{` t="s"><v> %d </v>`, ` t="s"><v>0%d</v>`, "  t=\"s\"><v>\n%d</v>"}[next(3)], next(max(strs, 1)))
			case 10:
				b.WriteString(` t="inlineStr">` + formula + "<v>" + text() + "</v>")
			case 11:
				b.WriteString(` t="inlineStr"><v>` + text() + "</v><is>" + rich() + "</is>")
			}
			b.WriteString("</c>")
		}
		b.WriteString("</row>")
	}
	return []byte(sheetXML(b.String())), []byte(sb.String())
}
