package goldtest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/annosheet/annosheet/testkit/builtin"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// TestRecordsRoundTrip: for each built-in template, the records of a real
// pull written as JSON Lines and read back are the records pull made, and
// the native export of either is the same, byte for byte.
func TestRecordsRoundTrip(t *testing.T) {
	type pulled struct {
		tp     *templates.Template
		path   string
		study  Study
		inputs []string
	}
	fill := func(t *testing.T, path string, fn func(w *Workbook) error) {
		t.Helper()
		w, err := OpenWorkbook(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(w); err != nil {
			t.Fatal(err)
		}
		if err := w.Save(); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]func(t *testing.T) pulled{
		"qa-span-errors": func(t *testing.T) pulled {
			tp, in, path, _ := goldQAWorkbook(t)
			return pulled{tp: tp, path: path, inputs: []string{in}}
		},
		"legal-gaps": func(t *testing.T) pulled {
			tp := builtin.Template(t, "legal-gaps")
			in := data + "legal-gaps/examples.sample.jsonl"
			path, res := Generate(t, t.TempDir(), tp, layout.Options{}, in)
			recs, err := ReadJSONL[LegalRecord](in)
			if err != nil {
				t.Fatal(err)
			}
			fill(t, path, func(w *Workbook) error { return FillLegal(w.RealIDs(res.OpaqueIDs), recs, "gold") })
			// Pulled without the manifest: the records keep the opaque
			// IDs, which export gives back through the study's key.
			return pulled{tp: tp, path: path, study: Study{OpaqueIDs: res.OpaqueIDs}, inputs: []string{in}}
		},
		"preference-likert": func(t *testing.T) pulled {
			tp := builtin.Template(t, "preference-likert")
			in := data + "preference/preference_json_1.json"
			path, res := Generate(t, t.TempDir(), tp, layout.Options{}, in)
			fill(t, path, func(w *Workbook) error {
				if err := FillPreference(w, w.Units[:7], "1"); err != nil {
					return err
				}
				// One partial record, and unanswered ones of the annotator.
				if err := w.Set(w.Rows[w.Units[3]][0], "q:third_prediction_likert", 0); err != nil {
					return err
				}
				for _, u := range w.Units[7:] {
					if err := w.Set(w.Rows[u][0], "annotator", "1"); err != nil {
						return err
					}
				}
				return nil
			})
			return pulled{tp: tp, path: path, study: Study{Orders: res.Orders}, inputs: []string{in}}
		},
		"factgenie-meta-eval": func(t *testing.T) pulled {
			tp := builtin.Template(t, "factgenie-meta-eval")
			in := data + "factgenie-d2t"
			path, res := Generate(t, t.TempDir(), tp, layout.Options{Seed: 5}, in)
			fill(t, path, FillFactgenie)
			return pulled{tp: tp, path: path, study: Study{Keys: res.Keys}, inputs: []string{in}}
		},
	}
	for _, name := range templates.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			mk, ok := cases[name]
			if !ok {
				t.Fatalf("no round trip for built-in template %s", name)
			}
			c := mk(t)
			p, jsonl := PullFile(t, c.path)
			before, err := json.Marshal(p.Records)
			if err != nil {
				t.Fatal(err)
			}
			read, origins, err := records.Read(bytes.NewReader(jsonl), "pulled.jsonl", func(id records.TemplateID) (*templates.Template, error) {
				if id.Name != c.tp.Name || id.Version != c.tp.Version {
					t.Errorf("the records name template %v", id)
				}
				return c.tp, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p.Records, read); diff != "" {
				t.Fatalf("records read back differ from those pulled (-pulled +read):\n%s", diff)
			}
			direct := Native(t, c.tp, p.Records, nil, c.study, c.inputs)
			fromJSONL := Native(t, c.tp, read, origins, c.study, c.inputs)
			if len(direct) == 0 || len(direct) != len(fromJSONL) {
				t.Fatalf("%d native files from the pull, %d from its JSON Lines", len(direct), len(fromJSONL))
			}
			for i := range direct {
				if direct[i].Annotator != fromJSONL[i].Annotator || !bytes.Equal(direct[i].Data, fromJSONL[i].Data) {
					t.Errorf("file %d: the native export of the JSON Lines differs from that of the pull:\n%s", i, cmp.Diff(string(direct[i].Data), string(fromJSONL[i].Data)))
				}
				if len(direct[i].Data) == 0 || direct[i].Records == 0 {
					t.Errorf("file %d: nothing exported", i)
				}
			}
			after, err := json.Marshal(p.Records)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Error("export changed the records it was given")
			}
		})
	}
}
