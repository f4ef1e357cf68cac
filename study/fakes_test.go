package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/templates"
)

// fakeFiles is a Files backend that serves workbooks from memory by path.
type fakeFiles struct {
	books map[string]func() (*backend.Grid, func() error, error)
	// cannot says why a file of an extension cannot be read.
	cannot map[string]string
}

func (f *fakeFiles) Readable(name string) (bool, string) {
	ext := strings.ToLower(filepath.Ext(name))
	if why, ok := f.cannot[ext]; ok {
		return false, why
	}
	return ext == ".xlsx", ""
}

func (f *fakeFiles) Open(_ context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	path := at.Path
	if open, ok := f.books[path]; ok {
		return open()
	}
	return nil, nil, fmt.Errorf("%s: %w", path, ErrNotFound)
}

// serve makes path open batch b's workbook as w holds it.
func (f *fakeFiles) serve(path string, w *memWriter, b manifest.Batch) {
	if f.books == nil {
		f.books = map[string]func() (*backend.Grid, func() error, error){}
	}
	at := backend.Location{Kind: backend.KindXLSX, Path: filepath.Join("any", b.File)}
	f.books[path] = func() (*backend.Grid, func() error, error) { return w.Open(context.Background(), at) }
}

// fail makes path fail to open with err.
func (f *fakeFiles) fail(path string, err error) {
	if f.books == nil {
		f.books = map[string]func() (*backend.Grid, func() error, error){}
	}
	f.books[path] = func() (*backend.Grid, func() error, error) { return nil, nil, err }
}

// failClose makes path open as it does, but its close (after every
// read) say err: damage found in a part no read reached.
func (f *fakeFiles) failClose(path string, err error) {
	open := f.books[path]
	f.books[path] = func() (*backend.Grid, func() error, error) {
		g, closeFn, oerr := open()
		if oerr != nil {
			return nil, nil, oerr
		}
		return g, func() error {
			closeFn()
			return err
		}, nil
	}
}

// fakeSheets is a Spreadsheets backend whose links are "sheet:ID".
type fakeSheets struct{}

func (fakeSheets) ID(link string) (string, bool) { return strings.CutPrefix(link, "sheet:") }

func (fakeSheets) Open(_ context.Context, at backend.Location) (*backend.Grid, func() error, error) {
	return nil, nil, fmt.Errorf("spreadsheet %s: %w", at.ID, ErrNotFound)
}

// made is a study generated into memory: its folder holds only the
// manifest, its workbooks are in w.
type made struct {
	dir   string
	gen   *Generated
	w     *memWriter
	files *fakeFiles
}

// path is where batch i's workbook is, as Open joins it to the folder.
func (m *made) path(i int) string { return filepath.Join(m.dir, m.gen.Manifest.Batches[i].File) }

// legalOptions are the options of a legal-gaps study of the sample input
// in dir, shared out to ak and bt.
func legalOptions(t *testing.T, dir string) GenerateOptions {
	t.Helper()
	tp, err := input.Template("legal-gaps", nil)
	if err != nil {
		t.Fatal(err)
	}
	return GenerateOptions{Template: tp, Inputs: []string{legalData}, Dir: dir, Batch: "b01", Seed: 3, SeedSet: true,
		Annotators: []string{"ak", "bt"}, Overlap: 1, Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// legalRecords are the records of the sample legal-gaps input.
func legalRecords(t *testing.T, tp *templates.Template) Records {
	t.Helper()
	src, err := input.Open(tp.Input.Format, []string{legalData})
	if err != nil {
		t.Fatal(err)
	}
	spool := input.NewSpool(src)
	t.Cleanup(func() { spool.Close() })
	return spool
}

// generate runs Generate with opt into w.
func generate(t *testing.T, opt GenerateOptions, w *memWriter) (*Generated, error) {
	t.Helper()
	return Generate(context.Background(), opt, legalRecords(t, opt.Template), w)
}

// generateOnce generates the legal-gaps study of legalOptions into memory,
// in a folder of its own.
func generateOnce(t *testing.T) (dir string, w *memWriter, opt GenerateOptions, first *Generated) {
	t.Helper()
	dir = t.TempDir()
	w = &memWriter{}
	opt = legalOptions(t, dir)
	first, err := generate(t, opt, w)
	if err != nil {
		t.Fatal(err)
	}
	return dir, w, opt, first
}

// makeStudy generates a legal-gaps study for ak and bt into memory and a
// Files backend that serves its workbooks where its manifest says.
func makeStudy(t *testing.T) *made {
	t.Helper()
	dir := t.TempDir()
	w := &memWriter{}
	gen, err := generate(t, legalOptions(t, dir), w)
	if err != nil {
		t.Fatal(err)
	}
	m := &made{dir: dir, gen: gen, w: w, files: &fakeFiles{}}
	for i, b := range gen.Manifest.Batches {
		m.files.serve(m.path(i), w, b)
	}
	return m
}

// touch makes an empty file at path: a folder listing meets it, the
// backend serves its content.
func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
