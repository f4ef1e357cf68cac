package render

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/study"
)

// Resolved writes the line of a gold set made without workbooks (a
// silver set) just written to path: its units, the annotators, the
// disagreements a majority decided and the ties left unresolved.
func Resolved(w io.Writer, path string, g *study.GoldSet, found *adjudicate.Found) {
	fmt.Fprintf(w, "wrote %s: %d units by %s, %s decided by majority, %d unresolved (ties)%s\n",
		path, len(g.Records), words.Count(len(found.Annotators), "annotator"), words.Count(len(found.Items)-g.Unresolved, "disagreement"), g.Unresolved, emptyGold(g))
}

// AdjudicateNotes writes, for standard error, what an adjudication run
// read besides the records: the problems of the earlier workbooks, notes
// on what their decisions became, and a note when no unit was complete
// to adjudicate.
func AdjudicateNotes(w io.Writer, res *study.Adjudicated) {
	Problems(w, res.Problems)
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	if len(res.Found.Units) == 0 {
		fmt.Fprintln(w, "note: no unit has a complete answer yet: nothing to adjudicate (pull or status says how far the annotators are)")
	}
}

// Adjudicated writes what an adjudication run did: the units and
// annotators, the answers accepted (unanimous, or by a majority, which
// the caller names by what set it: byMajority) and the disagreements to
// decide; then each workbook written, and the adjudication's manifest in
// dir.
func Adjudicated(w io.Writer, res *study.Adjudicated, dir, byMajority string) {
	f := res.Found
	unanimous, majority := f.Accepted()
	fmt.Fprintf(w, "%s by %s: %s accepted (%d unanimous, %d %s); %s to decide",
		words.Count(len(f.Units), "unit"), words.Count(len(f.Annotators), "annotator"), words.Count(unanimous+majority, "answer"),
		unanimous, majority, byMajority, words.Count(len(res.Manifest.Items), "disagreement"))
	if res.Kept > 0 {
		fmt.Fprintf(w, ", %d decided already and kept", res.Kept)
	}
	fmt.Fprintln(w)
	for i, at := range res.Written {
		b := res.Manifest.Workbooks[i]
		fmt.Fprintf(w, "wrote %s: %s for %s\n", at, words.Count(b.Items, "row"), b.Adjudicator)
	}
	fmt.Fprintf(w, "wrote %s (the key to the annotators' names: keep it from adjudicators)\n", filepath.Join(dir, adjudicate.ManifestFile))
}

// Feedback writes what a feedback run did: each annotator's workbook
// written with its rows, each annotator the gold set corrects nowhere,
// and, when no workbook was written, that the gold set of the
// adjudication corrects nobody.
func Feedback(w io.Writer, res *study.Feedbacks, adjudication string) {
	for _, b := range res.Written {
		fmt.Fprintf(w, "wrote %s: %s for %s\n", b.Location, words.Count(b.Rows, "corrected answer"), b.Annotator)
	}
	for _, a := range res.None {
		fmt.Fprintf(w, "no workbook for %s: the gold set corrects none of their answers\n", a)
	}
	if len(res.Written) == 0 {
		// Said even where there is nobody to name: an adjudication of
		// no complete answer yet, or one that decided nothing.
		fmt.Fprintf(w, "no feedback written: the gold set of %s corrects no annotator's answer\n", adjudication)
	}
}
