package xlsx_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/xuri/excelize/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/xlsxdump"
	"github.com/annosheet/annosheet/xlsx"
)

var update = flag.Bool("update", false, "rewrite the golden dumps in testdata/golden")

// bookCase is one template on real data.
type bookCase struct {
	name     string
	template string
	inputs   []string
	params   map[string]string
	// names that must not appear anywhere in the workbook package.
	secret []string
	// bandKey reads a row's band key from the sheet; nil for the ID column.
	bandKey func(cols []templates.ColumnSpec, row []string) string
}

var bookCases = []bookCase{
	{name: "legal-gaps", template: "legal-gaps", inputs: []string{"../testdata/data/legal-gaps/examples.sample.jsonl"},
		// The ids (gpt4o-11 …) name the models: the workbook shows opaque IDs.
		secret: []string{"gpt4o", "llama3"}},
	{name: "preference-likert", template: "preference-likert", inputs: []string{"../testdata/data/preference/preference_json_1.json"}},
	{name: "qa-span-errors", template: "qa-span-errors", inputs: []string{"../testdata/data/qa-feedback/dev_feedback.sample.json"}},
	{name: "factgenie-meta-eval", template: "factgenie-meta-eval", inputs: []string{"../testdata/data/factgenie-d2t"},
		secret: []string{"gpt4o", "llama3-3", "claude-3-7-sonnet", "gemma2", "phi3-5"},
		// (instance, evaluator): the ID and Evaluator columns.
		bandKey: func(cols []templates.ColumnSpec, row []string) string {
			return row[0] + "|" + cellOf(cols, row, "context:evaluator")
		}},
	{name: "mqm-custom", template: "../testdata/templates/mqm.yaml", inputs: []string{"../testdata/data/mqm/segments.jsonl"},
		// The bands follow the document: the segment id without its number.
		bandKey: func(_ []templates.ColumnSpec, row []string) string {
			return row[0][:strings.LastIndexByte(row[0], '-')]
		}},
}

// cellOf is the cell of the column with the given key in a row.
func cellOf(cols []templates.ColumnSpec, row []string, key string) string {
	for i, c := range cols {
		if c.Key == key && i < len(row) {
			return row[i]
		}
	}
	return ""
}

// build loads the case's template and builds its plan deterministically.
func build(t testing.TB, c bookCase) (*templates.Template, *layout.Result) {
	t.Helper()
	tmpl, err := input.Template(c.template, c.params)
	if err != nil {
		t.Fatal(err)
	}
	src, err := input.Open(tmpl.Input.Format, c.inputs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tmpl, src, layout.Options{Batch: "b01", Study: "test-study", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tmpl, res
}

// writeBook renders a plan into a file in a temporary folder.
func writeBook(t testing.TB, res *layout.Result, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".xlsx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xlsx.Write(res.Plan, f, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGolden compares a readable dump of each generated workbook with the
// one in testdata/golden. Run with -update after a deliberate change and
// read the diff.
func TestGolden(t *testing.T) {
	for _, c := range bookCases {
		t.Run(c.name, func(t *testing.T) {
			_, res := build(t, c)
			got, err := xlsxdump.File(writeBook(t, res, c.name), xlsxdump.Options{})
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./xlsx -run TestGolden -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("dump differs from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestWorkbook reopens every generated workbook and checks what annotators
// and pull rely on: sheets, headers, validations, locks, freeze, bands and
// the metadata.
func TestWorkbook(t *testing.T) {
	for _, c := range bookCases {
		t.Run(c.name, func(t *testing.T) {
			tmpl, res := build(t, c)
			path := writeBook(t, res, c.name)
			f, err := excelize.OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cols := tmpl.Columns()
			checkSheets(t, f, res)
			checkHeaders(t, f, cols)
			checkValidations(t, f, tmpl, cols, res.Rows+1)
			checkLocks(t, f, cols, res.Rows+1)
			checkBands(t, f, c, cols, res)
			checkMeta(t, f, tmpl, cols, res)
			checkPanes(t, f, tmpl)
			if len(c.secret) > 0 {
				checkSecrets(t, path, c.secret)
			}
		})
	}
}

func checkSheets(t *testing.T, f *excelize.File, res *layout.Result) {
	t.Helper()
	var want []string
	for _, s := range res.Plan.Sheets {
		want = append(want, s.Name)
	}
	if diff := cmp.Diff(want, f.GetSheetList()); diff != "" {
		t.Errorf("sheets (-want +got):\n%s", diff)
	}
	for _, s := range res.Plan.Sheets {
		visible, err := f.GetSheetVisible(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if visible != (s.Visibility == backend.Visible) {
			t.Errorf("sheet %s visible = %v, want %v", s.Name, visible, s.Visibility == backend.Visible)
		}
	}
	if f.GetSheetName(f.GetActiveSheetIndex()) != backend.SheetInstructions {
		t.Errorf("active sheet %q, want the Instructions", f.GetSheetName(f.GetActiveSheetIndex()))
	}
}

func checkHeaders(t *testing.T, f *excelize.File, cols []templates.ColumnSpec) {
	t.Helper()
	rows, err := f.GetRows(backend.SheetAnnotate)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range cols {
		want = append(want, c.Header)
	}
	if diff := cmp.Diff(want, rows[0]); diff != "" {
		t.Errorf("header row (-want +got):\n%s", diff)
	}
	for i, c := range cols {
		vis, err := f.GetColVisible(backend.SheetAnnotate, backend.ColumnLetter(i))
		if err != nil {
			t.Fatal(err)
		}
		if vis == (c.Role == templates.RoleUnit) {
			t.Errorf("column %s (%s) visible = %v", backend.ColumnLetter(i), c.Header, vis)
		}
	}
}

// checkValidations checks that every answer column has the validation its
// question type promises, over every data row.
func checkValidations(t *testing.T, f *excelize.File, tmpl *templates.Template, cols []templates.ColumnSpec, lastRow int) {
	t.Helper()
	dvs, err := f.GetDataValidations(backend.SheetAnnotate)
	if err != nil {
		t.Fatal(err)
	}
	bySqref := map[string]*excelize.DataValidation{}
	for _, v := range dvs {
		bySqref[v.Sqref] = v
	}
	for i, c := range cols {
		if c.Role != templates.RoleAnswer {
			continue
		}
		sqref := fmt.Sprintf("%s2:%s%d", backend.ColumnLetter(i), backend.ColumnLetter(i), lastRow)
		q := c.Question
		v := bySqref[sqref]
		free := (q.Type == templates.TypeText || q.Type == templates.TypeSpan) && c.Part == "" && q.Description == ""
		if v == nil {
			if !free {
				t.Errorf("column %q: no validation over %s", c.Header, sqref)
			}
			continue
		}
		switch {
		case c.Option != nil || q.Type == templates.TypeBool:
			if v.Type != "list" || v.Formula1 != `"TRUE,FALSE"` {
				t.Errorf("checkbox column %q: validation %s %s, want a TRUE,FALSE list", c.Header, v.Type, v.Formula1)
			}
		case q.Type == templates.TypeChoice:
			var labels []string
			for _, o := range q.Options {
				labels = append(labels, o.Label)
			}
			inline := `"` + strings.Join(labels, ",") + `"`
			if v.Type != "list" || v.Formula1 != inline && !strings.HasPrefix(v.Formula1, backend.SheetLists+"!") {
				t.Errorf("choice %q: validation %s %s, want the labels %s", c.Header, v.Type, v.Formula1, inline)
			}
			if v.ErrorStyle == nil || *v.ErrorStyle != "stop" {
				t.Errorf("choice %q: entries outside the list are not rejected", c.Header)
			}
		case q.Type == templates.TypeScale:
			lo, hi := *q.Min, *q.Max
			if u := q.Unanswered; u != nil {
				lo, hi = min(lo, *u), max(hi, *u)
			}
			if v.Type != "whole" || v.Formula1 != fmt.Sprint(lo) || v.Formula2 != fmt.Sprint(hi) {
				t.Errorf("scale %q: validation %s %s..%s, want whole %d..%d", c.Header, v.Type, v.Formula1, v.Formula2, lo, hi)
			}
		case c.Part == templates.PartPassage || c.Part == templates.PartOccurrence:
			if v.Type != "whole" {
				t.Errorf("%q: validation %s, want whole numbers", c.Header, v.Type)
			}
		}
		if q.Description != "" && (v.Prompt == nil || *v.Prompt == "") {
			t.Errorf("%q: no input prompt", c.Header)
		}
	}
}

// checkLocks checks that context is locked and answers are open, on a
// protected sheet that still allows sorting and filtering.
func checkLocks(t *testing.T, f *excelize.File, cols []templates.ColumnSpec, lastRow int) {
	t.Helper()
	p, err := f.GetSheetProtection(backend.SheetAnnotate)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Sort || !p.AutoFilter || !p.SelectLockedCells || !p.SelectUnlockedCells || p.DeleteRows || p.FormatCells {
		t.Errorf("protection %+v: want sort, autofilter and selection allowed, deleting rows and formatting cells not", p)
	}
	for _, row := range []int{1, 2, lastRow} {
		for i, c := range cols {
			cell := backend.CellName(i, row)
			id, err := f.GetCellStyle(backend.SheetAnnotate, cell)
			if err != nil {
				t.Fatal(err)
			}
			st, err := f.GetStyle(id)
			if err != nil {
				t.Fatal(err)
			}
			locked := st.Protection == nil || st.Protection.Locked
			wantOpen := row > 1 && (c.Role == templates.RoleAnswer || c.Role == templates.RoleAnnotator || spanSource(cols, c))
			if c.Question != nil && c.Question.Scope == "block" && row == lastRow {
				wantOpen = false // below a block's first row
			}
			if locked == wantOpen {
				t.Errorf("%s (%s) locked = %v", cell, c.Header, locked)
			}
		}
	}
	// Rows inserted by an annotator take the column's style: answer
	// columns must be open there too.
	for i, c := range cols {
		id, err := f.GetColStyle(backend.SheetAnnotate, backend.ColumnLetter(i))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.GetStyle(id)
		open := st != nil && st.Protection != nil && !st.Protection.Locked
		if open != (c.Role == templates.RoleAnswer || c.Role == templates.RoleAnnotator || spanSource(cols, c)) {
			t.Errorf("column %s (%s) default open = %v", backend.ColumnLetter(i), c.Header, open)
		}
	}
}

// checkBands checks that the ID column's colour changes exactly when the
// band key changes, reading the key from the sheet itself.
func checkBands(t *testing.T, f *excelize.File, c bookCase, cols []templates.ColumnSpec, res *layout.Result) {
	t.Helper()
	rows, err := f.GetRows(backend.SheetAnnotate)
	if err != nil {
		t.Fatal(err)
	}
	bandKey := c.bandKey
	if bandKey == nil {
		bandKey = func(_ []templates.ColumnSpec, row []string) string { return row[0] }
	}
	prevKey, prevFill := "", ""
	changes := 0
	for r := 2; r <= res.Rows+1; r++ {
		key := bandKey(cols, rows[r-1])
		id, _ := f.GetCellStyle(backend.SheetAnnotate, backend.CellName(0, r))
		st, _ := f.GetStyle(id)
		fill := ""
		if len(st.Fill.Color) > 0 {
			fill = st.Fill.Color[0]
		}
		if fill == "" {
			t.Fatalf("A%d has no band colour", r)
		}
		if r > 2 && (key != prevKey) != (fill != prevFill) {
			t.Errorf("row %d: key %q after %q, fill %s after %s: the colour must change exactly with the key", r, key, prevKey, fill, prevFill)
		}
		if key != prevKey {
			changes++
		}
		prevKey, prevFill = key, fill
	}
	if changes < 2 && res.Rows > 1 {
		t.Errorf("only %d band groups", changes)
	}
}

// checkMeta checks that the workbook describes itself for pull.
func checkMeta(t *testing.T, f *excelize.File, tmpl *templates.Template, cols []templates.ColumnSpec, res *layout.Result) {
	t.Helper()
	rows, err := f.GetRows(backend.SheetMeta)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][0] != "workbook" {
		t.Fatalf("metadata starts with %q", rows[0][0])
	}
	var meta layout.WorkbookMeta
	if err := json.Unmarshal([]byte(strings.Join(rows[0][1:], "")), &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Template.Name != tmpl.Name || meta.Template.Version != tmpl.Version || meta.Batch != "b01" || meta.Sheet != backend.SheetAnnotate {
		t.Errorf("metadata %+v", meta)
	}
	if meta.Template.SHA256 != tmpl.Hash() {
		t.Errorf("template hash %s, want %s", meta.Template.SHA256, tmpl.Hash())
	}
	for i, c := range cols {
		if i >= len(meta.Columns) || meta.Columns[i] != (layout.MetaColumn{Key: c.Key, Header: c.Header, Index: i}) {
			t.Errorf("metadata column %d: %+v, want key %s", i, meta.Columns[i], c.Key)
		}
	}
	if rows[1][0] != "template" || strings.Join(rows[1][1:], "") != string(tmpl.Source) {
		t.Errorf("metadata does not carry the template's exact text")
	}
	var units []layout.Unit
	var places []string // the places' formulas of each block, a line each
	for i, r := range rows[3:] {
		if r[0] == "places" && tmpl.Rows.Per == templates.PerBlock {
			line := r[1]
			for c := 2; c < len(r); c++ {
				fx, err := f.GetCellFormula(backend.SheetMeta, backend.CellName(c, i+4))
				if err != nil {
					t.Fatal(err)
				}
				line += " " + fx
			}
			places = append(places, line)
			continue
		}
		if r[0] != "unit" || len(places) > 0 {
			t.Fatalf("metadata row %q", r)
		}
		var u layout.Unit
		u.ID, u.Item = r[1], r[2]
		fmt.Sscan(r[3], &u.FirstRow)
		fmt.Sscan(r[4], &u.Rows)
		units = append(units, u)
	}
	// Opaque IDs stand for the real ones through the coordinator's key.
	real := slices.Clone(units)
	if key := res.OpaqueIDs; key != nil {
		for i := range real {
			real[i].ID, real[i].Item = key[real[i].ID], key[real[i].Item]
		}
	}
	// The record a unit comes from is the coordinator's, not in the workbook.
	if diff := cmp.Diff(res.Units, real, cmpopts.IgnoreFields(layout.Unit{}, "Record")); diff != "" {
		t.Errorf("metadata units (-want +got):\n%s", diff)
	}
	// A block's places are the rows of its unit cells, as generated.
	unitCol := len(cols) - 1
	var want []string
	if tmpl.Rows.Per == templates.PerBlock {
		for _, u := range units {
			line := u.ID
			for r := u.FirstRow; r < u.FirstRow+u.Rows; r++ {
				line += fmt.Sprintf(" ROW(Annotate!$%s$%d)", backend.ColumnLetter(unitCol), r)
			}
			want = append(want, line)
		}
	}
	if diff := cmp.Diff(want, places); diff != "" {
		t.Errorf("places (-want +got):\n%s", diff)
	}
	// The hidden Unit column on the Annotate sheet carries the same ids,
	// so that rows stay joined to their units when sorted.
	sheet, _ := f.GetRows(backend.SheetAnnotate)
	for _, u := range units {
		if got := sheet[u.FirstRow-1][unitCol]; got != u.ID {
			t.Errorf("row %d: unit cell %q, want %q", u.FirstRow, got, u.ID)
		}
	}
}

func checkPanes(t *testing.T, f *excelize.File, tmpl *templates.Template) {
	t.Helper()
	p, err := f.GetPanes(backend.SheetAnnotate)
	if err != nil {
		t.Fatal(err)
	}
	cols := tmpl.FrozenColumns()
	if !p.Freeze || p.YSplit != 1 || p.XSplit != cols {
		t.Errorf("panes %+v: want the header row and %d column(s) frozen", p, cols)
	}
}

// checkSecrets looks through every part of the package, hidden sheets and
// metadata included, for names that must stay with the coordinator.
func checkSecrets(t *testing.T, path string, secret []string) {
	t.Helper()
	parts, err := zipParts(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range parts {
		for _, s := range secret {
			if strings.Contains(body, s) {
				t.Errorf("%s in the workbook holds %q", name, s)
			}
		}
	}
}

// TestHostileText checks what happens to text that a spreadsheet could
// misread or cannot hold: formula-like text stays text, control characters
// are shown visibly, and text over the cell limit is shown in part with a
// marker, a link to the Read sheet that holds it whole, and a warning
// that names the record and field.
func TestHostileText(t *testing.T) {
	long := strings.Repeat("Lorem ipsum dolor sit amet. ", 1500) // 42,000 characters
	recs := []map[string]any{
		{"id": "f1", "previous_context": "=1+1", "generation": "+SUM(A1:A2)", "target": "-42",
			"cited_paragraphs": []map[string]string{{"citation": "@cite", "text": "=HYPERLINK(\"http://example.com\")"}}},
		{"id": "c1", "previous_context": "bell\x07 and escape\x1b", "generation": "tab\tand\nnewline", "target": "_x0041_ stays literal",
			"cited_paragraphs": []map[string]string{}},
		{"id": "long", "previous_context": long, "generation": "g", "target": "t", "cited_paragraphs": []map[string]string{}},
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var b strings.Builder
	for _, r := range recs {
		j, _ := json.Marshal(r)
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, res := build(t, bookCase{template: "legal-gaps", inputs: []string{in}})
	cols := tp.Columns()
	at := func(key string, row int) string {
		i := slices.IndexFunc(cols, func(c templates.ColumnSpec) bool { return c.Key == key })
		if i < 0 {
			t.Fatalf("legal-gaps has no column %s", key)
		}
		return backend.CellName(i, row)
	}
	prev, cited, gen, target := "context:previous_context", "context:cited_paragraphs", "context:generation", "context:target"
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, w.Error())
	}
	wantWarnings := []string{
		in + `:2: record "c1": field "previous_context": 2 control character(s) and 0 invalid byte(s) are shown as visible symbols (␀…␟, ` + "\uFFFD" + `)`,
		in + `:3: record "long": field "previous_context": the text has 42000 characters, more than a cell holds (32767); the cell shows the last`,
	}
	head := slices.Clone(warnings)
	if len(head) == 2 {
		// The count shown is checked against the cell below.
		head[1] = head[1][:strings.Index(head[1], "last")+len("last")]
	}
	if diff := cmp.Diff(wantWarnings, head); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	f, err := excelize.OpenFile(writeBook(t, res, "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{
		at(prev, 2): "=1+1", at(gen, 2): "+SUM(A1:A2)", at(target, 2): "-42", at(cited, 2): "[1] @cite\n=HYPERLINK(\"http://example.com\")",
		at(prev, 3): "bell␇ and escape␛", at(gen, 3): "tab\tand\nnewline", at(target, 3): "_x0041_ stays literal",
	}
	for cell, v := range want {
		got, err := f.GetCellValue(backend.SheetAnnotate, cell)
		if err != nil {
			t.Fatal(err)
		}
		if got != v {
			t.Errorf("%s = %q, want %q", cell, got, v)
		}
		formula, _ := f.GetCellFormula(backend.SheetAnnotate, cell)
		typ, _ := f.GetCellType(backend.SheetAnnotate, cell)
		if formula != "" || typ != excelize.CellTypeInlineString {
			t.Errorf("%s: formula %q, type %v: text must be stored as text", cell, formula, typ)
		}
	}
	// The cell shows the end of the text, "…" where it is cut, and where
	// the Read sheet has all of it, linked.
	cut, _ := f.GetCellValue(backend.SheetAnnotate, at(prev, 4))
	body, label, ok := strings.Cut(cut, "\n→ read in full: sheet Read, row 2, or click the ID (the last ")
	part, marked := strings.CutPrefix(body, "… ")
	if !ok || !marked || !strings.HasSuffix(long, part) || len(part) < 1000 {
		t.Fatalf("the cut cell is not … and the end of the text, and the way to the rest: %.80q … %.80q", cut, cut[max(0, len(cut)-80):])
	}
	shown := len(utf16.Encode([]rune(part)))
	if label != fmt.Sprintf("%s of 42,000 characters are shown here)", thousands(shown)) {
		t.Errorf("the label does not count the %d characters shown: %q", shown, label)
	}
	if !strings.Contains(warnings[1], fmt.Sprintf("shows the last %d with a marker, and sheet Read holds all of it from row 2", shown)) {
		t.Errorf("warning %q does not give the %d characters shown", warnings[1], shown)
	}
	// The row's ID links there: the text, too long to wrap as a link in
	// LibreOffice, does not.
	if ok, target, _ := f.GetCellHyperLink(backend.SheetAnnotate, "A4"); !ok || target != "Read!A2" {
		t.Errorf("A4 links to %q (%v), want Read!A2", target, ok)
	}
	if ok, target, _ := f.GetCellHyperLink(backend.SheetAnnotate, at(prev, 4)); ok {
		t.Errorf("%s links to %q", at(prev, 4), target)
	}
	// The Read sheet: a header that links back, and the text in parts.
	rows, err := f.GetRows(backend.SheetRead)
	if err != nil {
		t.Fatal(err)
	}
	var whole strings.Builder
	for _, r := range rows[2:] {
		whole.WriteString(r[0])
	}
	id, _ := f.GetCellValue(backend.SheetAnnotate, "A4") // legal-gaps shows opaque IDs
	if whole.String() != long || !strings.HasPrefix(id, "item-") || !strings.HasPrefix(rows[1][0], id+" — Previous context — 42,000 characters in ") {
		t.Errorf("the Read sheet holds %d characters under %q, not the text's 42,000", whole.Len(), rows[1][0])
	}
	if ok, target, _ := f.GetCellHyperLink(backend.SheetRead, "B2"); !ok || target != "Annotate!"+at(prev, 4) {
		t.Errorf("Read!B2 links to %q (%v), want Annotate!%s", target, ok, at(prev, 4))
	}
}

// thousands writes n with commas.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestRowCountMismatch checks that the writer refuses a plan whose rows do
// not match its declared count instead of writing a sheet that readers
// misjudge.
func TestRowCountMismatch(t *testing.T) {
	p := &backend.Plan{Sheets: []*backend.Sheet{{
		Name: "S", Columns: []backend.Column{{Width: 10}}, RowCount: 3,
		Rows: func(emit func(backend.Row) error) error {
			return emit(backend.Row{Cells: []backend.Cell{{Value: "only one"}}})
		},
	}}}
	err := xlsx.Write(p, new(strings.Builder), xlsx.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "produced 1 rows, not the 3 it declared") {
		t.Errorf("err = %v", err)
	}
}

// TestCompressionLevels checks that every compression choice gives a
// workbook that reads back the same.
func TestCompressionLevels(t *testing.T) {
	_, res := build(t, bookCases[0])
	var dumps []string
	for _, c := range []xlsx.Compression{xlsx.CompressDefault, xlsx.CompressFast} {
		path := filepath.Join(t.TempDir(), "b.xlsx")
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := xlsx.Write(res.Plan, fh, xlsx.WriteOptions{Compression: c}); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		d, err := xlsxdump.File(path, xlsxdump.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, d)
	}
	if !slices.Equal(dumps, []string{dumps[0], dumps[0]}) {
		t.Error("compression levels change the content")
	}
}
