package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// preferenceTopics are the topics of the preference sample, in file
// order.
func preferenceTopics(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(prefData)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	var topics []string
	if _, err := d.Token(); err != nil {
		t.Fatal(err)
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		topics = append(topics, tok.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return topics
}

// noTrace fails when any part of a workbook (sheets hidden or not,
// shared strings, notes, properties, styles) holds the word "control".
func noTrace(t *testing.T, book string) {
	t.Helper()
	z, err := zip.OpenReader(book)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	word := regexp.MustCompile(`(?i)control`)
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if loc := word.FindIndex(b); loc != nil {
			t.Errorf("%s: %s says %q", filepath.Base(book), f.Name, b[max(0, loc[0]-40):min(len(b), loc[1]+40)])
		}
	}
}

// TestControlsPreference: a preference study (candidates shuffled per
// topic) with three topics of known answers as controls, one in each
// batch. ak answers the controls as known, bt otherwise; pull marks
// every control record and scores it, through the shuffle, and no part of
// any workbook says which units are controls: only the manifest does.
func TestControlsPreference(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	tp, err := templates.Builtin("preference-likert")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	topics := preferenceTopics(t)
	known := map[string]any{"best_prediction_reference": "second", "best_prediction_topic": "first",
		"first_prediction_likert": 4, "second_prediction_likert": 5, "third_prediction_likert": 2}
	var gold []records.Annotation
	for _, topic := range topics[:3] {
		r := modelRecord("preference-likert", topic, known, nil)
		r.Annotator = "gold"
		gold = append(gold, r)
	}
	goldFile := filepath.Join(dir, "gold.jsonl")
	writeRecords(t, goldFile, gold)
	study := filepath.Join(dir, "study")
	code, stdout, stderr := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", study,
		"--annotators", "ak,bt", "--overlap", "2", "--batch-size", "4", "--controls", goldFile, "--controls-per-batch", "1")
	if code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	if !strings.Contains(stdout, "7 instances, each for 2 of 2 annotators, in 4 workbooks") || !strings.Contains(stdout, "3 control units with known answers hidden among the others, 1 in each workbook") {
		t.Errorf("generate says:\n%s", stdout)
	}
	m := readManifest(t, study)
	if c := m.Controls; c == nil || c.PerBatch != 1 || c.Annotator != "gold" || len(c.Units) != 3 {
		t.Fatalf("the manifest's controls: %+v", m.Controls)
	}
	control := map[string]bool{}
	for _, u := range m.Controls.Units {
		control[u.Unit] = true
	}
	seen := map[string]map[string]bool{} // annotator -> controls met
	var cells = map[string][][2]any{}
	for _, b := range m.Batches {
		book := filepath.Join(study, b.File)
		noTrace(t, book)
		if len(b.Controls) != 1 || !control[b.Controls[0]] {
			t.Errorf("batch %s: controls %v", b.ID, b.Controls)
		}
		if seen[b.Annotator] == nil {
			seen[b.Annotator] = map[string]bool{}
		}
		for _, c := range b.Controls {
			if seen[b.Annotator][c] {
				t.Errorf("%s meets control %s twice", b.Annotator, c)
			}
			seen[b.Annotator][c] = true
		}
		w := openLayout(t, book).RealIDs(m.OpaqueIDs)
		for _, u := range w.Units {
			row := w.Rows[u][0]
			set := func(key string, v any) {
				name, err := w.Cell(row, key)
				if err != nil {
					t.Fatal(err)
				}
				cells[book] = append(cells[book], [2]any{name, v})
			}
			shown := map[string]any{"best_prediction_reference": "first", "best_prediction_topic": "first",
				"first_prediction_likert": 1, "second_prediction_likert": 1, "third_prediction_likert": 1}
			if control[u] && b.Annotator == "ak" {
				// As known, in the places the candidates are shown in.
				if shown, err = layout.ShownValues(tp, known, m.Orders[u]); err != nil {
					t.Fatal(err)
				}
			}
			for q, v := range shown {
				if code, ok := v.(string); ok {
					v = tp.QuestionByName(q).Option(code).Label
				}
				set("q:"+q, v)
			}
		}
	}
	for book, cs := range cells {
		fillWithOpenpyxl(t, py, book, cs, "")
	}
	pulled := pulledByUnit(t, study)
	for key, r := range pulled {
		who, unit := key[0], key[1]
		if r.Control != control[unit] {
			t.Errorf("%s's %s: control %v", who, unit, r.Control)
		}
		if !control[unit] {
			if r.ControlScore != nil {
				t.Errorf("%s's %s, no control, is scored", who, unit)
			}
			continue
		}
		want := map[string]float64{"best_prediction_reference": 1, "best_prediction_topic": 1, "first_prediction_likert": 1, "second_prediction_likert": 1, "third_prediction_likert": 1}
		if who == "bt" {
			// bt chose the prediction shown first, and 1 everywhere.
			first := m.Orders[unit][0]
			want = map[string]float64{"best_prediction_reference": b2f(first == "second"), "best_prediction_topic": b2f(first == "first"),
				"first_prediction_likert": 0, "second_prediction_likert": 0, "third_prediction_likert": 0}
		}
		if diff := cmp.Diff(want, r.ControlScore); diff != "" {
			t.Errorf("%s's %s scores (-want +got):\n%s", who, unit, diff)
		}
	}
	if n := len(pulled); n != 2*7+4 {
		t.Errorf("%d records, want 14 and 4 of controls", n)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestControlsRefused: a gold file the study cannot use as controls is
// refused before anything is written, one line per problem: a unit the
// inputs do not have, a known answer that breaks a rule of error
// severity, a value the template does not allow; too few controls for
// the batches is refused too, naming the annotator.
func TestControlsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := func(unit string, gaps ...string) records.Annotation {
		r := modelRecord("legal-gaps", unit, map[string]any{"gaps": gaps}, nil)
		r.Annotator = "gold"
		return r
	}
	goldFile := filepath.Join(dir, "gold.jsonl")
	writeRecords(t, goldFile, []records.Annotation{rec("gpt4o-11", "2"), rec("nope-1", "2"), rec("llama3-11", "0", "2"), rec("gpt4o-12", "7")})
	study := filepath.Join(dir, "study")
	code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", study, "--controls", goldFile)
	if code == 0 {
		t.Fatal("generate took the controls")
	}
	want := []string{
		`gold.jsonl:2: record "nope-1": no unit of the inputs has this ID`,
		`gold.jsonl:3: record "llama3-11": the known answer breaks a rule: 0 (no gap) cannot be combined with another code`,
		`gold.jsonl:4: record "gpt4o-12": question "gaps": ["7"] holds "7", which is not one of the codes "0", "1", "2", "3"`,
	}
	if diff := cmp.Diff(want, problemLines(stderr, dir, "gold.jsonl")); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nstderr:\n%s", diff, stderr)
	}
	if _, err := os.Stat(study); !os.IsNotExist(err) {
		t.Errorf("the study's folder was made: %v", err)
	}
	writeRecords(t, goldFile, []records.Annotation{rec("gpt4o-11", "2"), rec("llama3-11", "2")})
	code, _, stderr = runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", study, "--controls", goldFile, "--annotators", "ak", "--batch-size", "1")
	if code == 0 || !strings.Contains(stderr, "annotator ak has 3 batches of 2 controls each, but there are 2 controls") {
		t.Errorf("too few controls: exit %d, %s", code, stderr)
	}
}

// TestControlsLook: a control row looks like any other, as LibreOffice
// reads the workbook back: its cells have the fonts, protection and
// formats that other rows of their columns have, and every row's band
// colour is its place's.
func TestControlsLook(t *testing.T) {
	t.Parallel()
	soffice := testreaders.Soffice(t)
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	goldFile := filepath.Join(dir, "gold.jsonl")
	g := modelRecord("legal-gaps", "llama3-11", map[string]any{"gaps": []string{"2", "3"}}, nil)
	writeRecords(t, goldFile, []records.Annotation{g})
	study := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", study, "--annotators", "ak", "--controls", goldFile, "--controls-per-batch", "1"); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	m := readManifest(t, study)
	book := filepath.Join(study, m.Batches[0].File)
	w := openLayout(t, book).RealIDs(m.OpaqueIDs)
	row := w.Rows["llama3-11"][0]
	out := filepath.Join(dir, "lo")
	testreaders.Convert(t, soffice, "xlsx", out, book)
	script := filepath.Join(dir, "look.py")
	if err := os.WriteFile(script, []byte(`
import json, sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["Annotate"]
row, palette = int(sys.argv[2]), sys.argv[3].split(",")
def look(c):
    return [c.font.b, c.font.i, c.font.color.rgb if c.font.color is not None else None,
            c.protection.locked, c.number_format, c.alignment.wrap_text]
odd = []
for col in range(1, ws.max_column + 1):
    mine = look(ws.cell(row, col))
    others = [look(ws.cell(r, col)) for r in range(2, ws.max_row + 1) if r != row]
    if others and mine not in others:
        odd.append([ws.cell(1, col).value, mine, others])
# Each row's band is its place's: one instance a row, the palette in turn.
for r in range(2, ws.max_row + 1):
    fill = ws.cell(r, 1).fill.fgColor.rgb
    want = "FF" + palette[(r - 2) % len(palette)]
    if fill != want:
        odd.append(["band of row %d" % r, fill, want])
print(json.dumps(odd))
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	res, err := exec.Command(py, script, filepath.Join(out, filepath.Base(book)), strconv.Itoa(row), strings.Join(tp.Bands.Palette, ",")).Output()
	if err != nil {
		t.Fatalf("openpyxl: %v", err)
	}
	if strings.TrimSpace(string(res)) != "[]" {
		t.Errorf("the control row's cells look unlike the others': %s", res)
	}
	if len(w.Units) < 3 {
		t.Errorf("the batch has %d units", len(w.Units))
	}
}

// TestControlsLeftOut: agree, results, export and adjudicate leave the
// records of control units out, and say so, unless --include-controls:
// a legal-gaps study of ak and bt with two controls in each workbook,
// every unit answered.
func TestControlsLeftOut(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	dir := t.TempDir()
	var gold []records.Annotation
	for _, id := range []string{"gpt4o-11", "llama3-11"} {
		r := modelRecord("legal-gaps", id, map[string]any{"gaps": []string{"2", "3"}}, nil)
		r.Annotator = "gold"
		gold = append(gold, r)
	}
	goldFile := filepath.Join(dir, "gold.jsonl")
	writeRecords(t, goldFile, gold)
	study := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", study, "--annotators", "ak,bt", "--overlap", "2", "--controls", goldFile); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	m := readManifest(t, study)
	for _, b := range m.Batches {
		book := filepath.Join(study, b.File)
		w := openLayout(t, book)
		var cells [][2]any
		for _, u := range w.Units {
			for _, key := range []string{"q:gaps=2", "q:gaps=3"} {
				if key == "q:gaps=3" && b.Annotator == "bt" {
					continue
				}
				name, err := w.Cell(w.Rows[u][0], key)
				if err != nil {
					t.Fatal(err)
				}
				cells = append(cells, [2]any{name, true})
			}
		}
		fillWithOpenpyxl(t, py, book, cells, "")
	}
	note := "note: 4 records of control units left out (--include-controls counts them)"
	for _, c := range []struct {
		name        string
		args        []string
		count       func(t *testing.T, stdout string, dir string) int
		own, withIt int
	}{
		{"agree", []string{"agree", study, "--json"}, func(t *testing.T, out, _ string) int {
			var rep struct{ Questions []struct{ Units int } }
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			return rep.Questions[0].Units
		}, 3, 5},
		{"export", []string{"export", study, "--table", "long"}, func(t *testing.T, out, _ string) int {
			return strings.Count(out, "\n") - 1 // rows of ticks, the header aside
		}, 9, 15},
		{"adjudicate", []string{"adjudicate", study, "--resolve", "majority", "--out", "SILVER"}, func(t *testing.T, _ string, dir string) int {
			b, err := os.ReadFile(filepath.Join(dir, "silver.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			return strings.Count(string(b), "\n")
		}, 3, 5},
		{"results", []string{"results", study, "--json"}, func(t *testing.T, out, _ string) int {
			var rep struct {
				Questions []struct{ Estimates []struct{ Units int } }
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range rep.Questions[0].Estimates {
				n = max(n, e.Units)
			}
			return n
		}, 2, 3},
	} {
		for _, include := range []bool{false, true} {
			out := t.TempDir()
			args := slices.Clone(c.args)
			for i, a := range args {
				if a == "SILVER" {
					args[i] = filepath.Join(out, "silver.jsonl")
				}
			}
			if include {
				args = append(args, "--include-controls")
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			want := c.own
			if include {
				want = c.withIt
			}
			if got := c.count(t, stdout, out); got != want {
				t.Errorf("%s (--include-controls %v): %d, want %d", c.name, include, got, want)
			}
			if strings.Contains(stderr, note) == include {
				t.Errorf("%s (--include-controls %v): stderr %q", c.name, include, stderr)
			}
		}
	}
	// Scored against the controls' own known answers: only once they are
	// counted, which the refusal says.
	if code, _, stderr := runCLI(t, "agree", study, "--against", goldFile); code == 0 || !strings.Contains(stderr, "the 4 records of control units were left out: --include-controls scores them") {
		t.Errorf("agree --against the gold set: exit %d, %s", code, stderr)
	}
	if code, stdout, stderr := runCLI(t, "agree", study, "--against", goldFile, "--include-controls"); code != 0 || !strings.Contains(stdout, "Against gold") {
		t.Errorf("agree --against the gold set --include-controls: exit %d, %s\n%s", code, stderr, stdout)
	}
}

// TestControlsREADME: the README's study with control units, typed as it
// shows it in a folder with the examples and the sample: generate says
// what the README says, and once ak and bt have answered as it tells,
// status and pull say what it shows.
func TestControlsREADME(t *testing.T) {
	t.Parallel()
	py := testreaders.Openpyxl(t)
	sec := readmeSection(t, "## Control units: whom to trust")
	blocks := regexp.MustCompile("(?s)```(?:sh)?\n(.*?)```\n").FindAllStringSubmatch(sec, -1)
	if len(blocks) != 4 {
		t.Fatalf("the section shows %d blocks, want the command, its output, status's lines and pull's", len(blocks))
	}
	cmdText, shown, statusLines, pullLines := blocks[0][1], blocks[1][1], blocks[2][1], blocks[3][1]

	walk := newReadmeWalk(t, "examples", "testdata/data/legal-gaps")
	dir, run := walk.dir, walk.run
	if out, _ := walk.typed(cmdText); out != shown {
		t.Errorf("the README shows\n%s\ngenerate says\n%s", shown, out)
	}
	// ak ticks the data set's gold labels everywhere, bt ticks 2 alone,
	// and both write their IDs.
	goldLabels := map[string][]int{}
	data, err := os.ReadFile(legalData)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			ID         string `json:"id"`
			GoldLabels []int  `json:"gold_labels"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		goldLabels[r.ID] = r.GoldLabels
	}
	m := readManifest(t, filepath.Join(dir, "trusted"))
	for _, b := range m.Batches {
		book := filepath.Join(dir, "trusted", b.File)
		w := openLayout(t, book).RealIDs(m.OpaqueIDs)
		var cells [][2]any
		for _, u := range w.Units {
			ticks := []int{2}
			if b.Annotator == "ak" {
				ticks = goldLabels[u]
			}
			for code := range 4 {
				name, err := w.Cell(w.Rows[u][0], "q:gaps="+strconv.Itoa(code))
				if err != nil {
					t.Fatal(err)
				}
				cells = append(cells, [2]any{name, slices.Contains(ticks, code)})
			}
			name, err := w.Cell(w.Rows[u][0], "annotator")
			if err != nil {
				t.Fatal(err)
			}
			cells = append(cells, [2]any{name, b.Annotator})
		}
		fillWithOpenpyxl(t, py, book, cells, "")
	}
	if status, _ := run("status", "trusted/"); !strings.Contains(status, "\n"+statusLines) {
		t.Errorf("the README shows\n%s\nstatus says\n%s", statusLines, status)
	}
	if _, stderr := run("pull", "trusted/", "-o", "trusted.jsonl", "--min-control-accuracy", "0.8"); !strings.Contains(stderr, "\n"+pullLines) {
		t.Errorf("the README shows\n%s\npull says\n%s", pullLines, stderr)
	}
}
