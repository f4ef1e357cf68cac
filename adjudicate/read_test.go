package adjudicate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// decisionOf is what a decision says, its set fields only.
func decisionOf(d *Decision) string {
	var out []string
	add := func(name, v string) {
		if v != "" {
			out = append(out, name+"="+v)
		}
	}
	if d.HasFinal {
		add("final", key(d.Final))
	}
	add("use", d.Use)
	add("choice", d.Choice)
	add("type", d.Type)
	add("span", d.Span)
	add("reason", d.Reason)
	add("note", d.Note)
	if d.Bad {
		out = append(out, "bad")
	}
	return strings.Join(out, " ")
}

// TestReadUntouched reads workbooks as they were made: every row is a
// decision with nothing decided, and nothing is a problem.
func TestReadUntouched(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, src string
		recs      func(tp *templates.Template) []*records.Annotation
	}{
		{"values", recordTemplate, func(tp *templates.Template) []*records.Annotation {
			return []*records.Annotation{
				rec(tp, "u1", "a", map[string]any{"verdict": "bad", "tags": []string{"a"}, "fine": true, "score": 3, "remark": "x"}),
				rec(tp, "u1", "b", map[string]any{"verdict": "good", "tags": []string{}, "score": 2}),
			}
		}},
		{"spans", blockTemplate, func(tp *templates.Template) []*records.Annotation {
			return []*records.Annotation{
				rec(tp, "u1", "a", map[string]any{"done": true}, sp(0, 3, "bad"), missing("odd")),
				rec(tp, "u1", "b", map[string]any{"done": false}, sp(0, 7, "bad")),
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tp := loadTemplate(t, c.src)
			f := find(t, tp, Options{}, c.recs(tp)...)
			m, rd := book(t, tp, f)
			decided, probs := read(t, m, rd)
			if len(probs) > 0 {
				t.Errorf("problems %q", problemsOf(probs))
			}
			if len(decided) != len(f.Items) || len(f.Items) < 2 {
				t.Errorf("%d decisions of %d items", len(decided), len(f.Items))
			}
			for id, d := range decided {
				if got := decisionOf(d); got != "" || len(d.Cells) > 0 {
					t.Errorf("%s: %s, cells %v", id, got, d.Cells)
				}
			}
		})
	}
}

// TestRead reads a filled adjudication sheet after what adjudicators do
// to it: sorting, deleting and pasting rows, renaming, moving and adding
// columns, typing what the dropdowns do not offer. Every problem names
// its sheet and cell.
func TestRead(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	recs := []*records.Annotation{
		rec(tp, "u1", "a", map[string]any{"verdict": "bad"}), rec(tp, "u1", "b", map[string]any{"verdict": "good"}), rec(tp, "u1", "c", map[string]any{"verdict": "good"}),
		rec(tp, "u2", "a", map[string]any{"verdict": "bad"}), rec(tp, "u2", "b", map[string]any{"verdict": "good"}),
		rec(tp, "u3", "a", map[string]any{"verdict": "meh"}), rec(tp, "u3", "b", map[string]any{"verdict": "good"}), rec(tp, "u3", "c", map[string]any{"verdict": "good"}),
	}
	const v = "Verdict"
	// The sheet: Decision, ID, Annotator 1-3, Suggested, Final (G), Or
	// use (H), Reason (I), Note (J); d0001-d0003 on rows 2-4.
	filled := func(t *testing.T, m *memGrid) {
		m.setText(t, v, "d0001", "Final", "Meh")
		m.setText(t, v, "d0001", "Reason", "other")
		m.setText(t, v, "d0002", "Or use", "Annotator 1")
		m.setText(t, v, "d0003", "Or use", "suggested")
		m.setText(t, v, "d0003", "Note", "as most said")
	}
	all := map[string]string{
		"d0001": `final="meh" reason=other`,
		"d0002": "use=a",
		"d0003": "use=suggested note=as most said",
	}
	rows := func(m *memGrid) [][]backend.ReadCell { return m.sheets[v] }
	without := func(id string) map[string]string {
		out := map[string]string{}
		for k, s := range all {
			if k != id {
				out[k] = s
			}
		}
		return out
	}
	cases := []struct {
		name   string
		tamper func(t *testing.T, m *memGrid)
		want   map[string]string
		probs  []string // "severity sheet!cell unit: a part of the message"
		// unresolved are the items the gold leaves unresolved.
		unresolved []string
	}{
		{name: "as filled", want: all},
		{
			name: "rows sorted",
			tamper: func(t *testing.T, m *memGrid) {
				slices.Reverse(rows(m)[1:])
			},
			want: all,
		},
		{
			name: "a row deleted",
			tamper: func(t *testing.T, m *memGrid) {
				m.sheets[v] = slices.Delete(rows(m), 2, 3)
			},
			want:       without("d0002"),
			probs:      []string{"error Verdict! u2: the row of d0002 (unit u2, Verdict) is not on the sheet"},
			unresolved: []string{"d0002"},
		},
		{
			name: "a row pasted twice with the same decision",
			tamper: func(t *testing.T, m *memGrid) {
				m.sheets[v] = append(rows(m), slices.Clone(rows(m)[1]))
			},
			want:  all,
			probs: []string{"warning Verdict!A5 u1: row 5 repeats row 2 (d0001) with the same decision: read once"},
		},
		{
			name: "a row pasted twice with different decisions",
			tamper: func(t *testing.T, m *memGrid) {
				copied := slices.Clone(rows(m)[1])
				copied[m.col(t, v, "Final")] = backend.ReadCell{Value: "Bad"}
				m.sheets[v] = slices.Insert(rows(m), 1, copied)
			},
			want:       without("d0001"),
			probs:      []string{"error Verdict!A3 u1: d0001 is on rows 2 and 3 with different decisions"},
			unresolved: []string{"d0001"},
		},
		{
			name: "headers renamed",
			tamper: func(t *testing.T, m *memGrid) {
				rows(m)[0][m.col(t, v, "Final")].Value = "My answer"
				rows(m)[0][m.col(t, v, "Or use")].Value = ""
			},
			want: all,
			probs: []string{
				`warning Verdict!G1 : the header "Final" is not there; column G (headed "My answer" now)`,
				`warning Verdict!H1 : the header "Or use" is not there; column H (headed "" now)`,
			},
		},
		{
			name: "columns moved",
			tamper: func(t *testing.T, m *memGrid) {
				final, note, use := m.col(t, v, "Final"), m.col(t, v, "Note"), m.col(t, v, "Or use")
				for _, r := range rows(m) {
					r[final], r[note], r[use] = r[note], r[use], r[final]
				}
			},
			want: all,
		},
		{
			name: "a column added",
			tamper: func(t *testing.T, m *memGrid) {
				for k, r := range rows(m) {
					text := "my thoughts"
					if k == 0 {
						text = "Thoughts"
					}
					m.sheets[v][k] = slices.Insert(r, 0, backend.ReadCell{Value: text})
				}
			},
			want:  all,
			probs: []string{`warning Verdict!A1 : the column "Thoughts" was added: it is not read`},
		},
		{
			name: "an annotator's name in lower case, another past the dropdown",
			tamper: func(t *testing.T, m *memGrid) {
				m.setText(t, v, "d0002", "Or use", "  annotator  1 ")
				m.setText(t, v, "d0003", "Or use", "Annotator 9")
			},
			want:       map[string]string{"d0001": all["d0001"], "d0002": "use=a", "d0003": "note=as most said bad"},
			probs:      []string{`error Verdict!H4 u3: "Annotator 9" is not one of: suggested; Annotator 1; Annotator 2; Annotator 3`},
			unresolved: []string{"d0003"},
		},
		{
			name: "a mistyped Final is told the closest option",
			tamper: func(t *testing.T, m *memGrid) {
				m.setText(t, v, "d0001", "Final", "Goood")
			},
			want:       map[string]string{"d0001": "reason=other bad", "d0002": all["d0002"], "d0003": all["d0003"]},
			probs:      []string{`error Verdict!G2 u1: "Goood" is not one of: Good; Bad; Meh; did you mean "Good"?`},
			unresolved: []string{"d0001"},
		},
		{
			name: "a mistyped choice is told the closest",
			tamper: func(t *testing.T, m *memGrid) {
				m.setText(t, v, "d0003", "Or use", "sugested")
			},
			want:       map[string]string{"d0001": all["d0001"], "d0002": all["d0002"], "d0003": "note=as most said bad"},
			probs:      []string{`error Verdict!H4 u3: "sugested" is not one of: suggested; Annotator 1; Annotator 2; Annotator 3; did you mean "suggested"?`},
			unresolved: []string{"d0003"},
		},
		{
			name: "an annotator who did not answer the unit",
			tamper: func(t *testing.T, m *memGrid) {
				m.setText(t, v, "d0002", "Or use", "Annotator 3")
			},
			want:       map[string]string{"d0001": all["d0001"], "d0002": "bad", "d0003": all["d0003"]},
			probs:      []string{`error Verdict!H3 u2: Annotator 3 has no answer on this unit; pick one of: suggested; Annotator 1; Annotator 2`},
			unresolved: []string{"d0002"},
		},
		{
			name: "an annotator's ID typed for their name",
			tamper: func(t *testing.T, m *memGrid) {
				m.setText(t, v, "d0002", "Or use", "B")
			},
			want: map[string]string{"d0001": all["d0001"], "d0002": "use=b", "d0003": all["d0003"]},
		},
		{
			name: "a Final the question does not allow",
			tamper: func(t *testing.T, m *memGrid) {
				m.setText(t, v, "d0001", "Final", "Maybe")
			},
			want:       map[string]string{"d0001": "reason=other bad", "d0002": all["d0002"], "d0003": all["d0003"]},
			probs:      []string{`error Verdict!G2 u1: "Maybe"`},
			unresolved: []string{"d0001"},
		},
		{
			name: "reasons in another case, and one of the adjudicator's own",
			tamper: func(t *testing.T, m *memGrid) {
				m.setText(t, v, "d0001", "Reason", "Annotator  Error")
				m.setText(t, v, "d0002", "Reason", "too hard")
			},
			want:  map[string]string{"d0001": `final="meh" reason=annotator error`, "d0002": "use=a reason=too hard", "d0003": all["d0003"]},
			probs: []string{`warning Verdict!I3 u2: "too hard" is not one of the reasons`},
		},
		{
			name: "a formula with no saved value in a note",
			tamper: func(t *testing.T, m *memGrid) {
				m.set(t, v, "d0003", "Note", backend.ReadCell{Type: backend.CellNoValue, Formula: "SUM(A1:A2)"})
			},
			want:  map[string]string{"d0001": all["d0001"], "d0002": all["d0002"], "d0003": "use=suggested note==SUM(A1:A2)"},
			probs: []string{"warning Verdict!J4 u3: a formula with no saved value (=SUM(A1:A2)): read as its text"},
		},
		{
			name: "a row without its ID",
			tamper: func(t *testing.T, m *memGrid) {
				rows(m)[2][0] = backend.ReadCell{}
			},
			want:       without("d0002"),
			probs:      []string{"warning Verdict!A3 : row 3 has answers but no Decision ID", "error Verdict! u2: the row of d0002"},
			unresolved: []string{"d0002"},
		},
		{
			name: "a row of another sheet's decision",
			tamper: func(t *testing.T, m *memGrid) {
				rows(m)[2][0] = backend.ReadCell{Value: "d0099"}
			},
			want:       without("d0002"),
			probs:      []string{`warning Verdict!A3 : "d0099" is not a decision of this sheet`, "error Verdict! u2: the row of d0002"},
			unresolved: []string{"d0002"},
		},
		{
			name: "the last column deleted",
			tamper: func(t *testing.T, m *memGrid) {
				note := m.col(t, v, "Note")
				for k, r := range rows(m) {
					m.sheets[v][k] = r[:note]
				}
			},
			want:  map[string]string{"d0001": all["d0001"], "d0002": all["d0002"], "d0003": "use=suggested"},
			probs: []string{`error Verdict!J1 : the column "Note" is not on the sheet`},
		},
		{
			name: "the sheet deleted",
			tamper: func(t *testing.T, m *memGrid) {
				m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == v })
			},
			want:       map[string]string{},
			probs:      []string{"error Verdict! : the sheet Verdict is not in the workbook"},
			unresolved: []string{"d0001", "d0002", "d0003"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := find(t, tp, Options{}, recs...)
			m, rd := book(t, tp, f)
			filled(t, m)
			if c.tamper != nil {
				c.tamper(t, m)
			}
			decided, probs := read(t, m, rd)
			got := map[string]string{}
			for id, d := range decided {
				got[id] = decisionOf(d)
				if d.Item != id {
					t.Errorf("decision %s of item %q", id, d.Item)
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			if len(probs) != len(c.probs) {
				t.Errorf("problems %q, want %q", problemsOf(probs), c.probs)
			}
			for k, p := range problemsOf(probs) {
				if k < len(c.probs) && !strings.HasPrefix(p, c.probs[k]) {
					t.Errorf("problem %q, want %q…", p, c.probs[k])
				}
				if probs[k].File != "adj.xlsx" {
					t.Errorf("problem %q in file %q", p, probs[k].File)
				}
			}
			gold, _ := Gold(tp, f.Units, f.Items, decided, GoldOptions{})
			var unresolved []string
			for _, g := range gold {
				if p := g.Provenance["verdict"]; p.Kind == records.ProvenanceUnresolved {
					unresolved = append(unresolved, p.Decision)
				}
			}
			if diff := cmp.Diff(c.unresolved, unresolved); diff != "" {
				t.Errorf("unresolved (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadMeta refuses workbooks that are not adjudications: without the
// metadata sheet, with another kind of metadata (a study's workbook), or
// with metadata that cannot be read.
func TestReadMeta(t *testing.T) {
	t.Parallel()
	tp := loadTemplate(t, recordTemplate)
	found := func(t *testing.T) *Found {
		return find(t, tp, Options{}, rec(tp, "u1", "a", map[string]any{"verdict": "bad"}), rec(tp, "u1", "b", map[string]any{"verdict": "good"}))
	}
	cases := []struct {
		name   string
		tamper func(m *memGrid)
		want   string // in the error
	}{
		{"no metadata", func(m *memGrid) {
			m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == backend.SheetMeta })
		}, "has no _annosheet sheet"},
		{"a study's metadata", func(m *memGrid) {
			m.sheets[backend.SheetMeta] = [][]backend.ReadCell{backend.StringCells("annosheet", "{}")}
		}, "a study's workbook"},
		{"metadata that cannot be read", func(m *memGrid) { m.sheets[backend.SheetMeta][0][1].Value = `{"kind":"adjud` }, "B1"},
		{"empty metadata", func(m *memGrid) { m.sheets[backend.SheetMeta] = nil }, "is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, _ := book(t, tp, found(t))
			c.tamper(m)
			_, err := ReadMeta(m.grid())
			if !errors.Is(err, ErrNotAdjudication) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "adj.xlsx: ") {
				t.Errorf("err = %v, want ErrNotAdjudication naming the workbook and %q", err, c.want)
			}
		})
	}
	t.Run("as made", func(t *testing.T) {
		t.Parallel()
		m, _ := book(t, tp, found(t))
		meta, err := ReadMeta(m.grid())
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%s %s %d %s %s/%d", meta.Kind, meta.Adjudication, meta.Workbook, meta.Adjudicator, meta.Template.Name, meta.Template.Version)
		if got != "adjudication adj1 0 lead rec/1" || len(meta.Sheets) != 1 || meta.Sheets[0].Name != "Verdict" {
			t.Errorf("meta %s, sheets %+v", got, meta.Sheets)
		}
	})
}
