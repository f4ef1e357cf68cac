package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/adjudicate"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
)

// TestResolved: the line of a silver set written, its empty units said
// only when there are some.
func TestResolved(t *testing.T) {
	t.Parallel()
	found := &adjudicate.Found{Annotators: []string{"ak", "bt"}, Items: make([]*adjudicate.Item, 3)}
	for _, tc := range []struct {
		name     string
		statuses []string
		want     string
	}{
		{"complete", []string{records.StatusComplete, records.StatusComplete}, "wrote silver.jsonl: 2 units by 2 annotators, 2 disagreements decided by majority, 1 unresolved (ties)\n"},
		{"a unit nobody completed", []string{records.StatusComplete, records.StatusEmpty}, "wrote silver.jsonl: 2 units by 2 annotators, 2 disagreements decided by majority, 1 unresolved (ties), 1 with no complete answer yet (empty)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &study.GoldSet{Unresolved: 1}
			for _, s := range tc.statuses {
				g.Records = append(g.Records, &records.Annotation{Status: s})
			}
			var b strings.Builder
			Resolved(&b, "silver.jsonl", g, found)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

// TestAdjudicated: the notes of a run (the earlier workbooks' problems,
// what their decisions became, nothing to adjudicate) and its summary:
// answers accepted, disagreements to decide, decisions kept, each
// workbook and the manifest.
func TestAdjudicated(t *testing.T) {
	t.Parallel()
	unanimous := map[string]*records.Provenance{"gaps": {Kind: records.ProvenanceUnanimous}}
	majority := map[string]*records.Provenance{"gaps": {Kind: records.ProvenanceMajority}}
	res := &study.Adjudicated{
		Found: &adjudicate.Found{Annotators: []string{"ak", "bt", "cm"}, Units: []*adjudicate.Accepted{
			{Unit: "u1", Provenance: unanimous}, {Unit: "u2", Provenance: majority}, {Unit: "u3"},
		}},
		Manifest: &adjudicate.Manifest{Items: make([]*adjudicate.Item, 2), Workbooks: []adjudicate.BookRef{{Adjudicator: "lead", Items: 1}, {Adjudicator: "second", Items: 1}}},
		Written:  []string{filepath.Join("adj", "adjudicate-lead.xlsx"), filepath.Join("adj", "adjudicate-second.xlsx")},
		Notes:    []string{"d0001 was decided and is no longer a disagreement"},
		Problems: records.Problems{{Severity: records.Warning, File: "adjudicate-lead.xlsx", Message: "a note"}},
	}
	for _, tc := range []struct {
		name        string
		kept        int
		notes, want string
	}{
		{"new", 0, "warning: adjudicate-lead.xlsx: a note\nnote: d0001 was decided and is no longer a disagreement\n",
			"3 units by 3 annotators: 2 answers accepted (1 unanimous, 1 by majority); 2 disagreements to decide\n"},
		{"again", 2, "warning: adjudicate-lead.xlsx: a note\nnote: d0001 was decided and is no longer a disagreement\n",
			"3 units by 3 annotators: 2 answers accepted (1 unanimous, 1 by majority); 2 disagreements to decide, 2 decided already and kept\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *res
			r.Kept = tc.kept
			var notes, out strings.Builder
			AdjudicateNotes(&notes, &r)
			Adjudicated(&out, &r, "adj", "by majority")
			want := tc.want +
				"wrote " + filepath.Join("adj", "adjudicate-lead.xlsx") + ": 1 row for lead\n" +
				"wrote " + filepath.Join("adj", "adjudicate-second.xlsx") + ": 1 row for second\n" +
				"wrote " + filepath.Join("adj", adjudicate.ManifestFile) + " (the key to the annotators' names: keep it from adjudicators)\n"
			if notes.String() != tc.notes || out.String() != want {
				t.Errorf("notes\n%s\nwant\n%s\nsummary\n%s\nwant\n%s", notes.String(), tc.notes, out.String(), want)
			}
		})
	}

	var notes strings.Builder
	AdjudicateNotes(&notes, &study.Adjudicated{Found: &adjudicate.Found{}})
	if want := "note: no unit has a complete answer yet: nothing to adjudicate (pull or status says how far the annotators are)\n"; notes.String() != want {
		t.Errorf("nothing to adjudicate: got %q, want %q", notes.String(), want)
	}
}

// TestFeedback: a line per workbook written and per annotator the gold
// set never corrects; and, when nothing was written, a line that says
// so even with nobody to name.
func TestFeedback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		res  *study.Feedbacks
		want string
	}{
		{"written", &study.Feedbacks{Written: []study.FeedbackWritten{{Annotator: "ak", Location: "feedback-ak.xlsx", Rows: 2}}, None: []string{"bt"}},
			"wrote feedback-ak.xlsx: 2 corrected answers for ak\nno workbook for bt: the gold set corrects none of their answers\n"},
		{"nobody corrected", &study.Feedbacks{None: []string{"ak"}},
			"no workbook for ak: the gold set corrects none of their answers\nno feedback written: the gold set of adj corrects no annotator's answer\n"},
		{"nobody", &study.Feedbacks{}, "no feedback written: the gold set of adj corrects no annotator's answer\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			Feedback(&b, tc.res, "adj")
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
