package schema_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/annosheet/annosheet/results"
	"github.com/annosheet/annosheet/schema"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/testkit/goldtest"
)

// TestSchemasCompile compiles each shipped schema, which checks it
// against its draft's meta-schema.
func TestSchemasCompile(t *testing.T) {
	for name, text := range map[string][]byte{"annotation.schema.json": schema.Annotation, "agreement.schema.json": schema.Agreement, "results.schema.json": schema.Results} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(name, doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := c.Compile(name); err != nil {
			t.Errorf("%s does not compile: %v", name, err)
		}
	}
}

// TestReportSchemasDocumented checks what makes the schemas of agree's
// and results' reports documents: an id, a title and a version, the same
// version the command writes, and a description on every property
// declared. The refinements under allOf narrow properties already
// described, and are not read.
func TestReportSchemasDocumented(t *testing.T) {
	for _, tc := range []struct {
		file, version string
		text          []byte
	}{
		{"agreement.schema.json", study.AgreementSchema, schema.Agreement},
		{"results.schema.json", results.Schema, schema.Results},
	} {
		var doc map[string]any
		if err := json.Unmarshal(tc.text, &doc); err != nil {
			t.Fatal(err)
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || !strings.HasSuffix(doc["$id"].(string), "/schema/"+tc.file) || doc["title"] == "" {
			t.Errorf("%s: $schema %v, $id %v, title %v", tc.file, doc["$schema"], doc["$id"], doc["title"])
		}
		if version := doc["properties"].(map[string]any)["schema"].(map[string]any)["const"]; version != tc.version {
			t.Errorf("%s: the schema's version is %v, the command writes %s", tc.file, version, tc.version)
		}
		for _, p := range undocumented("#", doc) {
			t.Errorf("%s: %s has no description", tc.file, p)
		}
	}
}

// undocumented lists, sorted, the properties declared under v that have
// no description. The refinements under allOf narrow properties already
// described, and are not read.
func undocumented(path string, v any) []string {
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "allOf" {
					continue
				}
				if k == "properties" {
					for name, p := range x.(map[string]any) {
						if d, _ := p.(map[string]any)["description"].(string); strings.TrimSpace(d) == "" {
							out = append(out, path+"/properties/"+name)
						}
					}
				}
				walk(path+"/"+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"/[]", x)
			}
		}
	}
	walk(path, v)
	slices.Sort(out)
	return out
}

// TestAnnotationProvenanceDocumented checks that the annotation schema
// describes a gold record's provenance: the property by question, the
// one on a span, and every key of a provenance; and that the record and
// its annotator say what annotator "gold" means.
func TestAnnotationProvenanceDocumented(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schema.Annotation, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc["properties"].(map[string]any)
	defs := doc["$defs"].(map[string]any)
	described := map[string]any{
		"#":                       doc,
		"#/properties/annotator":  props["annotator"],
		"#/properties/provenance": props["provenance"],
		"#/$defs/spanAnswer/properties/provenance": defs["spanAnswer"].(map[string]any)["properties"].(map[string]any)["provenance"],
		"#/$defs/provenance":                       defs["provenance"],
	}
	for path, v := range described {
		m, _ := v.(map[string]any)
		d, _ := m["description"].(string)
		if strings.TrimSpace(d) == "" {
			t.Errorf("%s has no description", path)
		}
		if (path == "#" || path == "#/properties/annotator") && !strings.Contains(d, `"gold"`) {
			t.Errorf("%s does not say what annotator \"gold\" means: %s", path, d)
		}
	}
	for _, p := range undocumented("#/$defs/provenance", defs["provenance"]) {
		t.Errorf("%s has no description", p)
	}
}

// goldRecord is a gold record as pulling an adjudication writes it, by
// hand: each kind of provenance by question and on a span, every
// optional key of one, and a reason no adjudication sheet offers (an
// older or edited one).
const goldRecord = `{"schema": "annosheet.annotation/1",
 "template": {"name": "qa-span-errors", "version": 1},
 "batch": "b01", "unit": "q0042", "item": "q0042", "annotator": "gold",
 "status": "partial",
 "values": {"best_prediction_topic": "second", "first_prediction_likert": 4, "prediction_helpful": true},
 "spans": [
  {"question": "errors", "row": 4, "field": "prediction", "start": 40, "end": 74, "text": "the court of appeal",
   "label": "Inconsistent Fact", "code": "Wrong-Grounding", "evidence": {"passage": 1, "sentences": [3]},
   "provenance": {"kind": "unanimous", "agreeing": 3, "annotators": 3}},
  {"question": "errors", "row": 5, "field": "prediction", "start": 80, "end": 91, "text": "in 1998",
   "label": "Irrelevant",
   "provenance": {"kind": "majority", "agreeing": 2, "annotators": 3, "decision": "d0002", "cell": "Spans!J5"}},
  {"question": "errors", "row": 6, "field": "prediction", "start": 95, "end": 99, "text": "fine",
   "provenance": {"kind": "adjudicated", "agreeing": 1, "annotators": 3, "adjudicator": "MB",
    "reason": "both acceptable", "note": "either reading works", "decision": "d0003", "cell": "Spans!J6"}},
  {"question": "errors", "row": 7,
   "provenance": {"kind": "unresolved", "agreeing": 0, "annotators": 2, "decision": "d0004", "cell": "Spans!J7"}}
 ],
 "provenance": {
  "best_prediction_topic": {"kind": "unanimous", "agreeing": 3, "annotators": 3},
  "first_prediction_likert": {"kind": "adjudicated", "agreeing": 1, "annotators": 3, "adjudicator": "MB",
   "reason": "looked it up in the 2019 guidelines", "decision": "d0001", "cell": "Gaps!H4"},
  "prediction_helpful": {"kind": "majority", "agreeing": 2, "annotators": 3},
  "second_prediction_likert": {"kind": "unresolved", "agreeing": 1, "annotators": 2, "decision": "d0005", "cell": "Gaps!H5"}
 },
 "source": {"kind": "xlsx", "file": "adjudication.xlsx", "sheet": "Gaps", "rows": [4, 5]},
 "problems": []}`

// TestGoldRecordSchema checks that the annotation schema takes a gold
// record with provenance by question and by span, whatever the reason
// says, and refuses one whose provenance has a kind it does not know, a
// key it does not have, a negative count, or lacks a key every
// provenance has.
func TestGoldRecordSchema(t *testing.T) {

	byQuestion := func(r map[string]any, q string) map[string]any {
		return r["provenance"].(map[string]any)[q].(map[string]any)
	}
	onSpan := func(r map[string]any, i int) map[string]any {
		return r["spans"].([]any)[i].(map[string]any)["provenance"].(map[string]any)
	}
	schemaRefuses(t, goldRecord, map[string]func(r map[string]any){
		"unknown kind":                 func(r map[string]any) { byQuestion(r, "best_prediction_topic")["kind"] = "consensus" },
		"unknown kind on a span":       func(r map[string]any) { onSpan(r, 1)["kind"] = "Majority" },
		"misspelt field":               func(r map[string]any) { byQuestion(r, "first_prediction_likert")["adjudicater"] = "MB" },
		"misspelt field on a span":     func(r map[string]any) { onSpan(r, 2)["decison"] = "d0003" },
		"negative agreeing":            func(r map[string]any) { byQuestion(r, "prediction_helpful")["agreeing"] = -1 },
		"negative agreeing on a span":  func(r map[string]any) { onSpan(r, 0)["agreeing"] = -2 },
		"negative annotators":          func(r map[string]any) { byQuestion(r, "prediction_helpful")["annotators"] = -3 },
		"agreeing not an integer":      func(r map[string]any) { byQuestion(r, "prediction_helpful")["agreeing"] = 1.5 },
		"no kind":                      func(r map[string]any) { delete(byQuestion(r, "best_prediction_topic"), "kind") },
		"no agreeing":                  func(r map[string]any) { delete(onSpan(r, 3), "agreeing") },
		"no annotators":                func(r map[string]any) { delete(byQuestion(r, "second_prediction_likert"), "annotators") },
		"reason not a string":          func(r map[string]any) { byQuestion(r, "first_prediction_likert")["reason"] = 2 },
		"provenance null":              func(r map[string]any) { r["provenance"].(map[string]any)["prediction_helpful"] = nil },
		"provenance a kind alone":      func(r map[string]any) { r["provenance"].(map[string]any)["prediction_helpful"] = "majority" },
		"span provenance null":         func(r map[string]any) { r["spans"].([]any)[0].(map[string]any)["provenance"] = nil },
		"provenance a list of answers": func(r map[string]any) { r["provenance"] = []any{byQuestion(r, "prediction_helpful")} },
	})
}

// tracedRecord is an annotator's record of a prefilled control unit.
const tracedRecord = `{"schema": "annosheet.annotation/1",
 "template": {"name": "qa-span-errors", "version": 1},
 "batch": "b01", "unit": "q7", "item": "q7", "annotator": "ak", "status": "complete",
 "values": {"prediction_helpful": "yes"},
 "prefill": {"from": "gpt4o", "questions": {"prediction_helpful": "kept", "best_prediction_topic": "cleared"},
             "spans": {"kept": 2, "changed": 1, "removed": 0, "added": 1}},
 "control": true, "control_score": {"prediction_helpful": 1, "errors": 0.5},
 "source": {"kind": "xlsx", "file": "b01.xlsx", "sheet": "Annotate", "rows": [4]},
 "problems": []}`

// TestPrefillControlSchema checks that the annotation schema takes a
// record with a prefill trace and a control score, and refuses one whose
// trace or score is not what pull writes.
func TestPrefillControlSchema(t *testing.T) {

	prefill := func(r map[string]any) map[string]any { return r["prefill"].(map[string]any) }
	spans := func(r map[string]any) map[string]any { return prefill(r)["spans"].(map[string]any) }
	schemaRefuses(t, tracedRecord, map[string]func(r map[string]any){
		"unknown state":          func(r map[string]any) { prefill(r)["questions"].(map[string]any)["prediction_helpful"] = "accepted" },
		"no from":                func(r map[string]any) { delete(prefill(r), "from") },
		"empty from":             func(r map[string]any) { prefill(r)["from"] = "" },
		"no questions":           func(r map[string]any) { delete(prefill(r), "questions") },
		"misspelt trace field":   func(r map[string]any) { prefill(r)["span"] = prefill(r)["spans"] },
		"negative span count":    func(r map[string]any) { spans(r)["removed"] = -1 },
		"span count not integer": func(r map[string]any) { spans(r)["kept"] = 1.5 },
		"span count missing":     func(r map[string]any) { delete(spans(r), "added") },
		"unknown span count":     func(r map[string]any) { spans(r)["moved"] = 1 },
		"control not a bool":     func(r map[string]any) { r["control"] = "yes" },
		"score above one":        func(r map[string]any) { r["control_score"].(map[string]any)["errors"] = 1.5 },
		"score below zero":       func(r map[string]any) { r["control_score"].(map[string]any)["errors"] = -0.1 },
		"score a string":         func(r map[string]any) { r["control_score"].(map[string]any)["errors"] = "1" },
	})
}

// schemaRefuses checks that the annotation schema takes the record good,
// and refuses it after each edit.
func schemaRefuses(t *testing.T, good string, edits map[string]func(r map[string]any)) {
	t.Helper()
	record := func() map[string]any {
		var rec map[string]any
		if err := json.Unmarshal([]byte(good), &rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	line, err := json.Marshal(record())
	if err != nil {
		t.Fatal(err)
	}
	goldtest.ValidateRecords(t, line)
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			bad := record()
			edit(bad)
			line, err := json.Marshal(bad)
			if err != nil {
				t.Fatal(err)
			}
			if goldtest.AnnotationError(t, line) == nil {
				t.Errorf("the schema takes a record it should refuse:\n%s", line)
			}
		})
	}
}
