package study

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
)

// errDamaged is what a backend says of a file that is no zip.
var errDamaged = errors.New("zip: not a valid zip file")

// pulled is a pull's result as lines, with the study's folder, the other
// study's folder and both study IDs written as STUDY, OTHER, <study> and
// <other>, so that a case can say it in full.
type pulled struct {
	Records   []string
	Problems  []string
	Workbooks []string
}

func summary(res *Result, names *strings.Replacer) pulled {
	var s pulled
	for _, r := range res.Records {
		s.Records = append(s.Records, fmt.Sprintf("%s %s %s %s", r.Batch, r.Unit, r.Annotator, r.Status))
		for _, p := range r.Problems {
			s.Records = append(s.Records, fmt.Sprintf("  %s: %s", p.Severity, names.Replace(p.Message)))
		}
	}
	for _, p := range res.Problems {
		s.Problems = append(s.Problems, p.Severity+": "+names.Replace(p.Error()))
	}
	for _, w := range res.Workbooks {
		s.Workbooks = append(s.Workbooks, names.Replace(w.File)+" "+w.Batch)
	}
	return s
}

func TestPull(t *testing.T) {
	t.Parallel()
	const (
		akRead = "ak-b01 llama3-11 ak complete"
		akGPT  = "ak-b01 gpt4o-12 ak empty"
		akL12  = "ak-b01 llama3-12 ak empty"
	)
	btRead := []string{"bt-b01 gpt4o-11 bt empty", "bt-b01 gpt4o-13 bt empty"}
	bothRead := []string{"STUDY/legal-gaps-ak-b01.xlsx ak-b01", "STUDY/legal-gaps-bt-b01.xlsx bt-b01"}
	for _, c := range []struct {
		name string
		// setup changes the study and gives the sources to open.
		setup func(t *testing.T, m, other *made) []string
		want  pulled
	}{
		{
			name:  "every batch is read",
			setup: func(t *testing.T, m, _ *made) []string { return []string{m.dir} },
			want: pulled{
				Records:   append([]string{akRead, akGPT, akL12}, btRead...),
				Workbooks: bothRead,
			},
		},
		{
			name: "a missing workbook's units are missing, with an error naming it",
			setup: func(t *testing.T, m, _ *made) []string {
				delete(m.files.books, m.path(0))
				return []string{m.dir}
			},
			want: pulled{
				Records: append([]string{
					"ak-b01 llama3-11 ak missing", "  error: the workbook is missing",
					"ak-b01 gpt4o-12 ak missing", "  error: the workbook is missing",
					"ak-b01 llama3-12 ak missing", "  error: the workbook is missing",
				}, btRead...),
				Problems:  []string{"error: STUDY/legal-gaps-ak-b01.xlsx: the workbook of batch ak-b01 is missing; its 3 units are reported missing"},
				Workbooks: bothRead[1:],
			},
		},
		{
			name: "a unit taken out of a workbook's metadata is missing through the manifest, which wins",
			setup: func(t *testing.T, m, _ *made) []string {
				meta := m.w.books["ak-b01"][backend.SheetMeta]
				var kept [][]string
				for _, row := range meta {
					switch {
					case len(row) > 1 && row[0] == "unit" && m.gen.Manifest.OpaqueIDs[row[1]] == "llama3-12": // the fourth record
						continue
					case len(row) > 1 && row[0] == "workbook":
						row = []string{"workbook", strings.Replace(strings.Join(row[1:], ""), `"units":3`, `"units":2`, 1)}
					}
					kept = append(kept, row)
				}
				m.w.books["ak-b01"][backend.SheetMeta] = kept
				return []string{filepath.Join(m.dir, "manifest.json")}
			},
			want: pulled{
				Records: append([]string{akRead, akGPT,
					"ak-b01 llama3-12 ak missing", "  error: the workbook does not list this unit, which the manifest lists for its batch",
				}, btRead...),
				Problems: []string{
					"error: STUDY/legal-gaps-ak-b01.xlsx: the workbook of batch ak-b01 does not list 1 unit that the manifest lists for it (llama3-12): its metadata sheet was edited; they are reported missing",
					"error: STUDY/legal-gaps-ak-b01.xlsx: Annotate!4:4: the row's answers cannot be read: its unit \"llama3-12\" (shown as \"<llama3-12 shown>\") is not one of this workbook's units (a row from another workbook?); they are L4=\"ak\"",
				},
				Workbooks: bothRead,
			},
		},
		{
			name: "a damaged workbook's units are missing, saying why, and the other batches are read",
			setup: func(t *testing.T, m, _ *made) []string {
				m.files.fail(m.path(0), fmt.Errorf("%s: %w", m.path(0), errDamaged))
				return []string{filepath.Join(m.dir, "manifest.json")}
			},
			want: pulled{
				Records: append([]string{
					"ak-b01 llama3-11 ak unreadable", "  error: the workbook could not be read: zip: not a valid zip file",
					"ak-b01 gpt4o-12 ak unreadable", "  error: the workbook could not be read: zip: not a valid zip file",
					"ak-b01 llama3-12 ak unreadable", "  error: the workbook could not be read: zip: not a valid zip file",
				}, btRead...),
				Problems:  []string{"error: STUDY/legal-gaps-ak-b01.xlsx: the workbook of batch ak-b01 could not be read: zip: not a valid zip file; its 3 units are reported unreadable"},
				Workbooks: bothRead[1:],
			},
		},
		{
			name: "a workbook of another study in the folder is not read, with a warning",
			setup: func(t *testing.T, m, other *made) []string {
				stray := filepath.Join(m.dir, "stray.xlsx")
				touch(t, stray)
				m.files.serve(stray, other.w, other.gen.Manifest.Batches[0])
				return []string{m.dir}
			},
			want: pulled{
				Records: append([]string{akRead, akGPT, akL12}, btRead...),
				Problems: []string{"warning: STUDY/stray.xlsx: not read: it is in the study's folder but not of its study " +
					"(workbook of another template or study: it belongs to study <other>, not <study>)"},
				Workbooks: bothRead,
			},
		},
		{
			name: "a workbook of another study given beside the manifest is not read, with a warning",
			setup: func(t *testing.T, m, other *made) []string {
				m.files.serve(other.path(0), other.w, other.gen.Manifest.Batches[0])
				touch(t, other.path(0))
				return []string{filepath.Join(m.dir, "manifest.json"), other.path(0)}
			},
			want: pulled{
				Records: append([]string{akRead, akGPT, akL12}, btRead...),
				Problems: []string{"warning: OTHER/legal-gaps-ak-b01.xlsx: not read: it was given with the manifest of study <study> but is not of that study " +
					"(workbook of another template or study: it belongs to study <other>, not <study>)"},
				Workbooks: bothRead,
			},
		},
		{
			name: "a file the backend cannot read is reported, not passed over",
			setup: func(t *testing.T, m, _ *made) []string {
				touch(t, filepath.Join(m.dir, "legal-gaps-ak-b01.ods"))
				m.files.cannot = map[string]string{".ods": "LibreOffice is not installed: save it as .xlsx"}
				return []string{m.dir}
			},
			want: pulled{
				Records:   append([]string{akRead, akGPT, akL12}, btRead...),
				Problems:  []string{"warning: STUDY/legal-gaps-ak-b01.ods: not read: LibreOffice is not installed: save it as .xlsx"},
				Workbooks: bothRead,
			},
		},
		{
			name: "a returned copy is merged with the original",
			setup: func(t *testing.T, m, _ *made) []string {
				back := filepath.Join(m.dir, "legal-gaps-ak-b01 (returned).xlsx")
				touch(t, back)
				copied := &memWriter{books: map[string]map[string][][]string{}, order: m.w.order}
				copied.books["ak-b01"] = cloneBook(m.w.books["ak-b01"])
				copied.set("ak-b01", "B3", "TRUE")
				m.files.serve(back, copied, m.gen.Manifest.Batches[0])
				return []string{m.dir}
			},
			want: pulled{
				Records: append([]string{akRead, "ak-b01 gpt4o-12 ak complete", akL12}, btRead...),
				Problems: []string{"warning: STUDY/legal-gaps-ak-b01 (returned).xlsx: another copy of batch ak-b01 " +
					"(so is STUDY/legal-gaps-ak-b01.xlsx): their answers are merged, unit by unit"},
				Workbooks: append(bothRead, "STUDY/legal-gaps-ak-b01 (returned).xlsx ak-b01"),
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, other := makeStudy(t), makeStudy(t)
			m.w.set("ak-b01", "B2", "TRUE")
			sources := c.setup(t, m, other)
			src, err := Open(sources, Backends{Files: m.files})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Pull(context.Background(), src, PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pairs := []string{m.dir, "STUDY", other.dir, "OTHER", m.gen.Manifest.Study, "<study>", other.gen.Manifest.Study, "<other>"}
			for o, real := range m.gen.Manifest.OpaqueIDs {
				pairs = append(pairs, `"`+o+`"`, `"<`+real+` shown>"`)
			}
			names := strings.NewReplacer(pairs...)
			if diff := cmp.Diff(c.want, summary(res, names)); diff != "" {
				t.Errorf("Pull (-want +got):\n%s", diff)
			}
			if res.NothingRead(src) {
				t.Error("NothingRead: a study was given")
			}
		})
	}
}

// cloneBook copies a workbook's sheets, so that typing into the copy
// leaves the original as it was.
func cloneBook(book map[string][][]string) map[string][][]string {
	out := map[string][][]string{}
	for sheet, rows := range book {
		for _, r := range rows {
			out[sheet] = append(out[sheet], append([]string(nil), r...))
		}
	}
	return out
}

// TestPullDamageKeepsItsCause: the problem of a damaged workbook, listed
// or met in the folder, still is its cause to errors.Is.
func TestPullDamageKeepsItsCause(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		damage  func(t *testing.T, m *made) string
		targets []error
		// atClose: the workbook opens and reads, and its close finds the
		// damage (in a part no read reached).
		atClose bool
	}{
		{
			name:    "a batch the manifest lists",
			damage:  func(t *testing.T, m *made) string { return m.path(1) },
			targets: []error{errDamaged, decode.ErrMissingUnit},
		},
		{
			name:    "a batch the manifest lists, damaged where only closing finds it",
			damage:  func(t *testing.T, m *made) string { return m.path(1) },
			targets: []error{errDamaged, decode.ErrMissingUnit},
			atClose: true,
		},
		{
			name: "a file in the study's folder",
			damage: func(t *testing.T, m *made) string {
				path := filepath.Join(m.dir, "returned.xlsx")
				touch(t, path)
				return path
			},
			targets: []error{errDamaged},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := makeStudy(t)
			path := c.damage(t, m)
			if c.atClose {
				m.files.failClose(path, fmt.Errorf("%s: %w", path, errDamaged))
			} else {
				m.files.fail(path, fmt.Errorf("%s: %w", path, errDamaged))
			}
			src, err := Open([]string{m.dir}, Backends{Files: m.files})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Pull(context.Background(), src, PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, target := range c.targets {
				if !errors.Is(res.Problems, target) {
					t.Errorf("problems %q: not %v", res.Problems, target)
				}
			}
		})
	}
}

// TestPullNamedWorkbookUnreadable: a workbook named on its own that cannot
// be read stops the pull with the backend's error, cause kept.
func TestPullNamedWorkbookUnreadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "b01.xlsx")
	touch(t, path)
	files := &fakeFiles{}
	files.fail(path, fmt.Errorf("%s: %w", path, errDamaged))
	src, err := Open([]string{path}, Backends{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Pull(context.Background(), src, PullOptions{})
	if !errors.Is(err, errDamaged) || err.Error() != path+": zip: not a valid zip file" {
		t.Errorf("Pull: error %v, want %s: zip: not a valid zip file", err, path)
	}
}

func TestNothingRead(t *testing.T) {
	t.Parallel()
	notWorkbook := func() (*backend.Grid, func() error, error) {
		return &backend.Grid{Kind: "xlsx", Name: "sheet.xlsx", Sheets: []string{"Sheet1"},
			Rows: func(string, func(int, []backend.ReadCell) error) error { return nil }}, func() error { return nil }, nil
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T) ([]string, Backends)
		want  bool
	}{
		{
			name: "a folder of spreadsheets that are not workbooks",
			setup: func(t *testing.T) ([]string, Backends) {
				dir := t.TempDir()
				touch(t, filepath.Join(dir, "sheet.xlsx"))
				return []string{dir}, Backends{Files: &fakeFiles{books: map[string]func() (*backend.Grid, func() error, error){
					filepath.Join(dir, "sheet.xlsx"): notWorkbook}}}
			},
			want: true,
		},
		{
			name: "a study none of whose workbooks is there",
			setup: func(t *testing.T) ([]string, Backends) {
				m := makeStudy(t)
				return []string{m.dir}, Backends{Files: &fakeFiles{}}
			},
			want: false,
		},
		{
			name: "a study's folder",
			setup: func(t *testing.T) ([]string, Backends) {
				m := makeStudy(t)
				return []string{m.dir}, Backends{Files: m.files}
			},
			want: false,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sources, b := c.setup(t)
			src, err := Open(sources, b)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Pull(context.Background(), src, PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.NothingRead(src); got != c.want {
				t.Errorf("NothingRead = %v, want %v (problems: %v)", got, c.want, res.Problems)
			}
		})
	}
}

// TestPullInterrupted: Ctrl-C in the middle of a workbook's rows stops
// the pull with the context's error, and never turns that workbook's
// units into unreadable records.
func TestPullInterrupted(t *testing.T) {
	t.Parallel()
	m := makeStudy(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	last := m.path(len(m.gen.Manifest.Batches) - 1)
	serve := m.files.books[last]
	m.files.books[last] = func() (*backend.Grid, func() error, error) {
		g, closeFn, err := serve()
		if err != nil {
			return nil, nil, err
		}
		rows := g.Rows
		g.Rows = func(sheet string, fn func(int, []backend.ReadCell) error) error {
			return rows(sheet, func(n int, cells []backend.ReadCell) error {
				if sheet == backend.SheetAnnotate {
					// The user presses Ctrl-C here; the sheet goes on for
					// many rows.
					cancel()
					for i := 0; i < 1000; i++ {
						if err := fn(n, cells); err != nil {
							return err
						}
					}
				}
				return fn(n, cells)
			})
		}
		return g, closeFn, nil
	}
	src, err := Open([]string{m.dir}, Backends{Files: m.files})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pull(ctx, src, PullOptions{})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("Pull: %v, %v", res, err)
	}
}
