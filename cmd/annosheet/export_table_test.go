package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/internal/csvsafe"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/testreaders"
)

// tableStudy is a study of a built-in template with overlap, filled with
// disagreements and some units left unanswered or missing, then pulled,
// and its silver gold set (adjudicate --resolve majority).
type tableStudy struct {
	dir, records, gold string
}

// tableStudies make the studies of the table tests, by template.
var tableStudies = map[string]func(t *testing.T) string{
	// ak and bt answer, with disagreements and notes; bt leaves a unit
	// empty; cm's workbook is not returned, so cm's units are missing.
	"legal-gaps": func(t *testing.T) string {
		study := seededStudy(t, "legal-gaps", legalData, "ak,bt,cm", 2)
		recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
		if err != nil {
			t.Fatal(err)
		}
		key := opaqueKey(t, study)
		fillStudy(t, study, "legal-gaps", []string{"ak", "bt"}, func(w *goldtest.Workbook, who int, name string) error {
			w.RealIDs(key)
			var mine []goldtest.LegalRecord
			skip := who == 1 // bt leaves the first unit empty
			for k, r := range recs {
				if _, ok := w.Rows[r.ID]; !ok {
					continue
				}
				if skip {
					skip = false
					continue
				}
				if (k+who)%3 == 0 {
					r.GoldLabels = []int{(k + who) % 4}
				}
				mine = append(mine, r)
			}
			if err := goldtest.FillLegal(w, mine, name); err != nil {
				return err
			}
			for k, r := range mine {
				note := []string{"Cites the wrong case", "", "Reads well, but \"cited\" twice, oddly"}[(k+who)%3]
				if err := w.Set(w.Rows[r.ID][0], "q:note", note); err != nil {
					return err
				}
			}
			return nil
		})
		if err := os.Remove(filepath.Join(study, "legal-gaps-cm-b01.xlsx")); err != nil {
			t.Fatal(err)
		}
		return study
	},
	// Three annotators on every topic, with a few answers swapped
	// between topics; cm leaves the last topic half done.
	"preference-likert": func(t *testing.T) string {
		study := seededStudy(t, "preference-likert", prefData, "ak,bt,cm", 3)
		fillStudy(t, study, "preference-likert", []string{"ak", "bt", "cm"}, func(w *goldtest.Workbook, who int, name string) error {
			units := slices.Sorted(slices.Values(w.Units))
			for k := 0; k+1 < len(units); k += 2 + who {
				if (k/2)%3 == who {
					units[k], units[k+1] = units[k+1], units[k]
				}
			}
			if who < 2 {
				return goldtest.FillPreference(w, units, name)
			}
			if err := goldtest.FillPreference(w, units[:len(units)-1], name); err != nil {
				return err
			}
			return setCells(w, w.Rows[units[len(units)-1]][0], map[string]any{"q:first_prediction_likert": 4, "annotator": name})
		})
		return study
	},
	// Three annotators on every question: bt misses an error now and
	// then, cm gives another type to some.
	"qa-span-errors": func(t *testing.T) string {
		study := seededStudy(t, "qa-span-errors", qaData, "ak,bt,cm", 3)
		other := map[string]string{"Irrelevant": "Incoherent", "Incoherent": "Unverifiable", "Unverifiable": "Irrelevant"}
		fillQA(t, study, []string{"ak", "bt", "cm"}, func(who, k int, r *goldtest.QARecord) {
			errs := r.Feedback.Errors
			switch {
			case who == 1 && k%3 == 0 && len(errs) > 0:
				r.Feedback.Errors = errs[1:]
			case who == 2 && k%2 == 0 && len(errs) > 0 && other[errs[0].Type] != "":
				errs[0].Type = other[errs[0].Type]
			}
		})
		return study
	},
	// Two annotators on every span, bt judging every fifth otherwise and
	// leaving every seventh unjudged.
	"factgenie-meta-eval": func(t *testing.T) string {
		study := seededStudy(t, "factgenie-meta-eval", fgData, "ak,bt", 2)
		ok := []string{"Error", "Not an error", "No span given", "Hallucination"}
		expl := []string{"Correct", "Partially correct", "Incomplete", "Vague", "Incorrect"}
		fillStudy(t, study, "factgenie-meta-eval", []string{"ak", "bt"}, func(w *goldtest.Workbook, who int, name string) error {
			for i, u := range slices.Sorted(slices.Values(w.Units)) {
				k := i
				if who == 1 && i%7 == 3 {
					continue
				}
				if who == 1 && i%5 == 0 {
					k++
				}
				if err := setCells(w, w.Rows[u][0], map[string]any{
					"q:span_ok":          ok[k%len(ok)],
					"q:explanation_ok":   expl[k%len(expl)],
					"q:flags=Too strict": k%3 == 0,
					"q:flags=Repeated":   k%7 == 0,
					"q:comments":         []string{"", "unsure", "-too strict?"}[k%3],
					"annotator":          name,
				}); err != nil {
					return err
				}
			}
			return nil
		})
		return study
	},
}

// seededStudy generates a study as generateStudy does, with a fixed
// seed: the same units for each annotator, the same orders and labels,
// at every run.
func seededStudy(t *testing.T, template, input, annotators string, overlap int) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "study")
	if code, _, stderr := runCLI(t, "generate", "-t", template, "-i", input, "-o", out, "--annotators", annotators, "--overlap", strconv.Itoa(overlap), "--seed", "7"); code != 0 {
		t.Fatalf("generate %s: %s", template, stderr)
	}
	return out
}

// makeTableStudy makes the study of a template, pulls it, and writes its
// silver gold set.
func makeTableStudy(t *testing.T, template string) tableStudy {
	t.Helper()
	mk, ok := tableStudies[template]
	if !ok {
		t.Fatalf("no table study of built-in template %s", template)
	}
	s := tableStudy{dir: mk(t)}
	out := filepath.Dir(s.dir)
	s.records, s.gold = filepath.Join(out, "records.jsonl"), filepath.Join(out, "gold.jsonl")
	if code, _, stderr := runCLI(t, "pull", s.dir, "--out", s.records); code != 0 {
		t.Fatalf("pull: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "adjudicate", s.dir, "--resolve", "majority", "--out", s.gold); code != 0 {
		t.Fatalf("adjudicate: exit %d: %s", code, stderr)
	}
	return s
}

// exportTable runs export --table and returns the file written.
func exportTable(t *testing.T, out string, args ...string) []byte {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"export"}, append(args, "--out", out)...)...)
	if code != 0 {
		t.Fatalf("export %v: exit %d: %s", args, code, stderr)
	}
	if !strings.HasPrefix(stdout, "wrote "+out+": the ") {
		t.Errorf("export %v said %q", args, stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readCSV reads a table written as CSV: its header and rows.
func readCSV(t *testing.T, b []byte) ([]string, [][]string) {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(b))
	all, err := r.ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not read back: %v", err)
	}
	if len(all) == 0 {
		t.Fatal("the CSV has no header")
	}
	return all[0], all[1:]
}

// TestExportTables: for every built-in template, a study with overlap
// filled with disagreements, unanswered and missing units, pulled, and
// its silver gold set. Both tables, written from the study and from its
// pulled records, are the golden files; every record is in them; and
// DuckDB reads the CSV and the Parquet file as written, value for value.
func TestExportTables(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"legal-gaps", "preference-likert", "qa-span-errors", "factgenie-meta-eval"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := makeTableStudy(t, name)
			dir := t.TempDir()
			for _, shape := range []string{"long", "wide"} {
				csvPath := filepath.Join(dir, shape+".csv")
				got := exportTable(t, csvPath, s.dir, "--table", shape, "--gold", s.gold)
				golden(t, "tables", name+"-"+shape+".csv", got)
				// From the pulled records, through the manifest: the
				// same table.
				fromRecords := exportTable(t, filepath.Join(dir, shape+"-records.csv"), s.records, "--manifest", filepath.Join(s.dir, "manifest.json"), "--table", shape, "--gold", s.gold)
				if !bytes.Equal(got, fromRecords) {
					t.Errorf("%s: the table of the pulled records differs from that of the study:\n%s", shape, cmp.Diff(string(got), string(fromRecords)))
				}
				parquetPath := filepath.Join(dir, shape+".parquet")
				exportTable(t, parquetPath, s.dir, "--table", shape, "--gold", s.gold)
				t.Run("duckdb-"+shape, func(t *testing.T) {
					header, rows := readCSV(t, got)
					sameAsDuckDB(t, testreaders.NewDuckDB(t), csvPath, parquetPath, header, rows)
				})
			}
		})
	}
}

// sameAsDuckDB checks that DuckDB reads the CSV file as encoding/csv
// reads it (header, rows, every value; an empty field is null), and the
// Parquet file with the same columns and rows, each text as it is (the
// CSV's without the prefix that keeps it from being a formula), each
// number and boolean typed.
func sameAsDuckDB(t *testing.T, duck *testreaders.DuckDB, csvPath, parquetPath string, header []string, rows [][]string) {
	t.Helper()
	// same checks what DuckDB read against the CSV, cell as the text
	// the CSV would have for a value DuckDB read in column j.
	same := func(what string, got testreaders.DuckDBTable, cell func(j int, v any) string) {
		t.Helper()
		if !slices.Equal(got.Columns, header) {
			t.Errorf("DuckDB reads the columns of the %s as %q, want %q", what, got.Columns, header)
		}
		if len(got.Rows) != len(rows) {
			t.Fatalf("DuckDB reads %d rows of the %s, want %d", len(got.Rows), what, len(rows))
		}
		for i, row := range rows {
			for j, want := range row {
				if c := cell(j, got.Rows[i][j]); c != want {
					t.Errorf("%s row %d, %s: DuckDB reads %#v (%s), want %q as in the CSV", what, i+1, header[j], got.Rows[i][j], got.Types[j], want)
				}
			}
		}
	}
	same("CSV", duck.Read(t, "csv", csvPath), func(_ int, v any) string {
		if v == nil {
			return ""
		}
		if s, ok := v.(string); ok && s != "" {
			return s
		}
		return fmt.Sprintf("%#v", v) // never an empty text, nor another type
	})
	p := duck.Read(t, "parquet", parquetPath)
	same("Parquet file", p, func(j int, v any) string {
		switch v := v.(type) {
		case nil:
			return ""
		case string:
			if p.Types[j] == "VARCHAR" {
				return csvsafe.Text(v)
			}
			return v // a BIGINT
		case bool:
			return strconv.FormatBool(v)
		}
		return fmt.Sprintf("%#v", v)
	})
}

// hostileTemplate's labels are texts a spreadsheet could take for a
// formula, with quotes, commas and markup; its input text holds them too,
// for spans to be copied from.
const hostileTemplate = `name: hostile
version: 1
title: Hostile labels
instructions: Answer.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - name: pick
    header: Pick
    type: choice
    options:
      - {code: a, label: "=cmd|' /C calc'!A0"}
      - {code: b, label: "+1"}
      - {code: c, label: "-1"}
      - {code: d, label: "@SUM(1)"}
      - {code: e, label: "say \"hi\", then"}
      - {code: f, label: "<script>alert(1)</script>"}
  - name: tags
    header: Tags
    type: multi
    options:
      - {code: a, label: "=HYPERLINK(\"http://example.org\")"}
      - {code: b, label: "-2+3"}
  - {name: quote, header: Quote, type: span, field: text}
  - {name: remark, header: Remark, type: text}
annotator: {claim: row}
`

// hostileTexts are what the annotators of the hostile study copy and
// write: formulas, quotes, commas, a line break, markup.
var hostileTexts = []string{"=cmd|' /C calc'!A0", "+1", "-1", "@SUM(1)", `say "hi", then`, "<script>alert(1)</script>", "two\nlines, \"quoted\""}

// TestExportTableInjection: labels of a user's template, text answers and
// span texts that a spreadsheet would take for formulas go through both
// tables' CSV with a leading apostrophe, read back (encoding/csv, and
// DuckDB) as the same text after it, and no field starts like a formula;
// the Parquet file has each text as it is.
func TestExportTableInjection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmplPath, input := filepath.Join(dir, "hostile.yaml"), filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(tmplPath, []byte(hostileTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, h := range hostileTexts {
		lines = append(lines, string(mustJSON(map[string]string{"id": "r" + strconv.Itoa(i), "text": h + " is what it says"})))
	}
	if err := os.WriteFile(input, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	study := filepath.Join(dir, "study")
	if code, _, stderr := runCLI(t, "generate", "-t", tmplPath, "-i", input, "-o", study); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	w, err := goldtest.OpenWorkbook(filepath.Join(study, "hostile-b01.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"=cmd|' /C calc'!A0", "+1", "-1", "@SUM(1)", `say "hi", then`, "<script>alert(1)</script>"}
	for i, h := range hostileTexts {
		if err := setCells(w, w.Rows["r"+strconv.Itoa(i)][0], map[string]any{
			"q:pick": labels[i%len(labels)], "q:tags=a": true, "q:tags=b": i%2 == 0,
			"q:quote": h, "q:remark": h, "annotator": "=ann",
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	// The long table has every text; the wide one the texts answered (its
	// columns name the annotator, and it has codes, not labels).
	longOnly := slices.Concat(labels, []string{`=HYPERLINK("http://example.org")`, "-2+3", "=ann"})
	texts := slices.Concat(hostileTexts, longOnly)
	for _, shape := range []string{"long", "wide"} {
		csvPath, parquetPath := filepath.Join(dir, shape+".csv"), filepath.Join(dir, shape+".parquet")
		b := exportTable(t, csvPath, study, "--table", shape)
		header, rows := readCSV(t, b)
		fields := map[string]bool{}
		for _, rec := range append([][]string{header}, rows...) {
			for j, f := range rec {
				fields[f] = true
				if f != "" && strings.IndexByte("=+-@\t\r", f[0]) >= 0 && !numeric(header[j]) {
					t.Errorf("%s: %s: field %q starts like a formula", shape, header[j], f)
				}
			}
		}
		for _, h := range texts {
			if shape == "wide" && slices.Contains(longOnly, h) {
				continue
			}
			if !fields[csvsafe.Text(h)] {
				t.Errorf("%s: no field %q (the text %q, kept from being a formula)", shape, csvsafe.Text(h), h)
			}
		}
		exportTable(t, parquetPath, study, "--table", shape)
		t.Run("duckdb-"+shape, func(t *testing.T) {
			duck := testreaders.NewDuckDB(t)
			sameAsDuckDB(t, duck, csvPath, parquetPath, header, rows)
			strs := map[string]bool{}
			for _, row := range duck.Read(t, "parquet", parquetPath).Rows {
				for _, v := range row {
					if s, ok := v.(string); ok {
						strs[s] = true
					}
				}
			}
			for _, h := range texts {
				if !strs[h] && !(shape == "wide" && slices.Contains(longOnly, h)) {
					t.Errorf("%s: the Parquet file has no text %q as it is", shape, h)
				}
			}
		})
	}
}

// numeric reports whether a column of the tables holds numbers, which a
// spreadsheet reads as numbers, negative ones too.
func numeric(column string) bool {
	switch column {
	case "number", "span_index", "span_start", "span_end", "evidence_passage":
		return true
	}
	return false
}

// TestExportTableFlags: what export --table refuses, and how it writes:
// a usage error (exit 2) for flags that do not go together, an output
// that exists without --force, or a file that is neither .csv nor
// .parquet; CSV on stdout without --out; --annotator and --complete-only
// keep those records, and the gold set.
func TestExportTableFlags(t *testing.T) {
	t.Parallel()
	s := makeTableStudy(t, "legal-gaps")
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.csv")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--native", "--table", "long"}, exitUsage, "give --native or --table, not both"},
		{[]string{"--table", "tall"}, exitUsage, "--table tall: give long or wide"},
		{[]string{"--native", "--gold", s.gold}, exitUsage, "--gold goes with --table"},
		{[]string{"--table", "long", "--input", legalData}, exitUsage, "--input, --input-changed and --allow-problems go with --native"},
		{[]string{"--table", "long", "--allow-problems"}, exitUsage, "go with --native"},
		{[]string{"--table", "wide", "--out", filepath.Join(dir, "t.xlsx")}, exitUsage, "t.xlsx: a table is written to a .csv or a .parquet file"},
		{[]string{"--table", "long", "--out", existing}, exitFailure, "existing.csv"},
		{[]string{"--table", "long", "--gold", s.records}, exitFailure, `a gold set's records are annotator "gold"'s`},
	} {
		code, _, stderr := runCLI(t, append([]string{"export", s.dir}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.stderr) {
			t.Errorf("export %v: exit %d, %q; want exit %d with %q", c.args, code, stderr, c.code, c.stderr)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Errorf("an existing file was overwritten without --force: %q", b)
	}
	exportTable(t, existing, s.dir, "--table", "long", "--force")

	// Stdout: the same CSV as the file.
	code, stdout, stderr := runCLI(t, "export", s.dir, "--table", "long")
	if code != 0 {
		t.Fatalf("export to stdout: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(existing); stdout != string(b) {
		t.Errorf("the CSV on stdout differs from the file:\n%s", cmp.Diff(string(b), stdout))
	}

	// Gold records among the sources are the gold set, as with --gold.
	recs, err := os.ReadFile(s.records)
	if err != nil {
		t.Fatal(err)
	}
	goldRecs, err := os.ReadFile(s.gold)
	if err != nil {
		t.Fatal(err)
	}
	both := filepath.Join(dir, "both.jsonl")
	if err := os.WriteFile(both, append(recs, goldRecs...), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(s.dir, "manifest.json")
	for _, shape := range []string{"long", "wide"} {
		withGold := exportTable(t, filepath.Join(dir, shape+"-gold.csv"), s.records, "--manifest", manifest, "--table", shape, "--gold", s.gold)
		among := exportTable(t, filepath.Join(dir, shape+"-among.csv"), both, "--manifest", manifest, "--table", shape)
		if !bytes.Equal(withGold, among) {
			t.Errorf("%s: gold records among the sources give another table than --gold:\n%s", shape, cmp.Diff(string(withGold), string(among)))
		}
	}

	// --annotator ak --complete-only: ak's complete records and the gold set's.
	b := exportTable(t, filepath.Join(dir, "ak.csv"), s.dir, "--table", "long", "--annotator", "ak", "--complete-only", "--gold", s.gold)
	header, rows := readCSV(t, b)
	who, status := slices.Index(header, "annotator"), slices.Index(header, "status")
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r[who]] = true
		if r[status] != "complete" {
			t.Errorf("--complete-only kept a row of status %s: %q", r[status], r)
		}
	}
	if !seen["ak"] || !seen["gold"] || len(seen) != 2 {
		t.Errorf("--annotator ak kept the rows of %v, want ak and gold", seen)
	}
}

// TestExportTableREADME: the README's table of the long table's columns
// is the one export documents (name, type and meaning), and its sample
// rows are rows of the legal study's golden long table.
func TestExportTableREADME(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Tables for analysis\n")
	if !ok {
		t.Fatal("the README has no section Tables for analysis")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, c := range export.LongColumns() {
		row := fmt.Sprintf("| `%s` | %s | %s |", c.Name, c.Kind, c.Doc)
		if !strings.Contains(section, "\n"+row+"\n") {
			t.Errorf("the README's table of columns lacks the row\n%s", row)
		}
	}
	_, sample, _ := strings.Cut(section, "**The long table** has a row per unit, annotator, question and value:\n\n```\n")
	sample, _, _ = strings.Cut(sample, "```")
	golden, err := os.ReadFile(filepath.Join("testdata", "tables", "legal-gaps-long.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(golden), "\n")
	if sample == "" {
		t.Fatal("the README shows no rows of the long table")
	}
	for _, line := range strings.Split(strings.TrimSuffix(sample, "\n"), "\n") {
		if !slices.Contains(lines, line) {
			t.Errorf("the README shows a row the legal study's long table does not have:\n%s", line)
		}
	}
}
