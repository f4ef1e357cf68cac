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
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/manifest"
)

// errBroken is a backend that cannot read what is there.
var errBroken = errors.New("read legal-gaps-ak-b01.xlsx: input/output error")

// answer reads cell B2 of batch ak-b01's Annotate sheet, where the tests
// type an answer.
func answer(w *memWriter) string {
	rows := w.books["ak-b01"][backend.SheetAnnotate]
	if len(rows) < 2 || len(rows[1]) < 2 {
		return ""
	}
	return rows[1][1]
}

// TestGenerateAgain runs Generate a second time over a study it made.
func TestGenerateAgain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// between changes the workbooks after the first run; again the
		// options of the second.
		between func(w *memWriter)
		again   func(o *GenerateOptions)
		// during changes the workbooks while the second run goes on.
		during  func(w *memWriter)
		wantErr string // with the study's folder as DIR
		wantIs  error
		// What the second run leaves: the workbooks it kept, whether the
		// study is the first run's (ID and seed), the answer typed in F2.
		kept      int
		sameStudy bool
		answer    string
	}{
		{
			name:    "all made: nothing to do without Force",
			wantErr: "DIR/manifest.json: file exists: all 2 workbooks of this study are made",
			wantIs:  atomicfile.ErrExists,
		},
		{
			name:      "Force rewrites the same study, keeping its ID and seed",
			again:     func(o *GenerateOptions) { o.Force = true },
			sameStudy: true,
		},
		{
			name:      "a drawn seed is kept as well",
			again:     func(o *GenerateOptions) { o.Force, o.Seed, o.SeedSet = true, 0, false },
			sameStudy: true,
		},
		{
			name:  "another plan is another study",
			again: func(o *GenerateOptions) { o.Force, o.Annotators = true, []string{"ak", "bt", "cm"} },
		},
		{
			name:    "Force over a workbook with answers is refused, naming it",
			between: func(w *memWriter) { w.set("ak-b01", "B2", "TRUE") },
			again:   func(o *GenerateOptions) { o.Force = true },
			wantErr: "DIR/legal-gaps-ak-b01.xlsx holds answers for 1 unit",
			wantIs:  ErrAnswered,
			answer:  "TRUE",
		},
		{
			name:  "an answer saved after the check is not replaced",
			again: func(o *GenerateOptions) { o.Force = true },
			during: func(w *memWriter) {
				w.beforeWrite = func(at backend.Location) {
					if batch(at) == "ak-b01" {
						w.set("ak-b01", "B2", "TRUE")
					}
				}
			},
			wantErr: "DIR/legal-gaps-ak-b01.xlsx: changed since it was read",
			wantIs:  backend.ErrChanged,
			answer:  "TRUE",
		},
		{
			name:      "DiscardAnswers replaces it",
			between:   func(w *memWriter) { w.set("ak-b01", "B2", "TRUE") },
			again:     func(o *GenerateOptions) { o.Force, o.DiscardAnswers = true, true },
			sameStudy: true,
		},
		{
			name:    "a workbook that cannot be read is never nothing to lose",
			between: func(w *memWriter) { w.fail = errBroken },
			again:   func(o *GenerateOptions) { o.Force = true },
			wantErr: "DIR/legal-gaps-ak-b01.xlsx: cannot tell whether it holds answers: read legal-gaps-ak-b01.xlsx: input/output error",
			wantIs:  errBroken,
		},
		{
			name: "a batch not made is made; the others are kept as they are",
			between: func(w *memWriter) {
				w.set("ak-b01", "B2", "TRUE")
				delete(w.books, "bt-b01")
			},
			kept:      1,
			sameStudy: true,
			answer:    "TRUE",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, w, opt, first := generateOnce(t)
			if c.between != nil {
				c.between(w)
			}
			if c.again != nil {
				c.again(&opt)
			}
			if c.during != nil {
				c.during(w)
			}
			second, err := generate(t, opt, w)
			if c.wantErr != "" {
				if err == nil || strings.ReplaceAll(err.Error(), dir, "DIR") != c.wantErr || !errors.Is(err, c.wantIs) {
					t.Fatalf("second Generate: error %v, want %s (%v)", err, c.wantErr, c.wantIs)
				}
				if got := answer(w); got != c.answer {
					t.Errorf("B2 of ak-b01 is %q after the refusal, want %q", got, c.answer)
				}
				// The manifest on disk is still the first run's.
				m, err := manifest.Read(first.Path)
				if err != nil || m.Study != first.Manifest.Study {
					t.Errorf("the manifest was changed by a refused run: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("second Generate: %v", err)
			}
			same := second.Manifest.Study == first.Manifest.Study
			if same != c.sameStudy || c.sameStudy && second.Manifest.Seed != first.Manifest.Seed {
				t.Errorf("study %s seed %d, then %s seed %d: want the same study %v", first.Manifest.Study, first.Manifest.Seed,
					second.Manifest.Study, second.Manifest.Seed, c.sameStudy)
			}
			if second.Kept != c.kept {
				t.Errorf("kept %d workbooks, want %d", second.Kept, c.kept)
			}
			if got := answer(w); got != c.answer {
				t.Errorf("B2 of ak-b01 is %q, want %q", got, c.answer)
			}
			for _, b := range second.Manifest.Batches {
				if _, ok := w.books[b.ID]; !ok && len(b.Units) > 0 {
					t.Errorf("batch %s was not made", b.ID)
				}
			}
			m, err := manifest.Read(second.Path)
			if err != nil || m.Study != second.Manifest.Study {
				t.Errorf("the manifest on disk is not the second run's: %v", err)
			}
		})
	}
}

func TestGeneratePlanErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opt  func(o *GenerateOptions)
	}{
		{"more overlap than annotators", func(o *GenerateOptions) { o.Annotators, o.Overlap = []string{"ak"}, 2 }},
		{"overlap without annotators", func(o *GenerateOptions) { o.Annotators, o.Overlap = nil, 2 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "study")
			w := &memWriter{}
			opt := legalOptions(t, dir)
			c.opt(&opt)
			_, err := generate(t, opt, w)
			if !errors.Is(err, ErrPlan) {
				t.Fatalf("Generate: error %v, want ErrPlan", err)
			}
			if len(w.books) > 0 {
				t.Errorf("%d workbooks made by a plan that cannot be", len(w.books))
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the study's folder was made by a plan that cannot be: %v", err)
			}
		})
	}
}

// TestGenerateRecordsWhatItMade: however a run ends, the manifest records
// every workbook it made, and a workbook made but not recorded (the run
// was killed before it saved the manifest) is made again by the next run,
// unless it holds answers.
func TestGenerateRecordsWhatItMade(t *testing.T) {
	t.Parallel()
	t.Run("a failure after batches not saved yet", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		w := &memWriter{failWrite: "cm-b01"}
		opt := legalOptions(t, dir)
		opt.Annotators = []string{"ak", "bt", "cm"}
		opt.saveRatio = 1e12 // after the first, no batch is saved on its own
		if _, err := generate(t, opt, w); err == nil || !strings.Contains(err.Error(), "the disk is full") {
			t.Fatalf("Generate: %v, want the failure of cm-b01", err)
		}
		m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range m.Batches {
			if made := b.ID != "cm-b01"; made != (b.Rows > 0) {
				t.Errorf("batch %s: %d rows recorded; made: %v", b.ID, b.Rows, made)
			}
		}
		w.failWrite = ""
		again, err := generate(t, opt, w)
		if err != nil {
			t.Fatal(err)
		}
		if again.Kept != 2 {
			t.Errorf("the next run kept %d workbooks, want 2", again.Kept)
		}
	})
	for _, c := range []struct {
		name    string
		answer  bool
		wantErr string
	}{
		{name: "made again when it holds no answers"},
		{name: "refused when it holds answers", answer: true, wantErr: "DIR/legal-gaps-bt-b01.xlsx holds answers for 1 unit"},
	} {
		t.Run("a workbook not recorded: "+c.name, func(t *testing.T) {
			t.Parallel()
			dir, w, opt, first := generateOnce(t)
			// As the manifest was before the run saved bt-b01.
			m, err := manifest.Read(first.Path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range m.Batches {
				if m.Batches[i].ID == "bt-b01" {
					m.Batches[i].Rows, m.Batches[i].Units = 0, nil
				}
			}
			if err := atomicfile.Write(first.Path, true, 0o644, m.Encode); err != nil {
				t.Fatal(err)
			}
			if c.answer {
				w.set("bt-b01", "B2", "TRUE")
			}
			second, err := generate(t, opt, w)
			if c.wantErr != "" {
				if err == nil || !strings.HasPrefix(strings.ReplaceAll(err.Error(), dir, "DIR"), c.wantErr) || !errors.Is(err, ErrAnswered) {
					t.Fatalf("Generate: %v, want %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if second.Kept != 1 {
				t.Errorf("kept %d workbooks, want 1 (ak-b01)", second.Kept)
			}
			for _, b := range second.Manifest.Batches {
				if b.Rows == 0 || len(b.Units) == 0 {
					t.Errorf("batch %s is not recorded: %d rows, %d units", b.ID, b.Rows, len(b.Units))
				}
			}
		})
	}
}

// TestGenerateKeepsKeptBatchesInEverySave: a run that makes one batch of
// several again saves a manifest that still records the batches it keeps,
// whenever it saves, not only once it has gone past them.
func TestGenerateKeepsKeptBatchesInEverySave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := &memWriter{}
	opt := legalOptions(t, dir)
	opt.Annotators = []string{"ak", "bt", "cm"}
	if _, err := generate(t, opt, w); err != nil {
		t.Fatal(err)
	}
	delete(w.books, "bt-b01")
	saves := 0
	opt.Wrote = func(string, *manifest.Batch, []string) {
		m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		saves++
		for _, b := range m.Batches {
			if b.ID != "bt-b01" && (b.Rows == 0 || b.File == "") {
				t.Errorf("once bt-b01 is made again, the manifest records kept batch %s as file %q, %d rows", b.ID, b.File, b.Rows)
			}
		}
	}
	again, err := generate(t, opt, w)
	if err != nil {
		t.Fatal(err)
	}
	if saves != 1 || again.Kept != 2 {
		t.Errorf("%d workbooks made, %d kept; want 1 and 2", saves, again.Kept)
	}
}

// TestGenerateEmptyStudyIsMade: the one workbook of a study without
// instances, which has no rows, counts as made.
func TestGenerateEmptyStudyIsMade(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "none.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opt := legalOptions(t, filepath.Join(dir, "study"))
	opt.Inputs, opt.Annotators, opt.Overlap = []string{empty}, nil, 0
	w := &memWriter{}
	run := func() (*Generated, error) {
		src, err := input.Open(opt.Template.Input.Format, []string{empty})
		if err != nil {
			t.Fatal(err)
		}
		spool := input.NewSpool(src)
		defer spool.Close()
		return Generate(context.Background(), opt, spool, w)
	}
	first, err := run()
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if len(first.Manifest.Batches) != 1 || first.Manifest.Batches[0].Rows != 0 {
		t.Fatalf("batches %+v, want one without rows", first.Manifest.Batches)
	}
	if _, err := run(); !errors.Is(err, atomicfile.ErrExists) {
		t.Errorf("second run: %v, want %v (its one workbook is made)", err, atomicfile.ErrExists)
	}
}

// TestGenerateKeepsOpaqueIDs: a run that finishes a study keeps the
// opaque IDs its manifest records, however they were numbered (by an
// earlier version in the input's order, say): the workbooks already made
// show them, and a workbook remade with others would be pulled as the
// wrong units.
func TestGenerateKeepsOpaqueIDs(t *testing.T) {
	t.Parallel()
	_, w, opt, first := generateOnce(t)
	// The key as it is, reversed: numbers no seed draws.
	key := map[string]string{}
	var items []string
	for o, real := range first.Manifest.OpaqueIDs {
		if !strings.Contains(o, "#") {
			items = append(items, o)
		}
		key[o] = real
	}
	slices.Sort(items)
	for i, o := range items {
		key[o] = first.Manifest.OpaqueIDs[items[len(items)-1-i]]
	}
	m, err := manifest.Read(first.Path)
	if err != nil {
		t.Fatal(err)
	}
	m.OpaqueIDs = key
	if err := atomicfile.Write(first.Path, true, 0o644, m.Encode); err != nil {
		t.Fatal(err)
	}
	delete(w.books, "bt-b01") // the run that made it was stopped
	second, err := generate(t, opt, w)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(key, second.Manifest.OpaqueIDs); diff != "" {
		t.Errorf("the finishing run's key (-recorded +got):\n%s", diff)
	}
	shown := map[string]string{}
	for o, real := range key {
		shown[real] = o
	}
	for _, b := range second.Manifest.Batches {
		if b.ID != "bt-b01" {
			continue
		}
		rows := w.books["bt-b01"][backend.SheetAnnotate][1:]
		for i, u := range b.Units {
			if got := rows[i][0]; got != shown[u.ID] {
				t.Errorf("bt-b01 row %d shows %s for %s, the key says %s", i+2, got, u.ID, shown[u.ID])
			}
		}
	}
}

// connectingWriter is a memWriter behind a client made at Connect, as
// sheets.Store's is; err is what Connect says.
type connectingWriter struct {
	*memWriter
	err       error
	connected int
}

func (w *connectingWriter) Connect(context.Context) error {
	w.connected++
	return w.err
}

// TestGenerateInputsConnectsFirst: a store that connects is connected
// once, before any input is read, and one that cannot be reached stops
// the study before anything is read or written.
func TestGenerateInputsConnectsFirst(t *testing.T) {
	t.Parallel()
	errRefused := errors.New("endpoint refused")
	for _, c := range []struct {
		name    string
		connect error
		inputs  []string
		is      error
	}{
		{name: "connected", inputs: []string{legalData}},
		{name: "refused, before the inputs are read", connect: errRefused, inputs: []string{"no-such-input.jsonl"}, is: errRefused},
		{name: "connected, then a missing input", inputs: []string{"no-such-input.jsonl"}, is: os.ErrNotExist},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "study")
			w := &connectingWriter{memWriter: &memWriter{}, err: c.connect}
			opt := legalOptions(t, dir)
			opt.Inputs = c.inputs
			_, err := GenerateInputs(context.Background(), opt, w)
			if !errors.Is(err, c.is) || c.is == nil && err != nil {
				t.Fatalf("GenerateInputs: error %v, want %v", err, c.is)
			}
			if w.connected != 1 {
				t.Errorf("connected %d times, want once", w.connected)
			}
			if made := len(w.books) > 0; made != (c.is == nil) {
				t.Errorf("%d workbooks made", len(w.books))
			}
			if _, err := os.Stat(dir); c.is != nil && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the study's folder was made by a study that failed: %v", err)
			}
		})
	}
}
