// Package agreement computes inter-annotator agreement: pure functions
// over typed reliability data, with no I/O.
//
// The data is a Table (per unit, each annotator's Value or none) for
// questions with one answer per unit, and a SpanTable for spans; a unit
// lists every annotator, or only those who answered it, which keeps a
// study of many annotators as small as its answers. A question's type
// picks its metrics (Choice, Scale, Multi, Evidence, Text, Spans); each
// returns a Result with the corpus values, the values per pair of
// annotators that share a unit (the pairs that share the most, past
// Options.MaxPairs) and per option, and per unit whether the annotators
// agree. Time and memory follow the values and the pairs that share a
// unit, never the square of the number of annotators. Computations that
// may run long (a question's Result, a bootstrap interval) take a
// context and stop with its error once it is done. The low-level
// statistics (Krippendorff's α, Cohen's and Fleiss' κ, Gwet's AC1 and
// AC2, …) are exported for tests and for other packages, each citing its
// source.
//
//	res, err := agreement.Choice(ctx, table, []string{"yes", "no"}, agreement.Options{})
//
// Rules every function keeps, whatever the published tools do:
//   - values are paired by unit ID and annotator, never by position;
//   - a missing value is absent from the table (the caller turns a
//     template's "not yet answered" value into a missing one);
//   - chance terms that depend on the number of categories use the
//     categories the caller declares, not those that happen to be used;
//   - an empty set, and a span list with no span, is an answer;
//   - units with fewer than two values are not pairable;
//   - every sum runs in a fixed order (units, then annotators, as sorted),
//     so results are the same bit for bit from run to run.
package agreement
