package layout_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/plantest"
)

// legalTexts is the text of every context column of each legal-gaps
// record, by id, made from the record as the template describes it.
func legalTexts(t *testing.T, file string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r struct {
			ID              string `json:"id"`
			PreviousContext string `json:"previous_context"`
			Generation      string `json:"generation"`
			Target          string `json:"target"`
			Cited           []struct {
				Citation string `json:"citation"`
				Text     string `json:"text"`
			} `json:"cited_paragraphs"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var cited []string
		for i, c := range r.Cited {
			cited = append(cited, fmt.Sprintf("[%d] %s\n%s", i+1, c.Citation, c.Text))
		}
		out[r.ID] = map[string]string{
			"previous_context": r.PreviousContext, "cited_paragraphs": strings.Join(cited, "\n\n"),
			"generation": r.Generation, "target": r.Target,
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// qaTexts is the same for QA-Feedback records, by the template's id
// (q0000 is the first record).
func qaTexts(t *testing.T, file string) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for i, r := range recs {
		var groups []string
		for p, passage := range r["passages"].([]any) {
			var lines []string
			for s, sentence := range passage.([]any) {
				lines = append(lines, fmt.Sprintf("[P%d S%d] %s", p+1, s, sentence))
			}
			groups = append(groups, strings.Join(lines, "\n"))
		}
		out[fmt.Sprintf("q%04d", i)] = map[string]string{
			"question": r["question"].(string), "passages": strings.Join(groups, "\n\n"),
			"reference": r["gold"].(string), "prediction": r["prediction 1"].(string),
		}
	}
	return out
}

// readLabelRow is the Read row that the last line of a cell shown in
// part names.
func readLabelRow(s string) (int, bool) {
	i := strings.LastIndex(s, "\n→ read in full: sheet Read, row ")
	if i < 0 {
		return 0, false
	}
	rest := s[i+len("\n→ read in full: sheet Read, row "):]
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(rest[:end])
	return n, err == nil
}

// checkReadable checks that every character of every context of every
// record can be read in the workbook: each context cell holds its whole
// text, or a part of it with "…" at the cut and a last line that links
// to the Read sheet, where the whole text is, character for character
// (control characters replaced visibly, as in every cell), under a header
// that names it and links back; the row's ID cell links to the first of
// them. It returns how many texts were cut.
func checkReadable(t *testing.T, tp *templates.Template, res *layout.Result, want map[string]map[string]string) int {
	t.Helper()
	ann := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetAnnotate))
	var read []backend.Row
	for _, s := range res.Plan.Sheets {
		if s.Name == backend.SheetRead {
			read = plantest.Rows(t, s)
			if s.Protect == nil || s.Visibility != backend.Visible {
				t.Errorf("the Read sheet is not visible and protected")
			}
			for _, c := range s.Columns {
				if c.Style.Unlocked {
					t.Errorf("a column of the Read sheet is open")
				}
			}
		}
	}
	cols := tp.Columns()
	cut := 0
	reached := map[int]bool{} // Read rows a cell links to
	for _, u := range res.Units {
		texts, ok := want[u.Item]
		if !ok {
			t.Fatalf("no texts for %s", u.Item)
		}
		row := ann[u.FirstRow-1]
		if row.Height > layout.MaxRowHeight {
			t.Errorf("%s: row %d is %g points tall", u.ID, u.FirstRow, row.Height)
		}
		firstAt := 0 // the Read row of the row's first cut text
		for i, c := range cols {
			if c.Role != templates.RoleContext {
				continue
			}
			full, _ := layout.Clean(texts[c.Context.Name], 0)
			cell := row.Cells[i]
			got, _ := cell.Value.(string)
			where := fmt.Sprintf("%s %s (%s)", u.ID, c.Context.Name, backend.CellName(i, u.FirstRow))
			if got == full {
				if cell.Link != nil {
					t.Errorf("%s: whole, yet linked to %s", where, cell.Link.Ref())
				}
				continue
			}
			cut++
			at, ok := readLabelRow(got)
			switch {
			case !ok:
				t.Errorf("%s: cut without saying where to read it: …%q", where, tail(got, 60))
				continue
			case cell.Link == nil || cell.Link.Sheet != backend.SheetRead || cell.Link.Row != at || cell.Link.Col != 0:
				t.Errorf("%s: its last line names Read row %d, its link is %+v", where, at, cell.Link)
				continue
			case !strings.HasPrefix(got[cell.Link.From:], "→ read in full"):
				t.Errorf("%s: the link starts at %q", where, head(got[cell.Link.From:], 20))
			}
			reached[at] = true
			if firstAt == 0 {
				firstAt = at
			}
			body := got[:strings.LastIndex(got, "\n→ read in full")]
			if c.Context.Show == templates.ShowTail {
				part, ok := strings.CutPrefix(body, "… ")
				if !ok || !strings.HasSuffix(full, strings.TrimRightFunc(part, unicode.IsSpace)) {
					t.Errorf("%s: shows the end, but not as … and the end: %q…", where, head(body, 40))
				}
			} else {
				part, ok := strings.CutSuffix(body, " …")
				if !ok || !strings.HasPrefix(full, part) {
					t.Errorf("%s: shows the start, but not as the start and …: …%q", where, tail(body, 40))
				}
			}
			// The Read sheet: the header, its way back, the parts.
			if at < 2 || at > len(read) {
				t.Errorf("%s: links to Read row %d, which is not there", where, at)
				continue
			}
			hdr := read[at-1]
			title, _ := hdr.Cells[0].Value.(string)
			id := u.ID
			if tp.Rows.IDDisplay == templates.IDOpaque { // the ID shown
				id, _ = row.Cells[0].Value.(string)
			}
			if !strings.HasPrefix(title, id+" — "+c.Header+" — ") {
				t.Errorf("%s: Read row %d is headed %q", where, at, title)
			}
			back := hdr.Cells[1].Link
			if back == nil || back.Sheet != backend.SheetAnnotate || back.Row != u.FirstRow || back.Col != i {
				t.Errorf("%s: Read row %d links back to %+v", where, at, back)
			}
			var whole strings.Builder
			for r := at; r < len(read); r++ {
				part, _ := read[r].Cells[0].Value.(string)
				if read[r].Cells[1].Link != nil { // the next text's header
					break
				}
				if read[r].Height > layout.MaxRowHeight {
					t.Errorf("%s: Read row %d is %g points tall", where, r+1, read[r].Height)
				}
				whole.WriteString(part)
			}
			if whole.String() != full {
				t.Errorf("%s: the Read sheet holds %d bytes, not the text's %d", where, whole.Len(), len(full))
			}
		}
		var want *backend.Link
		if firstAt > 0 {
			want = &backend.Link{Sheet: backend.SheetRead, Row: firstAt}
		}
		if got := row.Cells[0].Link; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the ID cell links to %+v, want %+v", u.ID, got, want)
		}
	}
	// Every text on the Read sheet is one a cell links to.
	for r, row := range read {
		if len(row.Cells) > 1 && row.Cells[1].Link != nil && !reached[r+1] {
			t.Errorf("Read row %d heads a text no cell links to", r+1)
		}
	}
	if cut == 0 && len(read) > 0 {
		t.Errorf("a Read sheet of %d rows, and no text cut", len(read))
	}
	return cut
}

func head(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func tail(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[len(r)-n:])
	}
	return s
}

// TestEveryCharacterReadable checks, on every record of the real data of
// every built-in, for both backends' cell limits, that every context can
// be read whole in the workbook.
func TestEveryCharacterReadable(t *testing.T) {
	legal := data + "legal-gaps/examples.sample.jsonl"
	qa := data + "qa-feedback/dev_feedback.sample.json"
	for _, limit := range []int{backend.XLSXCellLimit, backend.SheetsCellLimit} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			tp, res := plantest.Build(t, "legal-gaps", layout.Options{CellLimit: limit}, legal)
			// The previous contexts (10,000 to 28,000 characters) and the
			// cited paragraphs of every record are too long for a cell.
			if n := checkReadable(t, tp, res, legalTexts(t, legal)); n < 10 {
				t.Errorf("legal-gaps: %d texts cut, want at least 10", n)
			}
			tp, res = plantest.Build(t, "qa-span-errors", layout.Options{CellLimit: limit}, qa)
			// A block's passages fit the rows they are merged over.
			if n := checkReadable(t, tp, res, qaTexts(t, qa)); n != 0 {
				t.Errorf("qa-span-errors: %d texts cut, want none", n)
			}
			// The other built-ins' texts are short: whole in their cells,
			// nothing on a Read sheet.
			for _, name := range []string{"preference-likert", "factgenie-meta-eval"} {
				_, res := plantest.Build(t, name, layout.Options{CellLimit: limit}, builtinInputs[name])
				for _, sh := range res.Plan.Sheets {
					if sh.Name == backend.SheetRead {
						t.Errorf("%s: a Read sheet", name)
					}
				}
				for n, row := range plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetAnnotate)) {
					for i, c := range row.Cells {
						if s, _ := c.Value.(string); strings.Contains(s, "→ read in full") || strings.Contains(s, "…") {
							t.Errorf("%s: %s is cut: %q", name, backend.CellName(i, n+1), tail(s, 60))
						}
					}
				}
			}
		})
	}
}

// TestLongPassagesInBlocks checks the passages of a block, merged over
// its rows, when they are longer than all of its rows show: they are cut
// with the marker and the link, and the Read sheet holds them.
func TestLongPassagesInBlocks(t *testing.T) {
	b, err := os.ReadFile(data + "qa-feedback/dev_feedback.sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	recs = recs[:3]
	// The second question has its passages ten times over.
	var many []any
	for range 10 {
		many = append(many, recs[1]["passages"].([]any)...)
	}
	recs[1]["passages"] = many
	in := filepath.Join(t.TempDir(), "qa.json")
	b, _ = json.Marshal(recs)
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tp, res := plantest.Build(t, "qa-span-errors", layout.Options{}, in)
	if n := checkReadable(t, tp, res, qaTexts(t, in)); n != 1 {
		t.Errorf("%d texts cut, want the long passages alone", n)
	}
	// The block's rows share the height the passages need: all of them.
	ann := plantest.Rows(t, plantest.Sheet(t, res.Plan, backend.SheetAnnotate))
	u := res.Units[1]
	for r := u.FirstRow; r < u.FirstRow+u.Rows; r++ {
		if h := ann[r-1].Height; h != 407 {
			t.Errorf("row %d of the block is %g points tall, want 407", r, h)
		}
	}
}
