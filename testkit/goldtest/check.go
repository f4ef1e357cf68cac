package goldtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/export"
	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/internal/ojson"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/xlsx"
)

// ValidateRecords checks canonical JSON Lines against the shipped JSON
// Schema.
func ValidateRecords(t testing.TB, jsonl []byte) {
	t.Helper()
	for i, line := range bytes.Split(bytes.TrimSpace(jsonl), []byte("\n")) {
		if err := AnnotationError(t, line); err != nil {
			t.Errorf("record %d does not match the schema: %v\n%s", i+1, err, line)
		}
	}
}

// Generate builds a workbook from a template and inputs into dir and
// returns its path.
func Generate(t testing.TB, dir string, tmpl *templates.Template, opt layout.Options, inputs ...string) (string, *layout.Result) {
	t.Helper()
	src, err := input.Open(tmpl.Input.Format, inputs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := layout.Build(context.Background(), tmpl, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close() // the plan is written here; the rest stays readable
	batch := opt.Batch
	if batch == "" {
		batch = "b01"
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.xlsx", tmpl.Name, batch))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xlsx.Write(res.Plan, f, xlsx.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, res
}

// PullFile pulls one workbook, returning the records as canonical JSON
// Lines too (the bytes pull would write).
func PullFile(t testing.TB, path string) (*decode.Pulled, []byte) {
	t.Helper()
	return PullFileWith(t, path, decode.PullOptions{})
}

// PullFileWith is PullFile with options: the study's orders and key of
// opaque IDs, as a pull through its manifest has them.
func PullFileWith(t testing.TB, path string, opt decode.PullOptions) (*decode.Pulled, []byte) {
	t.Helper()
	g, closeFn, err := xlsx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := decode.Pull(g, opt)
	if cerr := closeFn(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range p.Records {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	return p, b.Bytes()
}

// Study is what a coordinator's manifest keeps from annotators: the
// anonymisation keys, the candidate orders and the key of opaque IDs.
type Study struct {
	Keys   map[string]map[string]string
	Orders map[string][]string
	// OpaqueIDs gives records that keep their workbook's opaque IDs
	// their real ones.
	OpaqueIDs map[string]string
}

// Export writes the native file(s) of canonical JSON Lines.
func Export(t testing.TB, tmpl *templates.Template, jsonl []byte, study Study, inputs ...string) []export.File {
	t.Helper()
	recs, origins, err := records.Read(bytes.NewReader(jsonl), "pulled.jsonl", func(records.TemplateID) (*templates.Template, error) { return tmpl, nil })
	if err != nil {
		t.Fatal(err)
	}
	return Native(t, tmpl, recs, origins, study, inputs)
}

// Native writes the native file(s) of typed records, with the study's
// inputs, keys and orders.
func Native(t testing.TB, tmpl *templates.Template, recs []*records.Annotation, origins records.Origins, study Study, inputs []string) []export.File {
	t.Helper()
	src, err := input.Open(tmpl.Input.Format, inputs)
	if err != nil {
		t.Fatal(err)
	}
	var items []*layout.SourceItem
	if err := layout.Items(tmpl, src, study.Keys, func(it *layout.SourceItem) error { items = append(items, it); return nil }); err != nil {
		t.Fatal(err)
	}
	if study.OpaqueIDs != nil {
		recs, origins = restoredCopies(t, recs, origins, study.OpaqueIDs)
	}
	opt := export.Options{Orders: study.Orders, Origins: origins}
	if st, err := os.Stat(inputs[0]); err == nil && !st.IsDir() {
		b, err := os.ReadFile(inputs[0])
		if err != nil {
			t.Fatal(err)
		}
		opt.Style = ojson.DetectStyle(b)
	}
	files, err := export.Native(tmpl, recs, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	return files
}
