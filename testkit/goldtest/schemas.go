package goldtest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/annosheet/annosheet/schema"
)

// shippedSchema is one of the JSON Schemas package schema ships,
// compiled once for every test that validates against it.
type shippedSchema struct {
	name     string
	text     []byte
	once     sync.Once
	compiled *jsonschema.Schema
	err      error
}

var (
	annotationSchema = &shippedSchema{name: "annotation.schema.json", text: schema.Annotation}
	agreementSchema  = &shippedSchema{name: "agreement.schema.json", text: schema.Agreement}
	resultsSchema    = &shippedSchema{name: "results.schema.json", text: schema.Results}
)

// get is the compiled schema; the test fails when the schema does not
// compile.
func (s *shippedSchema) get(t testing.TB) *jsonschema.Schema {
	t.Helper()
	s.once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.text))
		if err != nil {
			s.err = err
			return
		}
		c := jsonschema.NewCompiler()
		if s.err = c.AddResource(s.name, doc); s.err != nil {
			return
		}
		s.compiled, s.err = c.Compile(s.name)
	})
	if s.err != nil {
		t.Fatalf("%s does not compile: %v", s.name, s.err)
	}
	return s.compiled
}

// check is why one JSON document does not match the schema, nil when it
// does.
func (s *shippedSchema) check(t testing.TB, doc []byte) error {
	t.Helper()
	compiled := s.get(t)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return compiled.Validate(inst)
}

// AnnotationError is why one canonical record does not match the
// annotation schema (schema/annotation.schema.json), nil when it does:
// tests that expect a record to fail read it.
func AnnotationError(t testing.TB, record []byte) error {
	t.Helper()
	return annotationSchema.check(t, record)
}

// ValidateAgreement checks one report of `annosheet agree --json`
// against the shipped schema (schema/agreement.schema.json).
func ValidateAgreement(t testing.TB, report []byte) {
	t.Helper()
	if err := AgreementError(t, report); err != nil {
		t.Errorf("the agreement report does not match the schema: %v\n%s", err, report)
	}
}

// AgreementError is why a report does not match the agreement schema,
// nil when it does: tests that expect a report to fail read it.
func AgreementError(t testing.TB, report []byte) error {
	t.Helper()
	return agreementSchema.check(t, report)
}

// ValidateResults checks one report of `annosheet results --json` against
// the shipped schema (schema/results.schema.json).
func ValidateResults(t testing.TB, report []byte) {
	t.Helper()
	if err := resultsSchema.check(t, report); err != nil {
		t.Errorf("the results do not match the schema: %v\n%s", err, report)
	}
}
