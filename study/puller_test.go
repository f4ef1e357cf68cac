package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestLoad: Load pulls a study's folder as its Puller does and keeps the
// manifest, the pull and the key; a manifest given beside the records'
// own file names the study; a template named is the one the records are
// read with; progress is told of each workbook.
func TestLoad(t *testing.T) {
	t.Parallel()
	m := makeStudy(t)
	var told, progressed int
	l, err := Load(context.Background(), []string{m.dir}, LoadOptions{
		Backends: Backends{Files: m.files},
		Problems: func(records.Problems) { told++ },
		Progress: func(done, total int) { progressed++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if told != 1 || progressed != len(m.gen.Manifest.Batches) || l.Pulled == nil || len(l.Records) != len(l.Pulled.Records) {
		t.Errorf("problems told %d times, progress %d times (%d batches); pulled %v", told, progressed, len(m.gen.Manifest.Batches), l.Pulled)
	}
	if l.Manifest == nil || l.Manifest.Path != filepath.Join(m.dir, "manifest.json") || l.Template.Name != m.gen.Manifest.Template.Name {
		t.Errorf("manifest %v, template %v", l.Manifest, l.Template)
	}
	if l.Key() == nil || len(l.Key()) != len(m.gen.Manifest.OpaqueIDs) {
		t.Errorf("key %v, want the manifest's", l.Key())
	}

	// The pulled records as a file, with the manifest beside them.
	file := filepath.Join(t.TempDir(), "pulled.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := records.Write(f, l.Records); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	man, err := OpenManifest(m.dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Load(context.Background(), []string{file}, LoadOptions{Manifest: man})
	if err != nil {
		t.Fatal(err)
	}
	if again.Manifest != man || again.Pulled != nil || len(again.Records) != len(l.Records) || again.Key() == nil {
		t.Errorf("records with their manifest: manifest %v, pulled %v, %d records, key %v", again.Manifest, again.Pulled, len(again.Records), again.Key())
	}
	// The manifest by its file, and a gold set with a record repeated:
	// the records' copies are warned of first, then the gold set's.
	gold := filepath.Join(t.TempDir(), "gold.jsonl")
	g, err := os.Create(gold)
	if err != nil {
		t.Fatal(err)
	}
	if err := records.Write(g, append(l.Records[:1:1], l.Records[0])); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	var warned []string
	withGold, err := Load(context.Background(), []string{file, file}, LoadOptions{ManifestFile: m.dir, Gold: gold, Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if withGold.Manifest == nil || withGold.Manifest.Path != man.Path || withGold.Gold == nil || withGold.Gold.Name != gold || len(withGold.Gold.Records) != 1 {
		t.Errorf("manifest %v, gold %+v", withGold.Manifest, withGold.Gold)
	}
	if len(warned) != len(l.Records)+1 || !strings.Contains(warned[len(warned)-1], gold) || strings.Contains(warned[0], gold) {
		t.Errorf("warned %d times (%d records): first %q, last %q", len(warned), len(l.Records), warned[0], warned[len(warned)-1])
	}
	if _, err := Load(context.Background(), []string{file}, LoadOptions{ManifestFile: filepath.Join(t.TempDir(), "none.json")}); err == nil {
		t.Error("a manifest file that does not exist was taken")
	}
	if _, err := Load(context.Background(), []string{file}, LoadOptions{Template: "no-such-template"}); err == nil {
		t.Error("a template that does not exist was taken")
	}
	if l, err := Load(context.Background(), []string{file}, LoadOptions{Template: m.gen.Manifest.Template.Name}); err != nil || l.Key() != nil {
		t.Errorf("a built-in named, without the study: %v, key %v", err, l)
	}
}
