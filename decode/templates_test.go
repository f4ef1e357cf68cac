package decode_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/templates"
)

// TestTemplates: the workbooks of a study carry one template, loaded once
// for all of them; another text or other parameters are another template;
// and a workbook whose record does not match the text it carries is
// refused even when that text was loaded for another workbook before.
func TestTemplates(t *testing.T) {
	t.Parallel()
	tp, err := templates.Load("ks.yaml", []byte(kitchenSink))
	if err != nil {
		t.Fatal(err)
	}
	a := newMemBook(t, tp, ksRecords)
	b := newMemBookWith(t, tp, ksRecords, layout.Options{Seed: 2, Study: "s2"})
	var cache decode.Templates
	of := func(m *memBook) (*templates.Template, error) {
		t.Helper()
		w, err := decode.Open(m.grid())
		if err != nil {
			t.Fatal(err)
		}
		return cache.Of(w)
	}
	ta, err := of(a)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := of(b)
	if err != nil {
		t.Fatal(err)
	}
	if ta != tb {
		t.Error("two workbooks of one template text: loaded twice")
	}
	if ta.Hash() != tp.Hash() || ta.Name != tp.Name {
		t.Errorf("the template loaded is %s %s, want %s %s", ta.Name, ta.Hash(), tp.Name, tp.Hash())
	}

	// The record of b edited to pin another text: refused, cached or not.
	meta := b.sheets[backend.SheetMeta]
	edited := false
	for _, row := range meta {
		if len(row) > 1 && row[0] == layout.MetaWorkbook {
			joined := strings.Join(row[1:], "")
			row[1] = strings.Replace(joined, tp.Hash(), strings.Repeat("0", 64), 1)
			for i := 2; i < len(row); i++ {
				row[i] = ""
			}
			edited = row[1] != joined
		}
	}
	if !edited {
		t.Fatal("no workbook record to edit")
	}
	if _, err := of(b); !errors.Is(err, decode.ErrNotWorkbook) || !strings.Contains(err.Error(), "does not match its record") {
		t.Errorf("a record edited, the text loaded before: %v, want ErrNotWorkbook", err)
	}
	w, err := decode.Open(b.grid())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Pull(ta, decode.PullOptions{}); !errors.Is(err, decode.ErrNotWorkbook) {
		t.Errorf("pulled with a template its record does not pin: %v, want ErrNotWorkbook", err)
	}

	// Another text: another template.
	other, err := templates.Load("ks2.yaml", []byte(strings.Replace(kitchenSink, "Answer everything.", "Answer it all.", 1)))
	if err != nil {
		t.Fatal(err)
	}
	tc, err := of(newMemBook(t, other, ksRecords))
	if err != nil {
		t.Fatal(err)
	}
	if tc == ta || tc.Hash() != other.Hash() {
		t.Error("another template text: the first one's template given")
	}

	// One text, other parameters: another template, which reads another
	// field.
	const withParam = "params:\n  - {name: field, default: text}\n"
	src := strings.Replace(kitchenSink, "context:\n  - {name: text, header: Text, path: text}", withParam+"context:\n  - {name: text, header: Text, path: \"${field}\"}", 1)
	var got []string
	for _, field := range []string{"text", "other"} {
		tf, err := templates.LoadWithParams("ks3.yaml", []byte(src), map[string]string{"field": field})
		if err != nil {
			t.Fatal(err)
		}
		recs := strings.ReplaceAll(ksRecords, `"text":`, `"`+field+`":`)
		if field != "text" {
			recs = strings.ReplaceAll(recs, `"id":`, `"text": "x", "id":`)
		}
		tt, err := of(newMemBook(t, tf, recs))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tt.ParamValues()["field"])
	}
	if got[0] != "text" || got[1] != "other" {
		t.Errorf("the parameters of the templates loaded: %q, want text and other", got)
	}
}
