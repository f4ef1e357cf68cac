package study

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
)

const (
	legalData = "../testdata/data/legal-gaps/examples.sample.jsonl"
	prefData  = "../testdata/data/preference/preference_json_1.json"
	qaData    = "../testdata/data/qa-feedback/dev_feedback.sample.json"
	fgData    = "../testdata/data/factgenie-d2t"
)

// TestBatchesFromSpool: a batch built from the spooled copy of its records
// is the batch built from the whole input, for every layout, with
// anonymised labels and shuffled candidates.
func TestBatchesFromSpool(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, c := range []struct{ tmpl, input string }{
		{"legal-gaps", legalData},
		{"preference-likert", prefData},
		{"qa-span-errors", qaData},
		{"factgenie-meta-eval", fgData},
	} {
		t.Run(c.tmpl, func(t *testing.T) {
			tp, err := input.Template(c.tmpl, nil)
			if err != nil {
				t.Fatal(err)
			}
			src, err := input.Open(tp.Input.Format, []string{c.input})
			if err != nil {
				t.Fatal(err)
			}
			opt := GenerateOptions{Template: tp, Inputs: []string{c.input}, Dir: t.TempDir(), Batch: "b01",
				Seed: 3, SeedSet: true, Annotators: []string{"ak", "bt", "cm"}, Overlap: 2, BatchSize: 3, Warn: func(error) {}}
			spool := input.NewSpool(src)
			defer spool.Close()
			g := &generation{opt: opt, w: &memWriter{}, t: tp, src: spool, path: filepath.Join(opt.Dir, manifest.FileName)}
			if err := g.begin(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if len(g.plan) < 3 {
				t.Fatalf("%d batches: the test needs several", len(g.plan))
			}
			for _, b := range g.plan {
				got, err := g.build(context.Background(), b)
				if err != nil {
					t.Fatal(err)
				}
				picked := map[string]bool{}
				for _, it := range b.Items {
					picked[it] = true
				}
				want, err := layout.Build(context.Background(), tp, src, layout.Options{Batch: b.ID, Study: g.study, CellLimit: g.w.Limits().CellChars, Seed: opt.Seed,
					Keys: g.all.Keys, Items: func(item string) bool { return picked[item] }, Annotator: b.Annotator, OpaqueIDs: g.all.OpaqueIDs})
				if err != nil {
					t.Fatal(err)
				}
				gotPlan, wantPlan := planDump(t, got.Plan), planDump(t, want.Plan)
				if len(got.Units) == 0 || !reflect.DeepEqual(got.Units, want.Units) || !reflect.DeepEqual(gotPlan, wantPlan) || !reflect.DeepEqual(got.Orders, want.Orders) {
					t.Errorf("batch %s: %d units from the spool, %d from the input; plans equal %v", b.ID, len(got.Units), len(want.Units), reflect.DeepEqual(gotPlan, wantPlan))
				}
			}
		})
	}
}

// planDump is a plan with its rows produced, so that plans compare.
func planDump(t *testing.T, p *backend.Plan) []any {
	t.Helper()
	var out []any
	for _, sh := range p.Sheets {
		var rows []backend.Row
		if err := sh.Rows(func(r backend.Row) error {
			rows = append(rows, r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		c := *sh
		c.Rows = nil
		out = append(out, c, rows)
	}
	return out
}

// TestPrefillModesAgree: the manifest names the suggestions mode as
// layout does, so that what generate records is what readers test.
func TestPrefillModesAgree(t *testing.T) {
	if manifest.PrefillSuggestions != layout.PrefillSuggestions {
		t.Errorf("manifest says %q, layout %q", manifest.PrefillSuggestions, layout.PrefillSuggestions)
	}
}
