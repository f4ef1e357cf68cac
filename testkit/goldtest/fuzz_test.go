package goldtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

const roundTripTemplate = `name: rt
version: 1
title: Round trip
instructions: Answer.
input: {format: jsonl, id: "{id}"}
rows: {per: record}
context:
  - {name: text, header: Text, path: text}
questions:
  - {name: pick, header: Pick, type: choice, options: [{code: y, label: "Yes"}, {code: n, label: "No"}, {code: u, label: "Unsure, really"}]}
  - {name: tags, header: Tags, type: multi, options: [{code: a, label: Alpha}, {code: b, label: Beta}, {code: c, label: Gamma}]}
  - {name: codes, header: Codes, type: multi, render: list, options: [{code: "1"}, {code: "2"}, {code: "3"}]}
  - {name: score, header: Score, type: scale, min: 1, max: 7, unanswered: 0}
  - {name: ok, header: OK, type: bool}
  - {name: note, header: Note, type: text}
  - {name: quote, header: Quote, type: span, field: text, occurrence: true}
`

// rtTexts are the records' texts: repeats, non-ASCII and emoji make span
// offsets interesting.
var rtTexts = []string{
	"the cat sat on the mat; the cat left",
	"Görres and Sivan — “Bloom” 😀 Görres",
	"plain",
}

// FuzzRoundTrip chooses random answers for a workbook, writes them as a
// spreadsheet stores them, pulls the workbook, and checks that exactly
// those answers come back — spans at the offsets they were taken from.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, "a note", "=1+1")
	f.Add([]byte{255, 254, 1, 0, 7, 3, 9}, "Überprüfung ✓", "")
	f.Add([]byte{2, 7, 7, 7, 0, 1, 20, 3, 3}, "  spaced  ", "@x")
	tp, err := templates.Load("rt.yaml", []byte(roundTripTemplate))
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var b strings.Builder
	for i, s := range rtTexts {
		b.WriteString(`{"id": "r` + string(rune('1'+i)) + `", "text": "` + s + `"}` + "\n")
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, choices []byte, note1, note2 string) {
		next := func() int {
			if len(choices) == 0 {
				return 0
			}
			c := int(choices[0])
			choices = choices[1:]
			return c
		}
		path, _ := Generate(t, t.TempDir(), tp, layout.Options{}, in)
		w, err := OpenWorkbook(path)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]map[string]any{}
		notes := []string{note1, note2, ""}
		for i, unit := range w.Units {
			row := w.Rows[unit][0]
			vals := map[string]any{}
			set := func(key string, v any) {
				if err := w.Set(row, key, v); err != nil {
					t.Fatal(err)
				}
			}
			if c := next() % 4; c < 3 {
				set("q:pick", []string{"Yes", "No", "Unsure, really"}[c])
				vals["pick"] = []string{"y", "n", "u"}[c]
			}
			bits := next()
			var tags []string
			for k, code := range []string{"a", "b", "c"} {
				switch bits >> (2 * k) & 3 {
				case 1:
					set("q:tags="+code, true)
					tags = append(tags, code)
				case 2:
					set("q:tags="+code, false)
					if tags == nil {
						tags = []string{}
					}
				}
			}
			if tags != nil {
				vals["tags"] = tags
			}
			if c := next() % 8; c > 0 {
				var codes []string
				for k, code := range []string{"1", "2", "3"} {
					if c>>k&1 == 1 {
						codes = append(codes, code)
					}
				}
				set("q:codes", strings.Join(codes, ","))
				vals["codes"] = codes
			}
			if s := next() % 9; s > 0 {
				set("q:score", s-1)
				if s-1 > 0 {
					vals["score"] = s - 1
				}
			}
			if c := next() % 3; c > 0 {
				set("q:ok", c == 1)
				vals["ok"] = c == 1
			}
			if n := notes[i]; utf8.ValidString(n) && !hasControl(n) && strings.TrimSpace(n) != "" {
				set("q:note", n)
				vals["note"] = n
			}
			// A span: some code points of the text, picked by position;
			// the occurrence column says which when the text repeats.
			text := []rune(rtTexts[i])
			if c := next(); c%2 == 1 {
				start := next() % len(text)
				end := start + 1 + next()%(len(text)-start)
				span := string(text[start:end])
				if strings.TrimSpace(span) == span && span != "" {
					set("q:quote", span)
					occ := 0
					for k := 0; k <= start; k++ {
						if strings.HasPrefix(string(text[k:]), span) {
							occ++
						}
					}
					if strings.Count(rtTexts[i], span) > 1 || occ > 1 {
						set("q:quote#occurrence", occ)
					}
					vals["quote"] = records.SpanValue{Field: "text", Start: &start, End: &end, Text: span}
				}
			}
			if len(vals) > 0 {
				set("annotator", "fz")
			}
			want[unit] = vals
		}
		if err := w.Save(); err != nil {
			t.Fatal(err)
		}
		p, jsonl := PullFile(t, path)
		ValidateRecords(t, jsonl)
		for _, pr := range p.Problems {
			t.Errorf("problem: %v", pr)
		}
		got := map[string]map[string]any{}
		for _, r := range p.Records {
			got[r.Unit] = r.Values
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("answers changed in the round trip (-written +pulled):\n%s", diff)
		}
	})
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r < 0xa0 || r == 0xfffe || r == 0xffff {
			return true
		}
	}
	return false
}
