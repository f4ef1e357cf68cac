package decode_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/plantest"
)

// opaqueTemplate is a small scheme in a given row layout whose IDs are
// opaque.
func opaqueTemplate(t *testing.T, rows string) *templates.Template {
	t.Helper()
	src := `name: op
version: 1
title: Opaque
instructions: Judge each text.
input: {format: jsonl, id: "{id}"}
rows: ` + rows + `
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: ok, header: OK, type: choice, options: [{code: y, label: "Yes"}, {code: n, label: "No"}]}
annotator: {claim: instance}
`
	tp, err := templates.Load("op.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// secretRecords have ids that must not reach the workbook, and one list
// of two elements and one of one for per: element rows.
const secretRecords = `{"id": "model-x-17", "text": "first text", "spans": [{"s": "one"}, {"s": "two"}]}
{"id": "model-y-17", "text": "second text", "spans": [{"s": "three"}]}
{"id": "model-x-18", "text": "third text", "spans": [{"s": "four"}]}
`

var secretIDs = []string{"model-x-17", "model-y-17", "model-x-18", "model-"}

// inputOrder is a study's key that numbers secretRecords' instances in
// the input's order, as the tests below name them; a study draws its
// numbers (TestOpaqueIDsDrawn), and batches take them from its key.
var inputOrder = map[string]string{"item-0001": "model-x-17", "item-0002": "model-y-17", "item-0003": "model-x-18"}

// buildRecords builds a template's workbook from JSON Lines text.
func buildRecords(t *testing.T, tp *templates.Template, records string, opt layout.Options) *layout.Result {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := input.Open("jsonl", []string{in})
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOpaqueIDsShown: in every row layout, the workbook shows opaque IDs
// in the ID column, the hidden unit cells and the metadata sheet, and no
// real ID anywhere; the key and the units the coordinator gets hold the
// real ones.
func TestOpaqueIDsShown(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, rows string
		// ids and units are the ID and hidden unit cells, row by row.
		ids, units []string
		// metaUnits are the metadata sheet's unit rows: unit, item.
		metaUnits [][2]string
		key       map[string]string
		realUnits []string
	}{
		{
			name:      "one row per record",
			rows:      "{per: record, id_display: opaque}",
			ids:       []string{"item-0001", "item-0002", "item-0003"},
			units:     []string{"item-0001", "item-0002", "item-0003"},
			metaUnits: [][2]string{{"item-0001", "item-0001"}, {"item-0002", "item-0002"}, {"item-0003", "item-0003"}},
			key:       map[string]string{"item-0001": "model-x-17", "item-0002": "model-y-17", "item-0003": "model-x-18"},
			realUnits: []string{"model-x-17", "model-y-17", "model-x-18"},
		},
		{
			name:      "one row per element: the units of an instance are numbered",
			rows:      "{per: element, path: spans, id_display: opaque}",
			ids:       []string{"item-0001", "item-0001", "item-0002", "item-0003"},
			units:     []string{"item-0001#1", "item-0001#2", "item-0002#1", "item-0003#1"},
			metaUnits: [][2]string{{"item-0001#1", "item-0001"}, {"item-0001#2", "item-0001"}, {"item-0002#1", "item-0002"}, {"item-0003#1", "item-0003"}},
			key: map[string]string{"item-0001": "model-x-17", "item-0001#1": "model-x-17#1", "item-0001#2": "model-x-17#2",
				"item-0002": "model-y-17", "item-0002#1": "model-y-17#1", "item-0003": "model-x-18", "item-0003#1": "model-x-18#1"},
			realUnits: []string{"model-x-17#1", "model-x-17#2", "model-y-17#1", "model-x-18#1"},
		},
		{
			name:      "a block of rows per record: its rows are numbered after the opaque ID",
			rows:      "{per: block, answer_rows: 2, id_display: opaque}",
			ids:       []string{"item-0001", "item-0001", "item-0002", "item-0002", "item-0003", "item-0003"},
			units:     []string{"item-0001", "item-0001#2", "item-0002", "item-0002#2", "item-0003", "item-0003#2"},
			metaUnits: [][2]string{{"item-0001", "item-0001"}, {"item-0002", "item-0002"}, {"item-0003", "item-0003"}},
			key:       map[string]string{"item-0001": "model-x-17", "item-0002": "model-y-17", "item-0003": "model-x-18"},
			realUnits: []string{"model-x-17", "model-y-17", "model-x-18"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp := opaqueTemplate(t, c.rows)
			res := buildRecords(t, tp, secretRecords, layout.Options{Study: "s1", OpaqueIDs: inputOrder})
			var ids, units []string
			for _, r := range plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetAnnotate))[1:] {
				ids = append(ids, plantest.Text(r.Cells[plantest.Col(t, tp, templates.RoleID)]))
				units = append(units, plantest.Text(r.Cells[plantest.Col(t, tp, templates.RoleUnit)]))
			}
			var metaUnits [][2]string
			for _, r := range plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetMeta)) {
				if plantest.Text(r.Cells[0]) == "unit" {
					metaUnits = append(metaUnits, [2]string{plantest.Text(r.Cells[1]), plantest.Text(r.Cells[2])})
				}
			}
			var realUnits []string
			for _, u := range res.Units {
				realUnits = append(realUnits, u.ID)
			}
			for _, d := range []struct {
				what      string
				want, got any
			}{
				{"ID column", c.ids, ids},
				{"unit column", c.units, units},
				{"metadata units", c.metaUnits, metaUnits},
				{"key", c.key, res.OpaqueIDs},
				{"units for the manifest", c.realUnits, realUnits},
			} {
				if diff := cmp.Diff(d.want, d.got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", d.what, diff)
				}
			}
			for _, sh := range res.Plan.Sheets {
				for i, r := range plantest.Rows(t, sh) {
					for j, cell := range r.Cells {
						for _, id := range secretIDs {
							if s := fmt.Sprint(cell.Value); strings.Contains(s, id) {
								t.Errorf("%s row %d cell %d shows %q: %.80q", sh.Name, i+1, j+1, id, s)
							}
						}
					}
				}
			}
		})
	}
}

// TestOpaqueIDsAcrossBatches: a batch built with the study's key shows
// each instance under the study's opaque ID, whichever instances it
// holds; the numbers have as many digits as the count of instances needs.
func TestOpaqueIDsAcrossBatches(t *testing.T) {
	t.Parallel()
	tp := opaqueTemplate(t, "{per: record, id_display: opaque}")
	all := buildRecords(t, tp, secretRecords, layout.Options{Study: "s1", Seed: 5})
	opaque := map[string]string{}
	for o, real := range all.OpaqueIDs {
		opaque[real] = o
	}
	// Another seed: the batch numbers as the study's key says all the
	// same.
	batch := buildRecords(t, tp, secretRecords, layout.Options{Study: "s1", Seed: 6, Batch: "b02", OpaqueIDs: all.OpaqueIDs,
		Items: func(item string) bool { return item != "model-x-17" }})
	var ids []string
	for _, r := range plantest.Rows(t, plantest.Sheet(t, batch.Plan, backend.SheetAnnotate))[1:] {
		ids = append(ids, plantest.Text(r.Cells[plantest.Col(t, tp, templates.RoleID)]))
	}
	if diff := cmp.Diff([]string{opaque["model-y-17"], opaque["model-x-18"]}, ids); diff != "" {
		t.Errorf("the batch's ID column (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{opaque["model-y-17"]: "model-y-17", opaque["model-x-18"]: "model-x-18"}, batch.OpaqueIDs); diff != "" {
		t.Errorf("the batch's key (-want +got):\n%s", diff)
	}

	var many strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&many, "{\"id\": \"r%d\", \"text\": \"t\"}\n", i)
	}
	big := buildRecords(t, tp, many.String(), layout.Options{})
	if len(big.OpaqueIDs) != 10000 || big.OpaqueIDs["item-00001"] == "" || big.OpaqueIDs["item-10000"] == "" {
		t.Errorf("10,000 instances: item-00001 is %q, item-10000 %q, %d IDs", big.OpaqueIDs["item-00001"], big.OpaqueIDs["item-10000"], len(big.OpaqueIDs))
	}
}

// TestOpaqueIDsPull: with the study's key, pull gives the real IDs to
// records, units and problems, and messages name units by their real IDs
// with the IDs shown beside them; without it, the opaque IDs, marked, and
// one warning that says where the real ones are.
func TestOpaqueIDsPull(t *testing.T) {
	t.Parallel()
	tp := opaqueTemplate(t, "{per: element, path: spans, id_display: opaque}")
	opt := layout.Options{Study: "s1", Seed: 1, OpaqueIDs: inputOrder}
	key := buildRecords(t, tp, secretRecords, opt).OpaqueIDs
	type rec struct {
		Unit, Item string
		Opaque     bool
	}
	realRecs := []rec{{"model-x-17#1", "model-x-17", false}, {"model-x-17#2", "model-x-17", false}, {"model-y-17#1", "model-y-17", false}, {"model-x-18#1", "model-x-18", false}}
	stray := prob{records.Error, "5:5", "", "the row's answers cannot be read: its unit \"item-0001#3\" is not one of this workbook's units (a row from another workbook?); they are C5=\"Yes\"", decode.ErrLayout}
	realProbs := []prob{
		{records.Error, "", "model-x-18#1", `unit "model-x-18#1" (shown as "item-0003#1") (row 5 when generated) is not in the sheet: was its row deleted?`, decode.ErrMissingUnit},
		{records.Error, "C3", "model-x-17#2", `"Maybe" is not one of: Yes; No`, decode.ErrInvalidAnswer},
		stray,
	}
	realShown := map[string]string{"model-x-18#1": "item-0003#1", "model-x-17#2": "item-0001#2"}
	for _, c := range []struct {
		name  string
		opt   decode.PullOptions
		recs  []rec
		probs []prob
		// shown is the ID shown of each problem's unit, where it differs.
		shown map[string]string
	}{
		{
			name:  "with the key",
			opt:   decode.PullOptions{OpaqueIDs: key},
			recs:  realRecs,
			probs: realProbs,
			shown: realShown,
		},
		{
			name:  "with the key of its study among others",
			opt:   decode.PullOptions{StudyOpaqueIDs: map[string]map[string]string{"s0": {}, "s1": key}},
			recs:  realRecs,
			probs: realProbs,
			shown: realShown,
		},
		{
			name: "without the key",
			opt:  decode.PullOptions{StudyOpaqueIDs: map[string]map[string]string{"s0": key}},
			recs: []rec{{"item-0001#1", "item-0001", true}, {"item-0001#2", "item-0001", true}, {"item-0002#1", "item-0002", true}, {"item-0003#1", "item-0003", true}},
			probs: []prob{{records.Warning, "", "", `the workbook shows opaque IDs (item-0001…); the records keep them ("opaque_ids": true), and the real IDs are in the study's manifest: pull with it (or export with it)`, decode.ErrOpaqueIDs},
				{records.Error, "", "item-0003#1", `unit "item-0003#1" (row 5 when generated) is not in the sheet: was its row deleted?`, decode.ErrMissingUnit},
				{records.Error, "C3", "item-0001#2", `"Maybe" is not one of: Yes; No`, decode.ErrInvalidAnswer},
				stray},
		},
		{
			name: "with a key that lacks a unit",
			opt:  decode.PullOptions{OpaqueIDs: map[string]string{"item-0001": "model-x-17", "item-0001#1": "model-x-17#1", "item-0001#2": "model-x-17#2", "item-0002": "model-y-17", "item-0002#1": "model-y-17#1", "item-0003": "model-x-18"}},
			recs: []rec{{"model-x-17#1", "model-x-17", false}, {"model-x-17#2", "model-x-17", false}, {"model-y-17#1", "model-y-17", false}, {"item-0003#1", "model-x-18", false}},
			probs: []prob{{records.Error, "", "", "the study's key of opaque IDs lacks 1 unit of this workbook (item-0003#1): its metadata was edited, or it is another study's", decode.ErrOtherStudy},
				{records.Error, "", "item-0003#1", `unit "item-0003#1" (row 5 when generated) is not in the sheet: was its row deleted?`, decode.ErrMissingUnit},
				{records.Error, "C3", "model-x-17#2", `"Maybe" is not one of: Yes; No`, decode.ErrInvalidAnswer},
				stray},
			shown: map[string]string{"model-x-17#2": "item-0001#2"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMemBookWith(t, tp, secretRecords, opt)
			m.set("model-x-17#1", "q:ok", "Yes")
			m.set("model-x-17#2", "q:ok", "Maybe")
			for _, u := range []string{"model-x-17#1", "model-x-17#2"} {
				m.set(u, templates.RoleAnnotator, "ak")
			}
			// model-x-18's row deleted, and a row copied in from
			// elsewhere, with a unit no workbook has.
			m.sheets[backend.SheetAnnotate] = slices.Delete(m.annotate(), 4, 5)
			row := make([]string, len(m.annotate()[0]))
			row[m.col(templates.RoleUnit)], row[m.col("q:ok")] = "item-0001#3", "Yes"
			m.sheets[backend.SheetAnnotate] = append(m.annotate(), row)
			p := pullMem(t, m, c.opt)
			var recs []rec
			for _, r := range p.Records {
				recs = append(recs, rec{r.Unit, r.Item, r.OpaqueIDs})
			}
			if diff := cmp.Diff(c.recs, recs); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			var units []rec
			for _, u := range p.Units {
				units = append(units, rec{u.ID, u.Item, c.recs[0].Opaque})
			}
			if diff := cmp.Diff(c.recs, units); diff != "" {
				t.Errorf("units (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.probs, probs(p.Problems), cmpErr); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			shown := map[string]string{}
			for _, pr := range p.Problems {
				if pr.Shown != "" {
					shown[pr.Record] = pr.Shown
				}
			}
			if diff := cmp.Diff(c.shown, shown, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("problems' units as shown (-want +got):\n%s", diff)
			}
			for _, u := range p.Units {
				if want := c.shown[u.ID]; want != "" && (u.Shown != want || p.ShownAs(u.ID) != want) {
					t.Errorf("unit %s: shown as %q (ShownAs %q), want %q", u.ID, u.Shown, p.ShownAs(u.ID), want)
				}
			}
			// A problem that is not at a cell names its unit first.
			if r := record(p, "model-x-18#1"); r != nil && len(r.Problems) > 0 {
				for _, pr := range p.Problems {
					if pr.Record == "model-x-18#1" && !strings.HasPrefix(pr.Error(), `book.xlsx: record "model-x-18#1" (shown as "item-0003#1"): unit "model-x-18#1" (shown as "item-0003#1")`) {
						t.Errorf("problem line: %s", pr.Error())
					}
				}
			}
		})
	}
}

// TestOpaqueIDsShuffled: the manifest keys candidate orders by the real
// instance ID; pull with both keys puts the answers back on their
// candidates.
func TestOpaqueIDsShuffled(t *testing.T) {
	t.Parallel()
	b, ok := templates.BuiltinSource("preference-likert")
	if !ok {
		t.Fatal("no built-in preference-likert")
	}
	src := strings.Replace(string(b), "  id_header: Topic\n", "  id_header: Topic\n  id_display: opaque\n", 1)
	tp, err := templates.Load("pref.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	in, err := input.Open(tp.Input.Format, []string{"../testdata/data/preference/preference_json_1.json"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tp, in, layout.Options{Seed: 5, Study: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	m := &memBook{sheets: map[string][][]string{}}
	for _, sh := range res.Plan.Sheets {
		m.names = append(m.names, sh.Name)
		for _, r := range plantest.Rows(t, sh) {
			var cells []string
			for _, c := range r.Cells {
				cells = append(cells, cellText(c.Value))
			}
			m.sheets[sh.Name] = append(m.sheets[sh.Name], cells)
		}
	}
	first := res.Units[0].Item
	m.sheets[backend.SheetAnnotate][1][plantest.Col(t, tp, "q:first_prediction_likert")] = "4"
	p, err := decode.Pull(m.grid(), decode.PullOptions{Orders: res.Orders, OpaqueIDs: res.OpaqueIDs})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Records[0]
	// The likert of the first place shown belongs to the candidate shown
	// there.
	want := res.Orders[first][0] + "_prediction_likert"
	if r.Item != first || r.Shuffled || r.OpaqueIDs || r.Values[want] != 4 {
		t.Errorf("record %s (item %s, shuffled %v, opaque %v): values %v, want %s = 4", r.Unit, r.Item, r.Shuffled, r.OpaqueIDs, r.Values, want)
	}
}

// TestOpaqueIDsBlocks: a block's rows are numbered after its opaque ID
// (item-0001#2), so its answers come back in the order written, under the
// real ID, however the sheet was sorted.
func TestOpaqueIDsBlocks(t *testing.T) {
	t.Parallel()
	tp := opaqueTemplate(t, "{per: block, answer_rows: 3, id_display: opaque}")
	key := buildRecords(t, tp, secretRecords, layout.Options{Study: "s1", Seed: 1}).OpaqueIDs
	m := newMemBook(t, tp, secretRecords) // the same study: the same seed
	first := m.rows["model-y-17"]
	for k, v := range []string{"No", "Yes", "No"} {
		m.setRow(first+k, "q:ok", v)
	}
	m.setRow(first, templates.RoleAnnotator, "ak")
	sortBody(m, "q:ok", true) // Yes before No: the block's rows change places
	p := pullMem(t, m, decode.PullOptions{OpaqueIDs: key})
	r := record(p, "model-y-17")
	if r == nil {
		t.Fatal("no record of model-y-17")
	}
	var got []string
	for _, s := range r.Spans {
		got = append(got, s.Code)
	}
	if diff := cmp.Diff([]string{"n", "y", "n"}, got); diff != "" || r.Item != "model-y-17" || r.Status == records.StatusMissing {
		t.Errorf("record %s (item %s, %s): answers in the order written (-want +got):\n%s", r.Unit, r.Item, r.Status, diff)
	}
	for _, pr := range p.Problems {
		t.Errorf("problem: %v", pr)
	}
}

// TestOpaqueIDsDrawn: a study numbers its instances in an order drawn
// with its seed, not in the input's: in an input that alternates two
// models, the numbers do not tell the models apart. The same seed gives
// the same numbers; every number from 1 is used once.
func TestOpaqueIDsDrawn(t *testing.T) {
	t.Parallel()
	tp := opaqueTemplate(t, "{per: record, id_display: opaque}")
	var in strings.Builder
	for i := range 40 {
		fmt.Fprintf(&in, "{\"id\": \"%s-%d\", \"text\": \"t\"}\n", []string{"gpt4o", "llama3"}[i%2], i/2)
	}
	numbering := func(seed uint64) map[string]string {
		return buildRecords(t, tp, in.String(), layout.Options{Study: "s", Seed: seed}).OpaqueIDs
	}
	a := numbering(7)
	if diff := cmp.Diff(a, numbering(7)); diff != "" {
		t.Errorf("the same seed numbers otherwise (-first +second):\n%s", diff)
	}
	if cmp.Equal(a, numbering(8)) {
		t.Error("another seed numbers alike")
	}
	inOrder, odd := 0, 0
	for n := 1; n <= 40; n++ {
		real, ok := a[fmt.Sprintf("item-%04d", n)]
		if !ok {
			t.Fatalf("item-%04d is not used: %v", n, a)
		}
		if i := slices.Index(strings.Split(in.String(), "\n"), fmt.Sprintf("{\"id\": \"%s\", \"text\": \"t\"}", real)); i == n-1 {
			inOrder++
		}
		if n%2 == 1 && strings.HasPrefix(real, "gpt4o") {
			odd++
		}
	}
	if inOrder > 10 {
		t.Errorf("%d of 40 numbers are the input's order", inOrder)
	}
	if odd == 20 || odd == 0 {
		t.Errorf("the odd numbers are all of one model: %v", a)
	}
}
