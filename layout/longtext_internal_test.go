package layout

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/templates"
)

// longTexts are texts that wrap in awkward ways: prose, paragraphs, empty
// lines, words longer than a line, wide characters, a clef (two UTF-16
// units), spaces only.
func longTexts() map[string]string {
	prose := strings.Repeat("The court held that the plan administrator’s reading was reasonable. ", 400)
	r := rand.New(rand.NewPCG(1, 2))
	var random strings.Builder
	pieces := []string{"a", "word", "longerword", " ", " ", " ", "\n", "\n\n", "\t", "中文", "𝄞", "é", strings.Repeat("x", 130)}
	for random.Len() < 40000 {
		random.WriteString(pieces[r.IntN(len(pieces))])
	}
	return map[string]string{
		"prose":       prose,
		"paragraphs":  strings.Repeat("A paragraph of a few words.\n\n", 800),
		"lines":       strings.Repeat("\n", 3000),
		"one word":    strings.Repeat("abcdefghij", 3000),
		"wide":        strings.Repeat("法院认为计划管理人的解释是合理的。", 900),
		"clefs":       strings.Repeat("𝄞 ", 9000),
		"spaces":      strings.Repeat(" ", 20000),
		"random":      random.String(),
		"short":       "fits",
		"empty":       "",
		"newline end": "a\n",
	}
}

// TestCountLinesAgrees checks that countLines counts as simpleLines,
// which sets row heights, up to its limit: a text that countLines says
// fits a row gets a row tall enough.
func TestCountLinesAgrees(t *testing.T) {
	for name, s := range longTexts() {
		for _, w := range []float64{1, 8, 30, 60, 100, 255} {
			// simpleLines stops counting past a row; compare within one.
			cut := s[:prefixFit(s, w, maxLines, false)]
			got, want := countLines(cut, w, 1000), simpleLines(cut, w)
			if got != want {
				t.Errorf("%s, width %g: countLines %d, simpleLines %d", name, w, got, want)
			}
			if got > maxLines {
				t.Errorf("%s, width %g: the prefix that fits takes %d lines", name, w, got)
			}
			// Past the limit, only that it is past counts.
			if full, want := countLines(s, w, maxLines), simpleLines(s, w); (full > maxLines) != (want > maxLines) || want <= maxLines && full != want {
				t.Errorf("%s, width %g: countLines %d with limit %d, simpleLines %d", name, w, full, maxLines, want)
			}
		}
	}
	// A column 5 wide holds 4 digits a line; 10 wide, 9.
	if n := countLines("中文中文", 5, 10); n != 2 {
		t.Errorf("four wide characters in a column 5 wide take %d lines, want 2", n)
	}
	if n := countLines("中文中文", 10, 10); n != 1 {
		t.Errorf("four wide characters in a column 10 wide take %d lines, want 1", n)
	}
}

// TestPrefixFit checks that the prefix fits, ends before a word, and is
// the longest that does: one more word would not fit.
func TestPrefixFit(t *testing.T) {
	for name, s := range longTexts() {
		for _, w := range []float64{8, 60, 100} {
			for _, lines := range []int{1, 5, maxLines} {
				n := prefixFit(s, w, lines, false)
				if got := countLines(s[:n], w, lines); got > lines {
					t.Errorf("%s, width %g, %d lines: the prefix takes %d", name, w, lines, got)
				}
				if n == len(s) {
					continue
				}
				if n > 0 && !unicode.IsSpace(rune(s[n-1])) && !unicode.IsSpace(rune(s[n])) && strings.ContainsFunc(s[:n], unicode.IsSpace) {
					t.Errorf("%s, width %g, %d lines: cut inside a word: …%q|%q…", name, w, lines, last(s[:n], 10), first(s[n:], 10))
				}
				// The next word would not fit.
				rest := strings.TrimLeftFunc(s[n:], unicode.IsSpace)
				next := len(s) - len(rest)
				if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
					next += i
				} else {
					next = len(s)
				}
				if n > 0 && countLines(s[:next], w, lines) <= lines {
					t.Errorf("%s, width %g, %d lines: %q would fit too", name, w, lines, s[n:next])
				}
			}
		}
	}
}

// TestReadChunks checks that the parts of a text are the text, each what
// one row of the Read sheet shows.
func TestReadChunks(t *testing.T) {
	for name, s := range longTexts() {
		checkChunks(t, name, s)
	}
}

func checkChunks(t *testing.T, name, s string) {
	t.Helper()
	parts := readChunks(s)
	if got := strings.Join(parts, ""); got != s {
		t.Errorf("%s: the parts joined differ from the text", name)
	}
	for i, p := range parts {
		if p == "" {
			t.Errorf("%s: part %d is empty", name, i+1)
		}
		if n := countLines(p, readWidth, maxLines); n > maxLines {
			t.Errorf("%s: part %d takes %d lines, more than a row shows", name, i+1, n)
		}
		if n := utf16Len(p); n > readPartMax {
			t.Errorf("%s: part %d has %d UTF-16 units", name, i+1, n)
		}
	}
}

// TestFitText checks what a cell shows of a text over its budget: the
// head or the tail of the text, "…" at the cut, and a last line from
// which the link starts; all within the lines and the cell limit.
func TestFitText(t *testing.T) {
	for name, s := range longTexts() {
		for _, w := range []float64{5, 30, 60, 255} {
			for _, rows := range []int{1, 8} {
				for _, tail := range []bool{false, true} {
					for _, limit := range []int{32767, 2000} {
						what := fmt.Sprintf("%s, width %g, %d rows, tail %v, limit %d", name, w, rows, tail, limit)
						checkFit(t, what, s, w, rows*maxLines, limit, tail)
					}
				}
			}
		}
	}
}

func checkFit(t *testing.T, what, s string, w float64, lines, limit int, tail bool) {
	t.Helper()
	label := func(part int) string { return readLabel(99, part, utf8.RuneCountInString(s), tail) }
	sh, cut := fitText(s, w, lines, limit, tail, label)
	if !cut {
		if sh.text != s || countLines(s, w, lines) > lines || utf16Len(s) > limit {
			t.Errorf("%s: shown whole, but it does not fit", what)
		}
		return
	}
	if n := utf16Len(sh.text); n > limit {
		t.Errorf("%s: %d UTF-16 units, over the limit", what, n)
	}
	if !strings.HasSuffix(sh.text, "\n"+label(sh.part)) || sh.text[sh.from:] != label(sh.part) {
		t.Errorf("%s: the last line is not the label from byte %d: %q", what, sh.from, last(sh.text, 80))
	}
	body := sh.text[:sh.from-1]
	var part string
	switch {
	case tail && strings.HasPrefix(body, "… "):
		part = body[len("… "):]
		if !strings.HasSuffix(strings.TrimRightFunc(s, unicode.IsSpace), strings.TrimRightFunc(part, unicode.IsSpace)) {
			t.Errorf("%s: the part shown is not the end of the text: %q", what, last(part, 40))
		}
	case !tail && strings.HasSuffix(body, " …"):
		part = body[:len(body)-len(" …")]
		if !strings.HasPrefix(s, part) {
			t.Errorf("%s: the part shown is not the start of the text: %q", what, first(part, 40))
		}
	case body == "…":
	default:
		t.Errorf("%s: no marker where the text is cut: %q … %q", what, first(body, 30), last(body, 30))
	}
	if utf8.RuneCountInString(part) != sh.part {
		t.Errorf("%s: %d characters shown, the label says %d", what, utf8.RuneCountInString(part), sh.part)
	}
	// The label alone may not fit the narrowest columns; the text must.
	if n := countLines(sh.text, w, lines); n > lines && part != "" {
		t.Errorf("%s: %d lines, more than the %d of the cell", what, n, lines)
	}
}

// FuzzLongText checks the same of any text: the parts of the Read sheet
// are the text, each a row's worth, and a cell shows a part of it with
// the marker and the label, within its lines.
func FuzzLongText(f *testing.F) {
	// Short seeds, as the fuzzer mutates them fast; narrow columns make
	// them long.
	for _, s := range longTexts() {
		f.Add(first(s, 600), uint8(8), uint8(1), false)
	}
	f.Add("short", uint8(1), uint8(8), true)
	f.Fuzz(func(t *testing.T, s string, w, rows uint8, tail bool) {
		s, _ = Clean(s, 0)
		width := float64(max(1, w))
		checkChunks(t, "fuzzed", s)
		checkFit(t, "fuzzed", s, width, max(1, int(rows)%9)*maxLines, 32767, tail)
	})
}

func first(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func last(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[len(r)-n:])
	}
	return s
}

// sliceSource is records in memory.
type sliceSource []map[string]any

func (s sliceSource) Each(fn func(*Record) error) error {
	for i, d := range s {
		if err := fn(&Record{Data: d, Index: i, File: "in.jsonl", Line: i + 1}); err != nil {
			return err
		}
	}
	return nil
}

func (sliceSource) Files() []string { return []string{"in.jsonl"} }

// TestLinkCap checks the texts cut past the most links a sheet holds:
// their cells still say where on the Read sheet they are, without a
// link, and so do their headers there; a text over the cell limit is a
// warning that says where it is whole.
func TestLinkCap(t *testing.T) {
	defer func(n int) { linkCap = n }(linkCap)
	linkCap = 1
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("A sentence of the opinion. ", 1300) // 35,100 characters
	var src sliceSource
	for _, id := range []string{"a", "b"} {
		src = append(src, map[string]any{"id": id, "previous_context": long, "generation": "g", "target": "t", "cited_paragraphs": []any{}})
	}
	res, err := Build(context.Background(), tp, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ann, read *backend.Sheet
	for _, s := range res.Plan.Sheets {
		switch s.Name {
		case backend.SheetAnnotate:
			ann = s
		case backend.SheetRead:
			read = s
		}
	}
	var links []string
	collect := func(sheet string) func(backend.Row) error {
		n := 0
		return func(r backend.Row) error {
			n++
			for i, c := range r.Cells {
				if c.Link != nil {
					links = append(links, fmt.Sprintf("%s!%s -> %s", sheet, backend.CellName(i, n), c.Link.Ref()))
				}
				if s, _ := c.Value.(string); sheet == backend.SheetAnnotate && strings.Contains(s, "read in full") && !strings.Contains(s, "sheet Read, row ") {
					t.Errorf("%s: %q", backend.CellName(i, n), last(s, 80))
				}
			}
			return nil
		}
	}
	if err := ann.Rows(collect(backend.SheetAnnotate)); err != nil {
		t.Fatal(err)
	}
	if err := read.Rows(collect(backend.SheetRead)); err != nil {
		t.Fatal(err)
	}
	want := []string{"Annotate!A2 -> Read!A2", "Annotate!H2 -> Read!A2", "Read!B2 -> Annotate!H2"}
	if d := cmp.Diff(want, links); d != "" {
		t.Errorf("links (-want +got):\n%s", d)
	}
	var warnings []string
	for _, w := range res.Warnings {
		warnings = append(warnings, w.Error())
	}
	wantWarnings := []string{
		`in.jsonl:1: record "a": field "previous_context": the text has 35100 characters, more than a cell holds (32767); the cell shows the last 1350 with a marker, and sheet Read holds all of it from row 2`,
		`in.jsonl:2: record "b": field "previous_context": the text has 35100 characters, more than a cell holds (32767); the cell shows the last 1350 with a marker, and sheet Read holds all of it from row 17`,
	}
	if d := cmp.Diff(wantWarnings, warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// simpleLines is the plain reading of how a text wraps: paragraph by
// paragraph, word by word, as spreadsheets wrap at spaces; it stops past
// a row's height. countLines, which sets row heights, must agree with it.
func simpleLines(s string, width float64) int {
	perLine := max(1, int(width*0.95))
	n := 0
	for _, par := range strings.Split(s, "\n") {
		lines, used := 1, 0
		for _, w := range strings.Fields(par) {
			wl := textWidth(w)
			switch {
			case used == 0:
			case used+1+wl <= perLine:
				used++
			default:
				lines++
				used = 0
			}
			for wl > perLine { // a word longer than the line is broken
				lines++
				wl -= perLine
			}
			used += wl
		}
		n += lines
		if n*15 > MaxRowHeight {
			break // taller than any row can be
		}
	}
	return n
}
