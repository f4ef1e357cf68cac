package schema_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/annosheet/annosheet/schema"
	"github.com/annosheet/annosheet/study"
)

// TestSchemasCompile compiles each shipped schema, which checks it
// against its draft's meta-schema.
func TestSchemasCompile(t *testing.T) {
	for name, text := range map[string][]byte{"annotation.schema.json": schema.Annotation, "agreement.schema.json": schema.Agreement} {
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

// TestAgreementSchemaDocumented checks what makes the agreement schema a
// document: its id, title and version, the same version agree writes,
// and a description on every property it declares. The refinements
// under allOf narrow properties already described, and are not read.
func TestAgreementSchemaDocumented(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schema.Agreement, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || !strings.HasSuffix(doc["$id"].(string), "/schema/agreement.schema.json") || doc["title"] == "" {
		t.Errorf("$schema %v, $id %v, title %v", doc["$schema"], doc["$id"], doc["title"])
	}
	version := doc["properties"].(map[string]any)["schema"].(map[string]any)["const"]
	if version != study.AgreementSchema {
		t.Errorf("the schema's version is %v, agree writes %s", version, study.AgreementSchema)
	}
	var undocumented []string
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
							undocumented = append(undocumented, path+"/properties/"+name)
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
	walk("#", doc)
	slices.Sort(undocumented)
	for _, p := range undocumented {
		t.Errorf("%s has no description", p)
	}
}
