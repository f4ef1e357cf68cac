package records_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/schema"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// provenanceKinds are the kinds a gold value may have been decided by.
var provenanceKinds = []string{records.ProvenanceUnanimous, records.ProvenanceMajority, records.ProvenanceAdjudicated, records.ProvenanceUnresolved, records.ProvenanceCarried}

// fullProvenance is a provenance of kind with every field set, found by
// reflection: a field added to records.Provenance is written by the
// tests below too, and the schema must know it.
func fullProvenance(t *testing.T, kind string) *records.Provenance {
	t.Helper()
	p := &records.Provenance{}
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			f.SetString("set " + v.Type().Field(i).Name)
		case reflect.Int:
			f.SetInt(int64(i + 1))
		case reflect.Slice:
			if f.Type() != reflect.TypeFor[[]records.CarriedAnswer]() {
				t.Fatalf("records.Provenance.%s is a slice of %s, which fullProvenance does not set", v.Type().Field(i).Name, f.Type().Elem())
			}
			f.Set(reflect.ValueOf([]records.CarriedAnswer{{Annotator: "ak", Value: "a text"}, {Annotator: "bt", Value: []string{"1", "3"}}}))
		default:
			t.Fatalf("records.Provenance.%s is a %s, which fullProvenance does not set", v.Type().Field(i).Name, f.Kind())
		}
	}
	p.Kind = kind
	return p
}

// TestGoldRecordMatchesSchema marshals a gold record with provenance of
// every kind, by question and on spans, with every field set and with
// none but those always written, and checks it against the annotation
// schema.
func TestGoldRecordMatchesSchema(t *testing.T) {
	rec := &records.Annotation{
		Schema:     records.AnnotationSchema,
		Template:   records.TemplateID{Name: "qa-span-errors", Version: 1},
		Batch:      "b01",
		Unit:       "q0042",
		Item:       "q0042",
		Annotator:  records.GoldAnnotator,
		Status:     records.StatusPartial,
		Values:     map[string]any{},
		Provenance: map[string]*records.Provenance{},
		Source:     records.RecordSource{Kind: "xlsx", File: "adjudication.xlsx", Sheet: "Gaps", Rows: []int{4, 5, 6, 7}},
		Problems:   []records.UnitProblem{},
	}
	for i, kind := range provenanceKinds {
		rec.Provenance[kind] = fullProvenance(t, kind)
		rec.Provenance[kind+"_bare"] = &records.Provenance{Kind: kind}
		span := records.SpanAnswer{Question: "errors", Row: 4 + i, Provenance: fullProvenance(t, kind)}
		if kind != records.ProvenanceUnresolved && kind != records.ProvenanceCarried {
			rec.Values[kind] = "yes"
			rec.Values[kind+"_bare"] = 3
			span.Field, span.Start, span.End, span.Text = "prediction", ptr(10*i), ptr(10*i+4), "text"
			span.Label, span.Code = "Irrelevant", "Irrelevant"
		}
		rec.Spans = append(rec.Spans, span, records.SpanAnswer{Question: "errors", Row: 8 + i, Provenance: &records.Provenance{Kind: kind}})
	}
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	goldtest.ValidateRecords(t, line)
}

// TestProvenanceKeysInSchema checks the Go struct and the schema's
// provenance against each other, both ways: the keys a provenance with
// every field set writes are the keys the schema declares, those a
// provenance with no field set still writes are the ones it requires,
// and its kinds are the kinds mapping names.
func TestProvenanceKeysInSchema(t *testing.T) {
	var doc struct {
		Defs struct {
			Provenance struct {
				Required   []string       `json:"required"`
				Properties map[string]any `json:"properties"`
			} `json:"provenance"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema.Annotation, &doc); err != nil {
		t.Fatal(err)
	}
	def := doc.Defs.Provenance
	keys := func(p *records.Provenance) []string {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return sortedKeys(m)
	}
	if diff := cmp.Diff(sortedKeys(def.Properties), keys(fullProvenance(t, records.ProvenanceAdjudicated))); diff != "" {
		t.Errorf("the schema's provenance keys (-) and those records.Provenance writes (+) differ:\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(def.Required)), keys(&records.Provenance{})); diff != "" {
		t.Errorf("the keys the schema requires (-) and those records.Provenance always writes (+) differ:\n%s", diff)
	}
	kind, _ := def.Properties["kind"].(map[string]any)
	var enum []string
	for _, k := range kind["enum"].([]any) {
		enum = append(enum, k.(string))
	}
	if diff := cmp.Diff(enum, provenanceKinds); diff != "" {
		t.Errorf("the schema's kinds (-) and mapping's (+) differ:\n%s", diff)
	}
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func ptr(n int) *int { return &n }
