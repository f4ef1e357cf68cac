// Package records is the canonical record, the one typed model of an
// annotator's answers to one unit that every step after a pull reads:
// the record itself (Annotation), its values typed by the template
// (TypedRecord), and its JSON Lines, read back with budgets (Read),
// copies of one record kept once and contradictory ones refused
// (Distinct), and a workbook's opaque IDs given back their real ones
// (RestoreIDs).
//
//	recs, origins, err := records.Read(f, "annotations.jsonl", resolve)
//	recs, dups, err := records.Distinct(recs, origins)
//
// Package decode makes records from a sheet; export, agreement,
// adjudicate and report read them, through Load. Read reads only the
// io.Reader it is given; ReadFile and Load open the files of records
// they are named, and Load leaves every other source to its Puller.
package records
