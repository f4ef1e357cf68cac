// Package schema ships the JSON Schema of annosheet's canonical record, so
// that programs and tests can validate what pull writes.
//
//	var s = schema.Annotation // the schema's JSON text
package schema

import _ "embed"

// Annotation is the JSON Schema (draft 2020-12) of one canonical record,
// one line of what `annosheet pull` writes.
//
//go:embed annotation.schema.json
var Annotation []byte
