// Package adjudicate turns the answers of several annotators into one
// gold set. Find sorts every (unit, question) and every cluster of
// overlapping spans into what the annotators agree on, accepted as it
// stands, and what they disagree on, an Item for an adjudicator. Sheets
// lays the items out as a workbook plan with the question's own
// validation in the Final column; Read takes the filled workbook back as
// decisions, naming every cell it cannot use; Gold combines the accepted
// values and the decisions into one canonical record per unit, each value
// with its provenance.
//
// The package is pure: it reads and writes no files. The study package
// runs it over a study's sources and keeps its manifest.
package adjudicate
