// Package schema ships the JSON Schemas of what annosheet writes for
// other programs, so that they and the tests can validate it: the
// canonical record that pull writes, the agreement report of
// `annosheet agree --json`, and the results of `annosheet results --json`.
//
//	var s = schema.Annotation // the schema's JSON text
package schema

import _ "embed"

// Annotation is the JSON Schema (draft 2020-12) of one canonical record,
// one line of what `annosheet pull` writes.
//
//go:embed annotation.schema.json
var Annotation []byte

// Agreement is the JSON Schema (draft 2020-12) of the agreement report
// that `annosheet agree --json` writes (annosheet.agreement/1).
//
//go:embed agreement.schema.json
var Agreement []byte

// Results is the JSON Schema (draft 2020-12) of what `annosheet results
// --json` writes (annosheet.results/1).
//
//go:embed results.schema.json
var Results []byte
