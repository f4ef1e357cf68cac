// Package compare compares one annotator's record of a unit with another
// record of the same unit: the record its answer cells started from (a
// model's suggestion, given with generate --prefill), or the unit's known
// answers (a control unit, generate --controls).
//
// Trace says what the annotator did with what they were given: per
// question, whether the value was kept, changed or cleared, and for a
// block's spans how many were kept, changed, removed or added. Score says
// how well each question matches the known answer, from 0 to 1.
//
// Both are pure functions of a template and two records, typed as pull
// makes them (records.TypedRecord types records read back from JSON):
// they do no I/O, and pair spans as the agreement package's span_f1 with
// match overlap does, so that a span kept, or found, means what agreement
// counts.
package compare
