package study

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/records"
)

// TestPuller: what records.Load is given of a pull: the records and the
// study (its template and key) when a manifest is among the sources; the
// problems handed over before anything can fail; ErrNothingRead when
// every source was refused.
func TestPuller(t *testing.T) {
	t.Parallel()
	m := makeStudy(t)
	var told int
	p := &Puller{Backends: Backends{Files: m.files}, Problems: func(ps records.Problems) { told++ }}
	got, err := p.Pull(context.Background(), []string{m.dir})
	if err != nil {
		t.Fatal(err)
	}
	if told != 1 || p.Result == nil || p.Sources == nil || len(got.Records) != len(p.Result.Records) || len(got.Records) == 0 {
		t.Errorf("problems told %d times; %d records, result %v", told, len(got.Records), p.Result)
	}
	if got.Study == nil || got.Study.Template == nil || got.Study.Template.Name != m.gen.Manifest.Template.Name || got.Study.Name != filepath.Join(m.dir, "manifest.json") {
		t.Errorf("study %+v", got.Study)
	}

	// A template of the caller's own: the study's is not loaded, and
	// parameters meant for the caller's are not given to it.
	p = &Puller{Backends: Backends{Files: m.files}, TemplateGiven: true, Params: map[string]string{"nosuch": "1"}}
	if got, err := p.Pull(context.Background(), []string{m.dir}); err != nil || got.Study == nil || got.Study.Template != nil {
		t.Errorf("with a template given: %v, %+v", err, got)
	}
	p = &Puller{Backends: Backends{Files: m.files}, Params: map[string]string{"nosuch": "1"}}
	if _, err := p.Pull(context.Background(), []string{m.dir}); err == nil {
		t.Error("a parameter the study's template lacks was taken")
	}

	man, err := OpenManifest(m.dir)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := man.ForRecords(map[string]string{"nosuch": "1"}, true); err != nil || s.Template != nil || s.Name != man.Path {
		t.Errorf("the study beside records read with a template given: %+v, %v", s, err)
	}

	dir := t.TempDir()
	touch(t, filepath.Join(dir, "sheet.xlsx"))
	notWorkbook := func() (*backend.Grid, func() error, error) {
		return &backend.Grid{Kind: "xlsx", Name: "sheet.xlsx", Sheets: []string{"Sheet1"},
			Rows: func(string, func(int, []backend.ReadCell) error) error { return nil }}, func() error { return nil }, nil
	}
	told = 0
	p = &Puller{Backends: Backends{Files: &fakeFiles{books: map[string]func() (*backend.Grid, func() error, error){filepath.Join(dir, "sheet.xlsx"): notWorkbook}}},
		Problems: func(ps records.Problems) { told += len(ps) }}
	if _, err := p.Pull(context.Background(), []string{dir}); !errors.Is(err, ErrNothingRead) || told == 0 {
		t.Errorf("nothing read: %v, %d problems told; want ErrNothingRead after them", err, told)
	}
}
