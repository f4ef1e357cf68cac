package study

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/manifest"
)

// TestGenerateInterrupted: a run stopped after its first workbook records
// it in the manifest and says so; the same run again makes only the rest,
// in the same study.
func TestGenerateInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := &memWriter{}
	opt := legalOptions(t, dir)
	opt.SeedSet = false // as a coordinator runs it: the seed is drawn
	ctx, cancel := context.WithCancel(context.Background())
	opt.Wrote = func(string, *manifest.Batch, []string) { cancel() }
	_, err := Generate(ctx, opt, legalRecords(t, opt.Template), w)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "1 of 2 workbooks are made and recorded in") {
		t.Fatalf("Generate: %v", err)
	}
	m, err := manifest.Read(dir + "/" + manifest.FileName)
	if err != nil {
		t.Fatalf("the interrupted run left no manifest: %v", err)
	}
	if len(w.books) != 1 {
		t.Fatalf("%d workbooks made", len(w.books))
	}
	var made []string
	opt.Wrote = func(_ string, b *manifest.Batch, _ []string) { made = append(made, b.ID) }
	gen, err := Generate(context.Background(), opt, legalRecords(t, opt.Template), w)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 1 || gen.Kept != 1 || gen.Manifest.Study != m.Study || gen.Manifest.Seed != m.Seed {
		t.Errorf("resumed: made %v, kept %d, study %s (was %s)", made, gen.Kept, gen.Manifest.Study, m.Study)
	}
}

// TestCountedStops: the rows of a large sheet stop coming once the run is
// interrupted, so that Ctrl-C is honoured in the middle of a workbook:
// on every sheet, as the Read sheet of long texts and the metadata sheet
// of many units are long too. Only the Annotate sheet's rows are counted
// for progress.
func TestCountedStops(t *testing.T) {
	t.Parallel()
	for _, name := range []string{backend.SheetAnnotate, backend.SheetRead, backend.SheetMeta} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := &backend.Plan{Sheets: []*backend.Sheet{{Name: name, Rows: func(emit func(backend.Row) error) error {
				for range 100_000 {
					if err := emit(backend.Row{}); err != nil {
						return err
					}
				}
				return nil
			}}}}
			rows, steps := 0, 0
			err := counted(ctx, p, func(int) { steps++ }).Sheets[0].Rows(func(backend.Row) error {
				if rows++; rows == 1000 {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) || rows != 1000 {
				t.Errorf("rows went on to %d after the interrupt at 1000: %v", rows, err)
			}
			if want := map[bool]int{true: 999, false: 0}[name == backend.SheetAnnotate]; steps != want {
				t.Errorf("%d rows counted for progress, want %d", steps, want)
			}
		})
	}
}

// batchCancel interrupts the run as a batch's build reads its first
// record, once armed, and counts the records batches read after that.
type batchCancel struct {
	Records
	cancel context.CancelFunc
	armed  bool
	read   int
}

func (b *batchCancel) Subset(indexes []int) layout.Source {
	return batchSource{b.Records.Subset(indexes), b}
}

type batchSource struct {
	layout.Source
	b *batchCancel
}

func (s batchSource) Each(fn func(*layout.Record) error) error {
	return s.Source.Each(func(r *layout.Record) error {
		if s.b.armed {
			if s.b.read++; s.b.read == 1 {
				s.b.cancel()
			}
		}
		return fn(r)
	})
}

// TestGenerateInterruptedInBatch: Ctrl-C while a batch's workbook is
// being laid out stops its build at the record it is on, and the run
// says what it left, as when it comes during the writing.
func TestGenerateInterruptedInBatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := &memWriter{}
	opt := legalOptions(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &batchCancel{Records: legalRecords(t, opt.Template), cancel: cancel}
	opt.Wrote = func(string, *manifest.Batch, []string) { src.armed = true }
	_, err := Generate(ctx, opt, src, w)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "1 of 2 workbooks are made and recorded in") {
		t.Fatalf("Generate: %v", err)
	}
	if src.read != 1 {
		t.Errorf("the second batch's build read %d records after the interrupt, want only the one it was on", src.read)
	}
	if len(w.books) != 1 {
		t.Errorf("%d workbooks made, want 1", len(w.books))
	}
	m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatalf("the interrupted run left no manifest: %v", err)
	}
	if made := m.Batches[0].Rows > 0; !made || m.Batches[1].Rows != 0 {
		t.Errorf("the manifest records rows %d and %d, want the first batch's only", m.Batches[0].Rows, m.Batches[1].Rows)
	}
}
