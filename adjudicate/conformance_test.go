package adjudicate_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/backendtest"
	"github.com/annosheet/annosheet/testkit/xlsxdump"
	"github.com/annosheet/annosheet/xlsx"
)

// valuesTemplate asks every kind of question an adjudicator decides on a
// value: a dropdown whose labels need the Lists sheet, a range, a
// checkbox, checkboxes of a multi, free text.
const valuesTemplate = `
name: adjudication-conformance
version: 1
title: Every kind of value an adjudicator decides
instructions: Answer every question of each text.
input: {format: jsonl, id: "{id}"}
rows: {per: record, id_header: Item}
context:
  - {name: text, header: Text, path: text, width: 40}
questions:
  - name: verdict
    header: Verdict
    type: choice
    required: true
    options:
      - {code: ok, label: "Fine: as written"}
      - {code: bad, label: "Wrong, badly"}
      - {code: unsure, label: Unsure}
  - {name: score, header: Score, type: scale, min: 1, max: 5}
  - {name: flagged, header: Flagged, type: bool}
  - name: tags
    header: Tags
    type: multi
    render: checkboxes
    options: [{code: a, label: Alpha}, {code: b, label: Beta}]
  - {name: comment, header: Comment, type: text, adjudicate: true}
`

// adjCase is one adjudication laid out by both backends: the records it
// is found from, the context shown, and what the adjudicator types (by
// decision ID and column header).
type adjCase struct {
	name     string
	template func(t *testing.T) *templates.Template
	records  []*records.Annotation
	context  map[string]map[string]string // unit -> context name -> text
	fields   map[string]string            // unit -> the text edited spans are found in
	fill     map[[2]string]any
}

func record(t *templates.Template, unit, who string, values map[string]any, spans ...records.SpanAnswer) *records.Annotation {
	return &records.Annotation{Schema: records.AnnotationSchema, Template: records.TemplateID{Name: t.Name, Version: t.Version},
		Batch: "b01", Unit: unit, Item: unit, Annotator: who, Status: records.StatusComplete, Values: values, Spans: spans}
}

func span(field string, start int, text, label, code string, values map[string]any) records.SpanAnswer {
	s := records.SpanAnswer{Question: "mqm", Field: field, Text: text, Label: label, Code: code, Values: values}
	if start >= 0 {
		end := start + len([]rune(text))
		s.Start, s.End = &start, &end
	}
	return s
}

func adjCases(t *testing.T) []adjCase {
	values, err := templates.LoadWithParams("values.yaml", []byte(valuesTemplate), nil)
	if err != nil {
		t.Fatal(err)
	}
	mqmSource, err := os.ReadFile(filepath.Join("..", "testdata", "templates", "mqm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mqm, err := templates.LoadWithParams("mqm.yaml", mqmSource, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := func(unit, who string, verdict string, score int, flagged bool, tags []string, comment string) *records.Annotation {
		vals := map[string]any{"verdict": verdict, "score": score, "flagged": flagged, "tags": tags}
		if comment != "" {
			vals["comment"] = comment
		}
		return record(values, unit, who, vals)
	}
	const vote, omitted = "The vote was narrow but clearly.", "In winter the museum closes."
	minor := map[string]any{"severity": "minor", "confidence": 2}
	major := map[string]any{"severity": "major", "confidence": 3}
	omission := map[string]any{"severity": "major", "source_span": records.SpanValue{Field: "source", Text: "um 16 Uhr"}}
	return []adjCase{{
		name:     "values",
		template: func(*testing.T) *templates.Template { return values },
		records: []*records.Annotation{
			v("u1", "ak", "ok", 4, true, []string{"a"}, "typo"),
			v("u1", "bt", "ok", 4, true, []string{"a"}, ""),
			v("u1", "cm", "bad", 2, false, []string{"a", "b"}, ""),
			v("u2", "ak", "ok", 3, false, []string{"b"}, ""),
			v("u2", "bt", "bad", 3, false, []string{"a"}, ""),
			v("u2", "cm", "unsure", 3, false, []string{"b"}, ""),
			v("u3", "ak", "ok", 5, false, []string{}, ""),
			v("u3", "bt", "ok", 5, false, []string{}, ""),
			v("u3", "cm", "ok", 5, false, []string{}, ""),
		},
		context: map[string]map[string]string{"u1": {"text": "The first text."}, "u2": {"text": "The second,\nin two lines."}, "u3": {"text": "The third."}},
		fill: map[[2]string]any{
			{"d0001", "Or use"}: "suggested", {"d0001", "Reason"}: "annotator error",
			{"d0002", "Final"}: 5, {"d0002", "Reason"}: "other", {"d0002", "Note"}: "neither",
			{"d0003", "Final"}: false, {"d0003", "Reason"}: "both acceptable",
			{"d0004", "Final: Tags: Beta"}: true,
			{"d0005", "Or use"}:            "Annotator 1",
			{"d0006", "Final"}:             "Wrong, badly", {"d0006", "Reason"}: "guideline unclear",
			// d0007 (u2's tags) is left; a name nobody has is an error.
			{"d0007", "Or use"}: "Annotator 9",
		},
	}, {
		name:     "spans",
		template: func(*testing.T) *templates.Template { return mqm },
		records: []*records.Annotation{
			record(mqm, "news-1-002", "ak", map[string]any{"no_errors": false}, span("translation", 24, "clearly", "Fluency: grammar", "fluency/grammar", minor)),
			record(mqm, "news-1-002", "bt", map[string]any{"no_errors": false}, span("translation", 20, "but clearly", "Fluency: grammar", "fluency/grammar", major)),
			record(mqm, "news-1-002", "cm", map[string]any{"no_errors": true}),
			record(mqm, "news-2-001", "ak", map[string]any{"no_errors": false}, span("", -1, "", "Accuracy: omission", "accuracy/omission", omission)),
			record(mqm, "news-2-001", "bt", map[string]any{"no_errors": false}, span("", -1, "", "Accuracy: omission", "accuracy/omission", omission)),
			record(mqm, "news-2-001", "cm", map[string]any{"no_errors": false}),
		},
		context: map[string]map[string]string{
			"news-1-002": {"source": "Die Abstimmung war knapp, aber eindeutig.", "translation": vote},
			"news-2-001": {"source": "Im Winter schließt das Museum um 16 Uhr.", "translation": omitted},
		},
		fields: map[string]string{"news-1-002": vote, "news-2-001": omitted},
		fill: map[[2]string]any{
			{"d0001", "Or use"}:   "suggested",
			{"d0002", "Decision"}: "edit", {"d0002", "Final type"}: "Fluency: grammar", {"d0002", "Final span"}: "clearly", {"d0002", "Reason"}: "annotator error",
			{"d0003", "Decision"}: "keep", {"d0003", "Note"}: "as two of three",
		},
	}}
}

// side is one backend under test: its Store, where a new workbook goes,
// the application's own view of a written workbook, and how its
// application stores what an adjudicator types.
type side struct {
	name   string
	store  backend.Store
	target func(t *testing.T) backend.Location
	view   func(t *testing.T, at backend.Location) *offer
	fill   func(t *testing.T, at backend.Location, cells []typed)
}

// offer is what a workbook offers the adjudicator, sheet by sheet, in
// terms common to the backends.
type offer struct {
	tabs   []string // name, with "(hidden)" when hidden
	sheets map[string]*sheetOffer
}

type sheetOffer struct {
	frozen      [2]int            // rows, columns
	protected   bool              // the sheet is protected
	open        []int             // columns open to edits on row 2 of a protected sheet
	validations map[string]string // cell -> rule and prompt
	notes       map[string]string // cell -> note
}

// typed is a value typed into a cell.
type typed struct {
	sheet, cell string
	value       any
}

func xlsxSide(t *testing.T) side {
	dir := t.TempDir()
	n := 0
	return side{
		name:  backend.KindXLSX,
		store: xlsx.Store{},
		target: func(*testing.T) backend.Location {
			n++
			return backend.Location{Kind: backend.KindXLSX, Path: filepath.Join(dir, fmt.Sprintf("adjudicate-%d.xlsx", n))}
		},
		view: xlsxOffer,
		fill: func(t *testing.T, at backend.Location, cells []typed) {
			f, err := excelize.OpenFile(at.Path)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cells {
				if err := f.SetCellValue(c.sheet, c.cell, c.value); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Save(); err != nil {
				t.Fatal(err)
			}
			f.Close()
		},
	}
}

func xlsxOffer(t *testing.T, at backend.Location) *offer {
	f, err := excelize.OpenFile(at.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o := &offer{sheets: map[string]*sheetOffer{}}
	for _, name := range f.GetSheetList() {
		tab := name
		if vis, _ := f.GetSheetVisible(name); !vis {
			tab += " (hidden)"
		}
		o.tabs = append(o.tabs, tab)
		s := &sheetOffer{validations: map[string]string{}, notes: map[string]string{}}
		o.sheets[name] = s
		if p, err := f.GetPanes(name); err == nil && p.Freeze {
			s.frozen = [2]int{p.YSplit, p.XSplit}
		}
		s.protected = xlsxProtected(t, at.Path, f, name)
		rows, err := f.GetRows(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.protected && len(rows) > 1 {
			for c := range rows[0] {
				id, _ := f.GetCellStyle(name, backend.CellName(c, 2))
				if st, _ := f.GetStyle(id); st != nil && st.Protection != nil && !st.Protection.Locked {
					s.open = append(s.open, c)
				}
			}
		}
		dvs, err := f.GetDataValidations(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, dv := range dvs {
			if dv.Type == "" && (dv.Prompt == nil || *dv.Prompt == "") {
				continue // no rule and no prompt: nothing offered (Sheets writes none)
			}
			prompt := ""
			if dv.Prompt != nil {
				prompt = *dv.Prompt
			}
			for _, rng := range strings.Fields(dv.Sqref) {
				for _, cell := range backendtest.Cells(t, rng) {
					s.validations[cell] = withPrompt(backendtest.XLSXRule(dv), prompt)
				}
			}
		}
		comments, err := f.GetComments(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range comments {
			text := cm.Text
			for _, r := range cm.Paragraph {
				text += r.Text
			}
			s.notes[cm.Cell] = strings.TrimPrefix(text, cm.Author+":")
		}
	}
	return o
}

// xlsxProtected reports whether a sheet is protected: its part (the
// writer numbers them in tab order) carries a sheetProtection element.
func xlsxProtected(t *testing.T, path string, f *excelize.File, name string) bool {
	part := ""
	for i, n := range f.GetSheetList() {
		if n == name {
			part = fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1)
		}
	}
	raw, ok := f.Pkg.Load(part)
	if !ok {
		t.Fatalf("%s: no part %s", path, part)
	}
	return strings.Contains(string(raw.([]byte)), "<sheetProtection")
}

// withPrompt adds a validation's prompt to its rule.
func withPrompt(rule, prompt string) string {
	return fmt.Sprintf("%s, prompt %q", rule, prompt)
}

func sheetsSide(t *testing.T) side {
	_, srv, err := sheetsfake.Start(sheetsfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, err := sheets.New(context.Background(), sheets.Options{Endpoint: srv.URL, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	return side{
		name:   backend.KindGSheets,
		store:  sheets.Store{Client: func(context.Context) (*sheets.Client, error) { return c, nil }, Endpoint: srv.URL},
		target: func(*testing.T) backend.Location { return backend.Location{Kind: backend.KindGSheets} },
		view:   func(t *testing.T, at backend.Location) *offer { return sheetsOffer(t, c, at.ID) },
		fill: func(t *testing.T, at backend.Location, cells []typed) {
			var data []*sheetsapi.ValueRange
			for _, c := range cells {
				data = append(data, &sheetsapi.ValueRange{Range: "'" + c.sheet + "'!" + c.cell, Values: [][]any{{c.value}}})
			}
			_, err := c.Sheets.Spreadsheets.Values.BatchUpdate(at.ID, &sheetsapi.BatchUpdateValuesRequest{ValueInputOption: "USER_ENTERED", Data: data}).Do()
			if err != nil {
				t.Fatal(err)
			}
		},
	}
}

func sheetsOffer(t *testing.T, c *sheets.Client, id string) *offer {
	ss, err := c.Sheets.Spreadsheets.Get(id).IncludeGridData(true).Do()
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(ss.Sheets, func(i, j int) bool { return ss.Sheets[i].Properties.Index < ss.Sheets[j].Properties.Index })
	o := &offer{sheets: map[string]*sheetOffer{}}
	for _, sh := range ss.Sheets {
		name := sh.Properties.Title
		tab := name
		if sh.Properties.Hidden {
			tab += " (hidden)"
		}
		o.tabs = append(o.tabs, tab)
		s := &sheetOffer{validations: map[string]string{}, notes: map[string]string{}}
		o.sheets[name] = s
		if gp := sh.Properties.GridProperties; gp != nil {
			s.frozen = [2]int{int(gp.FrozenRowCount), int(gp.FrozenColumnCount)}
		}
		for _, pr := range sh.ProtectedRanges {
			// The whole sheet: a range with no bounds.
			r := pr.Range
			s.protected = s.protected || r == nil || r.EndRowIndex == 0 && r.EndColumnIndex == 0
		}
		s.open = backendtest.SheetsOpen(sh)
		for _, gd := range sh.Data {
			for r, rd := range gd.RowData {
				for col, cd := range rd.Values {
					cell := backend.CellName(int(gd.StartColumn)+col, int(gd.StartRow)+r+1)
					if cd.DataValidation != nil {
						s.validations[cell] = withPrompt(backendtest.SheetsRule(cd.DataValidation), cd.DataValidation.InputMessage)
					}
					if cd.Note != "" {
						s.notes[cell] = cd.Note
					}
				}
			}
		}
	}
	return o
}

// TestConformance lays the same adjudication out with both backends:
// each offers the same sheets, cells, dropdowns, checkboxes and ranges,
// and the same decisions typed the way each application stores them read
// back to the same gold records. The layout is pinned by a golden file
// per case in testdata; rewrite them with -update-conformance and read
// the diff.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, c := range adjCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dumps := map[string]string{}
			for _, s := range []side{xlsxSide(t), sheetsSide(t)} {
				dumps[s.name] = c.run(t, s)
			}
			if diff := cmp.Diff(dumps[backend.KindXLSX], dumps[backend.KindGSheets]); diff != "" {
				t.Errorf("the two backends differ (-xlsx +gsheets):\n%s", diff)
			}
			backendtest.Golden(t, filepath.Join("testdata", "conformance-"+c.name+".golden"), []byte(dumps[backend.KindXLSX]))
		})
	}
}

// run lays the case out with one backend, fills it as its application
// would, and pulls it: the dump of what it offered and what it gave.
func (c adjCase) run(t *testing.T, s side) string {
	t.Helper()
	tp := c.template(t)
	found, err := adjudicate.Find(tp, c.records, adjudicate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	items := adjudicate.Merge(nil, nil, found.Items, nil).Items
	for _, it := range items {
		it.Workbook = 0
		if cl := it.Cluster; cl != nil {
			if text, ok := c.fields[it.Unit]; ok {
				cl.Text = &text
			}
		}
	}
	annotators := found.Annotators
	names := make([]string, len(annotators))
	for i := range names {
		names[i] = fmt.Sprintf("Annotator %d", i+1)
	}
	summary := adjudicate.Summary{Units: len(found.Units), Annotators: len(annotators)}
	for _, it := range items {
		n := len(summary.Questions)
		if n == 0 || summary.Questions[n-1].Question != it.Question {
			summary.Questions = append(summary.Questions, adjudicate.QuestionCount{Question: it.Question, Header: it.Question})
			n++
		}
		summary.Questions[n-1].ToDecide++
	}
	book := &adjudicate.Book{Template: tp, Adjudication: "conformance", Adjudicator: "lead", Items: items,
		Annotators: annotators, Names: names, Context: func(u string) map[string]string { return c.context[u] },
		Summary: summary, Limits: s.store.Limits()}
	plan, err := adjudicate.Plan(book)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	at, err := s.store.Write(ctx, plan, s.target(t), backend.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if at.Kind == backend.KindXLSX {
		// What only XLSX has (widths, styles, bands) is pinned by its dump.
		d, err := xlsxdump.File(at.Path, xlsxdump.Options{})
		if err != nil {
			t.Fatal(err)
		}
		backendtest.Golden(t, filepath.Join("testdata", "xlsx-"+c.name+".txt"), []byte(d))
	}
	var b strings.Builder
	o := s.view(t, at)
	dumpOffer(&b, o)
	fmt.Fprintln(&b, "# cells")
	g, closeFn, err := s.store.Open(ctx, at)
	if err != nil {
		t.Fatal(err)
	}
	grid := readGrid(t, g)
	closeFn()
	for _, row := range grid.lines {
		fmt.Fprintln(&b, row)
	}

	// The adjudicator's decisions, by decision ID and header.
	var cells []typed
	for k, v := range c.fill {
		cell, ok := grid.find(k[0], k[1])
		if !ok {
			t.Fatalf("%s: no cell of %s under %q in\n%s", s.name, k[0], k[1], strings.Join(grid.lines, "\n"))
		}
		cells = append(cells, typed{cell[0], cell[1], v})
	}
	slices.SortFunc(cells, func(a, b typed) int { return strings.Compare(a.sheet+"!"+a.cell, b.sheet+"!"+b.cell) })
	s.fill(t, at, cells)

	g, closeFn, err = s.store.Open(ctx, at)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	meta, err := adjudicate.ReadMeta(g)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*adjudicate.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	rd := &adjudicate.Reading{Template: tp, Meta: meta, Items: byID, Annotators: annotators, Names: names, File: "adjudication"}
	decided, probs, err := rd.Read(g)
	if err != nil {
		t.Fatal(err)
	}
	gold, gp := adjudicate.Gold(tp, found.Units, items, decided, adjudicate.GoldOptions{
		Adjudicator: func(*adjudicate.Item) string { return "lead" }, File: func(*adjudicate.Item) string { return "adjudication" },
		Source: records.RecordSource{Kind: "adjudication", File: "adjudication", Rows: []int{}},
	})
	fmt.Fprintln(&b, "# problems")
	for _, p := range append(probs, gp...) {
		fmt.Fprintf(&b, "%s %s!%s (%s): %s\n", p.Severity, p.Sheet, p.Cell, p.Record, p.Message)
	}
	fmt.Fprintln(&b, "# gold")
	for _, r := range gold {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, string(line))
	}
	return b.String()
}

// dumpOffer writes the offer: the tabs, then each sheet's panes,
// protection, open columns, validations by column in runs of rows, and
// notes.
func dumpOffer(b *strings.Builder, o *offer) {
	fmt.Fprintln(b, "# offer")
	fmt.Fprintf(b, "tabs: %q\n", o.tabs)
	for _, tab := range o.tabs {
		name := strings.TrimSuffix(tab, " (hidden)")
		s := o.sheets[name]
		fmt.Fprintf(b, "sheet %q: frozen %d, %d; protected %v", name, s.frozen[0], s.frozen[1], s.protected)
		if len(s.open) > 0 {
			var letters []string
			for _, c := range s.open {
				letters = append(letters, backend.ColumnLetter(c))
			}
			fmt.Fprintf(b, "; open %s", strings.Join(letters, " "))
		}
		fmt.Fprintln(b)
		for _, l := range runs(s.validations) {
			fmt.Fprintf(b, "  validation %s\n", l)
		}
		for _, l := range runs(s.notes) {
			fmt.Fprintf(b, "  note %s\n", l)
		}
	}
}

// runs gathers cells by column, a line per run of rows with the same
// text: "K2:K4 text", in column then row order.
func runs(m map[string]string) []string {
	type at struct{ col, row int }
	var cells []at
	for cell := range m {
		col, row := 0, 0
		i := strings.IndexAny(cell, "0123456789")
		for _, r := range cell[:i] {
			col = col*26 + int(r-'A'+1)
		}
		fmt.Sscan(cell[i:], &row)
		cells = append(cells, at{col - 1, row})
	}
	slices.SortFunc(cells, func(a, b at) int {
		if a.col != b.col {
			return a.col - b.col
		}
		return a.row - b.row
	})
	var out []string
	for i := 0; i < len(cells); {
		first := cells[i]
		text := m[backend.CellName(first.col, first.row)]
		j := i + 1
		for j < len(cells) && cells[j].col == first.col && cells[j].row == cells[j-1].row+1 && m[backend.CellName(cells[j].col, cells[j].row)] == text {
			j++
		}
		rng := backend.CellName(first.col, first.row)
		if j-i > 1 {
			rng += ":" + backend.CellName(cells[j-1].col, cells[j-1].row)
		}
		out = append(out, fmt.Sprintf("%s %s", rng, quoteLong(text)))
		i = j
	}
	return out
}

// quoteLong quotes a text, cut after 60 characters to a prefix, its
// length and a hash that pins the rest.
func quoteLong(s string) string {
	r := []rune(s)
	if len(r) <= 60 {
		return fmt.Sprintf("%q", s)
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%q… (%d characters, %x)", string(r[:40]), len(r), sum[:6])
}

// gridRead is a workbook as pull reads it: every non-empty row of every
// sheet as a line, and where each decision's cells are.
type gridRead struct {
	lines []string
	// at maps a decision ID and a header to its sheet and cell.
	at map[[2]string][2]string
}

func (g *gridRead) find(id, header string) ([2]string, bool) {
	c, ok := g.at[[2]string{id, header}]
	return c, ok
}

func readGrid(t *testing.T, g *backend.Grid) *gridRead {
	t.Helper()
	out := &gridRead{at: map[[2]string][2]string{}}
	for _, sh := range g.Sheets {
		var headers []string
		err := g.Rows(sh, func(row int, read []backend.ReadCell) error {
			cells := backend.Texts(read)
			for len(cells) > 0 && cells[len(cells)-1] == "" {
				cells = cells[:len(cells)-1]
			}
			if len(cells) == 0 {
				return nil
			}
			line := fmt.Sprintf("%s!%d", sh, row)
			for _, c := range cells {
				line += " | " + quoteLong(c)
			}
			out.lines = append(out.lines, line)
			if row == 1 {
				headers = cells
				return nil
			}
			for i, h := range headers {
				out.at[[2]string{cells[0], h}] = [2]string{sh, backend.CellName(i, row)}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}
