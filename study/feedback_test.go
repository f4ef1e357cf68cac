package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/filename"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
)

// memFiles reads the workbooks a memWriter holds as files.
type memFiles struct{ w *memWriter }

func (memFiles) Readable(string) (bool, string) { return true, "" }
func (f memFiles) Open(ctx context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	return f.w.Open(ctx, at)
}

// TestFeedback adjudicates a legal-gaps study of three annotators, two on
// each unit, decides two of its three disagreements in the workbook, and
// checks each annotator's feedback: only their own corrected rows, in
// the order of the units, and no workbook for one who was never
// corrected.
func TestFeedback(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	var recs []*records.Annotation
	add := func(unit, annotator string, codes ...string) {
		recs = append(recs, &records.Annotation{Template: records.TemplateID{Name: tp.Name, Version: tp.Version}, Unit: unit, Item: unit,
			Annotator: annotator, Status: records.StatusComplete, Values: map[string]any{"gaps": codes}})
	}
	add("u1", "ann2", "0")
	add("u1", "ann3", "0")
	add("u2", "ann2", "1") // decided: 1
	add("u2", "ann3", "2")
	add("u3", "ann1", "2") // decided: ann2's
	add("u3", "ann2", "2", "3")
	add("u4", "ann1", "0") // undecided
	add("u4", "ann3", "1")
	ctx := context.Background()
	dir := t.TempDir()
	w := &memWriter{}
	read := Backends{Files: memFiles{w}}
	res, err := Adjudicate(ctx, tp, recs, AdjudicateOptions{Dir: dir, Kind: backend.KindXLSX, Adjudicators: []string{"lead"}}, read, w)
	if err != nil {
		t.Fatal(err)
	}
	// The adjudicator's decisions, typed into the Gaps sheet.
	sheet := w.books["adjudicate-lead"]["Gaps"]
	col := func(header string) int {
		i := slices.Index(sheet[0], header)
		if i < 0 {
			t.Fatalf("no column %q in %q", header, sheet[0])
		}
		return i
	}
	for _, r := range sheet[1:] {
		switch r[col("ID")] {
		case "u2":
			r[col("Final: 1 Intrinsic error/LLM error")], r[col("Reason")], r[col("Note")] = "TRUE", "annotator error", "as ann2 saw"
		case "u3":
			r[col("Or use")] = res.Manifest.Names[slices.Index(res.Manifest.Annotators, "ann2")]
		}
	}

	out := filepath.Join(dir, "feedback")
	fb, err := Feedback(ctx, dir, FeedbackOptions{Dir: out}, read, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(fb.Problems) != 0 {
		t.Errorf("problems: %v", fb.Problems)
	}
	wantWritten := []FeedbackWritten{
		{Annotator: "ann1", Location: filepath.Join(out, "feedback-ann1.xlsx"), Rows: 1},
		{Annotator: "ann3", Location: filepath.Join(out, "feedback-ann3.xlsx"), Rows: 1},
	}
	if diff := cmp.Diff(wantWritten, fb.Written); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ann2"}, fb.None); diff != "" {
		t.Errorf("no workbook (-want +got):\n%s", diff)
	}
	header := []string{"ID", "Question", "Your answer", "Gold answer", "Decided by", "Reason", "Note"}
	for book, want := range map[string][][]string{
		"feedback-ann1": {header, {"u3", "Gaps", "2 Target Mismatch", "2 Target Mismatch; 3 Citation Error", "adjudicator", "", ""}},
		"feedback-ann3": {header, {"u2", "Gaps", "2 Target Mismatch", "1 Intrinsic error/LLM error", "adjudicator", "annotator error", "as another annotator saw"}},
	} {
		if diff := cmp.Diff(want, w.books[book]["Corrections"]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", book, diff)
		}
	}
	if _, ok := w.books["feedback-ann2"]; ok {
		t.Error("ann2, never corrected, got a workbook")
	}

	// Again: the workbooks there are replaced only with Force, and only
	// while they are what they were when the run began.
	if _, err := Feedback(ctx, dir, FeedbackOptions{Dir: out}, read, w); !errors.Is(err, atomicfile.ErrExists) ||
		!strings.Contains(err.Error(), filepath.Join(out, "feedback-ann1.xlsx")) || !strings.Contains(err.Error(), filepath.Join(out, "feedback-ann3.xlsx")) {
		t.Errorf("again without Force: %v, want ErrExists naming both workbooks", err)
	}
	w.beforeWrite = func(at backend.Location) {
		if batch(at) == "feedback-ann1" {
			w.books["feedback-ann1"]["Corrections"][1][6] = "seen, thanks"
			w.saves["feedback-ann1"]++
		}
	}
	if _, err := Feedback(ctx, dir, FeedbackOptions{Dir: out, Force: true}, read, w); !errors.Is(err, backend.ErrChanged) {
		t.Errorf("again with Force over a workbook saved meanwhile: %v, want ErrChanged", err)
	}
	if got := w.books["feedback-ann1"]["Corrections"][1][6]; got != "seen, thanks" {
		t.Errorf("the note saved meanwhile: %q", got)
	}
	w.beforeWrite = nil
	if _, err := Feedback(ctx, dir, FeedbackOptions{Dir: out, Force: true}, read, w); err != nil {
		t.Errorf("again with Force: %v", err)
	}
}

// TestFeedbackFileNames: annotators whose IDs would name one feedback
// workbook are refused before anything is written.
func TestFeedbackFileNames(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	recs := gapsRecords(tp, [3]string{"u1", "a/b", "1"}, [3]string{"u1", "a_b", "2"})
	ctx := context.Background()
	dir := t.TempDir()
	w := &memWriter{}
	read := Backends{Files: memFiles{w}}
	if _, err := Adjudicate(ctx, tp, recs, AdjudicateOptions{Dir: dir, Kind: backend.KindXLSX, Adjudicators: []string{"lead"}}, read, w); err != nil {
		t.Fatal(err)
	}
	books := len(w.books)
	out := filepath.Join(dir, "feedback")
	_, err = Feedback(ctx, dir, FeedbackOptions{Dir: out}, read, w)
	var ce *filename.CollisionError
	if !errors.As(err, &ce) || ce.A != "a/b" || ce.B != "a_b" {
		t.Errorf("feedback for a/b and a_b: %v, want a collision", err)
	}
	if _, serr := os.Stat(out); len(w.books) != books || serr == nil {
		t.Errorf("the refused run wrote %d workbooks, folder made: %v", len(w.books)-books, serr == nil)
	}
}

// TestFeedbackReadsWhatTheAdjudicationNames: without Items or Records,
// the feedback reads the study's manifest and the annotators' records the
// adjudication names, beside its folder; what it cannot read is a warning
// that says what the feedback then lacks, never a failure.
func TestFeedbackReadsWhatTheAdjudicationNames(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	recs := gapsRecords(tp, [3]string{"u1", "ann1", "1"}, [3]string{"u1", "ann2", "1"}, [3]string{"u1", "ann3", "2"})
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pulled.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w := &memWriter{}
	read := Backends{Files: memFiles{w}}
	aopt := AdjudicateOptions{Dir: dir, Kind: backend.KindXLSX, Adjudicators: []string{"lead"}, Study: filepath.Join(dir, "gone", "manifest.json"),
		Sources: []string{"pulled.jsonl", "https://example.org/sheet"}}
	aopt.Options.MinAgreement = 2
	if _, err := Adjudicate(ctx, tp, recs, aopt, read, w); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		reload func([]string) ([]*records.Annotation, error)
		warned []string // what the warnings say, in order
		rows   int      // ann3's corrected answers
	}{
		{"records read", func([]string) ([]*records.Annotation, error) { return recs, nil },
			[]string{"gone/manifest.json cannot be read"}, 1},
		{"records unreadable", func([]string) ([]*records.Annotation, error) { return nil, errors.New("no such sheet") },
			[]string{"gone/manifest.json cannot be read", "the annotators' records cannot be read again (no such sheet)"}, 0},
	} {
		var warned []string
		var asked []string
		fb, err := Feedback(ctx, dir, FeedbackOptions{Dir: filepath.Join(dir, tc.name), Warn: func(s string) { warned = append(warned, s) },
			Reload: func(sources []string) ([]*records.Annotation, error) { asked = sources; return tc.reload(sources) }}, read, w)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := []string{filepath.Join(dir, "pulled.jsonl"), "https://example.org/sheet"}; !slices.Equal(asked, want) {
			t.Errorf("%s: reloaded %q, want %q", tc.name, asked, want)
		}
		if len(warned) != len(tc.warned) {
			t.Fatalf("%s: warnings %q, want %d", tc.name, warned, len(tc.warned))
		}
		for i, s := range tc.warned {
			if !strings.Contains(warned[i], s) {
				t.Errorf("%s: warning %q, want it to say %q", tc.name, warned[i], s)
			}
		}
		rows := 0
		for _, wr := range fb.Written {
			if wr.Annotator == "ann3" {
				rows = wr.Rows
			}
		}
		if rows != tc.rows {
			t.Errorf("%s: ann3 has %d corrected answers, want %d (outvoted by the majority)", tc.name, rows, tc.rows)
		}
	}
}

// TestAdjudicateWithManifest: the study's manifest given, the
// adjudication records it and takes its units; inputs it cannot read
// are a warning that the rows show no context, and the workbooks are
// written all the same.
func TestAdjudicateWithManifest(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	recs := gapsRecords(tp, [3]string{"u1", "ann1", "1"}, [3]string{"u1", "ann2", "2"})
	dir := t.TempDir()
	man := &Manifest{Manifest: &manifest.Manifest{Inputs: []manifest.Input{{Path: "gone.jsonl"}}}, Path: filepath.Join(dir, "study", manifest.FileName)}
	var warned []string
	w := &memWriter{}
	res, err := Adjudicate(context.Background(), tp, recs, AdjudicateOptions{Dir: dir, Kind: backend.KindXLSX, Manifest: man,
		Warn: func(s string) { warned = append(warned, s) }}, Backends{Files: memFiles{w}}, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "the study's inputs cannot be read") || !strings.Contains(warned[0], man.Path) {
		t.Errorf("warnings %q, want one that the study's inputs cannot be read", warned)
	}
	if res.Manifest.Study == "" || len(res.Written) != 1 {
		t.Errorf("study %q, written %q: want the study recorded and one workbook", res.Manifest.Study, res.Written)
	}
}

// gapsRecords are complete legal-gaps records, each of one unit, one
// annotator and one gap code.
func gapsRecords(tp *templates.Template, answers ...[3]string) []*records.Annotation {
	var recs []*records.Annotation
	for _, a := range answers {
		recs = append(recs, &records.Annotation{Template: records.TemplateID{Name: tp.Name, Version: tp.Version}, Unit: a[0], Item: a[0],
			Annotator: a[1], Status: records.StatusComplete, Values: map[string]any{"gaps": []string{a[2]}}})
	}
	return recs
}

// TestCheckAnnotators: every annotator asked for without a record is
// refused, each in an OptionError naming it, with the records' nearest ID.
func TestCheckAnnotators(t *testing.T) {
	t.Parallel()
	tp, err := templates.Builtin("legal-gaps")
	if err != nil {
		t.Fatal(err)
	}
	recs := gapsRecords(tp, [3]string{"u1", "ak", "1"}, [3]string{"u1", "bb", "2"})
	if err := CheckAnnotators([]string{"bb", "ak"}, recs); err != nil {
		t.Errorf("annotators with records: %v", err)
	}
	err = CheckAnnotators([]string{"ak", "bbt", "zz"}, recs)
	var refused []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var oe *OptionError
		if !errors.As(e, &oe) || oe.Option != "annotators" || !errors.Is(e, ErrNoSuchAnnotator) {
			t.Errorf("%v: not an OptionError of annotators wrapping ErrNoSuchAnnotator", e)
			continue
		}
		refused = append(refused, oe.Value)
	}
	if !slices.Equal(refused, []string{"bbt", "zz"}) {
		t.Errorf("refused %q, want bbt and zz", refused)
	}
	if !strings.Contains(err.Error(), `did you mean "bb"?`) {
		t.Errorf("%v: want the nearest ID suggested", err)
	}
}
